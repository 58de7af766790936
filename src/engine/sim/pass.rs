//! The scheduling passes: one per site touched at an instant, in site order; each starts the
//! jobs its local policy returns, after checking that they fit, and keeps or drops the
//! site's kept queue projection.

use super::steplog::PassLog;
use super::{Event, Simulation, SiteState};
use crate::engine::outcome::{planned_and_effective, scale};
use crate::engine::{InvariantViolation, JobOutcome, SimError, SimTime};
use crate::limits::{Limit, LimitExceeded};

impl Simulation<'_> {
    /// 3. One scheduling pass per touched site, in site order.
    pub(super) fn schedule_touched(&mut self) -> Result<(), SimError> {
        let mut touched = std::mem::take(&mut self.touched);
        touched.sort_unstable();
        touched.dedup();
        for &s in &touched {
            self.schedule_site(s)?;
        }
        touched.clear();
        self.touched = touched;
        Ok(())
    }

    pub(super) fn schedule_site(&mut self, s: u32) -> Result<(), SimError> {
        let now = self.now;
        let SiteState {
            res: site,
            policy,
            projection,
            ..
        } = &mut self.sites[s as usize];
        let replans = site.plan_invalidated;
        if let (Some(power), Some(pool)) = (self.power.as_mut(), site.nodes.as_mut()) {
            power.settle(s as usize, now, pool);
        }
        self.starts.clear();
        policy.schedule(
            &site.pass_view(now, &self.demands, &self.placements),
            &mut self.starts,
        );
        site.plan_invalidated = false;
        // A projection in arrival order reads only the queue and the running jobs: a pass
        // that starts nothing leaves it as it was, and one that starts only jobs it placed
        // now leaves it what a fresh one would be (`Projection::started`). Any other pass
        // drops it.
        let kept = projection.get_mut();
        let keeps = !replans
            && policy.projects_in_arrival_order()
            && kept
                .as_mut()
                .is_some_and(|p| self.starts.is_empty() || p.started(now, &self.starts));
        if !keeps {
            *kept = None;
        }
        let starts = std::mem::take(&mut self.starts);
        for &idx in &starts {
            let job = &self.jobs[idx as usize];
            let home_speed = self.platform.sites[job.home as usize].speed;
            let speed = self.sites[s as usize].res.speed;
            let (planned, effective) = planned_and_effective(job, &self.cfg);
            let limit = scale(planned, home_speed, speed);
            let est = self.planned_run(idx, s, limit);
            let full = scale(effective, home_speed, speed);
            let (run, cut) = self.actual_run(idx, s, full, limit);
            self.note_cut(idx, cut);
            self.place_start(s, idx, est)?;
            // A job placed on sleeping nodes computes once they have booted.
            let start = match self.power.as_mut() {
                Some(power) => power.wake(s as usize, now, self.placements.of(idx as usize)),
                None => now,
            };
            let SiteState {
                res: site,
                policy,
                projection,
                ..
            } = &mut self.sites[s as usize];
            if start > now {
                // Its policy placed it to end at now + estimate: the plan, and any kept
                // projection, are off by the boot.
                site.plan_invalidated = true;
                policy.replan();
                *projection.get_mut() = None;
                if let Some(power) = self.power.as_mut() {
                    power.log.delayed.push((idx, now));
                }
            }
            let job = &self.jobs[idx as usize];
            // A node-exclusive site charges the cores of the nodes the job holds whole.
            let units = match site.nodes.as_ref().is_some_and(|p| p.is_exclusive()) {
                true => self
                    .placements
                    .of(idx as usize)
                    .iter()
                    .map(|s| s.cores)
                    .sum(),
                false => self.platform.sites[s as usize].units_for(job.procs),
            };
            if units > site.free {
                return Err(InvariantViolation(format!(
                    "policy {} started job {} needing {units} units with only {} free at t={now}",
                    policy.name(),
                    job.id,
                    site.free
                ))
                .into());
            }
            let out = &mut self.outcomes[idx as usize];
            if out.status != JobOutcome::Pending || out.start != SimTime::NEVER {
                return Err(InvariantViolation(format!("job {} started twice", job.id)).into());
            }
            site.free -= units;
            out.start = start;
            out.end = start + run;
            out.status =
                if cut > SimTime::ZERO || (self.cfg.kill_at_estimate && job.runtime > planned) {
                    JobOutcome::Killed
                } else {
                    JobOutcome::Finished
                };
            site.running.insert((start + est, idx), units);
            self.events.push(start + run, Event::Complete(idx));
            if run > est {
                self.events.push(start + est, Event::EstimateExpired(idx));
            }
            self.log.started.push((s, idx));
        }
        self.starts = starts;
        self.queue_wake(s);
        let policy = &self.sites[s as usize].policy;
        self.max_queue = self.max_queue.max(policy.queue_len());
        if policy.plan_work() > self.work_limit {
            return Err(SimError::Limit(LimitExceeded {
                limit: Limit::PlanWork,
                max: self.work_limit,
                context: format!(
                    "{} at site '{}' by t = {} s, {} jobs waiting",
                    policy.name(),
                    self.platform.sites[s as usize].name,
                    now,
                    policy.queue_len()
                ),
            }));
        }
        if self.record_passes && !self.starts.is_empty() {
            self.log.passes.push(PassLog {
                site: s,
                started: self.starts.clone(),
                note: policy.last_pass(),
            });
        }
        Ok(())
    }

    /// Puts site `s`'s policy's next wake-up on the heap, unless one at or before it is
    /// there already (a later one left there brings a pass that changes nothing).
    fn queue_wake(&mut self, s: u32) {
        let now = self.now;
        let SiteState {
            res, policy, wake, ..
        } = &mut self.sites[s as usize];
        let Some(at) = policy.wake_at(&res.view(now)).filter(|&t| t > now) else {
            return;
        };
        if at < *wake || *wake <= now {
            *wake = at;
            self.events.push(at, Event::Wake(s));
        }
    }
}
