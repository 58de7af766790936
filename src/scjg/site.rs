//! One site of an SCJG run: its units, running jobs, reservations and local policy.

use std::collections::BTreeMap;

use crate::model::JobIdx;
use crate::policy::local::{LocalPolicy, LocalPolicyKind, QueuedJob, Reservation, SiteView};
use crate::policy::Profile;
use crate::time::SimTime;

/// A site: resources the simulation changes, the policy that decides local starts.
pub struct Site {
    pub capacity: u32,
    pub free: u32,
    /// `(predicted end, job key) → units`: local jobs and started metajob components.
    pub running: BTreeMap<(SimTime, JobIdx), u32>,
    /// Not yet started reservations and lock-down windows not yet over, sorted by start.
    pub reservations: Vec<Reservation>,
    pub plan_invalidated: bool,
    pub policy: Box<dyn LocalPolicy>,
}

impl Site {
    pub fn new(capacity: u32, policy: LocalPolicyKind) -> Site {
        Site {
            capacity,
            free: capacity,
            running: BTreeMap::new(),
            reservations: Vec::new(),
            plan_invalidated: false,
            policy: policy.build(),
        }
    }

    pub fn view(&self, now: SimTime) -> SiteView<'_> {
        SiteView {
            now,
            capacity: self.capacity,
            free: self.free,
            running: &self.running,
            plan_invalidated: self.plan_invalidated,
            reservations: &self.reservations,
            nodes: None,
        }
    }

    /// The profile the local policy guarantees (running jobs, reservations, and its queue's
    /// protected starts): what a metascheduler's query is answered from.
    pub fn guarded_profile(&self, now: SimTime) -> Profile {
        self.policy.guarded_profile(&self.view(now))
    }

    /// True when a reservation of `units` from `start` for `length` can be made now: the
    /// start is not past and lies in the site's range list (SCJG §3.3 step 5's check, done
    /// by the local scheduler when the reservation request arrives).
    pub fn can_reserve(&self, now: SimTime, start: SimTime, units: u32, length: SimTime) -> bool {
        start >= now
            && !self
                .policy
                .range_list(&self.view(now), units, length, start, start)
                .is_empty()
    }

    /// Adds a reservation (its plan changes: the policy replans).
    pub fn reserve(&mut self, r: Reservation) {
        let at = self.reservations.partition_point(|x| *x <= r);
        self.reservations.insert(at, r);
        self.plan_invalidated = true;
        self.policy.replan();
    }

    /// Drops `holder`'s reservation; its units for the reservation in units, if it had one.
    pub fn release(&mut self, holder: u64) -> Option<Reservation> {
        let at = self.reservations.iter().position(|r| r.holder == holder)?;
        self.plan_invalidated = true;
        self.policy.replan();
        Some(self.reservations.remove(at))
    }

    /// Drops the lock-down windows over by `now`.
    pub fn forget_windows(&mut self, now: SimTime) {
        let before = self.reservations.len();
        self.reservations.retain(|r| r.end > now);
        if self.reservations.len() != before {
            self.plan_invalidated = true;
            self.policy.replan();
        }
    }

    /// A local job joins the queue.
    pub fn enqueue(&mut self, job: QueuedJob, now: SimTime) {
        let view = SiteView {
            now,
            capacity: self.capacity,
            free: self.free,
            running: &self.running,
            plan_invalidated: self.plan_invalidated,
            reservations: &self.reservations,
            nodes: None,
        };
        self.policy.enqueue(job, &view);
    }

    /// One scheduling pass: the local jobs to start now.
    pub fn schedule(&mut self, now: SimTime, starts: &mut Vec<JobIdx>) {
        let view = SiteView {
            now,
            capacity: self.capacity,
            free: self.free,
            running: &self.running,
            plan_invalidated: self.plan_invalidated,
            reservations: &self.reservations,
            nodes: None,
        };
        self.policy.schedule(&view, starts);
        self.plan_invalidated = false;
    }
}
