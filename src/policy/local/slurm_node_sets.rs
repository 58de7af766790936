//! Slurm partitions as node sets (issue #42, docs/slurm.md "Partitions"): a partition
//! whose `Nodes=` names node types of a node-typed site runs its jobs on those types'
//! nodes only. Per site, each partition's nodes as a bit mask (node order), and the pool
//! of its nodes alone, to tell a job its partition can never hold.

use std::sync::Arc;

use crate::model::{Demand, NodePool, Resource, Site};
use crate::policy::slurm::{SlurmConfig, SlurmJobs};

/// The node sets of one site's partitions, by dense partition index (`None`: the whole
/// site).
#[derive(Clone, Debug, Default)]
pub(crate) struct NodeSets {
    masks: Vec<Option<Vec<u64>>>,
    pools: Vec<Option<NodePool>>,
    /// The jobs' demands, for the partitions that can never hold a job.
    demands: Arc<Vec<Demand>>,
}

impl NodeSets {
    /// The partitions of `jobs` with a `Nodes=` naming node types `site` has, every one.
    pub(crate) fn for_site(
        cfg: &SlurmConfig,
        jobs: &SlurmJobs,
        site: &Site,
        demands: Arc<Vec<Demand>>,
    ) -> NodeSets {
        let mut sets = NodeSets {
            demands,
            ..NodeSets::default()
        };
        for &raw in jobs.partitions() {
            let name = raw.to_string();
            let names = cfg
                .partitions
                .iter()
                .find(|p| p.name == name)
                .and_then(|p| p.nodes.as_ref());
            let set = names.and_then(|names| nodes_of(site, names));
            sets.masks.push(set.as_ref().map(|(mask, _)| mask.clone()));
            sets.pools.push(set.map(|(_, pool)| pool));
        }
        sets
    }

    /// True when some partition is a node set here.
    pub(crate) fn any(&self) -> bool {
        self.masks.iter().any(Option::is_some)
    }

    /// Dense partition `p`'s nodes, when it is a node set.
    pub(crate) fn mask(&self, p: u32) -> Option<&[u64]> {
        self.masks.get(p as usize)?.as_deref()
    }

    /// Why partition `p`'s nodes can never hold job `idx` of `procs` processors: the
    /// resource that falls short, what the job needs of it and the most they have.
    pub(crate) fn never_holds(
        &self,
        p: u32,
        idx: usize,
        procs: u32,
    ) -> Option<(Resource, u64, u64)> {
        let pool = self.pools.get(p as usize)?.as_ref()?;
        let demand = self.demands.get(idx).copied().unwrap_or_default();
        pool.never_fits(procs, &demand)
    }
}

/// The nodes of the types `names` on `site`, as a mask and as a pool of their own; `None`
/// unless the site has node types and every name is one of them.
fn nodes_of(site: &Site, names: &[String]) -> Option<(Vec<u64>, NodePool)> {
    if site.node_types.is_empty() || names.is_empty() {
        return None;
    }
    if !names
        .iter()
        .all(|n| site.node_types.iter().any(|t| t.name == *n))
    {
        return None;
    }
    let named = |t: &crate::model::NodeType| names.contains(&t.name);
    let types: Vec<_> = site
        .node_types
        .iter()
        .filter(|t| named(t))
        .cloned()
        .collect();
    Some((site.nodes_of_types(named), NodePool::new(&types)))
}

/// `a` and `b`, word by word (a missing word is no node).
pub(crate) fn and(a: &mut [u64], b: &[u64]) {
    for (i, w) in a.iter_mut().enumerate() {
        *w &= b.get(i).copied().unwrap_or(0);
    }
}

/// `a` without `b`.
pub(crate) fn and_not(a: &mut [u64], b: &[u64]) {
    for (w, x) in a.iter_mut().zip(b) {
        *w &= !x;
    }
}
