//! Multi-site runs: each site's utilization per run and the transfer matrix of one run.

use yew::prelude::*;

use super::form::select_index;
use crate::web::charts::{plot, ChartView, SiteUtil};
use crate::web::format::fmt_num;
use crate::web::protocol::RunResult;
use crate::web::state::use_app;

#[function_component]
pub fn SitesPanel() -> Html {
    let app = use_app();
    // The run whose transfer matrix is shown (an index into the results).
    let chosen = use_state(|| None::<usize>);
    let sites = app.results.site_names();
    let runs = &app.results.runs;
    if runs.is_empty() || sites.len() < 2 {
        return html! {};
    }
    let chart = plot(SiteUtil::of(runs, sites.clone()));
    // Runs with a matrix (not the idealized scheme).
    let with: Vec<(usize, &RunResult)> = runs
        .iter()
        .enumerate()
        .filter(|(_, r)| !r.report.metrics.transfers.is_empty())
        .map(|(i, r)| (i, r.as_ref()))
        .collect();
    let shown = chosen
        .and_then(|s| with.iter().position(|(i, _)| *i == s))
        .or_else(|| with.iter().position(|(i, _)| *i == app.selected_run))
        .unwrap_or(0);
    let set = chosen.setter();
    let onchange = Callback::from(move |e: Event| set.set(Some(select_index(&e))));
    html! {
        <>
            <ChartView chart={Some(chart)} testid="chart-sites" width={640} height={280} />
            if let Some((_, run)) = with.get(shown) {
                <div class="transfers">
                    <div class="controls">
                        <label>{"transfers of "}
                            <select {onchange} data-testid="transfers-run">
                                { for with.iter().enumerate().map(|(j, (i, r))| html!{ <option value={i.to_string()} selected={j == shown}>{r.label()}</option> }) }
                            </select>
                        </label>
                    </div>
                    { matrix(run, &sites) }
                    <p class="help">{"Off-diagonal cells are jobs that ran away from their home site, shaded by their share of the home site's jobs."}</p>
                </div>
            }
        </>
    }
}

/// `transfers[home][site]` job counts, off-diagonal cells shaded by their share of the row.
fn matrix(run: &RunResult, sites: &[String]) -> Html {
    let m = &run.report.metrics.transfers;
    let name = |k: usize| sites.get(k).cloned().unwrap_or_else(|| format!("site {k}"));
    html! {
        <div class="table-wrap">
        <table class="metrics transfers" data-testid="transfers" data-label={run.label().to_string()}>
            <caption>{"Jobs by home site (rows) and the site they ran at (columns)"}</caption>
            <thead><tr>
                <th>{"home \\ ran at"}</th>
                { for (0..m.len()).map(|k| html!{ <th scope="col">{name(k)}</th> }) }
            </tr></thead>
            <tbody>
                { for m.iter().enumerate().map(|(h, row)| {
                    let total: u64 = row.iter().sum();
                    html!{
                        <tr data-home={h.to_string()}>
                            <th scope="row">{name(h)}</th>
                            { for row.iter().enumerate().map(|(k, &c)| {
                                let share = if total > 0 { c as f64 / total as f64 } else { 0.0 };
                                // Ten shades (CSS classes: the page's CSP forbids inline styles); a
                                // quarter of the row or more is the darkest.
                                let heat = (h != k && c > 0).then(|| format!("heat-{}", ((share * 4.0).min(1.0) * 9.0).round() as u32 + 1));
                                let title = format!("{} → {}: {} jobs ({:.1} % of {})", name(h), name(k), c, share * 100.0, name(h));
                                html!{ <td data-value={c.to_string()} class={classes!((h == k).then_some("diag"), heat)} {title}>{fmt_num(c as f64, 0)}</td> }
                            }) }
                        </tr>
                    }
                }) }
            </tbody>
        </table>
        </div>
    }
}
