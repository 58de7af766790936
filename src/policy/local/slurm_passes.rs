//! The `slurm` policy's pass over node sets (issue #42, partitions as node sets) and the
//! helpers of its backfill on nodes: kept apart from `slurm.rs` (a child module, so it
//! reads the policy's own fields).

use super::super::nodefit::NodesView;
use super::super::slurm_node_sets::{and, and_not};
use super::super::NowFit;
use super::super::SiteView;
use super::Slurm;
use crate::model::{JobIdx, NodeFree, Share};
use crate::time::SimTime;

impl Slurm {
    /// The main scheduler when some partitions are node sets: in queue order, each job
    /// starts if it fits on its partition's nodes (the whole site's otherwise) that no
    /// blocked job has taken out; a job that does not fit takes its partition's nodes out
    /// of the rest of the pass (all of them for a partition that spans the site), as
    /// slurmctld's `job_scheduler.c` does with the failed partition's node bitmap. So a
    /// partition's blocked head holds up only the partitions that share its nodes. The
    /// nodes each start takes are chosen here ([`super::super::LocalPolicy::chosen_nodes`]).
    pub(super) fn main_on_node_sets(
        &mut self,
        site: &SiteView,
        nodes: &NodesView,
        fit: &mut NowFit,
        placed: &mut Vec<(SimTime, Vec<Share>)>,
        starts: &mut Vec<JobIdx>,
    ) {
        let n = nodes.pool.len();
        let mut open = vec![u64::MAX; n.div_ceil(64)];
        if !n.is_multiple_of(64) {
            if let Some(last) = open.last_mut() {
                *last = (1u64 << (n % 64)) - 1;
            }
        }
        let mut started = Vec::new();
        for i in 0..self.queue.len() {
            if open.iter().all(|&w| w == 0) {
                break;
            }
            let job = self.queue[i].job;
            // A job its QOS holds is passed over: its partition's nodes stay open.
            if self.held(job.idx) {
                continue;
            }
            let mask = self.mask_of(job.idx).map(<[u64]>::to_vec);
            let mut allowed = open.clone();
            if let Some(m) = &mask {
                and(&mut allowed, m);
            }
            if let Some(window) = nodes.allowed(site.now, job.estimate) {
                and(&mut allowed, &window);
            }
            let fits = fit.fits(site, job.units, job.estimate)
                && fit
                    .nodes
                    .fits_within(nodes, job.idx, job.units, Some(&allowed));
            if !fits {
                match &mask {
                    Some(m) => and_not(&mut open, m),
                    None => open.iter_mut().for_each(|w| *w = 0),
                }
                continue;
            }
            let shares = fit.nodes.last().to_vec();
            placed.push((job.estimate, shares.clone()));
            self.chosen.push((job.idx, shares));
            fit.take_job(site, &job);
            self.admit(job.idx);
            started.push(i);
        }
        self.start_positions(&started, site.now, starts);
    }
}

/// A job of units: its partition (dense), processors, KB per processor, planned run.
pub(super) type Shape = (u32, u32, u64, SimTime);

/// The latest floor among the shapes `k` covers (each of its partition, no wider, hungrier
/// or longer: a partition's nodes are its own).
pub(super) fn floor(floors: &[(Shape, SimTime)], k: Shape) -> SimTime {
    floors
        .iter()
        .filter(|(f, _)| f.0 == k.0 && f.1 <= k.1 && f.2 <= k.2 && f.3 <= k.3)
        .map(|&(_, t)| t)
        .max()
        .unwrap_or(SimTime::ZERO)
}

/// True when every share fits in what its node has free.
pub(super) fn within(free: &NodeFree, shares: &[Share]) -> bool {
    shares.iter().all(|s| {
        let n = s.node as usize;
        free.cores.get(n).is_some_and(|&c| c >= s.cores)
            && free.mem_kb.get(n).is_some_and(|&m| m >= s.mem_kb)
            && free.gpus.get(n).is_some_and(|&g| g >= s.gpus)
    })
}
