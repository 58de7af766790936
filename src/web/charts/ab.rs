//! Per-job A/B (issue #29): each job's wait under run A (x) against run B (y), in hours,
//! with the diagonal; below it the job gained under B, above it lost. A click picks the
//! nearest job (the panel explains it under the step-through).

use web_sys::HtmlCanvasElement;

use super::draw::{area, color, e, finish, fit_title, font, x_ticks};
use super::{DataTable, Geom, Plot};
use crate::web::protocol::AbData;

#[derive(Clone, Debug, PartialEq)]
pub struct AbScatter {
    pub data: AbData,
    pub label_a: String,
    pub label_b: String,
}

const H: f64 = 3600.0;

impl AbScatter {
    fn top(&self) -> f64 {
        self.data
            .points
            .iter()
            .map(|p| p.1.max(p.2))
            .fold(1.0f64, f64::max)
            / H
            * 1.05
    }

    /// The job nearest (x, y) in hours, within 3 % of the axis span.
    fn nearest(&self, x: f64, y: f64) -> Option<&(i64, f64, f64)> {
        let span = self.top();
        let d = |p: &&(i64, f64, f64)| ((p.1 / H - x).powi(2) + (p.2 / H - y).powi(2)).sqrt();
        self.data
            .points
            .iter()
            .min_by(|a, b| d(a).total_cmp(&d(b)))
            .filter(|p| d(p) <= 0.03 * span)
    }
}

impl Plot for AbScatter {
    fn draw(&self, canvas: &HtmlCanvasElement) -> Result<Geom, String> {
        use plotters::prelude::*;
        let root = area(canvas)?;
        let top = self.top();
        let title = format!("Wait per job: {} (x) vs {} (y)", self.label_a, self.label_b);
        let mut chart = ChartBuilder::on(&root)
            .caption(fit_title(&root, title), font(15))
            .margin(8)
            .x_label_area_size(32)
            .y_label_area_size(48)
            .build_cartesian_2d(0f64..top, 0f64..top)
            .map_err(e)?;
        chart
            .configure_mesh()
            .x_labels(x_ticks(&root))
            .x_desc(format!("wait under {} (h)", self.label_a))
            .y_desc(format!("wait under {} (h)", self.label_b))
            .draw()
            .map_err(e)?;
        chart
            .draw_series(LineSeries::new(
                [(0.0, 0.0), (top, top)],
                BLACK.mix(0.5).stroke_width(1),
            ))
            .map_err(e)?;
        let (gain, loss) = (color(2), color(5));
        chart
            .draw_series(self.data.points.iter().map(|&(_, a, b)| {
                let c = if b < a {
                    gain
                } else if b > a {
                    loss
                } else {
                    RGBColor(120, 120, 120)
                };
                Circle::new((a / H, b / H), 2, c.mix(0.7).filled())
            }))
            .map_err(e)?;
        finish(&root, &mut chart, None, (0.0, top), (0.0, top), false)
    }

    fn describe(&self, x: f64, y: f64) -> String {
        match self.nearest(x, y) {
            Some(&(id, a, b)) => format!(
                "job {id}: wait {:.2} h under {}, {:.2} h under {} (B − A {:+.2} h); click to see why it waited",
                a / H,
                self.label_a,
                b / H,
                self.label_b,
                (b - a) / H
            ),
            None => String::new(),
        }
    }

    fn pick(&self, x: f64, y: f64) -> Option<i64> {
        self.nearest(x, y).map(|p| p.0)
    }

    fn name(&self) -> String {
        format!("gridscope-ab-{}-{}", self.data.a, self.data.b)
    }

    fn table(&self) -> Option<DataTable> {
        let c = &self.data.comparison;
        let row = |what: &str, v: String| vec![what.to_string(), v];
        Some(DataTable {
            head: vec!["per-job A/B".into(), "value".into()],
            rows: vec![
                row("jobs paired", c.jobs_paired.to_string()),
                row("jobs drawn", self.data.points.len().to_string()),
                row(
                    "gained / lost / same under B",
                    format!("{} / {} / {}", c.gained, c.lost, c.unchanged),
                ),
                row("mean B − A (s)", format!("{:.1}", c.mean_diff_s)),
                row("median B − A (s)", format!("{:.1}", c.median_diff_s)),
            ],
        })
    }

    fn data_attrs(&self) -> Vec<(&'static str, String)> {
        vec![("data-points", self.data.points.len().to_string())]
    }
}
