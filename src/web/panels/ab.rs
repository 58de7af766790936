//! Per-job A/B of two runs of the result (issue #29): pick A and B, and the worker pairs
//! their jobs (`metrics::compare`): a scatter of each job's wait under A against B, the jobs
//! that gained and lost most — each linked to the step-through's "why did it wait?" under
//! either run — and the Wilcoxon signed-rank test of the per-job differences.

use std::rc::Rc;

use yew::prelude::*;

use super::bars::index_select;
use crate::metrics::compare::JobDiff;
use crate::web::charts::{plot, AbScatter, ChartView};
use crate::web::format::{count, fmt_duration, fmt_num};
use crate::web::hub::WorkerEvent;
use crate::web::protocol::{AbData, FromWorker, ToWorker};
use crate::web::state::{use_app, use_worker_events, AppAction, AppContext};

const HELP: &str = "Each job's wait under run A against run B, paired by job id. d = wait under B − wait under A: below the diagonal (d < 0) the job gained under B, above it lost. The test is Wilcoxon's signed-rank test of d (zeros dropped, average ranks for ties, tie-corrected normal approximation, two-sided p) with the mean of d ± 1.96 standard errors; the jobs of one run depend on each other, so read it as a description of this pair. Whether B beats A across seeds is `gridscope compare A1.csv,A2.csv,… B1.csv,B2.csv,…` (a seeded bootstrap interval and an exact sign-flip test over seed pairs). docs/formats.md";

#[function_component]
pub fn AbPanel() -> Html {
    let app = use_app();
    let a = use_state(|| 0usize);
    let b = use_state(|| 1usize);
    let data = use_state(|| None::<Rc<AbData>>);
    {
        let set = data.setter();
        use_worker_events(&app, move |ev| {
            if let WorkerEvent::Message(m) = ev {
                if let FromWorker::Compared(d) = m.as_ref() {
                    set.set(Some(Rc::new((**d).clone())));
                }
            }
        });
    }
    {
        let set = data.setter();
        use_effect_with(app.results.id, move |_| set.set(None));
    }
    let runs = &app.results.runs;
    if runs.len() < 2 || !app.results.done() {
        return html! {};
    }
    let labels = app.results.labels();
    let (ia, ib) = ((*a).min(runs.len() - 1), (*b).min(runs.len() - 1));
    let compare = {
        let app = app.clone();
        Callback::from(move |_: MouseEvent| app.to_worker(ToWorker::Compare { a: ia, b: ib }))
    };
    let (set_a, set_b) = (a.setter(), b.setter());
    let shown = (*data).clone().filter(|d| d.a == ia && d.b == ib);
    html! {
        <div class="ab" data-testid="ab">
            <h3>{"Per-job A/B"}</h3>
            <div class="controls">
                { index_select("A", &labels, ia, Callback::from(move |i| set_a.set(i))) }
                { index_select("B", &labels, ib, Callback::from(move |i| set_b.set(i))) }
                <button onclick={compare} disabled={ia == ib} data-testid="ab-compare">{"Compare job by job"}</button>
            </div>
            { shown.map(|d| result(&app, d, &labels)).unwrap_or_default() }
            <p class="help">{super::with_doc_links(HELP)}</p>
        </div>
    }
}

fn result(app: &AppContext, d: Rc<AbData>, labels: &[String]) -> Html {
    let c = &d.comparison;
    let (la, lb) = (labels[d.a].clone(), labels[d.b].clone());
    let t = &c.per_job;
    let chart = plot(AbScatter {
        data: (*d).clone(),
        label_a: la.clone(),
        label_b: lb.clone(),
    });
    let (app2, run_b) = (app.clone(), d.b);
    let pick = Callback::from(move |job: i64| {
        app2.send(AppAction::SelectRun(run_b));
        app2.send(AppAction::ExplainJob(job));
    });
    let grouped = |n: u64| fmt_num(n as f64, 0);
    html! {
        <>
            // Durations as the results table writes them; the exact seconds on hover and in
            // the data attributes (the CLI's `compare --json` numbers).
            <p data-testid="ab-summary" data-mean-diff-s={c.mean_diff_s.to_string()} data-median-diff-s={c.median_diff_s.to_string()}
                title={format!("seconds: mean wait {} under {la}, {} under {lb}; B − A mean {}, median {}", c.mean_wait_a_s, c.mean_wait_b_s, c.mean_diff_s, c.median_diff_s)}>{format!(
                "{} paired (only in A: {}, only in B: {}). Mean wait {} under {la}, {} under {lb}; per job B − A: mean {}, median {}. {} waited less under {lb}, {} more, {} the same.",
                count(c.jobs_paired, "job"), grouped(c.only_in_a), grouped(c.only_in_b), fmt_duration(c.mean_wait_a_s), fmt_duration(c.mean_wait_b_s),
                signed(c.mean_diff_s), signed(c.median_diff_s), count(c.gained, "job"), grouped(c.lost), grouped(c.unchanged)
            )}</p>
            <p data-testid="ab-test" title={format!("seconds: mean B − A {}, 95 % interval [{}, {}]", t.mean_diff_s, t.ci95_low_s, t.ci95_high_s)}>{format!(
                "{}: n = {} with a difference, W+ = {}, z = {:.3}, p = {:.3e}; mean B − A {}, 95 % interval [{}, {}].",
                t.test, count(t.n_nonzero, "job"), t.w_plus, t.z, t.p_value, signed(t.mean_diff_s), signed(t.ci95_low_s), signed(t.ci95_high_s)
            )}</p>
            <ChartView chart={Some(chart)} testid="chart-ab" width={520} height={420} onpick={pick} />
            <div class="ab-tables">
                { table(app, &format!("gained most under {lb}"), &c.top_gainers, &d, "ab-gainers") }
                { table(app, &format!("lost most under {lb}"), &c.top_losers, &d, "ab-losers") }
            </div>
        </>
    }
}

/// Top gainers or losers; each job's buttons select its run and explain its wait in the
/// step-through (below the charts), where the Gantt chart of that run is also shown.
fn table(app: &AppContext, title: &str, jobs: &[JobDiff], d: &AbData, testid: &str) -> Html {
    let why = |run: usize, job: i64, text: &str| {
        let app = app.clone();
        let onclick = Callback::from(move |_: MouseEvent| {
            app.send(AppAction::SelectRun(run));
            app.send(AppAction::ExplainJob(job));
        });
        html! { <button class="link" {onclick}>{text.to_string()}</button> }
    };
    html! {
        <table class="ab-jobs" data-testid={testid.to_string()}>
            <caption>{title}</caption>
            <thead><tr><th>{"job"}</th><th>{"wait A"}</th><th>{"wait B"}</th><th>{"B − A"}</th><th>{"why did it wait?"}</th></tr></thead>
            <tbody>
            { for jobs.iter().map(|j| html! {
                <tr>
                    <td>{j.job_id}</td>
                    <td title={format!("{} s", j.wait_a_s)} data-value={j.wait_a_s.to_string()}>{fmt_duration(j.wait_a_s)}</td>
                    <td title={format!("{} s", j.wait_b_s)} data-value={j.wait_b_s.to_string()}>{fmt_duration(j.wait_b_s)}</td>
                    <td title={format!("{:+} s", j.diff_s)} data-value={j.diff_s.to_string()}>{signed(j.diff_s)}</td>
                    <td>{why(d.a, j.job_id, "under A")}{" "}{why(d.b, j.job_id, "under B")}</td>
                </tr>
            }) }
            </tbody>
        </table>
    }
}

/// A difference of durations with its sign: "+4 min 3 s", "−57.0 s", "0.0 s".
fn signed(secs: f64) -> String {
    match secs {
        s if s > 0.0 => format!("+{}", fmt_duration(s)),
        s if s < 0.0 => format!("−{}", fmt_duration(-s)),
        _ => fmt_duration(0.0),
    }
}
