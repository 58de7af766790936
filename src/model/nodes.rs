//! Nodes that exist (issue #37): what a job asks beyond processors ([`Demand`]), the node
//! types a site may list ([`NodeType`]), a job's part of a node ([`Share`]) and where each
//! job ran ([`Placements`]). A site's nodes are `pool.rs`'s [`super::NodePool`]; the walks
//! that place a job on them, `fit.rs`'s.
//!
//! Placement follows AccaSim 1.1.3's `FirstFit` (`accasim/base/allocator_class.py`), or its
//! `BestFit` when the run asks for it (`fit.rs`: the same walks, least free nodes first): a job
//! of P processors and m KB of memory per processor is P units of {1 core, m KB}; the nodes
//! are walked in order and each takes as many of the job's units as fit on it; all or
//! nothing for the job. Nodes are shared between jobs. A job with a node count N takes the
//! first N nodes that each hold its share (P / N cores, the rest spread one each over the
//! first nodes; its memory per node, or its share's memory per processor; G / N GPUs
//! likewise). A job's GPUs without a node count go with its cores: the nodes with a free
//! GPU are walked first, each giving as many of the GPUs still wanted as it has free with
//! its units, then the other nodes for the cores left.

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

/// The fewest nodes of one of `types` that hold a job of `procs` processors asking
/// `demand` (its node count when it names one; 1 on a site without node types, or when no
/// type can hold it): what a job's checkpoint interval reads as the nodes it spans
/// (`failure::Checkpointing::per_job`), before any placement. Cores, memory (per processor:
/// it adds up; per node: it does not) and GPUs each need ⌈asked / per node⌉ nodes.
pub fn fewest_nodes(procs: u32, demand: &Demand, types: &[NodeType]) -> u32 {
    if demand.nodes > 0 {
        return demand.nodes;
    }
    let need = |asked: u64, per_node: u64| match (asked, per_node) {
        (0, _) => Some(1),
        (_, 0) => None,
        _ => Some(asked.div_ceil(per_node)),
    };
    let mem_total = match demand.mem_per_node {
        true => 0,
        false => demand.mem_kb.saturating_mul(u64::from(procs)),
    };
    let memory_modelled = types.iter().any(|t| t.mem_kb > 0);
    types
        .iter()
        .filter(|t| !(demand.mem_per_node && memory_modelled && demand.mem_kb > t.mem_kb))
        .filter_map(|t| {
            let cores = need(u64::from(procs), u64::from(t.cores))?;
            let mem = match memory_modelled {
                true => need(mem_total, t.mem_kb)?,
                false => 1,
            };
            let gpus = need(u64::from(demand.gpus), u64::from(t.gpus))?;
            Some(cores.max(mem).max(gpus))
        })
        .min()
        .map_or(1, |k| k.clamp(1, u64::from(u32::MAX)) as u32)
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
    /// Each node of this type runs at most one job, held whole (scenario version 11;
    /// docs/nodes.md, "Node-exclusive node types"): an exclusive GPU partition beside
    /// shared CPU nodes. `allocation: node` on the site makes every type so.
    #[serde(default, skip_serializing_if = "is_false")]
    pub exclusive: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
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
    /// Beside `shares`, share for share, the cores and GPUs each job computes on there,
    /// once a node-exclusive site recorded a job that holds more than it computes on
    /// (`None` until then: every job computes on all it holds). What energy counts busy.
    busy: Option<Vec<Share>>,
}

impl Placements {
    /// Room for `jobs` jobs.
    pub fn for_jobs(jobs: usize) -> Placements {
        Placements {
            spans: vec![(0, 0); jobs],
            shares: Vec::new(),
            started: Vec::new(),
            busy: None,
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
            if let Some(busy) = self.busy.as_mut() {
                busy.extend_from_slice(shares);
            }
        }
    }

    /// Records job `idx`'s shares on a node-exclusive site, whole nodes, of which it
    /// computes on `procs` cores and `gpus` GPUs, kept for [`Placements::busy_of`]: a job
    /// of units the nodes' in order, each up to all it has (so its last node may compute
    /// on fewer); a job with a node count (`demand.nodes`) its even split (P / N each, the
    /// remainder one each on its first nodes in node order, as first fit places it). A
    /// share on a shared node (`whole(node)` false, on a site whose types are exclusive one
    /// by one) is the job's part already, and a job of units computes on the rest of its
    /// processors on its whole nodes.
    pub fn record_whole(
        &mut self,
        idx: usize,
        shares: &[Share],
        procs: u32,
        demand: &Demand,
        whole: impl Fn(u32) -> bool,
    ) {
        if self.spans.get(idx).is_none() {
            return;
        }
        let busy = self.busy.get_or_insert_with(|| self.shares.clone());
        let n = demand.nodes;
        let shared = shares.iter().filter(|s| !whole(s.node));
        let (mut cores, mut gpus) = shared.fold((procs, demand.gpus), |(c, g), s| {
            (c.saturating_sub(s.cores), g.saturating_sub(s.gpus))
        });
        for (i, s) in shares.iter().enumerate() {
            let (c, g) = match n {
                _ if !whole(s.node) => (s.cores, s.gpus),
                0 => (s.cores.min(cores), s.gpus.min(gpus)),
                n => {
                    let part = |t: u32| t / n + u32::from((i as u32) < t % n);
                    (part(procs).min(s.cores), part(demand.gpus).min(s.gpus))
                }
            };
            if whole(s.node) {
                (cores, gpus) = (cores.saturating_sub(c), gpus.saturating_sub(g));
            }
            busy.push(Share {
                cores: c,
                gpus: g,
                ..*s
            });
        }
        self.spans[idx] = (self.shares.len() as u32, shares.len() as u32);
        self.started.push((idx as u32, self.spans[idx].0));
        self.shares.extend_from_slice(shares);
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

    /// What job `idx` computes on of its shares ([`Placements::of`]): on a node-exclusive
    /// site, less than the whole nodes it holds ([`Placements::record_whole`]).
    pub fn busy_of(&self, idx: usize) -> &[Share] {
        match (self.busy.as_ref(), self.spans.get(idx)) {
            (Some(busy), Some(&(at, n))) => &busy[at as usize..(at + n) as usize],
            _ => self.of(idx),
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
