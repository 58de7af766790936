//! SOB's idealized scheme (§2.3): the grid as one virtual machine of Σ CPUs × MHz one-MHz
//! CPUs, every job perfectly malleable — "the number of CPUs assigned to the job can be
//! varied arbitrarily according to the machine status". A job of p CPUs × s MHz × t seconds
//! is p·s·t units of work.
//!
//! The machine is shared equally among the jobs present (egalitarian processor sharing):
//! a job starts the instant it is submitted (it never waits) and the capacity is re-divided
//! at every arrival and completion. That makes it the upper bound SOB intends: no job waits,
//! no capacity idles while work is present (grid efficiency is the offered work over the
//! capacity), and a job never finishes sooner than its work on the whole machine. (Serving
//! the jobs first-come first-served on the whole machine instead bounds efficiency but not
//! wait or response: under overload one long job holds up everything behind it.)
//!
//! Arithmetic: the attained service per present job (`v`, in work units) grows at
//! capacity / n per millisecond; a job arriving when it is `v_a` leaves when it reaches
//! `v_a + work`, so the next completion is the smallest such target — a heap, O(log n) per
//! event. Completion instants are rounded up to whole milliseconds.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::outcome::planned_and_effective;
use super::{JobOutcome, Outcome, RejectReason, RunConfig, RunOutput, SimError, SimTime};
use crate::model::{Job, Platform};

/// The virtual machine's capacity: Σ over sites of CPUs × speed.
pub fn ideal_capacity(platform: &Platform) -> f64 {
    platform
        .sites
        .iter()
        .map(|s| s.cpus() as f64 * s.speed)
        .sum()
}

/// Work of a job in one-MHz-CPU ticks: processors × home speed × (effective) runtime.
pub fn ideal_work(job: &Job, platform: &Platform, cfg: &RunConfig) -> f64 {
    let (_, effective) = planned_and_effective(job, cfg);
    let speed = platform
        .sites
        .get(job.home as usize)
        .map_or(0.0, |s| s.speed);
    job.procs as f64 * speed * effective.0 as f64
}

/// Why a job cannot run on the grid at all (the same rule as the real schemes).
fn rejection(job: &Job, platform: &Platform) -> Option<RejectReason> {
    let Some(home) = platform.sites.get(job.home as usize) else {
        return Some(RejectReason::NoSuchSite);
    };
    if platform
        .sites
        .iter()
        .any(|s| s.units_for(job.procs) <= s.capacity_units())
    {
        None
    } else {
        Some(RejectReason::TooWide {
            needs: home.units_for(job.procs),
            capacity: home.capacity_units(),
        })
    }
}

/// A service target in the heap: the attained service at which the job leaves (its bits:
/// non-negative floats order like their bit patterns), then the job's index for ties.
type Target = Reverse<(u64, usize)>;

/// Runs `jobs` on the idealized machine (see the module doc): every job starts at its submit
/// and shares the machine equally with the others present until its work is done.
pub fn simulate_ideal(
    platform: &Platform,
    jobs: &[Job],
    cfg: &RunConfig,
) -> Result<RunOutput, SimError> {
    platform
        .validate()
        .map_err(|reason| SimError::InvalidPlatform { reason })?;
    let capacity = ideal_capacity(platform);
    let mut outcomes: Vec<Outcome> = jobs
        .iter()
        .map(|_| Outcome {
            site: u32::MAX,
            start: SimTime::NEVER,
            end: SimTime::NEVER,
            status: JobOutcome::Pending,
        })
        .collect();
    let mut present: BinaryHeap<Target> = BinaryHeap::new();
    // Attained service of every present job since the run began (work units), and when it
    // was last brought up to date.
    let (mut v, mut t) = (0.0f64, SimTime(i64::MIN));
    let mut next = 0;
    let mut events = 0u64;
    loop {
        let n = present.len();
        let completion = present.peek().map(|Reverse((target, _))| {
            let left = (f64::from_bits(*target) - v).max(0.0);
            t + SimTime((left * n as f64 / capacity).ceil() as i64)
        });
        let arrival = jobs.get(next).map(|j| j.submit);
        // Completions before arrivals at the same instant, as in the engine.
        let now = match (completion, arrival) {
            (None, None) => break,
            (Some(c), Some(a)) => c.min(a),
            (Some(c), None) => c,
            (None, Some(a)) => a,
        };
        if n > 0 {
            v += (now - t).0 as f64 * capacity / n as f64;
        }
        t = now;
        events += 1;
        if completion == Some(now) {
            // The job the completion instant was computed for leaves, and any other whose
            // target the (rounded-up) instant also reached.
            let mut first = true;
            while let Some(&Reverse((target, i))) = present.peek() {
                if !first && f64::from_bits(target) > v {
                    break;
                }
                first = false;
                present.pop();
                outcomes[i].end = now;
            }
            continue;
        }
        let i = next;
        next += 1;
        let job = &jobs[i];
        if let Some(reason) = rejection(job, platform) {
            outcomes[i].status = JobOutcome::Rejected(reason);
            continue;
        }
        let (planned, _) = planned_and_effective(job, cfg);
        outcomes[i] = Outcome {
            site: job.home,
            start: now,
            end: SimTime::NEVER,
            status: if cfg.kill_at_estimate && job.runtime > planned {
                JobOutcome::Killed
            } else {
                JobOutcome::Finished
            },
        };
        let target = v + ideal_work(job, platform, cfg).max(f64::MIN_POSITIVE);
        present.push(Reverse((target.to_bits(), i)));
    }
    Ok(RunOutput {
        outcomes,
        events,
        // Nothing ever queues on the shared machine.
        max_queue: 0,
        ideal_capacity: Some(capacity),
    })
}

/// The idealized run's own invariants: every job accounted for (finished, or rejected with
/// a reason); no job waits (start = submit) or ends before it starts; no job beats its work
/// on the whole machine (end − submit ≥ work / capacity, to the millisecond); and capacity:
/// the work of the jobs finished by any instant never exceeds capacity × the time elapsed.
pub fn check_ideal(
    platform: &Platform,
    jobs: &[Job],
    outcomes: &[Outcome],
    cfg: &RunConfig,
) -> Result<(), String> {
    let capacity = ideal_capacity(platform);
    let mut ended: Vec<(SimTime, f64)> = vec![];
    for (job, o) in jobs.iter().zip(outcomes) {
        match o.status {
            JobOutcome::Pending => return Err(format!("job {} never ran", job.id)),
            JobOutcome::Rejected(_) => continue,
            _ => {}
        }
        if o.start != job.submit || o.end <= o.start || o.end == SimTime::NEVER {
            return Err(format!(
                "ideal job {} runs [{}, {}) but was submitted at {}",
                job.id, o.start, o.end, job.submit
            ));
        }
        let work = ideal_work(job, platform, cfg);
        if ((o.end - o.start).0 as f64) < (work / capacity).floor() {
            return Err(format!(
                "ideal job {} ran faster than the whole machine allows",
                job.id
            ));
        }
        ended.push((o.end, work));
    }
    let Some(first) = jobs.first().map(|j| j.submit) else {
        return Ok(());
    };
    ended.sort_by_key(|e| e.0);
    let mut done = 0.0;
    for (end, work) in ended {
        done += work;
        let room = capacity * (end - first).0 as f64;
        if done > room * (1.0 + 1e-9) + 1e-6 {
            return Err(format!(
                "the ideal machine did {done} units of work by {end}, more than its capacity allows ({room})"
            ));
        }
    }
    Ok(())
}
