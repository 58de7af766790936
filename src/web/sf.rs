//! The "Workload allocation (SF)" panel: the SF paper's sweeps — every parameter editable,
//! starting from a preset — run in their own engine worker (so a sweep and a scheduling run
//! never wait for each other, and cancelling one leaves the other alone), and the allocation
//! calculator (`panels::AllocationCalculator`: OWA and WW fractions and the predicted
//! response time, computed on the page).

use std::rc::Rc;

use yew::prelude::*;

use super::charts::{Chart, ChartView, History, Sweep};
use super::engine_worker::{self, EngineWorker};
use super::format::json_num;
use super::panels::form::{input_value, select_index, select_value, DraftInput};
use super::panels::AllocationCalculator;
use super::protocol::*;
use super::share::{self, SharedSweep};
use crate::allocation::fractions::{owa_batch, predicted_response, validate, weighted};
use crate::allocation::sweep::{
    assemble_shares, parse_numbers, parse_policies, Arrivals, SweepPlan, SweepSample, SweepSpec,
    Vary, CONFIRM_ABOVE_SWEEP_JOBS, SWEEP_PARAM_HELP, SWEEP_PRESETS,
};
use crate::allocation::Dispatch;
use crate::limits::Limits;

/// Page defaults: lighter than the CLI's 10 seeds × 20,000 batches so a sweep takes seconds.
const DEFAULT_SEEDS: u64 = 5;
const DEFAULT_BATCHES: u64 = 5_000;

pub enum SfMsg {
    /// A message from worker `.1` of sweep generation `.0`.
    Worker(u32, u64, FromWorker),
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
    /// DLL's load-report interval (from a link or the CLI's spec; the x axis `dll_report`
    /// varies it in the page).
    pub dll_report_s: f64,
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
            dll_report_s: spec.dll_report_s,
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
            dll_report_s: self.dll_report_s,
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
    /// The sweep's pool: one worker per core (at most [`MAX_SWEEP_WORKERS`]), each running
    /// every n-th task; dropping them stops the sweep.
    workers: Vec<EngineWorker>,
    /// Each worker's finished share (`None` until it answers) and tasks done so far.
    parts: Vec<Option<Vec<Result<SweepSample, String>>>>,
    part_done: Vec<u64>,
    started_ms: f64,
    /// Workers the last finished sweep ran on (for its status line).
    last_workers: usize,
    generation: u32,
    preset: usize,
    fields: SweepFields,
    /// The running sweep's plan: posted to each worker once it is ready, and what the
    /// workers' shares assemble into.
    plan: Option<SweepPlan>,
    seeds: u64,
    batches: u64,
    running: bool,
    done: u64,
    total: u64,
    result: Option<Rc<SweepData>>,
    error: Option<String>,
    notice: Option<String>,
    share_url: Option<String>,
    /// What `share_url` holds: the link is hidden once the fields ask for another sweep.
    shared: Option<SharedSweep>,
}

fn fmt(v: f64, d: usize) -> String {
    if v.is_finite() {
        format!("{v:.d$}")
    } else {
        "–".into()
    }
}

impl SfPanel {
    /// Starts the pool for a sweep of `tasks` runs: as many workers as the machine has
    /// cores, but no more than runs.
    fn spawn(&mut self, ctx: &Context<Self>, tasks: u64) -> Result<(), String> {
        self.generation += 1;
        let gen = self.generation;
        self.stop_workers();
        let n = (super::engine_worker::cores() as u64).min(tasks).max(1);
        for i in 0..n {
            let link = ctx.link().clone();
            self.workers.push(engine_worker::spawn(move |m| match m {
                Ok(m) => link.send_message(SfMsg::Worker(gen, i, m)),
                Err(e) => link.send_message(SfMsg::WorkerError(gen, e)),
            })?);
        }
        self.parts = vec![None; n as usize];
        self.part_done = vec![0; n as usize];
        self.started_ms = js_sys::Date::now();
        Ok(())
    }

    fn stop_workers(&mut self) {
        self.workers.clear();
        self.parts.clear();
        self.part_done.clear();
    }

    /// Worker `worker`'s share arrived; with every share in, the result (the same bytes as
    /// one worker or the CLI: tasks go back in task order before [`assemble_sweep`]).
    fn on_part(&mut self, worker: u64, samples: Vec<Result<SweepSample, String>>) {
        if let Some(slot) = self.parts.get_mut(worker as usize) {
            *slot = Some(samples);
        }
        if self.parts.iter().any(Option::is_none) {
            return;
        }
        self.last_workers = self.parts.len();
        let shares = std::mem::take(&mut self.parts)
            .into_iter()
            .map(Option::unwrap_or_default)
            .collect();
        self.running = false;
        self.stop_workers();
        let assembled = self
            .plan
            .take()
            .ok_or_else(|| "the sweep was replaced".to_string())
            .and_then(|plan| assemble_shares(&plan, shares));
        match assembled {
            Ok(mut r) => {
                r.elapsed_ms = js_sys::Date::now() - self.started_ms;
                self.done = self.total.max(1);
                self.total = self.done;
                self.result = Some(Rc::new(r));
            }
            Err(message) => self.error = Some(message),
        }
    }

    /// A linked sweep above [`CONFIRM_ABOVE_SWEEP_JOBS`] waits for Run, with a notice that
    /// says what it would simulate (a hostile link cannot tie up the tab).
    /// A link the limits refuse says so at once, and offers no Run.
    fn asks_first(&mut self) -> bool {
        let Ok(spec) = self.fields.spec() else {
            return false;
        };
        let limits = crate::limits::Limits::default();
        if let Err(e) = crate::allocation::sweep::check(&spec, self.seeds, self.batches, &limits) {
            self.error = Some(format!("This shared sweep cannot run: {e}."));
            return true;
        }
        let Ok(jobs) = crate::allocation::sweep::sweep_jobs(&spec, self.seeds, self.batches) else {
            return false;
        };
        if jobs <= CONFIRM_ABOVE_SWEEP_JOBS {
            return false;
        }
        self.notice = Some(format!(
            "This shared sweep would simulate about {} jobs — more than a link starts by itself ({}); press Run to start it (Cancel stops it).",
            super::format::fmt_num(jobs, 0),
            super::format::fmt_num(CONFIRM_ABOVE_SWEEP_JOBS, 0)
        ));
        true
    }

    /// A sweep link (`#w1=`) fills the fields; `true` when the sweep should run at once.
    fn open_link(&mut self) -> bool {
        match share::decode_sweep(&super::format::location_hash()) {
            Ok(None) => false,
            Ok(Some(sw)) => {
                self.preset = SWEEP_PRESETS
                    .iter()
                    .position(|p| (p.spec)() == sw.spec)
                    .or_else(|| {
                        SWEEP_PRESETS
                            .iter()
                            .position(|p| (p.spec)().vary == sw.spec.vary)
                    })
                    .unwrap_or(0);
                self.fields = SweepFields::of(&sw.spec);
                self.seeds = sw.seeds;
                self.batches = sw.batches;
                true
            }
            Err(e) => {
                self.error = Some(format!("{e}. The sweep fields keep their defaults."));
                false
            }
        }
    }

    fn on_worker(&mut self, worker: u64, ev: FromWorker) -> bool {
        match ev {
            FromWorker::Ready => {
                let Some(plan) = &self.plan else {
                    return false;
                };
                let msg = ToWorker::SweepPart {
                    spec: plan.spec().clone(),
                    seeds: plan.seeds(),
                    batches: plan.batches(),
                    worker,
                    of: self.workers.len() as u64,
                };
                if let Some(Err(e)) = self
                    .workers
                    .get(worker as usize)
                    .map(|w| w.send(&msg, None))
                {
                    self.error = Some(e);
                    self.running = false;
                    self.stop_workers();
                }
            }
            FromWorker::SweepProgress { done, .. } => {
                if let Some(d) = self.part_done.get_mut(worker as usize) {
                    *d = done;
                }
                self.done = self.part_done.iter().sum();
            }
            FromWorker::SweepPartDone { worker, samples } => self.on_part(worker, samples),
            FromWorker::SweepFailed { message } => {
                self.running = false;
                self.stop_workers();
                self.error = Some(message);
            }
            _ => return false,
        }
        true
    }

    fn on_field(&mut self, f: SweepField, v: String) {
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

    /// The sweep the fields describe, checked here so a bad field is reported at once.
    fn checked_spec(&self) -> Result<SweepSpec, String> {
        self.fields
            .spec()
            .and_then(|s| s.validate(self.batches).map(|()| s))
    }

    fn run(&mut self, ctx: &Context<Self>) {
        self.error = None;
        self.notice = None;
        self.done = 0;
        self.total = 0;
        match self.checked_spec() {
            Ok(spec) => match SweepPlan::new(&spec, self.seeds, self.batches, &Limits::default()) {
                Ok(plan) => {
                    self.total = plan.tasks();
                    match self.spawn(ctx, plan.tasks()) {
                        Ok(()) => {
                            self.plan = Some(plan);
                            self.running = true;
                        }
                        Err(e) => {
                            self.stop_workers();
                            self.error = Some(e);
                        }
                    }
                }
                Err(e) => self.error = Some(e),
            },
            Err(e) => self.error = Some(e),
        }
    }

    /// The sweep the fields describe, as a link holds it.
    fn sweep_to_share(&self) -> Result<SharedSweep, String> {
        self.checked_spec().map(|spec| SharedSweep {
            spec,
            seeds: self.seeds,
            batches: self.batches,
        })
    }

    fn share(&mut self) {
        match self
            .sweep_to_share()
            .and_then(|s| share::encode_sweep(&s).map(|f| (s, f)))
        {
            Err(e) => self.error = Some(e),
            Ok((shared, frag)) => {
                self.share_url = Some(share::link(&frag));
                self.shared = Some(shared);
            }
        }
    }

    /// Puts the selected preset's parameters back in the fields.
    fn reset_fields(&mut self) {
        self.fields = SweepFields::of(&(SWEEP_PRESETS[self.preset].spec)());
        self.error = None;
    }

    fn cancel(&mut self) {
        if self.running {
            self.stop_workers();
            self.plan = None;
            self.generation += 1;
            self.running = false;
            self.notice = Some(format!(
                "Sweep cancelled after {} of {} simulations.",
                self.done, self.total
            ));
        }
    }
}

impl Component for SfPanel {
    type Message = SfMsg;
    type Properties = ();

    fn create(ctx: &Context<Self>) -> Self {
        let mut panel = SfPanel {
            workers: Vec::new(),
            parts: Vec::new(),
            part_done: Vec::new(),
            started_ms: 0.0,
            last_workers: 0,
            plan: None,
            generation: 0,
            preset: 0,
            fields: SweepFields::of(&(SWEEP_PRESETS[0].spec)()),
            seeds: DEFAULT_SEEDS,
            batches: DEFAULT_BATCHES,
            running: false,
            done: 0,
            total: 0,
            result: None,
            error: None,
            notice: None,
            share_url: None,
            shared: None,
        };
        if panel.open_link() && !panel.asks_first() {
            ctx.link().send_message(SfMsg::Run);
        }
        panel
    }

    fn update(&mut self, ctx: &Context<Self>, msg: SfMsg) -> bool {
        match msg {
            SfMsg::Worker(g, _, _) | SfMsg::WorkerError(g, _) if g != self.generation => {
                return false
            }
            SfMsg::Worker(_, w, ev) => return self.on_worker(w, ev),
            SfMsg::WorkerError(_, m) => {
                self.running = false;
                self.stop_workers();
                self.error = Some(m);
            }
            SfMsg::Preset(i) => {
                self.preset = i.min(SWEEP_PRESETS.len() - 1);
                self.reset_fields();
            }
            SfMsg::Reset => self.reset_fields(),
            SfMsg::Field(f, v) => self.on_field(f, v),
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
            SfMsg::Run => self.run(ctx),
            SfMsg::Share => self.share(),
            SfMsg::Cancel => self.cancel(),
        }
        // A link on screen always re-runs what the fields say.
        if self.share_url.is_some() {
            let now = self.sweep_to_share().ok();
            if now != self.shared {
                self.share_url = None;
                self.shared = None;
            }
        }
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
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
                        <select data-testid="sf-preset" onchange={on_preset} onkeydown={super::panels::form::hold_preset_keys} title={super::panels::form::PRESET_KEYS_HELP}>
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
}

impl SfPanel {
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
                    <super::panels::Alert testid="sf-error" text={e.clone()} />
                }
                if let Some(n) = &self.notice {
                    <div class="notice" role="status" data-testid="sf-notice">{n}</div>
                }
                if let Some(url) = &self.share_url {
                    <p class="help">{"Link to this sweep (the parameters, seeds and batches; opening it runs the sweep): "}
                        <output data-testid="sf-share-url" class="share-url">{url}</output>
                        {" "}<super::panels::CopyButton text={url.clone()} testid="sf-share-copy" /></p>
                }
                { match self.result.as_ref().and_then(|r| super::panels::sf_manifest(r, self.preset)) {
                    Some(m) => html! { <super::panels::ExportFamily id="sf" manifest={Rc::new(m)} /> },
                    None => super::panels::family_export("sf", None),
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
            <ChartView chart={Some(Chart::Sweep(Sweep(r.clone())))} testid="chart-sweep" width={640} height={320} />
            <p class="help" data-testid="sf-result-description">{format!("{}: {}{}. Band coverage {:.1} %; {} warm-up batches of {} not measured.",
                r.preset,
                r.description,
                if r.paper.is_empty() { String::new() } else { format!(" — the paper: {}", r.paper) },
                r.confidence * 100.0, r.warmup, r.batches)}</p>
            if let Some(h) = &r.history {
                <ChartView chart={Some(Chart::History(History(r.clone())))} testid="chart-history" width={640} height={280} />
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
