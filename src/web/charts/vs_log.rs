//! The log's 14-day moving-average wait against each run's (issue #42, docs/slurm.md
//! "Against the log"): FastSim's picture of how close a policy comes to what the site did.

use std::rc::Rc;

use web_sys::HtmlCanvasElement;

use super::{draw, DataTable, Geom, Plot};
use crate::web::format::fmt_num;
use crate::web::protocol::RunResult;

const DAY: f64 = 86400.0;

/// The moving averages in hours, by window middle in days: the log's, then each run's.
#[derive(Clone, Debug, PartialEq)]
pub struct MovingWaits {
    /// (name, [(day, hours)]): "log" first.
    pub lines: Vec<(String, Vec<(f64, f64)>)>,
}

impl MovingWaits {
    /// The runs set against the log that have windows; `None` when none has.
    pub fn of(runs: &[Rc<RunResult>]) -> Option<MovingWaits> {
        let with: Vec<_> = runs
            .iter()
            .filter_map(|r| Some((r.label(), r.report.vs_log.as_ref()?)))
            .filter(|(_, v)| !v.curve.is_empty())
            .collect();
        let (_, first) = with.first()?;
        let line =
            |i: usize, c: &[[f64; 3]]| c.iter().map(|p| (p[0] / DAY, p[i] / 3600.0)).collect();
        let mut lines = vec![("log".to_string(), line(1, &first.curve))];
        lines.extend(with.iter().map(|(l, v)| (l.to_string(), line(2, &v.curve))));
        Some(MovingWaits { lines })
    }

    fn xmax(&self) -> f64 {
        let last = self.lines.iter().filter_map(|l| l.1.last()).map(|p| p.0);
        // Half a window past the last middle: the last window's end.
        last.fold(0.0, f64::max) + 7.0
    }
}

impl Plot for MovingWaits {
    fn draw(&self, canvas: &HtmlCanvasElement) -> Result<Geom, String> {
        let title = "14-day moving-average wait: the log and each run";
        draw::lines_over_time(
            canvas,
            title,
            "mean wait (h)",
            &self.lines,
            self.xmax(),
            None,
        )
    }

    fn describe(&self, x: f64, _y: f64) -> String {
        let Some(log) = self.lines.first() else {
            return String::new();
        };
        // The window whose middle is nearest x.
        let Some(k) = (0..log.1.len())
            .min_by(|&a, &b| (log.1[a].0 - x).abs().total_cmp(&(log.1[b].0 - x).abs()))
        else {
            return String::new();
        };
        let parts: Vec<String> = self
            .lines
            .iter()
            .filter_map(|(name, pts)| Some(format!("{name} {} h", fmt_num(pts.get(k)?.1, 2))))
            .collect();
        format!(
            "window around day {}: {}",
            fmt_num(log.1[k].0, 1),
            parts.join(", ")
        )
    }

    fn name(&self) -> String {
        "gridscope-moving-wait".into()
    }

    fn table(&self) -> Option<DataTable> {
        let log = self.lines.first()?;
        let mut head = vec!["window middle (day)".to_string()];
        head.extend(self.lines.iter().map(|(n, _)| format!("{n} (h)")));
        let rows = (0..log.1.len())
            .map(|k| {
                let mut row = vec![fmt_num(log.1[k].0, 2)];
                row.extend(
                    self.lines
                        .iter()
                        .map(|(_, p)| p.get(k).map_or("–".into(), |p| fmt_num(p.1, 3))),
                );
                row
            })
            .collect();
        Some(DataTable { head, rows })
    }

    fn data_attrs(&self) -> Vec<(&'static str, String)> {
        vec![(
            "data-windows",
            self.lines.first().map_or(0, |l| l.1.len()).to_string(),
        )]
    }
}
