//! The engine's read-only view for grid policies.

use super::SiteState;
use crate::engine::outcome::wallclock_limit;
use crate::engine::{JobOutcome, Outcome, RunConfig};
use crate::model::{Demand, Job, JobIdx, Platform};
use crate::policy::grid::GridView;
use crate::time::SimTime;

/// The engine's read-only view for grid policies.
pub(super) struct EngineView<'a> {
    pub(super) now: SimTime,
    pub(super) platform: &'a Platform,
    pub(super) jobs: &'a [Job],
    /// What each job asks beyond processors (empty: processors only).
    pub(super) demands: &'a [Demand],
    pub(super) cfg: &'a RunConfig,
    pub(super) sites: &'a [SiteState],
    pub(super) outcomes: &'a [Outcome],
    pub(super) arrivals_remaining: bool,
    pub(super) cache_projections: bool,
}

impl GridView for EngineView<'_> {
    fn now(&self) -> SimTime {
        self.now
    }
    fn sites(&self) -> usize {
        self.sites.len()
    }
    fn home(&self, job: JobIdx) -> u32 {
        self.jobs[job as usize].home
    }
    fn awt(&self, site: u32, job: JobIdx) -> Option<SimTime> {
        let st = &self.sites[site as usize];
        // A node-typed site whose nodes can never hold the job (its memory, GPUs or node
        // count) is not asked; its wait counts cores, as its policy's projection does.
        if let Some(pool) = st.res.nodes.as_ref() {
            let demand = self.demands.get(job as usize).copied().unwrap_or_default();
            if pool
                .never_fits(self.jobs[job as usize].procs, &demand)
                .is_some()
            {
                return None;
            }
        }
        let units = self.platform.sites[site as usize].units_for(self.jobs[job as usize].procs);
        let estimate = self.ert(site, job);
        let view = st.res.view(self.now);
        if !self.cache_projections {
            return st.policy.approximate_wait(&view, units, estimate);
        }
        let mut kept = st.projection.borrow_mut();
        if kept.as_ref().is_none_or(|p| self.now > p.first_start) {
            *kept = st.policy.projection(&view);
        }
        match kept.as_ref() {
            Some(p) => p.wait(&view, st.policy.backfills(), units, estimate),
            None => st.policy.approximate_wait(&view, units, estimate),
        }
    }
    fn ert(&self, site: u32, job: JobIdx) -> SimTime {
        wallclock_limit(
            &self.jobs[job as usize],
            self.cfg,
            self.platform,
            site as usize,
        )
    }
    fn rus(&self, site: u32) -> f64 {
        let r = &self.sites[site as usize].res;
        1.0 - r.free as f64 / r.capacity.max(1) as f64
    }
    fn arrivals_remaining(&self) -> bool {
        self.arrivals_remaining
    }
    fn procs(&self, job: JobIdx) -> u32 {
        self.jobs[job as usize].procs
    }
    fn units(&self, site: u32, job: JobIdx) -> u32 {
        self.platform.sites[site as usize].units_for(self.jobs[job as usize].procs)
    }
    fn capacity(&self, site: u32) -> u32 {
        self.sites[site as usize].res.capacity
    }
    fn free(&self, site: u32) -> u32 {
        self.sites[site as usize].res.free
    }
    fn cpus_per_unit(&self, site: u32) -> u32 {
        self.platform.sites[site as usize].cpus_per_unit()
    }
    fn waiting_at(&self, job: JobIdx) -> Option<u32> {
        let o = &self.outcomes[job as usize];
        (o.site != u32::MAX && o.status == JobOutcome::Pending && o.start == SimTime::NEVER)
            .then_some(o.site)
    }
    fn queued_wait(&self, site: u32, job: JobIdx) -> Option<SimTime> {
        let st = &self.sites[site as usize];
        st.policy.queued_wait(&st.res.view(self.now), job)
    }
}
