//! The events of an instant as the engine handles them: completions and estimate expiries
//! (resources released, the site's policy told), arrivals through the grid policy, and the
//! jobs that can run nowhere (rejected on arrival).

use super::{Event, Simulation};
use crate::engine::outcome::{planned_and_effective, scale, EventOrder};
use crate::engine::{InvariantViolation, JobOutcome, RejectReason, SimError, SimTime};
use crate::model::JobIdx;

impl Simulation<'_> {
    /// 1. Completions, expiries and grid messages due now.
    pub(super) fn handle_due_events(&mut self) -> Result<(), SimError> {
        while let Some((_, event)) = self.events.pop_until(self.now) {
            self.handle_event(event)?;
        }
        Ok(())
    }

    pub(super) fn handle_event(&mut self, event: Event) -> Result<(), SimError> {
        self.handled += 1;
        match event {
            Event::Complete(idx) => {
                self.complete(idx)?;
                if self.grid.wants_releases() {
                    self.grid_decides(|g, v, a| g.on_release(v, a));
                }
            }
            Event::EstimateExpired(idx) => self.expire(idx)?,
            Event::Down(i) => self.node_down(i)?,
            Event::Up(i) => self.node_up(i)?,
            Event::Release(idx) => self.grid_decides(|g, v, a| g.on_arrival(idx, v, a)),
            Event::Wake(s) => {
                let site = &mut self.sites[s as usize];
                if site.wake == self.now {
                    site.wake = SimTime::NEVER;
                }
                self.touched.push(s);
            }
            Event::Grid(msg) => {
                self.log.grid_messages += 1;
                self.grid_decides(|g, v, a| g.on_message(msg, v, a));
            }
        }
        Ok(())
    }

    /// When running job `idx` is predicted to end at its site: start + its (scaled)
    /// estimate, or its real end once it overran.
    pub(super) fn predicted_end(&self, idx: JobIdx) -> SimTime {
        let estimated = self.outcomes[idx as usize].start + self.estimate_here(idx);
        if self.now > estimated {
            self.now
        } else {
            estimated
        }
    }

    pub(super) fn complete(&mut self, idx: JobIdx) -> Result<(), SimError> {
        let now = self.now;
        if self.outages.is_some() && (self.stale(idx) || self.outcomes[idx as usize].end != now) {
            return Ok(());
        }
        // An overrunning job's predicted end was moved to its real end.
        let predicted = self.predicted_end(idx);
        let job = &self.jobs[idx as usize];
        let s = self.outcomes[idx as usize].site as usize;
        // A job ending when it was predicted to leaves the profile from now on as it was: a
        // projection in arrival order stays what a fresh one would be.
        if now < predicted || !self.sites[s].policy.projects_in_arrival_order() {
            self.sites[s].changed();
        }
        let site = &mut self.sites[s].res;
        let Some(units) = site.running.remove(&(predicted, idx)) else {
            if self.outages.is_some() {
                // A killed run's completion at the instant its requeued run ends too.
                return Ok(());
            }
            return Err(InvariantViolation(format!(
                "job {} completed but was not running",
                job.id
            ))
            .into());
        };
        site.free += units;
        self.release_nodes(s, idx);
        if let (Some(power), Some(pool)) = (self.power.as_mut(), self.sites[s].res.nodes.as_ref()) {
            power.released(s, now, self.placements.of(idx as usize), pool);
        }
        let site = &mut self.sites[s].res;
        if now < predicted {
            site.plan_invalidated = true;
        }
        // Under pyss's order a job ending at its estimate is free before the arrivals, but
        // its termination comes after them: the policy hears of it there (`Due::PassAt`),
        // and its site is passed there or at an arrival of its own — not at another site's
        // arrival, so on several sites each site keeps pyss's single-site order.
        if self.cfg.event_order == EventOrder::Pyss && now == predicted {
            self.done += 1;
            self.log.completed.push(idx);
            return Ok(());
        }
        self.sites[s].policy.released(now, units, predicted);
        if self.sites[s].res.nodes.is_some() {
            let shares = self.placements.of(idx as usize);
            self.sites[s].policy.released_nodes(predicted, shares);
        }
        self.done += 1;
        self.touched.push(s as u32);
        self.log.completed.push(idx);
        Ok(())
    }

    fn expire(&mut self, idx: JobIdx) -> Result<(), SimError> {
        let now = self.now;
        let out = self.outcomes[idx as usize];
        if self.outages.is_some() && (self.stale(idx) || out.start + self.estimate_here(idx) != now)
        {
            return Ok(());
        }
        self.sites[out.site as usize].changed();
        let site = &mut self.sites[out.site as usize].res;
        let key = site
            .running
            .range((now, idx)..=(now, idx))
            .next()
            .map(|(k, v)| (*k, *v));
        let Some((k, units)) = key else {
            if self.outages.is_some() {
                return Ok(());
            }
            return Err(InvariantViolation(format!(
                "estimate of job {} expired but it was not running",
                self.jobs[idx as usize].id
            ))
            .into());
        };
        site.running.remove(&k);
        site.running.insert((out.end, idx), units);
        site.plan_invalidated = true;
        self.sites[out.site as usize].policy.replan();
        self.touched.push(out.site);
        Ok(())
    }

    /// True when job `idx`'s completion or expiry event belongs to a run of it that a
    /// failure killed (it is queued again, running again with another end, or lost).
    fn stale(&self, idx: JobIdx) -> bool {
        let out = &self.outcomes[idx as usize];
        out.start == SimTime::NEVER || out.status == JobOutcome::Lost
    }

    /// Job `idx`'s estimate at the site it runs on (or is queued at), with the checkpoints
    /// of its run unless they count against its limit.
    pub(super) fn estimate_here(&self, idx: JobIdx) -> SimTime {
        let job = &self.jobs[idx as usize];
        let at = self.outcomes[idx as usize].site;
        let site = &self.sites[at as usize].res;
        let home_speed = self.platform.sites[job.home as usize].speed;
        let (planned, _) = planned_and_effective(job, &self.cfg);
        self.planned_run(idx, at, scale(planned, home_speed, site.speed))
    }

    /// 2. Arrivals at `now`, in input order, through the grid policy.
    pub(super) fn handle_arrivals(&mut self) {
        while self.handle_next_arrival() {}
    }

    /// Hands the next job submitted now to its home's grid policy (or rejects it); false
    /// when no job is left for this instant.
    pub(super) fn handle_next_arrival(&mut self) -> bool {
        match self.jobs.get(self.next_arrival) {
            Some(job) if job.submit == self.now => {}
            _ => return false,
        }
        let idx = self.next_arrival as JobIdx;
        self.next_arrival += 1;
        self.handled += 1;
        self.log.arrived.push(idx);
        if let Some(reason) = self.rejection(idx) {
            self.outcomes[idx as usize].status = JobOutcome::Rejected(reason);
            self.done += 1;
            // Under pyss's order a submission is an event of its site with a pass after it,
            // even one that cannot run: the jobs freed at their estimates are passed there.
            let home = self.jobs[idx as usize].home;
            if self.cfg.event_order == EventOrder::Pyss && (home as usize) < self.sites.len() {
                self.touched.push(home);
            }
            return true;
        }
        match self.holds.get(idx as usize) {
            Some(&until) if until > self.now => self.events.push(until, Event::Release(idx)),
            _ => self.grid_decides(|g, v, a| g.on_arrival(idx, v, a)),
        }
        true
    }

    /// Why job `idx` can run nowhere: its home does not exist, or no site can hold it (with
    /// its home's numbers as the reason).
    fn rejection(&self, idx: JobIdx) -> Option<RejectReason> {
        let job = &self.jobs[idx as usize];
        let Some(home) = self.platform.sites.get(job.home as usize) else {
            return Some(RejectReason::NoSuchSite);
        };
        let fits_somewhere = self.platform.sites.iter().enumerate().any(|(i, s)| {
            s.units_for(job.procs) <= s.capacity_units() && self.never_fits(i, idx).is_none()
        });
        if fits_somewhere {
            return None;
        }
        let too_wide = home.units_for(job.procs) > home.capacity_units();
        match self.never_fits(job.home as usize, idx) {
            Some(reason) if !too_wide => Some(reason),
            _ => Some(RejectReason::TooWide {
                needs: home.units_for(job.procs),
                capacity: home.capacity_units(),
            }),
        }
    }
}
