use super::width_queue::{Known, MemCap, Scan};
use super::{LocalPolicy, NowFit, QueuedJob, SiteView, WidthQueue};
use crate::model::JobIdx;
use crate::policy::Profile;
use crate::time::SimTime;

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
        if let Some(nodes) = &site.nodes {
            self.queue.fill_mems(|j| nodes.unit_mem_of(j));
        }
        let mut fit = NowFit::new(site);
        let (mut from, mut taken) = (0, Vec::new());
        // Only jobs no wider than the units left can fit (a reservation may still refuse one),
        // and on nodes none the pass's failed walks rule out (`Known`, as EASY skips them:
        // RICC with lanl05-wbl's long queue turned them down one by one).
        // One scan until a start ([`Scan`]): the calls before it ask the same units, and a
        // call whose caps rule out less reads the masks afresh. A start takes a fresh one,
        // whose masks, read for fewer free units, skip more.
        let mut scan = Scan::default();
        loop {
            let free = fit.free();
            let known = Known {
                short: fit.nodes.cap(),
                delays: MemCap::NO_CAPS,
            };
            let Some(k) = self
                .queue
                .next_in(&mut scan, from, (free, free, SimTime::NEVER), known)
            else {
                break;
            };
            if free == 0 {
                break;
            }
            let job = self.queue.at(k);
            if fit.fits_job(site, &job) {
                fit.take_job(site, &job);
                starts.push(job.idx);
                taken.push(k);
                scan = Scan::default();
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
