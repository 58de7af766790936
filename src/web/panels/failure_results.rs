//! What failures did to each run (issue #41): availability, runs killed, requeues, jobs
//! lost, work lost and goodput, as the CLI's failure table gives them, with the work lost
//! per run as bars and each number's formula.

use yew::prelude::*;

use crate::scenario::failures::{RunFailures, FAILURE_HELP};
use crate::web::charts::{lost_work, plot, ChartView};
use crate::web::format::fmt_num;
use crate::web::state::use_app;

/// The title (hover text) of a column: its formula, from [`FAILURE_HELP`].
fn formula(key: &str) -> String {
    FAILURE_HELP
        .iter()
        .find(|m| m.key == key)
        .map_or(String::new(), |m| m.formula.to_string())
}

/// What the failures did, in words: the run that kept the most of its core time for
/// useful work (highest goodput) against the one that kept the least, with the work and
/// jobs each lost; and, when killed jobs were offered to the grid again, how many of the
/// best run's requeues ran next on another site.
fn finding(runs: &[(&str, &RunFailures)]) -> String {
    // The first of the highest, and of the lowest, in run order.
    let best = runs
        .iter()
        .min_by(|a, b| b.1.goodput.total_cmp(&a.1.goodput));
    let worst = runs
        .iter()
        .min_by(|a, b| a.1.goodput.total_cmp(&b.1.goodput));
    let (Some(&(bl, b)), Some(&(wl, w))) = (best, worst) else {
        return String::new();
    };
    let what = |f: &RunFailures| {
        format!(
            "goodput {} %, {} core-h lost, {} jobs lost",
            fmt_num(f.goodput * 100.0, 2),
            fmt_num(f.work_lost_core_h, 1),
            f.jobs_lost
        )
    };
    let mut text = format!(
        "Nodes were up {} % of the time. {bl} lost least to failures ({})",
        fmt_num(b.availability * 100.0, 2),
        what(b)
    );
    if wl != bl && w.goodput < b.goodput {
        text.push_str(&format!("; {wl} lost most ({})", what(w)));
    }
    text.push('.');
    if let Some(n) = b.requeued_elsewhere {
        text.push_str(&format!(
            " Its killed jobs were offered to the grid again: {n} of its {} requeues ran next on another site.",
            b.requeues
        ));
    }
    text
}

#[function_component]
pub fn FailureResultsPanel() -> Html {
    let app = use_app();
    let runs = &app.results.runs;
    let Some(chart) = lost_work(runs) else {
        return html! {};
    };
    let checkpointed = runs.iter().any(|r| {
        r.report
            .failures
            .as_ref()
            .is_some_and(|f| f.checkpoint.is_some())
    });
    let cut = runs.iter().any(|r| {
        let f = r.report.failures.as_ref();
        f.and_then(|f| f.checkpoint.as_ref())
            .is_some_and(|c| c.cut_at_limit.is_some())
    });
    let elsewhere = runs.iter().any(|r| {
        let f = r.report.failures.as_ref();
        f.is_some_and(|f| f.requeued_elsewhere.is_some())
    });
    let reported: Vec<(&str, &RunFailures)> = runs
        .iter()
        .filter_map(|r| Some((r.label(), r.report.failures.as_ref()?)))
        .collect();
    let finding = finding(&reported);
    let th = |key: &'static str, text: &'static str| html! { <th title={formula(key)} data-key={key}>{text}</th> };
    let row = |label: &str, f: &RunFailures| {
        let c = f.checkpoint.as_ref();
        html! { <tr data-label={label.to_string()}>
            <th scope="row">{label.to_string()}</th>
            <td class="num">{f.downtimes}</td>
            <td class="num">{fmt_num(f.availability * 100.0, 2)}{" %"}</td>
            <td class="num">{f.runs_killed}</td>
            <td class="num">{f.requeues}</td>
            if elsewhere {
                <td class="num">{f.requeued_elsewhere.map_or("–".into(), |n| n.to_string())}</td>
            }
            <td class="num">{f.jobs_lost}</td>
            <td class="num">{fmt_num(f.work_lost_core_h, 1)}</td>
            <td class="num">{fmt_num(f.goodput * 100.0, 2)}{" %"}</td>
            if checkpointed {
                <td class="num">{c.map_or("–".into(), |c| c.checkpoints.to_string())}</td>
                <td class="num">{c.map_or("–".into(), |c| fmt_num(c.overhead_core_h, 1))}</td>
            }
            if cut {
                <td class="num">{c.and_then(|c| c.cut_at_limit).map_or("–".into(), |n| n.to_string())}</td>
                <td class="num">{c.and_then(|c| c.work_unfinished_core_h).map_or("–".into(), |w| fmt_num(w, 1))}</td>
            }
        </tr> }
    };
    html! {
        <section class="failures" data-testid="failure-results">
            <h2>{"Failures"}</h2>
            if !finding.is_empty() {
                <p data-testid="failure-finding">{finding}</p>
            }
            <table class="metrics" data-testid="failure-table">
                <thead><tr>
                    <th>{"algorithm"}</th>
                    { th("downtimes", "down periods") }
                    { th("availability", "availability") }
                    { th("runs_killed", "runs killed") }
                    { th("requeues", "requeues") }
                    if elsewhere {
                        { th("requeued_elsewhere", "requeued elsewhere") }
                    }
                    { th("jobs_lost", "jobs lost") }
                    { th("work_lost_core_h", "work lost (core-h)") }
                    { th("goodput", "goodput") }
                    if checkpointed {
                        <th title="checkpoints written by every run">{"checkpoints"}</th>
                        { th("overhead_core_h", "checkpoint overhead (core-h)") }
                    }
                    if cut {
                        { th("cut_at_limit", "cut at limit") }
                        { th("work_unfinished_core_h", "unfinished (core-h)") }
                    }
                </tr></thead>
                <tbody>
                    { for runs.iter().filter_map(|r| Some(row(r.label(), r.report.failures.as_ref()?))) }
                </tbody>
            </table>
            <ChartView chart={Some(plot(chart))} testid="chart-work-lost" width={640} height={260} />
            { super::results::help_list("What the failure numbers mean", FAILURE_HELP) }
        </section>
    }
}
