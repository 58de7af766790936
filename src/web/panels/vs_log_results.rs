//! Each run against the log's real waits (issue #42, docs/slurm.md "Against the log"): shown
//! whenever the dropped trace records its jobs' waits (SWF field 3, sacct Start − Submit),
//! as the CLI's `--vs-log` table gives them, with both moving averages drawn and each
//! number's formula.

use yew::prelude::*;

use crate::metrics::vs_log::VS_LOG_HELP;
use crate::metrics::VsLog;
use crate::web::charts::{plot, ChartView, MovingWaits};
use crate::web::format::fmt_num;
use crate::web::state::use_app;

/// The title (hover text) of a column: its formula, from [`VS_LOG_HELP`].
fn formula(key: &str) -> String {
    VS_LOG_HELP
        .iter()
        .find(|m| m.key == key)
        .map_or(String::new(), |m| m.formula.to_string())
}

fn hours(s: f64) -> String {
    fmt_num(s / 3600.0, 2)
}

/// Users the page lists against the log (those with the most compared jobs).
const USERS_SHOWN: usize = 30;

/// One group of jobs (a partition or a user): its number, compared jobs, logged mean wait.
type Group = (i32, u64, f64);

/// A table of groups (`first`'s, in its order) with the log's mean wait beside each run's
/// (`sim`: a run's mean wait of a group, "–" when the run has none of its jobs).
fn breakdown(
    with: &[(&str, &VsLog)],
    (what, testid, column_help): (String, &'static str, &'static str),
    first: Vec<Group>,
    sim: impl Fn(&VsLog, i32) -> String,
) -> Html {
    let column = testid.trim_start_matches("vs-log-").trim_end_matches('s');
    html! {
        <details class={testid} data-testid={testid}>
            <summary>{format!("{what}: mean wait in hours, the log's and each run's")}</summary>
            <table class="metrics">
                <thead><tr>
                    <th title={column_help}>{column}</th>
                    <th>{"jobs"}</th>
                    <th>{"log"}</th>
                    { for with.iter().map(|(label, _)| html! { <th>{label.to_string()}</th> }) }
                </tr></thead>
                <tbody>
                    { for first.iter().map(|&(id, jobs, log)| html! {
                        <tr data-group={id.to_string()}>
                            <th scope="row">{id}</th>
                            <td class="num">{jobs}</td>
                            <td class="num">{hours(log)}</td>
                            { for with.iter().map(|(_, v)| html! { <td class="num">{sim(v, id)}</td> }) }
                        </tr>
                    }) }
                </tbody>
            </table>
        </details>
    }
}

/// The log's mean wait per partition beside each run's, when the jobs are in several; and
/// per user (the [`USERS_SHOWN`] with the most jobs), when of several.
fn by_group(with: &[(&str, &VsLog)]) -> Html {
    let Some((_, first)) = with.first() else {
        return html! {};
    };
    // By number: a run that did not run some jobs may lack a group.
    let partition = |v: &VsLog, p: i32| {
        v.by_partition
            .iter()
            .find(|g| g.partition == p)
            .map_or("–".into(), |g| hours(g.simulated_mean_wait_s))
    };
    let user = |v: &VsLog, u: i32| {
        v.by_user
            .iter()
            .find(|g| g.user == u)
            .map_or("–".into(), |g| hours(g.simulated_mean_wait_s))
    };
    let partitions: Vec<Group> = first
        .by_partition
        .iter()
        .map(|g| (g.partition, g.jobs, g.logged_mean_wait_s))
        .collect();
    let mut users: Vec<Group> = first
        .by_user
        .iter()
        .map(|g| (g.user, g.jobs, g.logged_mean_wait_s))
        .collect();
    let all_users = users.len();
    users.sort_by_key(|g| (std::cmp::Reverse(g.1), g.0));
    users.truncate(USERS_SHOWN);
    html! { <>
        if !partitions.is_empty() {
            { breakdown(with, (format!("By partition ({})", partitions.len()), "vs-log-partitions", "SWF field 16 (sacct's Partition, numbered)"), partitions, partition) }
        }
        if !users.is_empty() {
            { breakdown(with, (format!("By user (the {} with the most jobs of {all_users})", users.len()), "vs-log-users", "SWF field 12 (sacct's User, numbered in order of first appearance)"), users, user) }
        }
    </> }
}

#[function_component]
pub fn VsLogResultsPanel() -> Html {
    let app = use_app();
    let runs = &app.results.runs;
    let with: Vec<(&str, &VsLog)> = runs
        .iter()
        .filter_map(|r| Some((r.label(), r.report.vs_log.as_ref()?)))
        .collect();
    let Some((_, first)) = with.first() else {
        return html! {};
    };
    let th = |key: &'static str, text: &'static str| html! { <th title={formula(key)} data-key={key}>{text}</th> };
    let row = |label: &str, v: &VsLog| {
        let mape = v
            .moving_mape_percent
            .map_or(String::new(), |p| p.to_string());
        html! { <tr data-label={label.to_string()} data-mean-error-s={v.mean_error_s.to_string()} data-mape={mape} data-jobs={v.jobs.to_string()}>
            <th scope="row">{label.to_string()}</th>
            <td class="num">{hours(v.simulated_mean_wait_s)}</td>
            <td class="num">{hours(v.mean_error_s)}</td>
            <td class="num">{hours(v.mean_abs_error_s)}</td>
            <td class="num">{fmt_num(v.within_hour * 100.0, 1)}{" %"}</td>
            <td class="num">{v.moving_mape_percent.map_or("–".into(), |p| format!("{} %", fmt_num(p, 1)))}</td>
        </tr> }
    };
    let chart = MovingWaits::of(runs);
    html! {
        <section class="vs-log" data-testid="vs-log-results">
            <h2>{"Against the log"}</h2>
            <p class="hint">
                {format!(
                    "The trace records how long its jobs really waited: {} jobs compared ({} without a logged wait, {} not run here). In the log they waited {} h on average.",
                    first.jobs, first.jobs_without_logged_wait, first.jobs_not_run, hours(first.logged_mean_wait_s)
                )}
            </p>
            <table class="metrics" data-testid="vs-log-table">
                <thead><tr>
                    <th>{"algorithm"}</th>
                    <th title="mean wait of the compared jobs in this run">{"mean wait (h)"}</th>
                    { th("vs_log.mean_error_s", "mean error (h)") }
                    { th("vs_log.mean_abs_error_s", "mean |error| (h)") }
                    { th("vs_log.within_hour", "within 1 h") }
                    { th("vs_log.moving_mape_percent", "14-day MAPE") }
                </tr></thead>
                <tbody>
                    { for with.iter().map(|(label, v)| row(label, v)) }
                </tbody>
            </table>
            { by_group(&with) }
            if let Some(chart) = chart {
                <ChartView chart={Some(plot(chart))} testid="chart-moving-wait" width={640} height={280} />
            } else {
                <p class="hint">{"The trace spans less than 14 days and 96 hours: no moving average to draw."}</p>
            }
            { super::results::help_list("What the numbers against the log mean", VS_LOG_HELP) }
        </section>
    }
}
