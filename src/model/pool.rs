//! A site's nodes (issue #37): what each has and what is free now ([`NodePool`]), placing a
//! job by the run's rule (`fit.rs`), taking and giving back its shares, and why a job can
//! never run there.

use super::fit::{can_place, first_fit_within, NodeFree, PlacementRule};
use super::maintenance::Maintenance;
use super::nodes::{Demand, NodeType, Resource, Share};

/// A site's nodes: what each has and what is free now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodePool {
    pub capacity: NodeFree,
    /// Changed only by take and give_back, which keep `version`.
    free: NodeFree,
    /// Memory is modelled (some node has memory); otherwise jobs' memory is not checked.
    pub tracks_memory: bool,
    /// The nodes' known maintenance windows, which placements keep clear of (set by the
    /// engine for a run with outages; none otherwise).
    pub maintenance: Option<Maintenance>,
    /// Changes of `free` so far (every take and give-back).
    version: u64,
    /// The last request [`NodePool::place`] found no nodes for, and the version it failed
    /// at: asked again before anything is freed, it fails again without the walk (a strict
    /// FCFS head is asked at every arrival behind it; RICC on 1,024 nodes walked them
    /// each time).
    failed: std::cell::Cell<Option<(u32, Demand, u64)>>,
}

impl NodePool {
    /// The nodes of `types`, in order (the first type's nodes first).
    pub fn new(types: &[NodeType]) -> NodePool {
        let mut capacity = NodeFree::default();
        for t in types {
            for _ in 0..t.count {
                capacity.push(t.cores, t.mem_kb, t.gpus);
            }
        }
        let tracks_memory = capacity.mem_kb.iter().any(|&m| m > 0);
        NodePool {
            free: capacity.clone(),
            capacity,
            tracks_memory,
            maintenance: None,
            version: 0,
            failed: std::cell::Cell::new(None),
        }
    }

    /// The pool holding the nodes of `mask` (bit n: node n) whole and the others shared:
    /// a site whose node types are node-exclusive one by one.
    pub fn with_exclusive_nodes(mut self, mask: Vec<u64>) -> NodePool {
        self.capacity.set_exclusive_nodes(mask.clone());
        self.free.set_exclusive_nodes(mask);
        self
    }

    /// True when some node runs at most one job.
    pub fn is_exclusive(&self) -> bool {
        self.free.is_exclusive()
    }

    /// True when node `n` runs at most one job.
    pub fn is_exclusive_node(&self, n: usize) -> bool {
        self.free.is_exclusive_node(n)
    }

    /// The pool placing by `rule` (every placement on it and on copies of its free nodes).
    pub fn with_rule(mut self, rule: PlacementRule) -> NodePool {
        self.capacity.set_rule(rule);
        self.free.set_rule(rule);
        self
    }

    /// What each node has free now.
    pub fn free(&self) -> &NodeFree {
        &self.free
    }

    /// Changes of the free nodes so far: equal versions, the same free nodes.
    pub fn version(&self) -> u64 {
        self.version
    }

    pub fn len(&self) -> usize {
        self.capacity.cores.len()
    }

    pub fn is_empty(&self) -> bool {
        self.capacity.cores.is_empty()
    }

    /// Placement of `procs` × `demand` on the free nodes by their rule (module header); `out`
    /// gets the shares in node order, and is left empty when the job does not fit now.
    pub fn place(&self, procs: u32, demand: &Demand, out: &mut Vec<Share>) -> bool {
        self.place_or_room(procs, demand, out).is_ok()
    }

    /// [`NodePool::place`], telling for a job that does not fit what [`first_fit`] tells
    /// (`None` when the answer came from the last failed request, without a walk).
    pub fn place_or_room(
        &self,
        procs: u32,
        demand: &Demand,
        out: &mut Vec<Share>,
    ) -> Result<(), Option<u64>> {
        self.place_within(procs, demand, None, out)
    }

    /// [`NodePool::place_or_room`] on the `allowed` nodes only (those no maintenance window
    /// keeps the job from: [`Maintenance::allowed`]). A request that failed on every node
    /// fails on fewer, so the last failure is read whatever the mask, but kept only from a
    /// walk over every node.
    pub fn place_within(
        &self,
        procs: u32,
        demand: &Demand,
        allowed: Option<&[u64]>,
        out: &mut Vec<Share>,
    ) -> Result<(), Option<u64>> {
        if self.failed.get() == Some((procs, *demand, self.version)) {
            out.clear();
            return Err(None);
        }
        let placed = first_fit_within(&self.free, self.tracks_memory, procs, demand, allowed, out);
        if placed.is_err() && allowed.is_none() {
            self.failed.set(Some((procs, *demand, self.version)));
        }
        placed.map_err(Some)
    }

    /// Why the job could not be placed even on the empty site, or `None` when it could.
    pub fn never_fits(&self, procs: u32, demand: &Demand) -> Option<(Resource, u64, u64)> {
        let mut out = Vec::new();
        let cap = &self.capacity;
        if can_place(cap, self.tracks_memory, procs, demand, &mut out) {
            return None;
        }
        let n = self.len() as u64;
        if u64::from(demand.nodes) > n {
            return Some((Resource::Nodes, u64::from(demand.nodes), n));
        }
        let cores_only = Demand {
            mem_kb: 0,
            gpus: 0,
            ..*demand
        };
        if !can_place(cap, false, procs, &cores_only, &mut out) {
            let most: u64 = cap.cores.iter().map(|&c| u64::from(c)).sum();
            return Some((Resource::Cores, u64::from(procs), most));
        }
        let with_memory = Demand { gpus: 0, ..*demand };
        if !can_place(cap, self.tracks_memory, procs, &with_memory, &mut out) {
            let most = cap.mem_kb.iter().copied().max().unwrap_or(0);
            return Some((Resource::Memory, demand.mem_kb, most));
        }
        let most: u64 = cap.gpus.iter().map(|&g| u64::from(g)).sum();
        Some((Resource::Gpus, u64::from(demand.gpus), most))
    }

    /// Takes the shares of a placement (found by [`NodePool::place`]); false, changing
    /// nothing, when a share is more than its node has free (a bug the engine reports).
    pub fn take(&mut self, shares: &[Share]) -> bool {
        let f = &self.free;
        let ok = shares.iter().all(|s| {
            let n = s.node as usize;
            n < f.cores.len()
                && f.cores[n] >= s.cores
                && f.mem_kb[n] >= s.mem_kb
                && f.gpus[n] >= s.gpus
        });
        if ok {
            self.version += 1;
            self.free.take(shares);
            self.free.keep_order();
        }
        ok
    }

    /// Gives the shares of a finished job back.
    pub fn give_back(&mut self, shares: &[Share]) {
        self.version += 1;
        self.free.give_back(shares);
        self.free.keep_order();
    }

    /// True when no job holds any of node `n`.
    pub fn is_idle(&self, n: usize) -> bool {
        let (f, c) = (&self.free, &self.capacity);
        f.cores[n] == c.cores[n] && f.mem_kb[n] == c.mem_kb[n] && f.gpus[n] == c.gpus[n]
    }

    /// Marks node `n` asleep (a power policy switched it off: placements take the nodes
    /// that are on first) or awake; a take wakes it too.
    pub fn set_asleep(&mut self, n: usize, asleep: bool) {
        self.version += 1;
        self.free.set_asleep(n, asleep);
    }
}

#[cfg(test)]
#[path = "pool_tests.rs"]
mod tests;
