//! Checkpointing: how often a job should save its state, and what failures and checkpoints
//! cost it.
//!
//! A job checkpoints every τ seconds of work at a cost C; after a failure it restarts from
//! its last checkpoint at a cost R. With failures of mean time M between them (exponential),
//! the time a job wastes per unit of useful work (`wall time / work − 1`) is, to first order
//! (Young, CACM 17(9), 1974), `C/τ + τ/(2M)`, least at Young's interval `τ = √(2·C·M)`;
//! Daly (FGCS 22(3), 2006) refines it. [`simulate_waste`] draws the waste of one node's
//! jobs to check both.

use serde::{Deserialize, Serialize};

use super::{FailureError, FailureModel};
use crate::rng::SimRng;
use crate::time::SimTime;

/// How often a job checkpoints: a fixed interval of work, or Young's or Daly's interval
/// from the nodes' mean time between failures (the failure model's mean up time).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Interval {
    /// Every this many seconds of work.
    Fixed(f64),
    /// Young's `√(2·C·M)`.
    Young,
    /// Daly's higher-order interval.
    Daly,
}

/// Checkpointing as a run is configured with it: the interval, the cost C of writing a
/// checkpoint and the cost R of restarting from one, in seconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Checkpointing {
    pub interval: Interval,
    pub cost_s: f64,
    pub restart_s: f64,
    /// Young's or Daly's interval from each job's own mean time between failures, `M/k`
    /// for a job on k nodes (each of which fails independently with mean M), instead of
    /// the node's M for every job (scenario version 9; left out when false).
    #[serde(default, skip_serializing_if = "is_false")]
    pub per_job: bool,
    /// The checkpoints count against the job's wallclock limit, as they do under a real
    /// batch system: the scheduler plans a run with the limit as given, and a run whose
    /// checkpoints push it past the limit is killed there (with the run's kill at the
    /// estimate). When false (the default, left out), the limit is taken to include them:
    /// a run is planned and allowed as long as its checkpoints make it (scenario version 9).
    #[serde(default, skip_serializing_if = "is_false")]
    pub within_limit: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl Checkpointing {
    /// Every job checkpointing every `interval`, at cost `cost_s`, restarting at
    /// `restart_s`, the node's interval for every job and the limit taken to include them.
    pub fn every(interval: Interval, cost_s: f64, restart_s: f64) -> Checkpointing {
        Checkpointing {
            interval,
            cost_s,
            restart_s,
            per_job: false,
            within_limit: false,
        }
    }

    /// True when it needs scenario version 9 (a per-job interval, or the limit kept).
    pub fn is_v9(&self) -> bool {
        self.per_job || self.within_limit
    }

    /// The plan of each of `nodes_per_job.len()` jobs, job `j` spanning `nodes_per_job[j]`
    /// nodes (read only when [`Checkpointing::per_job`]).
    pub fn job_plans(
        &self,
        model: Option<&FailureModel>,
        nodes_per_job: impl ExactSizeIterator<Item = u32>,
    ) -> Result<JobCheckpoints, FailureError> {
        let base = self.plan(model)?;
        let every = match (self.per_job, model) {
            (true, Some(m)) => {
                let mtbf = m.mtbf_s();
                nodes_per_job
                    .map(|k| {
                        let job_mtbf = mtbf / f64::from(k.max(1));
                        let s = match self.interval {
                            Interval::Daly => daly_interval(self.cost_s, job_mtbf),
                            _ => young_interval(self.cost_s, job_mtbf),
                        };
                        SimTime::from_secs_f64(s).max(SimTime(1))
                    })
                    .collect()
            }
            _ => Vec::new(),
        };
        Ok(JobCheckpoints {
            base,
            every,
            within_limit: self.within_limit,
        })
    }

    /// The plan every job of a run follows (of a job on one node, with
    /// [`Checkpointing::per_job`]): the interval resolved against the failure `model`
    /// (Young's and Daly's need one: they read its mean up time as M).
    pub fn plan(&self, model: Option<&FailureModel>) -> Result<CheckpointPlan, FailureError> {
        if self.per_job && matches!(self.interval, Interval::Fixed(_)) {
            return Err(FailureError::Model(
                "a per-job checkpoint interval is Young's or Daly's from the job's own MTBF; a fixed interval is the same for every job".into(),
            ));
        }
        let bad = |what: &str, v: f64| {
            Err(FailureError::Model(format!(
                "checkpoint {what} must be a finite number of seconds ≥ 0, not {v}"
            )))
        };
        if !(self.cost_s.is_finite() && self.cost_s >= 0.0) {
            return bad("cost", self.cost_s);
        }
        if !(self.restart_s.is_finite() && self.restart_s >= 0.0) {
            return bad("restart cost", self.restart_s);
        }
        let every_s = match self.interval {
            Interval::Fixed(s) if s.is_finite() && s > 0.0 => s,
            Interval::Fixed(s) => {
                return Err(FailureError::Model(format!(
                    "the checkpoint interval must be a finite number of seconds > 0, not {s}"
                )))
            }
            Interval::Young | Interval::Daly => {
                let Some(m) = model else {
                    return Err(FailureError::Model(
                        "Young's and Daly's checkpoint intervals need a failure model (their M is its mean time between failures); give a fixed interval with outage files alone".into(),
                    ));
                };
                let mtbf = m.mtbf_s();
                match self.interval {
                    Interval::Young => young_interval(self.cost_s, mtbf),
                    _ => daly_interval(self.cost_s, mtbf),
                }
            }
        };
        Ok(CheckpointPlan {
            every: SimTime::from_secs_f64(every_s).max(SimTime(1)),
            cost: SimTime::from_secs_f64(self.cost_s),
            restart: SimTime::from_secs_f64(self.restart_s),
        })
    }
}

/// Each job's checkpointing in a run: one plan for all, or (per job) the interval from its
/// own mean time between failures; and whether the checkpoints count against the limit.
#[derive(Clone, Debug, PartialEq)]
pub struct JobCheckpoints {
    /// Every job's plan; with per-job intervals, a one-node job's.
    pub base: CheckpointPlan,
    /// Per job, its interval (empty when every job follows `base`).
    every: Vec<SimTime>,
    /// [`Checkpointing::within_limit`].
    pub within_limit: bool,
}

impl JobCheckpoints {
    /// Every job following `plan`, the limit taken to include the checkpoints.
    pub fn uniform(plan: CheckpointPlan) -> JobCheckpoints {
        JobCheckpoints {
            base: plan,
            every: Vec::new(),
            within_limit: false,
        }
    }

    /// Job `job`'s plan.
    pub fn of(&self, job: usize) -> CheckpointPlan {
        match self.every.get(job) {
            Some(&every) => CheckpointPlan { every, ..self.base },
            None => self.base,
        }
    }

    /// Per job, its interval, when intervals are per job (empty otherwise).
    pub fn per_job(&self) -> &[SimTime] {
        &self.every
    }
}

/// What every job of a run does, in ticks: after each `every` of work it writes a
/// checkpoint for `cost`; a run that resumes from a checkpoint first spends `restart`.
/// A run of `w` of work writes `⌈w/every⌉ − 1` checkpoints (none after its last piece:
/// it ends instead).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckpointPlan {
    pub every: SimTime,
    pub cost: SimTime,
    pub restart: SimTime,
}

impl CheckpointPlan {
    /// What a run spends before its work: R when it `resumed` from a checkpoint, nothing
    /// when it starts afresh.
    pub fn restart_cost(&self, resumed: bool) -> SimTime {
        match resumed {
            true => self.restart,
            false => SimTime::ZERO,
        }
    }

    /// Checkpoints written by a run of `work` that is not cut short.
    pub fn checkpoints(&self, work: SimTime) -> i64 {
        if work.0 <= 0 {
            return 0;
        }
        (work.0 + self.every.0 - 1) / self.every.0 - 1
    }

    /// How long a run of a job of `full` work lasts when `saved` of it is checkpointed
    /// already: the restart (when there is a checkpoint to read), the rest of the work and
    /// the checkpoints on the way.
    pub fn run_length(&self, full: SimTime, saved: SimTime) -> SimTime {
        let rest = SimTime((full.0 - saved.0).max(0));
        let restart = self.restart_cost(saved.0 > 0);
        SimTime(
            restart
                .0
                .saturating_add(rest.0)
                .saturating_add(self.cost.0.saturating_mul(self.checkpoints(rest))),
        )
        .max(SimTime(1))
    }

    /// The work a run of `length` that was not cut short did, after its restart when it
    /// `resumed` from a checkpoint: the inverse of [`CheckpointPlan::run_length`]. A run of
    /// `n` pieces of work lasts `x = rest + C·(n − 1)` after the restart, so
    /// `n = ⌈(x + C)/(τ + C)⌉`.
    pub fn work_in_run(&self, length: SimTime, resumed: bool) -> SimTime {
        let restart = self.restart_cost(resumed);
        let x = length.0 - restart.0;
        if x <= 0 {
            return SimTime::ZERO;
        }
        let step = self.every.0 + self.cost.0;
        let pieces = (x + self.cost.0 + step - 1) / step;
        SimTime(x - self.cost.0 * (pieces - 1))
    }

    /// The work done by a run of `length` that its limit cut short, after its restart when
    /// it `resumed`, and the checkpoints it wrote: each whole `every + cost` is a piece of
    /// work and its checkpoint; what is left of the run is work up to `every`, then a
    /// checkpoint cut short. (For a run not cut short this gives
    /// [`CheckpointPlan::work_in_run`]'s work.)
    pub fn cut_run(&self, length: SimTime, resumed: bool) -> (SimTime, i64) {
        let x = length.0 - self.restart_cost(resumed).0;
        if x <= 0 {
            return (SimTime::ZERO, 0);
        }
        let step = self.every.0 + self.cost.0;
        let (written, rest) = (x / step, x % step);
        (
            SimTime(written * self.every.0 + rest.min(self.every.0)),
            written,
        )
    }

    /// The work saved (checkpointed) by a run of a job of `full` work, `saved` of it saved
    /// before the run, cut short after `elapsed`: each whole `every + cost` after the
    /// restart is one checkpoint, up to the run's last.
    pub fn saved_by_run(&self, full: SimTime, saved: SimTime, elapsed: SimTime) -> SimTime {
        let rest = SimTime((full.0 - saved.0).max(0));
        let restart = self.restart_cost(saved.0 > 0);
        let working = elapsed.0 - restart.0;
        if working <= 0 {
            return SimTime::ZERO;
        }
        let done = (working / (self.every.0 + self.cost.0)).min(self.checkpoints(rest));
        SimTime(done * self.every.0)
    }
}

/// Young's checkpoint interval `√(2·C·M)` (C the checkpoint cost, M the mean time between
/// failures, both in seconds).
pub fn young_interval(cost_s: f64, mtbf_s: f64) -> f64 {
    libm::sqrt(2.0 * cost_s * mtbf_s)
}

/// Daly's higher-order interval (FGCS 2006, eq. 37): `√(2CM)·(1 + √(C/(2M))/3 + C/(18M)) − C`
/// while C < 2M, else M.
pub fn daly_interval(cost_s: f64, mtbf_s: f64) -> f64 {
    if cost_s >= 2.0 * mtbf_s {
        return mtbf_s;
    }
    let r = cost_s / (2.0 * mtbf_s);
    young_interval(cost_s, mtbf_s) * (1.0 + libm::sqrt(r) / 3.0 + r / 9.0) - cost_s
}

/// The first-order waste `C/τ + τ/(2M)` (Young 1974): wall time per unit of work, less one.
pub fn first_order_waste(interval_s: f64, cost_s: f64, mtbf_s: f64) -> f64 {
    cost_s / interval_s + interval_s / (2.0 * mtbf_s)
}

/// The exact expected waste for exponential failures with no restart cost and no
/// downtime: a segment of τ + C takes `(e^{(τ+C)/M} − 1)·M` on average, of which τ is work.
pub fn exact_waste(interval_s: f64, cost_s: f64, mtbf_s: f64) -> f64 {
    let expected = libm::expm1((interval_s + cost_s) / mtbf_s) * mtbf_s;
    expected / interval_s - 1.0
}

/// The waste of one node's checkpointing jobs, drawn: its mean over the jobs and the mean's
/// standard error.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WasteEstimate {
    pub mean: f64,
    pub std_err: f64,
    pub jobs: usize,
    pub failures: u64,
}

/// What [`simulate_waste`] runs: `jobs` jobs of `segments` × τ seconds of work each, one
/// after the other on one node whose failures are exponential of mean `mtbf_s`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WasteRun {
    pub interval_s: f64,
    pub cost_s: f64,
    pub restart_s: f64,
    pub mtbf_s: f64,
    pub segments: u32,
    pub jobs: usize,
    pub seed: u64,
}

/// Runs each job segment by segment: a segment needs τ of work and C to save it (and R
/// first after a failure); a failure before it is saved loses the time spent on it, and
/// the segment starts again. Exponential failures are memoryless, so each try draws its own
/// time to failure. A job's waste is `wall time / work − 1`.
pub fn simulate_waste(run: &WasteRun) -> WasteEstimate {
    let mut rng = SimRng::new(run.seed);
    let work = run.interval_s * f64::from(run.segments);
    let mut sum = 0.0;
    let mut sum_sq = 0.0;
    let mut failures = 0;
    for _ in 0..run.jobs {
        let mut wall = 0.0;
        for _ in 0..run.segments {
            let mut restart = 0.0;
            loop {
                let need = restart + run.interval_s + run.cost_s;
                let fails_at = rng.exponential(run.mtbf_s);
                if fails_at >= need {
                    wall += need;
                    break;
                }
                wall += fails_at;
                failures += 1;
                restart = run.restart_s;
            }
        }
        let waste = wall / work - 1.0;
        sum += waste;
        sum_sq += waste * waste;
    }
    let n = run.jobs.max(1) as f64;
    let mean = sum / n;
    let var = (sum_sq / n - mean * mean).max(0.0) * n / (n - 1.0).max(1.0);
    WasteEstimate {
        mean,
        std_err: libm::sqrt(var / n),
        jobs: run.jobs,
        failures,
    }
}
