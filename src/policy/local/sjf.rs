use std::collections::BTreeMap;

use super::{LocalPolicy, NowFit, QueuedJob, SiteView};
use crate::model::JobIdx;
use crate::time::SimTime;

/// Shortest job first by estimate, strict: the queue is ordered by (estimate, arrival) and
/// its head blocks the rest. SOB §4.3 does not say whether its SJF backfills; without
/// backfilling it is the "slowest local scheduler" the paper reports.
#[derive(Default)]
pub struct Sjf {
    queue: BTreeMap<(SimTime, u64), QueuedJob>,
    arrivals: u64,
    /// Jobs put at the front so far (requeued after a failure): each is keyed below every
    /// estimate (which is at least one tick), the latest lowest.
    fronts: i64,
}

impl LocalPolicy for Sjf {
    fn name(&self) -> &'static str {
        "sjf"
    }

    fn enqueue(&mut self, job: QueuedJob, _site: &SiteView) {
        self.queue.insert((job.estimate, self.arrivals), job);
        self.arrivals += 1;
    }

    fn enqueue_front(&mut self, job: QueuedJob, _site: &SiteView) {
        self.fronts += 1;
        self.queue
            .insert((SimTime(-self.fronts), self.arrivals), job);
        self.arrivals += 1;
    }

    fn schedule(&mut self, site: &SiteView, starts: &mut Vec<JobIdx>) {
        let mut fit = NowFit::new(site);
        while let Some(entry) = self.queue.first_entry() {
            let head = *entry.get();
            if !fit.fits_job(site, &head) {
                break;
            }
            fit.take_job(site, &head);
            starts.push(head.idx);
            entry.remove();
        }
    }

    fn queue_len(&self) -> usize {
        self.queue.len()
    }

    fn queued(&self) -> Vec<QueuedJob> {
        self.queue.values().copied().collect()
    }

    fn withdraw(&mut self, job: JobIdx) -> bool {
        let key = self
            .queue
            .iter()
            .find(|(_, j)| j.idx == job)
            .map(|(k, _)| *k);
        key.and_then(|k| self.queue.remove(&k)).is_some()
    }

    fn backfills(&self) -> bool {
        false
    }

    fn places_on_nodes(&self) -> bool {
        true
    }

    /// No one projection answers every query: the approximate wait below projects only the
    /// jobs ahead of the query's estimate.
    fn projection(&self, _site: &SiteView) -> Option<super::Projection> {
        None
    }

    /// A newcomer of this estimate would queue behind every job whose estimate is no longer
    /// (ties keep arrival order, and it arrives last) and ahead of the longer ones, which
    /// therefore cannot delay it: only the jobs ahead are projected. (The generic projection
    /// puts it behind the whole queue, as FCFS would, and makes a short job's wait look long
    /// — sending S-I to migrate the very jobs SJF would start soonest.)
    fn approximate_wait(&self, site: &SiteView, units: u32, estimate: SimTime) -> Option<SimTime> {
        if units > site.capacity {
            return None;
        }
        let mut profile = site.planning_profile();
        let mut barrier = site.now;
        for job in self.queue.range(..=(estimate, u64::MAX)).map(|(_, j)| j) {
            if let Some(start) = profile.earliest_start(barrier, job.units, job.estimate) {
                profile.reserve(start, job.estimate, job.units);
                barrier = barrier.max(start);
            }
        }
        profile
            .earliest_start(barrier, units, estimate)
            .map(|s| s - site.now)
    }
}
