//! Cores, memory and GPUs held and stranded per run (issue #37): each a share of the
//! capacity over the makespan, as `simulate`'s JSON gives them under `resources`.

use std::rc::Rc;

use web_sys::HtmlCanvasElement;

use super::draw::{self, GroupValues};
use super::{DataTable, Geom, Plot};
use crate::metrics::resources::{NodeResources, ResourceUse};
use crate::web::format::fmt_num;
use crate::web::protocol::RunResult;

#[derive(Clone, Debug, PartialEq)]
pub struct ResourceShares {
    pub labels: Vec<String>,
    /// `[series][run]`, in percent: held, then stranded, per resource present.
    pub values: Vec<Vec<f64>>,
    pub series: Vec<String>,
}

/// The resources a run measured, by name: cores always, memory and GPUs when some node
/// has them.
fn by_name(r: &NodeResources) -> [(&'static str, Option<&ResourceUse>); 3] {
    [
        ("cores", Some(&r.cores)),
        ("memory", r.memory_kb.as_ref()),
        ("GPUs", r.gpus.as_ref()),
    ]
}

impl ResourceShares {
    /// The runs on node-typed sites; `None` when no run was.
    pub fn of(runs: &[Rc<RunResult>]) -> Option<ResourceShares> {
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
        Some(ResourceShares {
            labels: with.into_iter().map(|(l, _)| l).collect(),
            values,
            series,
        })
    }
}

impl Plot for ResourceShares {
    fn draw(&self, canvas: &HtmlCanvasElement) -> Result<Geom, String> {
        draw::grouped_bars(
            canvas,
            "Resources held and stranded per run",
            "% of capacity",
            &self.labels,
            &self.series,
            GroupValues::Plain(&self.values),
        )
    }

    fn describe(&self, x: f64, _y: f64) -> String {
        let g = x.round();
        if g < 0.0 {
            return String::new();
        }
        let Some(label) = self.labels.get(g as usize) else {
            return String::new();
        };
        let parts: Vec<String> = self
            .series
            .iter()
            .zip(&self.values)
            .map(|(s, v)| format!("{s} {} %", fmt_num(v[g as usize], 1)))
            .collect();
        format!("{label}: {}", parts.join(", "))
    }

    fn name(&self) -> String {
        "gridscope-resources".into()
    }

    fn table(&self) -> Option<DataTable> {
        let mut head = vec!["run".to_string()];
        head.extend(self.series.iter().map(|s| format!("{s} (%)")));
        Some(DataTable {
            head,
            rows: self
                .labels
                .iter()
                .enumerate()
                .map(|(g, l)| {
                    let mut row = vec![l.clone()];
                    row.extend(self.values.iter().map(|v| fmt_num(v[g], 2)));
                    row
                })
                .collect(),
        })
    }
}
