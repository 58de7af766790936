//! The grid policy's turn: it decides from a read-only view of the sites, and the engine
//! carries its decisions out (a job into a site's local queue, a queued job moved to another
//! site, a timer or message onto the heap).

use super::view::EngineView;
use super::{Event, Simulation};
use crate::engine::outcome::{planned_and_effective, scale};
use crate::engine::{JobOutcome, RejectReason};
use crate::model::JobIdx;
use crate::policy::grid::{GridAction, GridPolicy};
use crate::policy::local::QueuedJob;

impl Simulation<'_> {
    /// The grid policy decides with a read-only view of the sites; then its decisions are
    /// carried out (jobs into local queues, messages onto the heap).
    pub(super) fn grid_decides(
        &mut self,
        decide: impl FnOnce(&mut dyn GridPolicy, &EngineView, &mut Vec<GridAction>),
    ) {
        let view = EngineView {
            now: self.now,
            platform: &self.platform,
            jobs: &self.jobs,
            demands: &self.demands,
            cfg: &self.cfg,
            sites: &self.sites,
            outcomes: &self.outcomes,
            arrivals_remaining: self.next_arrival < self.jobs.len(),
            cache_projections: self.cache_projections,
        };
        decide(&mut *self.grid, &view, &mut self.actions);
        let mut actions = std::mem::take(&mut self.actions);
        for action in actions.drain(..) {
            match action {
                GridAction::After { delay, msg } => {
                    self.events.push(self.now + delay, Event::Grid(msg))
                }
                GridAction::Dispatch { job, site } => self.dispatch(job, site),
                GridAction::Move { job, from, to } => self.move_queued(job, from, to),
            }
        }
        self.actions = actions;
    }

    /// Job `idx`, waiting in `from`'s local queue, moves to `to`'s (R-I and Sy-I with
    /// `hold_at_home`). A job no longer queued at `from` stays where it is.
    fn move_queued(&mut self, idx: JobIdx, from: u32, to: u32) {
        let site = &mut self.sites[from as usize];
        if self.outcomes[idx as usize].site != from || !site.policy.withdraw(idx) {
            return;
        }
        site.changed();
        // Plans around the job (conservative) are rebuilt, and the jobs behind it may start.
        site.res.plan_invalidated = true;
        self.touched.push(from);
        self.dispatch(idx, to);
    }

    /// Job `idx` joins site `s`'s local queue.
    fn dispatch(&mut self, idx: JobIdx, s: u32) {
        let job = &self.jobs[idx as usize];
        let units = self.platform.sites[s as usize].units_for(job.procs);
        if let Some(reason) = self.never_fits(s as usize, idx) {
            self.outcomes[idx as usize].status = JobOutcome::Rejected(reason);
            self.done += 1;
            return;
        }
        let job = &self.jobs[idx as usize];
        let (planned, _) = planned_and_effective(job, &self.cfg);
        let home_speed = self.platform.sites[job.home as usize].speed;
        let estimate = self.planned_run(
            idx,
            s,
            scale(planned, home_speed, self.sites[s as usize].res.speed),
        );
        let site = &mut self.sites[s as usize];
        if units > site.res.capacity {
            // Only a non-migrating scheme sends a job to a site too small for it.
            self.outcomes[idx as usize].status = JobOutcome::Rejected(RejectReason::TooWide {
                needs: units,
                capacity: site.res.capacity,
            });
            self.done += 1;
            return;
        }
        let queued = QueuedJob {
            idx,
            units,
            estimate,
            queued_at: self.now,
        };
        self.outcomes[idx as usize].site = s;
        site.policy.enqueue(queued, &site.res.view(self.now));
        site.queued_last(self.now, &queued);
        self.touched.push(s);
    }
}
