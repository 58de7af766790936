//! What failures did to a run (issue #41, docs/failures.md): node availability, the runs
//! killed, the jobs requeued and lost, the work lost and the goodput, from the engine's
//! [`FailureLog`] and the outcomes.

use serde::{Deserialize, Serialize};

use crate::engine::{FailureLog, JobOutcome, Outcome, SimTime};
use crate::model::{Job, Platform};

/// A run's failures, in its JSON (`failures`) and the CLI's failure table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunFailures {
    /// What became of a killed job: `requeue` or `lost`.
    pub on_failure: String,
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
    /// Jobs that ended unfinished (killed under `lost`, or past the requeue limit).
    pub jobs_lost: u64,
    /// Of those, jobs lost because they had been requeued `max_requeue` times already.
    pub lost_at_requeue_limit: u64,
    /// Core-hours of the killed runs: processors × the time each ran before its failure.
    pub work_lost_core_h: f64,
    /// Core-hours of the runs that ended as planned (finished, or at their estimate).
    pub useful_core_h: f64,
    /// `useful / (useful + lost)` core-hours: the share of the work done that counted.
    pub goodput: f64,
}

/// The report of `log` for a run of `jobs` on `platform` that ended with `outcomes`.
pub fn run_failures(
    platform: &Platform,
    jobs: &[Job],
    outcomes: &[Outcome],
    log: &FailureLog,
) -> RunFailures {
    let core_h = |procs: u32, from: SimTime, to: SimTime| {
        f64::from(procs) * (to - from).as_secs_f64() / 3600.0
    };
    let mut useful = 0.0;
    let mut first = SimTime::NEVER;
    let mut last = SimTime(i64::MIN);
    let mut lost = 0u64;
    for (job, out) in jobs.iter().zip(outcomes) {
        if !out.ran() {
            continue;
        }
        first = first.min(job.submit);
        last = last.max(out.end);
        match out.status {
            JobOutcome::Lost => lost += 1,
            _ => useful += core_h(job.procs, out.start, out.end),
        }
    }
    let work_lost: f64 = log
        .killed
        .iter()
        .map(|k| core_h(jobs[k.job as usize].procs, k.start, k.end))
        .sum();
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
    RunFailures {
        on_failure: log.on_failure.name().to_string(),
        downtimes: log.downtimes.len() as u64,
        node_down_h: down_s / 3600.0,
        availability,
        runs_killed,
        requeues: runs_killed - lost,
        jobs_lost: lost,
        lost_at_requeue_limit: log.requeue_limit,
        work_lost_core_h: work_lost,
        useful_core_h: useful,
        goodput: match useful + work_lost > 0.0 {
            true => useful / (useful + work_lost),
            false => 1.0,
        },
    }
}
