//! SOB Figures 3 and 4 for the runs on the page (two runs or more): five panels and the
//! same numbers in a table (raw values in `data-value`, for tests and copying).

use std::rc::Rc;

use yew::prelude::*;

use crate::web::charts::{ChartView, Plot, SobFigure, SOB_METRICS};
use crate::web::format::{fmt_num, json_num};
use crate::web::protocol::RunResult;
use crate::web::state::use_app;

#[function_component]
pub fn SobFigurePanel() -> Html {
    let app = use_app();
    // The SOB claims this preset's run measures, read from its report once per run.
    let name = app.results.scenario.as_ref().map(|s| s.name.clone());
    let claims = use_memo(
        (app.results.report_json.clone(), name.clone()),
        |(json, name)| match (json, name) {
            (Some(json), Some(name)) => serde_json::from_str(json)
                .map(|report| super::claims::read_claims("sob", name, &report))
                .unwrap_or_default(),
            _ => Vec::new(),
        },
    );
    let runs = &app.results.runs;
    if runs.len() < 2 {
        return html! {};
    }
    let fig = Rc::new(SobFigure::of(runs));
    let base = fig.base_label().to_string();
    let heads = [
        format!("avg wait ÷ {base}"),
        format!("avg response ÷ {base}"),
        "wait deviation (s)".to_string(),
        "grid efficiency".to_string(),
        "fraction transferred".to_string(),
    ];
    let baseline_note = if fig.is_local {
        "wait and response are normalized to the run labelled local, so local is 1".to_string()
    } else {
        format!("no run is labelled local, so wait and response are normalized to the first run, {base} (it is 1)")
    };
    html! {
        <div class="sob-figure">
            { super::claims::view_run_claims("sob", name.as_deref().unwrap_or(""), &claims) }
            <ChartView chart={Some(fig.clone() as Rc<dyn Plot>)} testid="chart-sob" width={960} height={320} narrow_height={Some(560)} wide=true />
            <div class="table-wrap">
            <table class="metrics" data-testid="sob-figure" data-baseline={base.clone()}>
                <caption>{format!("SOB §3.2, Fig. 3/4: the five metrics per run; {baseline_note}.")}</caption>
                <thead><tr>
                    <th>{"run"}</th>
                    { for SOB_METRICS.iter().zip(&heads).map(|((m, _, _), h)| html!{ <th title={m.help()}>{h}</th> }) }
                </tr></thead>
                <tbody>
                    { for runs.iter().zip(&fig.values).map(|(r, row)| table_row(r, row)) }
                </tbody>
            </table>
            </div>
            <p class="help" data-testid="sob-figure-help">{format!(
                "SOB §3.2, Fig. 3/4 (local, sender, receiver, symmetric, central, ideal in the paper). Normalized wait = avg wait (mean of start − submit) ÷ {base}'s; normalized response = avg response (mean of end − submit) ÷ {base}'s; wait deviation = sqrt(Σ(w − w̄)²/N), the population standard deviation of the waits (SOB prints (1/N)·sqrt(Σw² − (Σw/N)²), not a standard deviation); grid efficiency = Σ run time × CPUs × CPU speed ÷ ((last end − first submit) × Σ CPUs × speed); fraction transferred = jobs run away from their home site ÷ jobs run. The chart shows efficiency and transferred in %."
            )}</p>
        </div>
    }
}

fn table_row(r: &RunResult, row: &[f64; 5]) -> Html {
    let label = r.label().to_string();
    html! {
        <tr data-run={label.clone()}>
            <th scope="row">{&label}</th>
            { for SOB_METRICS.iter().zip(row).enumerate().map(|(k, (&(metric, key, normalized), &v))| {
                // Raw metrics carry the engine's own number, as the results table.
                let raw = if normalized { json_num(v) } else { metric.value(&r.report.metrics).json() };
                let shown = if k == 2 { fmt_num(v, 0) } else { fmt_num(v, 3) };
                html!{ <td data-run={label.clone()} data-key={key} data-value={raw}>{shown}</td> }
            }) }
        </tr>
    }
}
