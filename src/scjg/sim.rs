//! SCJG's event loop: local jobs on their sites, metajobs through the metascheduler(s) by
//! advance reservations (or through the lock-down block).
//!
//! # Order at one instant
//! Events due at `t` are handled in rounds; within a round by class, then `(time, seq)`:
//! 1. ends (local jobs, metajob components, block metajobs) release their units;
//! 2. lock-down windows that close give their units back to local jobs;
//! 3. metajob components whose reservation starts now start — all components of a
//!    metajob at this one instant (rule 5);
//! 4. windows that open start block metajobs;
//! 5. metascheduler steps: submissions, queries (with selection) and reservations;
//! 6. local submissions join their site's queue, in input order.
//!
//! Events created at `t` by a round (a reservation starting now, a zero-length job) run in
//! the next round at `t`. Then one scheduling pass runs on every site touched, in site
//! order. So a component starts on units released at its very start, and a metajob
//! submitted at `t` queries before the local jobs of `t` are queued.

use super::lockdown::{Block, WINDOW_HOLDER};
use super::meta::{self, Answers, Plan};
use super::site::Site;
use super::{
    invariants, FailedRound, LocalOutcome, Lockdown, MetaOutcome, MetaStatus, Metajob, Mode,
    Request, ScjgInput, ScjgOutput, ScjgParams, SiteOrder,
};
use crate::engine::EventQueue;
use crate::model::JobIdx;
use crate::policy::local::{QueuedJob, Reservation};
use crate::rng::SimRng;
use crate::time::SimTime;

const DAY: SimTime = SimTime::from_secs(86_400);

#[derive(Clone, Copy, Debug)]
enum Ev {
    End {
        site: u32,
        key: JobIdx,
    },
    BlockEnd(u32),
    WindowClose(i64),
    ComponentsStart(u32),
    WindowOpen,
    MetaSubmit(u32),
    Query(u32),
    Reserve(u32, u32),
    /// A release message reaching a site: `(site, holder)`.
    Release(u32, u64),
    LocalSubmit {
        site: u32,
        job: u32,
    },
}

impl Ev {
    fn class(&self) -> u8 {
        match self {
            Ev::End { .. } | Ev::BlockEnd(_) => 0,
            Ev::WindowClose(_) => 1,
            Ev::ComponentsStart(_) => 2,
            Ev::WindowOpen => 3,
            Ev::MetaSubmit(_) | Ev::Query(_) | Ev::Reserve(..) | Ev::Release(..) => 4,
            Ev::LocalSubmit { .. } => 5,
        }
    }
}

/// A courtesy lock: which metascheduler holds a site's reservation state, until when.
#[derive(Clone, Copy, Debug)]
struct Lock {
    holder: u32,
    until: SimTime,
}

struct Run<'a> {
    input: ScjgInput<'a>,
    params: ScjgParams,
    sites: Vec<Site>,
    /// Key of each site's first local job; components are keyed `n_local + metajob`.
    offsets: Vec<u32>,
    n_local: u32,
    events: EventQueue<Ev>,
    now: SimTime,
    local: Vec<Vec<LocalOutcome>>,
    meta: Vec<MetaOutcome>,
    plans: Vec<Option<Plan>>,
    locks: Vec<Option<Lock>>,
    rngs: Vec<SimRng>,
    block: Option<(Lockdown, Block)>,
    windows: Vec<(SimTime, SimTime)>,
    /// Days of lock-down windows created so far, and how many days ahead to create them.
    next_day: i64,
    lookahead_days: i64,
    local_submits_left: usize,
    probe: Option<super::Probe>,
    touched: Vec<u32>,
    starts: Vec<JobIdx>,
    handled: u64,
    released_tail: u128,
}

/// Runs SCJG's model: every site's local jobs under its policy, every metajob through its
/// metascheduler (or the lock-down block). The result's invariants have been checked.
pub fn simulate(input: ScjgInput, params: &ScjgParams) -> Result<ScjgOutput, String> {
    validate(&input, params)?;
    let mut run = Run::new(input, params);
    run.seed_events();
    while let Some(t) = run.events.peek_time() {
        run.now = t;
        run.instant()?;
    }
    run.finish()
}

fn validate(input: &ScjgInput, params: &ScjgParams) -> Result<(), String> {
    if input.sites.is_empty() {
        return Err("an SCJG run needs at least one site".into());
    }
    if input.local.len() != input.sites.len() {
        return Err("one local workload per site is needed".into());
    }
    if params.metaschedulers == 0 {
        return Err("at least one metascheduler is needed".into());
    }
    if let Some(s) = input.sites.iter().find(|s| s.units == 0) {
        return Err(format!("site {} has no units", s.name));
    }
    if !(params.backoff.factor.is_finite() && params.backoff.factor >= 1.0) {
        return Err("the back-off factor must be a finite number ≥ 1".into());
    }
    if params.delay < SimTime::ZERO || params.backoff.base <= SimTime::ZERO {
        return Err("the query-to-reserve delay must be ≥ 0 and the back-off base > 0".into());
    }
    if let Mode::Lockdown(l) = params.mode {
        l.validate(input.sites[0].units)?;
    }
    for (s, jobs) in input.local.iter().enumerate() {
        if jobs.windows(2).any(|w| w[1].submit < w[0].submit) {
            return Err(format!(
                "site {}'s jobs are not sorted by submit time",
                input.sites[s].name
            ));
        }
    }
    if input.metajobs.windows(2).any(|w| w[1].submit < w[0].submit) {
        return Err("metajobs are not sorted by submit time".into());
    }
    if let Some(m) = input
        .metajobs
        .iter()
        .find(|m| m.scheduler >= params.metaschedulers)
    {
        return Err(format!(
            "metajob {} names metascheduler {} of {}",
            m.id, m.scheduler, params.metaschedulers
        ));
    }
    let total: usize = input.local.iter().map(|j| j.len()).sum::<usize>() + input.metajobs.len();
    if total >= u32::MAX as usize / 2 {
        return Err(format!("{total} jobs are too many for one run"));
    }
    Ok(())
}

impl<'a> Run<'a> {
    fn new(input: ScjgInput<'a>, params: &ScjgParams) -> Run<'a> {
        let sites = input
            .sites
            .iter()
            .map(|s| Site::new(s.units, s.policy))
            .collect();
        let mut offsets = Vec::new();
        let mut n_local = 0u32;
        for jobs in input.local {
            offsets.push(n_local);
            n_local += jobs.len() as u32;
        }
        let local = input
            .local
            .iter()
            .map(|jobs| vec![LocalOutcome::PENDING; jobs.len()])
            .collect();
        let n_meta = input.metajobs.len();
        let rngs = (0..params.metaschedulers as u64)
            .map(|k| {
                SimRng::new(
                    params
                        .seed
                        .wrapping_add(k.wrapping_mul(0x9E37_79B9_7F4A_7C15)),
                )
            })
            .collect();
        let block = match params.mode {
            Mode::Lockdown(l) => Some((
                l,
                Block {
                    free: l.units,
                    ..Block::default()
                },
            )),
            Mode::Reservations => None,
        };
        let longest = input.local[0]
            .iter()
            .map(|j| j.estimate)
            .max()
            .unwrap_or(SimTime::ZERO);
        Run {
            locks: vec![None; input.sites.len()],
            local_submits_left: n_local as usize,
            input,
            params: *params,
            sites,
            offsets,
            n_local,
            events: EventQueue::default(),
            now: SimTime::ZERO,
            local,
            meta: vec![MetaOutcome::default(); n_meta],
            plans: vec![None; n_meta],
            rngs,
            block,
            windows: Vec::new(),
            next_day: 0,
            lookahead_days: longest.0 / DAY.0 + 2,
            probe: None,
            touched: Vec::new(),
            starts: Vec::new(),
            handled: 0,
            released_tail: 0,
        }
    }

    fn seed_events(&mut self) {
        for (s, jobs) in self.input.local.iter().enumerate() {
            for (j, job) in jobs.iter().enumerate() {
                self.events.push(
                    job.submit,
                    Ev::LocalSubmit {
                        site: s as u32,
                        job: j as u32,
                    },
                );
            }
        }
        for (m, mj) in self.input.metajobs.iter().enumerate() {
            self.events.push(mj.submit, Ev::MetaSubmit(m as u32));
        }
        if self.block.is_some() {
            let first = self
                .input
                .local
                .iter()
                .filter_map(|j| j.first().map(|j| j.submit))
                .chain(self.input.metajobs.first().map(|m| m.submit))
                .min()
                .unwrap_or(SimTime::ZERO);
            self.next_day = (first.0.div_euclid(DAY.0) - 1).max(i64::MIN / DAY.0 / 4);
            self.add_windows(self.next_day + self.lookahead_days);
        }
    }

    /// One instant: rounds of events, then the scheduling passes.
    fn instant(&mut self) -> Result<(), String> {
        let now = self.now;
        let mut round = Vec::new();
        loop {
            round.clear();
            while let Some((_, ev)) = self.events.pop_until(now) {
                round.push(ev);
            }
            if round.is_empty() {
                break;
            }
            self.handled += round.len() as u64;
            round.sort_by_key(Ev::class);
            for &ev in &round {
                self.handle(ev)?;
            }
        }
        let mut touched = std::mem::take(&mut self.touched);
        touched.sort_unstable();
        touched.dedup();
        for &s in &touched {
            self.pass(s)?;
        }
        touched.clear();
        self.touched = touched;
        Ok(())
    }

    fn handle(&mut self, ev: Ev) -> Result<(), String> {
        match ev {
            Ev::End { site, key } => self.end(site, key),
            Ev::BlockEnd(m) => {
                self.block_end(m);
                Ok(())
            }
            Ev::WindowClose(day) => {
                self.sites[0].release(WINDOW_HOLDER + day as u64);
                self.touched.push(0);
                Ok(())
            }
            Ev::ComponentsStart(m) => self.start_components(m),
            Ev::WindowOpen => {
                if self.work_remains() {
                    self.add_windows(self.next_day + 1);
                }
                self.try_block();
                Ok(())
            }
            Ev::MetaSubmit(m) => {
                self.meta_submit(m);
                Ok(())
            }
            Ev::Query(m) => {
                self.query(m);
                Ok(())
            }
            Ev::Reserve(m, step) => {
                self.reserve(m, step);
                Ok(())
            }
            Ev::Release(site, holder) => {
                if self.sites[site as usize].release(holder).is_some() {
                    self.touched.push(site);
                }
                Ok(())
            }
            Ev::LocalSubmit { site, job } => {
                self.local_submit(site, job);
                Ok(())
            }
        }
    }

    fn local_submit(&mut self, s: u32, j: u32) {
        self.local_submits_left -= 1;
        let job = &self.input.local[s as usize][j as usize];
        let capacity = self.sites[s as usize].capacity;
        let blocked = match (s, self.block.as_ref()) {
            // Needing the block's units and longer than the gap between windows: never.
            (0, Some((l, _))) => job.procs > capacity - l.units && job.estimate > DAY - l.length(),
            _ => false,
        };
        if job.procs > capacity || blocked {
            self.local[s as usize][j as usize] = LocalOutcome {
                start: None,
                end: SimTime::NEVER,
                killed: false,
            };
            return;
        }
        let q = QueuedJob {
            idx: self.offsets[s as usize] + j,
            units: job.procs,
            estimate: job.estimate,
            queued_at: self.now,
        };
        self.sites[s as usize].enqueue(q, self.now);
        self.touched.push(s);
    }

    /// Local jobs the site's policy starts now.
    fn pass(&mut self, s: u32) -> Result<(), String> {
        let now = self.now;
        let mut starts = std::mem::take(&mut self.starts);
        starts.clear();
        let site = &mut self.sites[s as usize];
        site.schedule(now, &mut starts);
        for &key in &starts {
            let j = (key - self.offsets[s as usize]) as usize;
            let job = &self.input.local[s as usize][j];
            if job.procs > site.free {
                return Err(format!(
                    "policy {} started job {} needing {} units with {} free at {now} s",
                    site.policy.name(),
                    job.id,
                    job.procs,
                    site.free
                ));
            }
            site.free -= job.procs;
            site.running.insert((now + job.estimate, key), job.procs);
            let run = job.runtime.min(job.estimate).max(SimTime::ZERO);
            self.local[s as usize][j] = LocalOutcome {
                start: Some(now),
                end: now + run,
                killed: job.runtime > job.estimate,
            };
            self.events.push(now + run, Ev::End { site: s, key });
        }
        self.starts = starts;
        Ok(())
    }

    fn end(&mut self, s: u32, key: JobIdx) -> Result<(), String> {
        let now = self.now;
        let predicted = if key < self.n_local {
            let j = (key - self.offsets[s as usize]) as usize;
            let start = self.local[s as usize][j].start.unwrap_or(now);
            start + self.input.local[s as usize][j].estimate
        } else {
            let m = (key - self.n_local) as usize;
            let start = match &self.meta[m].status {
                MetaStatus::Ran { start, .. } => *start,
                _ => now,
            };
            start + self.input.metajobs[m].wallclock
        };
        let site = &mut self.sites[s as usize];
        let units = site
            .running
            .remove(&(predicted, key))
            .ok_or_else(|| format!("job key {key} ended at site {s} but was not running"))?;
        site.free += units;
        site.policy.released(now, units, predicted);
        if now < predicted {
            site.plan_invalidated = true;
            if key >= self.n_local {
                self.released_tail += units as u128 * (predicted - now).0 as u128;
            }
        }
        self.touched.push(s);
        Ok(())
    }
}

/// Metajobs: the metascheduler's steps and the lock-down block.
impl Run<'_> {
    fn metajob(&self, m: u32) -> &Metajob {
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

    fn meta_submit(&mut self, m: u32) {
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
    fn query(&mut self, m: u32) {
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
        let Some(plan) = meta::select(&mj.request, &answers, mj.wallclock, from) else {
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
        self.probe = Some(super::Probe {
            metajob: m,
            at: now,
            from,
            sites,
        });
    }

    /// Step 3 at one site (then the next, after the delay); on failure, release and back off.
    fn reserve(&mut self, m: u32, step: u32) {
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

    fn start_components(&mut self, m: u32) -> Result<(), String> {
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

/// The lock-down block.
impl Run<'_> {
    /// Creates lock-down windows through day `last` (reservations at site 0 and events).
    fn add_windows(&mut self, last: i64) {
        let Some((l, _)) = self.block.as_ref() else {
            return;
        };
        let l = *l;
        while self.next_day <= last {
            let day = self.next_day;
            let (open, close) = l.window(day);
            self.sites[0].reserve(l.reservation(day));
            self.windows.push((open, close));
            self.events.push(open, Ev::WindowOpen);
            self.events.push(close, Ev::WindowClose(day));
            self.next_day += 1;
        }
    }

    fn work_remains(&self) -> bool {
        self.local_submits_left > 0
            || self.meta.iter().any(|m| m.status == MetaStatus::Waiting)
            || self
                .sites
                .iter()
                .any(|s| !s.running.is_empty() || s.policy.queue_len() > 0)
    }

    /// Starts the block's waiting metajobs if a window is open now.
    fn try_block(&mut self) {
        let now = self.now;
        let Some((l, block)) = self.block.as_mut() else {
            return;
        };
        let day = now.0.div_euclid(DAY.0);
        let Some((_, close)) = [day, day - 1]
            .into_iter()
            .map(|d| l.window(d))
            .find(|&(a, b)| a <= now && now < b)
        else {
            return;
        };
        let metajobs = self.input.metajobs;
        let started = block.start_now(now, close, |m| {
            let mj = &metajobs[m as usize];
            (mj.request.units(), mj.wallclock)
        });
        for m in started {
            let mj = &metajobs[m as usize];
            let end = now + mj.runtime.min(mj.wallclock);
            self.meta[m as usize].status = MetaStatus::Ran {
                start: now,
                end,
                parts: vec![(0, mj.request.units())],
            };
            self.events.push(end, Ev::BlockEnd(m));
        }
    }

    fn block_end(&mut self, m: u32) {
        let units = self.metajob(m).request.units();
        if let Some((_, block)) = self.block.as_mut() {
            block.free += units;
        }
        self.try_block();
    }

    fn finish(self) -> Result<ScjgOutput, String> {
        for (s, site) in self.sites.iter().enumerate() {
            if site.policy.queue_len() > 0 || !site.running.is_empty() {
                return Err(format!(
                    "site {} ended the run with {} jobs queued and {} running",
                    self.input.sites[s].name,
                    site.policy.queue_len(),
                    site.running.len()
                ));
            }
        }
        let out = ScjgOutput {
            local: self.local,
            meta: self.meta,
            windows: self.windows,
            released_tail: self.released_tail,
            events: self.handled,
            probe: self.probe,
        };
        invariants::check(&self.input, &self.params, &out)?;
        Ok(out)
    }
}
