use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

use super::conservative::on_nodes;
use super::conservative_nodes::NodeConservative;
use super::placement::{place, Floors};
use super::{LocalPolicy, QueuedJob, SiteView};
use crate::model::JobIdx;
use crate::policy::Profile;
use crate::time::SimTime;

/// Conservative backfilling by rebuild (`conservative-rebuild`; Gridscope's `conservative`
/// before scenario version 2): every queued job holds a reservation at the earliest time it
/// fits in the availability profile, placed in arrival order. A job jumps ahead only into a
/// hole that delays no reservation.
///
/// The plan is kept between events. When the running set evolves as planned (jobs end at
/// their estimates) the kept plan equals a rebuild, so arrivals are just placed into it.
/// When a job ends early or outlives its estimate the plan is rebuilt from the running jobs
/// with every queued job re-placed in arrival order. A rebuild can move a job *later* than
/// its reservation when an earlier job takes its hole: it breaks conservative backfilling's
/// promise, which [`super::Conservative`] (compression) keeps. It stays, byte-identical,
/// for the schedules of older scenarios and links. The differential test checks the kept
/// plan against a from-scratch rebuild at every event.
///
/// Cost: a rebuild places every queued job into a profile as long as the queue, O(Q²) in
/// the worst case; lower bounds per width and per shape (see [`Floors`]) skip most of each
/// search on real queues. Fine up to queues of a few thousand (SDSC-BLUE 0.8 s, CEA-Curie
/// 1.8 s), slow for the tens of thousands RICC queues (a rebuild per early end, each
/// re-placing every job).
#[derive(Default)]
pub struct ConservativeRebuild {
    /// Arrival sequence → (job, reserved start); `None` until placed.
    queue: BTreeMap<u64, (QueuedJob, Option<SimTime>)>,
    /// (reserved start, arrival sequence) of every placed job, soonest on top. A heap, not
    /// a sorted list: a rebuild re-places the whole queue (thousands of jobs on RICC) while
    /// only the jobs due now are ever taken out before the next rebuild, so ordering all of
    /// them (a sort, 10 % of CEA-Curie's run) was wasted work. Keys are unique (the
    /// sequence), so jobs leave in the same order a sort gives.
    by_start: BinaryHeap<Reverse<(SimTime, u64, JobIdx)>>,
    profile: Option<Profile>,
    /// Lower bounds for placing jobs into `profile`; valid until the next rebuild.
    floors: Floors,
    arrivals: u64,
    /// Plan work so far ([`LocalPolicy::plan_work`]): the engine's bound on a backlog.
    work: u64,
    /// On a node-typed site, the plan on nodes that runs the rule instead
    /// ([`super::conservative_nodes`]).
    on_nodes: Option<Box<NodeConservative>>,
}

impl ConservativeRebuild {
    fn rebuild(&mut self, site: &SiteView) {
        // Advance reservations are fixed blocks, placed before any queued job.
        let mut profile = site.planning_profile();
        // Reuse the heap's buffer; heapifying it once is linear.
        let mut by_start = std::mem::take(&mut self.by_start).into_vec();
        by_start.clear();
        self.floors.clear(self.queue.len());
        for (&seq, (job, start)) in self.queue.iter_mut() {
            let s = place(&mut profile, &mut self.floors, site.now, job);
            *start = Some(s);
            by_start.push(Reverse((s, seq, job.idx)));
        }
        self.by_start = BinaryHeap::from(by_start);
        let steps = profile.steps().len() as u64;
        self.work = self.work.saturating_add(self.queue.len() as u64 * steps);
        self.profile = Some(profile);
    }
}

impl ConservativeRebuild {
    /// Starts every job whose reservation has come.
    fn start_due(&mut self, site: &SiteView, starts: &mut Vec<JobIdx>) {
        // A job due now that does not fit yet waits for the rest of this instant: under the
        // per-event orders (cqsim, pyss) a pass runs after each completion, while the plan
        // already counts every job predicted to end now as free.
        let mut free = site.free;
        let mut later = Vec::new();
        while let Some(&Reverse((start, seq, idx))) = self.by_start.peek() {
            if start > site.now {
                break;
            }
            self.by_start.pop();
            let units = self.queue.get(&seq).map_or(0, |(j, _)| j.units);
            if units > free {
                later.push(Reverse((start, seq, idx)));
                continue;
            }
            free -= units;
            starts.push(idx);
            self.queue.remove(&seq);
        }
        self.by_start.extend(later);
        // Forget the past so the profile stays as long as the plan, not the run.
        if let Some(profile) = self.profile.as_mut() {
            profile.forget_before(site.now);
        }
    }
}

impl LocalPolicy for ConservativeRebuild {
    fn name(&self) -> &'static str {
        "conservative-rebuild"
    }

    fn enqueue(&mut self, job: QueuedJob, _site: &SiteView) {
        if let Some(n) = self.on_nodes.as_mut() {
            return n.enqueue(job);
        }
        self.queue.insert(self.arrivals, (job, None));
        self.arrivals += 1;
    }

    fn enqueue_front(&mut self, job: QueuedJob, site: &SiteView) {
        match self.on_nodes.as_mut() {
            Some(n) => n.enqueue_front(job),
            None => self.enqueue(job, site),
        }
    }

    fn places_on_nodes(&self) -> bool {
        true
    }

    fn chosen_nodes(&mut self, idx: JobIdx, out: &mut Vec<crate::model::Share>) -> bool {
        self.on_nodes
            .as_mut()
            .is_some_and(|n| n.chosen_nodes(idx, out))
    }

    fn released(&mut self, now: SimTime, _units: u32, _predicted_end: SimTime) {
        if let Some(n) = self.on_nodes.as_mut() {
            n.released(now);
        }
    }

    fn released_nodes(&mut self, predicted_end: SimTime, shares: &[crate::model::Share]) {
        if let Some(n) = self.on_nodes.as_mut() {
            n.released_nodes(predicted_end, shares);
        }
    }

    fn replan(&mut self) {
        if let Some(n) = self.on_nodes.as_mut() {
            n.replan();
        }
    }

    fn schedule(&mut self, site: &SiteView, starts: &mut Vec<JobIdx>) {
        if let Some(nodes) = &site.nodes {
            // Jobs are queued through a view without the nodes: the first pass on a
            // node-typed site takes them over, in arrival order.
            let queued = std::mem::take(&mut self.queue);
            let plan = on_nodes(&mut self.on_nodes, false);
            queued.values().for_each(|(job, _)| plan.enqueue(*job));
            return plan.schedule(site, nodes, starts);
        }
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
            self.floors.fit_to(self.queue.len());
            for (&seq, (job, start)) in self.queue.range_mut(first_new..) {
                let s = place(profile, &mut self.floors, site.now, job);
                *start = Some(s);
                self.by_start.push(Reverse((s, seq, job.idx)));
            }
        }
        self.start_due(site, starts);
    }

    fn queue_len(&self) -> usize {
        match &self.on_nodes {
            Some(n) => n.queue_len(),
            None => self.queue.len(),
        }
    }

    fn plan_work(&self) -> u64 {
        self.work + self.on_nodes.as_ref().map_or(0, |n| n.plan_work())
    }

    /// Drops the job and its reservation; the plan is rebuilt at the next pass (the engine
    /// marks it invalidated: a freed reservation may let later jobs move up).
    fn withdraw(&mut self, job: JobIdx) -> bool {
        if let Some(n) = self.on_nodes.as_mut() {
            return n.withdraw(job);
        }
        let Some(seq) = self
            .queue
            .iter()
            .find(|(_, (j, _))| j.idx == job)
            .map(|(&s, _)| s)
        else {
            return false;
        };
        self.queue.remove(&seq);
        self.by_start.retain(|&Reverse((_, s, _))| s != seq);
        self.profile = None;
        true
    }

    fn queued(&self) -> Vec<QueuedJob> {
        match &self.on_nodes {
            Some(n) => n.queued(),
            None => self.queue.values().map(|(j, _)| *j).collect(),
        }
    }

    fn projection(&self, site: &SiteView) -> Option<super::Projection> {
        let (profile, barrier) = self.projected_profile(site);
        // Placed jobs' starts are in `by_start`, soonest on top; newcomers not yet placed
        // (between an enqueue and the pass) start no earlier than now.
        let first_start = match (&self.profile, site.plan_invalidated) {
            (Some(_), false) if self.queue.values().all(|(_, s)| s.is_some()) => self
                .by_start
                .peek()
                .map_or(SimTime::NEVER, |&Reverse((s, _, _))| s),
            _ => site.now,
        };
        Some(super::Projection {
            profile,
            barrier,
            first_start,
            placed: Vec::new(),
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
        // The widths' floors only: copying the shape table (up to 128 KiB) for every
        // approximate-wait query would cost more than the few newcomers' searches save.
        let mut floors = self.floors.widths_only();
        for (job, start) in self.queue.values() {
            if start.is_none() {
                place(&mut profile, &mut floors, site.now, job);
            }
        }
        (profile, site.now)
    }
}
