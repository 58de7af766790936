//! The SWF writer (split from the reader, issue #30).

use super::SwfHeader;
use crate::workload::Workload;

/// Writes jobs as SWF: the header fields (if any) then one line per job, times in seconds
/// after `origin` is added back; field 3 is the job's wait in the log where the workload
/// has one (else -1), field 15 its QOS (the queue it was read from; else -1). What
/// [`read_swf`] accepted reads back identically.
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
    for (i, j) in workload.jobs.iter().enumerate() {
        let submit = j.submit + workload.origin;
        use std::fmt::Write;
        let _ = write!(out, "{} {} ", j.id, submit);
        let _ = match workload.logged_waits.get(i).copied().flatten() {
            Some(wait) => write!(out, "{wait}"),
            None => write!(out, "-1"),
        };
        let queue = workload.qos.get(i).copied().unwrap_or(-1);
        let group = workload.accounts.get(i).copied().unwrap_or(-1);
        let _ = writeln!(
            out,
            " {} {} -1 -1 {} {} -1 1 {} {group} -1 {queue} {} -1 -1",
            j.runtime, j.procs, j.procs, j.estimate, j.user, j.partition
        );
    }
    out
}
