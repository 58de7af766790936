use super::{remove_started, LocalPolicy, NowFit, QueuedJob, SiteView};
use crate::model::JobIdx;
use crate::policy::Profile;

/// First-fit (SOB's FF): scan the queue in arrival order and start every job that fits in
/// the processors still free (around advance reservations: ending before each block it
/// would overlap, or beside it). No reservations for queued jobs, so a wide job can starve.
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
        let mut fit = NowFit::new(site);
        let before = starts.len();
        for job in &self.queue {
            if fit.free() == 0 {
                break;
            }
            if fit.fits(site, job.units, job.estimate) {
                fit.take(job.units, job.estimate);
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

    fn withdraw(&mut self, job: JobIdx) -> bool {
        super::withdraw_from(&mut self.queue, job)
    }

    /// First-fit promises its queue nothing: only running jobs and reservations are kept.
    fn guarded_profile(&self, site: &SiteView) -> Profile {
        site.planning_profile()
    }
}
