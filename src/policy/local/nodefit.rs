//! What a scheduling pass sees of a site's nodes (issue #37): the free nodes and every job's
//! demand ([`NodesView`]), and the pass's own record of the nodes it has taken so far
//! ([`NodeFit`]), so that a job "fits now" exactly when first-fit placement finds it nodes
//! — the placement the engine then makes. Sites without node types never reach this.

use super::{NowFit, QueuedJob, SiteView};
use crate::model::nodes::place_first_fit;
use crate::model::{Demand, JobIdx, NodeFree, NodePool, Share};

/// A node-typed site's nodes and the jobs' demands (indexed by job; empty when every job
/// asks for processors only).
#[derive(Clone, Copy, Debug)]
pub struct NodesView<'a> {
    pub pool: &'a NodePool,
    pub demands: &'a [Demand],
}

impl NodesView<'_> {
    /// Job `idx`'s demand beyond processors.
    pub fn demand(&self, idx: JobIdx) -> Demand {
        self.demands.get(idx as usize).copied().unwrap_or_default()
    }
}

/// The nodes one pass has taken: a copy of the free nodes made at its first start (a pass
/// that starts nothing copies nothing), and the last placement found.
#[derive(Debug, Default)]
pub(crate) struct NodeFit {
    taken: Option<NodeFree>,
    last: Vec<Share>,
}

impl NodeFit {
    /// True when `procs` × job `idx`'s demand can be placed on the nodes free now.
    pub(crate) fn fits(&mut self, nodes: &NodesView, idx: JobIdx, procs: u32) -> bool {
        let demand = nodes.demand(idx);
        match &self.taken {
            None => nodes.pool.place(procs, &demand, &mut self.last),
            Some(free) => place_first_fit(
                free,
                nodes.pool.tracks_memory,
                procs,
                &demand,
                &mut self.last,
            ),
        }
    }

    /// Takes the placement the last [`NodeFit::fits`] found.
    pub(crate) fn take(&mut self, nodes: &NodesView) {
        let free = self.taken.get_or_insert_with(|| nodes.pool.free.clone());
        for s in &self.last {
            let n = s.node as usize;
            free.cores[n] -= s.cores;
            free.mem_kb[n] -= s.mem_kb;
            free.gpus[n] -= s.gpus;
        }
        self.last.clear();
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
            Some(nodes) => self.nodes.fits(nodes, job.idx, job.units),
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
