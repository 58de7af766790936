//! The simulation loop.
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

use std::collections::BTreeMap;

use super::{EventQueue, SimTime};
use crate::model::{Job, JobIdx, Platform};
use crate::policy::grid::{GridAction, GridMsg, GridParams, GridPolicy, GridScheme, GridView};
use crate::policy::local::{LocalPolicy, LocalPolicyKind, QueuedJob, SiteView};

/// Where the scheduler's runtime predictions come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EstimateSource {
    /// The user's estimate from the workload (SWF field 9), the default.
    #[default]
    Trace,
    /// The real runtime: a perfectly informed scheduler.
    Exact,
}

/// Conventions of a run; they appear in every output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RunConfig {
    pub estimates: EstimateSource,
    /// A job that outlives its estimate is killed at the estimate (true, the default, as real
    /// batch systems do) or runs to its end (false; its predicted end then moves to its
    /// real end when the estimate expires, and plans are rebuilt).
    pub kill_at_estimate: bool,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            estimates: EstimateSource::Trace,
            kill_at_estimate: true,
        }
    }
}

/// Why a job could not run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RejectReason {
    /// It needs more allocation units than its site has.
    TooWide { needs: u32, capacity: u32 },
    /// Its home site index names no site of the platform.
    NoSuchSite,
}

/// What happened to one job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobOutcome {
    /// Never reached by the run (only in a cancelled or broken run).
    Pending,
    Finished,
    /// Stopped at its estimate (runtime above estimate with kills on).
    Killed,
    Rejected(RejectReason),
}

/// One job's result: 24 bytes, so per-job results stay well under 100 bytes a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub site: u32,
    pub start: SimTime,
    pub end: SimTime,
    pub status: JobOutcome,
}

impl Outcome {
    pub fn ran(&self) -> bool {
        matches!(self.status, JobOutcome::Finished | JobOutcome::Killed)
    }
}

#[derive(Debug)]
pub struct RunOutput {
    /// Indexed like the input jobs.
    pub outcomes: Vec<Outcome>,
    pub events: u64,
    pub max_queue: usize,
    /// Set for the idealized scheme: the virtual machine's capacity in one-MHz CPUs (its
    /// outcomes carry the job's home as site, but ran on the whole virtual machine).
    pub ideal_capacity: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SimError {
    /// The caller's progress callback asked to stop.
    Cancelled,
    /// A bug: an invariant did not hold. The message says which and where.
    Invariant(String),
    /// The input cannot be simulated (for example jobs not sorted by submit time).
    BadInput(String),
}

impl std::fmt::Display for SimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SimError::Cancelled => f.write_str("run cancelled"),
            SimError::Invariant(m) => write!(f, "invariant violated (a bug, please report): {m}"),
            SimError::BadInput(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for SimError {}

#[derive(Clone, Copy, Debug)]
enum Event {
    Complete(JobIdx),
    /// The job reached its estimate and keeps running (no kills): its predicted end moves.
    EstimateExpired(JobIdx),
    /// A grid policy's timer or message.
    Grid(GridMsg),
}

/// A site's resources; kept apart from its policy so the policy can borrow a view of them.
struct Resources {
    capacity: u32,
    free: u32,
    speed: f64,
    running: BTreeMap<(SimTime, JobIdx), u32>,
    plan_invalidated: bool,
}

struct SiteState {
    res: Resources,
    policy: Box<dyn LocalPolicy>,
}

impl Resources {
    fn view(&self, now: SimTime) -> SiteView<'_> {
        SiteView {
            now,
            capacity: self.capacity,
            free: self.free,
            running: &self.running,
            plan_invalidated: self.plan_invalidated,
        }
    }
}

/// `t` (measured on a machine of speed `from`) on a machine of speed `to`, at least one tick.
pub(crate) fn scale(t: SimTime, from: f64, to: f64) -> SimTime {
    if from == to {
        return t.max(SimTime(1));
    }
    SimTime(((t.0 as f64) * from / to).round() as i64).max(SimTime(1))
}

/// The estimate a scheduler plans with and the time the job really holds its processors,
/// both at its home site's speed.
pub(crate) fn planned_and_effective(job: &Job, cfg: &RunConfig) -> (SimTime, SimTime) {
    let planned = match cfg.estimates {
        EstimateSource::Trace => job.estimate,
        EstimateSource::Exact => job.runtime,
    };
    let effective = if cfg.kill_at_estimate {
        job.runtime.min(planned)
    } else {
        job.runtime
    };
    (planned.max(SimTime(1)), effective.max(SimTime(1)))
}

/// The wallclock limit a job of `platform`'s site `site` is planned with (its estimate, or
/// its runtime under exact estimates), scaled to that site's speed.
pub fn wallclock_limit(job: &Job, cfg: &RunConfig, platform: &Platform, site: usize) -> SimTime {
    let (planned, _) = planned_and_effective(job, cfg);
    scale(
        planned,
        platform.sites[job.home as usize].speed,
        platform.sites[site].speed,
    )
}

struct EngineView<'a> {
    now: SimTime,
    platform: &'a Platform,
    jobs: &'a [Job],
    cfg: &'a RunConfig,
    sites: &'a [SiteState],
    arrivals_remaining: bool,
}

impl EngineView<'_> {
    fn estimate_at(&self, site: u32, job: JobIdx) -> SimTime {
        wallclock_limit(
            &self.jobs[job as usize],
            self.cfg,
            self.platform,
            site as usize,
        )
    }
}

impl GridView for EngineView<'_> {
    fn now(&self) -> SimTime {
        self.now
    }
    fn sites(&self) -> usize {
        self.sites.len()
    }
    fn home(&self, job: JobIdx) -> u32 {
        self.jobs[job as usize].home
    }
    fn awt(&self, site: u32, job: JobIdx) -> Option<SimTime> {
        let st = &self.sites[site as usize];
        let units = self.platform.sites[site as usize].units_for(self.jobs[job as usize].procs);
        st.policy
            .approximate_wait(&st.res.view(self.now), units, self.estimate_at(site, job))
    }
    fn ert(&self, site: u32, job: JobIdx) -> SimTime {
        self.estimate_at(site, job)
    }
    fn rus(&self, site: u32) -> f64 {
        let r = &self.sites[site as usize].res;
        1.0 - r.free as f64 / r.capacity.max(1) as f64
    }
    fn arrivals_remaining(&self) -> bool {
        self.arrivals_remaining
    }
}

/// Runs `jobs` (sorted by submit time) on `platform`, every job at its home site under the
/// local policy `local`. `progress(done, total)` is called every few thousand events and
/// may return false to cancel.
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

/// Refuses a workload whose schedule could overflow the millisecond clock: even run one
/// after another on the slowest site, every job must end within ±4·10¹⁸ ms. (The SWF reader
/// bounds each field; this bounds their sum, for any input.)
fn check_horizon(platform: &Platform, jobs: &[Job]) -> Result<(), SimError> {
    let speeds = platform.sites.iter().map(|s| s.speed);
    let slowdown = speeds.clone().fold(0.0, f64::max) / speeds.fold(f64::INFINITY, f64::min);
    let first = jobs.first().map_or(0.0, |j| j.submit.0 as f64);
    let last = jobs.last().map_or(0.0, |j| j.submit.0 as f64);
    let work: f64 = jobs
        .iter()
        .map(|j| j.runtime.0.max(j.estimate.0).max(0) as f64)
        .sum();
    let horizon = last + work * slowdown.max(1.0) + 1e9;
    if !(horizon.abs() < 4.0e18 && first.abs() < 4.0e18) {
        return Err(SimError::BadInput(format!(
            "the workload could run past the simulated clock (about 146 million years in milliseconds): last submit {} s, {} s of run time in all",
            last / 1000.0,
            work / 1000.0
        )));
    }
    Ok(())
}

/// Runs `jobs` on `platform` under a grid scheme over the local policy `local` at every site.
/// Jobs arrive at their home site's grid queue; the grid policy decides where each runs.
pub fn simulate_grid(
    platform: &Platform,
    jobs: &[Job],
    local: LocalPolicyKind,
    scheme: GridScheme,
    params: &GridParams,
    cfg: &RunConfig,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<RunOutput, SimError> {
    platform.validate().map_err(SimError::BadInput)?;
    check_horizon(platform, jobs)?;
    if scheme == GridScheme::Ideal {
        return super::ideal::simulate_ideal(platform, jobs, cfg);
    }
    params.validate().map_err(SimError::BadInput)?;
    if let Some(w) = jobs.windows(2).position(|w| w[1].submit < w[0].submit) {
        return Err(SimError::BadInput(format!(
            "jobs must be sorted by submit time (job {} comes after job {})",
            jobs[w + 1].id,
            jobs[w].id
        )));
    }
    if jobs.len() >= u32::MAX as usize {
        return Err(SimError::BadInput("more than 4 billion jobs".into()));
    }
    let mut sites: Vec<SiteState> = platform
        .sites
        .iter()
        .map(|s| SiteState {
            res: Resources {
                capacity: s.capacity_units(),
                free: s.capacity_units(),
                speed: s.speed,
                running: BTreeMap::new(),
                plan_invalidated: false,
            },
            policy: local.build(),
        })
        .collect();

    let pending = Outcome {
        site: u32::MAX,
        start: SimTime::NEVER,
        end: SimTime::NEVER,
        status: JobOutcome::Pending,
    };
    let mut outcomes = vec![pending; jobs.len()];
    let mut events: EventQueue<Event> = EventQueue::default();
    let mut next_arrival = 0usize;
    let mut touched: Vec<u32> = Vec::new();
    let mut starts: Vec<JobIdx> = Vec::new();
    let mut handled: u64 = 0;
    let mut total_events: u64 = 0;
    let mut done: u64 = 0;
    let mut max_queue = 0usize;
    let total = jobs.len() as u64;
    let mut grid: Box<dyn GridPolicy> = params.build(scheme, platform.sites.len());
    let mut actions: Vec<GridAction> = Vec::new();
    let mut started_grid = false;

    // The grid policy decides with a read-only view of the sites; then its decisions are
    // carried out (jobs into local queues, messages onto the heap).
    macro_rules! grid_decides {
        ($now:expr, $decide:expr) => {{
            let view = EngineView {
                now: $now,
                platform,
                jobs,
                cfg,
                sites: &sites,
                arrivals_remaining: next_arrival < jobs.len(),
            };
            ($decide)(&mut *grid, &view, &mut actions);
            apply(
                &mut actions,
                $now,
                &mut sites,
                &mut events,
                &mut outcomes,
                &mut touched,
                &mut done,
                platform,
                jobs,
                cfg,
            );
        }};
    }

    loop {
        let now = match (events.peek_time(), jobs.get(next_arrival)) {
            (Some(a), Some(j)) => a.min(j.submit),
            (Some(a), None) => a,
            (None, Some(j)) => j.submit,
            (None, None) => break,
        };
        if !started_grid {
            started_grid = true;
            grid_decides!(
                now,
                |g: &mut dyn GridPolicy, v: &EngineView, a: &mut Vec<GridAction>| g.start(v, a)
            );
        }

        // 1. Completions and expiries due now.
        while let Some((_, event)) = events.pop_until(now) {
            handled += 1;
            match event {
                Event::Complete(idx) => {
                    let job = &jobs[idx as usize];
                    let out = &mut outcomes[idx as usize];
                    let s = out.site as usize;
                    let site = &mut sites[s].res;
                    let home_speed = platform.sites[job.home as usize].speed;
                    let (planned, _) = planned_and_effective(job, cfg);
                    let est = scale(planned, home_speed, site.speed);
                    // An overrunning job's predicted end was moved to its real end.
                    let predicted = if now > out.start + est {
                        now
                    } else {
                        out.start + est
                    };
                    let units = site.running.remove(&(predicted, idx)).ok_or_else(|| {
                        SimError::Invariant(format!("job {} completed but was not running", job.id))
                    })?;
                    site.free += units;
                    if now < predicted {
                        site.plan_invalidated = true;
                    }
                    done += 1;
                    touched.push(s as u32);
                }
                Event::EstimateExpired(idx) => {
                    let out = outcomes[idx as usize];
                    let site = &mut sites[out.site as usize].res;
                    let key = site
                        .running
                        .range((now, idx)..=(now, idx))
                        .next()
                        .map(|(k, v)| (*k, *v));
                    let Some((k, units)) = key else {
                        return Err(SimError::Invariant(format!(
                            "estimate of job {} expired but it was not running",
                            jobs[idx as usize].id
                        )));
                    };
                    site.running.remove(&k);
                    site.running.insert((out.end, idx), units);
                    site.plan_invalidated = true;
                    touched.push(out.site);
                }
                Event::Grid(msg) => grid_decides!(
                    now,
                    |g: &mut dyn GridPolicy, v: &EngineView, a: &mut Vec<GridAction>| g
                        .on_message(msg, v, a)
                ),
            }
        }

        // 2. Arrivals at `now`, in input order, through the grid policy.
        while let Some(job) = jobs.get(next_arrival) {
            if job.submit != now {
                break;
            }
            let idx = next_arrival as JobIdx;
            next_arrival += 1;
            handled += 1;
            let Some(home) = platform.sites.get(job.home as usize) else {
                outcomes[idx as usize].status = JobOutcome::Rejected(RejectReason::NoSuchSite);
                done += 1;
                continue;
            };
            // A job no site can hold is rejected here, with its home's numbers as the reason.
            let fits_somewhere = platform
                .sites
                .iter()
                .any(|s| s.units_for(job.procs) <= s.capacity_units());
            if !fits_somewhere {
                outcomes[idx as usize].status = JobOutcome::Rejected(RejectReason::TooWide {
                    needs: home.units_for(job.procs),
                    capacity: home.capacity_units(),
                });
                done += 1;
                continue;
            }
            grid_decides!(
                now,
                |g: &mut dyn GridPolicy, v: &EngineView, a: &mut Vec<GridAction>| g
                    .on_arrival(idx, v, a)
            );
        }

        // 3. One scheduling pass per touched site.
        touched.sort_unstable();
        touched.dedup();
        for &s in &touched {
            let SiteState { res: site, policy } = &mut sites[s as usize];
            starts.clear();
            policy.schedule(&site.view(now), &mut starts);
            site.plan_invalidated = false;
            for &idx in &starts {
                let job = &jobs[idx as usize];
                let home_speed = platform.sites[job.home as usize].speed;
                let units = platform.sites[s as usize].units_for(job.procs);
                if units > site.free {
                    return Err(SimError::Invariant(format!(
                        "policy {} started job {} needing {units} units with only {} free at t={now}",
                        policy.name(),
                        job.id,
                        site.free
                    )));
                }
                let out = &mut outcomes[idx as usize];
                if out.status != JobOutcome::Pending || out.start != SimTime::NEVER {
                    return Err(SimError::Invariant(format!("job {} started twice", job.id)));
                }
                let (planned, effective) = planned_and_effective(job, cfg);
                let est = scale(planned, home_speed, site.speed);
                let run = scale(effective, home_speed, site.speed);
                site.free -= units;
                out.start = now;
                out.end = now + run;
                out.status = if cfg.kill_at_estimate && job.runtime > planned {
                    JobOutcome::Killed
                } else {
                    JobOutcome::Finished
                };
                site.running.insert((now + est, idx), units);
                events.push(now + run, Event::Complete(idx));
                if run > est {
                    events.push(now + est, Event::EstimateExpired(idx));
                }
            }
            max_queue = max_queue.max(policy.queue_len());
        }
        touched.clear();

        if handled >= 16_384 {
            total_events += handled;
            handled = 0;
            if !progress(done, total) {
                return Err(SimError::Cancelled);
            }
        }
    }

    if grid.held() > 0 {
        return Err(SimError::Invariant(format!(
            "{} jobs were still held in grid queues when the run ended",
            grid.held()
        )));
    }
    for (i, site) in sites.iter().enumerate() {
        if site.policy.queue_len() > 0 {
            return Err(SimError::Invariant(format!(
                "{} jobs were still queued at site {i} when the run ended",
                site.policy.queue_len()
            )));
        }
    }
    progress(total, total);
    Ok(RunOutput {
        outcomes,
        events: total_events + handled,
        max_queue,
        ideal_capacity: None,
    })
}

/// Carries out a grid policy's decisions: jobs into local queues, messages onto the heap.
#[allow(clippy::too_many_arguments)]
fn apply(
    actions: &mut Vec<GridAction>,
    now: SimTime,
    sites: &mut [SiteState],
    events: &mut EventQueue<Event>,
    outcomes: &mut [Outcome],
    touched: &mut Vec<u32>,
    done: &mut u64,
    platform: &Platform,
    jobs: &[Job],
    cfg: &RunConfig,
) {
    for action in actions.drain(..) {
        match action {
            GridAction::After { delay, msg } => events.push(now + delay, Event::Grid(msg)),
            GridAction::Dispatch { job: idx, site: s } => {
                let job = &jobs[idx as usize];
                let desc = &platform.sites[s as usize];
                let site = &mut sites[s as usize];
                let units = desc.units_for(job.procs);
                if units > site.res.capacity {
                    // Only a non-migrating scheme sends a job to a site too small for it.
                    outcomes[idx as usize].status = JobOutcome::Rejected(RejectReason::TooWide {
                        needs: units,
                        capacity: site.res.capacity,
                    });
                    *done += 1;
                    continue;
                }
                let (planned, _) = planned_and_effective(job, cfg);
                let home_speed = platform.sites[job.home as usize].speed;
                let queued = QueuedJob {
                    idx,
                    units,
                    estimate: scale(planned, home_speed, site.res.speed),
                    queued_at: now,
                };
                outcomes[idx as usize].site = s;
                site.policy.enqueue(queued, &site.res.view(now));
                touched.push(s);
            }
        }
    }
}
