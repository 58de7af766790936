//! "Step through": one site of one run of the scenario, instant by instant, forward and
//! back — what ended, arrived and started and why (head of the queue, or backfilled: ending
//! by the head's shadow time, or on its extra units), the queue, the running jobs, the free
//! units ahead by estimates and the head's reservation (EASY). The worker computes the frames
//! (`scenario::steps`); the page keeps them, so going back costs nothing.

use std::rc::Rc;

use yew::prelude::*;

use super::form::{input_value, select_value, DraftInput};
use crate::scenario::steps::StepFrame;
use crate::web::format::fmt_num;
use crate::web::hub::WorkerEvent;
use crate::web::protocol::{FromWorker, ToWorker};
use crate::web::state::{use_app, use_worker_events};

/// Frames the worker computes at most (the view is for small scenarios).
const MAX_STEPS: usize = 2_000;

#[derive(Clone, PartialEq, Default)]
struct StepState {
    algorithm: usize,
    site: usize,
    busy: bool,
    frames: Rc<Vec<StepFrame>>,
    at: usize,
    error: Option<String>,
}

enum StepMsg {
    Algorithm(String),
    Site(String),
    Started,
    Go(isize),
    To(String),
    Worker(WorkerEvent),
}

impl Reducible for StepState {
    type Action = StepMsg;

    fn reduce(self: Rc<Self>, msg: StepMsg) -> Rc<Self> {
        let mut s = (*self).clone();
        let last = s.frames.len().saturating_sub(1);
        match msg {
            StepMsg::Algorithm(v) => s.algorithm = v.parse().unwrap_or(0),
            StepMsg::Site(v) => match v.trim().parse::<usize>() {
                Ok(n) => {
                    s.site = n;
                    s.error = None;
                }
                Err(_) => s.error = Some(format!("the site is a number from 0, not {v:?}")),
            },
            StepMsg::Started => {
                s.busy = true;
                s.error = None;
            }
            StepMsg::Go(d) => s.at = s.at.saturating_add_signed(d).min(last),
            StepMsg::To(v) => s.at = v.parse::<usize>().unwrap_or(0).min(last),
            StepMsg::Worker(WorkerEvent::Restarted) => s.busy = false,
            StepMsg::Worker(WorkerEvent::Message(m)) => match m.as_ref() {
                FromWorker::Steps { frames, .. } => {
                    s.busy = false;
                    s.frames = Rc::new(frames.clone());
                    s.at = 0;
                    if frames.is_empty() {
                        s.error = Some("nothing happens at that site".into());
                    }
                }
                FromWorker::StepsFailed { message } => {
                    s.busy = false;
                    s.error = Some(message.clone());
                }
                _ => return self,
            },
            StepMsg::Worker(_) => return self,
        }
        Rc::new(s)
    }
}

#[function_component]
pub fn StepPanel() -> Html {
    let app = use_app();
    let state = use_reducer(StepState::default);
    {
        let d = state.dispatcher();
        use_worker_events(&app, move |ev| d.dispatch(StepMsg::Worker(ev)));
    }
    let on = |f: fn(String) -> StepMsg| {
        let d = state.dispatcher();
        Callback::from(move |e: Event| d.dispatch(f(input_value(&e))))
    };
    let go = |delta: isize| {
        let d = state.dispatcher();
        Callback::from(move |_: MouseEvent| d.dispatch(StepMsg::Go(delta)))
    };
    let start = {
        let (app, d, algorithm, site) =
            (app.clone(), state.dispatcher(), state.algorithm, state.site);
        Callback::from(move |_: MouseEvent| {
            d.dispatch(StepMsg::Started);
            app.to_worker(ToWorker::Steps {
                scenario: app.scenario.clone(),
                algorithm,
                site,
                max_steps: MAX_STEPS,
            });
        })
    };
    let n = state.frames.len();
    html! {
        <details class="steps" data-testid="steps">
            <summary>{"Step through one site (small scenarios)"}</summary>
            <p class="help">{"Watch one site decide, instant by instant: what ended, arrived and started, and why a job started — at the head of the queue, or backfilled (EASY: it ends, by its estimate, before the head's shadow time, or it runs on the extra units the head leaves free). The queue, running jobs, free units ahead (by estimates) and the head's reservation are shown after each instant. At most 20,000 jobs and the first 2,000 instants."}</p>
            <div class="controls">
                <label for="steps-alg">{"run "}</label>
                <select id="steps-alg" data-testid="steps-alg" onchange={
                    let d = state.dispatcher();
                    Callback::from(move |e: Event| d.dispatch(StepMsg::Algorithm(select_value(&e))))
                }>
                    { for app.scenario.algorithms.iter().enumerate().map(|(i, a)| html!{
                        <option value={i.to_string()} selected={i == state.algorithm}>{a.label()}</option>
                    }) }
                </select>
                <label for="steps-site">{" site "}</label>
                <DraftInput id="steps-site" testid="steps-site" kind="number" min="0" value={state.site.to_string()} onchange={on(StepMsg::Site)} />
                <button class="small" data-testid="steps-run" disabled={state.busy} onclick={start}>{"Step through"}</button>
                if state.busy { <span class="help">{" computing…"}</span> }
            </div>
            if let Some(e) = &state.error { <p class="error" data-testid="steps-error">{e}</p> }
            if n > 0 {
                <div class="controls">
                    <button class="small" data-testid="steps-prev" disabled={state.at == 0} onclick={go(-1)}>{"◀ back"}</button>
                    <input type="range" min="0" max={(n - 1).to_string()} value={state.at.to_string()} aria-label="instant" oninput={
                        let d = state.dispatcher();
                        Callback::from(move |e: InputEvent| d.dispatch(StepMsg::To(e.target_unchecked_into::<web_sys::HtmlInputElement>().value())))
                    } />
                    <button class="small" data-testid="steps-next" disabled={state.at + 1 >= n} onclick={go(1)}>{"forward ▶"}</button>
                    <span data-testid="steps-position">{format!(" instant {} of {n}", state.at + 1)}</span>
                </div>
                { frame_view(&state.frames[state.at]) }
            }
        </details>
    }
}

fn frame_view(f: &StepFrame) -> Html {
    let head = f.head.map_or(
        "no reservation (the head fits, or the policy makes none)".to_string(),
        |(job, shadow, extra)| {
            format!(
                "job {job} waits for its shadow time {} s; {extra} extra unit(s) may run past it",
                fmt_num(shadow, 3)
            )
        },
    );
    let profile: Vec<String> = f
        .profile
        .iter()
        .take(12)
        .map(|(t, free)| format!("{} s: {free}", fmt_num(*t, 3)))
        .collect();
    html! {
        <div class="step-frame" data-testid="steps-frame" data-time={f.time_s.to_string()} data-free={f.free.to_string()}>
            <p><strong>{format!("t = {} s", fmt_num(f.time_s, 3))}</strong>{format!(" — {} of {} units free", f.free, f.capacity)}</p>
            <ul data-testid="steps-events">{ for f.events.iter().map(|e| html!{ <li>{e}</li> }) }</ul>
            <p data-testid="steps-head">{"Head: "}{head}</p>
            <p class="help">{"Free units ahead, by estimates: "}{profile.join(" · ")}</p>
            <div class="table-wrap">
            <table class="metrics" data-testid="steps-queue">
                <caption>{format!("queue ({} jobs, in the policy's order)", f.queue.len())}</caption>
                <thead><tr><th>{"job"}</th><th>{"units"}</th><th>{"estimate s"}</th></tr></thead>
                <tbody>{ for f.queue.iter().take(50).map(|(id, u, est)| html!{ <tr><td>{id}</td><td>{u}</td><td>{fmt_num(*est, 3)}</td></tr> }) }</tbody>
            </table>
            <table class="metrics" data-testid="steps-running">
                <caption>{format!("running ({} jobs, soonest predicted end first)", f.running.len())}</caption>
                <thead><tr><th>{"job"}</th><th>{"units"}</th><th>{"predicted end s"}</th></tr></thead>
                <tbody>{ for f.running.iter().take(50).map(|(id, u, end)| html!{ <tr><td>{id}</td><td>{u}</td><td>{fmt_num(*end, 3)}</td></tr> }) }</tbody>
            </table>
            </div>
        </div>
    }
}
