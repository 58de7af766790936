use std::collections::VecDeque;

use super::{LocalPolicy, NowFit, QueuedJob, SiteView};
use crate::model::JobIdx;

/// Strict first-come first-served: jobs start in arrival order; the head blocks everyone.
/// Around reservations the head starts only if it ends (by its estimate) before every block
/// it would overlap, or fits beside them.
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

    fn enqueue_front(&mut self, job: QueuedJob, _site: &SiteView) {
        self.queue.push_front(job);
    }

    fn schedule(&mut self, site: &SiteView, starts: &mut Vec<JobIdx>) {
        let mut fit = NowFit::new(site);
        while let Some(head) = self.queue.front() {
            if !fit.fits_job(site, head) {
                break;
            }
            fit.take_job(site, head);
            starts.push(head.idx);
            self.queue.pop_front();
        }
    }

    fn queue_len(&self) -> usize {
        self.queue.len()
    }

    fn projects_in_arrival_order(&self) -> bool {
        true
    }

    fn queued(&self) -> Vec<QueuedJob> {
        self.queue.iter().copied().collect()
    }

    fn withdraw(&mut self, job: JobIdx) -> bool {
        let at = self.queue.iter().position(|j| j.idx == job);
        at.and_then(|i| self.queue.remove(i)).is_some()
    }

    fn backfills(&self) -> bool {
        false
    }

    fn places_on_nodes(&self) -> bool {
        true
    }
}
