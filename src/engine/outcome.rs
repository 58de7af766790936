//! What a run is configured with and what it produces: plain data, no behaviour beyond the
//! two conversions every part of the engine shares (speed scaling and the planned/effective
//! runtime of a job).

use crate::model::{Job, Placements, Platform, Resource};
use crate::time::SimTime;

/// Where the scheduler's runtime predictions come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EstimateSource {
    /// The user's estimate from the workload (SWF field 9), the default.
    #[default]
    Trace,
    /// The real runtime: a perfectly informed scheduler.
    Exact,
}

/// How the events of one instant are ordered and when the local schedulers run. Simulators
/// differ here, and every divergence between two of them starts at such an instant; the
/// other conventions let a schedule be compared job for job with theirs (docs/local-policies.md).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EventOrder {
    /// Every completion (expiry, grid message) due, then every arrival in input order, then
    /// one scheduling pass per site touched.
    #[default]
    Gridscope,
    /// pyss's (`schedulers/simulator.py`, events ordered submission < termination): a job
    /// ending exactly at its estimate is free first (its estimated slice has ended); then
    /// each arrival with a pass after it; then each other event due (an early completion),
    /// with a pass after it.
    Pyss,
    /// CQSim's: each completion (and other event due), with a pass after it; then each
    /// arrival, with a pass after it.
    Cqsim,
}

impl EventOrder {
    /// The name scenarios and the CLI use.
    pub fn name(self) -> &'static str {
        match self {
            EventOrder::Gridscope => "gridscope",
            EventOrder::Pyss => "pyss",
            EventOrder::Cqsim => "cqsim",
        }
    }

    /// The order named `s` (`gridscope`, `pyss` or `cqsim`).
    pub fn parse(s: &str) -> Result<EventOrder, String> {
        match s {
            "gridscope" => Ok(EventOrder::Gridscope),
            "pyss" => Ok(EventOrder::Pyss),
            "cqsim" => Ok(EventOrder::Cqsim),
            other => Err(format!(
                "unknown event order '{other}' (expected gridscope, pyss or cqsim)"
            )),
        }
    }
}

/// Conventions of a run; they appear in every output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunConfig {
    /// Where runtime predictions come from.
    pub estimates: EstimateSource,
    /// A job that outlives its estimate is killed at the estimate (true, the default, as real
    /// batch systems do) or runs to its end (false; its predicted end then moves to its
    /// real end when the estimate expires, and plans are rebuilt).
    pub kill_at_estimate: bool,
    /// The order of the events of one instant (Gridscope's unless set).
    pub event_order: EventOrder,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            estimates: EstimateSource::Trace,
            kill_at_estimate: true,
            event_order: EventOrder::Gridscope,
        }
    }
}

/// Why a job could not run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RejectReason {
    /// It needs more allocation units than its site has.
    TooWide {
        /// Units the job needs at the site.
        needs: u32,
        /// Units the site has.
        capacity: u32,
    },
    /// Its home site index names no site of the platform.
    NoSuchSite,
    /// No placement on its site's nodes exists even with every node free (node-typed sites,
    /// issue #37): the resource that fell short, what the job needs of it and the most the
    /// site has (memory: KB per processor, or per node with a node count, against the
    /// largest node's; cores and GPUs: the job's against the site's; nodes: count against
    /// count).
    Unplaceable {
        /// The resource that fell short.
        resource: Resource,
        /// What the job needs of it.
        needs: u64,
        /// The most the site has of it.
        most: u64,
    },
    /// Its time limit exceeds the `MaxTime` of its partition under the `slurm` policy
    /// (issue #42): Slurm would leave it pending for ever (reason `PartitionTimeLimit`),
    /// or refuse it at submission under `EnforcePartLimits`.
    PartitionTimeLimit {
        /// The job's time limit (its estimate), in whole seconds rounded up.
        limit_s: u64,
        /// The partition's `MaxTime`, in seconds.
        max_time_s: u64,
    },
    /// Its Slurm partition is a node set (`Nodes=` naming node types) whose nodes can
    /// never hold it (issue #42), though the site's can: the resource that falls short,
    /// what the job needs of it and the most the partition's nodes have (as `Unplaceable`).
    PartitionNodes {
        /// The resource that falls short.
        resource: Resource,
        /// What the job needs of it.
        needs: u64,
        /// The most the partition's nodes have of it.
        most: u64,
    },
    /// A limit of its Slurm QOS holds it for ever (issue #42): `GrpTRES=cpu` or
    /// `MaxTRESPU=cpu` below its processors, or `MaxJobsPU=0` or `GrpJobs=0`. Slurm would
    /// leave it pending for ever (reason `QOSGrpCpuLimit`, `QOSMaxCpuPerUserLimit`,
    /// `QOSMaxJobsPerUserLimit`, `QOSGrpJobsLimit`).
    QosLimit {
        /// Which limit.
        limit: crate::policy::local::QosLimit,
        /// What the job needs of it (processors; 1 job).
        needs: u64,
        /// The most its QOS allows.
        most: u64,
    },
}

impl RejectReason {
    /// One line saying why, for reports (`job J: …`).
    pub fn describe(&self, procs: u32, home: u32) -> String {
        match *self {
            RejectReason::TooWide { needs, capacity } => format!(
                "needs {needs} units ({procs} processors), its site has {capacity}"
            ),
            RejectReason::NoSuchSite => format!("home site {home} does not exist"),
            RejectReason::Unplaceable {
                resource,
                needs,
                most,
            } => match resource {
                Resource::Memory => format!(
                    "needs {needs} KB of memory per processor ({procs} processors); no placement on the site's nodes holds it (the largest node has {most} KB)"
                ),
                Resource::Power => format!(
                    "needs {needs} cores computing at once; the site's power cap lets at most {most} compute (docs/energy.md)"
                ),
                r => format!(
                    "needs {needs} {} ({procs} processors), its site's nodes have {most}",
                    r.name()
                ),
            },
            RejectReason::PartitionNodes {
                resource,
                needs,
                most,
            } => format!(
                "needs {needs} {} ({procs} processors); its partition's nodes have at most {most}",
                match resource {
                    Resource::Memory => "KB of memory per processor",
                    r => r.name(),
                }
            ),
            RejectReason::PartitionTimeLimit {
                limit_s,
                max_time_s,
            } => format!(
                "asks for {limit_s} s, beyond its partition's MaxTime of {max_time_s} s (Slurm leaves it pending, reason PartitionTimeLimit)"
            ),
            RejectReason::QosLimit { limit, needs, most } => match limit {
                crate::policy::local::QosLimit::GrpCpus => format!(
                    "needs {needs} CPUs; its QOS's GrpTRES lets its running jobs hold {most} (Slurm leaves it pending, reason QOSGrpCpuLimit)"
                ),
                crate::policy::local::QosLimit::MaxJobsPerUser => format!(
                    "runs under a QOS whose MaxJobsPU is {most} (Slurm leaves it pending, reason QOSMaxJobsPerUserLimit)"
                ),
                crate::policy::local::QosLimit::GrpJobs => format!(
                    "runs under a QOS whose GrpJobs is {most} (Slurm leaves it pending, reason QOSGrpJobsLimit)"
                ),
                crate::policy::local::QosLimit::MaxCpusPerUser => format!(
                    "needs {needs} CPUs; its QOS's MaxTRESPU lets one user's running jobs hold {most} (Slurm leaves it pending, reason QOSMaxCpuPerUserLimit)"
                ),
                crate::policy::local::QosLimit::GrpMem => format!(
                    "needs {needs} KB of memory; its QOS's GrpTRES lets its running jobs hold {most} (Slurm leaves it pending, reason QOSGrpMemLimit)"
                ),
                crate::policy::local::QosLimit::GrpGpus => format!(
                    "needs {needs} GPUs; its QOS's GrpTRES lets its running jobs hold {most} (Slurm leaves it pending, reason QOSGrpGRES)"
                ),
                crate::policy::local::QosLimit::MaxMemPerUser => format!(
                    "needs {needs} KB of memory; its QOS's MaxTRESPU lets one user's running jobs hold {most} (Slurm leaves it pending, reason QOSMaxMemoryPerUser)"
                ),
                crate::policy::local::QosLimit::MaxGpusPerUser => format!(
                    "needs {needs} GPUs; its QOS's MaxTRESPU lets one user's running jobs hold {most} (Slurm leaves it pending, reason QOSMaxGRESPerUser)"
                ),
                crate::policy::local::QosLimit::MaxWall => format!(
                    "asks for {needs} s, beyond its QOS's MaxWall of {most} s (Slurm leaves it pending, reason QOSMaxWallDurationPerJobLimit)"
                ),
            },
        }
    }
}

impl From<crate::policy::local::Refusal> for RejectReason {
    fn from(r: crate::policy::local::Refusal) -> RejectReason {
        use crate::policy::local::Refusal;
        match r {
            Refusal::PartitionTimeLimit {
                limit_s,
                max_time_s,
            } => RejectReason::PartitionTimeLimit {
                limit_s,
                max_time_s,
            },
            Refusal::PartitionNodes {
                resource,
                needs,
                most,
            } => RejectReason::PartitionNodes {
                resource,
                needs,
                most,
            },
            Refusal::QosLimit { limit, needs, most } => {
                RejectReason::QosLimit { limit, needs, most }
            }
        }
    }
}

/// What happened to one job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobOutcome {
    /// Never reached by the run (only in a cancelled or broken run).
    Pending,
    /// Ran to its end.
    Finished,
    /// Stopped at its estimate (runtime above estimate with kills on).
    Killed,
    /// Killed by a node failure and not run again (issue #41, `OnFailure::Lost`): it ends
    /// at the failure, unfinished.
    Lost,
    /// Could not run anywhere; the reason says why.
    Rejected(RejectReason),
}

/// One job's result: 24 bytes, so per-job results stay well under 100 bytes a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The site it ran on (`u32::MAX` until it is dispatched).
    pub site: u32,
    /// When it started (`NEVER` if it did not).
    pub start: SimTime,
    /// When it ended (finished or killed).
    pub end: SimTime,
    /// What became of it.
    pub status: JobOutcome,
}

impl Outcome {
    pub(crate) const PENDING: Outcome = Outcome {
        site: u32::MAX,
        start: SimTime::NEVER,
        end: SimTime::NEVER,
        status: JobOutcome::Pending,
    };

    /// True for a job that ran (finished or killed).
    pub fn ran(&self) -> bool {
        matches!(
            self.status,
            JobOutcome::Finished | JobOutcome::Killed | JobOutcome::Lost
        )
    }
}

/// A finished run: its invariants have been checked (see [`super::check_invariants`]).
#[derive(Debug)]
pub struct RunOutput {
    /// Indexed like the input jobs.
    pub outcomes: Vec<Outcome>,
    /// Events handled (completions, expiries, grid messages, arrivals).
    pub events: u64,
    /// The longest local queue seen at the end of a scheduling pass.
    pub max_queue: usize,
    /// Set for the idealized scheme: the virtual machine's capacity in one-MHz CPUs (its
    /// outcomes carry the job's home as site, but ran on the whole virtual machine).
    pub ideal_capacity: Option<f64>,
    /// The nodes each job ran on, on node-typed sites (empty without them).
    pub placements: Placements,
    /// What nodes going down did (a run with outages only; issue #41).
    pub failures: Option<super::failure_log::FailureLog>,
    /// What the idle-timeout power policy did (a run with one only; issue #40).
    pub power: Option<super::power_log::PowerLog>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
/// A broken invariant: a bug in the engine or a policy; the message names the job and instant.
pub struct InvariantViolation(pub String);

impl std::fmt::Display for InvariantViolation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invariant violated (a bug, please report): {}", self.0)
    }
}

impl std::error::Error for InvariantViolation {}

/// Why a run did not produce a result. Only [`SimError::Invariant`] is a bug; the others
/// say what in the input to change.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SimError {
    /// The caller's progress callback (or the caller, between steps) asked to stop.
    Cancelled,
    /// A bug: an invariant did not hold. The message says which and where.
    Invariant(InvariantViolation),
    /// The platform cannot be simulated (no site, a site without units, a bad speed).
    InvalidPlatform {
        /// What is wrong with it.
        reason: String,
    },
    /// A grid scheme's parameters are out of range.
    InvalidGridParams {
        /// Which parameter and why.
        reason: String,
    },
    /// The jobs are not sorted by submit time: `job` comes after `after`.
    Unsorted {
        /// The job out of order.
        job: i64,
        /// The job before it, submitted later.
        after: i64,
    },
    /// More jobs than the engine's 32-bit job index can name.
    TooManyJobs {
        /// How many were given.
        jobs: usize,
    },
    /// The run passed one of the [`crate::limits::Limits`] (a conservative queue too long
    /// to re-plan in reasonable time); the message names it and its flag.
    Limit(crate::limits::LimitExceeded),
    /// Even run one after another on the slowest site the jobs could end past the clock.
    ClockOverflow {
        /// The last submit time, seconds.
        last_submit_s: f64,
        /// Run time of all jobs, seconds.
        work_s: f64,
    },
}

impl std::fmt::Display for SimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SimError::Cancelled => f.write_str("run cancelled"),
            SimError::Invariant(v) => v.fmt(f),
            SimError::InvalidPlatform { reason } | SimError::InvalidGridParams { reason } => {
                f.write_str(reason)
            }
            SimError::Unsorted { job, after } => write!(
                f,
                "jobs must be sorted by submit time (job {job} comes after job {after})"
            ),
            SimError::TooManyJobs { .. } => f.write_str("more than 4 billion jobs"),
            SimError::Limit(e) => e.fmt(f),
            SimError::ClockOverflow { last_submit_s, work_s } => write!(
                f,
                "the workload could run past the simulated clock (about 146 million years in milliseconds): last submit {last_submit_s} s, {work_s} s of run time in all"
            ),
        }
    }
}

impl std::error::Error for SimError {}

impl From<InvariantViolation> for SimError {
    fn from(v: InvariantViolation) -> Self {
        SimError::Invariant(v)
    }
}

/// `t` (measured on a machine of speed `from`) on a machine of speed `to`, at least one tick.
pub(crate) fn scale(t: SimTime, from: f64, to: f64) -> SimTime {
    if from == to {
        return t.max(SimTime(1));
    }
    SimTime(((t.0 as f64) * from / to).round() as i64).max(SimTime(1))
}

/// Work `saved` (checkpointed) counted at a site of speed `from`, at a site of speed `to`:
/// as it is when the speeds are equal, none when there is none, else [`scale`]d.
pub(crate) fn saved_at_speed(saved: SimTime, from: f64, to: f64) -> SimTime {
    if saved.0 == 0 || from == to {
        return saved;
    }
    scale(saved, from, to)
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
