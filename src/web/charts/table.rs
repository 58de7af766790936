//! A chart's numbers as a table, for screen readers and for copying: shown under the chart
//! in a folded "Data" section ([`super::ChartView`]). A chart that has a table beside it on
//! the page, or whose marks are jobs (the per-job CSV export has them), gives none.

use crate::allocation::sweep::PolicySeries;
use crate::web::format::fmt_num;

/// Column headings and rows of text.
#[derive(Clone, Debug, PartialEq)]
pub struct DataTable {
    pub head: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// Lines with bands: one row per line, one column per x, "median (band lo – hi)".
pub fn lines_table(x_label: &str, x: &[f64], lines: &[PolicySeries], unit: &str) -> DataTable {
    let cell = |l: &PolicySeries, i: usize| match (l.median.get(i), l.lo.get(i), l.hi.get(i)) {
        (Some(m), Some(lo), Some(hi)) => format!(
            "{}{unit} ({} – {})",
            fmt_num(*m, 4),
            fmt_num(*lo, 4),
            fmt_num(*hi, 4)
        ),
        (Some(m), _, _) => format!("{}{unit}", fmt_num(*m, 4)),
        _ => "–".into(),
    };
    DataTable {
        head: std::iter::once("median (band)".to_string())
            .chain(x.iter().map(|v| format!("{x_label} = {v}")))
            .collect(),
        rows: lines
            .iter()
            .map(|l| {
                std::iter::once(l.policy.clone())
                    .chain((0..x.len()).map(|i| cell(l, i)))
                    .collect()
            })
            .collect(),
    }
}
