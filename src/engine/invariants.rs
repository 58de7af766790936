//! Checks every run ends with. A failure is a bug in the engine or a policy, never a user
//! error: the message says which job and which instant.

use super::outcome::{planned_and_effective, scale};
use super::{JobOutcome, Outcome, RejectReason, RunConfig, SimTime};
use crate::model::{Job, Platform};

#[derive(Debug, Clone, PartialEq, Eq)]
/// A broken invariant: a bug in the engine or a policy; the message names the job and instant.
pub struct InvariantViolation(pub String);

impl std::fmt::Display for InvariantViolation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invariant violated (a bug, please report): {}", self.0)
    }
}

impl std::error::Error for InvariantViolation {}

/// Verifies, from the outcomes alone:
/// - every job is accounted for exactly once: finished, killed or rejected with a reason;
/// - start ≥ submit, and end = start + the runtime scaled to the site (or the kill time);
/// - a rejected job really could not fit its site;
/// - no site ever has more units in use than it has, at any instant (a sweep over starts and
///   ends, releases before acquisitions at the same instant).
pub fn check_invariants(
    platform: &Platform,
    jobs: &[Job],
    outcomes: &[Outcome],
    cfg: &RunConfig,
) -> Result<(), InvariantViolation> {
    let fail = |m: String| Err(InvariantViolation(m));
    if jobs.len() != outcomes.len() {
        return fail(format!(
            "{} jobs but {} outcomes",
            jobs.len(),
            outcomes.len()
        ));
    }
    let mut usage: Vec<Vec<(SimTime, i64)>> = vec![Vec::new(); platform.sites.len()];
    for (job, out) in jobs.iter().zip(outcomes) {
        match out.status {
            JobOutcome::Pending => {
                return fail(format!("job {} was never run nor rejected", job.id))
            }
            JobOutcome::Rejected(RejectReason::NoSuchSite) => {
                if (job.home as usize) < platform.sites.len() {
                    return fail(format!("job {} rejected for a site that exists", job.id));
                }
            }
            JobOutcome::Rejected(RejectReason::TooWide { needs, capacity }) => {
                if needs <= capacity {
                    return fail(format!("job {} rejected although it fits", job.id));
                }
            }
            JobOutcome::Finished | JobOutcome::Killed => {
                let Some(site) = platform.sites.get(out.site as usize) else {
                    return fail(format!("job {} ran on unknown site {}", job.id, out.site));
                };
                if out.start < job.submit {
                    return fail(format!(
                        "job {} started at {} before its submit at {}",
                        job.id, out.start, job.submit
                    ));
                }
                let home_speed = platform.sites[job.home as usize].speed;
                let (planned, effective) = planned_and_effective(job, cfg);
                let expected = scale(effective, home_speed, site.speed);
                if out.end - out.start != expected {
                    return fail(format!(
                        "job {} ran {} s, expected {} s",
                        job.id,
                        out.end - out.start,
                        expected
                    ));
                }
                let killed = cfg.kill_at_estimate && job.runtime > planned;
                if killed != (out.status == JobOutcome::Killed) {
                    return fail(format!("job {} kill status is wrong", job.id));
                }
                let units = site.units_for(job.procs) as i64;
                usage[out.site as usize].push((out.start, units));
                usage[out.site as usize].push((out.end, -units));
            }
        }
    }
    for (s, mut deltas) in usage.into_iter().enumerate() {
        // Releases (negative) sort before acquisitions at the same instant.
        deltas.sort_unstable();
        let capacity = platform.sites[s].capacity_units() as i64;
        let mut in_use = 0i64;
        for (t, d) in deltas {
            in_use += d;
            if in_use > capacity {
                return fail(format!(
                    "site {} uses {in_use} of {capacity} units at t={t}",
                    platform.sites[s].name
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::simulate;
    use crate::model::{Job, Site};
    use crate::policy::local::LocalPolicyKind;

    fn job(id: u64, submit: i64, run: i64, procs: u32) -> Job {
        Job {
            id,
            submit: SimTime::from_secs(submit),
            runtime: SimTime::from_secs(run),
            estimate: SimTime::from_secs(run),
            procs,
            home: 0,
            user: -1,
            partition: -1,
        }
    }

    /// The checks must catch each kind of corruption, or they prove nothing.
    #[test]
    fn each_corruption_is_caught() {
        let platform = Platform::single(Site::flat("s", 4));
        let jobs = vec![job(1, 0, 10, 4), job(2, 1, 10, 2), job(3, 2, 5, 2)];
        let cfg = RunConfig::default();
        let out = simulate(
            &platform,
            &jobs,
            LocalPolicyKind::Easy,
            &cfg,
            &mut |_, _| true,
        )
        .unwrap();
        check_invariants(&platform, &jobs, &out.outcomes, &cfg).unwrap();

        let broken = |f: &dyn Fn(&mut Vec<Outcome>)| {
            let mut o = out.outcomes.clone();
            f(&mut o);
            check_invariants(&platform, &jobs, &o, &cfg).unwrap_err().0
        };
        // Overlap: job 2 moved into job 1's run.
        let m = broken(&|o| {
            o[1].start = SimTime::from_secs(5);
            o[1].end = SimTime::from_secs(15);
        });
        assert!(m.contains("uses 6 of 4 units"), "{m}");
        let m = broken(&|o| {
            o[2].start = SimTime::from_secs(1);
            o[2].end = SimTime::from_secs(6);
        });
        assert!(m.contains("before its submit"), "{m}");
        let m = broken(&|o| o[0].end = SimTime::from_secs(11));
        assert!(m.contains("expected 10 s"), "{m}");
        let m = broken(&|o| o[0].status = JobOutcome::Pending);
        assert!(m.contains("never run"), "{m}");
        let m = broken(&|o| {
            o[1].status = JobOutcome::Rejected(RejectReason::TooWide {
                needs: 2,
                capacity: 4,
            })
        });
        assert!(m.contains("although it fits"), "{m}");
        let m = broken(&|o| o[0].status = JobOutcome::Killed);
        assert!(m.contains("kill status"), "{m}");
    }
}
