//! Nodes that exist (issue #37): what a job asks beyond processors ([`Demand`]), the node
//! types a site may list ([`NodeType`]), and first-fit placement of a job on a site's nodes
//! ([`NodePool`]).
//!
//! Placement follows AccaSim 1.1.3's `FirstFit` (`accasim/base/allocator_class.py`): a job
//! of P processors and m KB of memory per processor is P units of {1 core, m KB}; the nodes
//! are walked in order and each takes as many of the job's units as fit on it; all or
//! nothing for the job. Nodes are shared between jobs. A job with a node count N takes the
//! first N nodes that each hold its share (P / N cores, the rest spread one each over the
//! first nodes; its memory per node, or its share's memory per processor; G / N GPUs
//! likewise). A job's GPUs without a node count go with its cores: the nodes with a free
//! GPU are walked first, each giving as many of the GPUs still wanted as it has free with
//! its units, then the other nodes for the cores left.

use super::maintenance::Maintenance;
use serde::{Deserialize, Serialize};

/// What a job asks beyond its processor count; the default asks nothing more.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Demand {
    /// Memory in KB (SWF's unit): per processor, or per node when `mem_per_node`; 0 when
    /// the job states none.
    pub mem_kb: u64,
    /// `mem_kb` is per node (Slurm's `Mn`, or `mem=` with a node count), not per processor.
    pub mem_per_node: bool,
    /// GPUs for the whole job.
    pub gpus: u32,
    /// Nodes asked for (0: any number, as the units fit).
    pub nodes: u32,
}

impl Demand {
    /// True when the job asks for nothing but processors.
    pub fn is_processors_only(&self) -> bool {
        *self == Demand::default()
    }
}

/// A kind of node a site has `count` of (cores, memory in KB, GPUs, and what it draws).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeType {
    /// A name for reports (optional).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    pub count: u32,
    pub cores: u32,
    /// Memory per node in KB; 0 on every type of a site means memory is not modelled there.
    #[serde(default)]
    pub mem_kb: u64,
    #[serde(default)]
    pub gpus: u32,
    /// What one node draws (issue #40, docs/energy.md): a run on a site whose node types
    /// all have one reports its energy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power: Option<super::power::PowerModel>,
}

/// The resource that kept a job off every node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resource {
    Cores,
    Memory,
    Gpus,
    Nodes,
    /// Cores busy at once under the site's power cap (issue #40).
    Power,
}

impl Resource {
    pub fn name(self) -> &'static str {
        match self {
            Resource::Cores => "cores",
            Resource::Memory => "memory",
            Resource::Gpus => "GPUs",
            Resource::Nodes => "nodes",
            Resource::Power => "cores busy at once under the power cap",
        }
    }
}

/// A job's part of one node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Share {
    pub node: u32,
    pub cores: u32,
    pub mem_kb: u64,
    pub gpus: u32,
}

/// The nodes each job ran on (on node-typed sites): its shares, in node order. Empty for a
/// run without node-typed sites.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Placements {
    /// Per job: (first share, shares) into `shares`; (0, 0) for a job not placed.
    spans: Vec<(u32, u32)>,
    shares: Vec<Share>,
    /// (job, first share) of every record, in the order recorded: the order jobs started.
    started: Vec<(u32, u32)>,
}

impl Placements {
    /// Room for `jobs` jobs.
    pub fn for_jobs(jobs: usize) -> Placements {
        Placements {
            spans: vec![(0, 0); jobs],
            shares: Vec::new(),
            started: Vec::new(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Records job `idx`'s shares (once: a job starts once).
    pub fn record(&mut self, idx: usize, shares: &[Share]) {
        if let Some(span) = self.spans.get_mut(idx) {
            *span = (self.shares.len() as u32, shares.len() as u32);
            self.started.push((idx as u32, span.0));
            self.shares.extend_from_slice(shares);
        }
    }

    /// How many shares were recorded (a job started again counted at each start).
    pub fn shares_recorded(&self) -> usize {
        self.shares.len()
    }

    /// The placed jobs in start order (a job started again: at its last start, as `of` has it).
    pub fn in_start_order(&self) -> impl Iterator<Item = usize> + '_ {
        self.started
            .iter()
            .filter(|&&(idx, at)| self.spans[idx as usize].0 == at)
            .map(|&(idx, _)| idx as usize)
    }

    /// Job `idx`'s shares (none when it was not placed on nodes).
    pub fn of(&self, idx: usize) -> &[Share] {
        match self.spans.get(idx) {
            Some(&(at, n)) => &self.shares[at as usize..(at + n) as usize],
            None => &[],
        }
    }

    /// Job `idx`'s nodes as an interval set of node numbers (Batsim's notation: `0-3 8`).
    pub fn nodes_text(&self, idx: usize) -> String {
        self.nodes_text_from(idx, 0)
    }

    /// [`Placements::nodes_text`] with `base` added to each node number (the site's first
    /// node in a platform-wide numbering).
    pub fn nodes_text_from(&self, idx: usize, base: u64) -> String {
        let mut out = String::new();
        let shares = self.of(idx);
        let mut i = 0;
        while i < shares.len() {
            let first = shares[i].node;
            let mut last = first;
            while i + 1 < shares.len() && shares[i + 1].node == last + 1 {
                i += 1;
                last += 1;
            }
            if !out.is_empty() {
                out.push(' ');
            }
            let (lo, hi) = (u64::from(first) + base, u64::from(last) + base);
            out.push_str(&match lo == hi {
                true => lo.to_string(),
                false => format!("{lo}-{hi}"),
            });
            i += 1;
        }
        out
    }
}

/// Free (or total) cores, memory and GPUs per node, in node order, with a bit per node
/// that has a core free, so that a placement skips full nodes 64 at a time (RICC on 1,024
/// nodes: most are full when a job starts).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeFree {
    pub cores: Vec<u32>,
    pub mem_kb: Vec<u64>,
    pub gpus: Vec<u32>,
    /// Bit n: node n has a free core.
    open: Vec<u64>,
    /// Bit n: node n is switched off (or switching off) by a power policy and must boot
    /// before a job computes on it (issue #40). Empty on a site that never switches nodes
    /// off. First-fit takes the nodes that are on first, then these; taking a share of a
    /// node wakes it.
    asleep: Vec<u64>,
}

impl NodeFree {
    fn push(&mut self, cores: u32, mem_kb: u64, gpus: u32) {
        let n = self.cores.len();
        self.cores.push(cores);
        self.mem_kb.push(mem_kb);
        self.gpus.push(gpus);
        if n.is_multiple_of(64) {
            self.open.push(0);
        }
        self.mark(n);
    }

    fn mark(&mut self, n: usize) {
        let bit = 1u64 << (n % 64);
        if self.cores[n] > 0 {
            self.open[n / 64] |= bit;
        } else {
            self.open[n / 64] &= !bit;
        }
    }

    /// Takes the shares (each within what its node has free); a node asleep is woken.
    pub fn take(&mut self, shares: &[Share]) {
        for s in shares {
            let n = s.node as usize;
            self.cores[n] -= s.cores;
            self.mem_kb[n] -= s.mem_kb;
            self.gpus[n] -= s.gpus;
            self.mark(n);
            if let Some(word) = self.asleep.get_mut(n / 64) {
                *word &= !(1u64 << (n % 64));
            }
        }
    }

    /// True when node `n` is asleep ([`NodeFree::asleep`]'s bit).
    pub fn is_asleep(&self, n: usize) -> bool {
        self.asleep
            .get(n / 64)
            .is_some_and(|w| w & (1u64 << (n % 64)) != 0)
    }

    /// Marks node `n` asleep (a power policy switched it off) or awake.
    pub fn set_asleep(&mut self, n: usize, asleep: bool) {
        if self.asleep.is_empty() {
            if !asleep {
                return;
            }
            self.asleep = vec![0; self.open.len()];
        }
        let bit = 1u64 << (n % 64);
        match asleep {
            true => self.asleep[n / 64] |= bit,
            false => self.asleep[n / 64] &= !bit,
        }
    }

    /// The `allowed` nodes (every node for `None`) split into those on and those asleep,
    /// or `None` when no node is asleep (first-fit then walks them all in node order).
    fn split_by_sleep(&self, allowed: Option<&[u64]>) -> Option<(Vec<u64>, Vec<u64>)> {
        if self.asleep.iter().all(|&w| w == 0) {
            return None;
        }
        let word = |w: usize| allowed.map_or(u64::MAX, |a| a[w]);
        let on = (0..self.open.len()).map(|w| word(w) & !self.asleep[w]);
        let off = (0..self.open.len()).map(|w| word(w) & self.asleep[w]);
        Some((on.collect(), off.collect()))
    }

    /// Makes `self` a copy of `src` in the memory it already holds (a pass copies the free
    /// nodes at its first start: an allocation per pass otherwise).
    pub fn copy_from(&mut self, src: &NodeFree) {
        self.cores.clone_from(&src.cores);
        self.mem_kb.clone_from(&src.mem_kb);
        self.gpus.clone_from(&src.gpus);
        self.open.clone_from(&src.open);
        self.asleep.clone_from(&src.asleep);
    }

    /// True when some node is asleep.
    fn any_asleep(&self) -> bool {
        self.asleep.iter().any(|&w| w != 0)
    }

    /// Gives the shares back.
    pub fn give_back(&mut self, shares: &[Share]) {
        for s in shares {
            let n = s.node as usize;
            self.cores[n] += s.cores;
            self.mem_kb[n] += s.mem_kb;
            self.gpus[n] += s.gpus;
            self.mark(n);
        }
    }

    /// The nodes with a free core, in order.
    pub fn open_nodes(&self) -> impl Iterator<Item = usize> + '_ {
        self.open_nodes_within(None)
    }

    /// [`NodeFree::open_nodes`] among the `allowed` nodes (a bit per node, as
    /// [`Maintenance::allowed`] gives them), or all of them.
    pub fn open_nodes_within<'a>(
        &'a self,
        allowed: Option<&'a [u64]>,
    ) -> impl Iterator<Item = usize> + 'a {
        self.open_nodes_where(allowed, None)
    }

    /// The open `allowed` nodes, in order, asleep or on as `asleep` says (`None`: both),
    /// 64 at a time by their bits: first-fit walks those on, then those asleep, without
    /// building [`NodeFree::split_by_sleep`]'s masks (two allocations per walk).
    fn open_nodes_where<'a>(
        &'a self,
        allowed: Option<&'a [u64]>,
        asleep: Option<bool>,
    ) -> impl Iterator<Item = usize> + 'a {
        self.open.iter().enumerate().flat_map(move |(w, &word)| {
            let sleep = || self.asleep.get(w).copied().unwrap_or(0);
            let by_sleep = match asleep {
                None => u64::MAX,
                Some(true) => sleep(),
                Some(false) => !sleep(),
            };
            let mut bits = word & allowed.map_or(u64::MAX, |a| a[w]) & by_sleep;
            std::iter::from_fn(move || {
                if bits == 0 {
                    return None;
                }
                let b = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                Some(w * 64 + b)
            })
        })
    }
}

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

    /// First-fit placement of `procs` × `demand` on the free nodes (module header); `out`
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
        if place_first_fit(cap, self.tracks_memory, procs, demand, &mut out) {
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
        if !place_first_fit(cap, false, procs, &cores_only, &mut out) {
            let most: u64 = cap.cores.iter().map(|&c| u64::from(c)).sum();
            return Some((Resource::Cores, u64::from(procs), most));
        }
        let with_memory = Demand { gpus: 0, ..*demand };
        if !place_first_fit(cap, self.tracks_memory, procs, &with_memory, &mut out) {
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
        }
        ok
    }

    /// Gives the shares of a finished job back.
    pub fn give_back(&mut self, shares: &[Share]) {
        self.version += 1;
        self.free.give_back(shares);
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

/// Memory per processor of a job without a node count: per-node memory is read as the
/// whole job's on one node, spread over its processors (rounded up).
fn mem_per_unit(procs: u32, d: &Demand) -> u64 {
    if d.mem_per_node {
        d.mem_kb.div_ceil(u64::from(procs.max(1)))
    } else {
        d.mem_kb
    }
}

/// First-fit placement on the free nodes `f` (module header); `memory` says whether memory
/// is modelled. `out` gets the shares, or is left empty when the job does not fit.
pub fn place_first_fit(
    f: &NodeFree,
    memory: bool,
    procs: u32,
    d: &Demand,
    out: &mut Vec<Share>,
) -> bool {
    first_fit(f, memory, procs, d, out).is_ok()
}

/// [`place_first_fit`], telling for a job that does not fit how many of its units the
/// nodes hold in all ([`unit_room`]'s sum; meaningful for a job [`unit_mem`] describes).
pub fn first_fit(
    f: &NodeFree,
    memory: bool,
    procs: u32,
    d: &Demand,
    out: &mut Vec<Share>,
) -> Result<(), u64> {
    first_fit_within(f, memory, procs, d, None, out)
}

/// [`first_fit`] on the `allowed` nodes only (a bit per node; `None`: every node).
pub fn first_fit_within(
    f: &NodeFree,
    memory: bool,
    procs: u32,
    d: &Demand,
    allowed: Option<&[u64]>,
    out: &mut Vec<Share>,
) -> Result<(), u64> {
    out.clear();
    let placed = if d.nodes > 0 {
        match place_on_n_nodes(f, memory, procs, d, allowed, out) {
            true => Ok(()),
            false => Err(0),
        }
    } else {
        place_units(f, memory, procs, d, allowed, out)
    };
    if placed.is_err() {
        out.clear();
    }
    placed
}

/// The memory of each unit of a job without GPUs or a node count (0 when memory is not
/// modelled or the job states none), or `None` for a job with either. First-fit places
/// such a job exactly when the nodes hold its processors' worth of units in all (each node
/// in order takes as many of the units left as it holds), so whether it fits depends only
/// on the sum of [`unit_room`] over the nodes.
pub fn unit_mem(memory: bool, procs: u32, d: &Demand) -> Option<u64> {
    match (d.gpus, d.nodes) {
        (0, 0) if memory => Some(mem_per_unit(procs, d)),
        (0, 0) => Some(0),
        _ => None,
    }
}

/// How many units of `m` KB (one core each) node `n` holds in `f`.
pub fn unit_room(f: &NodeFree, n: usize, m: u64) -> u32 {
    units_in(f.cores[n], f.mem_kb[n], m)
}

/// How many units of `m` KB (one core each) `cores` and `mem_kb` hold. (The division only
/// where memory is short: a shadow reads every open node's room at each pass.)
pub fn units_in(cores: u32, mem_kb: u64, m: u64) -> u32 {
    if m == 0 || u64::from(cores).saturating_mul(m) <= mem_kb {
        cores
    } else {
        (mem_kb / m) as u32
    }
}

/// AccaSim's rule: each node in order takes as many {1 core, m KB} units as fit. A job
/// that does not fit gets the units placed before the walk ran out of nodes. With nodes
/// asleep, the nodes that are on are walked first, then the sleeping ones (so a job wakes
/// a node only when those on cannot hold it); the shares come out in node order either way.
fn place_units(
    f: &NodeFree,
    memory: bool,
    procs: u32,
    d: &Demand,
    allowed: Option<&[u64]>,
    out: &mut Vec<Share>,
) -> Result<(), u64> {
    let m = if memory { mem_per_unit(procs, d) } else { 0 };
    let mut left = (procs, d.gpus);
    if d.gpus > 0 {
        place_gpu_units(f, m, allowed, &mut left, out);
    } else {
        match f.any_asleep() {
            false => take_units(f, m, f.open_nodes_within(allowed), &mut left, out),
            true => {
                take_units(
                    f,
                    m,
                    f.open_nodes_where(allowed, Some(false)),
                    &mut left,
                    out,
                );
                let on = out.len();
                take_units(
                    f,
                    m,
                    f.open_nodes_where(allowed, Some(true)),
                    &mut left,
                    out,
                );
                // The nodes on came in node order: only a walk that woke some needs a sort.
                if out.len() > on {
                    out.sort_unstable_by_key(|s| s.node);
                }
            }
        }
    }
    let (cores_left, gpus_left) = left;
    match cores_left == 0 && gpus_left == 0 {
        true => Ok(()),
        false => Err(u64::from(procs - cores_left)),
    }
}

/// [`place_units`] for a job with GPUs: first the nodes with a free GPU (those on, then
/// those asleep), each taking its units and GPUs, until the GPUs are found; then the other
/// nodes, in the same order, for the cores left. A GPU job walked in plain node order
/// would stop at the first nodes with free cores whatever their GPUs, and wait while other
/// nodes hold both (docs/nodes.md, Placement).
fn place_gpu_units(
    f: &NodeFree,
    m: u64,
    allowed: Option<&[u64]>,
    left: &mut (u32, u32),
    out: &mut Vec<Share>,
) {
    let sleeps: &[Option<bool>] = match f.any_asleep() {
        false => &[None],
        true => &[Some(false), Some(true)],
    };
    for &asleep in sleeps {
        if left.1 == 0 {
            break;
        }
        let with_gpus = f
            .open_nodes_where(allowed, asleep)
            .filter(|&n| f.gpus[n] > 0);
        take_units_while(f, m, with_gpus, left, out, true);
    }
    let mut gpu_nodes: Vec<u32> = out.iter().map(|s| s.node).collect();
    gpu_nodes.sort_unstable();
    for &asleep in sleeps {
        let rest = f
            .open_nodes_where(allowed, asleep)
            .filter(|&n| gpu_nodes.binary_search(&(n as u32)).is_err());
        take_units(f, m, rest, left, out);
    }
    out.sort_unstable_by_key(|s| s.node);
}

/// [`place_units`]' walk over `nodes`, taking from `left` (cores, GPUs) as each holds.
fn take_units(
    f: &NodeFree,
    m: u64,
    nodes: impl Iterator<Item = usize>,
    left: &mut (u32, u32),
    out: &mut Vec<Share>,
) {
    take_units_while(f, m, nodes, left, out, false);
}

/// [`take_units`], stopping once the GPUs are found when `until_gpus`.
fn take_units_while(
    f: &NodeFree,
    m: u64,
    nodes: impl Iterator<Item = usize>,
    left: &mut (u32, u32),
    out: &mut Vec<Share>,
    until_gpus: bool,
) {
    let (cores_left, gpus_left) = left;
    for n in nodes {
        if (*cores_left == 0 || until_gpus) && *gpus_left == 0 {
            break;
        }
        let k = f.cores[n].min(*cores_left);
        // Divide only when memory binds: a 64-bit division per node was a tenth of EASY on
        // RICC's nodes, and memory rarely binds.
        let k = match m {
            0 => k,
            m if f.mem_kb[n] >= m.saturating_mul(u64::from(k)) => k,
            m => (f.mem_kb[n] / m) as u32,
        };
        if k == 0 {
            continue;
        }
        let g = f.gpus[n].min(*gpus_left);
        *cores_left -= k;
        *gpus_left -= g;
        out.push(Share {
            node: n as u32,
            cores: k,
            mem_kb: m * u64::from(k),
            gpus: g,
        });
    }
}

/// A job with a node count: the first `d.nodes` nodes that each hold their share (those
/// on before those asleep, as [`place_units`] walks them).
fn place_on_n_nodes(
    f: &NodeFree,
    memory: bool,
    procs: u32,
    d: &Demand,
    allowed: Option<&[u64]>,
    out: &mut Vec<Share>,
) -> bool {
    match f.split_by_sleep(allowed) {
        None => take_n_nodes(f, memory, procs, d, allowed, out),
        Some((on, off)) => {
            take_n_nodes(f, memory, procs, d, Some(&on), out);
            take_n_nodes(f, memory, procs, d, Some(&off), out);
            out.sort_unstable_by_key(|s| s.node);
        }
    }
    out.len() as u32 == d.nodes
}

/// [`place_on_n_nodes`]' walk over the `allowed` nodes, adding to the shares in `out`
/// until it holds `d.nodes` (each node's share is by its position in the job's nodes).
fn take_n_nodes(
    f: &NodeFree,
    memory: bool,
    procs: u32,
    d: &Demand,
    allowed: Option<&[u64]>,
    out: &mut Vec<Share>,
) {
    let n = d.nodes;
    for (node, &free_cores) in f.cores.iter().enumerate() {
        let i = out.len() as u32;
        if i == n {
            break;
        }
        if allowed.is_some_and(|a| a[node / 64] & (1u64 << (node % 64)) == 0) {
            continue;
        }
        let cores = procs / n + u32::from(i < procs % n);
        let gpus = d.gpus / n + u32::from(i < d.gpus % n);
        let mem_kb = match (memory, d.mem_per_node) {
            (false, _) => 0,
            (true, true) => d.mem_kb,
            (true, false) => d.mem_kb.saturating_mul(u64::from(cores)),
        };
        if free_cores >= cores && f.mem_kb[node] >= mem_kb && f.gpus[node] >= gpus {
            out.push(Share {
                node: node as u32,
                cores,
                mem_kb,
                gpus,
            });
        }
    }
}

#[cfg(test)]
#[path = "nodes_tests.rs"]
mod tests;
