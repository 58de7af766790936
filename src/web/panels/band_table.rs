//! The table every family's sweep ends in: one row per line of its chart (a policy, a
//! scheme, and for KKOR and SCJG a metric), one column per x, each cell the median over the
//! seeds with its order-statistic band on hover (`data-x`, `data-value` for the tests and
//! the cluster view to read).

use yew::prelude::*;

use crate::web::family_metric;
use crate::web::format::json_num;

/// One row: its line and the medians and bands per x.
pub struct BandRow<'a> {
    pub policy: &'a str,
    /// The metric's key when the table holds several (KKOR, SCJG): its `data-metric`.
    pub metric: Option<&'a str>,
    /// The row's heading cells.
    pub head: Html,
    pub median: &'a [f64],
    pub lo: &'a [f64],
    pub hi: &'a [f64],
}

/// A cell's tooltip and content for the median `v` at x index `i` of a row.
pub type Cell<'a> = &'a dyn Fn(&BandRow, usize, f64) -> (Option<String>, Html);

/// The table `testid`: the heading row's first cells (`corner`), a column per x
/// (`columns`), the rows, then rows of its own after them (`tail`: SF's gap).
pub fn band_table(
    testid: &'static str,
    corner: Html,
    columns: Vec<String>,
    rows: Vec<BandRow>,
    cell: Cell,
    tail: Html,
) -> Html {
    html! {
        <div class="table-wrap">
        <table class="metrics" data-testid={testid}>
            <thead><tr>
                { corner }
                { for columns.into_iter().map(|x| html!{ <th>{x}</th> }) }
            </tr></thead>
            <tbody>
            { for rows.iter().map(|row| html!{
                <tr data-policy={row.policy.to_string()} data-metric={row.metric.map(str::to_string)}>
                    { row.head.clone() }
                    { for row.median.iter().enumerate().map(|(i, v)| {
                        let (title, content) = cell(row, i, *v);
                        html!{ <td data-x={i.to_string()} data-value={json_num(*v)} {title}>{content}</td> }
                    }) }
                </tr>
            }) }
            { tail }
            </tbody>
        </table>
        </div>
    }
}

/// The band of row `row` at x index `i`, each end printed by `print` ("–" where missing).
pub fn band_text(row: &BandRow, i: usize, print: &dyn Fn(f64) -> String) -> String {
    let end = |b: &[f64]| b.get(i).map_or_else(|| "–".into(), |v| print(*v));
    format!("{} – {}", end(row.lo), end(row.hi))
}

/// A sweep of several metrics per line (KKOR, SCJG): a row per (line, metric), each cell
/// printed in its metric's unit (`family_metric`).
pub fn metric_band_table(
    testid: &'static str,
    line: &'static str,
    columns: Vec<String>,
    series: &[crate::kkor::presets::KkorSeries],
) -> Html {
    let rows = series
        .iter()
        .map(|s| BandRow {
            policy: &s.policy,
            metric: Some(&s.metric),
            head: html! {
                <><th scope="row">{&s.policy}</th><td title={s.metric.clone()}>{family_metric::heading(&s.metric)}</td></>
            },
            median: &s.median,
            lo: &s.lo,
            hi: &s.hi,
        })
        .collect();
    let cell = |row: &BandRow, i: usize, v: f64| {
        let metric = row.metric.unwrap_or("");
        let (text, exact) = family_metric::cell(metric, v);
        let band = band_text(row, i, &|b| family_metric::cell(metric, b).0);
        (
            Some(format!("median {exact}, band {band}")),
            html! { {text} },
        )
    };
    band_table(
        testid,
        html! { <><th>{line}</th><th>{"metric"}</th></> },
        columns,
        rows,
        &cell,
        html! {},
    )
}
