use std::collections::VecDeque;

use super::{LocalPolicy, QueuedJob, SiteView};
use crate::model::JobIdx;

/// Strict first-come first-served: jobs start in arrival order; the head blocks everyone.
#[derive(Default)]
pub struct Fcfs {
    queue: VecDeque<QueuedJob>,
}

impl LocalPolicy for Fcfs {
    fn name(&self) -> &'static str {
        "fcfs"
    }

    fn enqueue(&mut self, job: QueuedJob, _site: &SiteView) {
        self.queue.push_back(job);
    }

    fn schedule(&mut self, site: &SiteView, starts: &mut Vec<JobIdx>) {
        let mut free = site.free;
        while let Some(head) = self.queue.front() {
            if head.units > free {
                break;
            }
            free -= head.units;
            starts.push(head.idx);
            self.queue.pop_front();
        }
    }

    fn queue_len(&self) -> usize {
        self.queue.len()
    }

    fn queued(&self) -> Vec<QueuedJob> {
        self.queue.iter().copied().collect()
    }

    fn backfills(&self) -> bool {
        false
    }
}
