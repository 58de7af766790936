//! The "Workload allocation (SF)" panel: the SF paper's sweeps — every parameter editable,
//! starting from a preset — run in their own engine worker (so a sweep and a scheduling run never wait for each other, and cancelling one
//! leaves the other alone), and the allocation calculator (OWA and WW fractions and the
//! predicted response time, computed on the page: a few square roots).

use wasm_bindgen::prelude::*;
use web_sys::{HtmlCanvasElement, HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use super::engine_worker::{self, EngineWorker};
use super::plots;
use super::protocol::*;
use super::share::{self, SharedSweep};
use crate::allocation::fractions::{owa_batch, predicted_response, validate, weighted};
use crate::allocation::sweep::{
    parse_numbers, parse_policies, Arrivals, SweepSpec, Vary, SWEEP_PARAM_HELP, SWEEP_PRESETS,
};
use crate::allocation::Dispatch;

/// Page defaults: lighter than the CLI's 10 seeds × 20,000 batches so a sweep takes seconds.
const DEFAULT_SEEDS: u64 = 5;
const DEFAULT_BATCHES: u64 = 5_000;

pub enum SfMsg {
    Worker(u32, FromWorker),
    WorkerError(u32, String),
    Preset(usize),
    /// Puts the selected preset's parameters back in the fields.
    Reset,
    Field(SweepField, String),
    Seeds(String),
    Batches(String),
    Run,
    Cancel,
    /// Puts the sweep (fields, seeds, batches) in a `#w1=` link.
    Share,
    Rates(String),
    Lambda(String),
    Batch(String),
}

/// The sweep's editable parameters, each kept as typed until Run parses them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SweepField {
    Vary,
    X,
    Rates,
    ArrivalKind,
    Arrivals,
    BatchSize,
    Cv,
    Policies,
    Dispatch,
}

/// The fields' text, as the inputs show it.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepFields {
    pub vary: Vary,
    pub x: String,
    pub rates: String,
    /// "lambda" or "load".
    pub arrival_kind: String,
    pub arrivals: String,
    pub batch_size: String,
    pub cv: String,
    pub policies: String,
    pub dispatch: Dispatch,
}

fn join(v: &[f64]) -> String {
    v.iter().map(f64::to_string).collect::<Vec<_>>().join(",")
}

impl SweepFields {
    pub fn of(spec: &SweepSpec) -> SweepFields {
        let (kind, value) = match spec.arrivals {
            Arrivals::Lambda(l) => ("lambda", l),
            Arrivals::Load(l) => ("load", l),
        };
        SweepFields {
            vary: spec.vary,
            x: join(&spec.x),
            rates: join(&spec.rates),
            arrival_kind: kind.into(),
            arrivals: value.to_string(),
            batch_size: spec.batch_size.to_string(),
            cv: spec.arrival_cv.to_string(),
            policies: spec
                .policies
                .iter()
                .map(|p| p.name())
                .collect::<Vec<_>>()
                .join(","),
            dispatch: spec.dispatch,
        }
    }

    /// The spec the fields describe; the error names the field.
    pub fn spec(&self) -> Result<SweepSpec, String> {
        let number = |what: &str, v: &str| {
            v.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| format!("{what}: '{}' is not a number", v.trim()))
        };
        let value = number(&self.arrival_kind, &self.arrivals)?;
        Ok(SweepSpec {
            vary: self.vary,
            x: parse_numbers("x values", &self.x)?,
            rates: parse_numbers("rates", &self.rates)?,
            arrivals: if self.arrival_kind == "load" {
                Arrivals::Load(value)
            } else {
                Arrivals::Lambda(value)
            },
            batch_size: self
                .batch_size
                .trim()
                .parse()
                .map_err(|_| format!("k: '{}' is not a whole number", self.batch_size.trim()))?,
            arrival_cv: number("CV", &self.cv)?,
            policies: parse_policies(&self.policies)?,
            dispatch: self.dispatch,
        })
    }
}

fn param_help(key: &str) -> &'static str {
    SWEEP_PARAM_HELP
        .iter()
        .find(|(k, _)| *k == key)
        .map_or("", |(_, h)| h)
}

/// The calculator's answer for the current inputs.
#[derive(Clone, Debug, PartialEq)]
pub struct Allocation {
    pub rates: Vec<f64>,
    pub owa: Vec<f64>,
    pub ww: Vec<f64>,
    pub t_owa: Option<f64>,
    pub t_ww: Option<f64>,
}

/// Parses the calculator's fields and computes both allocations; errors are the engine's
/// `validate()` messages (or which field is not a number).
pub fn allocate(rates: &str, lambda: &str, batch: &str) -> Result<Allocation, String> {
    let rates = parse_numbers("rates", rates)?;
    let lambda: f64 = lambda
        .trim()
        .parse()
        .map_err(|_| format!("λ: '{}' is not a number", lambda.trim()))?;
    let batch: u32 = batch
        .trim()
        .parse()
        .map_err(|_| format!("k: '{}' is not a whole number", batch.trim()))?;
    validate(&rates, lambda, batch)?;
    let owa = owa_batch(&rates, lambda, batch)?;
    let ww = weighted(&rates);
    Ok(Allocation {
        t_owa: predicted_response(&rates, &owa, lambda, batch),
        t_ww: predicted_response(&rates, &ww, lambda, batch),
        rates,
        owa,
        ww,
    })
}

pub struct SfPanel {
    worker: Option<EngineWorker>,
    generation: u32,
    preset: usize,
    fields: SweepFields,
    /// The spec of the sweep being started, posted once the worker is ready.
    pending: Option<SweepSpec>,
    seeds: u64,
    batches: u64,
    running: bool,
    done: u64,
    total: u64,
    result: Option<SweepData>,
    error: Option<String>,
    notice: Option<String>,
    rates: String,
    lambda: String,
    batch: String,
    sweep_canvas: NodeRef,
    history_canvas: NodeRef,
    alloc_canvas: NodeRef,
    dirty: bool,
    share_url: Option<String>,
}

fn fmt(v: f64, d: usize) -> String {
    if v.is_finite() {
        format!("{v:.d$}")
    } else {
        "–".into()
    }
}

impl SfPanel {
    fn spawn(&mut self, ctx: &Context<Self>) -> Result<(), String> {
        self.generation += 1;
        let gen = self.generation;
        self.worker = None;
        let link = ctx.link().clone();
        self.worker = Some(engine_worker::spawn(move |m| match m {
            Ok(m) => link.send_message(SfMsg::Worker(gen, m)),
            Err(e) => link.send_message(SfMsg::WorkerError(gen, e)),
        })?);
        Ok(())
    }

    fn draw(&self) {
        if let (Some(r), Some(c)) = (&self.result, self.sweep_canvas.cast::<HtmlCanvasElement>()) {
            let title = format!(
                "{}: median of {} seeds, band {:.0} %",
                r.preset,
                r.seeds,
                r.confidence * 100.0
            );
            if let Err(p) = plots::band_lines(&c, &title, &r.x_label, &r.x, &r.series) {
                web_sys::console::warn_1(&JsValue::from_str(&format!("chart: {p}")));
            }
        }
        if let (Some(Some(h)), Some(c)) = (
            self.result.as_ref().map(|r| &r.history),
            self.history_canvas.cast::<HtmlCanvasElement>(),
        ) {
            let title = format!(
                "Hybrid share of resource {} (x = {}, seed 1)",
                h.resource + 1,
                h.x
            );
            if let Err(p) = plots::fraction_history(&c, &title, h) {
                web_sys::console::warn_1(&JsValue::from_str(&format!("chart: {p}")));
            }
        }
        if let (Ok(a), Some(c)) = (
            allocate(&self.rates, &self.lambda, &self.batch),
            self.alloc_canvas.cast::<HtmlCanvasElement>(),
        ) {
            let groups: Vec<String> = a
                .rates
                .iter()
                .enumerate()
                .map(|(i, r)| format!("{}: μ={r}", i + 1))
                .collect();
            let series = vec!["OWA (eq. 11)".to_string(), "WW (μ/Σμ)".to_string()];
            if let Err(p) = plots::grouped_bars(
                &c,
                "Share of the jobs per resource",
                "fraction α",
                &groups,
                &series,
                &[a.owa.clone(), a.ww.clone()],
            ) {
                web_sys::console::warn_1(&JsValue::from_str(&format!("chart: {p}")));
            }
        }
    }
}

impl Component for SfPanel {
    type Message = SfMsg;
    type Properties = ();

    fn create(ctx: &Context<Self>) -> Self {
        let mut panel = SfPanel {
            worker: None,
            generation: 0,
            preset: 0,
            fields: SweepFields::of(&(SWEEP_PRESETS[0].spec)()),
            pending: None,
            seeds: DEFAULT_SEEDS,
            batches: DEFAULT_BATCHES,
            running: false,
            done: 0,
            total: 0,
            result: None,
            error: None,
            notice: None,
            // SF Table III's ten resources.
            rates: "1,1,1,1,2,2,2,5,5,10".into(),
            lambda: "0.1".into(),
            batch: "10".into(),
            sweep_canvas: NodeRef::default(),
            history_canvas: NodeRef::default(),
            alloc_canvas: NodeRef::default(),
            dirty: true,
            share_url: None,
        };
        // A sweep link (`#w1=`) fills the fields and runs the sweep at once.
        let hash = web_sys::window()
            .and_then(|w| w.location().hash().ok())
            .unwrap_or_default();
        match share::decode_sweep(&hash) {
            Ok(None) => {}
            Ok(Some(sw)) => {
                panel.preset = SWEEP_PRESETS
                    .iter()
                    .position(|p| (p.spec)() == sw.spec)
                    .or_else(|| {
                        SWEEP_PRESETS
                            .iter()
                            .position(|p| (p.spec)().vary == sw.spec.vary)
                    })
                    .unwrap_or(0);
                panel.fields = SweepFields::of(&sw.spec);
                panel.seeds = sw.seeds;
                panel.batches = sw.batches;
                ctx.link().send_message(SfMsg::Run);
            }
            Err(e) => panel.error = Some(format!("{e}. The sweep fields keep their defaults.")),
        }
        panel
    }

    fn update(&mut self, ctx: &Context<Self>, msg: SfMsg) -> bool {
        match msg {
            SfMsg::Worker(g, _) | SfMsg::WorkerError(g, _) if g != self.generation => return false,
            SfMsg::Worker(_, ev) => match ev {
                FromWorker::Ready => {
                    let Some(spec) = self.pending.take() else {
                        return false;
                    };
                    let msg = ToWorker::Sweep {
                        spec,
                        seeds: self.seeds,
                        batches: self.batches,
                    };
                    if let Some(w) = &self.worker {
                        let text = serde_json::to_string(&msg).unwrap_or_default();
                        if let Err(e) = w.worker.post_message(&JsValue::from_str(&text)) {
                            self.error = Some(format!("cannot reach the engine worker: {e:?}"));
                            self.running = false;
                        }
                    }
                }
                FromWorker::SweepProgress { done, total } => {
                    self.done = done;
                    self.total = total;
                }
                FromWorker::SweepDone(r) => {
                    self.running = false;
                    self.done = self.total.max(1);
                    self.total = self.done;
                    self.result = Some(*r);
                    self.worker = None;
                    self.dirty = true;
                }
                FromWorker::SweepFailed { message } => {
                    self.running = false;
                    self.worker = None;
                    self.error = Some(message);
                }
                _ => return false,
            },
            SfMsg::WorkerError(_, m) => {
                self.running = false;
                self.worker = None;
                self.error = Some(m);
            }
            SfMsg::Preset(i) => {
                self.preset = i.min(SWEEP_PRESETS.len() - 1);
                self.fields = SweepFields::of(&(SWEEP_PRESETS[self.preset].spec)());
                self.error = None;
            }
            SfMsg::Reset => {
                self.fields = SweepFields::of(&(SWEEP_PRESETS[self.preset].spec)());
                self.error = None;
            }
            SfMsg::Field(f, v) => {
                let fl = &mut self.fields;
                match f {
                    SweepField::Vary => match Vary::parse(&v) {
                        Ok(a) => fl.vary = a,
                        Err(e) => self.error = Some(e),
                    },
                    SweepField::X => fl.x = v,
                    SweepField::Rates => fl.rates = v,
                    SweepField::ArrivalKind => fl.arrival_kind = v,
                    SweepField::Arrivals => fl.arrivals = v,
                    SweepField::BatchSize => fl.batch_size = v,
                    SweepField::Cv => fl.cv = v,
                    SweepField::Policies => fl.policies = v,
                    SweepField::Dispatch => {
                        fl.dispatch = if v == "rounded" {
                            Dispatch::Rounded
                        } else {
                            Dispatch::Random
                        }
                    }
                }
            }
            SfMsg::Seeds(v) => match v.trim().parse::<u64>() {
                Ok(n) if (1..=1000).contains(&n) => self.seeds = n,
                _ => self.error = Some(format!("seeds: '{v}' is not a whole number in 1..1000")),
            },
            SfMsg::Batches(v) => match v.trim().parse::<u64>() {
                Ok(n) if (100..=10_000_000).contains(&n) => self.batches = n,
                _ => {
                    self.error = Some(format!(
                        "batches: '{v}' is not a whole number in 100..10,000,000"
                    ))
                }
            },
            SfMsg::Run => {
                self.error = None;
                self.notice = None;
                self.done = 0;
                self.total = 0;
                // Checked here so a bad field is reported at once, not by the worker.
                let spec = match self
                    .fields
                    .spec()
                    .and_then(|s| s.validate(self.batches).map(|()| s))
                {
                    Ok(s) => s,
                    Err(e) => {
                        self.error = Some(e);
                        return true;
                    }
                };
                self.pending = Some(spec);
                match self.spawn(ctx) {
                    Ok(()) => self.running = true,
                    Err(e) => self.error = Some(e),
                }
            }
            SfMsg::Share => {
                match self
                    .fields
                    .spec()
                    .and_then(|s| s.validate(self.batches).map(|()| s))
                {
                    Err(e) => self.error = Some(e),
                    Ok(spec) => {
                        let frag = share::encode_sweep(&SharedSweep {
                            spec,
                            seeds: self.seeds,
                            batches: self.batches,
                        });
                        self.share_url = Some(share::link(&frag));
                    }
                }
            }
            SfMsg::Cancel => {
                if self.running {
                    self.worker = None;
                    self.generation += 1;
                    self.running = false;
                    self.notice = Some(format!(
                        "Sweep cancelled after {} of {} simulations.",
                        self.done, self.total
                    ));
                }
            }
            SfMsg::Rates(v) => {
                self.rates = v;
                self.dirty = true;
            }
            SfMsg::Lambda(v) => {
                self.lambda = v;
                self.dirty = true;
            }
            SfMsg::Batch(v) => {
                self.batch = v;
                self.dirty = true;
            }
        }
        true
    }

    fn rendered(&mut self, _ctx: &Context<Self>, _first: bool) {
        if self.dirty {
            self.dirty = false;
            self.draw();
        }
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let p = &SWEEP_PRESETS[self.preset];
        let on_preset = link.callback(|e: Event| {
            SfMsg::Preset(
                e.target_unchecked_into::<HtmlSelectElement>()
                    .value()
                    .parse()
                    .unwrap_or(0),
            )
        });
        let input = |f: fn(String) -> SfMsg| {
            link.callback(move |e: Event| f(e.target_unchecked_into::<HtmlInputElement>().value()))
        };
        let frac = if self.total > 0 {
            (self.done as f64 / self.total as f64).min(1.0)
        } else {
            0.0
        };
        let status = if self.running {
            format!("running… {} of {} simulations", self.done, self.total)
        } else if let Some(r) = &self.result {
            format!(
                "done in {:.2} s ({}: {} seeds × {} batches)",
                r.elapsed_ms / 1000.0,
                r.preset,
                r.seeds,
                r.batches
            )
        } else {
            String::new()
        };
        html! {
            <section class="sf" aria-label="Workload allocation (SF)">
                <h2>{"Workload allocation (SF)"}</h2>
                <p class="help">{"How to split batches of jobs over resources of different speeds: the optimal static fractions for batch arrivals (OWA), fractions proportional to speed (WW), dynamic least load (DLL) and the hybrid adaptive scheduler. Each point runs every policy with the same seeds; the line is the median of the mean response times and the shaded band its order-statistic confidence band. Source: the SF paper (optimal workload allocation for batch arrivals on heterogeneous resources)."}</p>
                <div class="fields">
                    <label>{"Sweep "}
                        <select data-testid="sf-preset" onchange={on_preset}>
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
                        <input id="sf-seeds" type="number" min="1" max="1000" step="1" value={self.seeds.to_string()} onchange={input(SfMsg::Seeds)} />
                        <span class="help">{format!("{} The CLI uses 10.", param_help("seeds"))}</span>
                    </div>
                    <div class="field">
                        <label for="sf-batches">{"Batches"}</label>
                        <input id="sf-batches" type="number" min="100" step="100" value={self.batches.to_string()} onchange={input(SfMsg::Batches)} />
                        <span class="help">{format!("{} The CLI uses 20,000.", param_help("batches"))}</span>
                    </div>
                </div>
                <div class="run">
                    <button class="primary" data-testid="sf-run" onclick={link.callback(|_| SfMsg::Run)}>{"Run sweep"}</button>
                    <button data-testid="sf-cancel" disabled={!self.running} onclick={link.callback(|_| SfMsg::Cancel)}>{"Cancel"}</button>
                    <button data-testid="sf-share" title="A link that re-runs this sweep (every parameter, seeds and batches) to the same numbers" onclick={link.callback(|_| SfMsg::Share)}>{"Share sweep"}</button>
                    <progress data-testid="sf-progress" max="1" value={frac.to_string()} aria-label="sweep progress"></progress>
                    <span class="status" data-testid="sf-status">{status}</span>
                </div>
                if let Some(e) = &self.error {
                    <div class="error" role="alert" data-testid="sf-error"><p>{e}</p></div>
                }
                if let Some(n) = &self.notice {
                    <div class="notice" role="status" data-testid="sf-notice">{n}</div>
                }
                if let Some(url) = &self.share_url {
                    <p class="help">{"Link to this sweep (the parameters, seeds and batches; opening it runs the sweep): "}
                        <output data-testid="sf-share-url" class="share-url">{url}</output></p>
                }
                if let Some(r) = &self.result {
                    <figure class="chart">
                        <canvas ref={self.sweep_canvas.clone()} width="640" height="320" data-testid="chart-sweep"></canvas>
                    </figure>
                    <p class="help" data-testid="sf-result-description">{format!("{}: {}{}. Band coverage {:.1} %; {} warm-up batches of {} not measured.",
                        r.preset,
                        r.description,
                        if r.paper.is_empty() { String::new() } else { format!(" — the paper: {}", r.paper) },
                        r.confidence * 100.0, r.warmup, r.batches)}</p>
                    if let Some(h) = &r.history {
                        <figure class="chart">
                            <canvas ref={self.history_canvas.clone()} width="640" height="280" data-testid="chart-history"
                                data-static={h.static_owa.to_string()} data-after={h.owa_after.map(|a| a.to_string()).unwrap_or_default()}
                                data-last={h.hybrid.last().map(|a| a.to_string()).unwrap_or_default()}></canvas>
                            <figcaption class="help">{format!(
                                "One run of the hybrid scheduler (seed 1, the sweep's last point x = {}): its share α for resource {} before each batch, estimated from the run times of the last {} jobs each resource completed (SF §VI, Figs. 10–12), against static OWA from the initial rates ({:.4}) and OWA for the true rates after the change ({}). The hybrid should follow the change within a few dozen batches.",
                                h.x, h.resource + 1, crate::allocation::HYBRID_WINDOW, h.static_owa,
                                h.owa_after.map_or_else(|| "none: the degraded system is saturated".to_string(), |a| format!("{a:.4}")))}</figcaption>
                        </figure>
                    }
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
                                    { for s.median.iter().enumerate().map(|(i, v)| html!{
                                        <td data-x={i.to_string()} data-value={serde_json::Value::from(*v).to_string()}
                                            title={format!("band {} – {}", fmt(s.lo[i], 4), fmt(s.hi[i], 4))}>{fmt(*v, 4)}</td>
                                    }) }
                                </tr>
                            }) }
                            <tr data-policy="gap" class="gap">
                                <th scope="row" title={r.gap_label.clone()}>{"gap"}</th>
                                { for r.gap.iter().enumerate().map(|(i, g)| html!{
                                    <td data-x={i.to_string()} data-value={serde_json::Value::from(*g).to_string()}>{format!("{} %", fmt(g * 100.0, 1))}</td>
                                }) }
                            </tr>
                        </tbody>
                    </table>
                    </div>
                    <p class="help">{format!("gap: {}", r.gap_label)}</p>
                }
                { self.view_calculator(ctx) }
            </section>
        }
    }
}

impl SfPanel {
    /// The sweep's parameters, prefilled from the preset; Run checks them all.
    fn view_sweep_fields(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let f = &self.fields;
        let on = |field: SweepField| {
            link.callback(move |e: Event| {
                SfMsg::Field(field, e.target_unchecked_into::<HtmlInputElement>().value())
            })
        };
        let on_select = |field: SweepField| {
            link.callback(move |e: Event| {
                SfMsg::Field(
                    field,
                    e.target_unchecked_into::<HtmlSelectElement>().value(),
                )
            })
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
                    <input id={id} type="text" value={value.clone()} onchange={on(field)} />
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
                    <input id="sf-arrivals" type="number" step="any" value={f.arrivals.clone()} onchange={on(SweepField::Arrivals)} />
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

    fn view_calculator(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let input = |f: fn(String) -> SfMsg| {
            link.callback(move |e: Event| f(e.target_unchecked_into::<HtmlInputElement>().value()))
        };
        let result = allocate(&self.rates, &self.lambda, &self.batch);
        html! {
            <div class="calculator">
                <h3>{"Allocation calculator"}</h3>
                <p class="help">{"Each resource i is an M/M/1 queue serving jobs at rate μ_i; batches of k jobs arrive at rate λ (Poisson) and each job of a batch goes to resource i with probability α_i. OWA minimizes the mean response time for batch arrivals (SF eq. 11): resources are taken slowest first and one whose fraction comes out negative gets 0 and leaves the sums (the elimination loop of SF Fig. 2). WW (weighted workload, SF eq. 2) sends α_i = μ_i / Σμ. The predicted mean response time is SF eq. 7, T = Σ α_i (α_i k + 1) / (2μ_i − 2α_i k λ). The system must not be saturated: λk < Σμ."}</p>
                <div class="fields">
                    <div class="field">
                        <label for="alloc-rates">{"Rates μ (jobs/s, comma-separated)"}</label>
                        <input id="alloc-rates" type="text" value={self.rates.clone()} onchange={input(SfMsg::Rates)} />
                    </div>
                    <div class="field">
                        <label for="alloc-lambda">{"λ (batches/s)"}</label>
                        <input id="alloc-lambda" type="number" step="any" value={self.lambda.clone()} onchange={input(SfMsg::Lambda)} />
                    </div>
                    <div class="field">
                        <label for="alloc-k">{"k (jobs per batch)"}</label>
                        <input id="alloc-k" type="number" step="1" value={self.batch.clone()} onchange={input(SfMsg::Batch)} />
                    </div>
                </div>
                { match result {
                    Err(e) => html!{ <div class="error" role="alert" data-testid="alloc-error"><p>{e}</p></div> },
                    Ok(a) => {
                        let fastest = a.rates.iter().enumerate().fold(0, |b, (i, r)| if *r > a.rates[b] { i } else { b });
                        html!{
                            <>
                                <p data-testid="alloc-fastest">{format!("Fastest resource ({}: μ = {}) gets OWA {:.3}, WW {:.3} of the jobs.", fastest + 1, a.rates[fastest], a.owa[fastest], a.ww[fastest])}</p>
                                <p data-testid="alloc-response">{format!("Predicted mean response time (eq. 7): OWA {} s, WW {} s.",
                                    a.t_owa.map(|t| fmt(t, 4)).unwrap_or_else(|| "saturated".into()),
                                    a.t_ww.map(|t| fmt(t, 4)).unwrap_or_else(|| "saturated".into()))}</p>
                                <figure class="chart">
                                    <canvas ref={self.alloc_canvas.clone()} width="640" height="260" data-testid="chart-alloc"></canvas>
                                </figure>
                                <table class="metrics" data-testid="alloc-table">
                                    <thead><tr><th>{"resource"}</th><th>{"μ"}</th><th>{"OWA α"}</th><th>{"WW α"}</th></tr></thead>
                                    <tbody>
                                        { for a.rates.iter().enumerate().map(|(i, r)| html!{
                                            <tr>
                                                <th scope="row">{(i + 1).to_string()}</th>
                                                <td>{r.to_string()}</td>
                                                <td data-key="owa" data-value={serde_json::Value::from(a.owa[i]).to_string()}>{format!("{:.4}", a.owa[i])}</td>
                                                <td data-key="ww" data-value={serde_json::Value::from(a.ww[i]).to_string()}>{format!("{:.4}", a.ww[i])}</td>
                                            </tr>
                                        }) }
                                    </tbody>
                                </table>
                            </>
                        }
                    }
                } }
            </div>
        }
    }
}
