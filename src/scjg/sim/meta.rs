//! The metascheduler protocol of SCJG §3.3 as the loop runs it: a metajob is checked, then
//! queried (every site's range list, under the optional courtesy lock), a start and the
//! resources selected (`scjg::meta`), reserved site by site after the query-to-reserve
//! delay, and on any failure released everywhere with a random back-off (no hold and
//! wait); its components start together at the reservation's start (rule 5).

use super::{Ev, Lock, Run};
use crate::policy::local::Reservation;
use crate::scjg::meta::{select, Answers, Plan};
use crate::scjg::{FailedRound, MetaStatus, Metajob, Probe, Request, SiteOrder};
use crate::time::SimTime;

/// Metajobs: the metascheduler's steps and the lock-down block.
impl Run<'_> {
    pub(super) fn metajob(&self, m: u32) -> &Metajob {
        &self.input.metajobs[m as usize]
    }

    /// Why metajob `m` can never run, if so.
    fn rejection(&self, m: u32) -> Option<String> {
        let mj = self.metajob(m);
        let caps: Vec<u32> = self.sites.iter().map(|s| s.capacity).collect();
        if let Some((l, _)) = &self.block {
            return match &mj.request {
                Request::Specified(p) if p.len() > 1 => {
                    Some("the lock-down baseline runs single-site metajobs only".into())
                }
                r if r.units() > l.units => Some(format!(
                    "needs {} units; the lock-down block has {}",
                    r.units(),
                    l.units
                )),
                _ if mj.wallclock > l.length() => Some(format!(
                    "its wallclock limit ({} s) is longer than a lock-down window ({} s)",
                    mj.wallclock,
                    l.length()
                )),
                _ => None,
            };
        }
        match &mj.request {
            Request::Specified(parts) => {
                let mut seen: Vec<u32> = parts.iter().map(|p| p.0).collect();
                seen.sort_unstable();
                seen.dedup();
                if seen.len() != parts.len() {
                    return Some("it names a site twice".into());
                }
                parts.iter().find_map(|&(s, u)| match caps.get(s as usize) {
                    None => Some(format!("it names site {s}, which does not exist")),
                    Some(&c) if u > c => Some(format!("needs {u} units at site {s} of {c}")),
                    _ => None,
                })
            }
            Request::Single { units } => (caps.iter().all(|&c| *units > c))
                .then(|| format!("needs {units} units; no site has as many")),
            Request::General { units, max_sites } => {
                let mut c = caps.clone();
                c.sort_unstable_by(|a, b| b.cmp(a));
                let most: u64 = c.iter().take(*max_sites as usize).map(|&x| x as u64).sum();
                (most < *units as u64).then(|| {
                    format!("needs {units} units on ≤ {max_sites} sites, which hold {most}")
                })
            }
        }
    }

    pub(super) fn meta_submit(&mut self, m: u32) {
        if let Some(reason) = self.rejection(m) {
            self.meta[m as usize].status = MetaStatus::Rejected(reason);
            return;
        }
        if let Some((_, block)) = self.block.as_mut() {
            block.queue.push_back(m);
            self.try_block();
            return;
        }
        self.query(m);
    }

    /// The metascheduler `k`'s order of sites.
    fn order(&self, k: u32) -> Vec<u32> {
        let n = self.sites.len() as u32;
        if self.params.order == SiteOrder::Opposed && k % 2 == 1 {
            (0..n).rev().collect()
        } else {
            (0..n).collect()
        }
    }

    /// Steps 1–2: ask the sites, select a start and resources; then reserve.
    pub(super) fn query(&mut self, m: u32) {
        let now = self.now;
        let mj = self.metajob(m).clone();
        let k = mj.scheduler;
        let asked: Vec<u32> = match &mj.request {
            Request::Specified(parts) => parts.iter().map(|p| p.0).collect(),
            _ => (0..self.sites.len() as u32).collect(),
        };
        if let Some(timeout) = self.params.courtesy {
            let blocked = asked
                .iter()
                .filter_map(|&s| self.locks[s as usize])
                .filter(|l| l.holder != k && l.until > now)
                .map(|l| l.until)
                .max();
            if let Some(until) = blocked {
                self.meta[m as usize].lock_wait += until - now;
                self.events.push(until, Ev::Query(m));
                return;
            }
            for &s in &asked {
                self.locks[s as usize] = Some(Lock {
                    holder: k,
                    until: now + timeout,
                });
            }
        }
        self.meta[m as usize].queries += asked.len() as u32;
        let profiles: Vec<_> = self
            .sites
            .iter()
            .enumerate()
            .map(|(s, site)| {
                if asked.contains(&(s as u32)) {
                    site.guarded_profile(now)
                } else {
                    crate::policy::Profile::empty(now, 0)
                }
            })
            .collect();
        let caps: Vec<u32> = self.sites.iter().map(|s| s.capacity).collect();
        let order = self.order(k);
        let answers = Answers {
            profiles: &profiles,
            capacities: &caps,
            order: &order,
        };
        let steps = match &mj.request {
            Request::Specified(p) => p.len() as i64,
            Request::General { max_sites, .. } => *max_sites as i64,
            Request::Single { .. } => 1,
        };
        let from = (now + SimTime(self.params.delay.0 * steps)).max(mj.earliest);
        if self.params.probe == Some(m) && self.probe.is_none() {
            self.record_probe(m, from);
        }
        let Some(plan) = select(&mj.request, &answers, mj.wallclock, from) else {
            self.meta[m as usize].status =
                MetaStatus::Rejected("no site (or set of sites) can ever hold it".into());
            return;
        };
        self.plans[m as usize] = Some(plan);
        if self.params.delay == SimTime::ZERO {
            self.reserve(m, 0);
        } else {
            self.events.push(now + self.params.delay, Ev::Reserve(m, 0));
        }
    }

    /// Every site's range list for metajob `m` now, from `from` on.
    fn record_probe(&mut self, m: u32, from: SimTime) {
        let now = self.now;
        let mj = self.metajob(m);
        let sites = (0..self.sites.len() as u32)
            .filter_map(|s| {
                let site = &self.sites[s as usize];
                let units = match &mj.request {
                    Request::Specified(parts) => parts.iter().find(|p| p.0 == s)?.1,
                    r => r.units().min(site.capacity),
                };
                let ranges = site.policy.range_list(
                    &site.view(now),
                    units,
                    mj.wallclock,
                    from,
                    SimTime::NEVER,
                );
                Some((s, units, ranges))
            })
            .collect();
        self.probe = Some(Probe {
            metajob: m,
            at: now,
            from,
            sites,
        });
    }

    /// Step 3 at one site (then the next, after the delay); on failure, release and back off.
    pub(super) fn reserve(&mut self, m: u32, step: u32) {
        let now = self.now;
        let Some(plan) = self.plans[m as usize].clone() else {
            return;
        };
        let mj = self.metajob(m).clone();
        let (s, units) = plan.parts[step as usize];
        let locked_out = self.params.courtesy.is_some()
            && self.locks[s as usize].is_some_and(|l| l.holder != mj.scheduler && l.until > now);
        let holder = self.holder(m);
        let site = &mut self.sites[s as usize];
        if locked_out || !site.can_reserve(now, plan.start, units, mj.wallclock) {
            return self.fail_round(m, &plan, step);
        }
        site.reserve(Reservation {
            start: plan.start,
            end: plan.start + mj.wallclock,
            units,
            holder,
        });
        self.meta[m as usize].reservations += 1;
        if step as usize + 1 < plan.parts.len() {
            if self.params.delay == SimTime::ZERO {
                self.reserve(m, step + 1);
            } else {
                self.events
                    .push(now + self.params.delay, Ev::Reserve(m, step + 1));
            }
            return;
        }
        // Step 4: every reservation made; the components start together at the start.
        self.unlock(mj.scheduler);
        self.events.push(plan.start, Ev::ComponentsStart(m));
    }

    /// The holder of metajob `m`'s reservations in its current round: rounds differ, so a
    /// release still travelling never removes a later round's reservation.
    fn holder(&self, m: u32) -> u64 {
        ((self.meta[m as usize].retries as u64) << 32) | m as u64
    }

    /// No hold-and-wait: every reservation of the round is released — the release messages
    /// take the query-to-reserve delay to arrive, so a competitor may collide with them too
    /// (SCJG Fig. 3) — and the metajob backs off before querying again.
    fn fail_round(&mut self, m: u32, plan: &Plan, failed_step: u32) {
        let now = self.now;
        let holder = self.holder(m);
        for &(s, _) in &plan.parts[..failed_step as usize] {
            self.meta[m as usize].releases += 1;
            if self.params.delay == SimTime::ZERO {
                self.sites[s as usize].release(holder);
                self.touched.push(s);
            } else {
                self.events
                    .push(now + self.params.delay, Ev::Release(s, holder));
            }
        }
        let k = self.metajob(m).scheduler;
        self.unlock(k);
        self.plans[m as usize] = None;
        let out = &mut self.meta[m as usize];
        out.retries += 1;
        let b = self.params.backoff;
        let n = out.retries.min(62) as i32 - 1;
        let ceiling = (b.base.0 as f64 * b.factor.powi(n)).min(b.cap.0 as f64);
        let wait = SimTime(((self.rngs[k as usize].uniform() * ceiling) as i64).max(1));
        out.history.push(FailedRound {
            at: now,
            start: plan.start,
            site: plan.parts[failed_step as usize].0,
            backoff: wait,
        });
        if out.retries > self.params.max_retries {
            out.status = MetaStatus::Failed;
            return;
        }
        out.backoff += wait;
        self.events.push(now + wait, Ev::Query(m));
    }

    fn unlock(&mut self, k: u32) {
        for lock in &mut self.locks {
            if lock.is_some_and(|l| l.holder == k) {
                *lock = None;
            }
        }
    }

    pub(super) fn start_components(&mut self, m: u32) -> Result<(), String> {
        let now = self.now;
        let plan = self.plans[m as usize]
            .clone()
            .ok_or_else(|| format!("metajob {m} started without a plan"))?;
        let mj = self.metajob(m).clone();
        let key = self.n_local + m;
        let holder = self.holder(m);
        for &(s, units) in &plan.parts {
            let site = &mut self.sites[s as usize];
            if site.release(holder).is_none() {
                return Err(format!(
                    "metajob {} started at site {s} without its reservation",
                    mj.id
                ));
            }
            if units > site.free {
                return Err(format!(
                    "rule 5 broken: metajob {}'s reservation at site {s} starts at {now} s with {} of its {units} units free",
                    mj.id, site.free
                ));
            }
            site.free -= units;
            site.running.insert((now + mj.wallclock, key), units);
            self.events
                .push(now + mj.runtime.min(mj.wallclock), Ev::End { site: s, key });
            self.touched.push(s);
        }
        self.meta[m as usize].status = MetaStatus::Ran {
            start: now,
            end: now + mj.runtime.min(mj.wallclock),
            parts: plan.parts,
        };
        Ok(())
    }
}
