//! A plan of a node-typed site's nodes over time (issues #37, #41, #42): per node, a step
//! function of what running jobs, reservations, maintenance windows and down nodes use
//! ([`Line`]), and the earliest instant at which first-fit (or best fit, the site's rule)
//! places a job on what every node has free throughout its estimate.
//!
//! Why nodes and not a count: a job cannot move between nodes while it runs, so room that
//! is free at every instant but on different nodes over time (node 0 now, node 1 from t) is
//! no room for it. A count of units would promise such a job a start no placement can keep.
//! A job's earliest start is now or an instant where some node's use drops (a window's room
//! only grows when a low point leaves its front), so only those are tried, after a
//! site-wide count of free cores ([`Profile`]) has ruled out the ones where the cores are
//! not there at all.
//!
//! Used by conservative backfilling on nodes ([`super::conservative_nodes`], which keeps
//! one plan and edits it) and by Slurm's backfill on nodes ([`super::Slurm`], which makes
//! one at each pass, as Slurm's backfill does).

use std::collections::BTreeMap;

use super::nodefit::NodesView;
use super::{QueuedJob, SiteView};
use crate::model::fit::{first_fit_within, unit_mem, units_in};
use crate::model::{NodeFree, Share};
use crate::policy::Profile;
use crate::time::SimTime;
use full::FullNodes;
use line::{Line, Use};

mod full;
mod line;

/// The plan of a node-typed site's nodes (module header).
#[derive(Debug)]
pub(crate) struct NodePlan {
    lines: Vec<Line>,
    /// Cores used site-wide, as free cores over time: a try where they are short is not
    /// walked.
    cores: Profile,
    /// Instants at which some holder's use ends (with how many end there), after now: with
    /// now, the only instants a job's earliest start can be.
    ends: BTreeMap<SimTime, u32>,
    capacity: NodeFree,
    memory: bool,
    /// The nodes whose cores are all held, over time: a walk skips them. Kept only when
    /// `skip_full` (a plan made afresh at each pass, Slurm's); conservative's long-lived
    /// plan edits its lines millions of times and walks past runs of full nodes too
    /// rarely for the tree to pay (HPC2N: 20.5 s without, 30 s with it).
    full: FullNodes,
    skip_full: bool,
    /// Building: the tree of full nodes is made once at the end, not at every hold.
    building: bool,
    /// Scratch: what every node has free over a window, and the shares it lacks.
    free: NodeFree,
    used: Vec<Share>,
    /// The shares the last successful [`NodePlan::earliest`] found.
    probe: Vec<Share>,
    /// Nodes read so far ([`super::LocalPolicy::plan_work`]).
    pub(crate) work: u64,
}

impl Default for NodePlan {
    fn default() -> NodePlan {
        NodePlan {
            lines: Vec::new(),
            cores: Profile::empty(SimTime::ZERO, 0),
            ends: BTreeMap::new(),
            capacity: NodeFree::default(),
            memory: false,
            full: FullNodes::default(),
            skip_full: false,
            building: false,
            free: NodeFree::default(),
            used: Vec::new(),
            probe: Vec::new(),
            work: 0,
        }
    }
}

impl NodePlan {
    /// A plan whose walks skip the nodes whose cores are all held ([`FullNodes`]).
    pub(crate) fn skipping_full_nodes() -> NodePlan {
        NodePlan {
            skip_full: true,
            ..NodePlan::default()
        }
    }

    /// The first node from `from` on that a walk at `at` must read: with the tree, the
    /// first not full at `at` (`rise` learns when a skipped one can have room); else
    /// `from` itself.
    fn next_node(&self, from: usize, at: SimTime, rise: &mut SimTime) -> Option<usize> {
        match self.skip_full {
            true => self.full.next_open(from, at, rise),
            false => (from < self.lines.len()).then_some(from),
        }
    }

    /// Node `n`'s line changed: the tree follows (not while building, nor without one).
    fn line_changed(&mut self, n: usize) {
        if self.skip_full && !self.building {
            self.full.update(n, &self.lines[n], self.capacity.cores[n]);
        }
    }

    /// The plan made from the site as it is at `site.now`: the running jobs until their
    /// predicted ends, the maintenance windows still to come and the nodes down now. A job
    /// whose predicted end has come and that still runs (it outlived its estimate, or ends
    /// later in this instant under a per-event order) holds nothing, or with
    /// `busy_past_end` its nodes until the next tick — for a plan whose starts now must be
    /// on nodes free now (Slurm's); conservative's starts check their nodes instead.
    pub(crate) fn build(&mut self, site: &SiteView, nodes: &NodesView, busy_past_end: bool) {
        let now = site.now;
        let pool = nodes.pool;
        self.capacity = pool.capacity.clone();
        self.memory = pool.tracks_memory;
        // The lines' buffers are kept from the last plan (Slurm makes one at every pass).
        self.lines.resize_with(pool.len(), Line::default);
        self.lines.iter_mut().for_each(|l| l.steps.clear());
        let total: u64 = self.capacity.cores.iter().map(|&c| u64::from(c)).sum();
        // The site's units are its cores, or fewer under a power cap (`engine::sim::cap`):
        // the site-wide count plans within them.
        let total = total.min(u64::from(site.capacity));
        self.cores = Profile::empty(now, u32::try_from(total).unwrap_or(u32::MAX));
        self.ends.clear();
        self.building = true;
        let mut running_cores = vec![0u32; pool.len()];
        let next = match busy_past_end {
            true => SimTime(now.0.saturating_add(1)),
            false => SimTime::ZERO,
        };
        for &(end, idx) in site.running.keys() {
            let shares = nodes.placements.of(idx as usize);
            for s in shares {
                if let Some(c) = running_cores.get_mut(s.node as usize) {
                    *c += s.cores;
                }
            }
            self.hold(now, end.max(next), shares);
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
        self.building = false;
        if self.skip_full {
            self.full.build(&self.lines, &self.capacity.cores);
        }
    }

    /// Forgets what lies before `now`.
    pub(crate) fn forget_before(&mut self, now: SimTime) {
        for line in &mut self.lines {
            line.forget_before(now);
        }
        self.cores.forget_before(now);
        self.ends = self.ends.split_off(&SimTime(now.0.saturating_add(1)));
    }

    /// True when the site tracks memory (some node has memory).
    pub(crate) fn memory(&self) -> bool {
        self.memory
    }

    /// Cores free site-wide at `at` (a bound: the nodes may hold fewer of a job's units).
    pub(crate) fn cores_free_at(&self, at: SimTime) -> u32 {
        self.cores.free_at(at)
    }

    /// The shares the last successful [`NodePlan::earliest`] found (taken out).
    pub(crate) fn take_probe(&mut self) -> Vec<Share> {
        std::mem::take(&mut self.probe)
    }

    /// The earliest instant from `from` (not before `now`), before `before`, at which the
    /// site's rule places `job` on what the nodes have free throughout its estimate (on
    /// the `allowed` nodes only, if given: a Slurm partition's); its shares are left for
    /// [`NodePlan::take_probe`].
    pub(crate) fn earliest(
        &mut self,
        (now, from): (SimTime, SimTime),
        before: SimTime,
        job: &QueuedJob,
        nodes: &NodesView,
        allowed: Option<&[u64]>,
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
            match self.fits_at(try_at, estimate, procs, &demand, allowed) {
                Ok(()) => return Some(try_at),
                // A job of units only fits where the nodes hold its units in all, so no
                // start fits before some node's room grows.
                Err(rise) if monotone => from = rise.max(next),
                Err(_) => from = next,
            }
        }
    }

    /// True when the rule places `procs` × `demand` on what every node has free during
    /// `[at, at + estimate)`; the shares go to `probe`. Otherwise the first instant after
    /// `at` a window can find more of some resource free on some node ([`Line::peak`]).
    fn fits_at(
        &mut self,
        at: SimTime,
        estimate: SimTime,
        procs: u32,
        demand: &crate::model::Demand,
        allowed: Option<&[u64]>,
    ) -> Result<(), SimTime> {
        let end = at.after(estimate);
        // The walk of units below is first fit's (node order); best fit sorts the nodes.
        let unit = unit_mem(self.memory, procs, demand);
        if let Some(m) = unit.filter(|_| self.capacity.rule().is_first_fit()) {
            return self.fits_units_at(at, end, procs, m, allowed);
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
            allowed,
            &mut self.probe,
        )
        .map_err(|_| rise)
    }

    /// [`NodePlan::fits_at`] for a job of units (no GPUs, no node count) of `m` KB each:
    /// first-fit's own walk (each node in order takes as many of the units left as it holds
    /// free throughout the window, `place_units`) over the nodes' peaks, which stops at the
    /// node that completes the job — the same shares, without reading the plans of the
    /// nodes after it. A failure reads them all, for the instant some node's room grows.
    fn fits_units_at(
        &mut self,
        at: SimTime,
        end: SimTime,
        procs: u32,
        m: u64,
        allowed: Option<&[u64]>,
    ) -> Result<(), SimTime> {
        self.probe.clear();
        let mut left = procs;
        if left == 0 {
            return Ok(());
        }
        let mut rise = SimTime::NEVER;
        let cap = &self.capacity;
        // Nodes with every core held at `at` give nothing: with the tree they are skipped
        // unread, and `rise` learns when the first of them can be other than full.
        let mut next = 0;
        while let Some(n) = self.next_node(next, at, &mut rise) {
            next = n + 1;
            if allowed.is_some_and(|a| a.get(n / 64).is_none_or(|w| w & (1 << (n % 64)) == 0)) {
                continue;
            }
            self.work += 1;
            let line = &self.lines[n];
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
                // Node-exclusive: the nodes are held whole (free throughout, so all of it).
                if cap.is_exclusive() {
                    crate::model::fit::whole_nodes(cap, &mut self.probe);
                }
                return Ok(());
            }
        }
        self.probe.clear();
        Err(rise)
    }

    /// A holder of `shares` during `[from, to)`.
    pub(crate) fn hold(&mut self, from: SimTime, to: SimTime, shares: &[Share]) {
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
            let n = s.node as usize;
            if let Some(line) = self.lines.get_mut(n) {
                line.change(from, to, s, hold);
                cores += s.cores;
                self.line_changed(n);
            }
        }
        cores
    }

    /// Gives back what [`NodePlan::hold`] held (or its part from `from` on).
    pub(crate) fn unhold(&mut self, from: SimTime, to: SimTime, shares: &[Share]) {
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

    /// Holds the nodes of `shares` whole during `[from, to)`: nothing else may use them
    /// then (a reservation of Slurm's backfill, which takes nodes, not cores).
    pub(crate) fn hold_nodes(&mut self, from: SimTime, to: SimTime, shares: &[Share]) {
        for s in shares {
            self.hold_whole(s.node as usize, from, to);
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
        self.line_changed(n);
        let room = self.cores.min_free(from, to - from).min(whole.cores);
        self.cores.reserve(from, to - from, room);
        if to != SimTime::NEVER {
            *self.ends.entry(to).or_insert(0) += 1;
        }
    }
}

/// `start + estimate`, held at `NEVER` (a start of `NEVER` is a job with no start).
pub(crate) trait After {
    fn after(self, d: SimTime) -> SimTime;
}

impl After for SimTime {
    fn after(self, d: SimTime) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
}

#[cfg(test)]
mod tests;
