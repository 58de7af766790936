//! Grouped bars with one group per run and one bar per series (a quantity a run reports),
//! with the hover text and data table every such chart gives: the work lost to failures
//! ([`super::failures`]) and the resources held and stranded ([`super::resources`]).

use web_sys::HtmlCanvasElement;

use super::draw::{self, GroupValues};
use super::{DataTable, Geom, Plot};
use crate::web::format::fmt_num;

#[derive(Clone, Debug, PartialEq)]
pub struct RunBars {
    pub labels: Vec<String>,
    /// `[series][run]`, in `unit`.
    pub values: Vec<Vec<f64>>,
    pub series: Vec<String>,
    pub title: &'static str,
    pub axis: &'static str,
    /// The values' unit, after each in the hover text and in the table's heads.
    pub unit: &'static str,
    /// The file name of the chart's PNG and CSV.
    pub name: &'static str,
    /// Decimals in the data table (the hover text has one).
    pub table_digits: usize,
}

impl Plot for RunBars {
    fn draw(&self, canvas: &HtmlCanvasElement) -> Result<Geom, String> {
        draw::grouped_bars(
            canvas,
            self.title,
            self.axis,
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
            .map(|(s, v)| format!("{s} {} {}", fmt_num(v[g as usize], 1), self.unit))
            .collect();
        format!("{label}: {}", parts.join(", "))
    }

    fn name(&self) -> String {
        self.name.into()
    }

    fn table(&self) -> Option<DataTable> {
        let mut head = vec!["run".to_string()];
        head.extend(self.series.iter().map(|s| format!("{s} ({})", self.unit)));
        Some(DataTable {
            head,
            rows: self
                .labels
                .iter()
                .enumerate()
                .map(|(g, l)| {
                    let mut row = vec![l.clone()];
                    row.extend(self.values.iter().map(|v| fmt_num(v[g], self.table_digits)));
                    row
                })
                .collect(),
        })
    }
}
