//! What an import decided ([`ImportReport`], [`Skips`]): counts that add up, warnings and
//! the text the CLI prints — shared by every trace reader (split from the SWF reader,
//! issue #30).

use std::collections::BTreeMap;

use serde::Serialize;

use super::SwfHeader;
pub use crate::workload::demand::{ResourceCounts, SourceCounts};

/// Jobs skipped on import, by reason.
#[derive(Clone, Debug, Default, Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct Skips {
    /// Runtime (field 4) 0 or -1: cancelled or unknown.
    pub runtime_not_positive: u64,
    /// Processors 0 (field 5, or field 8 when 5 is -1).
    pub procs_zero: u64,
    /// Processors -1 in both field 5 and field 8.
    pub procs_unknown: u64,
    /// Submit time (field 2) -1.
    pub submit_unknown: u64,
}

impl Skips {
    pub fn total(&self) -> u64 {
        self.runtime_not_positive + self.procs_zero + self.procs_unknown + self.submit_unknown
    }
}

/// Everything the import decided, for the user to see. Counts add up:
/// `records = jobs + skipped.total()`, `data lines = records + malformed`.
#[derive(Clone, Debug, Default, Serialize, serde::Deserialize, PartialEq)]
pub struct ImportReport {
    pub file: String,
    pub gzip: bool,
    /// Decompressed size.
    pub bytes: u64,
    pub lines: u64,
    pub header_lines: u64,
    pub blank_lines: u64,
    /// Well-formed job lines.
    pub records: u64,
    /// Jobs accepted for simulation.
    pub jobs: u64,
    pub skipped: Skips,
    pub skipped_total: u64,
    /// Lines that are not 18 numbers; the first few are quoted in `malformed_examples`.
    pub malformed: u64,
    pub malformed_examples: Vec<String>,
    /// Estimate (field 9) missing: the runtime was used instead.
    pub estimate_missing: u64,
    /// Runtime above the estimate: such jobs are killed at the estimate by default.
    pub runtime_above_estimate: u64,
    /// Field 5 was -1 and field 8 gave the processor count.
    pub procs_from_requested: u64,
    /// Jobs wider than the header's MaxProcs: kept, and rejected by a run on a machine that
    /// small.
    pub wider_than_max_procs: u64,
    /// Jobs whose job number (field 1) an earlier job already had: kept under that number
    /// (outputs list jobs in submit order, so each row is still one job), and warned about.
    #[serde(default)]
    pub duplicate_ids: u64,
    /// Jobs whose submit time was earlier than the line before: the jobs were sorted.
    pub out_of_order: u64,
    /// Jobs left out by a time window (multi-site runs); included in `skipped_total`.
    pub outside_window: u64,
    pub header: SwfHeader,
    /// Things worth knowing that are not counts (truncation, format doubts).
    pub warnings: Vec<String>,
    /// The format read when it is not SWF: `gwf`, `batsim-json`, `sacct` (issue #29).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub format: String,
    /// The other formats' skipped records by reason (SWF keeps its own fields in `skipped`);
    /// part of `skipped_total`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub skipped_by_reason: BTreeMap<String, u64>,
    /// The other formats' malformed rows by reason; they sum to `malformed`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub malformed_by_reason: BTreeMap<String, u64>,
    /// GWF: the OrigSiteID of each site, in site order (a job's `home` indexes it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sites: Vec<String>,
    /// Memory, GPUs and node counts, per resource; only for a workload where some job
    /// states one (a processor-only trace's report is what it always was).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourceCounts>,
    /// sacct: each user's name, by the number the jobs carry (first appearance first), so
    /// that an association dump's users can be found (issue #42). Not serialized: an
    /// export keeps the logs' users anonymous, as SWF numbers them.
    #[serde(skip)]
    pub user_names: Vec<String>,
    /// sacct: each partition's name, by the number the jobs carry (also in the header's
    /// notes), so that slurm.conf's `PartitionName=` lines find their jobs.
    #[serde(skip)]
    pub partition_names: Vec<String>,
    /// sacct: each QOS's name, by the number in `Workload::qos`, so that the `slurm`
    /// policy's QOS definitions find their jobs (issue #42).
    #[serde(skip)]
    pub qos_names: Vec<String>,
    /// sacct: each account's name, by the number in `Workload::accounts`, so that an
    /// association dump's accounts find their jobs (issue #42).
    #[serde(skip)]
    pub account_names: Vec<String>,
}

impl ImportReport {
    /// Human-readable summary, one fact per line.
    pub fn summary(&self) -> String {
        let mut s = String::new();
        let mut line = |t: String| {
            s.push_str(&t);
            s.push('\n');
        };
        line(format!(
            "{}: {} lines ({} header, {} blank), {} job records{}{}",
            self.file,
            self.lines,
            self.header_lines,
            self.blank_lines,
            self.records,
            if self.gzip { ", gzip" } else { "" },
            if self.format.is_empty() {
                String::new()
            } else {
                format!(", read as {}", self.format)
            }
        ));
        line(format!("  {:<31}{}", "accepted jobs:", self.jobs));
        let k = &self.skipped;
        for (n, what) in [
            (k.runtime_not_positive, "skipped, runtime <= 0:"),
            (k.procs_zero, "skipped, processors 0:"),
            (k.procs_unknown, "skipped, processors -1:"),
            (k.submit_unknown, "skipped, submit -1:"),
            (self.malformed, "malformed lines:"),
            (self.estimate_missing, "estimate missing (= runtime):"),
            (self.runtime_above_estimate, "runtime above estimate:"),
            (self.procs_from_requested, "processors from field 8:"),
            (self.wider_than_max_procs, "wider than MaxProcs:"),
            (self.duplicate_ids, "job number seen before:"),
            (self.out_of_order, "out of submit order (sorted):"),
            (self.outside_window, "outside the time window:"),
        ] {
            if n > 0 {
                line(format!("  {what:<31}{n}"));
            }
        }
        for (why, n) in &self.skipped_by_reason {
            line(format!("  {:<30} {n}", format!("skipped, {why}:")));
        }
        for (why, n) in &self.malformed_by_reason {
            line(format!("  {:<30} {n}", format!("malformed, {why}:")));
        }
        if !self.sites.is_empty() {
            line(format!(
                "  {:<31}{}",
                "sites (OrigSiteID):",
                self.sites.join(", ")
            ));
        }
        if let Some(r) = &self.resources {
            for (c, what) in [
                (r.memory, "memory"),
                (r.gpus, "GPUs"),
                (r.nodes, "node count"),
            ] {
                if c.known + c.from_used > 0 {
                    line(format!(
                        "  {:<31}{} known, {} from used, {} missing",
                        format!("{what}:"),
                        c.known,
                        c.from_used,
                        c.missing
                    ));
                }
            }
        }
        for e in &self.malformed_examples {
            line(format!("  {e}"));
        }
        for w in &self.warnings {
            line(format!("  warning: {w}"));
        }
        s
    }
}
