//! What failures did to a run (issue #41, docs/failures.md): node availability, the runs
//! killed, the jobs requeued and lost, the work lost and the goodput, from the engine's
//! [`FailureLog`] and the outcomes.

use serde::{Deserialize, Serialize};

use super::ScenarioError;
use crate::engine::{FailureLog, JobOutcome, Outcome, SimTime};
use crate::failure::{
    CheckpointPlan, Checkpointing, FailureModel, OnFailure, Outage, OutageKind, Outages, RequeueAt,
    MAX_REQUEUE,
};
use crate::model::{Job, Platform};

/// A scenario's failures (its `failures` object; scenario version 4): every run of the
/// scenario sees them. Self-contained, so that a scenario file or a share link with
/// failures runs the same anywhere: a failure model (a preset's name or the model itself)
/// and known outages listed in full.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FailureSpec {
    /// Failures drawn per node: a preset's name (`lanl05-wbl`, …) or a model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<ModelSpec>,
    /// The seed of the model's per-node draws.
    #[serde(default)]
    pub seed: u64,
    /// Known outages.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outages: Vec<OutageSpec>,
    /// What becomes of a killed job: `requeue` (the default) or `lost`.
    #[serde(default)]
    pub on_failure: OnFailure,
    /// Times a job is requeued before it is lost (Slurm's `MaxBatchRequeue`, 5).
    #[serde(default = "max_requeue")]
    pub max_requeue: u32,
    /// Where a requeued job goes in its queue: `back` (the default, left out) or `front`.
    #[serde(default, skip_serializing_if = "RequeueAt::is_back")]
    pub requeue_at: RequeueAt,
    /// Checkpointing for every job: `{"interval": "young" | "daly" | {"fixed": S},
    /// "cost_s": C, "restart_s": R}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<Checkpointing>,
}

fn max_requeue() -> u32 {
    MAX_REQUEUE
}

/// A failure model by a preset's name, or given in full.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ModelSpec {
    Preset(String),
    Model(FailureModel),
}

/// Node `node` of site `site` (a site's name; the first site when absent) down from
/// `start_s` to `end_s` seconds after the workload's start.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutageSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site: Option<String>,
    pub node: u32,
    pub start_s: i64,
    pub end_s: i64,
    #[serde(default = "failure")]
    pub kind: OutageKind,
}

fn failure() -> OutageKind {
    OutageKind::Failure
}

impl FailureSpec {
    /// The engine's [`Outages`] on `platform`: sites named, the model found or checked,
    /// the checkpoint interval resolved (the engine checks the nodes).
    pub fn outages(&self, platform: &Platform) -> Result<Outages, ScenarioError> {
        let invalid = |m: String| ScenarioError::Invalid(format!("failures: {m}"));
        let model = match &self.model {
            None => None,
            Some(ModelSpec::Preset(name)) => Some(FailureModel::preset(name).ok_or_else(|| {
                let known: Vec<&str> = FailureModel::presets().map(|p| p.0).collect();
                invalid(format!(
                    "unknown failure model '{name}' (known: {})",
                    known.join(", ")
                ))
            })?),
            Some(ModelSpec::Model(m)) => {
                m.check().map_err(|e| invalid(e.to_string()))?;
                Some(m.clone())
            }
        };
        let mut windows = Vec::with_capacity(self.outages.len());
        for (i, o) in self.outages.iter().enumerate() {
            let site = match &o.site {
                None => 0,
                Some(name) => platform
                    .sites
                    .iter()
                    .position(|s| &s.name == name)
                    .ok_or_else(|| invalid(format!("outage {i} names no site '{name}'")))?
                    as u32,
            };
            if o.end_s <= o.start_s {
                return Err(invalid(format!(
                    "outage {i} ends at {} s, not after its start at {} s",
                    o.end_s, o.start_s
                )));
            }
            windows.push(Outage {
                site,
                node: o.node,
                start: SimTime::from_secs(o.start_s),
                end: SimTime::from_secs(o.end_s),
                kind: o.kind,
            });
        }
        if let Some(c) = &self.checkpoint {
            c.plan(model.as_ref()).map_err(|e| invalid(e.to_string()))?;
        }
        Ok(Outages {
            windows,
            model,
            seed: self.seed,
            on_failure: self.on_failure,
            max_requeue: self.max_requeue,
            requeue_at: self.requeue_at,
            checkpoint: self.checkpoint,
        })
    }
}

/// What each number of [`RunFailures`] means: its JSON key, formula and source (the page's
/// failures table and its help).
pub const FAILURE_HELP: &[crate::metrics::MetricHelp] = &[
    crate::metrics::MetricHelp { key: "downtimes", formula: "periods a node was down (a node's overlapping outages merged)", source: "docs/failures.md" },
    crate::metrics::MetricHelp { key: "availability", formula: "1 − node-seconds down / (nodes × span), the span from the first submission to the last end", source: "docs/failures.md; OpenDC, Alea" },
    crate::metrics::MetricHelp { key: "runs_killed", formula: "runs a failure cut short (a job killed twice counts twice)", source: "docs/failures.md" },
    crate::metrics::MetricHelp { key: "requeues", formula: "times a killed job went back to its queue (runs killed − jobs lost)", source: "Slurm's --requeue" },
    crate::metrics::MetricHelp { key: "requeued_elsewhere", formula: "with killed jobs offered to the grid again: requeues whose next run was on another site than the run killed", source: "docs/failures.md" },
    crate::metrics::MetricHelp { key: "jobs_lost", formula: "jobs that ended unfinished: killed under 'lost', or past the requeue limit", source: "docs/failures.md" },
    crate::metrics::MetricHelp { key: "work_lost_core_h", formula: "Σ over killed runs of processors × (failure − start − work checkpointed), core-hours", source: "docs/failures.md" },
    crate::metrics::MetricHelp { key: "goodput", formula: "useful core-hours / (useful + lost + checkpoint overhead core-hours)", source: "docs/failures.md" },
    crate::metrics::MetricHelp { key: "cut_at_limit", formula: "jobs whose checkpoints pushed their last run past its wallclock limit, killed there (checkpoints counted against the limit)", source: "docs/failures.md" },
    crate::metrics::MetricHelp { key: "work_unfinished_core_h", formula: "Σ over those runs of processors × the work left undone (work − saved − done before the limit), core-hours", source: "docs/failures.md" },
    crate::metrics::MetricHelp { key: "overhead_core_h", formula: "core-hours spent writing checkpoints (C each) and restarting from them (R each)", source: "Young, CACM 17(9) 1974; Daly, FGCS 22(3) 2006" },
];

/// A run's failures, in its JSON (`failures`) and the CLI's failure table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunFailures {
    /// What became of a killed job: `requeue` or `lost`.
    pub on_failure: String,
    /// Where requeued jobs went: `front` of their queue; absent for the back (the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requeue_at: Option<String>,
    /// Periods a node was down (overlapping outages of a node merged).
    pub downtimes: u64,
    /// Node-hours down within the run's span.
    pub node_down_h: f64,
    /// `1 − node-seconds down / (nodes × span)` over the node-typed sites, the span being
    /// the first submission to the last end.
    pub availability: f64,
    /// Runs a failure cut short.
    pub runs_killed: u64,
    /// Times a job went back to its queue.
    pub requeues: u64,
    /// With killed jobs offered to the grid again (`requeue_at: grid`): requeues whose
    /// next run was on another site than the run killed (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requeued_elsewhere: Option<u64>,
    /// Jobs that ended unfinished (killed under `lost`, or past the requeue limit).
    pub jobs_lost: u64,
    /// Of those, jobs lost because they had been requeued `max_requeue` times already.
    pub lost_at_requeue_limit: u64,
    /// Core-hours of the killed runs: processors × the time each ran before its failure.
    pub work_lost_core_h: f64,
    /// Core-hours of the runs that ended as planned (finished, or at their estimate).
    pub useful_core_h: f64,
    /// `useful / (useful + lost + checkpointing)` core-hours: the share of the core time
    /// spent that went into work that counted.
    pub goodput: f64,
    /// What checkpointing did (absent without it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<RunCheckpoint>,
}

/// A run's checkpointing: its plan and what it cost and saved. With it, a killed run's
/// time splits into the work it saved, its restart and checkpoints (overhead) and the rest
/// (lost); a finished job's useful work is its whole runtime, part of it done in runs a
/// failure later cut short.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunCheckpoint {
    /// Seconds of work between checkpoints (τ).
    pub interval_s: f64,
    /// Seconds to write one (C).
    pub cost_s: f64,
    /// Seconds to restart from one (R).
    pub restart_s: f64,
    /// Checkpoints written, by every run.
    pub checkpoints: u64,
    /// Runs that resumed from a checkpoint.
    pub restarts: u64,
    /// Core-hours of checkpoints and restarts.
    pub overhead_core_h: f64,
    /// Core-hours of work that killed runs checkpointed, so that no later run redid it.
    pub work_saved_core_h: f64,
    /// With a per-job interval: the shortest and the longest of the jobs' intervals
    /// (`interval_s` is then a one-node job's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval_range_s: Option<[f64; 2]>,
    /// With the checkpoints counted against the limit: jobs whose last run they pushed
    /// past its wallclock limit, killed there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut_at_limit: Option<u64>,
    /// With the checkpoints counted against the limit: core-hours of work those runs left
    /// undone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub work_unfinished_core_h: Option<f64>,
}

/// The report of `log` for a run of `jobs` on `platform` that ended with `outcomes`.
pub fn run_failures(
    platform: &Platform,
    jobs: &[Job],
    outcomes: &[Outcome],
    log: &FailureLog,
) -> RunFailures {
    let mut useful = 0.0;
    let mut first = SimTime::NEVER;
    let mut last = SimTime(i64::MIN);
    let mut lost = 0u64;
    let mut checkpoint = log.checkpoint.as_ref().map(|c| RunCheckpoint {
        interval_s: c.base.every.as_secs_f64(),
        cost_s: c.base.cost.as_secs_f64(),
        restart_s: c.base.restart.as_secs_f64(),
        checkpoints: 0,
        restarts: 0,
        overhead_core_h: 0.0,
        work_saved_core_h: 0.0,
        interval_range_s: intervals_ran(c.per_job(), outcomes),
        cut_at_limit: c.within_limit.then_some(0),
        work_unfinished_core_h: c.within_limit.then_some(0.0),
    });
    let (mut work_lost, saved) = killed_runs(jobs, log, &mut checkpoint);
    for (i, (job, out)) in jobs.iter().zip(outcomes).enumerate() {
        if !out.ran() {
            continue;
        }
        first = first.min(job.submit);
        last = last.max(out.end);
        let ran = core_h(job.procs, out.start, out.end);
        let plan = log.checkpoint.as_ref().map(|c| c.of(i));
        match (out.status, &mut checkpoint, plan) {
            (JobOutcome::Lost, Some(_), Some(_)) => {
                // Its saved work never finished: lost after all.
                lost += 1;
                work_lost += core_h(job.procs, SimTime::ZERO, saved[i]);
            }
            (JobOutcome::Lost, ..) => lost += 1,
            (_, Some(c), Some(plan)) => {
                // The last run: its restart and checkpoints, then the work left (or as
                // much of it as its limit let it do).
                let resumed = saved[i].0 > 0;
                let length = out.end - out.start;
                let unfinished = log.cut_at_limit.get(i).copied().unwrap_or(SimTime::ZERO);
                let (written, overhead) = last_run_overhead(&plan, length, resumed, unfinished);
                if unfinished.0 > 0 {
                    c.cut_at_limit = c.cut_at_limit.map(|n| n + 1);
                    c.work_unfinished_core_h = c
                        .work_unfinished_core_h
                        .map(|w| w + core_h(job.procs, SimTime::ZERO, unfinished));
                }
                c.checkpoints += written as u64;
                c.restarts += u64::from(resumed);
                c.overhead_core_h += core_h(job.procs, SimTime::ZERO, overhead);
                useful += ran - core_h(job.procs, SimTime::ZERO, overhead)
                    + core_h(job.procs, SimTime::ZERO, saved[i]);
            }
            _ => useful += ran,
        }
    }
    let nodes: u64 = platform
        .sites
        .iter()
        .filter(|s| s.has_nodes())
        .map(|s| u64::from(s.nodes))
        .sum();
    let down_s: f64 = log
        .downtimes
        .iter()
        .map(|d| {
            (d.end.min(last) - d.start.max(first))
                .as_secs_f64()
                .max(0.0)
        })
        .sum();
    let span_s = (last - first).as_secs_f64();
    let availability = match nodes > 0 && span_s > 0.0 {
        true => 1.0 - down_s / (nodes as f64 * span_s),
        false => 1.0,
    };
    let runs_killed = log.killed.len() as u64;
    let overhead = checkpoint.as_ref().map_or(0.0, |c| c.overhead_core_h);
    RunFailures {
        on_failure: log.on_failure.name().to_string(),
        requeue_at: (!log.requeue_at.is_back()).then(|| log.requeue_at.name().to_string()),
        downtimes: log.downtimes.len() as u64,
        node_down_h: down_s / 3600.0,
        availability,
        runs_killed,
        requeues: runs_killed - lost,
        requeued_elsewhere: (log.requeue_at == crate::failure::RequeueAt::Grid)
            .then(|| requeued_elsewhere(log, outcomes)),
        jobs_lost: lost,
        lost_at_requeue_limit: log.requeue_limit,
        work_lost_core_h: work_lost,
        useful_core_h: useful,
        goodput: match useful + work_lost + overhead > 0.0 {
            true => useful / (useful + work_lost + overhead),
            false => 1.0,
        },
        checkpoint,
    }
}

/// The killed runs of `log` whose job ran next on another site: the next run is the job's
/// next killed run, or its last run (`outcomes`) if it ran.
fn requeued_elsewhere(log: &FailureLog, outcomes: &[Outcome]) -> u64 {
    let mut next: Vec<u32> = outcomes
        .iter()
        .map(|o| if o.ran() { o.site } else { u32::MAX })
        .collect();
    let mut moved = 0;
    // The killed runs are in the order they were killed: backwards, each sees its next.
    for k in log.killed.iter().rev() {
        if let Some(n) = next.get_mut(k.job as usize) {
            moved += u64::from(*n != u32::MAX && *n != k.site);
            *n = k.site;
        }
    }
    moved
}

/// The checkpoints a job's last run of `length` wrote and its overhead (its restart and
/// checkpoints): of a run that did all its work, or of one its limit cut short with
/// `unfinished` work left.
fn last_run_overhead(
    plan: &CheckpointPlan,
    length: SimTime,
    resumed: bool,
    unfinished: SimTime,
) -> (i64, SimTime) {
    if unfinished.0 > 0 {
        let (done, written) = plan.cut_run(length, resumed);
        return (written, length - done);
    }
    let rest = plan.work_in_run(length, resumed);
    let written = plan.checkpoints(rest);
    (
        written,
        plan.restart_cost(resumed) + SimTime(written * plan.cost.0),
    )
}

/// The shortest and the longest per-job interval among the jobs that ran, in seconds.
fn intervals_ran(per_job: &[SimTime], outcomes: &[Outcome]) -> Option<[f64; 2]> {
    let ran = per_job
        .iter()
        .zip(outcomes)
        .filter(|(_, o)| o.ran())
        .map(|(t, _)| *t);
    let (lo, hi) = ran.fold((SimTime::NEVER, SimTime::ZERO), |(lo, hi), t| {
        (lo.min(t), hi.max(t))
    });
    (lo <= hi).then(|| [lo.as_secs_f64(), hi.as_secs_f64()])
}

/// `procs` processors from `from` to `to`, in core-hours.
fn core_h(procs: u32, from: SimTime, to: SimTime) -> f64 {
    f64::from(procs) * (to - from).as_secs_f64() / 3600.0
}

/// The killed runs' core-hours lost, and per job the work they saved (empty without
/// checkpointing). With checkpointing, each killed run's restart and checkpoints are
/// overhead (added to `checkpoint`), the work it saved is kept, and the rest is lost.
fn killed_runs(
    jobs: &[Job],
    log: &FailureLog,
    checkpoint: &mut Option<RunCheckpoint>,
) -> (f64, Vec<SimTime>) {
    let mut work_lost = 0.0;
    let mut saved = vec![SimTime::ZERO; if checkpoint.is_some() { jobs.len() } else { 0 }];
    for k in &log.killed {
        let procs = jobs[k.job as usize].procs;
        let spent = core_h(procs, k.start, k.end);
        let plan = log.checkpoint.as_ref().map(|c| c.of(k.job as usize));
        let (Some(c), Some(plan)) = (checkpoint.as_mut(), plan) else {
            work_lost += spent;
            continue;
        };
        let before = saved[k.job as usize];
        // A run killed during its restart spent only the time it ran.
        let restart = plan.restart_cost(before.0 > 0).min(k.end - k.start);
        let written = k.saved.0 / plan.every.0;
        let overhead = restart + SimTime(written * plan.cost.0);
        c.checkpoints += written as u64;
        c.restarts += u64::from(before.0 > 0);
        c.overhead_core_h += core_h(procs, SimTime::ZERO, overhead);
        c.work_saved_core_h += core_h(procs, SimTime::ZERO, k.saved);
        work_lost += spent - core_h(procs, SimTime::ZERO, overhead + k.saved);
        saved[k.job as usize] = before + k.saved;
    }
    (work_lost, saved)
}
