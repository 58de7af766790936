//! Run control: start, pause and resume, cancel, progress and how long the last run took.
//! The worker runs in slices, so pausing and cancelling take effect at once and keep it
//! (and the files it read).

use yew::prelude::*;

use crate::web::state::{use_app, AppAction};

#[function_component]
pub fn RunPanel() -> Html {
    let app = use_app();
    let r = &app.run;
    let finished = app.results.runs.len();
    let frac = if r.algorithms > 0 {
        let inner = if r.total > 0 {
            r.done as f64 / r.total as f64
        } else {
            0.0
        };
        let in_flight = r.in_flight.max(1) as f64;
        ((finished as f64 + in_flight * inner.min(1.0)) / r.algorithms as f64).min(1.0)
    } else {
        0.0
    };
    // Several runs at once when a pool of workers shares them: "3–4 of 6".
    let first = (finished + 1).min(r.algorithms.max(1));
    let last = (finished + r.in_flight.max(1)).min(r.algorithms.max(1));
    let runs = if last > first {
        format!("{first}–{last}")
    } else {
        first.to_string()
    };
    let at = format!("{runs} of {} ({}/{} jobs)", r.algorithms, r.done, r.total);
    let status = if r.running && r.paused {
        format!("paused at {at}")
    } else if r.running {
        format!("running {at}…")
    } else if let Some(ms) = app.results.elapsed_ms {
        format!("done in {:.2} s", ms / 1000.0)
    } else {
        String::new()
    };
    // `data-cancelling`: cancels the worker has not confirmed yet (a page test times Cancel
    // to the worker's answer, not to the button's).
    html! {
        <div class="run">
            <button class="primary" data-testid="run" onclick={app.callback(|_: MouseEvent| AppAction::Run)}>{"Run"}</button>
            <button data-testid="pause" disabled={!r.running} aria-pressed={(r.running && r.paused).to_string()} onclick={app.callback(|_: MouseEvent| AppAction::TogglePause)}>{ if r.running && r.paused { "Resume" } else { "Pause" } }</button>
            <button data-testid="cancel" disabled={!r.running} onclick={app.callback(|_: MouseEvent| AppAction::Cancel)}>{"Cancel"}</button>
            <progress data-testid="progress" max="1" value={frac.to_string()} aria-label="run progress"></progress>
            <span class="status" data-testid="status" data-cancelling={app.cancelling.to_string()}>{status}</span>
        </div>
    }
}
