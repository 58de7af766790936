//! The "Workload allocation (SF)" view: the SF paper's sweeps — every parameter editable,
//! starting from a preset — run in their own engine workers (so a sweep and a scheduling run
//! never wait for each other, and cancelling one leaves the other alone), and the allocation
//! calculator (`panels::AllocationCalculator`: OWA and WW fractions and the predicted
//! response time, computed on the page). This file is SF's [`FamilyPanel`]: the sweep a
//! pool of workers runs, `#w1=` links and the fields' changes; `fields` holds the sweep's
//! fields, `view` what the view shows.

mod fields;
mod view;

use std::rc::Rc;

use yew::prelude::*;

use super::family::{Answer, Runner, Task};
use super::family_view::{FamilyPanel, Linked, Opening, Then};
use super::{family_export, sf_manifest, AllocationCalculator, ExportFamily};
use crate::allocation::sweep::{
    assemble_shares, SweepPlan, SweepSpec, CONFIRM_ABOVE_SWEEP_JOBS, SWEEP_PRESETS,
};
use crate::limits::Limits;
use crate::web::engine_worker;
use crate::web::protocol::{FromWorker, SweepData, ToWorker};
use crate::web::share::{self, SharedSweep};
pub use fields::{SweepField, SweepFields};

/// Page defaults: lighter than the CLI's 10 seeds × 20,000 batches so a sweep takes seconds.
const DEFAULT_SEEDS: u64 = 5;
const DEFAULT_BATCHES: u64 = 5_000;

/// A change of the SF view's fields.
pub enum SfField {
    Preset(usize),
    /// Puts the selected preset's parameters back in the fields.
    Reset,
    Field(SweepField, String),
    Seeds(String),
    Batches(String),
}

pub struct Sf {
    preset: usize,
    fields: SweepFields,
    seeds: u64,
    batches: u64,
    result: Option<Rc<SweepData>>,
    /// The paper's claims this sweep measures, in words (issue #38).
    claims: Vec<crate::reproduce::Row>,
}

/// An SF sweep spread over a pool of workers: one per core (at most
/// `engine_worker::MAX_WORKERS`) but no more than runs, each running every n-th run of the
/// plan; the shares go back in run order before `assemble_shares` (the same bytes as one
/// worker or the CLI).
pub struct SweepTask {
    plan: SweepPlan,
}

impl Task for SweepTask {
    type Output = SweepData;

    fn workers(&self) -> u64 {
        (engine_worker::cores() as u64)
            .min(self.plan.tasks())
            .max(1)
    }

    fn total(&self) -> u64 {
        self.plan.tasks()
    }

    fn message(&self, worker: u64, of: u64) -> ToWorker {
        ToWorker::SweepPart {
            spec: self.plan.spec().clone(),
            seeds: self.plan.seeds(),
            batches: self.plan.batches(),
            worker,
            of,
        }
    }

    fn read(&self, m: &FromWorker) -> Answer {
        match m {
            FromWorker::SweepProgress { done, .. } => Answer::Progress {
                done: *done,
                total: None,
            },
            FromWorker::SweepPartDone { .. } => Answer::Done { elapsed_ms: None },
            FromWorker::SweepFailed { message } => Answer::Failed(message.clone()),
            _ => Answer::Other,
        }
    }

    fn finish(self, parts: Vec<FromWorker>, elapsed_ms: f64) -> Result<SweepData, String> {
        let shares = parts
            .into_iter()
            .map(|m| match m {
                FromWorker::SweepPartDone { samples, .. } => samples,
                _ => Vec::new(),
            })
            .collect();
        let mut r = assemble_shares(&self.plan, shares)?;
        r.elapsed_ms = elapsed_ms;
        Ok(r)
    }
}

impl Sf {
    /// A linked sweep above [`CONFIRM_ABOVE_SWEEP_JOBS`] waits for Run, with a notice that
    /// says what it would simulate (a hostile link cannot tie up the tab).
    /// A link the limits refuse says so at once, and offers no Run.
    fn asks_first(&self) -> Opening {
        let Ok(spec) = self.fields.spec() else {
            return Opening::Run;
        };
        let limits = Limits::default();
        if let Err(e) = crate::allocation::sweep::check(&spec, self.seeds, self.batches, &limits) {
            return Opening::Error(format!("This shared sweep cannot run: {e}."));
        }
        let Ok(jobs) = crate::allocation::sweep::sweep_jobs(&spec, self.seeds, self.batches) else {
            return Opening::Run;
        };
        if jobs <= CONFIRM_ABOVE_SWEEP_JOBS {
            return Opening::Run;
        }
        Opening::Wait(format!(
            "This shared sweep would simulate about {} jobs — more than a link starts by itself ({}); press Run to start it (Cancel stops it).",
            crate::web::format::fmt_num(jobs, 0),
            crate::web::format::fmt_num(CONFIRM_ABOVE_SWEEP_JOBS, 0)
        ))
    }

    /// The sweep the fields describe, checked here so a bad field is reported at once.
    fn checked_spec(&self) -> Result<SweepSpec, String> {
        self.fields
            .spec()
            .and_then(|s| s.validate(self.batches).map(|()| s))
    }

    /// Puts the selected preset's parameters back in the fields.
    fn reset_fields(&mut self) -> Then {
        self.fields = SweepFields::of(&(SWEEP_PRESETS[self.preset].spec)());
        Then::ClearError
    }
}

impl FamilyPanel for Sf {
    const ID: &'static str = "sf";
    const CLASS: &'static str = "sf";
    const LABEL: &'static str = "Workload allocation (SF)";
    const HEADING: &'static str = "Workload allocation (SF)";
    const RUN: &'static str = "Run sweep";
    const SHARE: &'static str = "Share sweep";
    const SHARE_TITLE: &'static str =
        "A link that re-runs this sweep (every parameter, seeds and batches) to the same numbers";
    const PROGRESS_LABEL: &'static str = "sweep progress";
    const LINK_TEXT: &'static str =
        "Link to this sweep (the parameters, seeds and batches; opening it runs the sweep): ";
    type Field = SfField;
    type Task = SweepTask;
    type Link = SharedSweep;

    fn new() -> Self {
        Sf {
            preset: 0,
            fields: SweepFields::of(&(SWEEP_PRESETS[0].spec)()),
            seeds: DEFAULT_SEEDS,
            batches: DEFAULT_BATCHES,
            result: None,
            claims: Vec::new(),
        }
    }

    fn intro(&self) -> Html {
        super::family::intro(Self::ID, "")
    }

    fn linked(fragment: &str) -> Option<Linked> {
        let sweep = share::decode_sweep(fragment).ok()??;
        Some(Linked {
            what: format!(
                "an SF allocation sweep ({} seeds × {} batches)",
                sweep.seeds, sweep.batches
            ),
            needs: None,
        })
    }

    /// A sweep link (`#w1=`) fills the fields and runs, unless it asks for more than a
    /// link starts by itself or the limits refuse it.
    fn open_link(&mut self) -> Opening {
        match share::decode_sweep(&crate::web::format::location_hash()) {
            Ok(None) => Opening::Nothing,
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
                self.asks_first()
            }
            Err(e) => Opening::Error(format!("{e}. The sweep fields keep their defaults.")),
        }
    }

    /// The sweep the fields describe, as a link holds it.
    fn link(&self) -> Result<SharedSweep, String> {
        self.checked_spec().map(|spec| SharedSweep {
            spec,
            seeds: self.seeds,
            batches: self.batches,
        })
    }

    fn encode(link: &SharedSweep) -> Result<String, String> {
        share::encode_sweep(link)
    }

    fn task(&self, sweep: SharedSweep) -> Result<SweepTask, String> {
        let plan = SweepPlan::new(&sweep.spec, sweep.seeds, sweep.batches, &Limits::default())?;
        Ok(SweepTask { plan })
    }

    fn set(&mut self, field: SfField) -> Result<Then, String> {
        match field {
            SfField::Preset(i) => {
                self.preset = i.min(SWEEP_PRESETS.len() - 1);
                return Ok(self.reset_fields());
            }
            SfField::Reset => return Ok(self.reset_fields()),
            SfField::Field(f, v) => self.fields.set(f, v)?,
            SfField::Seeds(v) => match v.trim().parse::<u64>() {
                Ok(n) if (1..=1000).contains(&n) => self.seeds = n,
                _ => return Err(format!("seeds: '{v}' is not a whole number in 1..1000")),
            },
            SfField::Batches(v) => match v.trim().parse::<u64>() {
                Ok(n) if (100..=10_000_000).contains(&n) => self.batches = n,
                _ => {
                    return Err(format!(
                        "batches: '{v}' is not a whole number in 100..10,000,000"
                    ))
                }
            },
        }
        Ok(Then::Show)
    }

    fn show(&mut self, result: SweepData) -> Result<(), String> {
        // The claims read the sweep's JSON report, as `gridscope run --preset sf-* --json`.
        self.claims = serde_json::to_value(&result)
            .map(|report| super::claims::read_claims(Self::ID, &result.preset, &report))
            .unwrap_or_default();
        self.result = Some(Rc::new(result));
        Ok(())
    }

    fn unit(&self) -> &'static str {
        "simulations"
    }

    fn status(&self, runner: &Runner<SweepTask>) -> String {
        match (&self.result, runner.running) {
            (_, true) => format!("running… {} of {} simulations", runner.done, runner.total),
            (Some(r), false) => format!(
                "done in {:.2} s on {} worker{} ({}: {} seeds × {} batches)",
                r.elapsed_ms / 1000.0,
                runner.last_workers,
                if runner.last_workers == 1 { "" } else { "s" },
                r.preset,
                r.seeds,
                r.batches
            ),
            (None, false) => String::new(),
        }
    }

    fn cancelled(&self, done: u64, total: u64) -> String {
        format!("Sweep cancelled after {done} of {total} simulations.")
    }

    fn form(&self, on: &Callback<SfField>) -> Html {
        self.view_fields(on)
    }

    fn results(&self, _on: &Callback<SfField>) -> Html {
        html! {
            <>
                if let Some(r) = &self.result {
                    { super::claims::view_run_claims(Self::ID, &r.preset, &self.claims) }
                    { view::view_result(r) }
                }
                <AllocationCalculator />
            </>
        }
    }

    /// The sweep on screen as a manifest (not only after a run of this page's: a result
    /// stays exportable while the next sweep runs).
    fn export(&self, _running: bool, _ran: Option<&SharedSweep>) -> Html {
        match self
            .result
            .as_ref()
            .and_then(|r| sf_manifest(r, self.preset))
        {
            Some(m) => html! { <ExportFamily id="sf" manifest={Rc::new(m)} /> },
            None => family_export("sf", None),
        }
    }
}
