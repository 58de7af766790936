//! A merged table from `gridscope sweep merge` (a cluster's results, dropped on the page)
//! drawn the way a local sweep is: one line per run label (and value of the other axes)
//! with its median and order-statistic band per point.

use std::rc::Rc;

use web_sys::HtmlCanvasElement;

use super::{draw, DataTable, Geom, Plot};
use crate::scenario::merged::MergedLines;
use crate::web::format::fmt_num;

/// One metric of a merged table over one axis. Equal when it is the same picture.
#[derive(Clone, Debug, PartialEq)]
pub struct MergedChart {
    /// The file's name (the title and the PNG's name).
    pub file: String,
    pub metric: String,
    pub lines: Rc<MergedLines>,
}

impl MergedChart {
    fn nearest(&self, x: f64) -> Option<usize> {
        self.lines
            .x
            .iter()
            .enumerate()
            .min_by(|a, b| (a.1 - x).abs().total_cmp(&(b.1 - x).abs()))
            .map(|(i, _)| i)
    }
}

impl Plot for MergedChart {
    fn draw(&self, canvas: &HtmlCanvasElement) -> Result<Geom, String> {
        let l = &self.lines;
        let seeds = if l.n.0 == l.n.1 {
            l.n.0.to_string()
        } else {
            format!("{}–{}", l.n.0, l.n.1)
        };
        let title = format!(
            "{}: median of {seeds} seeds, band ≥ {:.0} %",
            self.file,
            l.coverage * 100.0
        );
        draw::band_lines(canvas, &title, (&l.x_label, &self.metric), &l.x, &l.lines)
    }

    fn describe(&self, x: f64, _y: f64) -> String {
        let l = &self.lines;
        let Some(i) = self.nearest(x) else {
            return String::new();
        };
        let parts: Vec<String> = l
            .lines
            .iter()
            .filter_map(|s| {
                let m = *s.median.get(i)?;
                m.is_finite().then(|| {
                    format!(
                        "{} {} ({} – {})",
                        s.policy,
                        fmt_num(m, 4),
                        fmt_num(*s.lo.get(i).unwrap_or(&m), 4),
                        fmt_num(*s.hi.get(i).unwrap_or(&m), 4)
                    )
                })
            })
            .collect();
        let x = l.x_text.get(i).map_or("", String::as_str);
        format!("{} = {x}: {}", l.x_label, parts.join(", "))
    }

    /// Every line's median and band per point, the x values as the file has them.
    fn table(&self) -> Option<DataTable> {
        let l = &self.lines;
        let cell = |s: &crate::allocation::sweep::PolicySeries, i: usize| match s.median.get(i) {
            Some(m) if m.is_finite() => format!(
                "{} ({} – {})",
                fmt_num(*m, 4),
                fmt_num(s.lo[i], 4),
                fmt_num(s.hi[i], 4)
            ),
            _ => "–".into(),
        };
        Some(DataTable {
            head: std::iter::once("median (band)".to_string())
                .chain(l.x_text.iter().map(|v| format!("{} = {v}", l.x_label)))
                .collect(),
            rows: l
                .lines
                .iter()
                .map(|s| {
                    std::iter::once(s.policy.clone())
                        .chain((0..l.x.len()).map(|i| cell(s, i)))
                        .collect()
                })
                .collect(),
        })
    }

    /// The lines' medians and bands as drawn (JSON), for tests and copying.
    fn data_attrs(&self) -> Vec<(&'static str, String)> {
        let l = &self.lines;
        let lines: Vec<serde_json::Value> = l
            .lines
            .iter()
            .map(|s| {
                let nums = |v: &[f64]| {
                    v.iter()
                        .map(|x| serde_json::Number::from_f64(*x).map_or(serde_json::Value::Null, serde_json::Value::Number))
                        .collect::<Vec<_>>()
                };
                serde_json::json!({"line": s.policy, "median": nums(&s.median), "lo": nums(&s.lo), "hi": nums(&s.hi)})
            })
            .collect();
        vec![
            (
                "data-x",
                serde_json::to_string(&l.x_text).unwrap_or_default(),
            ),
            ("data-lines", serde_json::Value::Array(lines).to_string()),
        ]
    }

    fn name(&self) -> String {
        let stem = self.file.split('.').next().unwrap_or("merged");
        format!("gridscope-{stem}-{}", self.metric)
    }
}
