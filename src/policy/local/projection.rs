//! A site's queue projected by estimates: what SOB's approximate wait reads, and how a kept
//! projection follows the site's changes without being made again.

use super::{QueuedJob, SiteView};
use crate::model::JobIdx;
use crate::policy::Profile;
use crate::time::SimTime;

/// A site's queue projected by estimates ([`LocalPolicy::projection`]).
#[derive(Clone, Debug)]
pub struct Projection {
    pub profile: Profile,
    /// The latest projected start (`now` for an empty queue): where a job that cannot pass
    /// the queue (FCFS, SJF) may start at the earliest.
    pub barrier: SimTime,
    /// The earliest projected start (`NEVER` for an empty queue). Until then, and while the
    /// site does not change, a projection made later would be this one: no placed job is
    /// pushed by the clock, and the running jobs' releases read the same from then on.
    pub first_start: SimTime,
    /// Where each queued job was placed, in queue order (empty for a projection that does not
    /// come from [`project_queue`], which then cannot follow starts: see [`Projection::started`]).
    pub placed: Vec<(JobIdx, SimTime)>,
}

impl Projection {
    /// Places `job`, just queued last at `now`, as [`project_queue`] places the last job of
    /// the queue. While the site has not changed and `now` ≤ `first_start`, a projection
    /// made at `now` would be this one (see `first_start`), so the result is the projection
    /// a fresh one with the job would be.
    pub fn append(&mut self, now: SimTime, backfills: bool, job: &QueuedJob) {
        // A fresh projection starts its barrier at `now`; a kept one made earlier of an
        // empty queue still has its own instant there.
        let not_before = if backfills {
            now
        } else {
            self.barrier.max(now)
        };
        if let Some(start) = self
            .profile
            .earliest_start(not_before, job.units, job.estimate)
        {
            self.profile.reserve(start, job.estimate, job.units);
            self.barrier = self.barrier.max(start);
            self.first_start = self.first_start.min(start);
            self.placed.push((job.idx, start));
        }
    }

    /// The jobs `started` left the queue at `now`, each for its estimate: true when every one
    /// of them was placed at `now`, and then this is still the projection a fresh one would
    /// be, with them running instead of queued (each job placed before one of them still
    /// fits where it was with that one beside it, and none fits earlier with less room; the
    /// jobs after see the same profile), its first start taken again over the jobs still
    /// queued. False otherwise (the caller drops it).
    pub fn started(&mut self, now: SimTime, started: &[JobIdx]) -> bool {
        let found = self
            .placed
            .iter()
            .filter(|&&(idx, start)| start == now && started.contains(&idx))
            .count();
        if found != started.len() {
            return false;
        }
        self.placed.retain(|(idx, _)| !started.contains(idx));
        self.first_start = self
            .placed
            .iter()
            .map(|&(_, s)| s)
            .min()
            .unwrap_or(SimTime::NEVER);
        true
    }

    /// The approximate wait of a job of `units` × `estimate` arriving at `site.now`.
    pub fn wait(
        &self,
        site: &SiteView,
        backfills: bool,
        units: u32,
        estimate: SimTime,
    ) -> Option<SimTime> {
        if units > site.capacity {
            return None;
        }
        let not_before = if backfills {
            site.now
        } else {
            self.barrier.max(site.now)
        };
        self.profile
            .earliest_start(not_before, units, estimate)
            .map(|s| s - site.now)
    }
}

/// Places `queue`, in order, into the site's planning profile at each job's earliest start
/// (never before the previous one unless `backfills`).
pub fn project_queue(
    site: &SiteView,
    queue: impl IntoIterator<Item = QueuedJob>,
    backfills: bool,
) -> Projection {
    let mut profile = site.planning_profile();
    let mut barrier = site.now;
    let mut first_start = SimTime::NEVER;
    let mut placed = Vec::new();
    for job in queue {
        let not_before = if backfills { site.now } else { barrier };
        if let Some(start) = profile.earliest_start(not_before, job.units, job.estimate) {
            profile.reserve(start, job.estimate, job.units);
            barrier = barrier.max(start);
            first_start = first_start.min(start);
            placed.push((job.idx, start));
        }
    }
    Projection {
        profile,
        barrier,
        first_start,
        placed,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::policy::local::tests::q;

    /// Up to `jobs` running jobs of 1–`widest` units on a site of `capacity`, ending at
    /// random instants in `ends` (seconds); returns them and the units they hold.
    fn random_running(
        rng: &mut crate::rng::SimRng,
        capacity: u32,
        jobs: u64,
        widest: u64,
        ends: (u64, u64),
    ) -> (BTreeMap<(SimTime, JobIdx), u32>, u32) {
        let mut running = BTreeMap::new();
        let mut busy = 0;
        for i in 0..rng.range_u64(0, jobs) {
            let units = rng.range_u64(1, widest) as u32;
            if busy + units <= capacity {
                busy += units;
                let end = SimTime::from_secs(rng.range_u64(ends.0, ends.1) as i64);
                running.insert((end, 1000 + i as JobIdx), units);
            }
        }
        (running, busy)
    }

    /// A site of `capacity` units at `now` with `running` holding all but `free` of them.
    fn site(
        now: SimTime,
        capacity: u32,
        free: u32,
        running: &BTreeMap<(SimTime, JobIdx), u32>,
    ) -> SiteView<'_> {
        SiteView {
            now,
            capacity,
            free,
            running,
            plan_invalidated: false,
            reservations: &[],
            nodes: None,
        }
    }

    /// Two projections that must be the same: barrier, first start, and the approximate
    /// wait of every width for a range of estimates.
    fn assert_same_answers(
        kept: &Projection,
        fresh: &Projection,
        view: &SiteView,
        backfills: bool,
        case: u64,
    ) {
        assert_eq!(kept.barrier, fresh.barrier, "case {case}");
        assert_eq!(kept.first_start, fresh.first_start, "case {case}");
        for units in 1..=view.capacity {
            for secs in [1, 30, 120, 1000] {
                let d = SimTime::from_secs(secs);
                assert_eq!(
                    kept.wait(view, backfills, units, d),
                    fresh.wait(view, backfills, units, d),
                    "case {case}: {units} units × {secs} s"
                );
            }
        }
    }

    /// A newcomer appended to a kept projection gets what a fresh projection at its instant
    /// gives it, for backfilling and strict policies, from an empty queue or a long one, as
    /// long as the instant is not past the first projected start and no running job has
    /// ended (the engine drops the projection otherwise): same barrier, same first start,
    /// same answer to every approximate-wait query.
    #[test]
    fn an_appended_projection_answers_as_a_fresh_one() {
        let mut rng = crate::rng::SimRng::new(11);
        let capacity = 16;
        for case in 0..600 {
            let backfills = case % 2 == 0;
            let (running, busy) = random_running(&mut rng, capacity, 4, 6, (60, 400));
            let view = |now| site(now, capacity, capacity - busy, &running);
            let mut now = SimTime::from_secs(rng.range_u64(0, 20) as i64);
            let mut queue: Vec<QueuedJob> = (0..rng.range_u64(0, 8))
                .map(|i| {
                    let units = rng.range_u64(1, 16) as u32;
                    q(i as JobIdx, units, rng.range_u64(1, 300) as i64)
                })
                .collect();
            let mut kept = project_queue(&view(now), queue.iter().copied(), backfills);
            for k in 0..5 {
                now += SimTime::from_secs(rng.range_u64(0, 15) as i64);
                if now > kept.first_start || now >= SimTime::from_secs(60) {
                    break;
                }
                let job = q(
                    100 + k,
                    rng.range_u64(1, 16) as u32,
                    rng.range_u64(1, 300) as i64,
                );
                kept.append(now, backfills, &job);
                queue.push(job);
                let fresh = project_queue(&view(now), queue.iter().copied(), backfills);
                assert_same_answers(&kept, &fresh, &view(now), backfills, case);
            }
        }
    }

    /// Jobs placed at `now` that start (become running for their estimates) leave a
    /// projection that answers as a fresh one of the rest of the queue; a start of a job
    /// placed later is refused (the engine then drops the projection).
    #[test]
    fn a_projection_follows_starts_of_jobs_placed_now() {
        let mut rng = crate::rng::SimRng::new(12);
        let capacity = 16;
        let (mut followed, mut refused) = (0, 0);
        for case in 0..600 {
            let backfills = case % 2 == 0;
            let now = SimTime::from_secs(10);
            let (running, busy) = random_running(&mut rng, capacity, 3, 8, (20, 300));
            let queue: Vec<QueuedJob> = (0..rng.range_u64(1, 8))
                .map(|i| {
                    q(
                        i as JobIdx,
                        rng.range_u64(1, 10) as u32,
                        rng.range_u64(1, 200) as i64,
                    )
                })
                .collect();
            let view = site(now, capacity, capacity - busy, &running);
            let mut kept = project_queue(&view, queue.iter().copied(), backfills);
            // Start some jobs: mostly ones placed now, sometimes one placed later.
            let mut started: Vec<JobIdx> = kept
                .placed
                .iter()
                .filter(|&&(_, s)| s == now && rng.range_u64(0, 2) > 0)
                .map(|&(idx, _)| idx)
                .collect();
            let later = kept.placed.iter().find(|&&(_, s)| s > now).map(|p| p.0);
            if let Some(idx) = later.filter(|_| rng.range_u64(0, 4) == 0) {
                started.push(idx);
                assert!(!kept.started(now, &started), "case {case}");
                refused += 1;
                continue;
            }
            assert!(kept.started(now, &started), "case {case}");
            followed += !started.is_empty() as usize;
            let mut running_after = running.clone();
            let mut free = capacity - busy;
            for &idx in &started {
                let j = queue[idx as usize];
                running_after.insert((now + j.estimate, idx), j.units);
                free -= j.units;
            }
            let view_after = site(now, capacity, free, &running_after);
            let rest = queue.iter().copied().filter(|j| !started.contains(&j.idx));
            let fresh = project_queue(&view_after, rest, backfills);
            assert_same_answers(&kept, &fresh, &view_after, backfills, case);
        }
        assert!(
            followed > 100 && refused > 20,
            "{followed} followed, {refused} refused"
        );
    }
}
