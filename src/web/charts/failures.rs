//! Work lost to failures per run (issue #41): core-hours of killed runs and, with
//! checkpointing, the core-hours spent writing and restarting from checkpoints.

use std::rc::Rc;

use web_sys::HtmlCanvasElement;

use super::draw::{self, GroupValues};
use super::{DataTable, Geom, Plot};
use crate::web::format::fmt_num;
use crate::web::protocol::RunResult;

#[derive(Clone, Debug, PartialEq)]
pub struct LostWork {
    pub labels: Vec<String>,
    /// `[series][run]`: work lost, then (with checkpointing) checkpoint overhead.
    pub values: Vec<Vec<f64>>,
    pub series: Vec<String>,
}

impl LostWork {
    /// The runs with failures; `None` when no run had any.
    pub fn of(runs: &[Rc<RunResult>]) -> Option<LostWork> {
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
        Some(LostWork {
            labels: with.into_iter().map(|(l, _)| l).collect(),
            values,
            series,
        })
    }
}

impl Plot for LostWork {
    fn draw(&self, canvas: &HtmlCanvasElement) -> Result<Geom, String> {
        draw::grouped_bars(
            canvas,
            "Work lost to failures per run",
            "core-hours",
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
            .map(|(s, v)| format!("{s} {} core-h", fmt_num(v[g as usize], 1)))
            .collect();
        format!("{label}: {}", parts.join(", "))
    }

    fn name(&self) -> String {
        "gridscope-work-lost".into()
    }

    fn table(&self) -> Option<DataTable> {
        let mut head = vec!["run".to_string()];
        head.extend(self.series.iter().map(|s| format!("{s} (core-h)")));
        Some(DataTable {
            head,
            rows: self
                .labels
                .iter()
                .enumerate()
                .map(|(g, l)| {
                    let mut row = vec![l.clone()];
                    row.extend(self.values.iter().map(|v| fmt_num(v[g], 1)));
                    row
                })
                .collect(),
        })
    }
}
