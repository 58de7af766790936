use std::collections::BTreeMap;

use super::{LocalPolicy, QueuedJob, SiteView};
use crate::model::JobIdx;
use crate::policy::Profile;
use crate::time::SimTime;

/// Conservative backfilling (Mu'alem & Feitelson 2001; KKOR's local scheduler): every queued
/// job holds a reservation at the earliest time it fits in the availability profile, placed
/// in arrival order. A job jumps ahead only into a hole that delays no reservation.
///
/// The plan is kept between events. When the running set evolves as planned (jobs end at
/// their estimates) the kept plan equals a rebuild, so arrivals are just placed into it.
/// When a job ends early or outlives its estimate the plan is rebuilt from the running jobs
/// with every queued job re-placed in arrival order. (This rebuild is the policy's
/// definition; Mu'alem & Feitelson's "compression" instead moves each reservation earlier
/// in place. A rebuild can move a job later when an earlier job takes its hole.) The
/// differential test checks the kept plan against a from-scratch rebuild at every event.
///
/// Cost: a rebuild places every queued job into a profile as long as the queue, O(Q²);
/// fine up to queues of a few hundred (SDSC-BLUE: 1.4 s), slow for thousands (RICC).
#[derive(Default)]
pub struct Conservative {
    /// Arrival sequence → (job, reserved start); `None` until placed.
    queue: BTreeMap<u64, (QueuedJob, Option<SimTime>)>,
    /// (reserved start, arrival sequence) of every placed job, soonest first.
    /// Kept sorted latest first, so the jobs due now are popped from the back.
    by_start: Vec<(SimTime, u64, JobIdx)>,
    profile: Option<Profile>,
    /// Units → the first instant the plan has that many free (see
    /// [`Profile::earliest_start_with_floor`]); valid until the next rebuild.
    floors: Floors,
    arrivals: u64,
}

impl Conservative {
    fn rebuild(&mut self, site: &SiteView) {
        // Advance reservations are fixed blocks, placed before any queued job.
        let mut profile = site.planning_profile();
        self.by_start.clear();
        self.floors.clear();
        for (&seq, (job, start)) in self.queue.iter_mut() {
            let s = place(&mut profile, &mut self.floors, site.now, job);
            *start = Some(s);
            self.by_start.push((s, seq, job.idx));
        }
        self.by_start.sort_unstable_by(|a, b| b.cmp(a));
        self.profile = Some(profile);
    }
}

impl Conservative {
    /// Starts every job whose reservation has come.
    fn start_due(&mut self, site: &SiteView, starts: &mut Vec<JobIdx>) {
        while let Some(&(start, seq, idx)) = self.by_start.last() {
            if start > site.now {
                break;
            }
            starts.push(idx);
            self.by_start.pop();
            self.queue.remove(&seq);
        }
        // Forget the past so the profile stays as long as the plan, not the run.
        if let Some(profile) = self.profile.as_mut() {
            profile.forget_before(site.now);
        }
    }
}

/// Units → floor, sorted by units; few distinct widths occur, so a sorted `Vec` beats a map.
#[derive(Clone, Default)]
struct Floors(Vec<(u32, SimTime)>);

impl Floors {
    fn clear(&mut self) {
        self.0.clear();
    }

    /// The floor of the widest recorded width ≤ `units`: a lower bound for `units`.
    fn lower_bound(&self, units: u32) -> Option<SimTime> {
        let i = self.0.partition_point(|&(u, _)| u <= units);
        i.checked_sub(1).map(|i| self.0[i].1)
    }

    fn set(&mut self, units: u32, floor: SimTime) {
        match self.0.binary_search_by_key(&units, |&(u, _)| u) {
            Ok(i) => self.0[i].1 = floor,
            Err(i) => self.0.insert(i, (units, floor)),
        }
    }
}

fn place(profile: &mut Profile, floors: &mut Floors, now: SimTime, job: &QueuedJob) -> SimTime {
    // Any floor for as many units or fewer is a valid lower bound for this search.
    let not_before = floors.lower_bound(job.units).map_or(now, |t| t.max(now));
    let (start, floor) = profile.earliest_start_with_floor(not_before, job.units, job.estimate);
    if let Some(f) = floor {
        floors.set(job.units, f);
    }
    // The engine only queues jobs that fit the site, so a start always exists once every
    // running job has released; NEVER would only show up as a capacity-check failure.
    let s = start.unwrap_or(SimTime::NEVER);
    profile.reserve(s, job.estimate, job.units);
    s
}

impl LocalPolicy for Conservative {
    fn name(&self) -> &'static str {
        "conservative"
    }

    fn enqueue(&mut self, job: QueuedJob, _site: &SiteView) {
        self.queue.insert(self.arrivals, (job, None));
        self.arrivals += 1;
    }

    fn schedule(&mut self, site: &SiteView, starts: &mut Vec<JobIdx>) {
        if site.plan_invalidated || self.profile.is_none() {
            self.rebuild(site);
        } else if let Some(profile) = self.profile.as_mut() {
            // Place the newcomers, in arrival order: they are the unplaced jobs at the back
            // of the queue.
            let first_new = self
                .queue
                .iter()
                .rev()
                .take_while(|(_, (_, start))| start.is_none())
                .last()
                .map(|(&seq, _)| seq);
            let Some(first_new) = first_new else {
                return self.start_due(site, starts);
            };
            for (&seq, (job, start)) in self.queue.range_mut(first_new..) {
                let s = place(profile, &mut self.floors, site.now, job);
                *start = Some(s);
                let key = (s, seq, job.idx);
                let at = self.by_start.partition_point(|e| *e > key);
                self.by_start.insert(at, key);
            }
        }
        self.start_due(site, starts);
    }

    fn queue_len(&self) -> usize {
        self.queue.len()
    }

    /// Drops the job and its reservation; the plan is rebuilt at the next pass (the engine
    /// marks it invalidated: a freed reservation may let later jobs move up).
    fn withdraw(&mut self, job: JobIdx) -> bool {
        let Some(seq) = self
            .queue
            .iter()
            .find(|(_, (j, _))| j.idx == job)
            .map(|(&s, _)| s)
        else {
            return false;
        };
        self.queue.remove(&seq);
        self.by_start.retain(|&(_, s, _)| s != seq);
        self.profile = None;
        true
    }

    fn queued(&self) -> Vec<QueuedJob> {
        self.queue.values().map(|(j, _)| *j).collect()
    }

    fn projection(&self, site: &SiteView) -> Option<super::Projection> {
        let (profile, barrier) = self.projected_profile(site);
        // Placed jobs' starts are in `by_start`, latest first; newcomers not yet placed
        // (between an enqueue and the pass) start no earlier than now.
        let first_start = match (&self.profile, site.plan_invalidated) {
            (Some(_), false) if self.queue.values().all(|(_, s)| s.is_some()) => {
                self.by_start.last().map_or(SimTime::NEVER, |&(s, _, _)| s)
            }
            _ => site.now,
        };
        Some(super::Projection {
            profile,
            barrier,
            first_start,
        })
    }

    /// The kept plan already is the projection; newcomers not yet placed go in after it.
    fn projected_profile(&self, site: &SiteView) -> (Profile, SimTime) {
        let mut profile = match (&self.profile, site.plan_invalidated) {
            (Some(p), false) => p.clone(),
            _ => {
                let mut p = site.planning_profile();
                let mut floors = Floors::default();
                for (job, _) in self.queue.values() {
                    place(&mut p, &mut floors, site.now, job);
                }
                return (p, site.now);
            }
        };
        let mut floors = self.floors.clone();
        for (job, start) in self.queue.values() {
            if start.is_none() {
                place(&mut profile, &mut floors, site.now, job);
            }
        }
        (profile, site.now)
    }
}
