//! What the SF view shows: the preset and its sweep fields, Run/Cancel/Share with the
//! status line, and a finished sweep's charts and medians table.

use std::rc::Rc;

use yew::prelude::*;

use super::fields::{param_help, SweepField};
use super::{SfMsg, SfPanel};
use crate::allocation::sweep::{Vary, SWEEP_PRESETS};
use crate::allocation::Dispatch;
use crate::web::charts::{plot, ChartView, History, Sweep};
use crate::web::format::json_num;
use crate::web::panels::form::{
    hold_preset_keys, input_value, select_index, select_value, DraftInput, PRESET_KEYS_HELP,
};
use crate::web::panels::{
    family_export, sf_manifest, Alert, AllocationCalculator, CopyButton, ExportFamily,
};
use crate::web::protocol::SweepData;

fn fmt(v: f64, d: usize) -> String {
    if v.is_finite() {
        format!("{v:.d$}")
    } else {
        "–".into()
    }
}

impl SfPanel {
    /// The whole view: the preset, its fields, the run controls, the result and the
    /// allocation calculator.
    pub(super) fn page(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let p = &SWEEP_PRESETS[self.preset];
        let on_preset = link.callback(|e: Event| SfMsg::Preset(select_index(&e)));
        let input = |f: fn(String) -> SfMsg| link.callback(move |e: Event| f(input_value(&e)));
        html! {
            <section class="sf" id="sf" aria-label="Workload allocation (SF)">
                <h2>{"Workload allocation (SF)"}</h2>
                <p class="help">{"How to split batches of jobs over resources of different speeds: the optimal static fractions for batch arrivals (OWA), fractions proportional to speed (WW), dynamic least load (DLL) and the hybrid adaptive scheduler. Each point runs every policy with the same seeds; the line is the median of the mean response times and the shaded band its order-statistic confidence band. Source: the SF paper (optimal workload allocation for batch arrivals on heterogeneous resources)."}</p>
                <div class="fields">
                    <label>{"Sweep "}
                        <select data-testid="sf-preset" onchange={on_preset} onkeydown={hold_preset_keys} title={PRESET_KEYS_HELP}>
                            { for SWEEP_PRESETS.iter().enumerate().map(|(i, p)| html!{
                                <option value={i.to_string()} selected={i == self.preset}>{p.name}</option>
                            }) }
                        </select>
                    </label>
                    <p class="help" data-testid="sf-description">{p.description}</p>
                    <p class="help" data-testid="sf-paper">{format!("The paper: {}.", p.paper)}</p>
                    { self.view_sweep_fields(ctx) }
                    <div class="field">
                        <label for="sf-seeds">{"Seeds"}</label>
                        <DraftInput id="sf-seeds" kind="number" min="1" max="1000" step="1" value={self.seeds.to_string()} onchange={input(SfMsg::Seeds)} />
                        <span class="help">{format!("{} The CLI uses 10.", param_help("seeds"))}</span>
                    </div>
                    <div class="field">
                        <label for="sf-batches">{"Batches"}</label>
                        <DraftInput id="sf-batches" kind="number" min="100" step="100" value={self.batches.to_string()} onchange={input(SfMsg::Batches)} />
                        <span class="help">{format!("{} The CLI uses 20,000.", param_help("batches"))}</span>
                    </div>
                </div>
                { self.view_run(ctx) }
                if let Some(r) = &self.result { { view_result(r) } }
                <AllocationCalculator />
            </section>
        }
    }

    /// Run, cancel, share; progress and status; errors, notices and the share link.
    fn view_run(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let frac = if self.total > 0 {
            (self.done as f64 / self.total as f64).min(1.0)
        } else {
            0.0
        };
        let status = if self.running {
            format!("running… {} of {} simulations", self.done, self.total)
        } else if let Some(r) = &self.result {
            format!(
                "done in {:.2} s on {} worker{} ({}: {} seeds × {} batches)",
                r.elapsed_ms / 1000.0,
                self.last_workers,
                if self.last_workers == 1 { "" } else { "s" },
                r.preset,
                r.seeds,
                r.batches
            )
        } else {
            String::new()
        };
        html! {
            <>
                <div class="run">
                    <button class="primary" data-testid="sf-run" onclick={link.callback(|_| SfMsg::Run)}>{"Run sweep"}</button>
                    <button data-testid="sf-cancel" disabled={!self.running} onclick={link.callback(|_| SfMsg::Cancel)}>{"Cancel"}</button>
                    <button data-testid="sf-share" title="A link that re-runs this sweep (every parameter, seeds and batches) to the same numbers" onclick={link.callback(|_| SfMsg::Share)}>{"Share sweep"}</button>
                    <progress data-testid="sf-progress" max="1" value={frac.to_string()} aria-label="sweep progress"></progress>
                    <span class="status" data-testid="sf-status">{status}</span>
                </div>
                if let Some(e) = &self.error {
                    <Alert testid="sf-error" text={e.clone()} />
                }
                if let Some(n) = &self.notice {
                    <div class="notice" role="status" data-testid="sf-notice">{n}</div>
                }
                if let Some(url) = &self.share_url {
                    <p class="help">{"Link to this sweep (the parameters, seeds and batches; opening it runs the sweep): "}
                        <output data-testid="sf-share-url" class="share-url">{url}</output>
                        {" "}<CopyButton text={url.clone()} testid="sf-share-copy" /></p>
                }
                { match self.result.as_ref().and_then(|r| sf_manifest(r, self.preset)) {
                    Some(m) => html! { <ExportFamily id="sf" manifest={Rc::new(m)} /> },
                    None => family_export("sf", None),
                } }
            </>
        }
    }

    /// The sweep's parameters, prefilled from the preset; Run checks them all.
    fn view_sweep_fields(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let f = &self.fields;
        let on =
            |field: SweepField| link.callback(move |e: Event| SfMsg::Field(field, input_value(&e)));
        let on_select = |field: SweepField| {
            link.callback(move |e: Event| SfMsg::Field(field, select_value(&e)))
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
                <button class="small" data-testid="sf-reset" onclick={link.callback(|_| SfMsg::Reset)}>{"Reset to the preset"}</button>
            </details>
        }
    }
}

/// A finished sweep: its chart, the hybrid's share (when it ran) and the medians table.
fn view_result(r: &Rc<SweepData>) -> Html {
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

fn view_table(r: &SweepData) -> Html {
    html! {
        <div class="table-wrap">
        <table class="metrics" data-testid="sf-table">
            <thead><tr>
                <th>{&r.x_label}</th>
                { for r.x.iter().map(|x| html!{ <th>{x.to_string()}</th> }) }
            </tr></thead>
            <tbody>
                { for r.series.iter().map(|s| html!{
                    <tr data-policy={s.policy.clone()}>
                        <th scope="row" title="median of the mean response time (s)">{&s.policy}</th>
                        { for s.median.iter().enumerate().map(|(i, v)| {
                            let band = |b: &[f64]| b.get(i).map_or_else(|| "–".into(), |v| fmt(*v, 4));
                            html!{
                                <td data-x={i.to_string()} data-value={json_num(*v)}
                                    title={format!("band {} – {}", band(&s.lo), band(&s.hi))}>{fmt(*v, 4)}</td>
                            }
                        }) }
                    </tr>
                }) }
                <tr data-policy="gap" class="gap">
                    <th scope="row" title={r.gap_label.clone()}>{"gap"}</th>
                    { for r.gap.iter().enumerate().map(|(i, g)| html!{
                        <td data-x={i.to_string()} data-value={json_num(*g)}>{format!("{} %", fmt(g * 100.0, 1))}</td>
                    }) }
                </tr>
            </tbody>
        </table>
        </div>
    }
}
