//! `gridscope sweep status DIR`: per shard, the cases done, running, failed and missing.

use super::shard::{done, shard_of, Done};
use super::store::Dir;
use crate::cli::StatusArgs;
use crate::io::hostname;
use crate::{output, CliError};

#[derive(Default, Clone, serde::Serialize)]
struct Counts {
    shard: usize,
    cases: usize,
    done: usize,
    running: usize,
    failed: usize,
    missing: usize,
}

/// A case another process is running: a marker whose process is alive (on this host), or
/// any marker of another host (which this one cannot see).
fn running(dir: &Dir, id: &str, host: &str) -> bool {
    let Ok(text) = std::fs::read_to_string(dir.running_path(id)) else {
        return false;
    };
    let mut words = text.split_whitespace();
    match (words.next(), words.next()) {
        (Some(h), Some(pid)) if h == host => std::path::Path::new("/proc").join(pid).exists(),
        _ => true,
    }
}

pub fn status(a: &StatusArgs) -> Result<(), CliError> {
    let dir = Dir::new(&a.dir);
    let plan = dir.plan()?;
    let cases = dir.cases()?;
    // The shard count a Slurm script was written for, unless --of says otherwise.
    let count =
        a.of.or_else(|| {
            std::fs::read_to_string(dir.file("slurm").join("tasks"))
                .ok()
                .and_then(|t| t.trim().parse().ok())
        })
        .unwrap_or(1)
        .max(1);
    let owner = shard_of(&cases, count);
    let host = hostname();
    let mut rows: Vec<Counts> = (0..count)
        .map(|shard| Counts {
            shard,
            ..Counts::default()
        })
        .collect();
    let mut missing_ids = Vec::new();
    for c in &cases {
        let row = &mut rows[owner[c.index]];
        row.cases += 1;
        match done(&dir, &c.id) {
            Done::Yes => row.done += 1,
            _ if running(&dir, &c.id, &host) => row.running += 1,
            _ if dir.failed_path(&c.id).exists() => row.failed += 1,
            _ => {
                row.missing += 1;
                missing_ids.push(c.id.clone());
            }
        }
    }
    if a.json {
        let v = serde_json::json!({ "name": plan.name, "cases": cases.len(), "shards": rows });
        return output::stdout(&format!(
            "{}\n",
            serde_json::to_string_pretty(&v).unwrap_or_default()
        ));
    }
    let mut out = format!(
        "{} — {} cases in {count} shards\nshard   cases    done running  failed missing\n",
        if plan.name.is_empty() {
            "sweep"
        } else {
            &plan.name
        },
        cases.len()
    );
    let mut total = Counts::default();
    for r in &rows {
        out.push_str(&format!(
            "{:>5} {:>7} {:>7} {:>7} {:>7} {:>7}\n",
            r.shard, r.cases, r.done, r.running, r.failed, r.missing
        ));
        total.cases += r.cases;
        total.done += r.done;
        total.running += r.running;
        total.failed += r.failed;
        total.missing += r.missing;
    }
    out.push_str(&format!(
        "{:>5} {:>7} {:>7} {:>7} {:>7} {:>7}\n",
        "all", total.cases, total.done, total.running, total.failed, total.missing
    ));
    output::stdout(&out)
}
