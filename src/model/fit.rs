//! Where a job's units go on a site's nodes (issue #37): the free nodes ([`NodeFree`]) and
//! the walks of first fit and best fit over them, which every start, every policy's "fits
//! now" and every reservation on nodes make (module header of [`super::nodes`]).
//!
//! The rule is the free nodes' own ([`NodeFree::rule`], set per run from the algorithm's
//! `placement`), so a copy of them places as the engine does:
//! - **first fit**: the nodes in node order (AccaSim 1.1.3's `FirstFit`);
//! - **best fit**: the nodes with the least free first, by the sum of their free cores,
//!   KB of memory and GPUs — AccaSim 1.1.3's `BestFit` rank
//!   (`sum(self.avl_resources[x].values())`), where the KB of memory outweigh the cores
//!   whenever memory is modelled — ties in node order. The order is read from the free
//!   nodes at each placement; AccaSim sorts stably after each allocation within a call,
//!   so its ties depend on the allocations made earlier in the call (docs/nodes.md).
//!
//! Either way the nodes that are on come before those asleep, GPU nodes first for a job
//! with GPUs, and the shares come out in node order.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use serde::{Deserialize, Serialize};

use super::nodes::{Demand, Share};

#[path = "fit_n_nodes.rs"]
mod n_nodes;
use n_nodes::place_on_n_nodes;

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
    /// How a placement walks these nodes (first fit unless the run asked for best fit);
    /// copies place as the original does.
    rule: PlacementRule,
    /// Bit n: node n is node-exclusive (a site of `allocation: node` with node types, or a
    /// node type marked `exclusive`): it runs at most one job, so a placement's share of it
    /// is all of it. Such a node is then either whole or held whole, and a placement walks
    /// only whole ones without knowing it: the others have nothing free. Empty when no
    /// node is. Copies place as the original does.
    exclusive: Vec<u64>,
    /// Under best fit, the open nodes as (rank, node), least first: the order best fit
    /// walks them, kept share by share, so a walk reads the fullest nodes first without
    /// ranking every node (RICC: a heap of every open node per placement made best fit
    /// 5× first fit). `None` under first fit, and once a take or give-back of more than
    /// [`KEPT_SHARES`] shares dropped it (EASY's reservation releases every running job
    /// into a copy that is rarely walked); a walk then ranks the nodes afresh, and the
    /// site's own free nodes rank again at once ([`NodeFree::keep_order`]).
    ranked: Option<Vec<(u64, u32)>>,
    /// The sum of `cores`, kept by `push`, `take` and `give_back` ([`NodeFree::cores_free`]):
    /// EASY on nodes asked it up to three times a pass, a sum over every node each time
    /// (RICC with failures: a twentieth of the run). Code that edits `cores` directly (the
    /// resource sweep's own copy) leaves it stale and must not read it.
    cores_free: u64,
}

impl NodeFree {
    pub(super) fn push(&mut self, cores: u32, mem_kb: u64, gpus: u32) {
        let n = self.cores.len();
        self.cores_free += u64::from(cores);
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

    /// How a placement walks these nodes.
    pub fn rule(&self) -> PlacementRule {
        self.rule
    }

    /// True when some node is node-exclusive ([`NodeFree::exclusive`]): a placement may
    /// hold nodes whole.
    pub fn is_exclusive(&self) -> bool {
        !self.exclusive.is_empty()
    }

    /// True when node `n` runs at most one job.
    #[inline]
    pub fn is_exclusive_node(&self, n: usize) -> bool {
        self.exclusive
            .get(n / 64)
            .is_some_and(|w| w >> (n % 64) & 1 == 1)
    }

    /// Holds the nodes of `mask` (bit n: node n) whole and the others shared, from now on.
    pub fn set_exclusive_nodes(&mut self, mask: Vec<u64>) {
        self.exclusive = match mask.iter().any(|&w| w != 0) {
            true => mask,
            false => Vec::new(),
        };
    }

    /// Places by `rule` from now on.
    pub fn set_rule(&mut self, rule: PlacementRule) {
        self.rule = rule;
        self.ranked = None;
        self.keep_order();
    }

    /// Under best fit, ranks the open nodes again if a large change dropped their order.
    pub fn keep_order(&mut self) {
        if self.rule == PlacementRule::BestFit && self.ranked.is_none() {
            self.ranked = Some(self.ranked_afresh());
        }
    }

    /// The open nodes as (rank, node), least first, ranked from what is free now.
    fn ranked_afresh(&self) -> Vec<(u64, u32)> {
        let mut ranked: Vec<(u64, u32)> = self
            .open_nodes()
            .map(|n| (best_fit_rank(self, n), n as u32))
            .collect();
        ranked.sort_unstable();
        ranked
    }

    /// True when best fit's kept order is what ranking the open nodes afresh gives (or
    /// none is kept).
    #[cfg(test)]
    pub(crate) fn kept_order_is_fresh(&self) -> bool {
        self.ranked
            .as_ref()
            .is_none_or(|kept| *kept == self.ranked_afresh())
    }

    /// Before `shares` change their nodes: their nodes leave best fit's kept order, or the
    /// order is dropped when they are many; false when it is not kept.
    fn unrank(&mut self, shares: &[Share]) -> bool {
        if shares.len() > KEPT_SHARES {
            self.ranked = None;
        }
        let Some(mut ranked) = self.ranked.take() else {
            return false;
        };
        for s in shares {
            let n = s.node as usize;
            if self.cores[n] > 0 {
                if let Ok(i) = ranked.binary_search(&(best_fit_rank(self, n), s.node)) {
                    ranked.remove(i);
                }
            }
        }
        self.ranked = Some(ranked);
        true
    }

    /// After `shares` changed their nodes: those with a free core back in the kept order.
    fn rerank(&mut self, shares: &[Share]) {
        let Some(mut ranked) = self.ranked.take() else {
            return;
        };
        for s in shares {
            let n = s.node as usize;
            let key = (best_fit_rank(self, n), s.node);
            if self.cores[n] > 0 {
                if let Err(i) = ranked.binary_search(&key) {
                    ranked.insert(i, key);
                }
            }
        }
        self.ranked = Some(ranked);
    }

    /// Takes the shares (each within what its node has free); a node asleep is woken.
    pub fn take(&mut self, shares: &[Share]) {
        let kept = self.unrank(shares);
        for s in shares {
            let n = s.node as usize;
            self.cores[n] -= s.cores;
            self.cores_free -= u64::from(s.cores);
            self.mem_kb[n] -= s.mem_kb;
            self.gpus[n] -= s.gpus;
            self.mark(n);
            if let Some(word) = self.asleep.get_mut(n / 64) {
                *word &= !(1u64 << (n % 64));
            }
        }
        if kept {
            self.rerank(shares);
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
        self.rule = src.rule;
        self.exclusive.clone_from(&src.exclusive);
        self.ranked.clone_from(&src.ranked);
        self.cores_free = src.cores_free;
    }

    /// The free cores of every node together.
    pub fn cores_free(&self) -> u64 {
        debug_assert_eq!(
            self.cores_free,
            self.cores.iter().map(|&c| u64::from(c)).sum::<u64>()
        );
        self.cores_free
    }

    /// True when some node is asleep.
    fn any_asleep(&self) -> bool {
        self.asleep.iter().any(|&w| w != 0)
    }

    /// Gives the shares back.
    pub fn give_back(&mut self, shares: &[Share]) {
        let kept = self.unrank(shares);
        for s in shares {
            let n = s.node as usize;
            self.cores[n] += s.cores;
            self.cores_free += u64::from(s.cores);
            self.mem_kb[n] += s.mem_kb;
            self.gpus[n] += s.gpus;
            self.mark(n);
        }
        if kept {
            self.rerank(shares);
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

/// The most shares a take or give-back moves in best fit's kept order one by one (each a
/// search and a shift of the order); more drop it ([`NodeFree::ranked`]).
const KEPT_SHARES: usize = 16;

/// How a start picks its nodes among those that hold it (an algorithm's `placement`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlacementRule {
    /// The nodes in node order (AccaSim's `FirstFit`).
    #[default]
    FirstFit,
    /// The nodes with the least free first (AccaSim's `BestFit` rank), to pack jobs and
    /// keep whole nodes free for wide ones.
    BestFit,
}

impl PlacementRule {
    pub const ALL: [PlacementRule; 2] = [PlacementRule::FirstFit, PlacementRule::BestFit];

    /// `first-fit`, `best-fit` (the CLI's and the labels' spelling).
    pub fn name(self) -> &'static str {
        match self {
            PlacementRule::FirstFit => "first-fit",
            PlacementRule::BestFit => "best-fit",
        }
    }

    /// The rule `first-fit` / `best-fit` (or `ff` / `bf`, AccaSim's short names) name.
    pub fn parse(s: &str) -> Option<PlacementRule> {
        match s.trim().to_ascii_lowercase().replace('_', "-").as_str() {
            "first-fit" | "firstfit" | "ff" => Some(PlacementRule::FirstFit),
            "best-fit" | "bestfit" | "bf" => Some(PlacementRule::BestFit),
            _ => None,
        }
    }

    pub fn is_first_fit(&self) -> bool {
        *self == PlacementRule::FirstFit
    }

    /// A comma list of rules (`first-fit,best-fit`), in order.
    pub fn parse_list(s: &str) -> Result<Vec<PlacementRule>, UnknownPlacement> {
        s.split(',')
            .map(|r| PlacementRule::parse(r).ok_or_else(|| UnknownPlacement(r.trim().into())))
            .collect()
    }
}

/// A placement rule not known by that name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownPlacement(pub String);

impl std::fmt::Display for UnknownPlacement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "'{}' is not a placement: first-fit or best-fit", self.0)
    }
}

impl std::error::Error for UnknownPlacement {}

/// Nodes in the order the free nodes' rule walks them: as given (first fit), or sorted by
/// best fit's rank then node number.
enum Walk<I, K = std::iter::Empty<usize>> {
    AsGiven(I),
    /// Best fit's kept order ([`NodeFree::ranked`]).
    Kept(K),
    /// (rank, node), least first: a heap, not a sort, as a walk mostly stops after the
    /// first few nodes.
    Ranked(BinaryHeap<Reverse<(u64, u32)>>),
}

impl<I: Iterator<Item = usize>, K: Iterator<Item = usize>> Iterator for Walk<I, K> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        match self {
            Walk::AsGiven(it) => it.next(),
            Walk::Kept(it) => it.next(),
            Walk::Ranked(heap) => heap.pop().map(|Reverse((_, n))| n as usize),
        }
    }
}

/// The open `allowed` nodes of `f`, asleep or on as `asleep` says (`None`: both), that
/// `keep`, in the order `f`'s rule walks them: node order, or best fit's kept order.
fn walk<'a>(
    f: &'a NodeFree,
    allowed: Option<&'a [u64]>,
    asleep: Option<bool>,
    keep: impl Fn(usize) -> bool + Copy + 'a,
) -> Walk<impl Iterator<Item = usize> + 'a, impl Iterator<Item = usize> + 'a> {
    match f.rule {
        PlacementRule::FirstFit => Walk::AsGiven(
            f.open_nodes_where(allowed, asleep)
                .filter(move |&n| keep(n)),
        ),
        PlacementRule::BestFit => match &f.ranked {
            Some(ranked) => Walk::Kept(ranked.iter().map(|&(_, n)| n as usize).filter(move |&n| {
                let bit = 1u64 << (n % 64);
                allowed.is_none_or(|a| a[n / 64] & bit != 0)
                    && asleep.is_none_or(|s| s == f.is_asleep(n))
                    && keep(n)
            })),
            None => Walk::Ranked(ranked_heap(
                f,
                f.open_nodes_where(allowed, asleep).filter(|&n| keep(n)),
            )),
        },
    }
}

/// `nodes` (given in node order) in the order `f`'s rule walks them, ranked afresh (a
/// walk over nodes without a free core too: [`take_n_nodes`]).
fn in_rule_order<I: Iterator<Item = usize>>(f: &NodeFree, nodes: I) -> Walk<I> {
    match f.rule {
        PlacementRule::FirstFit => Walk::AsGiven(nodes),
        PlacementRule::BestFit => Walk::Ranked(ranked_heap(f, nodes)),
    }
}

/// `nodes` ranked afresh in a heap, least first; equal ranks in node order (the node is
/// the second key).
fn ranked_heap(
    f: &NodeFree,
    nodes: impl Iterator<Item = usize>,
) -> BinaryHeap<Reverse<(u64, u32)>> {
    nodes
        .map(|n| Reverse((best_fit_rank(f, n), n as u32)))
        .collect()
}

/// AccaSim's `BestFit` rank of node `n`: the sum of what it has free.
pub fn best_fit_rank(f: &NodeFree, n: usize) -> u64 {
    u64::from(f.cores[n])
        .saturating_add(f.mem_kb[n])
        .saturating_add(u64::from(f.gpus[n]))
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

/// Placement on the free nodes `f` by their rule (module header; first fit unless the run
/// asked for best fit); `memory` says whether memory
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
    if let Some(room) = short_of_units(f, memory, procs, d, allowed) {
        return Err(room);
    }
    let placed = if d.nodes > 0 {
        match place_on_n_nodes(f, memory, procs, d, allowed, out) {
            true => Ok(()),
            false => Err(0),
        }
    } else {
        place_units(f, memory, procs, d, allowed, out)
    };
    match placed {
        Err(_) => out.clear(),
        // Best fit walked the nodes by rank: the shares go back to node order.
        Ok(()) if !f.rule.is_first_fit() => out.sort_unstable_by_key(|s| s.node),
        Ok(()) => {}
    }
    if placed.is_ok() && f.is_exclusive() {
        whole_nodes(f, out);
    }
    placed
}

/// Each share of a placement on a node-exclusive node widened to all its node has free,
/// which is all of the node: such a node with anything free holds no job there. Shares on
/// shared nodes stay the job's part.
pub fn whole_nodes(f: &NodeFree, shares: &mut [Share]) {
    for s in shares {
        let n = s.node as usize;
        if f.is_exclusive_node(n) {
            (s.cores, s.mem_kb, s.gpus) = (f.cores[n], f.mem_kb[n], f.gpus[n]);
        }
    }
}

/// Under best fit, for a job of units only ([`unit_mem`]) that the nodes cannot hold: the
/// units they hold in all (what first fit's failed walk tells), counted without ranking
/// the nodes. Such a job fits exactly when the units held in all reach its processors,
/// whatever the order, and a ranked walk costs a heap of every open node: most walks of
/// a queue's head fail (RICC under FCFS). `None` when the job may fit, or under first fit.
fn short_of_units(
    f: &NodeFree,
    memory: bool,
    procs: u32,
    d: &Demand,
    allowed: Option<&[u64]>,
) -> Option<u64> {
    if f.rule.is_first_fit() {
        return None;
    }
    units_short(f, unit_mem(memory, procs, d)?, procs, allowed)
}

/// The units of `m` KB the `allowed` open nodes of `f` hold in all, when fewer than
/// `procs` (`None` once they reach it).
fn units_short(f: &NodeFree, m: u64, procs: u32, allowed: Option<&[u64]>) -> Option<u64> {
    let mut room = 0u64;
    if procs == 0 {
        return None;
    }
    for n in f.open_nodes_within(allowed) {
        room += u64::from(unit_room(f, n, m));
        if room >= u64::from(procs) {
            return None;
        }
    }
    Some(room)
}

/// True when `procs` × `d` can be placed on `f` by its rule (`out` is scratch). For a job
/// of units only ([`unit_mem`]) the units the nodes hold in all decide, whatever the rule,
/// so they are counted without a walk: best fit would rank every node (on RICC, at each
/// of 447,000 arrivals: six-tenths of a best-fit run, before this).
pub fn can_place(f: &NodeFree, memory: bool, procs: u32, d: &Demand, out: &mut Vec<Share>) -> bool {
    match unit_mem(memory, procs, d) {
        Some(m) => units_short(f, m, procs, None).is_none(),
        None => place_first_fit(f, memory, procs, d, out),
    }
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

/// AccaSim's rule: each node in order (the rule's: node order for first fit) takes as many
/// {1 core, m KB} units as fit. A job that does not fit gets the units placed before the
/// walk ran out of nodes. With nodes
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
            false => {
                let nodes = walk(f, allowed, None, |_| true);
                take_units(f, m, nodes, &mut left, out)
            }
            true => {
                let on = walk(f, allowed, Some(false), |_| true);
                take_units(f, m, on, &mut left, out);
                let on = out.len();
                let asleep = walk(f, allowed, Some(true), |_| true);
                take_units(f, m, asleep, &mut left, out);
                // The nodes on came in node order (under first fit): only a walk that
                // woke some needs a sort.
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
        let with_gpus = walk(f, allowed, asleep, |n| f.gpus[n] > 0);
        take_units_while(f, m, with_gpus, left, out, true);
    }
    let mut gpu_nodes: Vec<u32> = out.iter().map(|s| s.node).collect();
    gpu_nodes.sort_unstable();
    for &asleep in sleeps {
        let gpu_nodes = &gpu_nodes;
        let rest = walk(f, allowed, asleep, move |n| {
            gpu_nodes.binary_search(&(n as u32)).is_err()
        });
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
