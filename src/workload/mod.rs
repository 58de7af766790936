//! Workloads: the SWF reader and writer, and the synthetic generators. Everything here takes
//! bytes or parameters and returns `Result`; nothing reads files (the edges do).

pub mod batsim_json;
mod demand;
pub mod gwf;
pub mod hyper_erlang;
pub mod lublin;
mod rows;
pub mod sacct;
mod ses;
pub mod swf;
pub mod trace;

pub use batsim_json::write_batsim_json;
/// Goodness of fit of the hyper-Erlang model; it lives beside the model and keeps its path.
pub use hyper_erlang::fit_quality;
pub use lublin::Lublin;
pub use ses::{SesPoisson, SES_PROCESSOR_TABLE};
pub use swf::{read_swf, write_swf, ImportReport, SwfError, SwfHeader, SwfOptions};
pub use trace::{read_trace, TraceFormat, TraceOptions};

use crate::model::{Demand, Job};
use crate::time::SimTime;

/// Jobs ready to simulate, sorted by submit time, with what importing them decided.
#[derive(Clone, Debug)]
pub struct Workload {
    /// File name or generator description.
    pub name: String,
    pub jobs: Vec<Job>,
    /// What each job asks beyond processors (memory, GPUs, node count; issue #37): empty
    /// when no job asks for more (every processor-only workload), else one per job, in the
    /// order of `jobs` (every reorder, cut and merge carries it).
    pub demands: Vec<Demand>,
    /// How long each job waited in the log (SWF and GWF field 3, sacct's Start − Submit;
    /// issue #42's replay against what the site really did): empty when the source records
    /// no wait (generated workloads, Batsim JSON), else one per job in the order of `jobs`,
    /// `None` where the record has none (-1). Carried by every reorder, cut and merge.
    pub logged_waits: Vec<Option<SimTime>>,
    /// Each job's Slurm QOS (issue #42): sacct's `QOS` column as a number into
    /// `report.qos_names`, SWF's queue (field 15) as written; -1 where the record names
    /// none. Empty when no job names one. Carried by every reorder, cut and merge.
    pub qos: Vec<i32>,
    /// Each job's Slurm account (issue #42): sacct's `Account` column as a number into
    /// `report.account_names`, SWF's group (field 13) as written; -1 where the record names
    /// none. Empty when no job names one. Carried by every reorder, cut and merge.
    pub accounts: Vec<i32>,
    /// Submit time 0 of `jobs` is this many ticks after the source's own time zero
    /// (SWF: after UnixStartTime). The writer adds it back.
    pub origin: SimTime,
    pub report: ImportReport,
}

impl Workload {
    /// A generated workload: its jobs (sorted by submit) with a report that counts them and
    /// carries the generator's warnings.
    pub fn generated(name: String, jobs: Vec<Job>, warnings: Vec<String>) -> Workload {
        let report = ImportReport {
            file: name.clone(),
            records: jobs.len() as u64,
            jobs: jobs.len() as u64,
            warnings,
            ..Default::default()
        };
        Workload {
            name,
            jobs,
            demands: Vec::new(),
            logged_waits: Vec::new(),
            qos: Vec::new(),
            accounts: Vec::new(),
            origin: SimTime::ZERO,
            report,
        }
    }
}

impl Workload {
    /// Every job on site 0: a trace with several origin sites (GWF) run on one machine.
    /// The report says so; a single-site trace is unchanged.
    pub fn on_one_site(&mut self) {
        if self.report.sites.len() > 1 {
            self.report.warnings.push(format!(
                "{} origin sites (OrigSiteID) run on one machine; the workload kind origin_sites keeps one site per origin",
                self.report.sites.len()
            ));
            self.jobs.iter_mut().for_each(|j| j.home = 0);
        }
    }
}

/// How several traces (one per site) share a clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Align {
    /// By each header's UnixStartTime (absolute dates, as SOB's same-period logs need);
    /// a trace without one is shifted to t = 0 and a warning says so.
    #[default]
    Unix,
    /// Every trace shifted so its first job is at t = 0.
    Zero,
}

/// A submit-time window: SOB's one- and six-month runs. Jobs outside are left out and
/// counted as skipped. Times are seconds from the merged workload's start, or Unix times
/// when `unix` is set (with UnixStartTime alignment).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Window {
    pub start_s: f64,
    pub end_s: f64,
    #[serde(default)]
    pub unix: bool,
}

/// A job being merged: (submit, site, position in its part, job, demand, logged wait, QOS,
/// account).
type Merged = (SimTime, u32, usize, Job, Demand, Option<SimTime>, i32, i32);

/// One side table of the merged jobs (empty unless `any` part had it).
fn column<T>(jobs: &[Merged], any: bool, f: impl Fn(&Merged) -> T) -> Vec<T> {
    match any {
        true => jobs.iter().map(f).collect(),
        false => Vec::new(),
    }
}

/// The absolute start of each part's jobs in ticks (UnixStartTime + origin, or 0), and the
/// earliest of the parts with jobs (the merged clock's zero).
fn start_offsets(parts: &[Workload], align: Align, warnings: &mut Vec<String>) -> (Vec<i64>, i64) {
    let offsets: Vec<i64> = parts
        .iter()
        .map(|w| match (align, w.report.header.unix_start_time) {
            (Align::Unix, Some(u)) => u.saturating_mul(crate::time::TICKS_PER_SEC) + w.origin.0,
            (Align::Unix, None) => {
                warnings.push(format!(
                    "{}: no UnixStartTime in the header; shifted to t = 0",
                    w.name
                ));
                0
            }
            (Align::Zero, _) => 0,
        })
        .collect();
    let base = parts
        .iter()
        .zip(&offsets)
        .filter(|(w, _)| !w.jobs.is_empty())
        .map(|(_, &o)| o)
        .min()
        .unwrap_or(0);
    (offsets, base)
}

/// Merges one workload per site into one: job `home` = the workload's index; submit times
/// on a common clock (`align`); optionally cut to `window`. The combined report sums the
/// counts and keeps every file's warnings, prefixed with the file name.
pub fn merge_sites(
    parts: Vec<Workload>,
    align: Align,
    window: Option<Window>,
) -> Result<Workload, String> {
    if parts.is_empty() {
        return Err("no workload to merge".into());
    }
    let mut warnings = Vec::new();
    let (offsets, base) = start_offsets(&parts, align, &mut warnings);
    let mut jobs: Vec<Merged> = Vec::new();
    let any_demands = parts.iter().any(|w| !w.demands.is_empty());
    let any_waits = parts.iter().any(|w| !w.logged_waits.is_empty());
    let any_qos = parts.iter().any(|w| !w.qos.is_empty());
    let any_accounts = parts.iter().any(|w| !w.accounts.is_empty());
    let mut outside = 0u64;
    let mut report = ImportReport {
        file: parts
            .iter()
            .map(|w| w.name.as_str())
            .collect::<Vec<_>>()
            .join(" + "),
        ..Default::default()
    };
    for (site, (mut w, off)) in parts.into_iter().zip(offsets).enumerate() {
        let r = &w.report;
        add_counts(&mut report, r);
        warnings.extend(r.warnings.iter().map(|m| format!("{}: {m}", w.name)));
        merge_counts(&mut report, r.resources);
        let part_demands = std::mem::take(&mut w.demands);
        let demand = |seq: usize| part_demands.get(seq).copied().unwrap_or_default();
        let part_waits = std::mem::take(&mut w.logged_waits);
        let wait = |seq: usize| part_waits.get(seq).copied().flatten();
        let part_qos = std::mem::take(&mut w.qos);
        let qos = |seq: usize| part_qos.get(seq).copied().unwrap_or(-1);
        let part_accounts = std::mem::take(&mut w.accounts);
        let account = |seq: usize| part_accounts.get(seq).copied().unwrap_or(-1);
        for (seq, mut j) in w.jobs.into_iter().enumerate() {
            j.submit = SimTime(j.submit.0 + off - base);
            j.home = site as u32;
            if let Some(win) = window {
                let s = if win.unix {
                    (j.submit.0 + base) as f64 / crate::time::TICKS_PER_SEC as f64
                } else {
                    j.submit.as_secs_f64()
                };
                if s < win.start_s || s >= win.end_s {
                    outside += 1;
                    continue;
                }
            }
            jobs.push((
                j.submit,
                site as u32,
                seq,
                j,
                demand(seq),
                wait(seq),
                qos(seq),
                account(seq),
            ));
        }
    }
    if let Some(win) = window {
        if !(win.start_s.is_finite() && win.end_s.is_finite() && win.start_s < win.end_s) {
            return Err(format!("window [{}, {}) is empty", win.start_s, win.end_s));
        }
        warnings.push(format!(
            "{outside} jobs outside the window [{} s, {} s) were left out (counted as skipped)",
            win.start_s, win.end_s
        ));
    }
    jobs.sort_by_key(|(t, site, seq, ..)| (*t, *site, *seq));
    let start = jobs.first().map(|(t, ..)| *t).unwrap_or_default();
    // Each side table is empty when the parts had none, or the window left none.
    let demands = column(&jobs, any_demands, |m| m.4);
    let logged_waits = demand::logged_waits(column(&jobs, any_waits, |m| m.5));
    let qos = demand::kept_labels(column(&jobs, any_qos, |m| m.6));
    let accounts = demand::kept_labels(column(&jobs, any_accounts, |m| m.7));
    let jobs: Vec<Job> = jobs
        .into_iter()
        .map(|(_, _, _, mut j, ..)| {
            j.submit = j.submit - start;
            j
        })
        .collect();
    report.jobs = jobs.len() as u64;
    report.outside_window = outside;
    report.skipped_total =
        report.skipped.total() + report.skipped_by_reason.values().sum::<u64>() + outside;
    report.warnings = warnings;
    Ok(Workload {
        name: report.file.clone(),
        jobs,
        demands,
        logged_waits,
        qos,
        accounts,
        origin: SimTime(base) + start,
        report,
    })
}

/// Adds one part's import counts to the merged report's.
fn add_counts(report: &mut ImportReport, r: &ImportReport) {
    report.gzip |= r.gzip;
    report.bytes += r.bytes;
    report.lines += r.lines;
    report.header_lines += r.header_lines;
    report.blank_lines += r.blank_lines;
    report.records += r.records;
    report.skipped.runtime_not_positive += r.skipped.runtime_not_positive;
    report.skipped.procs_zero += r.skipped.procs_zero;
    report.skipped.procs_unknown += r.skipped.procs_unknown;
    report.skipped.submit_unknown += r.skipped.submit_unknown;
    report.malformed += r.malformed;
    report
        .malformed_examples
        .extend(r.malformed_examples.iter().take(2).cloned());
    report.estimate_missing += r.estimate_missing;
    report.runtime_above_estimate += r.runtime_above_estimate;
    report.procs_from_requested += r.procs_from_requested;
    report.wider_than_max_procs += r.wider_than_max_procs;
    report.out_of_order += r.out_of_order;
    for (why, n) in &r.skipped_by_reason {
        *report.skipped_by_reason.entry(why.clone()).or_insert(0) += n;
    }
    for (why, n) in &r.malformed_by_reason {
        *report.malformed_by_reason.entry(why.clone()).or_insert(0) += n;
    }
}

/// Adds one part's resource counts to the merged report's.
fn merge_counts(report: &mut ImportReport, part: Option<swf::ResourceCounts>) {
    let Some(p) = part else { return };
    let r = report.resources.get_or_insert_with(Default::default);
    for (into, from) in [
        (&mut r.memory, p.memory),
        (&mut r.gpus, p.gpus),
        (&mut r.nodes, p.nodes),
    ] {
        into.known += from.known;
        into.from_used += from.from_used;
        into.missing += from.missing;
    }
}

/// Splits one workload into sites by SWF partition (field 16): partitions in increasing
/// order become sites 0, 1, …; returns the partition numbers in site order.
pub fn split_by_partition(mut w: Workload) -> (Workload, Vec<i32>) {
    let mut parts: Vec<i32> = w.jobs.iter().map(|j| j.partition).collect();
    parts.sort_unstable();
    parts.dedup();
    for j in &mut w.jobs {
        j.home = parts.binary_search(&j.partition).unwrap_or(0) as u32;
    }
    (w, parts)
}
