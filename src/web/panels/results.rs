//! The results table (sortable), the run's import report and metrics JSON, and the exports.

use std::rc::Rc;

use yew::prelude::*;

use crate::metrics::METRIC_HELP;
use crate::web::format::{fmt_duration, fmt_num};
use crate::web::metric::Metric;
use crate::web::protocol::{ExportKind, RunResult, ToWorker};
use crate::web::state::{use_app, AppAction, AppContext};

#[derive(Clone, Copy, PartialEq, Eq)]
enum SortKey {
    Label,
    Metric(Metric),
}

/// The column the table is sorted by (none: run order) and whether descending.
type Sort = (Option<SortKey>, bool);

#[function_component]
pub fn ResultsPanel() -> Html {
    let app = use_app();
    let sort = use_state(|| (None, false));
    let r = &app.results;
    if r.runs.is_empty() && !app.run.running {
        return html! {};
    }
    let on_sort = {
        let sort = sort.clone();
        move |k: SortKey| {
            let sort = sort.clone();
            Callback::from(move |_: MouseEvent| {
                let desc = sort.0 == Some(k) && !sort.1;
                sort.set((Some(k), desc));
            })
        }
    };
    let th = |k: SortKey, title: &str, help: String| {
        let (arrow, aria) = match (sort.0 == Some(k), sort.1) {
            (true, true) => (" ▼", "descending"),
            (true, false) => (" ▲", "ascending"),
            (false, _) => ("", "none"),
        };
        html! { <th aria-sort={aria} title={help}><button class="sort" onclick={on_sort(k)}>{format!("{title}{arrow}")}</button></th> }
    };
    // The header names the scenario these numbers came from, never the one in the form.
    let ran = r.scenario.as_deref();
    let name = ran.map_or(app.scenario.name.as_str(), |s| s.name.as_str());
    let stale = ran.is_some_and(|s| *s != app.scenario);
    html! {
        <>
            <h2>{"Results"}</h2>
            if stale {
                <p class="stale" role="status" data-testid="stale-results">
                    <strong>{"Out of date — Run to update. "}</strong>
                    { stale_note(name, &app.scenario.name) }
                </p>
            }
            <p class="help" data-testid="run-info" title={offered_load_help()}>{
                if r.platform.is_some() {
                    let load = match r.offered_load {
                        Some(l) if l > 1.0 => format!("; offered load {} — above 1 the queues grow all run, so waits measure the backlog", fmt_num(l, 2)),
                        Some(l) => format!("; offered load {}", fmt_num(l, 2)),
                        None => String::new(),
                    };
                    format!("{name} — {} jobs; platform: {}{load}", fmt_num(r.jobs as f64, 0), r.platform_note)
                } else {
                    format!("{name} — preparing the workload…")
                }
            }</p>
            <div class="table-wrap">
            <table data-testid="results" class={classes!("metrics", stale.then_some("stale-numbers"))}>
                <thead><tr>
                    { th(SortKey::Label, "algorithm", "Click a header to sort".into()) }
                    { for Metric::COLUMNS.iter().map(|&m| th(SortKey::Metric(m), m.header().trim_end_matches(" (s)"), m.help())) }
                </tr></thead>
                <tbody>
                    { for sorted(&r.runs, *sort).into_iter().map(row) }
                </tbody>
            </table>
            </div>
            { reports(&app) }
        </>
    }
}

/// What the out-of-date mark says: which scenario the numbers below are from.
fn stale_note(ran: &str, form: &str) -> String {
    if ran == form {
        format!("The numbers below are from “{ran}” before the changes made in the form since.")
    } else {
        format!("The numbers below are from “{ran}”, not from “{form}” now in the form.")
    }
}

fn sorted(runs: &[Rc<RunResult>], (key, desc): Sort) -> Vec<&RunResult> {
    let mut rows: Vec<&RunResult> = runs.iter().map(|r| r.as_ref()).collect();
    match key {
        None => return rows,
        Some(SortKey::Label) => rows.sort_by(|a, b| a.label().cmp(b.label())),
        Some(SortKey::Metric(m)) => rows.sort_by(|a, b| {
            m.get(&a.report.metrics)
                .total_cmp(&m.get(&b.report.metrics))
        }),
    }
    if desc {
        rows.reverse();
    }
    rows
}

fn row(r: &RunResult) -> Html {
    html! {
        <tr data-label={r.label().to_string()}>
            <th scope="row">{r.label()}</th>
            { for Metric::COLUMNS.iter().map(|&m| {
                let v = m.value(&r.report.metrics);
                if m.is_duration() {
                    let exact = format!("{} s", fmt_num(v.as_f64(), m.decimals()));
                    html!{ <td data-key={m.key()} data-value={v.json()} title={exact}>{fmt_duration(v.as_f64())}</td> }
                } else {
                    html!{ <td data-key={m.key()} data-value={v.json()}>{fmt_num(v.as_f64(), m.decimals())}</td> }
                }
            }) }
        </tr>
    }
}

/// The import report, the metrics JSON and the export buttons.
fn reports(app: &AppContext) -> Html {
    let r = &app.results;
    let export = |what: ExportKind| {
        let app = app.clone();
        Callback::from(move |_: MouseEvent| {
            if app.results.done() {
                app.to_worker(ToWorker::Export {
                    what,
                    run: app.selected_run,
                });
            } else {
                app.send(AppAction::Error("Exports need a finished run.".into()));
            }
        })
    };
    let selected = r.runs.get(app.selected_run).map_or("", |r| r.label());
    html! {
        <>
            if !r.import_summary.is_empty() {
                <details><summary>{"Workload import report"}</summary><pre>{&r.import_summary}</pre></details>
            }
            if let Some(j) = &r.report_json {
                <details><summary>{"Metrics JSON (the CLI's --json output)"}</summary><pre data-testid="report-json">{j.to_string()}</pre></details>
            }
            <div class="exports">
                <button onclick={app.callback(|_: MouseEvent| AppAction::ExportJson)} disabled={!r.done()}>{"Export metrics JSON"}</button>
                <button onclick={export(ExportKind::JobsCsv)} disabled={!r.done()}>{format!("Export per-job CSV ({selected})")}</button>
                <button onclick={export(ExportKind::WorkloadSwf)} disabled={!r.done()}>{"Export workload as SWF"}</button>
            </div>
        </>
    }
}

/// Each metric's formula and source.
#[function_component]
pub fn MetricHelp() -> Html {
    html! {
        <details class="metric-help">
            <summary>{"What the metrics mean"}</summary>
            <dl>
                { for METRIC_HELP.iter().map(|m| html!{
                    <>
                        <dt><code>{m.key}</code></dt>
                        <dd>{m.formula}{ if m.source.is_empty() { String::new() } else { format!(" — {}", m.source) } }</dd>
                    </>
                }) }
            </dl>
        </details>
    }
}

/// The offered load's formula and source, as `gridscope help metrics` gives it.
fn offered_load_help() -> String {
    METRIC_HELP
        .iter()
        .find(|m| m.key == "offered_load")
        .map(|m| format!("Offered load: {} [{}]", m.formula, m.source))
        .unwrap_or_default()
}
