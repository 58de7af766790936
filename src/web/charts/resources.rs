//! Cores, memory and GPUs held and stranded per run (issue #37): each a share of the
//! capacity over the makespan, as `simulate`'s JSON gives them under `resources`.

use std::rc::Rc;

use super::run_bars::RunBars;
use crate::metrics::resources::{NodeResources, ResourceUse};
use crate::web::protocol::RunResult;

/// The resources a run measured, by name: cores always, memory and GPUs when some node
/// has them.
fn by_name(r: &NodeResources) -> [(&'static str, Option<&ResourceUse>); 3] {
    [
        ("cores", Some(&r.cores)),
        ("memory", r.memory_kb.as_ref()),
        ("GPUs", r.gpus.as_ref()),
    ]
}

/// The runs on node-typed sites; `None` when no run was. Series, in percent: held, then
/// stranded, per resource present.
pub fn resource_shares(runs: &[Rc<RunResult>]) -> Option<RunBars> {
    let with: Vec<_> = runs
        .iter()
        .filter_map(|r| Some((r.label().to_string(), &r.report.resources.as_ref()?.all)))
        .collect();
    if with.is_empty() {
        return None;
    }
    let (mut series, mut values) = (Vec::new(), Vec::new());
    for k in 0..3 {
        if with.iter().all(|(_, r)| by_name(r)[k].1.is_none()) {
            continue;
        }
        let name = by_name(with[0].1)[k].0;
        let share = |f: fn(&ResourceUse) -> f64| {
            with.iter()
                .map(|(_, r)| by_name(r)[k].1.map_or(0.0, |u| 100.0 * f(u)))
                .collect::<Vec<f64>>()
        };
        series.push(format!("{name} held"));
        values.push(share(|u| u.utilization));
        series.push(format!("{name} stranded"));
        values.push(share(|u| u.stranded));
    }
    Some(RunBars {
        labels: with.into_iter().map(|(l, _)| l).collect(),
        values,
        series,
        title: "Resources held and stranded per run",
        axis: "% of capacity",
        unit: "%",
        name: "gridscope-resources",
        table_digits: 2,
    })
}
