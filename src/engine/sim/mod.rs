//! The simulation loop, as a value that can be stepped.
//!
//! # Order of events at one instant
//! At simulated time `t` the engine
//! 1. handles every completion (and, without kills, every estimate expiry) due at `t`, in
//!    `(time, sequence)` order — resources are released before anyone looks at them;
//! 2. hands every job submitted at `t` to its site's queue, in input order;
//! 3. runs one scheduling pass on every site touched by 1 or 2, in site order, and starts
//!    the jobs each pass returns.
//!
//! So a job submitted at the very instant another ends can use the freed processors, and
//! jobs submitted together queue in file order. Arrivals come from the (sorted) job list by a
//! cursor rather than through the heap; that is the same as giving them sequence numbers
//! after every event at their instant.
//!
//! One [`Simulation::step`] is one instant. [`Simulation::run`] steps to the end and
//! [`Simulation::finish`] checks the invariants, so a result never leaves the engine
//! unchecked; the web worker steps in slices to report progress and to pause or cancel.
//!
//! This file holds the state, its builders and accessors, the stepping API and `finish`;
//! `order.rs` the order of one instant, `handlers.rs` its events (completions, expiries,
//! arrivals), `grid.rs` the grid policy's decisions, `pass.rs` the scheduling passes.

use std::cell::RefCell;
use std::collections::BTreeMap;

use super::ideal::{check_ideal, simulate_ideal};
use super::invariants::check_invariants_with_failures;
use super::{EventQueue, InvariantViolation, Outcome, RunConfig, RunOutput, SimError, SimTime};
use crate::model::{Demand, Job, JobIdx, NodePool, Placements, Platform, Share};
use crate::policy::grid::{GridAction, GridMsg, GridParams, GridPolicy, GridScheme};
use crate::policy::local::{
    LocalPolicy, LocalPolicyKind, NodesView, Projection, QueuedJob, SiteView, Slurm,
};
use crate::policy::slurm::SlurmConfig;

mod cap;
mod grid;
mod handlers;
mod input;
mod nodes;
mod order;
mod outages;
mod pass;
mod power;
mod steplog;
mod validate;
mod view;

pub use input::Input;
pub use steplog::{SiteSnapshot, StepLog};
use validate::{validate, validate_nodes};

/// Progress is reported (and cancellation asked) after this many handled events.
const PROGRESS_EVERY: u64 = 16_384;

#[derive(Clone, Copy, Debug)]
enum Event {
    Complete(JobIdx),
    /// The job reached its estimate and keeps running (no kills): its predicted end moves.
    EstimateExpired(JobIdx),
    /// A grid policy's timer or message.
    Grid(GridMsg),
    /// Outage `i` of the run's outage table begins (issue #41).
    Down(u32),
    /// Outage `i` ends.
    Up(u32),
    /// A job held past its submission (`with_holds`) goes to its grid policy now.
    Release(JobIdx),
    /// Site `s`'s local policy asked for a pass now ([`LocalPolicy::wake_at`]).
    Wake(u32),
}

/// A site's resources; kept apart from its policy so the policy can borrow a view of them.
struct Resources {
    capacity: u32,
    free: u32,
    speed: f64,
    running: BTreeMap<(SimTime, JobIdx), u32>,
    plan_invalidated: bool,
    /// The nodes, on a site that lists node types (issue #37).
    nodes: Option<NodePool>,
}

impl Resources {
    fn view(&self, now: SimTime) -> SiteView<'_> {
        SiteView {
            now,
            capacity: self.capacity,
            free: self.free,
            running: &self.running,
            plan_invalidated: self.plan_invalidated,
            reservations: &[],
            nodes: None,
        }
    }

    /// [`Resources::view`] with the site's nodes and the jobs' demands, for the pass that
    /// decides who starts.
    fn pass_view<'a>(
        &'a self,
        now: SimTime,
        demands: &'a [Demand],
        placements: &'a Placements,
    ) -> SiteView<'a> {
        SiteView {
            nodes: self.nodes.as_ref().map(|pool| NodesView {
                pool,
                demands,
                placements,
            }),
            ..self.view(now)
        }
    }
}

struct SiteState {
    res: Resources,
    policy: Box<dyn LocalPolicy>,
    /// The queue's projection as the last approximate-wait query made it, kept while the
    /// site does not change (every mutation below clears it) and the clock has not passed
    /// its first projected start: the SOB schemes ask every site on every arrival and every
    /// σ tick, and rebuilding the projection each time cost 90 % of a SOB preset's run.
    projection: RefCell<Option<Projection>>,
    /// The earliest wake-up of the policy's queued on the event heap (`NEVER`: none).
    wake: SimTime,
}

impl SiteState {
    /// The site's queue or running set changes: the kept projection is stale.
    fn changed(&mut self) {
        *self.projection.get_mut() = None;
    }

    /// `job` joined the end of the queue at `now`: a kept projection of a policy that
    /// projects its queue in arrival order takes it by one more placement, which is what a
    /// fresh projection would do last (`Projection::append`); any other is dropped. SOB's
    /// schemes ask every site on every arrival, and an overloaded site's queue grows at
    /// nearly every one: projecting it again each time was most of such a run.
    fn queued_last(&mut self, now: SimTime, job: &QueuedJob) {
        let in_order = self.policy.projects_in_arrival_order();
        let backfills = self.policy.backfills();
        let kept = self.projection.get_mut();
        match kept {
            Some(p) if in_order && now <= p.first_start => p.append(now, backfills, job),
            _ => *kept = None,
        }
    }
}

/// A simulation in progress: every job at its home site's grid policy, which sends it to a
/// site's local policy. Build it with [`Simulation::new`], then [`step`](Self::step),
/// [`run_until`](Self::run_until) or [`run`](Self::run).
pub struct Simulation<'a> {
    platform: Input<'a, Platform>,
    jobs: Input<'a, [Job]>,
    /// What each job asks beyond processors (empty: processors only; issue #37).
    demands: Input<'a, [Demand]>,
    /// The nodes each job started on (node-typed sites only).
    placements: Placements,
    /// A placement being made (kept to reuse its allocation).
    shares: Vec<Share>,
    cfg: RunConfig,
    scheme: GridScheme,
    params: GridParams,
    sites: Vec<SiteState>,
    grid: Box<dyn GridPolicy>,
    actions: Vec<GridAction>,
    outcomes: Vec<Outcome>,
    events: EventQueue<Event>,
    next_arrival: usize,
    touched: Vec<u32>,
    starts: Vec<JobIdx>,
    now: SimTime,
    started_grid: bool,
    /// Events handled so far (completions, expiries, grid messages, arrivals).
    handled: u64,
    done: u64,
    max_queue: usize,
    log: StepLog,
    record_passes: bool,
    /// Keep each site's queue projection between approximate-wait queries (see
    /// [`SiteState::projection`]); off only to test that it changes nothing.
    cache_projections: bool,
    /// The most plan work ([`LocalPolicy::plan_work`]) one site's policy may spend: a
    /// same-instant backlog of N costs conservative backfilling about N³
    /// (`with_work_limit`; none by default).
    work_limit: u64,
    /// The idealized scheme is not event-stepped: its whole run is computed at the first step.
    ideal: Option<RunOutput>,
    /// Nodes that go down (`with_outages`; none by default).
    outages: Option<Box<outages::OutageState>>,
    /// Idle nodes switched off (`with_idle_off`; none by default).
    power: Option<Box<power::PowerState>>,
    /// Per site, the most cores its power cap lets compute (`with_power_cap`; empty: none).
    power_cap: Vec<Option<u32>>,
    /// How starts pick their nodes on node-typed sites (`with_placement`; first fit).
    placement: crate::model::PlacementRule,
    /// Per job, the instant it is handed to its grid policy, when later than its
    /// submission (`with_holds`; empty: every job at its submission).
    holds: Vec<SimTime>,
}

impl<'a> Simulation<'a> {
    /// A simulation of `jobs` (sorted by submit time) on `platform` under the grid scheme
    /// `scheme` over the local policy `local` at every site. Checks the input; nothing runs
    /// until the first step.
    pub fn new(
        platform: impl Into<Input<'a, Platform>>,
        jobs: impl Into<Input<'a, [Job]>>,
        local: LocalPolicyKind,
        scheme: GridScheme,
        params: &GridParams,
        cfg: &RunConfig,
    ) -> Result<Simulation<'a>, SimError> {
        let jobs = jobs.into();
        if local == LocalPolicyKind::Slurm {
            // Slurm's fair share and partitions read the jobs' users and partitions.
            let mut build = Slurm::factory(SlurmConfig::default(), &jobs);
            return Self::with_local_policies(platform, jobs, &mut build, scheme, params, cfg);
        }
        Self::with_local_policies(platform, jobs, &mut |_| local.build(), scheme, params, cfg)
    }

    /// [`Simulation::new`] with each site's local policy made by `build(site index)` instead
    /// of named by a [`LocalPolicyKind`]: a policy written outside the crate (the Python
    /// bindings' policy that calls back into Python) runs through the same loop, the same
    /// capacity checks at every start and the same invariant checks at the end.
    pub fn with_local_policies(
        platform: impl Into<Input<'a, Platform>>,
        jobs: impl Into<Input<'a, [Job]>>,
        build: &mut dyn FnMut(usize) -> Box<dyn LocalPolicy>,
        scheme: GridScheme,
        params: &GridParams,
        cfg: &RunConfig,
    ) -> Result<Simulation<'a>, SimError> {
        let platform = platform.into();
        let jobs = jobs.into();
        validate(&platform, &jobs, scheme, params)?;
        let sites = platform
            .sites
            .iter()
            .enumerate()
            .map(|(i, s)| SiteState {
                res: Resources {
                    capacity: s.capacity_units(),
                    free: s.capacity_units(),
                    speed: s.speed,
                    running: BTreeMap::new(),
                    plan_invalidated: false,
                    nodes: s.node_pool(),
                },
                policy: build(i),
                projection: RefCell::new(None),
                wake: SimTime::NEVER,
            })
            .collect::<Vec<SiteState>>();
        validate_nodes(&platform, &sites, scheme)?;
        let placements = match platform.sites.iter().any(|s| s.has_nodes()) {
            true => Placements::for_jobs(jobs.len()),
            false => Placements::default(),
        };
        let grid = params.build(scheme, platform.sites.len(), 0);
        let outcomes = vec![Outcome::PENDING; jobs.len()];
        Ok(Simulation {
            platform,
            jobs,
            demands: Input::Borrowed(&[]),
            placements,
            shares: Vec::new(),
            cfg: *cfg,
            scheme,
            params: *params,
            sites,
            grid,
            actions: Vec::new(),
            outcomes,
            events: EventQueue::default(),
            next_arrival: 0,
            touched: Vec::new(),
            starts: Vec::new(),
            now: SimTime::ZERO,
            started_grid: false,
            handled: 0,
            done: 0,
            max_queue: 0,
            log: StepLog::default(),
            record_passes: false,
            cache_projections: true,
            work_limit: u64::MAX,
            ideal: None,
            outages: None,
            power: None,
            power_cap: Vec::new(),
            placement: crate::model::PlacementRule::FirstFit,
            holds: Vec::new(),
        })
    }

    /// What each job asks beyond processors (memory, GPUs, node count; one per job, or
    /// empty for processors only): node-typed sites place jobs by it. Before the first step.
    pub fn with_demands(
        mut self,
        demands: impl Into<Input<'a, [Demand]>>,
    ) -> Result<Self, SimError> {
        let demands = demands.into();
        if !demands.is_empty() && demands.len() != self.jobs.len() {
            return Err(InvariantViolation(format!(
                "{} job demands for {} jobs",
                demands.len(),
                self.jobs.len()
            ))
            .into());
        }
        self.demands = demands;
        Ok(self)
    }

    /// Nodes go down as `outages` says (issue #41, docs/failures.md): from a file, drawn
    /// from a failure model, or both; a killed job is requeued or lost, and with
    /// checkpointing a requeued job resumes from its last checkpoint. Only node-typed
    /// sites have nodes to lose; before the first step.
    pub fn with_outages(mut self, outages: crate::failure::Outages) -> Result<Self, SimError> {
        if outages.is_empty() && outages.checkpoint.is_none() {
            return Ok(self);
        }
        if self.power.is_some() || !self.power_cap.is_empty() {
            return Err(SimError::InvalidPlatform {
                reason: "switching idle nodes off is not combined with failures or maintenance yet (docs/energy.md)".into(),
            });
        }
        let nodes = validate::validate_outages(&self.platform, &outages, &self.cfg)?;
        // A per-job interval reads each job's demands (given before, `with_demands`).
        let plan = match &outages.checkpoint {
            Some(c) => {
                let nodes_per_job = self.jobs.iter().enumerate().map(|(i, job)| {
                    let site = self.platform.sites.get(job.home as usize);
                    let demand = self.demands.get(i).copied().unwrap_or_default();
                    site.map_or(1, |s| {
                        crate::model::fewest_nodes(job.procs, &demand, &s.node_types)
                    })
                });
                Some(
                    c.job_plans(outages.model.as_ref(), nodes_per_job)
                        .map_err(|e| SimError::InvalidPlatform {
                            reason: e.to_string(),
                        })?,
                )
            }
            None => None,
        };
        // Maintenance is known in advance: placements keep clear of its windows.
        for (s, site) in self.sites.iter_mut().enumerate() {
            if let Some(pool) = site.res.nodes.as_mut() {
                let windows = outages.windows.iter().filter(|o| {
                    o.kind == crate::failure::OutageKind::Maintenance && o.site as usize == s
                });
                let windows = windows.map(|o| (o.node, o.start, o.end));
                pool.maintenance = crate::model::Maintenance::new(pool.len(), windows);
            }
        }
        let jobs = self.jobs.len();
        self.outages = Some(Box::new(outages::OutageState::new(
            outages, &nodes, jobs, plan,
        )));
        Ok(self)
    }

    /// Switches a node off once no job has held it for `after` (issue #40, docs/energy.md):
    /// a job placed on a sleeping node waits for it to boot. Node-typed sites only, and not
    /// with outages yet; before the first step.
    pub fn with_idle_off(mut self, after: SimTime) -> Result<Self, SimError> {
        let refuse = |reason: &str| {
            Err(SimError::InvalidPlatform {
                reason: reason.to_string(),
            })
        };
        if !self.platform.sites.iter().any(|s| s.has_nodes()) {
            return refuse(
                "switching idle nodes off needs nodes: give the site node types (docs/nodes.md)",
            );
        }
        if self.outages.is_some() {
            return refuse("switching idle nodes off is not combined with failures or maintenance yet (docs/energy.md)");
        }
        if !self.power_cap.is_empty() {
            // The cap's bound counts boots only when it knows nodes switch off.
            return refuse("switch idle nodes off before setting the power cap");
        }
        if self.scheme != GridScheme::Local {
            return refuse("switching idle nodes off runs under local policies only, not grid schemes (docs/energy.md)");
        }
        if after < SimTime::ZERO || after > SimTime::from_secs(crate::model::power::MAX_IDLE_OFF_S)
        {
            return refuse("the idle time before a node is switched off must be 0 to 10 years");
        }
        self.power = Some(Box::new(power::PowerState::new(&self.platform, after)));
        Ok(self)
    }

    /// Holds each job until `holds[i]` (at least its submission) before handing it to its
    /// grid policy: a carbon-aware delay (issue #40, docs/energy.md) or any other release
    /// time. Its wait still counts from its submission; a job no site can hold is rejected
    /// at its submission. Local policies only; before the first step.
    pub fn with_holds(mut self, holds: Vec<SimTime>) -> Result<Self, SimError> {
        if holds.len() != self.jobs.len() {
            return Err(InvariantViolation(format!(
                "{} holds for {} jobs",
                holds.len(),
                self.jobs.len()
            ))
            .into());
        }
        if let Some((j, _)) = self.jobs.iter().zip(&holds).find(|(j, &h)| h < j.submit) {
            return Err(InvariantViolation(format!(
                "job {} is held until before its submission",
                j.id
            ))
            .into());
        }
        if self.scheme != GridScheme::Local {
            return Err(SimError::InvalidPlatform {
                reason: "holding jobs past their submission runs under local policies only, not grid schemes".into(),
            });
        }
        self.holds = holds;
        Ok(self)
    }

    /// The nodes each job started on so far (node-typed sites only).
    pub fn placements(&self) -> &Placements {
        &self.placements
    }

    /// Seeds the randomized grid policies (SES random group selection); before the first
    /// step. Without it they draw from seed 0.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.grid = self
            .params
            .build(self.scheme, self.platform.sites.len(), seed);
        self
    }

    /// Answers every approximate-wait query from a fresh projection instead of the kept one
    /// (for the test that the kept projection changes nothing).
    pub fn without_projection_cache(mut self) -> Self {
        self.cache_projections = false;
        self
    }

    /// Stops the run with [`SimError::Limit`] ([`Limit::PlanWork`]) once a site's policy
    /// has spent more than `limit` steps of plan work ([`LocalPolicy::plan_work`]):
    /// conservative backfilling's grows as the cube of a backlog, so a backlog of 50,000
    /// would run for hours. Policies that count none are not held to it.
    pub fn with_work_limit(mut self, limit: u64) -> Self {
        self.work_limit = limit;
        self
    }

    /// Records every scheduling pass in the step log (the step-by-step view; off by default,
    /// it costs an allocation per pass).
    pub fn record_passes(mut self) -> Self {
        self.record_passes = true;
        self
    }

    /// The instant of the last step (zero before the first).
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// `(jobs done, jobs in all)`: done counts finished, killed and rejected jobs.
    pub fn progress(&self) -> (u64, u64) {
        (self.done, self.jobs.len() as u64)
    }

    /// Events handled so far.
    pub fn events_handled(&self) -> u64 {
        self.handled
    }

    /// The instant of the next step, or `None` when the run is over.
    pub fn next_time(&self) -> Option<SimTime> {
        if self.scheme == GridScheme::Ideal {
            return match self.ideal {
                None => self.jobs.first().map(|j| j.submit).or(Some(SimTime::ZERO)),
                Some(_) => None,
            };
        }
        match (self.events.peek_time(), self.jobs.get(self.next_arrival)) {
            (Some(a), Some(j)) => Some(a.min(j.submit)),
            (Some(a), None) => Some(a),
            (None, Some(j)) => Some(j.submit),
            (None, None) => None,
        }
    }

    /// True when nothing is left to simulate.
    pub fn is_finished(&self) -> bool {
        self.next_time().is_none()
    }

    /// What the last step did.
    pub fn last_step(&self) -> &StepLog {
        &self.log
    }

    /// The jobs simulated, in input order (indices in logs and snapshots point here).
    pub fn jobs(&self) -> &[Job] {
        &self.jobs
    }

    /// Outcomes so far (pending for jobs not yet started).
    pub fn outcomes(&self) -> &[Outcome] {
        &self.outcomes
    }

    /// Site `site` as it stands now; `None` for no such site (or the idealized scheme, which
    /// has no sites of its own).
    pub fn site_snapshot(&self, site: usize) -> Option<SiteSnapshot> {
        if self.scheme == GridScheme::Ideal {
            return None;
        }
        let st = self.sites.get(site)?;
        // With the nodes, so that EASY's head reservation on a node-typed site is on nodes.
        let view = st.res.pass_view(self.now, &self.demands, &self.placements);
        let running = st
            .res
            .running
            .iter()
            .map(|(&(end, job), &units)| (job, units, end))
            .collect();
        Some(SiteSnapshot {
            now: self.now,
            capacity: st.res.capacity,
            free: st.res.free,
            running,
            queue: st.policy.queued(),
            profile: view.running_profile().steps().collect(),
            head: st.policy.head_reservation(&view),
        })
    }

    /// The limit of site `site`'s policy that holds queued job `job` now, in words (a Slurm
    /// QOS limit), or `None`.
    pub fn held_by_limit(&self, site: usize, job: JobIdx) -> Option<String> {
        self.sites.get(site)?.policy.held_by_limit(job)
    }

    /// Site `site`'s queued jobs with their Slurm priority factors and priority as of the
    /// last priority computation at or before `at` (not before now), highest first, when
    /// its policy ranks by them (the `slurm` policy); else `None`.
    pub fn site_priorities(
        &self,
        site: usize,
        at: SimTime,
    ) -> Option<Vec<(JobIdx, crate::policy::slurm::Factors, u64)>> {
        self.sites.get(site)?.policy.priorities(at.max(self.now))
    }

    /// What site `site`'s local policy would see now (free units, running jobs by predicted
    /// end), borrowed: [`Simulation::site_snapshot`] without its copies, for a caller that
    /// looks at every decision (the Gymnasium environment of the Python bindings). `None`
    /// for no such site.
    pub fn site_view(&self, site: usize) -> Option<SiteView<'_>> {
        self.sites.get(site).map(|s| s.res.view(self.now))
    }

    /// Simulates one instant. Returns false (and does nothing) when the run is over.
    pub fn step(&mut self) -> Result<bool, SimError> {
        let Some(now) = self.next_time() else {
            return Ok(false);
        };
        self.now = now;
        self.log.reset(now);
        if self.scheme == GridScheme::Ideal {
            let out = simulate_ideal(
                &self.platform,
                &self.jobs,
                &self.cfg,
                self.params.ideal_discipline,
            )?;
            self.handled = out.events;
            self.done = self.jobs.len() as u64;
            self.ideal = Some(out);
            return Ok(true);
        }
        if !self.started_grid {
            self.started_grid = true;
            self.start_outages();
            self.grid_decides(|g, v, a| g.start(v, a));
        }
        self.handle_instant()?;
        Ok(true)
    }

    /// Runs one more scheduling pass on `site` at the current instant and starts what it
    /// returns, with the same checks as every pass. An agent that picks jobs one at a time
    /// (the Python bindings' Gymnasium environment) makes several decisions at one instant
    /// through it; a run that never calls it is unchanged.
    pub fn pass_now(&mut self, site: u32) -> Result<(), SimError> {
        if site as usize >= self.sites.len() {
            return Err(SimError::Invariant(InvariantViolation(format!(
                "a pass was asked of site {site}, but the platform has {} sites",
                self.sites.len()
            ))));
        }
        self.schedule_site(site)
    }

    /// Steps through every instant up to and including `t`. Returns true when the run is over.
    pub fn run_until(&mut self, t: SimTime) -> Result<bool, SimError> {
        while let Some(next) = self.next_time() {
            if next > t {
                return Ok(false);
            }
            self.step()?;
        }
        Ok(true)
    }

    /// Steps until at least `budget` more events were handled or the run is over (the web
    /// worker's slice). Returns true when the run is over.
    pub fn run_events(&mut self, budget: u64) -> Result<bool, SimError> {
        let target = self.handled.saturating_add(budget);
        while self.handled < target {
            if !self.step()? {
                return Ok(true);
            }
        }
        Ok(self.is_finished())
    }

    /// Runs to the end and checks the result. `progress(done, total)` is called every few
    /// thousand events and may return false to cancel.
    pub fn run(
        mut self,
        progress: &mut dyn FnMut(u64, u64) -> bool,
    ) -> Result<RunOutput, SimError> {
        let mut reported = 0;
        while self.step()? {
            if self.handled - reported >= PROGRESS_EVERY {
                reported = self.handled;
                if !progress(self.done, self.jobs.len() as u64) {
                    return Err(SimError::Cancelled);
                }
            }
        }
        let total = self.jobs.len() as u64;
        progress(total, total);
        self.finish()
    }

    /// The result of a run stepped to its end, after the invariant checks every run ends
    /// with (see [`check_invariants_with_failures`]); `Cancelled` when steps remain.
    pub fn finish(self) -> Result<RunOutput, SimError> {
        if !self.is_finished() {
            return Err(SimError::Cancelled);
        }
        if let Some(out) = self.ideal {
            check_ideal(
                &self.platform,
                &self.jobs,
                &out.outcomes,
                &self.cfg,
                self.params.ideal_discipline,
            )
            .map_err(InvariantViolation)?;
            return Ok(out);
        }
        if self.grid.held() > 0 {
            return Err(InvariantViolation(format!(
                "{} jobs were still held in grid queues when the run ended",
                self.grid.held()
            ))
            .into());
        }
        for (i, site) in self.sites.iter().enumerate() {
            if site.policy.queue_len() > 0 {
                return Err(InvariantViolation(format!(
                    "{} jobs were still queued at site {i} when the run ended",
                    site.policy.queue_len()
                ))
                .into());
            }
        }
        let failures = self.outages.map(|st| st.log);
        let power = self.power.map(|st| {
            let end = self
                .outcomes
                .iter()
                .filter(|o| o.ran())
                .map(|o| o.end)
                .max();
            let pools: Vec<Option<&NodePool>> =
                self.sites.iter().map(|s| s.res.nodes.as_ref()).collect();
            st.finish(end.unwrap_or(SimTime::ZERO), &pools)
        });
        check_invariants_with_failures(
            &self.platform,
            &self.jobs,
            &self.outcomes,
            &self.cfg,
            failures.as_ref(),
        )?;
        nodes::check_nodes(
            nodes::empty_pools(&self.platform, self.placement),
            &self.jobs,
            &self.demands,
            &self.outcomes,
            &self.placements,
            failures.as_ref(),
            power.as_ref(),
        )
        .map_err(InvariantViolation)?;
        cap::check_cap(&self.platform, &self.jobs, &self.outcomes, &self.power_cap)
            .map_err(InvariantViolation)?;
        Ok(RunOutput {
            failures,
            power,
            placements: self.placements,
            outcomes: self.outcomes,
            events: self.handled,
            max_queue: self.max_queue,
            ideal_capacity: None,
        })
    }
}

/// Runs `jobs` (sorted by submit time) on `platform`, every job at its home site under the
/// local policy `local`. `progress(done, total)` is called every few thousand events and
/// may return false to cancel. The result's invariants have been checked.
pub fn simulate(
    platform: &Platform,
    jobs: &[Job],
    local: LocalPolicyKind,
    cfg: &RunConfig,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<RunOutput, SimError> {
    simulate_grid(
        platform,
        jobs,
        local,
        GridScheme::Local,
        &GridParams::default(),
        cfg,
        progress,
    )
}

/// Runs `jobs` on `platform` under a grid scheme over the local policy `local` at every site.
/// Jobs arrive at their home site's grid queue; the grid policy decides where each runs.
/// The result's invariants have been checked.
pub fn simulate_grid(
    platform: &Platform,
    jobs: &[Job],
    local: LocalPolicyKind,
    scheme: GridScheme,
    params: &GridParams,
    cfg: &RunConfig,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<RunOutput, SimError> {
    Simulation::new(platform, jobs, local, scheme, params, cfg)?.run(progress)
}
