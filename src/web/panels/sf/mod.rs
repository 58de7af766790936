//! The "Workload allocation (SF)" view: the SF paper's sweeps — every parameter editable,
//! starting from a preset — run in their own engine workers (so a sweep and a scheduling run
//! never wait for each other, and cancelling one leaves the other alone), and the allocation
//! calculator (`panels::AllocationCalculator`: OWA and WW fractions and the predicted
//! response time, computed on the page). This file is the component: its messages, the
//! page-side pool of workers a sweep is spread over, and share links; `fields` holds the
//! sweep's fields, `view` what the view shows.

mod fields;
mod view;

use std::rc::Rc;

use yew::prelude::*;

use crate::allocation::sweep::{
    assemble_shares, SweepPlan, SweepSample, SweepSpec, CONFIRM_ABOVE_SWEEP_JOBS, SWEEP_PRESETS,
};
use crate::limits::Limits;
use crate::web::engine_worker::{self, EngineWorker};
use crate::web::protocol::*;
use crate::web::share::{self, SharedSweep};
pub use fields::{SweepField, SweepFields};

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

impl SfPanel {
    /// Starts the pool for a sweep of `tasks` runs: as many workers as the machine has
    /// cores, but no more than runs.
    fn spawn(&mut self, ctx: &Context<Self>, tasks: u64) -> Result<(), String> {
        self.generation += 1;
        let gen = self.generation;
        self.stop_workers();
        let n = (engine_worker::cores() as u64).min(tasks).max(1);
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
            crate::web::format::fmt_num(jobs, 0),
            crate::web::format::fmt_num(CONFIRM_ABOVE_SWEEP_JOBS, 0)
        ));
        true
    }

    /// A sweep link (`#w1=`) fills the fields; `true` when the sweep should run at once.
    fn open_link(&mut self) -> bool {
        match share::decode_sweep(&crate::web::format::location_hash()) {
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
            SfMsg::Field(f, v) => {
                if let Err(e) = self.fields.set(f, v) {
                    self.error = Some(e);
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
        self.page(ctx)
    }
}
