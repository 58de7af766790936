//! The Standard Workload Format of the Parallel Workloads Archive.
//!
//! One job per line, 18 whitespace-separated numeric fields, `-1` for unknown; header lines
//! start with `;` and carry `Key: value` pairs (MaxNodes, MaxProcs, UnixStartTime,
//! TimeZoneString, Note, ...). The conventions (docs/local-policies.md, "SWF import conventions"):
//! - runtime = field 4; processors = field 5, or field 8 when field 5 is -1;
//!   estimate = field 9, or the runtime when field 9 is missing (≤ 0);
//! - a job with runtime ≤ 0, processors ≤ 0 (or -1 in both fields) or submit -1 is skipped;
//! - every such decision is counted in the [`ImportReport`], never made silently.
//!
//! The reader takes the file's bytes (plain or gzip, told apart by the magic number) and
//! streams through them once: a gzip file is decompressed in 1 MiB chunks, a plain one is
//! never copied.

use std::collections::BTreeMap;
use std::fmt;
use std::io::Read;

use serde::Serialize;

use super::Workload;
use crate::limits::{Limit, LimitExceeded, Limits};
use crate::model::{Job, MAX_SITE_UNITS};
use crate::time::{SimTime, TICKS_PER_SEC};

/// How strictly to read.
#[derive(Clone, Debug, Default)]
pub struct SwfOptions {
    /// Fail on the first malformed line instead of counting it and going on.
    pub strict: bool,
    /// Inflated bytes, line length and job records: passing one is an error (in either mode),
    /// except an overlong line, which is a malformed line.
    pub limits: Limits,
}

/// Why a file could not be read at all (in lenient mode) or at the first problem (strict).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SwfError {
    /// A line that is not 18 numbers (strict mode only). Fix the line or read leniently.
    Malformed {
        file: String,
        line: u64,
        message: String,
    },
    /// The gzip stream is corrupt or cut short (strict mode only; lenient mode keeps the
    /// jobs read before the damage and says so in the report).
    Gzip {
        file: String,
        after_line: u64,
        message: String,
    },
    /// The file passed one of the reader's [`Limits`] (inflated bytes, job records).
    Limit(LimitExceeded),
}

impl fmt::Display for SwfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SwfError::Malformed {
                file,
                line,
                message,
            } => write!(f, "{file}:{line}: {message}"),
            SwfError::Gzip {
                file,
                after_line,
                message,
            } => write!(
                f,
                "{file}: gzip data is damaged or truncated after line {after_line}: {message}"
            ),
            SwfError::Limit(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for SwfError {}

/// The `; Key: value` lines of an SWF header, in file order, with typed views of the ones
/// the simulator uses.
#[derive(Clone, Debug, Default, Serialize, serde::Deserialize, PartialEq)]
pub struct SwfHeader {
    pub fields: Vec<(String, String)>,
    pub max_nodes: Option<u64>,
    pub max_procs: Option<u64>,
    pub max_jobs: Option<u64>,
    pub max_records: Option<u64>,
    pub unix_start_time: Option<i64>,
    pub time_zone_string: Option<String>,
    pub notes: Vec<String>,
    /// Jobs the archive's cleaning removed, summed from "(N jobs removed)" header lines:
    /// a cleaned log holds MaxRecords minus these.
    pub removed_by_cleaning: u64,
}

/// The N of "(N jobs removed)" in a header line of a cleaned archive log.
fn jobs_removed(text: &str) -> u64 {
    let Some(end) = text.find(" jobs removed)") else {
        return 0;
    };
    let head = &text[..end];
    let start = head.rfind('(').map(|i| i + 1).unwrap_or(0);
    head[start..].trim().parse().unwrap_or(0)
}

impl SwfHeader {
    /// Records a `Key: value` header line; a known key whose value does not parse is
    /// ignored, and the returned warning says so (the import report shows it).
    fn add(&mut self, key: &str, value: &str) -> Option<String> {
        let first = value.split_whitespace().next().unwrap_or("");
        let number = first.parse::<i64>().ok();
        let positive = number.filter(|&v| v > 0).map(|v| v as u64);
        let lower = key.to_ascii_lowercase();
        let bad = |what: &str| {
            Some(format!(
                "header {key}: '{}' is not {what}; ignored",
                value.chars().take(40).collect::<String>()
            ))
        };
        let warning = match lower.as_str() {
            "maxnodes" | "maxprocs" | "maxjobs" | "maxrecords" => {
                match lower.as_str() {
                    "maxnodes" => self.max_nodes = positive,
                    "maxprocs" => self.max_procs = positive,
                    "maxjobs" => self.max_jobs = positive,
                    _ => self.max_records = positive,
                }
                if positive.is_none() {
                    bad("a positive whole number")
                } else if matches!(lower.as_str(), "maxnodes" | "maxprocs")
                    && positive > Some(u64::from(MAX_SITE_UNITS))
                {
                    // A platform sized from the header cannot hold this many units: say so
                    // here rather than let the platform shrink it without a word.
                    Some(format!(
                        "header {key}: {} is above {MAX_SITE_UNITS}, the most units a site can have; a platform sized from the header is clamped to that",
                        positive.unwrap_or(0)
                    ))
                } else {
                    None
                }
            }
            "unixstarttime" => {
                // The same bound as every job field: beyond it the clock would wrap.
                self.unix_start_time = number.filter(|v| v.abs() <= MAX_FIELD);
                self.unix_start_time
                    .is_none()
                    .then(|| bad("a whole number of seconds within ±10¹²"))
                    .flatten()
            }
            "timezonestring" => {
                self.time_zone_string = Some(value.to_string());
                None
            }
            "note" => {
                self.notes.push(value.to_string());
                None
            }
            _ => None,
        };
        self.fields.push((key.to_string(), value.to_string()));
        warning
    }
}

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
        for e in &self.malformed_examples {
            line(format!("  {e}"));
        }
        for w in &self.warnings {
            line(format!("  warning: {w}"));
        }
        s
    }
}

const FIELDS: usize = 18;
const EXAMPLES: usize = 5;

struct Reader<'a> {
    file: &'a str,
    strict: bool,
    limits: Limits,
    report: ImportReport,
    jobs: Vec<Job>,
    /// Submit times in ticks relative to the file's zero, before shifting to the origin.
    line_no: u64,
    last_submit: i64,
    field_counts: BTreeMap<usize, u64>,
    /// Jobs whose processor count passed 2³² − 1 (clamped to it), and jobs with a negative id
    /// (kept as read): said in the report's warnings.
    procs_clamped: u64,
    negative_ids: u64,
}

/// Parses a decimal number into thousandths (ticks for times): `12` → 12000,
/// `-1` → -1000, `3600.25` → 3600250. Exponents fall back to the float parser.
/// Largest magnitude a field may have, in thousandths: 10¹² (seconds, about 31,700 years).
/// Far beyond any real log, and small enough that the engine's millisecond arithmetic
/// (submit + wait + runtime, plans, sums) can never overflow an i64.
pub const MAX_FIELD: i64 = 1_000_000_000_000;

/// A field in thousandths (times become milliseconds), if it is a number within ±MAX_FIELD.
pub(super) fn parse_milli(tok: &[u8]) -> Option<i64> {
    parse_milli_unbounded(tok).filter(|m| m.abs() <= MAX_FIELD * 1000)
}

fn parse_milli_unbounded(tok: &[u8]) -> Option<i64> {
    let (neg, digits) = match tok.first()? {
        b'-' => (true, &tok[1..]),
        b'+' => (false, &tok[1..]),
        _ => (false, tok),
    };
    if digits.is_empty() {
        return None;
    }
    // Up to 15 integer digits cannot overflow once scaled by 1000; longer numbers take the
    // float path (and its range check).
    let mut int: i64 = 0;
    let mut i = 0;
    while i < digits.len() && digits[i].is_ascii_digit() {
        int = int * 10 + (digits[i] - b'0') as i64;
        i += 1;
        if i > 15 {
            return parse_float_milli(tok);
        }
    }
    let mut milli = int * 1000;
    if i < digits.len() {
        if digits[i] != b'.' {
            return parse_float_milli(tok);
        }
        i += 1;
        let mut scale = 100;
        let mut frac = 0i64;
        let mut round_up = false;
        while i < digits.len() && digits[i].is_ascii_digit() {
            let d = (digits[i] - b'0') as i64;
            if scale > 0 {
                frac += d * scale;
                scale /= 10;
            } else if scale == 0 {
                round_up = d >= 5;
                scale = -1;
            }
            i += 1;
        }
        if i < digits.len() {
            return parse_float_milli(tok);
        }
        milli += frac + round_up as i64;
    }
    Some(if neg { -milli } else { milli })
}

/// The fields of a job line written the usual way — exactly 18 whole numbers of at most 12
/// digits, each with an optional `-`, separated by bytes up to ' ' — in thousandths, in one
/// pass over the bytes; `None` for anything else (decimals, `+`, longer numbers, other
/// bytes, another field count), which the general tokenizer then reads and, if need be,
/// reports. Both give the same fields for every line this accepts: 12 digits are below
/// [`MAX_FIELD`], so no range check is needed. Real logs are nearly all such lines, and
/// tokenizing then parsing each token read every byte twice.
fn whole_number_fields(line: &[u8]) -> Option<[i64; FIELDS]> {
    let mut f = [0i64; FIELDS];
    let mut n = 0usize;
    let mut i = 0usize;
    let len = line.len();
    while i < len {
        if line[i] <= b' ' {
            i += 1;
            continue;
        }
        if n == FIELDS {
            return None;
        }
        let neg = line[i] == b'-';
        i += neg as usize;
        let start = i;
        let mut v = 0i64;
        while i < len {
            let d = line[i].wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            v = v * 10 + d as i64;
            i += 1;
        }
        let digits = i - start;
        if digits == 0 || digits > 12 || (i < len && line[i] > b' ') {
            return None;
        }
        f[n] = if neg { -v * 1000 } else { v * 1000 };
        n += 1;
    }
    (n == FIELDS).then_some(f)
}

fn parse_float_milli(tok: &[u8]) -> Option<i64> {
    let v: f64 = std::str::from_utf8(tok).ok()?.parse().ok()?;
    let m = (v * 1000.0).round();
    (m.is_finite() && m.abs() < 9.0e18).then_some(m as i64)
}

impl Reader<'_> {
    fn malformed(&mut self, fields: usize, message: String) -> Result<(), SwfError> {
        if self.strict {
            return Err(SwfError::Malformed {
                file: self.file.to_string(),
                line: self.line_no,
                message,
            });
        }
        self.report.malformed += 1;
        *self.field_counts.entry(fields).or_insert(0) += 1;
        if self.report.malformed_examples.len() < EXAMPLES {
            self.report
                .malformed_examples
                .push(format!("{}:{}: {message}", self.file, self.line_no));
        }
        Ok(())
    }

    fn line(&mut self, raw: &[u8]) -> Result<(), SwfError> {
        self.line_no += 1;
        self.report.lines += 1;
        let line = raw.strip_suffix(b"\r").unwrap_or(raw);
        // A UTF-8 byte-order mark (some editors write one) is not part of the first line.
        let line = if self.line_no == 1 {
            line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line)
        } else {
            line
        };
        let trimmed = line.trim_ascii_start();
        match trimmed.first() {
            None => {
                self.report.blank_lines += 1;
                return Ok(());
            }
            Some(b';') => {
                self.report.header_lines += 1;
                let text = String::from_utf8_lossy(&trimmed[1..]);
                let text = text.trim();
                self.report.header.removed_by_cleaning += jobs_removed(text);
                match text.split_once(':') {
                    Some((k, v)) if !k.is_empty() && !k.contains(char::is_whitespace) => {
                        if let Some(w) = self.report.header.add(k.trim(), v.trim()) {
                            self.report.warnings.push(w);
                        }
                    }
                    _ if !text.is_empty() => {
                        // A continuation of a multi-line note.
                        if let Some(last) = self.report.header.notes.last_mut() {
                            last.push(' ');
                            last.push_str(text);
                        }
                    }
                    _ => {}
                }
                return Ok(());
            }
            _ => {}
        }
        if let Some(f) = whole_number_fields(trimmed) {
            return self.accept(&f);
        }
        let mut f = [0i64; FIELDS];
        let mut n = 0usize;
        let mut bad: Option<usize> = None;
        // Hand-rolled tokenizer: SWF files pad columns with runs of spaces, which a
        // split-and-filter would turn into many empty tokens.
        // Any byte up to ' ' (space, tab, CR, other controls) separates fields.
        let len = trimmed.len();
        let mut i = 0;
        loop {
            while i < len && trimmed[i] <= b' ' {
                i += 1;
            }
            if i == len {
                break;
            }
            let start = i;
            while i < len && trimmed[i] > b' ' {
                i += 1;
            }
            if n < FIELDS {
                match parse_milli(&trimmed[start..i]) {
                    Some(v) => f[n] = v,
                    None => {
                        if bad.is_none() {
                            bad = Some(n);
                        }
                    }
                }
            }
            n += 1;
        }
        if n != FIELDS {
            return self.malformed(
                n,
                format!("expected {FIELDS} fields, found {n} (an SWF job line has 18 numbers)"),
            );
        }
        if let Some(i) = bad {
            let tok = trimmed
                .split(|b| b.is_ascii_whitespace())
                .filter(|t| !t.is_empty())
                .nth(i)
                .unwrap_or_default();
            let tok = shorten(&String::from_utf8_lossy(tok));
            let what = if tok.parse::<f64>().is_ok_and(f64::is_finite) {
                format!("out of range (at most ±{MAX_FIELD}, about 31,700 years in seconds)")
            } else {
                "not a number".to_string()
            };
            return self.malformed(n, format!("field {} is '{tok}', {what}", i + 1));
        }
        self.accept(&f)
    }

    /// A well-formed job line's fields (in thousandths), counted against the job limit.
    fn accept(&mut self, f: &[i64; FIELDS]) -> Result<(), SwfError> {
        self.report.records += 1;
        if self.report.records > self.limits.jobs {
            return Err(self.limit(Limit::Jobs));
        }
        self.record(f);
        Ok(())
    }

    fn record(&mut self, f: &[i64; FIELDS]) {
        let whole = |v: i64| v / 1000;
        let id = whole(f[0]);
        let submit = f[1];
        let runtime = f[3];
        let alloc = whole(f[4]);
        let requested = whole(f[7]);
        let estimate = f[8];
        let skips = &mut self.report.skipped;
        if submit < 0 {
            skips.submit_unknown += 1;
            return;
        }
        if runtime <= 0 {
            skips.runtime_not_positive += 1;
            return;
        }
        let procs = if alloc == -1 {
            if requested > 0 {
                self.report.procs_from_requested += 1;
            }
            requested
        } else {
            alloc
        };
        if procs == 0 || (procs < 0 && procs != -1) {
            skips.procs_zero += 1;
            return;
        }
        if procs == -1 {
            skips.procs_unknown += 1;
            return;
        }
        let estimate = if estimate <= 0 {
            self.report.estimate_missing += 1;
            runtime
        } else {
            estimate
        };
        if runtime > estimate {
            self.report.runtime_above_estimate += 1;
        }
        if submit < self.last_submit {
            self.report.out_of_order += 1;
        }
        self.last_submit = self.last_submit.max(submit);
        let to_ticks = |milli: i64| SimTime(milli / (1000 / TICKS_PER_SEC));
        self.procs_clamped += u64::from(procs > u32::MAX as i64);
        self.negative_ids += u64::from(id < 0);
        self.jobs.push(Job {
            id,
            submit: to_ticks(submit),
            runtime: to_ticks(runtime).max(SimTime(1)),
            estimate: to_ticks(estimate).max(SimTime(1)),
            procs: procs.min(u32::MAX as i64) as u32,
            home: 0,
            user: whole(f[11]).clamp(i32::MIN as i64, i32::MAX as i64) as i32,
            partition: whole(f[15]).clamp(i32::MIN as i64, i32::MAX as i64) as i32,
        });
    }

    fn chunk(&mut self, data: &[u8]) -> Result<(), SwfError> {
        let mut rest = data;
        while let Some(pos) = memchr::memchr(b'\n', rest) {
            if pos == 0 {
                rest = self.blank_run(rest);
                continue;
            }
            self.bounded_line(&rest[..pos])?;
            rest = &rest[pos + 1..];
        }
        if !rest.is_empty() {
            self.bounded_line(rest)?;
        }
        Ok(())
    }

    /// Counts the run of empty lines `rest` starts with (as many `line(b"")` calls, at a
    /// byte's cost each: a file of nothing but newlines is read at memory speed) and returns
    /// what follows it.
    fn blank_run<'p>(&mut self, rest: &'p [u8]) -> &'p [u8] {
        let n = rest.iter().take_while(|&&b| b == b'\n').count();
        self.line_no += n as u64;
        self.report.lines += n as u64;
        self.report.blank_lines += n as u64;
        &rest[n..]
    }

    /// A line of a plain file: one longer than the line limit is malformed, as in gzip.
    fn bounded_line(&mut self, line: &[u8]) -> Result<(), SwfError> {
        if line.len() as u64 > self.limits.line_bytes {
            self.line_no += 1;
            self.report.lines += 1;
            return self.overlong_line();
        }
        self.line(line)
    }

    fn overlong_line(&mut self) -> Result<(), SwfError> {
        let max = self.limits.line_bytes;
        self.malformed(
            OVERLONG,
            format!(
                "line longer than {max} bytes (an SWF job line is under 200; {} raises the limit)",
                Limit::LineBytes.flag()
            ),
        )
    }

    fn limit(&self, limit: Limit) -> SwfError {
        SwfError::Limit(LimitExceeded {
            limit,
            max: self.limits.get(limit),
            context: format!("{} (line {})", self.file, self.line_no),
        })
    }

    fn finish(mut self, gzip: bool, bytes: u64) -> Workload {
        self.report.gzip = gzip;
        self.report.bytes = bytes;
        self.report.jobs = self.jobs.len() as u64;
        self.report.skipped_total = self.report.skipped.total();
        if let Some(max) = self.report.header.max_procs {
            self.report.wider_than_max_procs =
                self.jobs.iter().filter(|j| j.procs as u64 > max).count() as u64;
        }
        self.report.duplicate_ids = duplicate_ids(&self.jobs);
        if self.report.out_of_order > 0 {
            self.jobs.sort_by_key(|j| j.submit);
        }
        let origin = self.jobs.first().map(|j| j.submit).unwrap_or_default();
        for j in &mut self.jobs {
            j.submit = j.submit - origin;
        }
        self.diagnose();
        Workload {
            name: self.file.to_string(),
            jobs: self.jobs,
            origin,
            report: self.report,
        }
    }

    fn diagnose(&mut self) {
        let r = &mut self.report;
        if r.records == 0 && r.malformed > 0 {
            let (fields, count) = self
                .field_counts
                .iter()
                .filter(|(&f, _)| f != OVERLONG)
                .max_by_key(|(_, &c)| c)
                .map(|(&f, &c)| (f, c))
                .unwrap_or((OVERLONG, r.malformed));
            r.warnings.push(if fields == OVERLONG {
                format!(
                    "none of the {} data lines could be read: every one is longer than the line limit",
                    r.malformed
                )
            } else if fields == FIELDS {
                format!(
                    "none of the {} data lines could be read: they have the 18 SWF fields but values \
                     that are not numbers or out of range (see the malformed lines above)",
                    r.malformed
                )
            } else {
                format!(
                    "this does not look like SWF: {count} of {} data lines have {fields} fields where SWF has {FIELDS} \
                     (another simulator's own format? convert it to the 18 SWF fields first)",
                    r.malformed
                )
            });
        } else if r.malformed > 0 {
            r.warnings.push(format!(
                "{} malformed lines were left out; the rest was read",
                r.malformed
            ));
        }
        let announced = r.header.max_records.or(r.header.max_jobs);
        if let Some(n) = announced {
            let n = n.saturating_sub(r.header.removed_by_cleaning);
            let data_lines = r.records + r.malformed;
            if data_lines < n {
                r.warnings.push(format!(
                    "the header announces {n} records but the file holds {data_lines}: the file looks truncated"
                ));
            }
        }
        if self.procs_clamped > 0 {
            r.warnings.push(format!(
                "{} jobs ask for more than 4,294,967,295 processors: clamped to that, wider than any site can be, so every run rejects them as too wide",
                self.procs_clamped
            ));
        }
        if self.negative_ids > 0 {
            r.warnings.push(format!(
                "{} jobs have a negative job number (field 1): kept as read in every output",
                self.negative_ids
            ));
        }
        if r.duplicate_ids > 0 {
            r.warnings.push(format!(
                "{} jobs reuse a job number (field 1) an earlier job has: kept under it, so an output row names such a job by number and submit time",
                r.duplicate_ids
            ));
        }
        if r.jobs == 0 {
            r.warnings.push("no runnable job in this file".to_string());
        }
    }
}

/// How many jobs carry a job number an earlier job already has. Logs number jobs in
/// increasing order, so that case costs one pass; any other is sorted (a copy of the ids).
fn duplicate_ids(jobs: &[Job]) -> u64 {
    if jobs.windows(2).all(|w| w[0].id < w[1].id) {
        return 0;
    }
    let mut ids: Vec<i64> = jobs.iter().map(|j| j.id).collect();
    ids.sort_unstable();
    ids.windows(2).filter(|w| w[0] == w[1]).count() as u64
}

/// Reads SWF text handed over in pieces of any size (a gzip decoder's output): every `\n`
/// ends a line, a piece may end mid-line. [`read_swf`] is this plus the decoder.
struct SwfStream<'a> {
    reader: Reader<'a>,
    carry: Vec<u8>,
    total: u64,
    /// The current line passed the line limit: its bytes are dropped up to its end.
    overlong: bool,
}

/// The field count recorded for a line over the line limit (its fields were not counted).
const OVERLONG: usize = usize::MAX;

/// A bad field is quoted in an error up to this many characters (a 10 MB field is not echoed).
const QUOTE_CHARS: usize = 40;

/// `tok`, or its first [`QUOTE_CHARS`] characters and how long it was.
fn shorten(tok: &str) -> String {
    match tok.char_indices().nth(QUOTE_CHARS) {
        None => tok.to_string(),
        Some((end, _)) => format!("{}… ({} bytes)", &tok[..end], tok.len()),
    }
}

impl<'a> SwfStream<'a> {
    fn new(reader: Reader<'a>) -> SwfStream<'a> {
        SwfStream {
            reader,
            carry: Vec::new(),
            total: 0,
            overlong: false,
        }
    }

    /// Drops the bytes of an overlong line up to its end; the line is counted as malformed.
    fn skip_overlong<'p>(&mut self, rest: &'p [u8]) -> Result<Option<&'p [u8]>, SwfError> {
        match memchr::memchr(b'\n', rest) {
            None => Ok(None),
            Some(p) => {
                self.overlong = false;
                self.reader.line_no += 1;
                self.reader.report.lines += 1;
                self.reader.overlong_line()?;
                Ok(Some(&rest[p + 1..]))
            }
        }
    }

    fn feed(&mut self, piece: &[u8]) -> Result<(), SwfError> {
        self.total += piece.len() as u64;
        if self.total > self.reader.limits.inflated_bytes {
            return Err(self.reader.limit(Limit::InflatedBytes));
        }
        let mut rest = piece;
        if self.overlong {
            match self.skip_overlong(rest)? {
                Some(r) => rest = r,
                None => return Ok(()),
            }
        }
        if !self.carry.is_empty() {
            match memchr::memchr(b'\n', rest) {
                Some(p) => {
                    self.carry.extend_from_slice(&rest[..p]);
                    let line = std::mem::take(&mut self.carry);
                    self.reader.bounded_line(&line)?;
                    self.carry = line;
                    self.carry.clear();
                    rest = &rest[p + 1..];
                }
                None => {
                    self.carry.extend_from_slice(rest);
                    return self.bound_carry();
                }
            }
        }
        while let Some(p) = memchr::memchr(b'\n', rest) {
            if p == 0 {
                rest = self.reader.blank_run(rest);
                continue;
            }
            self.reader.bounded_line(&rest[..p])?;
            rest = &rest[p + 1..];
        }
        self.carry.extend_from_slice(rest);
        self.bound_carry()
    }

    /// A partial line over the line limit is dropped (and the rest of it skipped).
    fn bound_carry(&mut self) -> Result<(), SwfError> {
        if self.carry.len() as u64 > self.reader.limits.line_bytes {
            self.carry = Vec::new();
            self.overlong = true;
        }
        Ok(())
    }

    /// The decoder failed: strict mode stops; lenient mode keeps what was read and says so.
    fn damaged(&mut self, message: String) -> Result<(), SwfError> {
        if self.reader.strict {
            return Err(SwfError::Gzip {
                file: self.reader.file.to_string(),
                after_line: self.reader.line_no,
                message,
            });
        }
        if !self.carry.is_empty() {
            self.carry.clear();
            self.reader.line_no += 1;
            self.reader.report.lines += 1;
            self.reader
                .malformed(0, "incomplete last line (gzip stream cut short)".into())?;
        }
        let after = self.reader.line_no;
        self.reader.report.warnings.push(format!(
            "gzip data is damaged or truncated after line {after} ({message}); the jobs before it were kept"
        ));
        Ok(())
    }

    fn finish(mut self) -> Result<Workload, SwfError> {
        if self.overlong {
            self.skip_overlong(b"\n")?;
        }
        if !self.carry.is_empty() {
            let line = std::mem::take(&mut self.carry);
            self.reader.line(&line)?;
        }
        Ok(self.reader.finish(true, self.total))
    }
}

/// Fills `buf` from `r` until it is full, the stream ends or it fails: the bytes read, and
/// the error that stopped it if any. Decoders hand out a few KiB a call, so a piece takes
/// many calls.
fn read_some(r: &mut impl Read, buf: &mut [u8]) -> (usize, Option<std::io::Error>) {
    let mut filled = 0;
    while filled < buf.len() {
        match r.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return (filled, Some(e)),
        }
    }
    (filled, None)
}

/// Reads an SWF file from its bytes (plain or gzip). `file` names it in messages.
///
/// Natively, a gzip file is inflated on a second thread while this one parses (the two
/// take about as long); in wasm both happen in turn. The result is the same either way:
/// pieces are parsed in order.
pub fn read_swf(file: &str, bytes: &[u8], opts: &SwfOptions) -> Result<Workload, SwfError> {
    let mut reader = Reader {
        file,
        strict: opts.strict,
        limits: opts.limits,
        report: ImportReport {
            file: file.to_string(),
            ..Default::default()
        },
        // A job line is 60–100 bytes; never reserve more than the job limit allows.
        jobs: Vec::with_capacity((bytes.len() / 64).min(opts.limits.jobs as usize)),
        line_no: 0,
        last_submit: i64::MIN,
        field_counts: BTreeMap::new(),
        procs_clamped: 0,
        negative_ids: 0,
    };
    let gzip = bytes.starts_with(&[0x1f, 0x8b]);
    if !gzip {
        reader.chunk(bytes)?;
        return Ok(reader.finish(false, bytes.len() as u64));
    }
    // Gzip files are ~10× smaller than their text: reserve for the text's jobs.
    reader
        .jobs
        .reserve((bytes.len() / 8).min(opts.limits.jobs as usize));
    let mut stream = SwfStream::new(reader);
    // Small pieces so the parser starts soon after the inflater (a 1 MiB first piece kept
    // it idle for a third of a 2.6 MB file's inflate).
    const PIECE: usize = 1 << 18;
    #[cfg(not(target_arch = "wasm32"))]
    {
        use std::sync::mpsc::sync_channel;
        let (tx, rx) = sync_channel::<Result<Vec<u8>, String>>(4);
        std::thread::scope(|scope| {
            scope.spawn(move || {
                let mut decoder = flate2::read::MultiGzDecoder::new(bytes);
                loop {
                    let mut buf = vec![0u8; PIECE];
                    let (n, err) = read_some(&mut decoder, &mut buf);
                    buf.truncate(n);
                    // A send fails only when the parser stopped (strict-mode error).
                    if n > 0 && tx.send(Ok(buf)).is_err() {
                        break;
                    }
                    if let Some(e) = err {
                        let _ = tx.send(Err(e.to_string()));
                        break;
                    }
                    if n < PIECE {
                        break;
                    }
                }
            });
            for piece in rx {
                match piece {
                    Ok(p) => stream.feed(&p)?,
                    Err(m) => {
                        stream.damaged(m)?;
                        break;
                    }
                }
            }
            Ok::<(), SwfError>(())
        })?;
    }
    #[cfg(target_arch = "wasm32")]
    {
        let mut decoder = flate2::read::MultiGzDecoder::new(bytes);
        let mut buf = vec![0u8; PIECE];
        loop {
            let (n, err) = read_some(&mut decoder, &mut buf);
            stream.feed(&buf[..n])?;
            if let Some(e) = err {
                stream.damaged(e.to_string())?;
                break;
            }
            if n < PIECE {
                break;
            }
        }
    }
    stream.finish()
}

/// Writes jobs as SWF: the header fields (if any) then one line per job, times in seconds
/// after `origin` is added back. What [`read_swf`] accepted reads back identically.
pub fn write_swf(workload: &Workload, header: &SwfHeader) -> String {
    let mut out = String::with_capacity(workload.jobs.len() * 64 + 256);
    for (k, v) in &header.fields {
        out.push_str(&format!("; {k}: {v}\n"));
    }
    if header.fields.is_empty() {
        out.push_str("; Version: 2.2\n");
        out.push_str(&format!(
            "; Note: {} (written by gridscope)\n",
            workload.name
        ));
    }
    for j in &workload.jobs {
        let submit = j.submit + workload.origin;
        use std::fmt::Write;
        let _ = writeln!(
            out,
            "{} {} -1 {} {} -1 -1 {} {} -1 1 {} -1 -1 -1 {} -1 -1",
            j.id, submit, j.runtime, j.procs, j.procs, j.estimate, j.user, j.partition
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The general reading of a job line's fields: tokens split at bytes up to ' ', each
    /// through `parse_milli`; `None` unless there are 18 and all parse.
    fn general_fields(line: &[u8]) -> Option<[i64; FIELDS]> {
        let toks: Vec<&[u8]> = line
            .split(|&b| b <= b' ')
            .filter(|t| !t.is_empty())
            .collect();
        if toks.len() != FIELDS {
            return None;
        }
        let mut f = [0i64; FIELDS];
        for (v, t) in f.iter_mut().zip(toks) {
            *v = parse_milli(t)?;
        }
        Some(f)
    }

    /// The one-pass reader of whole-number lines never disagrees with the general reading:
    /// on random lines of digits, signs, points, exponents, other bytes and separators,
    /// whatever it accepts the general reading gives the same, and it accepts every line
    /// of 18 whole numbers of up to 12 digits.
    #[test]
    fn whole_number_lines_read_as_the_general_path_reads_them() {
        let mut rng = crate::rng::SimRng::new(3);
        let pieces: [&[u8]; 14] = [
            b"0",
            b"7",
            b"-1",
            b"123456789012",
            b"1234567890123",
            b"-",
            b"+5",
            b"2.5",
            b"1e3",
            b"x",
            b"\xc3\xa9",
            b"00042",
            b"999999999999",
            b"-999999999999",
        ];
        let seps: [&[u8]; 4] = [b" ", b"   ", b"\t", b" \x0b "];
        let (mut accepted, mut plain) = (0, 0);
        for case in 0..20_000 {
            let fields = if case % 2 == 0 {
                FIELDS
            } else {
                rng.range_u64(0, 20) as usize
            };
            let whole_only = case % 4 == 0;
            let mut line = Vec::new();
            if rng.range_u64(0, 1) == 1 {
                line.extend_from_slice(seps[rng.range_u64(0, 3) as usize]);
            }
            for i in 0..fields {
                if i > 0 {
                    line.extend_from_slice(seps[rng.range_u64(0, 3) as usize]);
                }
                // Mostly whole numbers, with one piece in ten of any kind unless whole_only.
                let k = if whole_only || rng.range_u64(0, 9) > 0 {
                    [0, 1, 2, 3, 11, 12, 13][rng.range_u64(0, 6) as usize]
                } else {
                    rng.range_u64(0, 13) as usize
                };
                line.extend_from_slice(pieces[k]);
            }
            let fast = whole_number_fields(&line);
            if whole_only && fields == FIELDS {
                plain += 1;
                assert!(fast.is_some(), "{:?}", String::from_utf8_lossy(&line));
            }
            if let Some(f) = fast {
                accepted += 1;
                assert_eq!(
                    Some(f),
                    general_fields(&line),
                    "{:?}",
                    String::from_utf8_lossy(&line)
                );
            }
        }
        assert!(
            plain > 4_000 && accepted >= plain,
            "{plain} plain, {accepted} accepted"
        );
    }

    #[test]
    fn milli_parsing() {
        assert_eq!(parse_milli(b"12"), Some(12_000));
        assert_eq!(parse_milli(b"-1"), Some(-1_000));
        assert_eq!(parse_milli(b"3600.25"), Some(3_600_250));
        assert_eq!(parse_milli(b"0.0005"), Some(1));
        assert_eq!(parse_milli(b"1e3"), Some(1_000_000));
        assert_eq!(parse_milli(b"12a"), None);
        assert_eq!(parse_milli(b"-"), None);
        // Beyond ±10¹² (seconds) a field is out of range, however it is written.
        assert_eq!(parse_milli(b"1000000000000"), Some(MAX_FIELD * 1000));
        assert_eq!(parse_milli(b"1000000000001"), None);
        assert_eq!(parse_milli(b"8999999999999999"), None);
        assert_eq!(parse_milli(b"-2e12"), None);
        let w = read_swf(
            "big.swf",
            b"1 0 0 10 1 -1 -1 1 10 -1 1 1 1 1 1 1 -1 -1\n2 5 0 2e12 1 -1 -1 1 10 -1 1 1 1 1 1 1 -1 -1\n",
            &SwfOptions::default(),
        )
        .unwrap();
        assert_eq!(w.jobs.len(), 1);
        assert!(w
            .report
            .summary()
            .contains("big.swf:2: field 4 is '2e12', out of range"));
        assert_eq!(parse_milli(b"99999999999999999999"), None);
    }

    #[test]
    fn header_values_that_do_not_parse_are_reported_and_a_bom_is_skipped() {
        let text =
            "\u{feff}; MaxProcs: 64\n; MaxNodes: lots\n; UnixStartTime: yesterday\n; MaxJobs: -5\n\
                    -3 0 0 10 100000000000 -1 -1 1 10 -1 1 1 1 1 1 1 -1 -1\n";
        let w = read_swf("h.swf", text.as_bytes(), &SwfOptions::default()).unwrap();
        // The BOM did not swallow the first header line.
        assert_eq!(w.report.header.max_procs, Some(64));
        assert_eq!(w.report.header.max_nodes, None);
        let warnings = w.report.warnings.join("\n");
        for expected in [
            "header MaxNodes: 'lots' is not a positive whole number; ignored",
            "header UnixStartTime: 'yesterday' is not a whole number",
            "header MaxJobs: '-5' is not a positive whole number",
            "1 jobs ask for more than 4,294,967,295 processors",
            "1 jobs have a negative job number",
        ] {
            assert!(warnings.contains(expected), "{expected}\n{warnings}");
        }
        // A start time near ±2⁶³ would wrap the clock: ignored, with a warning.
        let w = read_swf(
            "u.swf",
            b"; UnixStartTime: 9223372036854775000\n",
            &SwfOptions::default(),
        )
        .unwrap();
        assert_eq!(w.report.header.unix_start_time, None);
        assert!(w
            .report
            .warnings
            .iter()
            .any(|x| x.contains("UnixStartTime")));
    }

    #[test]
    fn an_endless_line_in_gzip_is_counted_not_buffered() {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        let job = b"1 0 0 10 1 -1 -1 1 10 -1 1 1 1 1 1 1 -1 -1\n";
        gz.write_all(job).unwrap();
        // 3 MiB of one line, then a good line, then 2 MiB more without an end.
        gz.write_all(&vec![b'7'; 3 << 20]).unwrap();
        gz.write_all(b"\n").unwrap();
        gz.write_all(job).unwrap();
        gz.write_all(&vec![b'7'; 2 << 20]).unwrap();
        let bytes = gz.finish().unwrap();
        let w = read_swf("long.swf.gz", &bytes, &SwfOptions::default()).unwrap();
        assert_eq!(w.jobs.len(), 2);
        assert_eq!(w.report.malformed, 2);
        assert!(w
            .report
            .summary()
            .contains("line longer than 1048576 bytes"));
        let e = read_swf(
            "long.swf.gz",
            &bytes,
            &SwfOptions {
                strict: true,
                ..Default::default()
            },
        )
        .unwrap_err();
        assert!(
            e.to_string().contains("long.swf.gz:2: line longer than"),
            "{e}"
        );
    }

    #[test]
    fn cleaning_notes_are_summed() {
        assert_eq!(
            jobs_removed("user=79 and (job>=47410 and job<=58079) (6539 jobs removed)"),
            6539
        );
        assert_eq!(jobs_removed("Note: nothing"), 0);
    }
}
