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

use super::demand::{kept_labels, logged_waits, memory_kb, sort_by_submit, Demands, Source};
use super::Workload;
use crate::limits::{Limit, LimitExceeded, Limits};
use crate::model::Demand;
use crate::model::Job;
use crate::time::{SimTime, TICKS_PER_SEC};

mod fields;
mod header;
mod report;
mod write;

pub(crate) use fields::parse_milli;
use fields::whole_number_fields;
pub use fields::MAX_FIELD;
use header::jobs_removed;
pub use header::SwfHeader;
pub use report::{ImportReport, ResourceCounts, Skips, SourceCounts};
pub use write::write_swf;

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
    /// A gzip file of a format read whole (GWF, Batsim JSON, sacct) inflates to more text
    /// than this process can hold at once (`bytes` read when it stopped): an error, not an
    /// aborted process or a dead page worker.
    TooBigToHold { file: String, bytes: u64 },
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
            SwfError::TooBigToHold { file, bytes } => write!(
                f,
                "{file}: inflates to more text than fits in memory at once (stopped after {bytes} bytes): GWF, Batsim JSON and sacct files are read whole, only SWF is read as a stream; convert it to SWF (`gridscope convert FILE --to swf`) or split it"
            ),
        }
    }
}

impl std::error::Error for SwfError {}

/// A line as every reader reads it: without its `\r`, and the first line without a UTF-8
/// byte-order mark (some editors write one; it is not part of the line).
pub(crate) fn line_text(raw: &[u8], first: bool) -> &[u8] {
    let line = raw.strip_suffix(b"\r").unwrap_or(raw);
    if first {
        line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line)
    } else {
        line
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
    /// Memory per processor (fields 10, else 7), kept once a job states some.
    demands: Demands,
    /// Each job's wait in the log (field 3; `None` for -1).
    waits: Vec<Option<SimTime>>,
    /// Each job's queue (field 15; -1 for none), kept as its QOS.
    queues: Vec<i32>,
    /// Each job's group (field 13), which stands for its Slurm account.
    groups: Vec<i32>,
    /// Submit times in ticks relative to the file's zero, before shifting to the origin.
    line_no: u64,
    last_submit: i64,
    field_counts: BTreeMap<usize, u64>,
    /// Jobs whose processor count passed 2³² − 1 (clamped to it), and jobs with a negative id
    /// (kept as read): said in the report's warnings.
    procs_clamped: u64,
    negative_ids: u64,
}

/// A row that cannot be read, the one rule of every reader (SWF here, the others through
/// `rows::Rows`): strict, an error naming the file and line; lenient, counted in `report`
/// and quoted with file and line for the first few. Each reader tallies its own breakdown
/// after it (SWF by field count, the others by reason).
pub(crate) fn malformed_row(
    report: &mut ImportReport,
    strict: bool,
    file: &str,
    line: u64,
    message: String,
) -> Result<(), SwfError> {
    if strict {
        return Err(SwfError::Malformed {
            file: file.to_string(),
            line,
            message,
        });
    }
    report.malformed += 1;
    if report.malformed_examples.len() < EXAMPLES {
        report
            .malformed_examples
            .push(format!("{file}:{line}: {message}"));
    }
    Ok(())
}

impl Reader<'_> {
    fn malformed(&mut self, fields: usize, message: String) -> Result<(), SwfError> {
        malformed_row(
            &mut self.report,
            self.strict,
            self.file,
            self.line_no,
            message,
        )?;
        *self.field_counts.entry(fields).or_insert(0) += 1;
        Ok(())
    }

    fn line(&mut self, raw: &[u8]) -> Result<(), SwfError> {
        self.line_no += 1;
        self.report.lines += 1;
        let line = line_text(raw, self.line_no == 1);
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
        // Memory in KB per processor: requested (field 10), else used (field 7).
        let (mem_kb, memory) = memory_kb(whole(f[9]), whole(f[6]));
        let demand = Demand {
            mem_kb,
            ..Demand::default()
        };
        let index = self.jobs.len();
        self.demands
            .push(index, demand, memory, Source::Missing, Source::Missing);
        let wait = f[2];
        self.waits.push((wait >= 0).then(|| to_ticks(wait)));
        // The queue (field 15) stands for a QOS (docs/slurm.md): SWF has none of its own.
        self.queues
            .push(whole(f[14]).clamp(-1, i32::MAX as i64) as i32);
        // The group (field 13) stands for a Slurm account, as in sacct-derived logs.
        self.groups
            .push(whole(f[12]).clamp(-1, i32::MAX as i64) as i32);
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
        let (mut demands, resources) = std::mem::take(&mut self.demands).finish(self.jobs.len());
        self.report.resources = resources;
        let mut waits = logged_waits(std::mem::take(&mut self.waits));
        let mut qos = kept_labels(std::mem::take(&mut self.queues));
        let mut accounts = kept_labels(std::mem::take(&mut self.groups));
        if self.report.out_of_order > 0 {
            let labels = [&mut qos, &mut accounts];
            sort_by_submit(&mut self.jobs, &mut demands, &mut waits, labels);
        }
        let origin = self.jobs.first().map(|j| j.submit).unwrap_or_default();
        for j in &mut self.jobs {
            j.submit = j.submit - origin;
        }
        self.diagnose();
        if let Some(r) = self.report.resources.filter(|r| r.memory.from_used > 0) {
            self.report.warnings.push(format!(
                "{} jobs state no requested memory (field 10): their used memory (field 7) stands for it",
                r.memory.from_used
            ));
        }
        Workload {
            name: self.file.to_string(),
            jobs: self.jobs,
            demands,
            logged_waits: waits,
            qos,
            accounts,
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
        demands: Demands::default(),
        waits: Vec::with_capacity((bytes.len() / 64).min(opts.limits.jobs as usize)),
        queues: Vec::with_capacity((bytes.len() / 64).min(opts.limits.jobs as usize)),
        groups: Vec::with_capacity((bytes.len() / 64).min(opts.limits.jobs as usize)),
        field_counts: BTreeMap::new(),
        procs_clamped: 0,
        negative_ids: 0,
    };
    let gzip = bytes.starts_with(&[0x1f, 0x8b]);
    if !gzip {
        reader.chunk(bytes)?;
        return Ok(reader.finish(false, bytes.len() as u64));
    }
    // Gzip files are ~10× smaller than their text: reserve for the text's jobs (and their
    // logged waits, which otherwise grow by copies: a megabyte of fresh pages on KTH-SP2).
    let jobs = (bytes.len() / 8).min(opts.limits.jobs as usize);
    reader.jobs.reserve(jobs);
    reader.waits.reserve(jobs);
    reader.queues.reserve(jobs);
    reader.groups.reserve(jobs);
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

#[cfg(test)]
mod tests;
