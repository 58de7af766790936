//! SOB Figures 3 and 4: five panels, one bar per run in each.

use std::cell::Cell;
use std::rc::Rc;

use web_sys::HtmlCanvasElement;

use super::{draw, DataTable, Geom, Plot};
use crate::web::format::secs_unit;
use crate::web::metric::Metric;
use crate::web::protocol::RunResult;

/// SOB §3.2's five metrics as Figures 3 and 4 show them: (metric, key in the figure's
/// table, normalized to the baseline run). Wait and response are divided by the baseline's;
/// the deviation, efficiency and transferred share are absolute, as in the paper.
pub const SOB_METRICS: [(Metric, &str, bool); 5] = [
    (Metric::AvgWait, "avg_wait_norm", true),
    (Metric::AvgResponse, "avg_response_norm", true),
    (Metric::WaitStddev, "wait_stddev_s", false),
    (Metric::GridEfficiency, "grid_efficiency", false),
    (Metric::FractionTransferred, "fraction_transferred", false),
];

/// The figure's numbers: per run the five values of [`SOB_METRICS`]. The baseline is the
/// run labelled `local`, else the first; a normalized value whose baseline is 0 or missing
/// is NaN (shown as –, JSON null).
#[derive(Clone, Debug)]
pub struct SobFigure {
    pub labels: Vec<String>,
    pub base: usize,
    /// The baseline is the run labelled `local`.
    pub is_local: bool,
    pub values: Vec<[f64; 5]>,
    /// The panels' grid as last drawn (columns, rows): side by side, or two to a row on a
    /// phone; the tooltip reads it.
    pub grid: Cell<(usize, usize)>,
}

impl PartialEq for SobFigure {
    /// Bit for bit, so a NaN cell does not redraw the chart at every render.
    fn eq(&self, o: &Self) -> bool {
        let bits =
            |v: &[[f64; 5]]| -> Vec<u64> { v.iter().flatten().map(|x| x.to_bits()).collect() };
        self.labels == o.labels
            && self.base == o.base
            && self.is_local == o.is_local
            && bits(&self.values) == bits(&o.values)
    }
}

impl SobFigure {
    pub fn of(runs: &[Rc<RunResult>]) -> SobFigure {
        let local = runs.iter().position(|r| r.label() == "local");
        let base = local.unwrap_or(0);
        let values = runs
            .iter()
            .map(|r| {
                let mut row = [f64::NAN; 5];
                for (cell, &(metric, _, normalized)) in row.iter_mut().zip(&SOB_METRICS) {
                    let v = metric.get(&r.report.metrics);
                    *cell = if normalized {
                        match runs.get(base).map(|b| metric.get(&b.report.metrics)) {
                            Some(b) if b != 0.0 && b.is_finite() => v / b,
                            _ => f64::NAN,
                        }
                    } else {
                        v
                    };
                }
                row
            })
            .collect();
        SobFigure {
            labels: runs.iter().map(|r| r.label().to_string()).collect(),
            base,
            is_local: local.is_some(),
            values,
            grid: Cell::new((SOB_METRICS.len(), 1)),
        }
    }

    pub fn base_label(&self) -> &str {
        self.labels.get(self.base).map_or("", String::as_str)
    }

    fn column(&self, k: usize, scale: f64) -> Vec<f64> {
        self.values.iter().map(|row| row[k] * scale).collect()
    }

    /// The panels drawn: a metric that is 0 (or undefined) in every run gets none — on one
    /// site nothing is transferred, and an axis of repeated 0 ticks says nothing.
    fn drawn(&self) -> Vec<usize> {
        (0..SOB_METRICS.len())
            .filter(|&k| {
                self.values
                    .iter()
                    .any(|row| row[k].is_finite() && row[k] != 0.0)
            })
            .collect()
    }
}

impl Plot for SobFigure {
    fn draw(&self, canvas: &HtmlCanvasElement) -> Result<Geom, String> {
        let dev = self.column(2, 1.0);
        let (unit, scale) = secs_unit(dev.iter().cloned().fold(0.0, f64::max));
        let cols = [
            self.column(0, 1.0),
            self.column(1, 1.0),
            self.column(2, 1.0 / scale),
            self.column(3, 100.0),
            self.column(4, 100.0),
        ];
        let base = self.base_label();
        let titles = [
            format!("avg wait ÷ {base}"),
            format!("avg response ÷ {base}"),
            format!("wait deviation ({unit})"),
            "grid efficiency (%)".to_string(),
            "jobs transferred (%)".to_string(),
        ];
        let panels: Vec<draw::Panel> = self
            .drawn()
            .into_iter()
            .map(|k| draw::Panel {
                title: &titles[k],
                values: &cols[k],
                decimals: if k < 2 { 2 } else { 0 },
                unit_line: k < 2,
            })
            .collect();
        let geom = draw::panels(canvas, &self.labels, &panels)?;
        self.grid.set((geom.x.1 as usize, geom.y.1 as usize));
        Ok(geom)
    }

    fn describe(&self, x: f64, y: f64) -> String {
        let drawn = self.drawn();
        let (columns, rows) = self.grid.get();
        let Some(&k) = drawn.get(draw::panel_at(x, y, columns, rows)) else {
            return String::new();
        };
        let base = self.base_label();
        let name = match k {
            0 => format!("avg wait ÷ {base}"),
            1 => format!("avg response ÷ {base}"),
            2 => "wait deviation".into(),
            3 => "grid efficiency".into(),
            _ => "jobs transferred".into(),
        };
        let parts: Vec<String> = self
            .labels
            .iter()
            .zip(&self.values)
            .map(|(label, row)| {
                let v = row[k];
                let t = match k {
                    0 | 1 => format!("{v:.3}"),
                    2 => draw::format_secs(v),
                    _ => format!("{:.1} %", v * 100.0),
                };
                format!("{label} {t}")
            })
            .collect();
        format!("{name}: {}", parts.join(", "))
    }

    fn name(&self) -> String {
        "gridscope-sob-figure".into()
    }

    fn table(&self) -> Option<DataTable> {
        let base = self.base_label();
        Some(DataTable {
            head: vec![
                "run".into(),
                format!("avg wait ÷ {base}"),
                format!("avg response ÷ {base}"),
                "wait deviation".into(),
                "grid efficiency".into(),
                "jobs transferred".into(),
            ],
            rows: self
                .labels
                .iter()
                .zip(&self.values)
                .map(|(l, v)| {
                    vec![
                        l.clone(),
                        crate::web::format::fmt_num(v[0], 3),
                        crate::web::format::fmt_num(v[1], 3),
                        draw::format_secs(v[2]),
                        format!("{} %", crate::web::format::fmt_num(v[3] * 100.0, 1)),
                        format!("{} %", crate::web::format::fmt_num(v[4] * 100.0, 1)),
                    ]
                })
                .collect(),
        })
    }
}
