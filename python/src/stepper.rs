//! The Gymnasium environment's engine side: a one-site simulation whose local policy is an
//! agent choosing one queued job at a time. The engine runs as usual (completions, arrivals,
//! passes); the agent's policy starts nothing in the engine's own passes and starts the
//! chosen job in an extra pass at the same instant (`Simulation::pass_now`), so every start
//! still goes through the engine's capacity check and the run ends with its invariants.
//!
//! A *decision point* is an instant at which some queued job fits the free units: there the
//! environment hands control back to the agent. Observation layout (all in [0, 1], f32):
//! `slots` rows of 4 for the first queued jobs in arrival order — units / capacity,
//! log1p(estimate s) / log1p(30 days), log1p(wait so far s) / log1p(30 days), fits now
//! (0/1), zeros past the queue — then 4 for the machine: free / capacity, min(queue length /
//! slots, 1), units whose jobs are predicted to end within the hour / capacity, min(running
//! jobs / capacity, 1). Action mask: slot k is valid when a job is there and fits now;
//! "wait" (the last action) when some job runs (else waiting could never end).

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

use gridscope::engine::{RunConfig, Simulation};
use gridscope::metrics::compute_placed;
use gridscope::model::{Job, JobIdx, Platform};
use gridscope::policy::grid::{GridParams, GridScheme};
use gridscope::policy::local::{LocalPolicy, LocalPolicyKind, QueuedJob, SiteView};
use gridscope::scenario::{
    AlgorithmSpec, PlatformSpec, Scenario, ScenarioRun, WorkloadSpec, SCENARIO_VERSION,
};
use gridscope::workload::TraceFormat;

use crate::engine_err;
use crate::policy::{make_view, secs, QueuedJob as PyQueued, View};
use crate::workload::Workload;

const HORIZON_S: f64 = 30.0 * 86_400.0;

#[derive(Default)]
struct Agent {
    queue: Vec<QueuedJob>,
    /// The job the agent chose, started at the next pass.
    chosen: Option<JobIdx>,
}

struct AgentPolicy(Rc<RefCell<Agent>>);

impl LocalPolicy for AgentPolicy {
    fn name(&self) -> &'static str {
        "agent"
    }
    fn enqueue(&mut self, job: QueuedJob, _site: &SiteView) {
        self.0.borrow_mut().queue.push(job);
    }
    fn schedule(&mut self, _site: &SiteView, starts: &mut Vec<JobIdx>) {
        let mut a = self.0.borrow_mut();
        if let Some(idx) = a.chosen.take() {
            if let Some(p) = a.queue.iter().position(|q| q.idx == idx) {
                a.queue.remove(p);
                starts.push(idx);
            }
        }
    }
    fn queue_len(&self) -> usize {
        self.0.borrow().queue.len()
    }
    fn queued(&self) -> Vec<QueuedJob> {
        self.0.borrow().queue.clone()
    }
    fn withdraw(&mut self, job: JobIdx) -> bool {
        let mut a = self.0.borrow_mut();
        match a.queue.iter().position(|q| q.idx == job) {
            Some(p) => {
                a.queue.remove(p);
                true
            }
            None => false,
        }
    }
}

/// One episode. Not shared across threads (`unsendable`): the vector environments make one
/// per sub-environment.
#[pyclass(unsendable, module = "gridscope._gridscope")]
pub struct Stepper {
    sim: Option<Simulation<'static>>,
    agent: Rc<RefCell<Agent>>,
    platform: Arc<Platform>,
    jobs: Arc<[Job]>,
    cfg: RunConfig,
    capacity: u32,
    slots: usize,
    metrics: Option<String>,
    decisions: u64,
}

impl Stepper {
    fn sim(&self) -> PyResult<&Simulation<'static>> {
        self.sim
            .as_ref()
            .ok_or_else(|| engine_err("the episode is over: call reset()"))
    }

    fn sim_mut(&mut self) -> PyResult<&mut Simulation<'static>> {
        self.sim
            .as_mut()
            .ok_or_else(|| engine_err("the episode is over: call reset()"))
    }

    /// The site as its policy sees it now.
    fn site(&self) -> PyResult<SiteView<'_>> {
        self.sim()?
            .site_view(0)
            .ok_or_else(|| engine_err("the environment's site is missing"))
    }

    fn is_decision(&self) -> PyResult<bool> {
        let free = self.site()?.free;
        Ok(self.agent.borrow().queue.iter().any(|q| q.units <= free))
    }

    /// Steps the engine until a decision point or the end (then the metrics are kept).
    fn advance(&mut self) -> PyResult<bool> {
        loop {
            if self.is_decision()? {
                return Ok(false);
            }
            let sim = self.sim_mut()?;
            if sim.is_finished() {
                let sim = self.sim.take().ok_or_else(|| engine_err("no simulation"))?;
                let out = sim.finish().map_err(engine_err)?;
                let m = compute_placed(
                    &self.platform,
                    &self.jobs,
                    &out.outcomes,
                    &out.placements,
                    &self.cfg,
                    0,
                    None,
                );
                self.metrics = Some(serde_json::to_string(&m).map_err(engine_err)?);
                return Ok(true);
            }
            sim.step().map_err(engine_err)?;
        }
    }
}

#[pymethods]
impl Stepper {
    /// An episode over `workload` (one site of `procs` units; default the trace header's
    /// MaxProcs, else the widest job) with `slots` queue slots in the observation.
    #[new]
    #[pyo3(signature = (workload, procs = None, slots = 32, kill_at_estimate = true, exact_estimates = false))]
    fn new(
        workload: &Workload,
        procs: Option<u32>,
        slots: usize,
        kill_at_estimate: bool,
        exact_estimates: bool,
    ) -> PyResult<Stepper> {
        let w = &workload.inner;
        if w.jobs.is_empty() {
            return Err(engine_err(format!("{}: no job to schedule", w.name)));
        }
        let cfg = RunConfig {
            kill_at_estimate,
            estimates: if exact_estimates {
                gridscope::engine::EstimateSource::Exact
            } else {
                gridscope::engine::EstimateSource::Trace
            },
            ..RunConfig::default()
        };
        // The library's one runner builds the episode's simulation as it builds every run
        // (one site sized from the trace, every job on it), with the agent as the site's
        // local policy; the environment then steps it itself.
        let scenario = Scenario {
            failures: None,
            carbon: None,
            version: SCENARIO_VERSION,
            name: "gymnasium".into(),
            seed: 0,
            platform: PlatformSpec::FromTrace { procs },
            workload: WorkloadSpec::Swf {
                file: w.name.clone(),
                strict: false,
                format: TraceFormat::default(),
                utc_offset_min: 0,
            },
            algorithms: vec![AlgorithmSpec {
                label: Some("agent".into()),
                local: LocalPolicyKind::Fcfs,
                grid: GridScheme::Local,
                grid_params: GridParams::default(),
                ..AlgorithmSpec::default()
            }],
            options: cfg,
        };
        let mut workload = (**w).clone();
        workload.on_one_site();
        let agent = Rc::new(RefCell::new(Agent::default()));
        let a = agent.clone();
        let mut run = ScenarioRun::new(&scenario, workload)
            .map_err(engine_err)?
            .with_policies(Box::new(move |_| Box::new(AgentPolicy(a.clone()))));
        let (platform, sim) = run.simulation(0).map_err(engine_err)?;
        let jobs = run.shared_jobs();
        let capacity = platform.sites[0].capacity_units();
        let mut s = Stepper {
            sim: Some(sim),
            agent,
            platform,
            jobs,
            cfg,
            capacity,
            slots: slots.max(1),
            metrics: None,
            decisions: 0,
        };
        s.advance()?;
        Ok(s)
    }

    /// True once every job is done.
    fn finished(&self) -> bool {
        self.sim.is_none()
    }

    /// The episode's metrics (the CLI's names) as JSON once it is over.
    fn metrics_json(&self) -> Option<String> {
        self.metrics.clone()
    }

    /// The current instant (s).
    fn now(&self) -> f64 {
        self.sim
            .as_ref()
            .map_or(f64::NAN, |s| s.now().0 as f64 / 1000.0)
    }

    fn queue_len(&self) -> usize {
        self.agent.borrow().queue.len()
    }

    /// Decisions taken so far (starts and waits).
    fn decisions(&self) -> u64 {
        self.decisions
    }

    /// Starts the job in queue slot `slot` now (it must be a valid action), then runs to the
    /// next decision point. Returns true when the episode is over.
    fn start(&mut self, slot: usize) -> PyResult<bool> {
        let free = self.site()?.free;
        let job = self.agent.borrow().queue.get(slot).copied();
        let Some(job) = job.filter(|q| slot < self.slots && q.units <= free) else {
            return Err(engine_err(format!(
                "action {slot} is not valid now (no job there, or it does not fit)"
            )));
        };
        self.decisions += 1;
        self.agent.borrow_mut().chosen = Some(job.idx);
        self.sim_mut()?.pass_now(0).map_err(engine_err)?;
        self.advance()
    }

    /// Waits: the engine moves on to its next instant, then to the next decision point.
    /// Returns true when the episode is over.
    fn wait(&mut self) -> PyResult<bool> {
        if self.site()?.running.is_empty() {
            return Err(engine_err(
                "waiting is not valid now: nothing runs, so nothing would ever change",
            ));
        }
        self.decisions += 1;
        self.sim_mut()?.step().map_err(engine_err)?;
        self.advance()
    }

    /// What a scheduler written for `gridscope.simulate` would see now (a `View`): the
    /// environment can then be driven by any such policy (`gridscope.gym.PolicyAgent`).
    fn view(&self, py: Python<'_>) -> PyResult<Py<View>> {
        let site = self.site()?;
        let queue = PyList::empty(py);
        for q in self.agent.borrow().queue.iter() {
            let j = &self.jobs[q.idx as usize];
            queue.append(Py::new(
                py,
                PyQueued {
                    idx: q.idx,
                    job_id: j.id,
                    units: q.units,
                    estimate: secs(q.estimate),
                    submit: secs(j.submit),
                    queued_at: secs(q.queued_at),
                    estimate_ms: q.estimate.0,
                },
            )?)?;
        }
        make_view(py, &site, 0, queue, &self.jobs)
    }

    /// `(observation as little-endian f32 bytes, action mask as bytes of 0/1)`.
    fn observe<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
        let k = self.slots;
        let mut obs = vec![0f32; 4 * k + 4];
        let mut mask = vec![0u8; k + 1];
        if self.sim.is_none() {
            return Ok((f32_bytes(py, &obs), PyBytes::new(py, &mask)));
        }
        let site = self.site()?;
        let (free, now) = (site.free, site.now);
        let cap = self.capacity.max(1) as f64;
        let norm = |s: f64| ((s.max(0.0)).ln_1p() / HORIZON_S.ln_1p()).min(1.0) as f32;
        let agent = self.agent.borrow();
        for (i, q) in agent.queue.iter().take(k).enumerate() {
            let fits = q.units <= free;
            obs[4 * i] = (q.units as f64 / cap).min(1.0) as f32;
            obs[4 * i + 1] = norm(q.estimate.0 as f64 / 1000.0);
            obs[4 * i + 2] = norm((now - q.queued_at).0 as f64 / 1000.0);
            obs[4 * i + 3] = f32::from(u8::from(fits));
            mask[i] = u8::from(fits);
        }
        // The running set is keyed by predicted end: the jobs ending within the hour come first.
        let soon: u64 = site
            .running
            .iter()
            .take_while(|((end, _), _)| (*end - now).0 <= 3_600_000)
            .map(|(_, &u)| u as u64)
            .sum();
        let m = 4 * k;
        obs[m] = (free as f64 / cap) as f32;
        obs[m + 1] = (agent.queue.len() as f64 / k as f64).min(1.0) as f32;
        obs[m + 2] = (soon as f64 / cap).min(1.0) as f32;
        obs[m + 3] = (site.running.len() as f64 / cap).min(1.0) as f32;
        mask[k] = u8::from(!site.running.is_empty());
        Ok((f32_bytes(py, &obs), PyBytes::new(py, &mask)))
    }
}

fn f32_bytes<'py>(py: Python<'py>, v: &[f32]) -> Bound<'py, PyBytes> {
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    PyBytes::new(py, &bytes)
}
