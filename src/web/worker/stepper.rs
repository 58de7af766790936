//! A scenario run in slices, for the worker: the same runs, metrics and report as
//! `scenario::run_loaded` (it calls the same `prepare`, `check_algorithm`, `run_report`), but driven a budget of events at a time through the engine's
//! steppable [`Simulation`], so the worker can answer the page (pause, resume, cancel)
//! between slices. The jobs and platforms are shared (`Arc`) so a simulation outlives the
//! message that started it. A wasm test checks the report against `run_loaded`'s, byte for
//! byte.

use std::sync::Arc;

use crate::engine::{RunConfig, Simulation};
use crate::model::{Job, Platform};
use crate::scenario::{
    check_algorithm, conventions, group_platform, prepare, run_report, Report, RunReport, Scenario,
    ScenarioError,
};
use crate::web::protocol::PreparedRun;
use crate::workload::Workload;

/// What a slice did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slice {
    /// The current run goes on.
    Running,
    /// Run `i` ended: its report is [`SlicedRun::last_run`].
    RunDone(usize),
    /// Every run has ended: [`SlicedRun::finish`] gives the report.
    AllDone,
}

/// The run in progress: its index, the platform it runs on (SES node groups expanded) and
/// the simulation.
struct Current {
    index: usize,
    platform: Arc<Platform>,
    sim: Simulation<'static>,
}

pub struct SlicedRun {
    scenario: Scenario,
    /// The scenario's platform (before any expansion into node groups).
    platform: Arc<Platform>,
    platform_note: String,
    jobs: Arc<[Job]>,
    /// The workload without its jobs (they are in `jobs` while the runs go on).
    workload: Workload,
    cfg: RunConfig,
    current: Option<Current>,
    runs: Vec<RunReport>,
    /// The platform each finished run used, in run order.
    run_platforms: Vec<Arc<Platform>>,
    /// A pool worker's share: only this run is simulated ([`SlicedRun::only`]).
    only: Option<usize>,
}

impl SlicedRun {
    /// Checks the scenario against the workload and resolves the platform, as
    /// `scenario::run_loaded` does; nothing is simulated yet.
    pub fn new(scenario: &Scenario, mut workload: Workload) -> Result<SlicedRun, ScenarioError> {
        let (platform, platform_note) = prepare(scenario, &mut workload, &Default::default())?;
        let jobs: Arc<[Job]> = Arc::from(std::mem::take(&mut workload.jobs));
        Ok(SlicedRun {
            scenario: scenario.clone(),
            platform: Arc::new(platform),
            platform_note,
            jobs,
            workload,
            cfg: scenario.options,
            current: None,
            runs: Vec::new(),
            run_platforms: Vec::new(),
            only: None,
        })
    }

    /// The prepared scenario as a pool worker gets it ([`SlicedRun::from_prepared`] with
    /// [`SlicedRun::jobs`] gives the same runs).
    pub fn prepared(&self) -> PreparedRun {
        PreparedRun {
            scenario: self.scenario.clone(),
            platform: Platform::clone(&self.platform),
            platform_note: self.platform_note.clone(),
            workload: self.workload.name.clone(),
            origin: self.workload.origin.0,
            report: self.workload.report.clone(),
        }
    }

    /// A pool worker's copy of the coordinator's prepared scenario: nothing is checked or
    /// resolved again.
    pub fn from_prepared(p: PreparedRun, jobs: Vec<Job>) -> SlicedRun {
        let cfg = p.scenario.options;
        SlicedRun {
            scenario: p.scenario,
            platform: Arc::new(p.platform),
            platform_note: p.platform_note,
            jobs: Arc::from(jobs),
            workload: Workload {
                name: p.workload,
                jobs: Vec::new(),
                origin: crate::time::SimTime(p.origin),
                report: p.report,
            },
            cfg,
            current: None,
            runs: Vec::new(),
            run_platforms: Vec::new(),
            only: None,
        }
    }

    /// The same scenario, prepared, with no run done: a pool worker prepares a pooled
    /// run's workload once and starts each of its runs from it (the jobs are shared).
    pub fn fresh(&self) -> SlicedRun {
        SlicedRun {
            scenario: self.scenario.clone(),
            platform: self.platform.clone(),
            platform_note: self.platform_note.clone(),
            jobs: self.jobs.clone(),
            workload: self.workload.clone(),
            cfg: self.cfg,
            current: None,
            runs: Vec::new(),
            run_platforms: Vec::new(),
            only: None,
        }
    }

    /// Simulates run `index` alone (a pool worker's share of the scenario): the first slice
    /// starts it, and the slice after it ends says [`Slice::AllDone`].
    pub fn only(mut self, index: usize) -> Result<SlicedRun, ScenarioError> {
        if index >= self.algorithms() {
            return Err(ScenarioError::Invalid(format!(
                "run {index} asked of a scenario with {} algorithm(s)",
                self.algorithms()
            )));
        }
        self.only = Some(index);
        Ok(self)
    }

    /// Takes run `index`'s report as another worker computed it (its outcomes included),
    /// in run order: `index` must be [`SlicedRun::finished`]. The run's platform is the one
    /// [`SlicedRun::slice`] would have used, so the report and Gantt charts are the same.
    pub fn adopt(&mut self, index: usize, report: RunReport) -> Result<(), ScenarioError> {
        if index != self.runs.len() || report.outcomes.len() != self.jobs.len() {
            return Err(ScenarioError::Invalid(format!(
                "a pool worker's run {index} ({} outcomes) does not fit run {} of {} jobs",
                report.outcomes.len(),
                self.runs.len(),
                self.jobs.len()
            )));
        }
        let platform = self.run_platform(index)?;
        self.runs.push(report);
        self.run_platforms.push(platform);
        Ok(())
    }

    /// Takes the last finished run's report out (a pool worker's answer).
    pub fn take_last_run(&mut self) -> Option<RunReport> {
        self.run_platforms.pop();
        self.runs.pop()
    }

    pub fn platform(&self) -> &Platform {
        &self.platform
    }

    pub fn platform_note(&self) -> &str {
        &self.platform_note
    }

    pub fn jobs(&self) -> &[Job] {
        &self.jobs
    }

    pub fn import_summary(&self) -> String {
        self.workload.report.summary()
    }

    pub fn algorithms(&self) -> usize {
        self.scenario.algorithms.len()
    }

    /// `(run, jobs done, jobs in all)` of the run in progress (or the next one).
    pub fn progress(&self) -> (usize, u64, u64) {
        match &self.current {
            Some(c) => {
                let (done, total) = c.sim.progress();
                (c.index, done, total)
            }
            None => (
                self.only.unwrap_or(self.runs.len()),
                0,
                self.jobs.len() as u64,
            ),
        }
    }

    /// Runs finished so far.
    pub fn finished(&self) -> usize {
        self.runs.len()
    }

    /// The last finished run, the platform it ran on (its sites are the outcomes' sites) and
    /// the jobs.
    pub fn last_run(&mut self) -> Option<(&mut RunReport, &Platform, &[Job])> {
        let platform = self.run_platforms.last()?;
        Some((self.runs.last_mut()?, platform, &self.jobs))
    }

    /// Simulates about `budget` more events of the current run (starting the next run when
    /// none is going on).
    pub fn slice(&mut self, budget: u64) -> Result<Slice, ScenarioError> {
        let mut current = match (self.current.take(), self.only) {
            (Some(c), _) => c,
            (None, Some(_)) if !self.runs.is_empty() => return Ok(Slice::AllDone),
            (None, Some(index)) => self.start(index)?,
            (None, None) if self.runs.len() == self.algorithms() => return Ok(Slice::AllDone),
            (None, None) => self.start(self.runs.len())?,
        };
        let over = current.sim.run_events(budget).map_err(ScenarioError::Sim)?;
        if !over {
            self.current = Some(current);
            return Ok(Slice::Running);
        }
        let Current {
            index,
            platform,
            sim,
        } = current;
        // The engine checks the run's invariants before returning it.
        let out = sim.finish().map_err(ScenarioError::Sim)?;
        let alg = &self.scenario.algorithms[index];
        let report = run_report(
            alg,
            &platform,
            &self.jobs,
            &self.cfg,
            &self.workload.report,
            out,
        )?;
        self.runs.push(report);
        self.run_platforms.push(platform);
        Ok(Slice::RunDone(index))
    }

    /// Run `i`'s simulation, its parameters checked.
    fn start(&self, index: usize) -> Result<Current, ScenarioError> {
        let alg = &self.scenario.algorithms[index];
        check_algorithm(alg)?;
        let platform = self.run_platform(index)?;
        let sim = Simulation::new(
            platform.clone(),
            self.jobs.clone(),
            alg.local,
            alg.grid,
            &alg.grid_params,
            &self.cfg,
        )
        .map_err(ScenarioError::Sim)?
        .with_seed(self.scenario.seed)
        // The page keeps to the default limits: a conservative backlog too long to re-plan
        // ends the run with the limit's message instead of running for hours.
        .with_work_limit(crate::limits::Limits::default().plan_work);
        Ok(Current {
            index,
            platform,
            sim,
        })
    }

    /// The platform run `index` runs on: SES node-group selection runs on the site's
    /// groups, one engine site each; every other scheme on the scenario's platform.
    fn run_platform(&self, index: usize) -> Result<Arc<Platform>, ScenarioError> {
        match self.scenario.algorithms.get(index) {
            Some(alg) if alg.grid.is_group_selection() => {
                Ok(Arc::new(group_platform(&self.platform)?))
            }
            _ => Ok(self.platform.clone()),
        }
    }

    /// The report of every run, as `scenario::run_loaded` gives it, and the platform each
    /// run ran on.
    pub fn finish(self) -> (Report, Vec<Arc<Platform>>) {
        let cfg = self.cfg;
        let mut workload = self.workload;
        workload.jobs = self.jobs.to_vec();
        let report = Report {
            scenario: self.scenario.name.clone(),
            offered_load: crate::metrics::offered_load(&self.platform, &self.jobs, &cfg),
            platform: Platform::clone(&self.platform),
            platform_note: self.platform_note,
            conventions: conventions(&cfg),
            runs: self.runs,
            import: workload.report.clone(),
            workload,
        };
        (report, self.run_platforms)
    }
}
