//! Checks every run ends with. A failure is a bug in the engine or a policy, never a user
//! error: the message says which job and which instant.

use super::outcome::{planned_and_effective, saved_at_speed, scale, InvariantViolation};
use super::FailureLog;
use super::{JobOutcome, Outcome, RejectReason, RunConfig, SimTime};
use crate::model::{Job, Platform};

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
    check_invariants_with_failures(platform, jobs, outcomes, cfg, None)
}

/// [`check_invariants`] for a run with failures: with checkpointing, a job's last run
/// lasts the restart, the work its killed runs did not save and the checkpoints on the way
/// ([`crate::failure::CheckpointPlan::run_length`] of what `failures` says they saved).
pub fn check_invariants_with_failures(
    platform: &Platform,
    jobs: &[Job],
    outcomes: &[Outcome],
    cfg: &RunConfig,
    failures: Option<&FailureLog>,
) -> Result<(), InvariantViolation> {
    let checkpoint = failures.and_then(|f| {
        let c = f.checkpoint.as_ref()?;
        let speeds: Vec<f64> = platform.sites.iter().map(|s| s.speed).collect();
        let last_site = |j: usize| outcomes.get(j).map_or(0, |o| o.site);
        Some((f, c, saved_per_job(f, jobs.len(), &speeds, last_site)))
    });
    let fail = |m: String| Err(InvariantViolation(m));
    if jobs.len() != outcomes.len() {
        return fail(format!(
            "{} jobs but {} outcomes",
            jobs.len(),
            outcomes.len()
        ));
    }
    // Two changes per job that ran, sized up front (no regrowth of a million-job list).
    let mut ran = vec![0usize; platform.sites.len()];
    for out in outcomes {
        if let Some(n) = ran.get_mut(out.site as usize) {
            *n += out.ran() as usize;
        }
    }
    let mut usage: Vec<Vec<(SimTime, i64)>> =
        ran.iter().map(|&n| Vec::with_capacity(2 * n)).collect();
    let mut first = SimTime(i64::MAX);
    let mut last = SimTime(i64::MIN);
    for (i, (job, out)) in jobs.iter().zip(outcomes).enumerate() {
        match out.status {
            JobOutcome::Pending => {
                return fail(format!("job {} was never run nor rejected", job.id))
            }
            JobOutcome::Rejected(RejectReason::NoSuchSite) => {
                if (job.home as usize) < platform.sites.len() {
                    return fail(format!("job {} rejected for a site that exists", job.id));
                }
            }
            // Checked against the nodes by the engine's node check (`sim/nodes.rs`); a
            // partition's nodes by the policy that knows them.
            JobOutcome::Rejected(
                RejectReason::Unplaceable { .. } | RejectReason::PartitionNodes { .. },
            ) => {}
            JobOutcome::Rejected(RejectReason::QosLimit { needs, most, .. }) => {
                if needs <= most {
                    return fail(format!("job {} rejected for a QOS limit it keeps", job.id));
                }
            }
            JobOutcome::Rejected(RejectReason::PartitionTimeLimit { max_time_s: m, .. }) => {
                if job.estimate <= SimTime::from_secs(m as i64) {
                    return fail(format!("job {} rejected for a MaxTime it keeps", job.id));
                }
            }
            JobOutcome::Rejected(RejectReason::TooWide { needs, capacity }) => {
                if needs <= capacity {
                    return fail(format!("job {} rejected although it fits", job.id));
                }
            }
            JobOutcome::Finished | JobOutcome::Killed | JobOutcome::Lost => {
                let Some(site) = platform.sites.get(out.site as usize) else {
                    return fail(format!("job {} ran on unknown site {}", job.id, out.site));
                };
                if out.start < job.submit {
                    return fail(format!(
                        "job {} started at {} before its submit at {}",
                        job.id, out.start, job.submit
                    ));
                }
                check_run_length(job, out, site, i, cfg, platform, &checkpoint)?;
                let units = site.units_for(job.procs) as i64;
                usage[out.site as usize].push((out.start, units));
                usage[out.site as usize].push((out.end, -units));
                first = first.min(out.start);
                last = last.max(out.end);
            }
        }
    }
    for (s, mut deltas) in usage.into_iter().enumerate() {
        // Releases (negative) sort before acquisitions at the same instant.
        sort_changes(&mut deltas, first, last);
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

/// Job `i`'s run (it ran, on `site`) lasted what it had to: its runtime scaled to the site,
/// or with checkpointing its restart, the work its killed runs did not save and the
/// checkpoints on the way (cut at its limit when they count against it and push it past);
/// a lost run no longer than that. Its kill status follows.
fn check_run_length(
    job: &Job,
    out: &Outcome,
    site: &crate::model::Site,
    i: usize,
    cfg: &RunConfig,
    platform: &Platform,
    checkpoint: &Option<(&FailureLog, &crate::failure::JobCheckpoints, Vec<SimTime>)>,
) -> Result<(), InvariantViolation> {
    let fail = |m: String| Err(InvariantViolation(m));
    let home_speed = platform.sites[job.home as usize].speed;
    let (planned, effective) = planned_and_effective(job, cfg);
    let full = scale(effective, home_speed, site.speed);
    let lost = out.status == JobOutcome::Lost;
    let limit = scale(planned, home_speed, site.speed);
    // With the checkpoints counted against the limit, a run they push past it
    // is killed there.
    let mut cut = false;
    let expected = match &checkpoint {
        Some((_, c, _)) if lost => {
            // A lost run may have resumed from a checkpoint: at most its
            // restart more.
            let plan = c.of(i);
            plan.run_length(full, SimTime::ZERO) + plan.restart
        }
        Some((_, c, saved)) => {
            let run = c.of(i).run_length(full, saved[i]);
            cut = c.within_limit && cfg.kill_at_estimate && run > limit;
            if cut {
                limit
            } else {
                run
            }
        }
        None => full,
    };
    // A lost job ends at the failure that killed it, before its own end.
    if lost && (out.end < out.start || out.end - out.start > expected) {
        return fail(format!(
            "job {} was lost after {} s, longer than its run of {} s",
            job.id,
            out.end - out.start,
            expected
        ));
    }
    if !lost && out.end - out.start != expected {
        return fail(format!(
            "job {} ran {} s, expected {} s",
            job.id,
            out.end - out.start,
            expected
        ));
    }
    let logged = checkpoint
        .as_ref()
        .and_then(|(f, ..)| f.cut_at_limit.get(i));
    if !lost && logged.is_some_and(|w| (w.0 > 0) != cut) {
        return fail(format!(
            "job {} is logged as cut at its limit wrongly ({cut} by its run)",
            job.id
        ));
    }
    let killed = cut || (cfg.kill_at_estimate && job.runtime > planned);
    if !lost && killed != (out.status == JobOutcome::Killed) {
        return fail(format!("job {} kill status is wrong", job.id));
    }
    Ok(())
}

/// Sorts a site's usage changes by (time, change), as `sort_unstable` would (so releases come
/// before acquisitions at one instant), with every time in `[first, last]`. The capacity
/// sweep sorts two changes per job, and a comparison sort of the pairs was 5–10 % of a whole
/// EASY run (KTH-SP2, a million Lublin jobs). So each pair is packed into one `u64` that
/// sorts in the same order — time from `first`, then acquisition, then units in as many bits
/// as the widest change needs (a release's units inverted: −5 before −3) — and the keys are
/// radix-sorted, 11 bits a pass over the bits in use. Short lists, and spans too long to pack
/// beside the units (2^55 ms for 128 units), take the comparison sort.
fn sort_changes(changes: &mut [(SimTime, i64)], first: SimTime, last: SimTime) {
    let span = (last.0 as i128 - first.0 as i128).max(0) as u128;
    let widest = changes
        .iter()
        .map(|c| c.1.unsigned_abs())
        .max()
        .unwrap_or(0);
    let unit_bits = 64 - widest.leading_zeros();
    if changes.len() < 256 || span >= 1u128 << (63 - unit_bits) {
        changes.sort_unstable();
        return;
    }
    let unit_mask: u64 = (1 << unit_bits) - 1;
    let mut keys: Vec<u64> = changes
        .iter()
        .map(|&(t, d)| {
            let units = d.unsigned_abs();
            let low = if d > 0 { units } else { unit_mask - units };
            (((t.0 - first.0) as u64) << (unit_bits + 1)) | (((d > 0) as u64) << unit_bits) | low
        })
        .collect();
    crate::radix::sort_by_key(&mut keys, |&k| k);
    for (c, k) in changes.iter_mut().zip(keys) {
        let low = k & unit_mask;
        let d = if k >> unit_bits & 1 == 1 {
            low as i64
        } else {
            -((unit_mask - low) as i64)
        };
        *c = (SimTime((k >> (unit_bits + 1)) as i64 + first.0), d);
    }
}

/// Per job of a run of `jobs` jobs, the work its killed runs in `log` checkpointed: where
/// its last run resumed from, at the speed of the site it ran last (`last_site(job)`), on
/// sites of `speeds`. Each killed run's own `saved` is at the speed of its site; a job
/// offered to the grid again may run next elsewhere, and what it saved before is rescaled
/// as the engine does it ([`saved_at_speed`], once from the site of its last kill).
fn saved_per_job(
    log: &FailureLog,
    jobs: usize,
    speeds: &[f64],
    last_site: impl Fn(usize) -> u32,
) -> Vec<SimTime> {
    let mut saved = vec![(SimTime::ZERO, u32::MAX); jobs];
    let speed = |s: u32| speeds.get(s as usize).copied().unwrap_or(1.0);
    for k in &log.killed {
        if let Some((sum, at)) = saved.get_mut(k.job as usize) {
            let before = match *at == u32::MAX {
                true => SimTime::ZERO,
                false => saved_at_speed(*sum, speed(*at), speed(k.site)),
            };
            *sum = before + k.saved;
            *at = k.site;
        }
    }
    saved
        .into_iter()
        .enumerate()
        .map(|(j, (sum, at))| match at == u32::MAX {
            true => sum,
            false => saved_at_speed(sum, speed(at), speed(last_site(j))),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::simulate;
    use crate::model::{Job, Site};
    use crate::policy::local::LocalPolicyKind;

    fn job(id: i64, submit: i64, run: i64, procs: u32) -> Job {
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

    /// The packed sort gives the comparison sort's order on random changes, across the
    /// fallbacks (short lists, spans too long for the key) and at the extremes of units.
    #[test]
    fn sorted_changes_equal_the_comparison_sort() {
        let mut rng = crate::rng::SimRng::new(7);
        for case in 0..60u64 {
            let n = [10, 300, 5_000][case as usize % 3];
            let span = [1_000i64, 1 << 30, 1 << 40, 1 << 54][(case / 3) as usize % 4];
            let base = [0i64, -5_000, 1 << 20][(case / 12) as usize % 3];
            let mut changes: Vec<(SimTime, i64)> = (0..n)
                .map(|_| {
                    let t = base + rng.range_u64(0, span as u64 - 1) as i64;
                    let u = match rng.range_u64(0, 3) {
                        0 if case % 2 == 0 => u32::MAX as i64,
                        0 => 1_000,
                        1 => 1,
                        _ => rng.range_u64(1, 1_000) as i64,
                    };
                    (SimTime(t), if rng.range_u64(0, 1) == 0 { u } else { -u })
                })
                .collect();
            let first = changes.iter().map(|c| c.0).min().unwrap();
            let last = changes.iter().map(|c| c.0).max().unwrap();
            let mut expected = changes.clone();
            expected.sort_unstable();
            sort_changes(&mut changes, first, last);
            assert_eq!(changes, expected, "case {case}");
        }
    }

    /// An overlap is caught on the packed path too (hundreds of changes).
    #[test]
    fn an_overlap_among_hundreds_of_jobs_is_caught() {
        let platform = Platform::single(Site::flat("s", 4));
        let jobs: Vec<Job> = (0..300).map(|i| job(i + 1, 0, 10, 4)).collect();
        let cfg = RunConfig::default();
        let out = simulate(
            &platform,
            &jobs,
            LocalPolicyKind::Fcfs,
            &cfg,
            &mut |_, _| true,
        )
        .unwrap();
        check_invariants(&platform, &jobs, &out.outcomes, &cfg).unwrap();
        let mut o = out.outcomes.clone();
        o[200].start = SimTime::from_secs(1995);
        o[200].end = SimTime::from_secs(2005);
        let m = check_invariants(&platform, &jobs, &o, &cfg).unwrap_err().0;
        assert!(m.contains("uses 8 of 4 units at t=1995"), "{m}");
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
