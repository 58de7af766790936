use std::collections::BTreeMap;

use super::{LocalPolicy, QueuedJob, SiteView};
use crate::engine::SimTime;
use crate::model::JobIdx;

/// Shortest job first by estimate, strict: the queue is ordered by (estimate, arrival) and
/// its head blocks the rest. SOB §4.3 does not say whether its SJF backfills; without
/// backfilling it is the "slowest local scheduler" the paper reports.
#[derive(Default)]
pub struct Sjf {
    queue: BTreeMap<(SimTime, u64), QueuedJob>,
    arrivals: u64,
}

impl LocalPolicy for Sjf {
    fn name(&self) -> &'static str {
        "sjf"
    }

    fn enqueue(&mut self, job: QueuedJob, _site: &SiteView) {
        self.queue.insert((job.estimate, self.arrivals), job);
        self.arrivals += 1;
    }

    fn schedule(&mut self, site: &SiteView, starts: &mut Vec<JobIdx>) {
        let mut free = site.free;
        while let Some(entry) = self.queue.first_entry() {
            let head = *entry.get();
            if head.units > free {
                break;
            }
            free -= head.units;
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

    fn backfills(&self) -> bool {
        false
    }
}
