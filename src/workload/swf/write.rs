//! The SWF writer (split from the reader, issue #30).

use super::SwfHeader;
use crate::workload::Workload;

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
