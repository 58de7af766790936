//! What the SF view shows: the preset and its sweep fields, and a finished sweep's charts and
//! medians table (the run controls are the family view's).

use std::rc::Rc;

use yew::prelude::*;

use super::fields::{param_help, SweepField};
use super::{Sf, SfField};
use crate::allocation::sweep::{Vary, SWEEP_PRESETS};
use crate::allocation::Dispatch;
use crate::web::charts::{plot, ChartView, History, Sweep};
use crate::web::format::json_num;
use crate::web::panels::band_table::{band_table, band_text, BandRow};
use crate::web::panels::form::{
    hold_preset_keys, input_value, select_index, select_value, DraftInput, PRESET_KEYS_HELP,
};
use crate::web::protocol::SweepData;

fn fmt(v: f64, d: usize) -> String {
    if v.is_finite() {
        format!("{v:.d$}")
    } else {
        "–".into()
    }
}

impl Sf {
    /// The preset, its description, its parameters, seeds and batches.
    pub(super) fn view_fields(&self, on: &Callback<SfField>) -> Html {
        let p = &SWEEP_PRESETS[self.preset];
        let on_preset = on.reform(|e: Event| SfField::Preset(select_index(&e)));
        let input = |f: fn(String) -> SfField| on.reform(move |e: Event| f(input_value(&e)));
        html! {
            <>
                <label>{"Sweep "}
                    <select data-testid="sf-preset" onchange={on_preset} onkeydown={hold_preset_keys} title={PRESET_KEYS_HELP}>
                        { for SWEEP_PRESETS.iter().enumerate().map(|(i, p)| html!{
                            <option value={i.to_string()} selected={i == self.preset}>{p.name}</option>
                        }) }
                    </select>
                </label>
                <p class="help" data-testid="sf-description">{p.description}</p>
                <p class="help" data-testid="sf-paper">{format!("The paper: {}.", p.paper)}</p>
                { self.view_sweep_fields(on) }
                <div class="field">
                    <label for="sf-seeds">{"Seeds"}</label>
                    <DraftInput id="sf-seeds" kind="number" min="1" max="1000" step="1" value={self.seeds.to_string()} onchange={input(SfField::Seeds)} />
                    <span class="help">{format!("{} The CLI uses 10.", param_help("seeds"))}</span>
                </div>
                <div class="field">
                    <label for="sf-batches">{"Batches"}</label>
                    <DraftInput id="sf-batches" kind="number" min="100" step="100" value={self.batches.to_string()} onchange={input(SfField::Batches)} />
                    <span class="help">{format!("{} The CLI uses 20,000.", param_help("batches"))}</span>
                </div>
            </>
        }
    }

    /// The sweep's parameters, prefilled from the preset; Run checks them all.
    fn view_sweep_fields(&self, on_field: &Callback<SfField>) -> Html {
        let f = &self.fields;
        let on = |field: SweepField| {
            on_field.reform(move |e: Event| SfField::Field(field, input_value(&e)))
        };
        let on_select = |field: SweepField| {
            on_field.reform(move |e: Event| SfField::Field(field, select_value(&e)))
        };
        let changed = f.spec().ok() != Some((SWEEP_PRESETS[self.preset].spec)());
        let text = |id: &'static str,
                    label: &'static str,
                    key: &'static str,
                    value: &String,
                    field: SweepField| {
            html! {
                <div class="field">
                    <label for={id}>{label}</label>
                    <DraftInput {id} value={value.clone()} onchange={on(field)} />
                    <span class="help">{param_help(key)}</span>
                </div>
            }
        };
        html! {
            <details class="sweep-params" open=true>
                <summary>{"Sweep parameters"}
                    if changed { <span class="help" data-testid="sf-changed">{" — changed from the preset: the result will be labelled custom "}</span> }
                </summary>
                <div class="field">
                    <label for="sf-vary">{"x axis"}</label>
                    <select id="sf-vary" onchange={on_select(SweepField::Vary)}>
                        { for Vary::ALL.iter().map(|v| html!{
                            <option value={v.name()} selected={*v == f.vary}>{v.label()}</option>
                        }) }
                    </select>
                    <span class="help">{param_help("vary")}</span>
                </div>
                { text("sf-x", "x values", "x", &f.x, SweepField::X) }
                { text("sf-rates", "Rates μ", "rates", &f.rates, SweepField::Rates) }
                <div class="field">
                    <label for="sf-arrivals">
                        <select id="sf-arrival-kind" aria-label="arrival rate or load" onchange={on_select(SweepField::ArrivalKind)}>
                            <option value="lambda" selected={f.arrival_kind != "load"}>{"λ (batches/s)"}</option>
                            <option value="load" selected={f.arrival_kind == "load"}>{"load λk/Σμ"}</option>
                        </select>
                    </label>
                    <DraftInput id="sf-arrivals" kind="number" step="any" value={f.arrivals.clone()} onchange={on(SweepField::Arrivals)} />
                    <span class="help">{format!("{} Or {}", param_help("lambda"), param_help("load"))}</span>
                </div>
                { text("sf-k", "k (jobs per batch)", "batch_size", &f.batch_size, SweepField::BatchSize) }
                { text("sf-cv", "Inter-arrival CV", "arrival_cv", &f.cv, SweepField::Cv) }
                { text("sf-policies", "Policies", "policies", &f.policies, SweepField::Policies) }
                <div class="field">
                    <label for="sf-dispatch">{"Dispatch"}</label>
                    <select id="sf-dispatch" onchange={on_select(SweepField::Dispatch)}>
                        <option value="random" selected={f.dispatch == Dispatch::Random}>{"random"}</option>
                        <option value="rounded" selected={f.dispatch == Dispatch::Rounded}>{"rounded"}</option>
                    </select>
                    <span class="help">{param_help("dispatch")}</span>
                </div>
                <button class="small" data-testid="sf-reset" onclick={on_field.reform(|_| SfField::Reset)}>{"Reset to the preset"}</button>
            </details>
        }
    }
}

/// A finished sweep: its chart, the hybrid's share (when it ran) and the medians table.
pub(super) fn view_result(r: &Rc<SweepData>) -> Html {
    html! {
        <>
            <ChartView chart={Some(plot(Sweep(r.clone())))} testid="chart-sweep" width={640} height={320} />
            <p class="help" data-testid="sf-result-description">{format!("{}: {}{}. Band coverage {:.1} %; {} warm-up batches of {} not measured.",
                r.preset,
                r.description,
                if r.paper.is_empty() { String::new() } else { format!(" — the paper: {}", r.paper) },
                r.confidence * 100.0, r.warmup, r.batches)}</p>
            if let Some(h) = &r.history {
                <ChartView chart={Some(plot(History(r.clone())))} testid="chart-history" width={640} height={280} />
                <p class="help">{format!(
                    "One run of the hybrid scheduler (seed 1, the sweep's last point x = {}): its share α for resource {} before each batch, estimated from the run times of the last {} jobs each resource completed (SF §VI, Figs. 10–12), against static OWA from the initial rates ({:.4}) and OWA for the true rates after the change ({}). The hybrid should follow the change within a few dozen batches.",
                    h.x, h.resource + 1, crate::allocation::HYBRID_WINDOW, h.static_owa,
                    h.owa_after.map_or_else(|| "none: the degraded system is saturated".to_string(), |a| format!("{a:.4}")))}</p>
            }
            { view_table(r) }
            <p class="help">{format!("gap: {}", r.gap_label)}</p>
        </>
    }
}

/// The medians per x of each policy with their bands, and the gap row.
fn view_table(r: &SweepData) -> Html {
    let rows = r
        .series
        .iter()
        .map(|s| BandRow {
            policy: &s.policy,
            metric: None,
            head: html! { <th scope="row" title="median of the mean response time (s)">{&s.policy}</th> },
            median: &s.median,
            lo: &s.lo,
            hi: &s.hi,
        })
        .collect();
    let cell = |row: &BandRow, i: usize, v: f64| {
        let band = band_text(row, i, &|b| fmt(b, 4));
        (Some(format!("band {band}")), html! { {fmt(v, 4)} })
    };
    let gap = html! {
        <tr data-policy="gap" class="gap">
            <th scope="row" title={r.gap_label.clone()}>{"gap"}</th>
            { for r.gap.iter().enumerate().map(|(i, g)| html!{
                <td data-x={i.to_string()} data-value={json_num(*g)}>{format!("{} %", fmt(g * 100.0, 1))}</td>
            }) }
        </tr>
    };
    band_table(
        "sf-table",
        html! { <th>{&r.x_label}</th> },
        r.x.iter().map(|x| x.to_string()).collect(),
        rows,
        &cell,
        gap,
    )
}
