//! Conservative backfilling on a node-typed site (issues #37 and #41, docs/nodes.md): every
//! queued job holds a reservation of *particular nodes* (its shares of their cores, memory
//! and GPUs) from an instant on, and the job starts on exactly those nodes.
//!
//! Why nodes and not a count: a job cannot move between nodes while it runs, so room that
//! is free at every instant but on different nodes over time (node 0 now, node 1 from t) is
//! no room for it. The processor rule ([`super::Conservative`]) counts units and would
//! promise such a job a start no placement can keep. Here the plan is, per node, a step
//! function of what reservations and running jobs use ([`Line`]); a job fits from `t` when
//! first-fit places it on what every node has free throughout `[t, t + estimate)` (each
//! node's capacity less its peak use there). Its earliest start is now or an instant where
//! some node's use drops (a window's room only grows when a low point leaves its front),
//! so only those are tried, after a site-wide count of free cores ([`Profile`]) has ruled
//! out the ones where the cores are not there at all.
//!
//! Known maintenance windows (issue #41) are in the plan as the whole node used, so no
//! reservation overlaps one; a node down for a failure is used from now on with no end
//! (nobody knows when it is repaired) until it comes back and the plan is made again.
//!
//! Compression (Mu'alem & Feitelson; `conservative`): when a job ends before its estimate,
//! or is killed, the rest of its hold is given back and each queued job in arrival order
//! is taken out and put back at its earliest start before its reservation, on whatever
//! nodes first-fit finds there, or where it was. A reservation never moves later. The
//! rebuild variant (`conservative-rebuild`) re-places every queued job in arrival order
//! instead. Either makes the plan again from the running jobs when it cannot follow the
//! site (a job outlived its estimate, a node went down or came back, a reserved start found
//! its nodes still busy under a per-event order).
//!
//! On one node the rule is the processor rule exactly (a node's cores are interchangeable):
//! the integration test holds the two to the same schedules.
//!
//! Cost: a try builds what every node has free over the window (one binary search per node
//! with a plan) and walks first-fit, so a search costs nodes × tries, and compression
//! searches every queued job at every early end. Fine for queues of hundreds on hundreds
//! of nodes; the counting rule is far faster (docs/performance.md has both).

use std::collections::{BTreeMap, BTreeSet};

use super::nodefit::NodesView;
use super::{QueuedJob, SiteView};
use crate::model::fit::{first_fit_within, unit_mem, units_in};
use crate::model::{JobIdx, NodeFree, Share};
use crate::policy::Profile;
use crate::time::SimTime;
use line::{Line, Use};

mod line;

/// A queued job's reservation: its start and its shares of the nodes.
#[derive(Clone, Debug)]
struct Held {
    start: SimTime,
    shares: Vec<Share>,
}

#[derive(Clone, Debug)]
struct Entry {
    job: QueuedJob,
    /// `None` until placed; a start of `NEVER` (no shares) when no placement exists while a
    /// node is down (tried again when the plan is made again).
    held: Option<Held>,
    /// The freed-room stamp ([`NodeConservative::freed`]) when it was last placed or
    /// checked: every start before its reservation failed then.
    stamp: u64,
}

/// What the next pass must do first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
enum Pending {
    #[default]
    Nothing,
    /// Room was given back: compress (or, for the rebuild variant, make the plan again).
    Compress,
    /// The plan no longer follows the site: make it again from the running jobs.
    Rebuild,
}

/// Conservative backfilling's plan on nodes (module header).
#[derive(Debug)]
pub(crate) struct NodeConservative {
    /// Compression (`conservative`) or rebuild (`conservative-rebuild`) on early ends.
    compress: bool,
    /// Jobs by arrival key (requeued at the front: below every arrival).
    queue: BTreeMap<i64, Entry>,
    /// (reserved start, arrival key) of every placed job.
    by_start: BTreeSet<(SimTime, i64)>,
    lines: Vec<Line>,
    /// Cores used site-wide, as free cores over time: a try where they are short is not
    /// walked.
    cores: Profile,
    /// Instants at which some holder's use ends (with how many end there), after now: with
    /// now, the only instants a job's earliest start can be.
    ends: BTreeMap<SimTime, u32>,
    capacity: NodeFree,
    memory: bool,
    built: bool,
    pending: Pending,
    /// A notice came since the last pass (an engine's `plan_invalidated` without one means
    /// something changed that no hook told: make the plan again).
    noticed: bool,
    /// The instant of the last [`NodeConservative::released`], for the shares that follow.
    released_at: SimTime,
    next_key: i64,
    next_front: i64,
    /// The shares of this pass's starts, for the engine to take.
    chosen: Vec<(JobIdx, Vec<Share>)>,
    /// Room given back since the oldest stamp a queued job holds, as (stamp, from, to):
    /// the tail of a job that ended early, the old slot of a job that moved up, a
    /// withdrawn job's reservation. A job can move only to a start whose window overlaps
    /// room given back since it was last placed (before, every start before its
    /// reservation failed, and the plan has only lost room elsewhere), so compression
    /// searches only there (on a node-typed site the room need not be before its start:
    /// a node its first-fit did not take may be the one that was short).
    freed: Vec<(u64, SimTime, SimTime)>,
    stamp: u64,
    /// Scratch: what every node has free over a window, and the shares it lacks.
    free: NodeFree,
    used: Vec<Share>,
    probe: Vec<Share>,
    work: u64,
}

impl NodeConservative {
    pub(crate) fn new(compress: bool) -> NodeConservative {
        NodeConservative {
            compress,
            queue: BTreeMap::new(),
            by_start: BTreeSet::new(),
            lines: Vec::new(),
            cores: Profile::empty(SimTime::ZERO, 0),
            ends: BTreeMap::new(),
            capacity: NodeFree::default(),
            memory: false,
            built: false,
            pending: Pending::Nothing,
            noticed: false,
            released_at: SimTime::ZERO,
            next_key: 0,
            next_front: -1,
            chosen: Vec::new(),
            freed: Vec::new(),
            stamp: 0,
            free: NodeFree::default(),
            used: Vec::new(),
            probe: Vec::new(),
            work: 0,
        }
    }

    pub(crate) fn enqueue(&mut self, job: QueuedJob) {
        let stamp = self.stamp;
        self.queue.insert(
            self.next_key,
            Entry {
                job,
                held: None,
                stamp,
            },
        );
        self.next_key += 1;
    }

    /// A killed job requeued ahead of every waiting job: the plan is made again at the next
    /// pass (as the failure that killed it asks anyway), so that it is placed first.
    pub(crate) fn enqueue_front(&mut self, job: QueuedJob) {
        let stamp = self.stamp;
        self.queue.insert(
            self.next_front,
            Entry {
                job,
                held: None,
                stamp,
            },
        );
        self.next_front -= 1;
        self.notice(Pending::Rebuild);
    }

    pub(crate) fn queue_len(&self) -> usize {
        self.queue.len()
    }

    pub(crate) fn plan_work(&self) -> u64 {
        self.work
    }

    pub(crate) fn queued(&self) -> Vec<QueuedJob> {
        self.queue.values().map(|e| e.job).collect()
    }

    pub(crate) fn withdraw(&mut self, job: JobIdx) -> bool {
        let Some(key) = self
            .queue
            .iter()
            .find(|(_, e)| e.job.idx == job)
            .map(|(&k, _)| k)
        else {
            return false;
        };
        if let Some(e) = self.queue.remove(&key) {
            if let Some(h) = e.held {
                self.by_start.remove(&(h.start, key));
                let end = h.start.after(e.job.estimate);
                self.unhold(h.start, end, &h.shares);
                self.log_freed(h.start, end);
            }
        }
        self.notice(Pending::Compress);
        true
    }

    pub(crate) fn released(&mut self, now: SimTime) {
        self.released_at = now;
    }

    /// A running job planned until `predicted_end` gave `shares` back at the instant of the
    /// last [`NodeConservative::released`].
    pub(crate) fn released_nodes(&mut self, predicted_end: SimTime, shares: &[Share]) {
        let now = self.released_at;
        if predicted_end > now {
            self.unhold(now, predicted_end, shares);
            self.log_freed(now, predicted_end);
            self.notice(Pending::Compress);
        } else if self.compress {
            // pyss compresses at every termination: a job moved up in an earlier pass may
            // have left room before a job the pass had already visited.
            self.notice(Pending::Compress);
        }
    }

    /// The site changed in a way no hold describes (an overrun, a node down or back).
    pub(crate) fn replan(&mut self) {
        self.notice(Pending::Rebuild);
    }

    fn log_freed(&mut self, from: SimTime, to: SimTime) {
        self.stamp += 1;
        self.freed.push((self.stamp, from, to));
    }

    fn notice(&mut self, what: Pending) {
        self.noticed = true;
        self.pending = self.pending.max(what);
    }

    /// The nodes the last pass chose for job `idx`, which it started.
    pub(crate) fn chosen_nodes(&mut self, idx: JobIdx, out: &mut Vec<Share>) -> bool {
        match self.chosen.iter().position(|c| c.0 == idx) {
            Some(i) => {
                let (_, shares) = self.chosen.swap_remove(i);
                out.clear();
                out.extend_from_slice(&shares);
                true
            }
            None => false,
        }
    }

    pub(crate) fn schedule(
        &mut self,
        site: &SiteView,
        nodes: &NodesView,
        starts: &mut Vec<JobIdx>,
    ) {
        let now = site.now;
        self.chosen.clear();
        let rebuild = !self.built
            || self.pending == Pending::Rebuild
            || (self.pending == Pending::Compress && !self.compress)
            || (site.plan_invalidated && !self.noticed);
        if rebuild {
            self.rebuild(site, nodes);
        } else {
            for line in &mut self.lines {
                line.forget_before(now);
            }
            self.cores.forget_before(now);
            self.ends = self.ends.split_off(&SimTime(now.0.saturating_add(1)));
            if self.pending == Pending::Compress {
                self.compress(now, nodes);
            }
            let newcomers: Vec<i64> = self
                .queue
                .iter()
                .filter(|(_, e)| e.held.is_none())
                .map(|(&k, _)| k)
                .collect();
            for key in newcomers {
                self.place(key, (now, now), SimTime::NEVER, nodes);
            }
        }
        self.pending = Pending::Nothing;
        self.noticed = false;
        self.start_due(site, nodes, starts);
    }

    /// The plan made again: the running jobs until their predicted ends, the maintenance
    /// windows still to come, the nodes down now, then every queued job in arrival order.
    fn rebuild(&mut self, site: &SiteView, nodes: &NodesView) {
        let now = site.now;
        let pool = nodes.pool;
        self.capacity = pool.capacity.clone();
        self.memory = pool.tracks_memory;
        self.lines = vec![Line::default(); pool.len()];
        let total: u64 = self.capacity.cores.iter().map(|&c| u64::from(c)).sum();
        // The site's units are its cores, or fewer under a power cap (`engine::sim::cap`):
        // the site-wide count plans within them.
        let total = total.min(u64::from(site.capacity));
        self.cores = Profile::empty(now, u32::try_from(total).unwrap_or(u32::MAX));
        self.ends.clear();
        self.by_start.clear();
        self.built = true;
        let mut running_cores = vec![0u32; pool.len()];
        for &(end, idx) in site.running.keys() {
            let shares = nodes.placements.of(idx as usize);
            for s in shares {
                if let Some(c) = running_cores.get_mut(s.node as usize) {
                    *c += s.cores;
                }
            }
            self.hold(now, end, shares);
        }
        let maintenance = pool.maintenance.as_ref();
        if let Some(m) = maintenance {
            for (node, start, end) in m.open_after(now) {
                self.hold_whole(node as usize, start.max(now), end);
            }
        }
        // Cores held that no running job holds: the node is down (whole, its jobs killed),
        // in maintenance (its window holds it) or failed (no end known).
        let free = pool.free();
        let down: Vec<usize> = running_cores
            .iter()
            .enumerate()
            .filter(|&(n, &running)| {
                let held = self.capacity.cores[n] - free.cores[n];
                let in_maintenance =
                    maintenance.is_some_and(|m| m.overlaps(n, now, now + SimTime(1)));
                held > running && !in_maintenance
            })
            .map(|(n, _)| n)
            .collect();
        for n in down {
            self.hold_whole(n, now, SimTime::NEVER);
        }
        let keys: Vec<i64> = self.queue.keys().copied().collect();
        for key in keys {
            if let Some(e) = self.queue.get_mut(&key) {
                e.held = None;
            }
            self.place(key, (now, now), SimTime::NEVER, nodes);
        }
    }

    /// Compression: each queued job in arrival order moves to its earliest start before
    /// its reservation, if there is one.
    fn compress(&mut self, now: SimTime, nodes: &NodesView) {
        // Room given back before every queued job was last placed helps none of them.
        let oldest = self
            .queue
            .values()
            .map(|e| e.stamp)
            .min()
            .unwrap_or(self.stamp);
        self.freed.retain(|f| f.0 > oldest);
        let keys: Vec<i64> = self.queue.keys().copied().collect();
        for key in keys {
            self.work += 1;
            let Some(e) = self.queue.get_mut(&key) else {
                continue;
            };
            let (stamp, estimate, job) = (e.stamp, e.job.estimate, e.job);
            e.stamp = self.stamp;
            let Some(h) = e.held.take() else {
                continue;
            };
            // The starts whose windows reach room given back since: after
            // `from − estimate`, before the last instant given back.
            let i = self.freed.partition_point(|f| f.0 <= stamp);
            let reach = self.freed[i..]
                .iter()
                .fold(None, |r, &(_, from, to)| match r {
                    None => Some((from, to)),
                    Some((lo, hi)) => Some((from.min(lo), to.max(hi))),
                });
            // First-fit of a job with GPUs or a node count is not monotone in the room
            // (cores found sooner can leave GPUs unvisited): less room elsewhere may let it
            // in, so it is searched over every start before its reservation.
            let monotone = unit_mem(self.memory, job.units, &nodes.demand(job.idx)).is_some();
            let reach = match monotone {
                true => reach,
                false => Some((SimTime(now.0.saturating_add(estimate.0)), SimTime::NEVER)),
            };
            let range = reach
                .filter(|_| h.start > now && h.start != SimTime::NEVER)
                .map(|(lo, hi)| {
                    (
                        SimTime(lo.0.saturating_sub(estimate.0)).max(now),
                        h.start.min(hi),
                    )
                })
                .filter(|(from, before)| from < before);
            let Some((from, before)) = range else {
                if let Some(e) = self.queue.get_mut(&key) {
                    e.held = Some(h);
                }
                continue;
            };
            let end = h.start.after(estimate);
            self.unhold(h.start, end, &h.shares);
            self.by_start.remove(&(h.start, key));
            if self.place(key, (now, from), before, nodes) {
                self.log_freed(h.start, end);
            } else {
                self.hold(h.start, end, &h.shares);
                self.by_start.insert((h.start, key));
                if let Some(e) = self.queue.get_mut(&key) {
                    e.held = Some(h);
                }
            }
        }
    }

    /// Places job `key` at its earliest start from `from` (not before `now`) before
    /// `before` and holds it there; false (leaving it unplaced) when there is none. A job
    /// with no start at all (`before` = `NEVER`) is kept with a start of `NEVER`.
    fn place(
        &mut self,
        key: i64,
        (now, from): (SimTime, SimTime),
        before: SimTime,
        nodes: &NodesView,
    ) -> bool {
        let Some(job) = self.queue.get(&key).map(|e| e.job) else {
            return false;
        };
        let found = self.earliest((now, from), before, &job, nodes);
        let held = match found {
            Some(start) => {
                let shares = std::mem::take(&mut self.probe);
                self.hold(start, start.after(job.estimate), &shares);
                self.by_start.insert((start, key));
                Held { start, shares }
            }
            None if before == SimTime::NEVER => Held {
                start: SimTime::NEVER,
                shares: Vec::new(),
            },
            None => return false,
        };
        let stamp = self.stamp;
        if let Some(e) = self.queue.get_mut(&key) {
            e.held = Some(held);
            e.stamp = stamp;
        }
        true
    }

    /// The earliest instant from `now`, before `before`, at which first-fit places `job` on
    /// what the nodes have free throughout its estimate; its shares are left in `probe`.
    fn earliest(
        &mut self,
        (now, from): (SimTime, SimTime),
        before: SimTime,
        job: &QueuedJob,
        nodes: &NodesView,
    ) -> Option<SimTime> {
        let demand = nodes.demand(job.idx);
        // On a node-typed site a job's units are its processors (cores).
        let procs = job.units;
        let monotone = unit_mem(self.memory, procs, &demand).is_some();
        let estimate = job.estimate;
        let mut from = from;
        loop {
            let t = self.cores.earliest_start(from, procs, estimate)?;
            // The first instant a window's room can grow at, at or after `t`.
            let try_at = match t <= now {
                true => now,
                false => *self.ends.range(t..).next()?.0,
            };
            if try_at >= before {
                return None;
            }
            if try_at != t && !self.cores.fits_at(try_at, procs, estimate) {
                from = try_at;
                continue;
            }
            let next = SimTime(try_at.0.saturating_add(1));
            match self.fits_at(try_at, estimate, procs, &demand) {
                Ok(()) => return Some(try_at),
                // A job of units only fits where the nodes hold its units in all, so no
                // start fits before some node's room grows.
                Err(rise) if monotone => from = rise.max(next),
                Err(_) => from = next,
            }
        }
    }

    /// True when first-fit places `procs` × `demand` on what every node has free during
    /// `[at, at + estimate)`; the shares go to `probe`. Otherwise the first instant after
    /// `at` a window can find more of some resource free on some node ([`Line::peak`]).
    fn fits_at(
        &mut self,
        at: SimTime,
        estimate: SimTime,
        procs: u32,
        demand: &crate::model::Demand,
    ) -> Result<(), SimTime> {
        let end = at.after(estimate);
        // The walk of units below is first fit's (node order); best fit sorts the nodes.
        let unit = unit_mem(self.memory, procs, demand);
        if let Some(m) = unit.filter(|_| self.capacity.rule().is_first_fit()) {
            return self.fits_units_at(at, end, procs, m);
        }
        self.free.clone_from(&self.capacity);
        let used = &mut self.used;
        used.clear();
        let mut rise = SimTime::NEVER;
        for (n, line) in self.lines.iter().enumerate() {
            if line.steps.is_empty() {
                continue;
            }
            let (u, grows) = line.peak(at, end);
            rise = rise.min(grows);
            if u != Use::default() {
                used.push(Share {
                    node: n as u32,
                    cores: u.cores.min(self.capacity.cores[n]),
                    mem_kb: u.mem_kb.min(self.capacity.mem_kb[n]),
                    gpus: u.gpus.min(self.capacity.gpus[n]),
                });
            }
        }
        self.free.take(used);
        self.work += self.lines.len() as u64;
        first_fit_within(
            &self.free,
            self.memory,
            procs,
            demand,
            None,
            &mut self.probe,
        )
        .map_err(|_| rise)
    }

    /// [`NodeConservative::fits_at`] for a job of units (no GPUs, no node count) of `m` KB
    /// each: first-fit's own walk (each node in order takes as many of the units left as
    /// it holds free throughout the window, `place_units`) over the nodes' peaks, which
    /// stops at the node that completes the job — the same shares, without reading the
    /// plans of the nodes after it. A failure reads them all, for the instant some node's
    /// room grows.
    fn fits_units_at(
        &mut self,
        at: SimTime,
        end: SimTime,
        procs: u32,
        m: u64,
    ) -> Result<(), SimTime> {
        self.probe.clear();
        let mut left = procs;
        if left == 0 {
            return Ok(());
        }
        let mut rise = SimTime::NEVER;
        let cap = &self.capacity;
        for (n, line) in self.lines.iter().enumerate() {
            let (u, grows) = match line.steps.is_empty() {
                true => (Use::default(), SimTime::NEVER),
                false => line.peak(at, end),
            };
            rise = rise.min(grows);
            let cores = cap.cores[n] - u.cores.min(cap.cores[n]);
            let mem_kb = cap.mem_kb[n] - u.mem_kb.min(cap.mem_kb[n]);
            let k = units_in(cores, mem_kb, m).min(left);
            if k == 0 {
                continue;
            }
            left -= k;
            self.probe.push(Share {
                node: n as u32,
                cores: k,
                mem_kb: m * u64::from(k),
                gpus: 0,
            });
            if left == 0 {
                self.work += n as u64 + 1;
                return Ok(());
            }
        }
        self.work += self.lines.len() as u64;
        self.probe.clear();
        Err(rise)
    }

    /// A holder of `shares` during `[from, to)`.
    fn hold(&mut self, from: SimTime, to: SimTime, shares: &[Share]) {
        if to <= from {
            return;
        }
        let cores = self.change_lines(from, to, shares, true);
        self.cores.reserve(from, to - from, cores);
        if to != SimTime::NEVER {
            *self.ends.entry(to).or_insert(0) += 1;
        }
    }

    /// Adds (`hold`) or takes away `shares` on their nodes' plans during `[from, to)`; the
    /// cores they count, for the site-wide count.
    fn change_lines(&mut self, from: SimTime, to: SimTime, shares: &[Share], hold: bool) -> u32 {
        let mut cores = 0u32;
        for s in shares {
            if let Some(line) = self.lines.get_mut(s.node as usize) {
                line.change(from, to, s, hold);
                cores += s.cores;
            }
        }
        cores
    }

    /// Gives back what [`NodeConservative::hold`] held (or its part from `from` on).
    fn unhold(&mut self, from: SimTime, to: SimTime, shares: &[Share]) {
        if to <= from {
            return;
        }
        let cores = self.change_lines(from, to, shares, false);
        self.cores.release(from, to - from, cores);
        if let Some(count) = self.ends.get_mut(&to) {
            *count -= 1;
            if *count == 0 {
                self.ends.remove(&to);
            }
        }
    }

    /// All of node `n` during `[from, to)` (a maintenance window, a node down). A node
    /// may already hold a job there (one that outlived its estimate): the site-wide count
    /// takes only the cores still free, so it never goes below zero.
    fn hold_whole(&mut self, n: usize, from: SimTime, to: SimTime) {
        if to <= from || n >= self.lines.len() {
            return;
        }
        let whole = Share {
            node: n as u32,
            cores: self.capacity.cores[n],
            mem_kb: self.capacity.mem_kb[n],
            gpus: self.capacity.gpus[n],
        };
        self.lines[n].change(from, to, &whole, true);
        let room = self.cores.min_free(from, to - from).min(whole.cores);
        self.cores.reserve(from, to - from, room);
        if to != SimTime::NEVER {
            *self.ends.entry(to).or_insert(0) += 1;
        }
    }

    /// Starts every job whose reservation has come, on its nodes. One whose nodes are not
    /// all free yet (a job predicted to end now not yet ended, under a per-event order)
    /// waits, and the plan is made again at the next pass.
    fn start_due(&mut self, site: &SiteView, nodes: &NodesView, starts: &mut Vec<JobIdx>) {
        let now = site.now;
        let due: Vec<(SimTime, i64)> = self.by_start.range(..=(now, i64::MAX)).copied().collect();
        if due.is_empty() {
            return;
        }
        let mut free = nodes.pool.free().clone();
        for (start, key) in due {
            let Some(e) = self.queue.get(&key) else {
                continue;
            };
            let Some(h) = &e.held else { continue };
            let fits = h.shares.iter().all(|s| {
                let n = s.node as usize;
                free.cores[n] >= s.cores && free.mem_kb[n] >= s.mem_kb && free.gpus[n] >= s.gpus
            });
            if !fits {
                self.pending = Pending::Rebuild;
                continue;
            }
            if start < now {
                // Held from its reservation's start, it runs from now: the plan is off.
                self.pending = Pending::Rebuild;
            }
            free.take(&h.shares);
            starts.push(e.job.idx);
            self.chosen.push((e.job.idx, h.shares.clone()));
            self.by_start.remove(&(start, key));
            self.queue.remove(&key);
        }
    }
}

/// `start + estimate`, held at `NEVER` (a start of `NEVER` is a job with no start).
trait After {
    fn after(self, d: SimTime) -> SimTime;
}

impl After for SimTime {
    fn after(self, d: SimTime) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
}

#[cfg(test)]
mod tests;
