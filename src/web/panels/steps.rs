//! "Step through": one site of one run of the scenario, instant by instant, forward and
//! back, as a picture (the running jobs ahead by estimates, the jobs started now — from the
//! head or backfilled — and the head's reservation at its shadow time) and in words (what
//! ended, arrived and started and why, the queue, the running jobs). Any workload: a window
//! starting at a chosen time (the run before it is simulated without frames). Buttons jump
//! to the next decision, the next backfill or the next start of a job. And "why did this
//! job wait?" (`scenario::explain`): each instant between its submission and its start and
//! what held it back — asked here, or by clicking a job in a chart. The worker computes
//! frames and explanations; the page keeps the frames, so going back costs nothing.

use std::rc::Rc;

use yew::prelude::*;

use super::form::{input_value, select_value, DraftInput};
use crate::scenario::explain::Explanation;
use crate::scenario::steps::StepFrame;
use crate::web::charts::{plot, ChartView, StepPicture};
use crate::web::format::{fmt_duration, fmt_num};
use crate::web::hub::WorkerEvent;
use crate::web::protocol::{FromWorker, ToWorker};
use crate::web::state::{use_app, use_worker_events};

/// Frames the worker computes at most from the window's start.
const MAX_STEPS: usize = 2_000;

#[derive(Clone, PartialEq, Default)]
struct StepState {
    /// The run chosen; none chosen: the first EASY run (the one that backfills), else the
    /// first.
    algorithm: Option<usize>,
    site: usize,
    /// The window's start, seconds after the first submission (as typed).
    from: String,
    busy: bool,
    frames: Rc<Vec<StepFrame>>,
    /// The site the frames are of, by name.
    site_name: String,
    at: usize,
    error: Option<String>,
    /// The job "next start of job N" and "why did it wait?" ask about (as typed).
    job: String,
    explaining: bool,
    explanation: Option<Rc<Explanation>>,
    /// Folded away by the visitor (open at first).
    closed: bool,
}

enum StepMsg {
    Algorithm(String),
    Site(String),
    From(String),
    Job(String),
    Started,
    Go(isize),
    To(String),
    /// The next frame (after the current one) that passes the test.
    Next(fn(&StepFrame, i64) -> bool),
    Explaining(i64),
    Worker(WorkerEvent),
    Toggle(bool),
}

impl Reducible for StepState {
    type Action = StepMsg;

    fn reduce(self: Rc<Self>, msg: StepMsg) -> Rc<Self> {
        let mut s = (*self).clone();
        let last = s.frames.len().saturating_sub(1);
        match msg {
            StepMsg::Algorithm(v) => s.algorithm = v.parse().ok(),
            StepMsg::Site(v) => s.site = v.parse().unwrap_or(0),
            StepMsg::From(v) => s.from = v,
            StepMsg::Job(v) => s.job = v,
            StepMsg::Started => {
                s.busy = true;
                s.error = None;
            }
            StepMsg::Go(d) => s.at = s.at.saturating_add_signed(d).min(last),
            StepMsg::To(v) => s.at = v.parse::<usize>().unwrap_or(0).min(last),
            StepMsg::Next(test) => {
                let job = s.job.trim().parse::<i64>().unwrap_or(i64::MAX);
                match s.frames.iter().skip(s.at + 1).position(|f| test(f, job)) {
                    Some(k) => {
                        s.at += 1 + k;
                        s.error = None;
                    }
                    None => {
                        s.error = Some(format!(
                            "no such instant among the {} computed from the window's start: start the window later",
                            s.frames.len()
                        ))
                    }
                }
            }
            StepMsg::Explaining(job) => {
                s.explaining = true;
                s.closed = false;
                s.job = job.to_string();
                s.error = None;
            }
            StepMsg::Toggle(open) => s.closed = !open,
            StepMsg::Worker(WorkerEvent::Restarted) => {
                s.busy = false;
                s.explaining = false;
            }
            StepMsg::Worker(WorkerEvent::Message(m)) => match m.as_ref() {
                FromWorker::Steps { frames, .. } => {
                    s.busy = false;
                    s.frames = Rc::new(frames.clone());
                    s.at = 0;
                    if frames.is_empty() {
                        s.error =
                            Some("nothing happens at that site from the window's start".into());
                    }
                }
                FromWorker::StepsFailed { message } => {
                    // The frames of an earlier request are not this one's: they go.
                    s.busy = false;
                    s.frames = Rc::default();
                    s.error = Some(message.clone());
                }
                FromWorker::Explained { explanation } => {
                    s.explaining = false;
                    s.explanation = Some(Rc::new(explanation.clone()));
                }
                FromWorker::ExplainFailed { message } => {
                    s.explaining = false;
                    s.explanation = None;
                    s.error = Some(message.clone());
                }
                _ => return self,
            },
            StepMsg::Worker(_) => return self,
        }
        Rc::new(s)
    }
}

fn any_start(f: &StepFrame, _: i64) -> bool {
    !f.started.is_empty()
}

fn backfill(f: &StepFrame, _: i64) -> bool {
    f.started.iter().any(|s| s.backfilled)
}

fn start_of(f: &StepFrame, job: i64) -> bool {
    f.started.iter().any(|s| s.job == job)
}

#[function_component]
pub fn StepPanel() -> Html {
    let app = use_app();
    let state = use_reducer(StepState::default);
    {
        let d = state.dispatcher();
        use_worker_events(&app, move |ev| d.dispatch(StepMsg::Worker(ev)));
    }
    // A job clicked in a chart: explain it in the run that drew it.
    {
        let (app, d) = (app.clone(), state.dispatcher());
        use_effect_with(app.explain, move |asked| {
            if let Some((run, job, _)) = *asked {
                d.dispatch(StepMsg::Explaining(job));
                let scenario = app
                    .results
                    .scenario
                    .as_deref()
                    .cloned()
                    .unwrap_or_else(|| app.scenario.clone());
                app.to_worker(ToWorker::Explain {
                    scenario,
                    algorithm: run,
                    job,
                });
                // After the panel has opened and drawn the question.
                gloo::timers::callback::Timeout::new(50, || super::landing::reveal_id("steps-why"))
                    .forget();
            }
        });
    }
    let on = |f: fn(String) -> StepMsg| {
        let d = state.dispatcher();
        Callback::from(move |e: Event| d.dispatch(f(input_value(&e))))
    };
    let sites: Vec<String> = app
        .results
        .platform
        .as_ref()
        .map(|p| p.sites.iter().map(|s| s.name.clone()).collect())
        .unwrap_or_default();
    let algorithm = state.algorithm.unwrap_or_else(|| {
        app.scenario
            .algorithms
            .iter()
            .position(|a| a.local == crate::policy::local::LocalPolicyKind::Easy)
            .unwrap_or(0)
    });
    let start = start_steps(
        &app,
        state.dispatcher(),
        algorithm,
        state.site,
        state.from.clone(),
    );
    let why = ask_why(&app, state.dispatcher(), algorithm, state.job.clone());
    let ontoggle = {
        let d = state.dispatcher();
        Callback::from(move |e: Event| {
            let open = e
                .target_unchecked_into::<web_sys::HtmlDetailsElement>()
                .open();
            d.dispatch(StepMsg::Toggle(open));
        })
    };
    let n = state.frames.len();
    let site_name = sites
        .get(state.site)
        .cloned()
        .unwrap_or_else(|| format!("site {}", state.site));
    html! {
        <details class="steps" data-testid="steps" open={!state.closed} {ontoggle}>
            <summary>{"Step through one site, and why a job waited"}</summary>
            <p class="help">{"Watch one site decide, instant by instant: what ended, arrived and started, and why a job started — at the head of the queue, or backfilled (EASY: it ends, by its estimate, before the head's shadow time, or it runs on the extra units the head leaves free). The picture shows the running jobs ahead by their estimates, the jobs started now (green from the head, orange backfilled) and the head's reservation at its shadow time (pink). Any trace: start the window where you want to look; the first 2,000 instants from there are kept."}</p>
            <div class="controls">
                <label for="steps-alg">{"run "}</label>
                <select id="steps-alg" data-testid="steps-alg" onchange={
                    let d = state.dispatcher();
                    Callback::from(move |e: Event| d.dispatch(StepMsg::Algorithm(select_value(&e))))
                }>
                    { for app.scenario.algorithms.iter().enumerate().map(|(i, a)| html!{
                        <option value={i.to_string()} selected={i == algorithm}>{a.label()}</option>
                    }) }
                </select>
                <label for="steps-site">{" site: "}</label>
                if sites.len() > 1 {
                    <select id="steps-site" data-testid="steps-site" onchange={
                        let d = state.dispatcher();
                        Callback::from(move |e: Event| d.dispatch(StepMsg::Site(select_value(&e))))
                    }>
                        { for sites.iter().enumerate().map(|(i, name)| html!{
                            <option value={i.to_string()} selected={i == state.site}>{name}</option>
                        }) }
                    </select>
                } else {
                    <span data-testid="steps-site-name">{ sites.first().cloned().unwrap_or_else(|| "the only site".into()) }</span>
                }
                <label for="steps-from">{" from (s) "}</label>
                <DraftInput id="steps-from" testid="steps-from" kind="number" min="0" value={state.from.clone()} onchange={on(StepMsg::From)} />
                <button class="small primary" data-testid="steps-run" disabled={state.busy} onclick={start}>{"Step through"}</button>
                if state.busy { <span class="help">{" computing…"}</span> }
            </div>
            if let Some(e) = &state.error { <p class="error" role="alert" data-testid="steps-error">{e}</p> }
            if n > 0 { { navigation(&state, &site_name) } }
            <div class="controls" id="steps-why">
                <label for="steps-job">{"job "}</label>
                <DraftInput id="steps-job" testid="steps-job" kind="number" min="0" value={state.job.clone()} onchange={on(StepMsg::Job)} />
                <button class="small" data-testid="steps-why" disabled={state.explaining} onclick={why}>{"Why did it wait?"}</button>
                if state.explaining { <span class="help">{" following the job…"}</span> }
            </div>
            if let Some(x) = &state.explanation { { explanation_view(x) } }
        </details>
    }
}

/// The way through the frames (back, forward, the next decision, backfill or start of a
/// job, a slider), the picture of the instant and its words.
fn navigation(state: &UseReducerHandle<StepState>, site_name: &str) -> Html {
    let n = state.frames.len();
    let send = |msg: fn() -> StepMsg| {
        let d = state.dispatcher();
        Callback::from(move |_: MouseEvent| d.dispatch(msg()))
    };
    let frame = &state.frames[state.at];
    html! {
        <>
            <div class="controls">
                <button class="small" data-testid="steps-prev" disabled={state.at == 0} onclick={send(|| StepMsg::Go(-1))}>{"◀ back"}</button>
                <button class="small" data-testid="steps-next" disabled={state.at + 1 >= n} onclick={send(|| StepMsg::Go(1))}>{"forward ▶"}</button>
                <button class="small" data-testid="steps-next-decision" onclick={send(|| StepMsg::Next(any_start))}>{"next decision"}</button>
                <button class="small" data-testid="steps-next-backfill" onclick={send(|| StepMsg::Next(backfill))}>{"next backfill"}</button>
                <button class="small" data-testid="steps-next-job" onclick={send(|| StepMsg::Next(start_of))} title="The next instant the job below starts">{"next start of job"}</button>
                <input type="range" min="0" max={(n - 1).to_string()} value={state.at.to_string()} aria-label="instant" oninput={
                    let d = state.dispatcher();
                    Callback::from(move |e: InputEvent| d.dispatch(StepMsg::To(e.target_unchecked_into::<web_sys::HtmlInputElement>().value())))
                } />
                <span data-testid="steps-position">{format!(" instant {} of {n}", state.at + 1)}</span>
            </div>
            <ChartView chart={Some(plot(StepPicture { frame: frame.clone(), site: site_name.to_string() }))}
                testid="chart-step" width={720} height={300} onpick={{
                    let d = state.dispatcher();
                    Callback::from(move |job: i64| d.dispatch(StepMsg::Job(job.to_string())))
                }} />
            { frame_view(frame) }
        </>
    }
}

/// "Step through": the frames of the run from the window's start (a bad start is said).
fn start_steps(
    app: &crate::web::state::AppContext,
    d: UseReducerDispatcher<StepState>,
    algorithm: usize,
    site: usize,
    from: String,
) -> Callback<MouseEvent> {
    let app = app.clone();
    Callback::from(move |_: MouseEvent| {
        let from_s = match from.trim() {
            "" => 0.0,
            t => match t.parse::<f64>() {
                Ok(v) if v.is_finite() && v >= 0.0 => v,
                _ => {
                    d.dispatch(StepMsg::Worker(WorkerEvent::Message(Rc::new(
                        FromWorker::StepsFailed {
                            message: format!(
                                "the window's start is a number of seconds from 0, not {t:?}"
                            ),
                        },
                    ))));
                    return;
                }
            },
        };
        d.dispatch(StepMsg::Started);
        app.to_worker(ToWorker::Steps {
            scenario: app.scenario.clone(),
            algorithm,
            site,
            from_s,
            max_steps: MAX_STEPS,
        });
    })
}

/// "Why did it wait?" for the job typed.
fn ask_why(
    app: &crate::web::state::AppContext,
    d: UseReducerDispatcher<StepState>,
    algorithm: usize,
    job: String,
) -> Callback<MouseEvent> {
    let app = app.clone();
    Callback::from(move |_: MouseEvent| match job.trim().parse::<i64>() {
        Ok(id) => {
            d.dispatch(StepMsg::Explaining(id));
            app.to_worker(ToWorker::Explain {
                scenario: app.scenario.clone(),
                algorithm,
                job: id,
            });
        }
        Err(_) => d.dispatch(StepMsg::Worker(WorkerEvent::Message(Rc::new(
            FromWorker::ExplainFailed {
                message: format!("a job is named by its id (SWF field 1), not {job:?}"),
            },
        )))),
    })
}

fn frame_view(f: &StepFrame) -> Html {
    let head = f.head.map_or(
        "no reservation (the head fits, or the policy makes none)".to_string(),
        |(job, shadow, extra)| {
            format!(
                "job {job} waits for its shadow time {}; {extra} extra unit(s) may run past it",
                fmt_duration(shadow)
            )
        },
    );
    html! {
        <div class="step-frame" data-testid="steps-frame" data-time={f.time_s.to_string()} data-free={f.free.to_string()}>
            <p><strong title={format!("{} s", f.time_s)}>{format!("t = {}", fmt_duration(f.time_s))}</strong>{format!(" — {} of {} units free", f.free, f.capacity)}</p>
            <ul data-testid="steps-events">{ for f.events.iter().map(|e| html!{ <li>{e}</li> }) }</ul>
            <p data-testid="steps-head">{"Head: "}{head}</p>
            <div class="table-wrap">
            <table class="metrics" data-testid="steps-queue">
                <caption>{format!("queue ({}, in the policy's order)", crate::web::format::count(f.queue.len() as u64, "job"))}</caption>
                <thead><tr><th>{"job"}</th><th>{"units"}</th><th>{"estimate"}</th></tr></thead>
                <tbody>{ for f.queue.iter().take(50).map(|(id, u, est)| html!{ <tr><td>{id}</td><td>{u}</td><td title={format!("{est} s")}>{fmt_duration(*est)}</td></tr> }) }</tbody>
            </table>
            <table class="metrics" data-testid="steps-running">
                <caption>{format!("running ({}, soonest predicted end first)", crate::web::format::count(f.running.len() as u64, "job"))}</caption>
                <thead><tr><th>{"job"}</th><th>{"units"}</th><th>{"predicted end"}</th></tr></thead>
                <tbody>{ for f.running.iter().take(50).map(|(id, u, end)| html!{ <tr><td>{id}</td><td>{u}</td><td title={format!("{end} s")}>{fmt_duration(*end)}</td></tr> }) }</tbody>
            </table>
            </div>
        </div>
    }
}

fn explanation_view(x: &Explanation) -> Html {
    let total = x.start_s.map(|s| s - x.submit_s);
    html! {
        <div class="why" data-testid="steps-explanation" data-job={x.job.to_string()}>
            <p><strong>{format!("Job {} under {}", x.job, x.algorithm)}</strong>
                {format!(": {}, estimate {}, submitted at {}", crate::web::format::count(x.procs as u64, "processor"), fmt_duration(x.estimate_s), fmt_duration(x.submit_s))}
                { total.map(|w| format!("; waited {}", fmt_duration(w))).unwrap_or_default() }</p>
            if x.spans.is_empty() && x.start_s.is_some() && x.boot_wait_s.is_none() { <p>{"It did not wait: it started when it was submitted."}</p> }
            <ol class="why-spans">
            { for x.spans.iter().map(|s| {
                let share = total.filter(|t| *t > 0.0).map(|t| (s.to_s - s.from_s).max(0.0) / t * 100.0);
                let when = if s.instants == 1 { format!("at {}", fmt_duration(s.from_s)) } else {
                    format!("from {} to {} ({} scheduling instants; the details are the last one's)", fmt_duration(s.from_s), fmt_duration(s.to_s), fmt_num(s.instants as f64, 0))
                };
                let site = if x.platform_sites > 1 { format!(" at {}", s.site) } else { String::new() };
                html!{ <li data-kind={reason_kind(&s.reason)}><span class="help">{format!("{when}{site}{}: ", share.map(|p| format!(", {} % of the wait", fmt_num(p, 0))).unwrap_or_default())}</span>{s.reason.text(&fmt_duration)}</li> }
            }) }
            </ol>
            if x.truncated { <p class="help">{"… the first 200 changes of reason only (the CLI's gridscope explain gives the same)."}</p> }
            { outcome_line(x) }
        </div>
    }
}

/// How the job's wait ended, durations as the results table writes them and the exact
/// seconds on hover (and in `data-start-s`).
fn outcome_line(x: &Explanation) -> Html {
    match x.start_s {
        Some(start) => html! {
            <p data-testid="steps-outcome" data-start-s={start.to_string()} title={format!("{} (seconds from the first submission)", x.outcome)}>
                {format!("started at {} after a wait of {}{} on {}.", fmt_duration(start), fmt_duration(start - x.submit_s),
                    x.boot_wait_s.map(|b| format!(", {} of it for its nodes to boot", fmt_duration(b))).unwrap_or_default(), x.site)}
            </p>
        },
        None => {
            html! { <p data-testid="steps-outcome">{format!("{} on {}.", x.outcome, x.site)}</p> }
        }
    }
}

fn reason_kind(r: &crate::scenario::explain::WaitReason) -> &'static str {
    use crate::scenario::explain::WaitReason::*;
    match r {
        TooFewUnits { .. } => "too_few_units",
        WouldDelayHead { .. } => "would_delay_head",
        QueueOrder { .. } => "queue_order",
        PlannedLater { .. } => "planned_later",
        HeldByLimit { .. } => "held_by_limit",
        NoNodeHoldsIt { .. } => "no_node_holds_it",
    }
}
