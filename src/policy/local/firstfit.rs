use super::{LocalPolicy, NowFit, QueuedJob, SiteView, WidthQueue};
use crate::model::JobIdx;
use crate::policy::Profile;

/// First-fit (SOB's FF): scan the queue in arrival order and start every job that fits in
/// the processors still free (around advance reservations: ending before each block it
/// would overlap, or beside it). No reservations for queued jobs, so a wide job can starve.
#[derive(Default)]
pub struct FirstFit {
    queue: WidthQueue,
}

impl LocalPolicy for FirstFit {
    fn name(&self) -> &'static str {
        "firstfit"
    }

    fn enqueue(&mut self, job: QueuedJob, _site: &SiteView) {
        self.queue.push(job);
    }

    fn enqueue_front(&mut self, job: QueuedJob, _site: &SiteView) {
        self.queue.push_front(job);
    }

    fn schedule(&mut self, site: &SiteView, starts: &mut Vec<JobIdx>) {
        let mut fit = NowFit::new(site);
        let (mut from, mut taken) = (0, Vec::new());
        // Only jobs no wider than the units left can fit (a reservation may still refuse one).
        while let Some(k) = self.queue.next_within(from, fit.free()) {
            if fit.free() == 0 {
                break;
            }
            let job = self.queue.at(k);
            if fit.fits_job(site, &job) {
                fit.take_job(site, &job);
                starts.push(job.idx);
                taken.push(k);
            }
            from = k + 1;
        }
        self.queue.remove_at(&taken);
    }

    fn queue_len(&self) -> usize {
        self.queue.len()
    }

    fn projects_in_arrival_order(&self) -> bool {
        true
    }

    fn places_on_nodes(&self) -> bool {
        true
    }

    fn queued(&self) -> Vec<QueuedJob> {
        self.queue.to_vec()
    }

    fn withdraw(&mut self, job: JobIdx) -> bool {
        self.queue.withdraw(job)
    }

    /// First-fit promises its queue nothing: only running jobs and reservations are kept.
    fn guarded_profile(&self, site: &SiteView) -> Profile {
        site.planning_profile()
    }
}
