//! SOB's idealized scheme (§2.3): the grid as one virtual machine of Σ CPUs × MHz one-MHz
//! CPUs, every job perfectly malleable. A job of p CPUs × s MHz × t seconds is p·s·t units of
//! work; the machine serves jobs first-come first-served, each taking the whole machine, so
//! it runs work / capacity seconds. An upper bound no real grid reaches.

use super::sim::planned_and_effective;
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
    job.procs as f64 * platform.sites[job.home as usize].speed * effective.0 as f64
}

pub fn simulate_ideal(
    platform: &Platform,
    jobs: &[Job],
    cfg: &RunConfig,
) -> Result<RunOutput, SimError> {
    platform.validate().map_err(SimError::BadInput)?;
    let capacity = ideal_capacity(platform);
    let mut free_at = SimTime(i64::MIN);
    let mut outcomes = Vec::with_capacity(jobs.len());
    for job in jobs {
        let Some(home) = platform.sites.get(job.home as usize) else {
            outcomes.push(Outcome {
                site: u32::MAX,
                start: SimTime::NEVER,
                end: SimTime::NEVER,
                status: JobOutcome::Rejected(RejectReason::NoSuchSite),
            });
            continue;
        };
        // Rejections match the real schemes: a job no site can hold is rejected.
        if !platform
            .sites
            .iter()
            .any(|s| s.units_for(job.procs) <= s.capacity_units())
        {
            outcomes.push(Outcome {
                site: u32::MAX,
                start: SimTime::NEVER,
                end: SimTime::NEVER,
                status: JobOutcome::Rejected(RejectReason::TooWide {
                    needs: home.units_for(job.procs),
                    capacity: home.capacity_units(),
                }),
            });
            continue;
        }
        let (planned, _) = planned_and_effective(job, cfg);
        let start = free_at.max(job.submit);
        let run =
            SimTime((ideal_work(job, platform, cfg) / capacity).ceil() as i64).max(SimTime(1));
        free_at = start + run;
        outcomes.push(Outcome {
            site: job.home,
            start,
            end: free_at,
            status: if cfg.kill_at_estimate && job.runtime > planned {
                JobOutcome::Killed
            } else {
                JobOutcome::Finished
            },
        });
    }
    Ok(RunOutput {
        outcomes,
        events: jobs.len() as u64,
        max_queue: 0,
        ideal_capacity: Some(capacity),
    })
}

/// The idealized run's own invariants: every job accounted for, start ≥ submit, jobs one
/// after another in submit order (the single server never runs two at once), each for
/// ceil(work / capacity).
pub fn check_ideal(
    platform: &Platform,
    jobs: &[Job],
    outcomes: &[Outcome],
    cfg: &RunConfig,
) -> Result<(), String> {
    let capacity = ideal_capacity(platform);
    let mut last_end = SimTime(i64::MIN);
    for (job, o) in jobs.iter().zip(outcomes) {
        match o.status {
            JobOutcome::Pending => return Err(format!("job {} never ran", job.id)),
            JobOutcome::Rejected(_) => continue,
            _ => {}
        }
        if o.start < job.submit || o.start < last_end {
            return Err(format!("ideal job {} starts too early", job.id));
        }
        let run =
            SimTime((ideal_work(job, platform, cfg) / capacity).ceil() as i64).max(SimTime(1));
        if o.end - o.start != run {
            return Err(format!("ideal job {} ran the wrong time", job.id));
        }
        last_end = o.end;
    }
    Ok(())
}
