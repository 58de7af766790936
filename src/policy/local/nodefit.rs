//! What a scheduling pass sees of a site's nodes (issue #37): the free nodes and every job's
//! demand ([`NodesView`]), and the pass's own record of the nodes it has taken so far
//! ([`NodeFit`]), so that a job "fits now" exactly when first-fit placement finds it nodes
//! — the placement the engine then makes. Sites without node types never reach this.

use std::cell::RefCell;
use std::collections::HashSet;

use super::width_queue::{Caps, Known, MemCap};
use super::{NowFit, QueuedJob, SiteView};
use crate::model::fit::{first_fit_within, unit_mem, unit_room, units_in};
use crate::model::{Demand, JobIdx, NodeFree, NodePool, Placements, Share};
use crate::time::SimTime;

/// A node-typed site's nodes and the jobs' demands (indexed by job; empty when every job
/// asks for processors only), and the nodes each running job holds (EASY releases them in
/// the order of the jobs' predicted ends to find its head's reservation).
#[derive(Clone, Copy, Debug)]
pub struct NodesView<'a> {
    pub pool: &'a NodePool,
    pub demands: &'a [Demand],
    pub placements: &'a Placements,
}

impl NodesView<'_> {
    /// Job `idx`'s demand beyond processors.
    pub fn demand(&self, idx: JobIdx) -> Demand {
        self.demands.get(idx as usize).copied().unwrap_or_default()
    }

    /// A queued job's memory per unit when it asks for units only ([`unit_mem`]), for the
    /// queue's memory lane ([`super::WidthQueue::fill_mems`]).
    pub(crate) fn unit_mem_of(&self, job: &QueuedJob) -> Option<u64> {
        unit_mem(self.pool.tracks_memory, job.units, &self.demand(job.idx))
    }

    /// The nodes a job started at `from` for `estimate` may use, when a known maintenance
    /// window keeps it from some ([`crate::model::Maintenance::allowed`]).
    pub fn allowed(&self, from: SimTime, estimate: SimTime) -> Option<Vec<u64>> {
        let m = self.pool.maintenance.as_ref()?;
        m.allowed(from, from + estimate)
    }
}

/// The nodes one pass has taken: a copy of the free nodes made at its first start (a pass
/// that starts nothing copies nothing), and the last placement found.
///
/// Nothing is freed within a pass, so a request that found no nodes finds none again until
/// the pass takes some; what the failed walks learnt is kept until then (a long queue is
/// mostly turned away, one first-fit walk over every node each before):
/// - `short`: for jobs of units only ([`unit_mem`]), (unit memory, units the nodes hold in
///   all), by memory. The nodes hold no more units of more memory, so a job of at least
///   that memory per unit and more processors than the units held does not fit;
/// - `refused`: the other requests (GPUs, a node count) that found no nodes, exactly;
/// - `cap`: the [`super::width_queue::CAPS`] entries of `short` that rule out the most
///   (fewest units, then least memory), for the queue to skip a block of jobs at a time by
///   their memory lane ([`MemCap`]).
#[derive(Debug)]
pub(crate) struct NodeFit {
    taken: Option<NodeFree>,
    last: Vec<Share>,
    short: Vec<(u64, u64)>,
    refused: HashSet<(u32, Demand)>,
    cap: Caps,
}

impl Default for NodeFit {
    fn default() -> NodeFit {
        NodeFit {
            taken: None,
            last: Vec::new(),
            short: Vec::new(),
            refused: HashSet::new(),
            cap: MemCap::NO_CAPS,
        }
    }
}

thread_local! {
    /// The last pass's copy of the free nodes, for the next pass to copy into: RICC under
    /// EASY made 300,000 copies of 1,024 nodes, each an allocation and its page faults.
    /// Only memory is reused; every copy is whole ([`NodeFree::copy_from`]).
    static SPARE: RefCell<Option<NodeFree>> = const { RefCell::new(None) };
}

impl Drop for NodeFit {
    fn drop(&mut self) {
        if let Some(free) = self.taken.take() {
            SPARE.with(|s| *s.borrow_mut() = Some(free));
        }
    }
}

impl NodeFit {
    /// True when `procs` × job `idx`'s demand can be placed on the nodes free now, on the
    /// `allowed` ones only if given (those no maintenance window keeps the job from). What
    /// a failed walk learns is read whatever the mask (fewer nodes hold no more) but kept
    /// only from a walk over every node.
    pub(crate) fn fits_within(
        &mut self,
        nodes: &NodesView,
        idx: JobIdx,
        procs: u32,
        allowed: Option<&[u64]>,
    ) -> bool {
        let demand = nodes.demand(idx);
        let memory = nodes.pool.tracks_memory;
        let unit = unit_mem(memory, procs, &demand);
        let known_short = match unit {
            Some(m) => {
                // The entry of the largest unit memory at most m bounds the room for m.
                let i = self.short.partition_point(|&(mr, _)| mr <= m);
                i > 0 && u64::from(procs) > self.short[i - 1].1
            }
            None => self.refused.contains(&(procs, demand)),
        };
        if known_short {
            self.last.clear();
            return false;
        }
        let placed = match &self.taken {
            None => nodes
                .pool
                .place_within(procs, &demand, allowed, &mut self.last),
            Some(free) => first_fit_within(free, memory, procs, &demand, allowed, &mut self.last)
                .map_err(Some),
        };
        match (placed, unit) {
            (Ok(()), _) | (Err(None), _) => {}
            (Err(Some(_)), _) if allowed.is_some() => {}
            (Err(Some(room)), Some(m)) => {
                let i = self.short.partition_point(|&(mr, _)| mr < m);
                match self.short.get(i) {
                    Some(&(mr, _)) if mr == m => self.short[i].1 = room,
                    _ => self.short.insert(i, (m, room)),
                }
                MemCap::new(m, room).admit(&mut self.cap);
            }
            (Err(Some(_)), None) => {
                self.refused.insert((procs, demand));
            }
        }
        placed.is_ok()
    }

    /// What the failed walks so far rule out ([`super::width_queue::Known`]'s `short`): a
    /// job of units only with a memory lane at least some cap's `mem` and more than its
    /// `units` processors does not fit.
    pub(crate) fn cap(&self) -> Caps {
        self.cap
    }

    /// The placement the last successful [`NodeFit::fits`] found (until it is taken).
    pub(crate) fn last(&self) -> &[Share] {
        &self.last
    }

    /// The nodes free now for this pass (after its starts so far).
    pub(crate) fn free<'b>(&'b self, nodes: &'b NodesView) -> &'b NodeFree {
        self.taken.as_ref().unwrap_or_else(|| nodes.pool.free())
    }

    /// Takes the placement the last [`NodeFit::fits`] found.
    pub(crate) fn take(&mut self, nodes: &NodesView) {
        let free = self.taken.get_or_insert_with(|| {
            let mut copy = SPARE.with(|s| s.borrow_mut().take()).unwrap_or_default();
            copy.copy_from(nodes.pool.free());
            copy
        });
        free.take(&self.last);
        self.last.clear();
        self.short.clear();
        self.refused.clear();
        self.cap = MemCap::NO_CAPS;
    }
}

impl NowFit {
    /// [`NowFit::fits`] for a queued job, which on a node-typed site must also find nodes
    /// (first-fit, the placement the engine makes when it starts it).
    pub(crate) fn fits_job(&mut self, site: &SiteView, job: &QueuedJob) -> bool {
        if !self.fits(site, job.units, job.estimate) {
            return false;
        }
        match &site.nodes {
            None => true,
            Some(nodes) => {
                let allowed = nodes.allowed(site.now, job.estimate);
                self.nodes
                    .fits_within(nodes, job.idx, job.units, allowed.as_deref())
            }
        }
    }

    /// Starts a job [`NowFit::fits_job`] said fits.
    pub(crate) fn take_job(&mut self, site: &SiteView, job: &QueuedJob) {
        self.take(job.units, job.estimate);
        if let Some(nodes) = &site.nodes {
            self.nodes.take(nodes);
        }
    }
}

/// A blocked head's reservation on nodes (EASY, docs/nodes.md): the earliest predicted end
/// `shadow` of running jobs at which first-fit places the head on the nodes then free, and
/// `at_shadow`, the nodes predicted free at that instant (before the head takes its part).
#[derive(Clone, Debug)]
pub(crate) struct NodeShadow {
    pub(crate) shadow: SimTime,
    /// The release instant the shadow was found at (`shadow` is it or now, if later).
    pub(crate) release: SimTime,
    at_shadow: NodeFree,
    /// For a head of units only ([`unit_mem`]): its room at the shadow, so that testing a
    /// backfill costs that job's shares, not a first-fit walk over every node.
    room: Option<HeadRoom>,
    /// The nodes the head may use at the shadow, when a maintenance window keeps its
    /// estimate from some.
    allowed: Option<Vec<u64>>,
    /// The site has maintenance windows: each job's placement then depends on its own
    /// estimate, and [`HeldBack`]'s reasoning (placements of one shape nest) does not hold.
    calendar: bool,
    /// The requests [`NodeShadow::keeps_head`] turned down since the nodes free now or at
    /// the shadow last changed ([`NodeShadow::nodes_taken`]); see [`HeldBack`].
    held_back: HeldBack,
}

/// Backfills found to delay the head, while neither the nodes free now nor those free at
/// the shadow change, so that a later candidate known to be refused is not placed first
/// (RICC: 34 million first-fit walks that then failed the test). First-fit of a job of
/// units only takes, on every node, at least the units a job of the same unit memory and
/// fewer processors takes (each node takes the least of its room and what is left, and
/// what is left is never less), and the head's room at the shadow only shrinks with what
/// is taken there: once a job of unit memory m and p processors delays the head, every job
/// of m and p or more does. The other requests are kept exactly (the same request, the
/// same nodes).
#[derive(Clone, Debug)]
struct HeldBack {
    /// (unit memory, fewest processors refused), by memory.
    units: Vec<(u64, u32)>,
    shapes: HashSet<(u32, Demand)>,
    /// The [`super::width_queue::CAPS`] entries of `units` of fewest processors (then
    /// least memory), as memory lanes, for the queue to skip such jobs a block at a time
    /// ([`NodeShadow::known`]).
    cap: Caps,
}

impl Default for HeldBack {
    fn default() -> HeldBack {
        HeldBack {
            units: Vec::new(),
            shapes: HashSet::new(),
            cap: MemCap::NO_CAPS,
        }
    }
}

/// The units of a head's memory (`unit`) each node holds (`per_node`) in some free nodes,
/// and their sum. First-fit places the head there exactly when the sum reaches its
/// processors ([`unit_mem`]).
#[derive(Clone, Debug)]
struct HeadRoom {
    unit: u64,
    per_node: Vec<u32>,
    total: u64,
}

impl HeadRoom {
    fn new(free: &NodeFree, unit: u64) -> HeadRoom {
        // A node without a free core holds no unit (most nodes, on a busy site).
        let mut per_node = vec![0; free.cores.len()];
        let mut total = 0;
        for n in free.open_nodes() {
            per_node[n] = unit_room(free, n, unit);
            total += u64::from(per_node[n]);
        }
        HeadRoom {
            unit,
            per_node,
            total,
        }
    }

    /// Node `n`'s room read again from `free` (after it changed there).
    fn update(&mut self, free: &NodeFree, n: usize) {
        let r = unit_room(free, n, self.unit);
        self.total = self.total - u64::from(self.per_node[n]) + u64::from(r);
        self.per_node[n] = r;
    }
}

/// One running job's predicted release: its predicted end, processors and nodes.
pub(crate) type Release<'a> = (SimTime, u32, &'a [Share]);

/// The head's reservation on nodes: starting from `free` (the nodes free now) with `units`
/// processors free, the `releases` (in order of predicted end) give their nodes back one
/// instant at a time (every release at an instant before the next try, as every unit freed
/// at the shadow is free there); the first instant at which first-fit places the head's
/// `procs` × `demand` is its shadow (never before `now`). A head no release lets in gets
/// `NEVER` (cannot happen: a job no placement on the empty site holds is rejected on
/// arrival), with every running job released. A head of units only is tested by its room
/// ([`HeadRoom`]), kept up to date release by release, instead of a walk at each instant.
///
/// With known maintenance windows (issue #41), a node in maintenance now comes back at its
/// window's end (one more release), the end of every window to come is one more instant to
/// try (the head it kept from a node may fit from then on), and the head is placed at an
/// instant only on the nodes no window keeps its `estimate` from; then every try is a walk.
///
/// No instant before `not_before` is tried ([`window_bound`]: the head cannot fit then
/// even on every node).
pub(crate) fn node_shadow<'a>(
    nodes: &NodesView,
    free: &NodeFree,
    mut units: u32,
    releases: impl Iterator<Item = Release<'a>>,
    (now, not_before): (SimTime, SimTime),
    (procs, demand, estimate): (u32, Demand, SimTime),
) -> NodeShadow {
    let memory = nodes.pool.tracks_memory;
    let calendar = nodes.pool.maintenance.as_ref();
    let mut at_shadow = free.clone();
    let mut room = match calendar {
        None => unit_mem(memory, procs, &demand).map(|unit| HeadRoom::new(free, unit)),
        Some(_) => None,
    };
    let mut back = calendar
        .into_iter()
        .flat_map(|m| m.ending_after(now))
        .peekable();
    let mut probe = Vec::new();
    let mut releases = releases.peekable();
    loop {
        let end = match (releases.peek(), back.peek()) {
            (None, None) => break,
            (Some(r), None) => r.0,
            (None, Some(b)) => b.0,
            (Some(r), Some(b)) => r.0.min(b.0),
        };
        while let Some((_, u, shares)) = releases.next_if(|r| r.0 == end) {
            at_shadow.give_back(shares);
            if let Some(room) = room.as_mut() {
                for s in shares {
                    room.update(&at_shadow, s.node as usize);
                }
            }
            units += u;
        }
        while let Some((_, node, in_force)) = back.next_if(|b| b.0 == end) {
            if in_force {
                units += return_node(nodes.pool, &mut at_shadow, node as usize);
            }
        }
        let at = end.max(now);
        if units < procs || at < not_before {
            continue;
        }
        let allowed = calendar.and_then(|m| m.allowed(at, at + estimate));
        let placed = match &room {
            Some(room) => room.total >= u64::from(procs),
            None => first_fit_within(
                &at_shadow,
                memory,
                procs,
                &demand,
                allowed.as_deref(),
                &mut probe,
            )
            .is_ok(),
        };
        if placed {
            return NodeShadow {
                shadow: at,
                release: end,
                at_shadow,
                room,
                allowed,
                calendar: calendar.is_some(),
                held_back: HeldBack::default(),
            };
        }
    }
    NodeShadow {
        shadow: SimTime::NEVER,
        release: SimTime::NEVER,
        at_shadow,
        room,
        allowed: None,
        calendar: calendar.is_some(),
        held_back: HeldBack::default(),
    }
}

/// The earliest instant from `now` (now, or the end of a maintenance window to come) at
/// which a head of `procs` × `demand` for `estimate` fits on the site's nodes, every one
/// free, that no window keeps its estimate from: its reservation can come no earlier,
/// whatever the running jobs free. (A head that cannot start before the last window of a
/// monthly drain would otherwise try every window's end at every pass.) `now` without
/// windows, and for a head with GPUs, whose first-fit placement is not monotone in the
/// free resources (cores found sooner can leave GPUs unvisited).
pub(crate) fn window_bound(
    nodes: &NodesView,
    now: SimTime,
    (procs, demand, estimate): (u32, Demand, SimTime),
) -> SimTime {
    let Some(m) = nodes.pool.maintenance.as_ref() else {
        return now;
    };
    if demand.gpus > 0 {
        return now;
    }
    let (memory, cap) = (nodes.pool.tracks_memory, &nodes.pool.capacity);
    let mut probe = Vec::new();
    let mut last = None;
    let candidates = std::iter::once(now).chain(m.ending_after(now).map(|w| w.0));
    for t in candidates {
        if last == Some(t) {
            continue;
        }
        last = Some(t);
        let allowed = m.allowed(t, t + estimate);
        if first_fit_within(cap, memory, procs, &demand, allowed.as_deref(), &mut probe).is_ok() {
            return t;
        }
    }
    now
}

/// Node `n`, down for maintenance, back in `at` whole (no job holds a node while it is
/// down); the cores it brings.
fn return_node(pool: &crate::model::NodePool, at: &mut NodeFree, n: usize) -> u32 {
    let cap = &pool.capacity;
    let share = Share {
        node: n as u32,
        cores: cap.cores[n] - at.cores[n],
        mem_kb: cap.mem_kb[n] - at.mem_kb[n],
        gpus: cap.gpus[n] - at.gpus[n],
    };
    at.give_back(&[share]);
    share.cores
}

impl NodeShadow {
    /// The reservation of a head of units only (`procs` × `demand`), found from what a pass
    /// kept of its reservation instead of from the nodes free now: `None` when it cannot
    /// be (then [`node_shadow`] finds it).
    ///
    /// The caller vouches that `self.at_shadow` is still what is free at the kept release
    /// instant `E`, with this pass's starts from the head (`fresh`) not in it yet: the
    /// site's capacity less the down nodes and the shares of the jobs predicted to end
    /// after `E` (no node went down or came back, no job's predicted end moved, a job
    /// ending after `E` gave its nodes back there ([`NodeShadow::give_back`]), and `E` is
    /// not before now). Jobs ending by `E` changed nothing there. `fresh` starts ending
    /// after `E` hold their shares there; `before` are the releases up to `E` (running
    /// jobs and `fresh` ones), latest first, and `after` those after it, soonest first.
    ///
    /// A head of units only fits at an instant exactly when its room there reaches its
    /// processors ([`unit_mem`]), and the room only grows with time. So [`node_shadow`]'s
    /// instant, the first release instant at which the head fits, is found by walking
    /// back from `E` (taking each instant's releases out while the head still fits, and
    /// giving the last ones back) when it fits at `E`, else forward from `E`; the nodes
    /// then are those [`node_shadow`] stops with.
    pub(crate) fn again<'a>(
        mut self,
        nodes: &NodesView,
        (procs, demand): (u32, Demand),
        now: SimTime,
        fresh: impl Iterator<Item = Release<'a>>,
        before: impl Iterator<Item = Release<'a>>,
        after: impl Iterator<Item = Release<'a>>,
    ) -> Option<NodeShadow> {
        let e = self.release;
        if self.calendar || e < now {
            return None;
        }
        let unit = unit_mem(nodes.pool.tracks_memory, procs, &demand)?;
        // The kept room is kept up to date with the nodes there (`give_back`,
        // `node_changed`, `keeps_head`): for a head of the same unit memory it is the one
        // a count over every node would find (RICC: 300,000 counts of 1,024 nodes).
        let mut kept = self.room.take().filter(|r| r.unit == unit);
        for (_, _, shares) in fresh.filter(|r| r.0 > e) {
            self.at_shadow.take(shares);
            if let Some(room) = kept.as_mut() {
                for s in shares {
                    room.update(&self.at_shadow, s.node as usize);
                }
            }
        }
        let mut room = kept.unwrap_or_else(|| HeadRoom::new(&self.at_shadow, unit));
        debug_assert_eq!(room.per_node, HeadRoom::new(&self.at_shadow, unit).per_node);
        let fits = |room: &HeadRoom| room.total >= u64::from(procs);
        let at = &mut self.at_shadow;
        let mut step = |shares: &[Share], back: bool, room: &mut HeadRoom| {
            match back {
                true => at.give_back(shares),
                false => at.take(shares),
            }
            for s in shares {
                room.update(at, s.node as usize);
            }
        };
        let found = if fits(&room) {
            let mut before = before.peekable();
            let (mut found, mut last): (Option<SimTime>, Vec<&[Share]>) = (None, Vec::new());
            while let Some(end) = before.peek().map(|r| r.0) {
                // Here the nodes are those free at `end`.
                if !fits(&room) {
                    break;
                }
                found = Some(end);
                last.clear();
                while let Some((_, _, shares)) = before.next_if(|r| r.0 == end) {
                    step(shares, false, &mut room);
                    last.push(shares);
                }
            }
            // The last instant taken out held the head (the one before it did not, or
            // there is none): its releases go back.
            for shares in last {
                step(shares, true, &mut room);
            }
            found?
        } else {
            let mut after = after.peekable();
            loop {
                // No release lets the head in (a node it needs is down): `node_shadow`'s
                // NEVER, every running job released. (Kept at NEVER, what is free there
                // stays exact: no job ends after it.)
                let Some(end) = after.peek().map(|r| r.0) else {
                    break SimTime::NEVER;
                };
                while let Some((_, _, shares)) = after.next_if(|r| r.0 == end) {
                    step(shares, true, &mut room);
                }
                if fits(&room) {
                    break end;
                }
            }
        };
        Some(NodeShadow {
            shadow: found.max(now),
            release: found,
            room: Some(room),
            allowed: None,
            held_back: HeldBack::default(),
            ..self
        })
    }

    /// Node `whole.node` went down (`down`: all of it, free at the release instant once its
    /// jobs were killed, is gone there) or came back (all of it is free there again); false,
    /// changing nothing, when the node is not whole, or not gone, there.
    pub(crate) fn node_changed(&mut self, whole: Share, down: bool) -> bool {
        let (f, n) = (&self.at_shadow, whole.node as usize);
        let (cores, mem_kb, gpus) = match down {
            true => (whole.cores, whole.mem_kb, whole.gpus),
            false => (0, 0, 0),
        };
        if f.cores.get(n) != Some(&cores) || f.mem_kb[n] != mem_kb || f.gpus[n] != gpus {
            return false;
        }
        match down {
            true => self.at_shadow.take(&[whole]),
            false => self.at_shadow.give_back(&[whole]),
        }
        if let Some(room) = self.room.as_mut() {
            room.update(&self.at_shadow, n);
        }
        true
    }

    /// A job that held `shares` past the release instant ended: they are free there too.
    pub(crate) fn give_back(&mut self, shares: &[Share]) {
        self.at_shadow.give_back(shares);
        if let Some(room) = self.room.as_mut() {
            for s in shares {
                room.update(&self.at_shadow, s.node as usize);
            }
        }
    }

    /// True when a job of `procs` × `demand` held past the shadow is known to delay the
    /// head ([`HeldBack`]): [`NodeShadow::keeps_head`] would refuse it, if it fits now.
    pub(crate) fn delays_head(&self, nodes: &NodesView, procs: u32, demand: &Demand) -> bool {
        let held = &self.held_back;
        if self.calendar {
            return false;
        }
        match unit_mem(nodes.pool.tracks_memory, procs, demand) {
            Some(m) => {
                let i = held.units.partition_point(|&(mr, _)| mr < m);
                held.units
                    .get(i)
                    .is_some_and(|&(mr, p)| mr == m && procs >= p)
            }
            None => held.shapes.contains(&(procs, *demand)),
        }
    }

    /// The nodes free now changed (the pass started a job): forget [`HeldBack`].
    pub(crate) fn nodes_taken(&mut self) {
        self.held_back.units.clear();
        self.held_back.shapes.clear();
        self.held_back.cap = MemCap::NO_CAPS;
    }

    /// What this reservation and the pass's failed walks (`fit`) know cannot start, for the
    /// queue to skip ([`super::width_queue::Known`]).
    pub(crate) fn known(&self, fit: &NodeFit) -> Known {
        Known {
            short: fit.cap(),
            delays: self.held_back.cap,
        }
    }

    /// [`NodeShadow::keeps_head`] for a job of `procs` × `demand`, remembering a refusal
    /// ([`NodeShadow::delays_head`]).
    pub(crate) fn keeps_head_for(
        &mut self,
        nodes: &NodesView,
        head: (u32, Demand),
        (procs, demand): (u32, Demand),
        shares: &[Share],
        probe: &mut Vec<Share>,
    ) -> bool {
        if self.keeps_head(nodes, head, shares, probe) {
            return true;
        }
        if self.calendar {
            return false;
        }
        let held = &mut self.held_back;
        match unit_mem(nodes.pool.tracks_memory, procs, &demand) {
            Some(m) => {
                let i = held.units.partition_point(|&(mr, _)| mr < m);
                match held.units.get_mut(i) {
                    Some((mr, p)) if *mr == m => *p = (*p).min(procs),
                    _ => held.units.insert(i, (m, procs)),
                }
                MemCap::new(m, u64::from(procs)).admit(&mut held.cap);
            }
            None => {
                held.shapes.insert((procs, demand));
            }
        }
        false
    }

    /// True when the head still finds its first-fit placement at the shadow time with a job
    /// holding `shares` past it; then those shares are taken out of what is free there.
    /// (The shares fit now, and everything free now is free at the shadow, so taking them
    /// never goes below zero.)
    pub(crate) fn keeps_head(
        &mut self,
        nodes: &NodesView,
        (procs, demand): (u32, Demand),
        shares: &[Share],
        probe: &mut Vec<Share>,
    ) -> bool {
        if let Some(room) = self.room.as_mut() {
            let f = &self.at_shadow;
            let lost: u64 = shares
                .iter()
                .map(|s| {
                    let n = s.node as usize;
                    let left = units_in(f.cores[n] - s.cores, f.mem_kb[n] - s.mem_kb, room.unit);
                    u64::from(room.per_node[n] - left)
                })
                .sum();
            if room.total - lost < u64::from(procs) {
                return false;
            }
            self.at_shadow.take(shares);
            for s in shares {
                room.update(&self.at_shadow, s.node as usize);
            }
            return true;
        }
        self.at_shadow.take(shares);
        let memory = nodes.pool.tracks_memory;
        let allowed = self.allowed.as_deref();
        if first_fit_within(&self.at_shadow, memory, procs, &demand, allowed, probe).is_ok() {
            return true;
        }
        self.at_shadow.give_back(shares);
        false
    }

    /// Processors free at the shadow beyond the head's (the step view's "extra").
    pub(crate) fn extra(&self, procs: u32) -> u32 {
        let cores = self.at_shadow.cores_free();
        u32::try_from(cores.saturating_sub(u64::from(procs))).unwrap_or(u32::MAX)
    }
}

#[cfg(test)]
#[path = "nodefit_tests.rs"]
mod tests;
