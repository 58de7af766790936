//! The bookkeeping every non-SWF trace reader (GWF, Batsim JSON, sacct) shares: [`Rows`]
//! counts lines, records, skipped and malformed rows by reason, holds the job limit and
//! strict mode, and finishes the workload (sort, shift to the first submit) as the SWF
//! reader does; [`Names`] numbers users, partitions and sites; [`quote`] echoes a field.
//! Kept apart from `trace.rs`, which dispatches to these readers, so that they import
//! this and it imports them, never both ways.

use std::collections::BTreeMap;

use super::demand::{kept_labels, logged_waits, sort_by_submit, Demands, Source};
use super::swf::{malformed_row, SwfError, SwfOptions};
use super::{ImportReport, Workload};
use crate::limits::{Limit, LimitExceeded, Limits};
use crate::model::Demand;
use crate::model::Job;
use crate::time::SimTime;

/// `tok`, or its first 40 characters and how long it was (a huge field is not echoed).
pub(super) fn quote(tok: &[u8]) -> String {
    let s = String::from_utf8_lossy(tok);
    match s.char_indices().nth(40) {
        None => s.into_owned(),
        Some((end, _)) => format!("{}… ({} bytes)", &s[..end], s.len()),
    }
}

/// The bookkeeping every non-SWF reader shares: lines and their numbers, records, jobs,
/// skipped and malformed rows by reason, and the finish (sort, shift to the first submit).
pub(super) struct Rows<'a> {
    pub file: &'a str,
    pub strict: bool,
    pub limits: Limits,
    pub report: ImportReport,
    pub jobs: Vec<Job>,
    /// What jobs ask beyond processors, once one does.
    pub demands: Demands,
    /// Each job's wait in the log, where the reader knows it ([`Rows::set_logged_wait`]).
    waits: Vec<Option<SimTime>>,
    /// Each job's QOS number, where the reader knows it ([`Rows::set_qos`]; -1 else).
    qos: Vec<i32>,
    /// Each job's account number ([`Rows::set_account`]; -1 else).
    accounts: Vec<i32>,
    /// The current line (1-based) or, for JSON, the job's position.
    pub line_no: u64,
    /// Absolute submit times in milliseconds; shifted to the first at `finish`.
    last_submit: i64,
}

impl<'a> Rows<'a> {
    pub fn new(file: &'a str, format: &str, opts: &SwfOptions) -> Rows<'a> {
        Rows {
            file,
            strict: opts.strict,
            limits: opts.limits,
            report: ImportReport {
                file: file.to_string(),
                format: format.to_string(),
                ..Default::default()
            },
            jobs: Vec::new(),
            demands: Demands::default(),
            waits: Vec::new(),
            qos: Vec::new(),
            accounts: Vec::new(),
            line_no: 0,
            last_submit: i64::MIN,
        }
    }

    /// Calls `row` with every line (without its `\r`, a first line without its BOM) that is
    /// not blank; counts lines, blank lines, and lines over the line limit as malformed.
    pub fn lines(
        &mut self,
        bytes: &[u8],
        mut row: impl FnMut(&mut Self, &[u8]) -> Result<(), SwfError>,
    ) -> Result<(), SwfError> {
        for raw in bytes.split(|&b| b == b'\n') {
            self.line_no += 1;
            self.report.lines += 1;
            let line = super::swf::line_text(raw, self.line_no == 1);
            if line.len() as u64 > self.limits.line_bytes {
                let msg = format!(
                    "line longer than {} bytes ({} raises the limit)",
                    self.limits.line_bytes,
                    Limit::LineBytes.flag()
                );
                self.malformed("line too long", msg)?;
                continue;
            }
            if line.trim_ascii().is_empty() {
                self.report.blank_lines += 1;
                continue;
            }
            row(self, line)?;
        }
        // The split yields an empty piece after a final newline: not a line of the file.
        if bytes.ends_with(b"\n") || bytes.is_empty() {
            self.line_no -= 1;
            self.report.lines -= 1;
            self.report.blank_lines -= 1;
        }
        Ok(())
    }

    /// A row that cannot be read: an error in strict mode, else counted under `reason`
    /// (and quoted, for the first few, with file and line).
    pub fn malformed(&mut self, reason: &str, message: String) -> Result<(), SwfError> {
        malformed_row(
            &mut self.report,
            self.strict,
            self.file,
            self.line_no,
            message,
        )?;
        *self
            .report
            .malformed_by_reason
            .entry(reason.to_string())
            .or_insert(0) += 1;
        Ok(())
    }

    /// A well-formed record, counted against the job limit.
    pub fn record(&mut self) -> Result<(), SwfError> {
        self.report.records += 1;
        if self.report.records > self.limits.jobs {
            return Err(SwfError::Limit(LimitExceeded {
                limit: Limit::Jobs,
                max: self.limits.jobs,
                context: format!("{} (line {})", self.file, self.line_no),
            }));
        }
        Ok(())
    }

    /// A record left out of the simulation, counted under `reason`.
    pub fn skip(&mut self, reason: &str) {
        *self
            .report
            .skipped_by_reason
            .entry(reason.to_string())
            .or_insert(0) += 1;
    }

    /// A job to simulate; `submit` is absolute (milliseconds after the format's zero).
    /// Runtime and estimate are at least one tick; a missing estimate (≤ 0) is the runtime.
    pub fn push(&mut self, job: Job) {
        self.push_with(job, Demand::default(), [Source::Missing; 3]);
    }

    /// [`Rows::push`] with what the job asks beyond processors and where each of memory,
    /// GPUs and its node count came from.
    pub fn push_with(&mut self, mut job: Job, demand: Demand, sources: [Source; 3]) {
        let [memory, gpus, nodes] = sources;
        self.demands
            .push(self.jobs.len(), demand, memory, gpus, nodes);
        if job.estimate.0 <= 0 {
            self.report.estimate_missing += 1;
            job.estimate = job.runtime;
        }
        job.runtime = job.runtime.max(SimTime(1));
        job.estimate = job.estimate.max(SimTime(1));
        if job.runtime > job.estimate {
            self.report.runtime_above_estimate += 1;
        }
        if job.submit.0 < self.last_submit {
            self.report.out_of_order += 1;
        }
        self.last_submit = self.last_submit.max(job.submit.0);
        self.jobs.push(job);
        self.waits.push(None);
        self.qos.push(-1);
        self.accounts.push(-1);
    }

    /// The job pushed last runs under account number `account`.
    pub fn set_account(&mut self, account: i32) {
        if let Some(last) = self.accounts.last_mut() {
            *last = account;
        }
    }

    /// The job pushed last runs under QOS number `qos`.
    pub fn set_qos(&mut self, qos: i32) {
        if let Some(last) = self.qos.last_mut() {
            *last = qos;
        }
    }

    /// The job pushed last waited `wait` in the log (a negative wait is a clock's error,
    /// kept unknown).
    pub fn set_logged_wait(&mut self, wait: SimTime) {
        if let Some(last) = self.waits.last_mut() {
            *last = (wait.0 >= 0).then_some(wait);
        }
    }

    /// The workload: jobs sorted by submit (stable: file order among equals), shifted so the
    /// first is at 0 (`origin` keeps the shift), and the report's totals.
    pub fn finish(mut self) -> Workload {
        let r = &mut self.report;
        r.jobs = self.jobs.len() as u64;
        r.skipped_total = r.skipped_by_reason.values().sum();
        if r.malformed > 0 {
            r.warnings.push(format!(
                "{} malformed rows were left out; the rest was read",
                r.malformed
            ));
        }
        if r.jobs == 0 {
            r.warnings.push("no runnable job in this file".to_string());
        }
        let (mut demands, resources) = std::mem::take(&mut self.demands).finish(self.jobs.len());
        r.resources = resources;
        let mut waits = logged_waits(std::mem::take(&mut self.waits));
        let mut qos = kept_labels(std::mem::take(&mut self.qos));
        let mut accounts = kept_labels(std::mem::take(&mut self.accounts));
        if r.out_of_order > 0 {
            let labels = [&mut qos, &mut accounts];
            sort_by_submit(&mut self.jobs, &mut demands, &mut waits, labels);
        }
        let origin = self.jobs.first().map(|j| j.submit).unwrap_or_default();
        for j in &mut self.jobs {
            j.submit = j.submit - origin;
        }
        if let Some(r) = self.report.resources.filter(|r| r.memory.from_used > 0) {
            self.report.warnings.push(format!(
                "{} jobs state no requested memory: their used memory stands for it",
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
}

/// Names (users, partitions, sites) numbered in order of first appearance; deterministic
/// because files are read in order. A `BTreeMap` so no hash order can leak anywhere.
#[derive(Default)]
pub(super) struct Names {
    index: BTreeMap<Vec<u8>, u32>,
    pub names: Vec<String>,
}

impl Names {
    pub fn id(&mut self, name: &[u8]) -> u32 {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        let i = self.names.len() as u32;
        self.index.insert(name.to_vec(), i);
        self.names.push(String::from_utf8_lossy(name).into_owned());
        i
    }
}
