//! Per-job A/B (issue #29): each job's wait under run A (x) against run B (y), in hours,
//! with the diagonal; below it the job gained under B, above it lost. Every paired job is
//! drawn, binned in a grid (a cell in the colour of most of its jobs, darker with more of
//! them: a trace's tens of thousands of jobs would hide each other as dots), over axes that
//! reach the longest wait; the gainers and losers the panel lists and the longest waits are
//! marked one by one (issue #38). A click picks the nearest job (the panel explains it under
//! the step-through).

use web_sys::HtmlCanvasElement;

use super::draw::{area, color, e, finish, fit_y_desc, titled, x_ticks, y_ticks};
use super::{DataTable, Geom, Plot};
use crate::web::protocol::{AbData, AB_GRID};

#[derive(Clone, Debug, PartialEq)]
pub struct AbScatter {
    pub data: AbData,
    pub label_a: String,
    pub label_b: String,
}

const H: f64 = 3600.0;

impl AbScatter {
    /// The axes' span in hours: every job's waits are inside it.
    fn top(&self) -> f64 {
        self.data.density.span_s / H
    }

    /// The jobs the pointer can pick: the sample and the marked ones.
    fn pickable(&self) -> impl Iterator<Item = &(i64, f64, f64)> {
        self.data.points.iter().chain(&self.data.marked)
    }

    /// The job nearest (x, y) in hours, within 3 % of the axis span.
    fn nearest(&self, x: f64, y: f64) -> Option<&(i64, f64, f64)> {
        let span = self.top();
        let d = |p: &&(i64, f64, f64)| ((p.1 / H - x).powi(2) + (p.2 / H - y).powi(2)).sqrt();
        self.pickable()
            .min_by(|a, b| d(a).total_cmp(&d(b)))
            .filter(|p| d(p) <= 0.03 * span)
    }
}

impl AbScatter {
    /// What the grid holds under (x, y) in hours, where no job is near enough to pick.
    fn cell_text(&self, x: f64, y: f64) -> String {
        let bin = |v: f64| (v / self.top() * AB_GRID as f64).floor();
        let (ix, iy) = (bin(x), bin(y));
        if !(0.0..AB_GRID as f64).contains(&ix) || !(0.0..AB_GRID as f64).contains(&iy) {
            return String::new();
        }
        let k = iy as usize * AB_GRID + ix as usize;
        let d = &self.data.density;
        let at = |v: &[u32]| v.get(k).copied().map_or(0, u64::from);
        let (g, l, s) = (at(&d.gained), at(&d.lost), at(&d.same));
        if g + l + s == 0 {
            return String::new();
        }
        format!(
            "{} here: {g} waited less under {}, {l} more, {s} the same",
            crate::web::format::count(g + l + s, "job"),
            self.label_b
        )
    }
}

impl Plot for AbScatter {
    fn draw(&self, canvas: &HtmlCanvasElement) -> Result<Geom, String> {
        use plotters::prelude::*;
        let root = area(canvas)?;
        let top = self.top();
        let title = format!("Wait per job: {} (x) vs {} (y)", self.label_a, self.label_b);
        let body = titled(&root, title)?;
        let mut chart = ChartBuilder::on(&body)
            .margin(8)
            .x_label_area_size(38)
            .y_label_area_size(56)
            .build_cartesian_2d(0f64..top, 0f64..top)
            .map_err(e)?;
        // Hours with as many decimals as the span needs: "1400", "12.5", "0.25".
        let decimals = if top >= 100.0 {
            0
        } else if top >= 1.0 {
            1
        } else {
            2
        };
        let hours = |v: &f64| format!("{v:.decimals$}");
        chart
            .configure_mesh()
            .y_labels(y_ticks(&root))
            .x_labels(x_ticks(&root))
            .x_label_formatter(&hours)
            .y_label_formatter(&hours)
            .x_desc(format!("wait under {} (h)", self.label_a))
            .y_desc(fit_y_desc(
                &root,
                format!("wait under {} (h)", self.label_b),
            ))
            .draw()
            .map_err(e)?;
        let (gain, loss, same) = (color(2), color(5), RGBColor(120, 120, 120));
        let d = &self.data.density;
        let busiest = (0..d.gained.len())
            .map(|k| d.gained[k] + d.lost[k] + d.same[k])
            .max()
            .unwrap_or(0);
        let cell = top / AB_GRID as f64;
        let cells = (0..d.gained.len()).filter_map(|k| {
            let (g, l, s) = (d.gained[k], d.lost[k], d.same[k]);
            let n = g + l + s;
            if n == 0 {
                return None;
            }
            let c = if g >= l && g >= s {
                gain
            } else if l >= s {
                loss
            } else {
                same
            };
            // One job is faint, the busiest cell opaque, on a log scale.
            let shade = 0.3 + 0.7 * f64::from(n).ln_1p() / f64::from(busiest).ln_1p().max(1e-9);
            let (ix, iy) = ((k % AB_GRID) as f64, (k / AB_GRID) as f64);
            let corners = [
                (ix * cell, iy * cell),
                ((ix + 1.0) * cell, (iy + 1.0) * cell),
            ];
            Some(Rectangle::new(corners, c.mix(shade.min(1.0)).filled()))
        });
        chart.draw_series(cells).map_err(e)?;
        chart
            .draw_series(LineSeries::new(
                [(0.0, 0.0), (top, top)],
                BLACK.mix(0.5).stroke_width(1),
            ))
            .map_err(e)?;
        // The extremes, each as a ringed dot: they stand out of any cell.
        let marks = self.data.marked.iter().flat_map(|&(_, a, b)| {
            let c = if b < a { gain } else { loss };
            let at = (a / H, b / H);
            [
                Circle::new(at, 4, c.filled()),
                Circle::new(at, 5, BLACK.stroke_width(1)),
            ]
        });
        chart.draw_series(marks).map_err(e)?;
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
            None => self.cell_text(x, y),
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
                row("jobs drawn (binned)", self.data.density.jobs().to_string()),
                row("jobs marked", self.data.marked.len().to_string()),
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
        let marked: Vec<String> = self.data.marked.iter().map(|m| m.0.to_string()).collect();
        vec![
            ("data-points", self.data.points.len().to_string()),
            ("data-binned", self.data.density.jobs().to_string()),
            ("data-marked", marked.join(",")),
            ("data-span-s", self.data.density.span_s.to_string()),
        ]
    }
}
