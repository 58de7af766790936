//! Work lost to failures per run (issue #41): core-hours of killed runs and, with
//! checkpointing, the core-hours spent writing and restarting from checkpoints.

use std::rc::Rc;

use super::run_bars::RunBars;
use crate::web::protocol::RunResult;

/// The runs with failures; `None` when no run had any. Series: work lost, then (with
/// checkpointing) checkpoint overhead.
pub fn lost_work(runs: &[Rc<RunResult>]) -> Option<RunBars> {
    let with: Vec<_> = runs
        .iter()
        .filter_map(|r| Some((r.label().to_string(), r.report.failures.as_ref()?)))
        .collect();
    if with.is_empty() {
        return None;
    }
    let mut series = vec!["work lost".to_string()];
    let mut values = vec![with.iter().map(|(_, f)| f.work_lost_core_h).collect()];
    if with.iter().any(|(_, f)| f.checkpoint.is_some()) {
        series.push("checkpoint overhead".into());
        values.push(
            with.iter()
                .map(|(_, f)| f.checkpoint.as_ref().map_or(0.0, |c| c.overhead_core_h))
                .collect(),
        );
    }
    Some(RunBars {
        labels: with.into_iter().map(|(l, _)| l).collect(),
        values,
        series,
        title: "Work lost to failures per run",
        axis: "core-hours",
        unit: "core-h",
        name: "gridscope-work-lost",
        table_digits: 1,
    })
}
