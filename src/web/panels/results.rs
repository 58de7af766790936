//! The results table (sortable, with a column chooser), the run's import report and
//! metrics JSON, and the exports.
//!
//! Columns that say nothing for these runs are hidden by default, and the table says which
//! and why: grid efficiency and occupancy when they equal utilization for every run (one
//! site, CPU allocation), a count or share that is 0 for every run. The chooser overrides
//! that. Hidden cells stay in the page (`hidden`), so copying and the tests still read them.

use std::collections::BTreeSet;
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
    // The columns the visitor chose; `None` until they touch the chooser (then defaults).
    let chosen = use_state(|| None::<BTreeSet<usize>>);
    let r = &app.results;
    if r.runs.is_empty() && !app.run.running {
        return html! {};
    }
    let (defaults, why) = default_columns(&r.runs);
    let shown: BTreeSet<usize> = (*chosen).clone().unwrap_or_else(|| defaults.clone());
    let visible = |m: Metric| shown.contains(&column_index(m));
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
        let hidden = matches!(k, SortKey::Metric(m) if !visible(m));
        html! { <th aria-sort={aria} title={help} {hidden}><button class="sort" onclick={on_sort(k)}>{format!("{title}{arrow}")}</button></th> }
    };
    let toggle = |i: usize| {
        let (chosen, shown) = (chosen.clone(), shown.clone());
        Callback::from(move |_: Event| {
            let mut next = shown.clone();
            if !next.remove(&i) {
                next.insert(i);
            }
            chosen.set(Some(next));
        })
    };
    let reset = {
        let chosen = chosen.clone();
        Callback::from(move |_: MouseEvent| chosen.set(None))
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
                    format!("{name} — {}; platform: {}{load}", crate::web::format::count(r.jobs, "job"), r.platform_note)
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
                    { for sorted(&r.runs, *sort).into_iter().map(|run| row(run, &shown)) }
                </tbody>
            </table>
            </div>
            <details class="columns" data-testid="columns">
                <summary>{ format!("Columns ({} of {} shown)", shown.len(), Metric::COLUMNS.len()) }</summary>
                <div class="column-list">
                { for Metric::COLUMNS.iter().enumerate().map(|(i, &m)| html! {
                    <label class="check" title={m.help()}>
                        <input type="checkbox" data-testid={format!("column-{}", m.key())} checked={shown.contains(&i)} onchange={toggle(i)} />
                        {format!(" {}", m.header().trim_end_matches(" (s)"))}
                    </label>
                }) }
                </div>
                <button class="small" onclick={reset} disabled={chosen.is_none()}>{"Defaults"}</button>
            </details>
            if chosen.is_none() && !why.is_empty() {
                <p class="help" data-testid="columns-hidden">{ format!("Hidden: {}. Columns shows them.", why.join("; ")) }</p>
            }
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

fn row(r: &RunResult, shown: &BTreeSet<usize>) -> Html {
    html! {
        <tr data-label={r.label().to_string()}>
            <th scope="row">{r.label()}</th>
            { for Metric::COLUMNS.iter().enumerate().map(|(i, &m)| {
                let v = m.value(&r.report.metrics);
                let hidden = !shown.contains(&i);
                if m.is_duration() {
                    let exact = format!("{} s", fmt_num(v.as_f64(), m.decimals()));
                    html!{ <td data-key={m.key()} data-value={v.json()} title={exact} {hidden}>{fmt_duration(v.as_f64())}</td> }
                } else {
                    html!{ <td data-key={m.key()} data-value={v.json()} title={count_note(m, v.as_f64(), &r.report.metrics)} {hidden}>{fmt_num(v.as_f64(), m.decimals())}</td> }
                }
            }) }
        </tr>
    }
}

/// A count's cell says what it counts, in this run's numbers.
fn count_note(m: Metric, n: f64, all: &crate::metrics::Metrics) -> String {
    let n = fmt_num(n, 0);
    match m {
        Metric::Finished => format!("{n} jobs ran (to their end, or killed at their estimate)"),
        Metric::Killed => format!("{n} of the {} jobs that ran were stopped at their estimate", fmt_num(all.jobs_finished as f64, 0)),
        Metric::Rejected => format!("{n} jobs wider than every site they could go to: reported, not run"),
        Metric::Skipped => format!("{n} records of the log were skipped at import, not simulated (runtime ≤ 0, processors ≤ 0, submit −1): the Workload import report below gives each reason"),
        _ => m.help(),
    }
}

fn column_index(m: Metric) -> usize {
    Metric::COLUMNS.iter().position(|&c| c == m).unwrap_or(0)
}

/// The columns shown unless the visitor chooses, and why the others are hidden.
fn default_columns(runs: &[Rc<RunResult>]) -> (BTreeSet<usize>, Vec<String>) {
    let all = |f: &dyn Fn(&crate::metrics::Metrics) -> bool| {
        !runs.is_empty() && runs.iter().all(|r| f(&r.report.metrics))
    };
    let mut hide: Vec<(Vec<Metric>, String)> = Vec::new();
    if all(&|m| m.grid_efficiency == m.utilization && m.occupancy == m.utilization) {
        hide.push((
            vec![Metric::GridEfficiency, Metric::Occupancy],
            "grid efficiency and occupancy (equal to utilization in every run)".into(),
        ));
    }
    let zero: Vec<Metric> = [
        Metric::FractionTransferred,
        Metric::Killed,
        Metric::Rejected,
        Metric::Skipped,
    ]
    .into_iter()
    .filter(|&c| all(&|m| c.get(m) == 0.0))
    .collect();
    if !zero.is_empty() {
        let names: Vec<&str> = zero.iter().map(|m| m.header()).collect();
        hide.push((zero, format!("{} (0 in every run)", names.join(", "))));
    }
    let hidden: Vec<Metric> = hide.iter().flat_map(|h| h.0.iter().copied()).collect();
    let shown = (0..Metric::COLUMNS.len())
        .filter(|&i| !hidden.contains(&Metric::COLUMNS[i]))
        .collect();
    (shown, hide.into_iter().map(|h| h.1).collect())
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
                <button onclick={export(ExportKind::BatsimJobsCsv)} disabled={!r.done()} title="Batsim's jobs.csv schema, which evalys reads (docs/formats.md)">{format!("Export Batsim jobs.csv ({selected})")}</button>
                <button onclick={export(ExportKind::WorkloadSwf)} disabled={!r.done()}>{"Export workload as SWF"}</button>
                <button onclick={export(ExportKind::WorkloadBatsimJson)} disabled={!r.done()}>{"Export workload as Batsim JSON"}</button>
            </div>
            if let (true, Some(s)) = (r.done(), &r.scenario) {
                <super::ExportForCluster scenario={s.clone()} />
            }
        </>
    }
}

/// Each metric's formula and source.
#[function_component]
pub fn MetricHelp() -> Html {
    help_list("What the metrics mean", METRIC_HELP)
}

/// A folded list of numbers' keys with their formulas and sources: the scheduling metrics',
/// the failures' and the energy's help under their tables.
pub fn help_list(summary: &str, help: &[crate::metrics::MetricHelp]) -> Html {
    html! {
        <details class="metric-help">
            <summary>{summary.to_string()}</summary>
            <dl>
                { for help.iter().map(|m| html!{
                    <>
                        <dt><code>{m.key}</code></dt>
                        <dd>{m.formula}{ if m.source.is_empty() { html!{} } else { html!{ <>{" — "}{ super::with_doc_links(m.source) }</> } } }</dd>
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
