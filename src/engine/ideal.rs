//! SOB's idealized scheme (§2.3): the grid as one virtual machine of Σ CPUs × MHz one-MHz
//! CPUs, every job perfectly malleable — "the number of CPUs assigned to the job can be
//! varied arbitrarily according to the machine status". A job of p CPUs × s MHz × t seconds
//! is p·s·t units of work.
//!
//! SOB gives the machine, not the order in which it serves the jobs; three disciplines are
//! offered (`GridParams::ideal_discipline`), each a bound of a different quantity:
//! - **processor sharing** (the default): the machine is shared equally among the jobs
//!   present; a job starts the instant it is submitted (no job waits) and no capacity idles
//!   while work is present, so grid efficiency is the offered work over the capacity;
//! - **SRPT** (shortest remaining processing time, preemptive): the whole machine serves the
//!   job with the least work left — the lower bound on mean response time for this machine
//!   (Schrage 1968);
//! - **FCFS**: the whole machine serves the jobs one at a time in submit order (bounds
//!   efficiency like the others, but not wait: one long job holds up everything behind it).
//!
//! Arithmetic is exact: work is an integer count of (one-thousandth-MHz CPU × millisecond)
//! units in `u128` (speeds are read to 1/1000 MHz), so a tiny job beside a huge one keeps its
//! work. Processor sharing tracks the attained service per present job in fixed point (16
//! fraction bits): it grows by capacity × dt / n, rounded down; a job arriving when it is
//! `v_a` leaves when it reaches `v_a + work`, the next completion is the smallest target — a
//! heap, O(log n) per event. Completion instants are rounded up to whole milliseconds.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::outcome::planned_and_effective;
use super::{JobOutcome, Outcome, RejectReason, RunConfig, RunOutput, SimError, SimTime};
use crate::model::{Job, Platform};
use crate::policy::grid::IdealDiscipline;

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

/// Fraction bits of processor sharing's attained service.
const FRACTION_BITS: u32 = 16;

/// A site's speed in 1/1000 MHz (at least 1).
fn speed_units(speed: f64) -> u128 {
    (speed * 1000.0).round().max(1.0) as u128
}

/// The machine's capacity in work units per millisecond: Σ CPUs × speed.
fn capacity_units(platform: &Platform) -> u128 {
    platform
        .sites
        .iter()
        .map(|s| s.cpus() as u128 * speed_units(s.speed))
        .sum::<u128>()
        .max(1)
}

/// A job's work in units: processors × home speed × (effective) runtime in ms (at least 1).
fn work_units(job: &Job, platform: &Platform, cfg: &RunConfig) -> u128 {
    let (_, effective) = planned_and_effective(job, cfg);
    let speed = platform
        .sites
        .get(job.home as usize)
        .map_or(1, |s| speed_units(s.speed));
    (job.procs as u128 * speed * effective.0.max(0) as u128).max(1)
}

fn overflow() -> SimError {
    SimError::InvalidPlatform {
        reason: "the idealized machine's work passes 2¹²⁸ units (processors × MHz × ms): \
                 the workload or the platform is far beyond any real grid"
            .into(),
    }
}

/// Milliseconds to serve `left` units at `rate` units per ms, rounded up.
fn ms_for(left: u128, rate: u128) -> Result<SimTime, SimError> {
    let ms = left.div_ceil(rate.max(1));
    i64::try_from(ms).map(SimTime).map_err(|_| overflow())
}

/// Runs `jobs` on the idealized machine under `discipline` (see the module doc).
pub fn simulate_ideal(
    platform: &Platform,
    jobs: &[Job],
    cfg: &RunConfig,
    discipline: IdealDiscipline,
) -> Result<RunOutput, SimError> {
    platform
        .validate()
        .map_err(|reason| SimError::InvalidPlatform { reason })?;
    let mut outcomes: Vec<Outcome> = jobs
        .iter()
        .map(|_| Outcome {
            site: u32::MAX,
            start: SimTime::NEVER,
            end: SimTime::NEVER,
            status: JobOutcome::Pending,
        })
        .collect();
    let events = match discipline {
        IdealDiscipline::ProcessorSharing => processor_sharing(platform, jobs, cfg, &mut outcomes)?,
        IdealDiscipline::Srpt | IdealDiscipline::Fcfs => {
            one_at_a_time(platform, jobs, cfg, discipline, &mut outcomes)?
        }
    };
    Ok(RunOutput {
        placements: Default::default(),
        outcomes,
        events,
        // Nothing waits in a local queue on the shared machine.
        max_queue: 0,
        ideal_capacity: Some(ideal_capacity(platform)),
        failures: None,
        power: None,
    })
}

/// The outcome of a job admitted at `now` (its kill status from its estimate), or its
/// rejection; `None` when rejected.
fn admit(job: &Job, platform: &Platform, cfg: &RunConfig, out: &mut Outcome) -> bool {
    if let Some(reason) = rejection(job, platform) {
        out.status = JobOutcome::Rejected(reason);
        return false;
    }
    let (planned, _) = planned_and_effective(job, cfg);
    *out = Outcome {
        site: job.home,
        start: SimTime::NEVER,
        end: SimTime::NEVER,
        status: if cfg.kill_at_estimate && job.runtime > planned {
            JobOutcome::Killed
        } else {
            JobOutcome::Finished
        },
    };
    true
}

/// The earlier of the next completion and the next arrival; `None` when both are done.
fn next_instant(completion: Option<SimTime>, arrival: Option<SimTime>) -> Option<SimTime> {
    match (completion, arrival) {
        (Some(c), Some(a)) => Some(c.min(a)),
        (c, a) => c.or(a),
    }
}

/// Egalitarian processor sharing; the number of events handled.
fn processor_sharing(
    platform: &Platform,
    jobs: &[Job],
    cfg: &RunConfig,
    outcomes: &mut [Outcome],
) -> Result<u64, SimError> {
    let capacity = capacity_units(platform);
    // Capacity in fixed point: attained service grows by this × dt / n.
    let rate = capacity.checked_shl(FRACTION_BITS).ok_or_else(overflow)?;
    let mut present: BinaryHeap<Reverse<(u128, usize)>> = BinaryHeap::new();
    let (mut v, mut t) = (0u128, SimTime(i64::MIN));
    let (mut next, mut events) = (0usize, 0u64);
    loop {
        let n = present.len() as u128;
        let completion = match present.peek() {
            Some(Reverse((target, _))) => {
                // dt with rate·dt/n ≥ left: dt = ⌈left·n / rate⌉.
                let left = target.saturating_sub(v);
                let scaled = left.checked_mul(n).ok_or_else(overflow)?;
                Some(t + ms_for(scaled, rate)?)
            }
            None => None,
        };
        // Completions before arrivals at the same instant, as in the engine.
        let Some(now) = next_instant(completion, jobs.get(next).map(|j| j.submit)) else {
            break;
        };
        // Nothing was present before the first event (t is still the sentinel).
        let dt = if n > 0 { (now - t).0.max(0) as u128 } else { 0 };
        if let Some(gained) = rate.checked_mul(dt).ok_or_else(overflow)?.checked_div(n) {
            v = v.checked_add(gained).ok_or_else(overflow)?;
        }
        t = now;
        events += 1;
        if completion == Some(now) {
            // The job the completion instant was computed for leaves, and any other whose
            // target the (rounded-up) instant also reached.
            let mut first = true;
            while let Some(&Reverse((target, i))) = present.peek() {
                if !first && target > v {
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
        if !admit(&jobs[i], platform, cfg, &mut outcomes[i]) {
            continue;
        }
        outcomes[i].start = now;
        let work = work_units(&jobs[i], platform, cfg)
            .checked_shl(FRACTION_BITS)
            .ok_or_else(overflow)?;
        let target = v.checked_add(work).ok_or_else(overflow)?;
        present.push(Reverse((target, i)));
    }
    Ok(events)
}

/// SRPT or FCFS: the whole machine serves one job at a time — the one with the least work
/// left (SRPT, preemptive; ties by submit order) or the earliest submitted (FCFS). A job's
/// start is the first instant it is served.
fn one_at_a_time(
    platform: &Platform,
    jobs: &[Job],
    cfg: &RunConfig,
    discipline: IdealDiscipline,
    outcomes: &mut [Outcome],
) -> Result<u64, SimError> {
    let capacity = capacity_units(platform);
    // Waiting jobs by (key, index): the key is the work left (SRPT) or 0 (FCFS: index order).
    let mut waiting: BinaryHeap<Reverse<(u128, usize)>> = BinaryHeap::new();
    // The job being served: (work left, index), as of `t`.
    let mut serving: Option<(u128, usize)> = None;
    // Work left of every admitted job not being served (by job index).
    let mut left_of: Vec<u128> = vec![0; jobs.len()];
    let mut t = SimTime(i64::MIN);
    let (mut next, mut events) = (0usize, 0u64);
    let key = |left: u128| match discipline {
        IdealDiscipline::Srpt => left,
        _ => 0,
    };
    loop {
        let completion = match serving {
            Some((left, _)) => Some(t + ms_for(left, capacity)?),
            None => None,
        };
        let Some(now) = next_instant(completion, jobs.get(next).map(|j| j.submit)) else {
            break;
        };
        if let Some((left, i)) = serving {
            let dt = (now - t).0.max(0) as u128;
            let done = capacity.checked_mul(dt).ok_or_else(overflow)?;
            serving = Some((left.saturating_sub(done), i));
        }
        t = now;
        events += 1;
        if completion == Some(now) {
            if let Some((_, i)) = serving.take() {
                outcomes[i].end = now;
            }
        } else {
            let i = next;
            next += 1;
            if admit(&jobs[i], platform, cfg, &mut outcomes[i]) {
                let w = work_units(&jobs[i], platform, cfg);
                waiting.push(Reverse((key(w), i)));
                left_of[i] = w;
            }
            // SRPT: a newcomer with less work left preempts the job being served.
            if let (IdealDiscipline::Srpt, Some((left, s))) = (discipline, serving) {
                if let Some(&Reverse((k, _))) = waiting.peek() {
                    if k < left {
                        waiting.push(Reverse((left, s)));
                        left_of[s] = left;
                        serving = None;
                    }
                }
            }
        }
        // Every arrival of this instant is in before the machine picks whom to serve.
        if jobs.get(next).is_some_and(|j| j.submit == now) {
            continue;
        }
        if serving.is_none() {
            if let Some(Reverse((_, i))) = waiting.pop() {
                let left = left_of[i];
                if outcomes[i].start == SimTime::NEVER {
                    outcomes[i].start = now;
                }
                serving = Some((left, i));
            }
        }
    }
    Ok(events)
}
/// The idealized run's own invariants, in exact integer work: every job accounted for
/// (finished, or rejected with a reason); under processor sharing no job waits (start =
/// submit), under the others none starts before its submit; none ends before it starts; no
/// job beats its work on the whole machine ((end − start) × capacity ≥ work); and capacity:
/// the work of the jobs finished by any instant never exceeds capacity × the time elapsed.
pub fn check_ideal(
    platform: &Platform,
    jobs: &[Job],
    outcomes: &[Outcome],
    cfg: &RunConfig,
    discipline: IdealDiscipline,
) -> Result<(), String> {
    let capacity = capacity_units(platform);
    let mut ended: Vec<(SimTime, u128)> = vec![];
    for (job, o) in jobs.iter().zip(outcomes) {
        match o.status {
            JobOutcome::Pending => return Err(format!("job {} never ran", job.id)),
            JobOutcome::Rejected(_) => continue,
            _ => {}
        }
        let waits = o.start != job.submit;
        let may_wait = discipline != IdealDiscipline::ProcessorSharing;
        if (waits && !may_wait)
            || o.start < job.submit
            || o.end <= o.start
            || o.end == SimTime::NEVER
        {
            return Err(format!(
                "ideal job {} runs [{}, {}) but was submitted at {}",
                job.id, o.start, o.end, job.submit
            ));
        }
        let work = work_units(job, platform, cfg);
        if ((o.end - o.start).0 as u128).saturating_mul(capacity) < work {
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
    let mut done = 0u128;
    for (end, work) in ended {
        done = done.saturating_add(work);
        let room = capacity.saturating_mul((end - first).0.max(0) as u128);
        if done > room {
            return Err(format!(
                "the ideal machine did {done} units of work by {end}, more than its capacity allows ({room})"
            ));
        }
    }
    Ok(())
}
