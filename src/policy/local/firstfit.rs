use super::{remove_started, LocalPolicy, QueuedJob, SiteView};
use crate::model::JobIdx;

/// First-fit (SOB's FF): scan the queue in arrival order and start every job that fits in
/// the processors still free. No reservations, so a wide job can starve.
#[derive(Default)]
pub struct FirstFit {
    queue: Vec<QueuedJob>,
}

impl LocalPolicy for FirstFit {
    fn name(&self) -> &'static str {
        "firstfit"
    }

    fn enqueue(&mut self, job: QueuedJob, _site: &SiteView) {
        self.queue.push(job);
    }

    fn schedule(&mut self, site: &SiteView, starts: &mut Vec<JobIdx>) {
        let mut free = site.free;
        let before = starts.len();
        for job in &self.queue {
            if free == 0 {
                break;
            }
            if job.units <= free {
                free -= job.units;
                starts.push(job.idx);
            }
        }
        // `starts[before..]` is in queue order.
        remove_started(&mut self.queue, &starts[before..]);
    }

    fn queue_len(&self) -> usize {
        self.queue.len()
    }

    fn queued(&self) -> Vec<QueuedJob> {
        self.queue.clone()
    }
}
