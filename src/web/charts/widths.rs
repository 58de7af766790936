//! Mean wait per job-width class and run (`Metrics::wait_by_width`): a scheme that starves
//! wide jobs shows it here while its mean wait looks fine.

use std::rc::Rc;

use web_sys::HtmlCanvasElement;

use super::{draw, slot, DataTable, Geom, Plot};
use crate::web::protocol::RunResult;

/// `values[class][run]`: mean wait in hours of the classes that have jobs.
#[derive(Clone, Debug, PartialEq)]
pub struct WidthWaits {
    pub runs: Vec<String>,
    pub classes: Vec<String>,
    pub values: Vec<Vec<f64>>,
}

impl WidthWaits {
    /// `None` when fewer than two classes have jobs (nothing to compare).
    pub fn of(runs: &[Rc<RunResult>]) -> Option<WidthWaits> {
        let first = &runs.first()?.report.metrics.wait_by_width;
        let with_jobs: Vec<usize> = (0..first.len())
            .filter(|&k| {
                runs.iter().any(|r| {
                    r.report
                        .metrics
                        .wait_by_width
                        .get(k)
                        .is_some_and(|c| c.jobs > 0)
                })
            })
            .collect();
        if with_jobs.len() < 2 {
            return None;
        }
        let classes = with_jobs
            .iter()
            .map(|&k| crate::web::format::counted(&first[k].label(), "CPU"))
            .collect();
        let values = with_jobs
            .iter()
            .map(|&k| {
                runs.iter()
                    .map(|r| {
                        r.report
                            .metrics
                            .wait_by_width
                            .get(k)
                            .map_or(f64::NAN, |c| c.avg_wait_s / 3600.0)
                    })
                    .collect()
            })
            .collect();
        Some(WidthWaits {
            runs: runs.iter().map(|r| r.label().to_string()).collect(),
            classes,
            values,
        })
    }
}

impl Plot for WidthWaits {
    fn draw(&self, canvas: &HtmlCanvasElement) -> Result<Geom, String> {
        draw::grouped_bars(
            canvas,
            "Mean wait by job width (CPUs requested), per run",
            "mean wait (h)",
            &self.runs,
            &self.classes,
            draw::GroupValues::Plain(&self.values),
        )
    }

    fn describe(&self, x: f64, _y: f64) -> String {
        let Some(k) = slot(x, self.runs.len()) else {
            return String::new();
        };
        let parts: Vec<String> = self
            .classes
            .iter()
            .zip(&self.values)
            .map(|(c, v)| format!("{c}: {:.1} h", v.get(k).copied().unwrap_or(f64::NAN)))
            .collect();
        format!("{}: {}", self.runs[k], parts.join(", "))
    }

    fn name(&self) -> String {
        "gridscope-wait-by-width".into()
    }

    fn table(&self) -> Option<DataTable> {
        Some(DataTable {
            head: std::iter::once("mean wait (h)".to_string())
                .chain(self.classes.iter().cloned())
                .collect(),
            rows: self
                .runs
                .iter()
                .enumerate()
                .map(|(k, run)| {
                    std::iter::once(run.clone())
                        .chain(self.values.iter().map(|v| {
                            v.get(k)
                                .map_or("–".into(), |h| crate::web::format::fmt_num(*h, 2))
                        }))
                        .collect()
                })
                .collect(),
        })
    }

    fn data_attrs(&self) -> Vec<(&'static str, String)> {
        vec![(
            "data-hours",
            serde_json::to_string(&self.values).unwrap_or_default(),
        )]
    }
}
