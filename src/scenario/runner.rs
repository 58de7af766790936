//! The one scenario runner: [`ScenarioRun`] checks a scenario against its workload
//! ([`prepare`]), then runs its algorithms one after another — a budget of events or one
//! instant at a time ([`ScenarioRun::slice`], [`ScenarioRun::step`]) or each to its end
//! ([`ScenarioRun::run_to_end`]) — and gives the [`Report`]. Every front end drives it: the
//! CLI (on threads, `run::run_loaded_on`), the page's worker a slice at a time between the
//! page's messages (and each worker of its pool one run), and Python with a policy of its
//! own ([`ScenarioRun::with_policies`]); the step-through view, `explain` and the Gymnasium
//! environment step a run's simulation themselves ([`ScenarioRun::simulation`]). So the bytes
//! are the same by construction.
//!
//! The jobs and platforms are shared (`Arc`), so a simulation outlives the call that
//! started it (the page's worker steps it from message to message).

use std::sync::Arc;

use super::report::conventions;
use super::{group_platform, resolve_platform};
use super::{AlgorithmSpec, Report, RunReport, Scenario, ScenarioError};
use crate::engine::{RunOutput, SimError, Simulation};
use crate::failure::Outages;
use crate::limits::{Limit, Limits};
use crate::model::{Demand, Job, Platform};
use crate::policy::local::{LocalPolicy, LocalPolicyKind, Slurm};
use crate::policy::slurm::JobLabels;
use crate::workload::Workload;

/// The checks a scenario and its workload get before any run, and the platform it runs on
/// (with how it was chosen). A single-site platform takes every job (their homes become 0,
/// in place).
pub fn prepare(
    scenario: &Scenario,
    workload: &mut Workload,
    limits: &Limits,
) -> Result<(Platform, String), ScenarioError> {
    if scenario.algorithms.is_empty() {
        return Err(ScenarioError::NoAlgorithms);
    }
    if workload.jobs.is_empty() {
        return Err(ScenarioError::EmptyWorkload {
            name: workload.name.clone(),
            summary: workload.report.summary().trim_end().to_string(),
        });
    }
    let (platform, platform_note) = resolve_platform(&scenario.platform, workload)?;
    limits
        .check(
            Limit::Sites,
            platform.sites.len() as u64,
            &format!("platform '{}'", platform.name),
        )
        .map_err(ScenarioError::Limit)?;
    let homes = workload.jobs.iter().map(|j| j.home).max().unwrap_or(0) as usize + 1;
    if platform.sites.len() == 1 {
        // A single-site platform takes every job (in place: no copy of the job list).
        for j in &mut workload.jobs {
            j.home = 0;
        }
    } else if homes > platform.sites.len() {
        return Err(ScenarioError::TooFewSites {
            workload_sites: homes,
            platform: platform.name.clone(),
            platform_sites: platform.sites.len(),
        });
    }
    Ok((platform, platform_note))
}

/// An algorithm's own parameters, checked before its run.
pub fn check_algorithm(alg: &AlgorithmSpec) -> Result<(), ScenarioError> {
    if let Some(cfg) = &alg.slurm {
        let invalid = |reason: String| ScenarioError::Invalid(format!("{}: {reason}", alg.label()));
        if alg.local != LocalPolicyKind::Slurm {
            return Err(invalid(format!(
                "\"slurm\" configures the slurm policy only, not {}",
                alg.local
            )));
        }
        cfg.check().map_err(invalid)?;
    }
    alg.grid_params
        .validate()
        .map_err(|reason| ScenarioError::InvalidGridParams {
            label: alg.label(),
            reason,
        })
}

/// Builds site `i`'s local policy in place of the algorithm's own: a policy written outside
/// the crate (the Python bindings' policy that calls back into Python).
pub type PolicyFactory = Box<dyn FnMut(usize) -> Box<dyn LocalPolicy>>;

/// What a slice did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slice {
    /// The current run goes on.
    Running,
    /// Run `i` ended: its report is [`ScenarioRun::last_run`].
    RunDone(usize),
    /// Every run has ended: [`ScenarioRun::finish`] gives the report.
    AllDone,
}

/// A scenario checked against its workload: what every run reads and none changes, so runs
/// on other threads share it ([`PreparedScenario::run_one`]).
#[derive(Clone)]
pub struct PreparedScenario {
    scenario: Scenario,
    /// The scenario's platform (before any expansion into node groups).
    platform: Arc<Platform>,
    platform_note: String,
    jobs: Arc<[Job]>,
    /// What each job asks beyond processors (empty for processors only).
    demands: Arc<[Demand]>,
    /// The workload: with its jobs when prepared here (the report hands them back at
    /// [`ScenarioRun::finish`] without a second copy), without them when prepared elsewhere
    /// ([`ScenarioRun::from_parts`]: the runs read `jobs`).
    workload: Workload,
    /// Bounds a conservative run's plan work ([`Limits::plan_work`]).
    work_limit: u64,
    /// Threads a run's report may use for its independent accounts (energy beside the
    /// resources; [`ScenarioRun::with_analysis_threads`]): 1 unless the runs are not
    /// already spread over the threads.
    analysis_threads: usize,
    /// Nodes that go down in every run (issue #41; none by default).
    outages: Arc<Outages>,
    /// The carbon series given apart (`simulate --carbon`), in place of the scenario's.
    carbon: Option<Arc<crate::energy::CarbonSeries>>,
}

/// The run in progress: its index, the platform it runs on (SES node groups expanded) and
/// the simulation.
struct Current {
    index: usize,
    platform: Arc<Platform>,
    sim: Simulation<'static>,
}

impl PreparedScenario {
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

    /// The grid's carbon intensity the runs read (`carbon::source`).
    pub fn carbon(&self) -> Result<Option<super::carbon::CarbonSource>, ScenarioError> {
        super::carbon::source(self.carbon.as_ref(), self.scenario.carbon.as_ref())
    }

    /// Run `index`'s simulation, its parameters checked; each site's local policy is the
    /// algorithm's own, or `policies`' when given.
    fn start(
        &self,
        index: usize,
        policies: Option<&mut PolicyFactory>,
    ) -> Result<Current, ScenarioError> {
        let alg = &self.scenario.algorithms[index];
        check_algorithm(alg)?;
        let platform = self.run_platform(index)?;
        super::energy::check_idle_off(alg, &platform)?;
        let cfg = &self.scenario.options;
        let holds = super::carbon::carbon_holds(alg, &self.jobs, cfg, self.carbon()?.as_ref())?;
        let (jobs, cfg) = (self.jobs.clone(), &self.scenario.options);
        let sim = match policies {
            Some(build) => Simulation::with_local_policies(
                platform.clone(),
                jobs,
                build,
                alg.grid,
                &alg.grid_params,
                cfg,
            ),
            None if alg.local == LocalPolicyKind::Slurm => Simulation::with_local_policies(
                platform.clone(),
                jobs.clone(),
                &mut Slurm::factory_on(
                    alg.slurm.clone().unwrap_or_default(),
                    &jobs,
                    &self.demands,
                    &platform,
                    JobLabels {
                        qos: &self.workload.qos,
                        qos_names: &self.workload.report.qos_names,
                        accounts: &self.workload.accounts,
                        account_names: &self.workload.report.account_names,
                        user_names: &self.workload.report.user_names,
                        partition_names: &self.workload.report.partition_names,
                        demands: &self.demands,
                    },
                ),
                alg.grid,
                &alg.grid_params,
                cfg,
            ),
            None => Simulation::new(
                platform.clone(),
                jobs,
                alg.local,
                alg.grid,
                &alg.grid_params,
                cfg,
            ),
        }
        .and_then(|sim| sim.with_demands(self.demands.clone()))
        .and_then(|sim| sim.with_outages((*self.outages).clone()))
        .and_then(|sim| sim.with_placement(alg.placement))
        .and_then(|sim| super::energy::with_power_policies(sim, alg, holds))
        .map_err(ScenarioError::Sim)?
        .with_seed(self.scenario.seed)
        // A conservative backlog too long to re-plan ends the run with the limit's message
        // instead of running for hours.
        .with_work_limit(self.work_limit);
        Ok(Current {
            index,
            platform,
            sim,
        })
    }

    /// The report of run `index`, which ran on `platform` (the engine checked its
    /// invariants before returning `out`).
    fn report(
        &self,
        index: usize,
        platform: &Platform,
        out: RunOutput,
    ) -> Result<RunReport, ScenarioError> {
        let alg = &self.scenario.algorithms[index];
        let (cfg, import) = (&self.scenario.options, &self.workload.report);
        let threads = self.analysis_threads;
        let mut report =
            super::run_report::run_report_on(alg, platform, &self.jobs, cfg, import, out, threads)?;
        super::energy::check_power_cap(alg, report.energy.as_ref())?;
        if let Some(carbon) = self.carbon()? {
            super::carbon::add_carbon(&mut report, (alg, &self.jobs, cfg), platform, &carbon)?;
        }
        Ok(report)
    }

    /// Run `index` to its end with the algorithm's own policies (a thread's share of a
    /// scenario); `progress(done, total)` may return false to cancel.
    pub fn run_one(
        &self,
        index: usize,
        progress: &mut dyn FnMut(u64, u64) -> bool,
    ) -> Result<RunReport, ScenarioError> {
        let Current { platform, sim, .. } = self.start(index, None)?;
        let out = sim.run(progress).map_err(ScenarioError::Sim)?;
        self.report(index, &platform, out)
    }
}

/// A scenario's runs in progress, one at a time, and their reports so far.
pub struct ScenarioRun {
    base: PreparedScenario,
    /// The sites' local policies, when not the algorithms' own.
    policies: Option<PolicyFactory>,
    current: Option<Current>,
    runs: Vec<RunReport>,
    /// The platform each finished run used, in run order.
    run_platforms: Vec<Arc<Platform>>,
    /// A share of the scenario: only this run is simulated ([`ScenarioRun::only`]).
    only: Option<usize>,
}

impl ScenarioRun {
    /// Checks the scenario against the workload and resolves the platform, within the
    /// default [`Limits`]; nothing is simulated yet.
    pub fn new(scenario: &Scenario, workload: Workload) -> Result<ScenarioRun, ScenarioError> {
        ScenarioRun::with_limits(scenario, workload, &Limits::default())
    }

    /// [`ScenarioRun::new`] within `limits` (its platform's sites, a run's plan work).
    pub fn with_limits(
        scenario: &Scenario,
        mut workload: Workload,
        limits: &Limits,
    ) -> Result<ScenarioRun, ScenarioError> {
        let (platform, platform_note) = prepare(scenario, &mut workload, limits)?;
        let outages = match &scenario.failures {
            Some(spec) => spec.outages(&platform)?,
            None => Outages::default(),
        };
        // The runs share the jobs; the report gets them back at the end ([`ScenarioRun::finish`]).
        // Copying them here as well cost KTH-SP2's whole run under EASY 1.4 MB of fresh pages.
        let jobs: Arc<[Job]> = Arc::from(std::mem::take(&mut workload.jobs));
        let demands: Arc<[Demand]> = Arc::from(std::mem::take(&mut workload.demands));
        Ok(ScenarioRun::from_base(PreparedScenario {
            demands,
            scenario: scenario.clone(),
            platform: Arc::new(platform),
            platform_note,
            jobs,
            workload,
            work_limit: limits.plan_work,
            analysis_threads: 1,
            outages: Arc::new(outages),
            carbon: None,
        }))
    }

    /// A scenario prepared elsewhere (the page's pool workers get the coordinator's):
    /// nothing is checked or resolved again; `workload`'s own jobs are ignored.
    pub fn from_parts(
        scenario: Scenario,
        platform: Platform,
        platform_note: String,
        jobs: Vec<Job>,
        workload: Workload,
    ) -> ScenarioRun {
        ScenarioRun::from_base(PreparedScenario {
            scenario,
            platform: Arc::new(platform),
            platform_note,
            jobs: Arc::from(jobs),
            demands: Arc::from(workload.demands.as_slice()),
            workload: Workload {
                jobs: Vec::new(),
                ..workload
            },
            work_limit: Limits::default().plan_work,
            analysis_threads: 1,
            outages: Arc::default(),
            carbon: None,
        })
    }

    /// Lets each run's report use up to `threads` threads for its independent accounts
    /// (energy beside the resources): for runs made one after another, when no other run
    /// holds the other threads. The report is the same whatever `threads` is.
    pub fn with_analysis_threads(mut self, threads: usize) -> ScenarioRun {
        self.base.analysis_threads = threads.max(1);
        self
    }

    fn from_base(base: PreparedScenario) -> ScenarioRun {
        ScenarioRun {
            base,
            policies: None,
            current: None,
            runs: Vec::new(),
            run_platforms: Vec::new(),
            only: None,
        }
    }

    /// Nodes go down in every run as `outages` says (issue #41, docs/failures.md): each run
    /// sees the same outages, and a failure model the same draws. They replace the
    /// scenario's own `failures`.
    pub fn with_outages(mut self, outages: Outages) -> ScenarioRun {
        self.base.outages = Arc::new(outages);
        self
    }

    /// The grid's carbon intensity over the run in place of the scenario's (issue #40,
    /// docs/energy.md): runs hold jobs to its cleaner hours and report their emissions.
    pub fn with_carbon(mut self, series: crate::energy::CarbonSeries) -> ScenarioRun {
        self.base.carbon = Some(Arc::new(series));
        self
    }

    /// Every site of every run gets its local policy from `build(site)` instead of the
    /// algorithm's (which still gives the grid scheme, its parameters and the label).
    pub fn with_policies(mut self, build: PolicyFactory) -> ScenarioRun {
        self.policies = Some(build);
        self
    }

    /// The same scenario, prepared, with no run done (and the algorithms' own policies): a
    /// pool worker prepares a pooled run's workload once and starts each of its runs from
    /// it (the jobs are shared).
    pub fn fresh(&self) -> ScenarioRun {
        ScenarioRun::from_base(self.base.clone())
    }

    /// What every run reads, for runs on other threads ([`PreparedScenario::run_one`]).
    pub fn prepared_scenario(&self) -> &PreparedScenario {
        &self.base
    }

    /// Simulates run `index` alone (a share of the scenario): the first slice starts it,
    /// and the slice after it ends says [`Slice::AllDone`].
    pub fn only(mut self, index: usize) -> Result<ScenarioRun, ScenarioError> {
        if index >= self.algorithms() {
            return Err(ScenarioError::Invalid(format!(
                "run {index} asked of a scenario with {} algorithm(s)",
                self.algorithms()
            )));
        }
        self.only = Some(index);
        Ok(self)
    }

    /// Run `index`'s simulation for a caller that steps it instant by instant and reads it
    /// between steps (the step-through view, `explain`, the Gymnasium environment), with the
    /// platform it runs on: built as every run of this runner is (parameters checked, the
    /// seed, the plan-work limit, the sites' policies), so what it shows is what a run does.
    /// It is not this runner's current run: its outcomes are the caller's.
    pub fn simulation(
        &mut self,
        index: usize,
    ) -> Result<(Arc<Platform>, Simulation<'static>), ScenarioError> {
        if index >= self.algorithms() {
            return Err(ScenarioError::Invalid(format!("no algorithm {index}")));
        }
        let Current { platform, sim, .. } = self.base.start(index, self.policies.as_mut())?;
        Ok((platform, sim))
    }

    /// Takes run `index`'s report as another worker or thread computed it (its outcomes
    /// included), in run order: `index` must be [`ScenarioRun::finished`]. The run's
    /// platform is the one [`ScenarioRun::slice`] would have used, so the report and Gantt
    /// charts are the same.
    pub fn adopt(&mut self, index: usize, report: RunReport) -> Result<(), ScenarioError> {
        if index != self.runs.len() || report.outcomes.len() != self.base.jobs.len() {
            return Err(ScenarioError::Invalid(format!(
                "a pool worker's run {index} ({} outcomes) does not fit run {} of {} jobs",
                report.outcomes.len(),
                self.runs.len(),
                self.base.jobs.len()
            )));
        }
        let platform = self.base.run_platform(index)?;
        self.runs.push(report);
        self.run_platforms.push(platform);
        Ok(())
    }

    /// Sets the last finished run's `vs_log`, its waits against the log's (issue #42; the
    /// page's "Against the log"), when the workload records waits; else leaves it `None`.
    pub fn add_vs_log(&mut self) {
        let (jobs, waits) = (&self.base.jobs, &self.base.workload.logged_waits);
        if let Some(run) = self.runs.last_mut() {
            run.vs_log = crate::metrics::vs_log(jobs, waits, &run.outcomes);
        }
    }

    /// Takes the last finished run's report out (a pool worker's answer).
    pub fn take_last_run(&mut self) -> Option<RunReport> {
        self.run_platforms.pop();
        self.runs.pop()
    }

    pub fn scenario(&self) -> &Scenario {
        &self.base.scenario
    }

    pub fn platform(&self) -> &Platform {
        &self.base.platform
    }

    pub fn platform_note(&self) -> &str {
        &self.base.platform_note
    }

    pub fn jobs(&self) -> &[Job] {
        &self.base.jobs
    }

    /// The jobs, shared (a policy built outside the crate may keep them).
    pub fn shared_jobs(&self) -> Arc<[Job]> {
        self.base.jobs.clone()
    }

    /// The workload (its name, origin and import report; the jobs are [`ScenarioRun::jobs`]).
    pub fn workload(&self) -> &Workload {
        &self.base.workload
    }

    pub fn import_summary(&self) -> String {
        self.base.workload.report.summary()
    }

    pub fn algorithms(&self) -> usize {
        self.base.scenario.algorithms.len()
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
                self.base.jobs.len() as u64,
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
        Some((self.runs.last_mut()?, platform, &self.base.jobs))
    }

    /// Simulates about `budget` more events of the current run (starting the next run when
    /// none is going on).
    pub fn slice(&mut self, budget: u64) -> Result<Slice, ScenarioError> {
        self.advance(|sim| sim.run_events(budget))
    }

    /// Simulates one more instant of the current run (starting the next run when none is
    /// going on).
    pub fn step(&mut self) -> Result<Slice, ScenarioError> {
        self.advance(|sim| sim.step().map(|_| sim.is_finished()))
    }

    /// Every run left, each to its end; `progress(run, done, total)` may return false to
    /// cancel.
    pub fn run_to_end(
        &mut self,
        progress: &mut dyn FnMut(usize, u64, u64) -> bool,
    ) -> Result<(), ScenarioError> {
        while let Some(Current {
            index,
            platform,
            sim,
        }) = self.current_or_next()?
        {
            let out = sim
                .run(&mut |d, t| progress(index, d, t))
                .map_err(ScenarioError::Sim)?;
            let report = self.base.report(index, &platform, out)?;
            self.runs.push(report);
            self.run_platforms.push(platform);
        }
        Ok(())
    }

    /// The run going on, else the next one started; `None` when every run has ended.
    fn current_or_next(&mut self) -> Result<Option<Current>, ScenarioError> {
        if let Some(c) = self.current.take() {
            return Ok(Some(c));
        }
        let next = match self.only {
            Some(index) => self.runs.is_empty().then_some(index),
            None => (self.runs.len() < self.algorithms()).then_some(self.runs.len()),
        };
        next.map(|index| self.base.start(index, self.policies.as_mut()))
            .transpose()
    }

    /// Steps the current run by `go` (true when it is over) and, when it ends, keeps its
    /// report.
    fn advance(
        &mut self,
        go: impl FnOnce(&mut Simulation<'static>) -> Result<bool, SimError>,
    ) -> Result<Slice, ScenarioError> {
        let Some(mut current) = self.current_or_next()? else {
            return Ok(Slice::AllDone);
        };
        if !go(&mut current.sim).map_err(ScenarioError::Sim)? {
            self.current = Some(current);
            return Ok(Slice::Running);
        }
        let Current {
            index,
            platform,
            sim,
        } = current;
        let out = sim.finish().map_err(ScenarioError::Sim)?;
        let report = self.base.report(index, &platform, out)?;
        self.runs.push(report);
        self.run_platforms.push(platform);
        Ok(Slice::RunDone(index))
    }

    /// The report of every run, and the platform each run ran on.
    pub fn finish(self) -> (Report, Vec<Arc<Platform>>) {
        let PreparedScenario {
            scenario,
            platform,
            platform_note,
            jobs,
            mut workload,
            ..
        } = self.base;
        let cfg = scenario.options;
        if workload.jobs.len() != jobs.len() {
            workload.jobs = jobs.to_vec();
        }
        let report = Report {
            scenario: scenario.name,
            offered_load: crate::metrics::offered_load(&platform, &jobs, &cfg),
            platform: Platform::clone(&platform),
            platform_note,
            conventions: conventions(&cfg),
            runs: self.runs,
            import: workload.report.clone(),
            workload,
        };
        (report, self.run_platforms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::ses::{ses_scenario, SES_DAYS};
    use crate::scenario::{load_workload, run_loaded_on};
    use crate::workload::SesPoisson;

    fn load(scenario: &Scenario) -> Workload {
        load_workload(scenario, &Limits::default(), &mut |f| {
            Err(format!("no {f}"))
        })
        .unwrap()
    }

    /// The demo (five local policies) and SES's node-group selection (runs on the groups).
    fn scenarios() -> [Scenario; 2] {
        [
            Scenario::demo(),
            ses_scenario(&SesPoisson::default(), SES_DAYS / 7.0, 3),
        ]
    }

    fn json(report: &Report) -> String {
        serde_json::to_string_pretty(report).unwrap()
    }

    /// Sliced, stepped an instant at a time, each run to its end, on threads, one run per
    /// share adopted back: the same report, byte for byte, and the same outcomes.
    #[test]
    fn every_way_of_driving_the_runner_gives_the_same_report() {
        for scenario in scenarios() {
            let (whole, _) = {
                let mut run = ScenarioRun::new(&scenario, load(&scenario)).unwrap();
                run.run_to_end(&mut |_, _, _| true).unwrap();
                run.finish()
            };
            let want = json(&whole);
            let mut sliced = ScenarioRun::new(&scenario, load(&scenario)).unwrap();
            while sliced.slice(97).unwrap() != Slice::AllDone {}
            let mut stepped = ScenarioRun::new(&scenario, load(&scenario)).unwrap();
            while stepped.step().unwrap() != Slice::AllDone {}
            let mut adopted = ScenarioRun::new(&scenario, load(&scenario)).unwrap();
            for i in 0..adopted.algorithms() {
                let mut part = adopted.fresh().only(i).unwrap();
                part.run_to_end(&mut |_, _, _| true).unwrap();
                adopted.adopt(i, part.take_last_run().unwrap()).unwrap();
            }
            let threads = run_loaded_on(
                &scenario,
                load(&scenario),
                3,
                &Limits::default(),
                &mut |_, _, _| true,
            )
            .unwrap();
            for (how, got) in [
                ("sliced", sliced.finish()),
                ("stepped", stepped.finish()),
                ("adopted", adopted.finish()),
                ("threads", (threads, Vec::new())),
            ] {
                assert_eq!(json(&got.0), want, "{how}");
                for (a, b) in got.0.runs.iter().zip(&whole.runs) {
                    assert_eq!(a.outcomes, b.outcomes, "{how}: {}", a.label);
                }
            }
        }
    }

    /// SES's selection runs on the cluster's node groups, every other scheme on the
    /// scenario's platform.
    #[test]
    fn group_selection_runs_on_the_node_groups() {
        let [demo, ses] = scenarios();
        let mut run = ScenarioRun::new(&ses, load(&ses)).unwrap();
        run.run_to_end(&mut |_, _, _| true).unwrap();
        let (report, platforms) = run.finish();
        assert_eq!(report.platform.sites.len(), 1);
        assert!(
            platforms.iter().all(|p| p.sites.len() == 4),
            "{platforms:?}"
        );
        let mut run = ScenarioRun::new(&demo, load(&demo)).unwrap();
        run.run_to_end(&mut |_, _, _| true).unwrap();
        let (report, platforms) = run.finish();
        assert!(platforms.iter().all(|p| **p == report.platform));
    }

    /// Policies from a factory run in place of the algorithm's own: the same policy built
    /// by the factory gives the same report.
    #[test]
    fn a_policy_factory_replaces_the_local_policy() {
        let mut scenario = Scenario::demo();
        scenario.algorithms.truncate(2);
        let mut own = ScenarioRun::new(&scenario, load(&scenario)).unwrap();
        own.run_to_end(&mut |_, _, _| true).unwrap();
        let (want, _) = own.finish();
        let mut built = ScenarioRun::new(&scenario, load(&scenario))
            .unwrap()
            .only(1)
            .unwrap()
            .with_policies(Box::new(|_| scenario_local(1)));
        while built.step().unwrap() != Slice::AllDone {}
        let (got, _) = built.finish();
        assert_eq!(got.runs.len(), 1);
        assert_eq!(
            serde_json::to_string(&got.runs[0]).unwrap(),
            serde_json::to_string(&want.runs[1]).unwrap()
        );
        assert_eq!(got.runs[0].outcomes, want.runs[1].outcomes);
    }

    /// The demo's algorithm `i`'s local policy.
    fn scenario_local(i: usize) -> Box<dyn LocalPolicy> {
        Scenario::demo().algorithms[i].local.build()
    }

    /// A cancel from the progress callback stops the runs, on one thread or several.
    #[test]
    fn a_cancel_stops_every_run() {
        // Long enough for a progress call before the end (every few thousand events).
        let scenario = Scenario {
            workload: crate::scenario::WorkloadSpec::SesPoisson(SesPoisson {
                jobs: 20_000,
                ..SesPoisson::default()
            }),
            algorithms: Scenario::demo().algorithms[..2].to_vec(),
            ..Scenario::demo()
        };
        for threads in [1, 3] {
            let err = run_loaded_on(
                &scenario,
                load(&scenario),
                threads,
                &Limits::default(),
                &mut |_, _, _| false,
            );
            assert_eq!(err.err(), Some(ScenarioError::Sim(SimError::Cancelled)));
        }
    }
}
