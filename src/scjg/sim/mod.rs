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
//!
//! This file holds the loop, its events and the local jobs; `meta.rs` the metascheduler
//! protocol, `lockdown.rs` the lock-down baseline (its windows and block), `validate.rs`
//! what a run refuses before it starts.

use super::meta::Plan;
use super::site::Site;
use super::{
    invariants, LocalOutcome, Lockdown, MetaOutcome, MetaStatus, Mode, ScjgInput, ScjgOutput,
    ScjgParams,
};
use crate::engine::EventQueue;
use crate::model::JobIdx;
use crate::policy::local::QueuedJob;
use crate::rng::SimRng;
use crate::time::SimTime;

pub mod lockdown;
mod meta;
mod validate;

use lockdown::{Block, DAY, WINDOW_HOLDER};
use validate::validate;

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
