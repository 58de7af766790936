//! Node-group selection inside one heterogeneous cluster (SES Appendix B.1), as a dispatcher:
//! the engine sees each node group as a site of its own (node-exclusive, with its own FCFS
//! or other local queue), and this policy decides, on arrival, which group's queue a job
//! joins. A job never spans groups.
//!
//! - *Small* jobs (fewer CPUs than `small_below_cpus`, 4 by default: SES's "jobs requiring
//!   less than 4 processors") go to the single-CPU group. *Restricted*: always. *Non-
//!   restricted*: unless that group cannot start them at once (SES: "if all the single
//!   processor machines were in use"); then they contend for the multi-CPU groups like wide
//!   jobs.
//! - *Wide* jobs (and overflowing small ones) pick an eligible multi-CPU group:
//!   - *random* (`random.rs`): group G_i with probability |G_i| / T, |G_i| its nodes. SES's T is "the total
//!     number of nodes in the cluster"; a draw may only land on an eligible group, so a draw
//!     that lands elsewhere is redrawn, which is the same as T = the eligible groups' nodes
//!     (what we draw with);
//!   - *most nodes available* (MNA, `mna.rs`): the eligible group with the most free nodes now; ties go
//!     to the larger group, then to the earlier one.
//!
//! A group is eligible when it has at least the nodes the job needs (⌈p / CPUs per node⌉).
//! With no multi-CPU group eligible, a wide job goes to a single-CPU group that can hold it.
//! A 1-CPU job on a 4-CPU node holds the whole node (node-exclusive, as the platform says).

mod mna;
mod random;

use super::{GridAction, GridMsg, GridPolicy, GridView};
use crate::model::JobIdx;
use crate::rng::SimRng;

/// How a group is chosen among the eligible multi-CPU groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupStrategy {
    /// In proportion to the groups' node counts (SES "random").
    Random,
    /// The group with the most free nodes (SES "most nodes available").
    MostNodesAvailable,
}

/// SES's node-group selection (see the module doc).
pub struct GroupSelection {
    strategy: GroupStrategy,
    restricted: bool,
    small_below_cpus: u32,
    rng: SimRng,
    /// One FCFS queue for the whole site (see [`GroupSelection::with_site_queue`]).
    site_queue: Option<SiteQueue>,
}

/// The site-wide FCFS queue and the units it sent to each group at the current instant
/// (not yet started, so not yet in the groups' free counts).
#[derive(Default)]
struct SiteQueue {
    jobs: std::collections::VecDeque<JobIdx>,
    at: Option<crate::time::SimTime>,
    sent: Vec<u32>,
}

impl GroupSelection {
    /// A selector; `seed` drives the random strategy's draws (one per decision, in arrival order).
    pub fn new(
        strategy: GroupStrategy,
        restricted: bool,
        small_below_cpus: u32,
        seed: u64,
    ) -> GroupSelection {
        GroupSelection {
            strategy,
            restricted,
            small_below_cpus,
            rng: SimRng::new(seed),
            site_queue: None,
        }
    }

    /// One FCFS queue for the whole site instead of one per group: jobs wait at the site in
    /// arrival order; the head goes to a group the moment one can start it (the same rules,
    /// among the groups with enough free nodes now), and blocks everyone behind it.
    pub fn with_site_queue(mut self, on: bool) -> Self {
        self.site_queue = on.then(SiteQueue::default);
        self
    }

    /// The group job `job` goes to: `free(g)` are the nodes free at group `g` (for the site
    /// queue: free now and not yet promised), `None` when it must wait.
    fn target(
        &mut self,
        grid: &dyn GridView,
        job: JobIdx,
        free: &dyn Fn(u32) -> u32,
        now_only: bool,
    ) -> Option<u32> {
        let fits = |g: u32| grid.units(g, job) <= grid.capacity(g);
        let can_start = |g: u32| !now_only || grid.units(g, job) <= free(g);
        let groups = 0..grid.sites() as u32;
        let single: Vec<u32> = groups
            .clone()
            .filter(|&g| grid.cpus_per_unit(g) == 1 && fits(g))
            .collect();
        let multi: Vec<u32> = groups
            .filter(|&g| grid.cpus_per_unit(g) > 1 && fits(g))
            .collect();
        // The single-CPU group with the most free nodes (SES has one: D).
        let best_single = single
            .iter()
            .copied()
            .min_by(|&a, &b| free(b).cmp(&free(a)).then(a.cmp(&b)));
        let small = grid.procs(job) < self.small_below_cpus;
        let single_now = |s: u32| {
            if now_only {
                grid.units(s, job) <= free(s)
            } else {
                grid.awt(s, job) == Some(crate::time::SimTime::ZERO)
            }
        };
        match best_single {
            Some(s) if small && (self.restricted || multi.is_empty()) => {
                return can_start(s).then_some(s)
            }
            Some(s) if small && single_now(s) => return Some(s),
            _ => {}
        }
        let open: Vec<u32> = multi.iter().copied().filter(|&g| can_start(g)).collect();
        if multi.is_empty() {
            return best_single.filter(|&s| can_start(s));
        }
        self.choose(grid, &open)
    }

    /// Sends the site queue's head to a group while one can start it now.
    fn drain_site_queue(&mut self, grid: &dyn GridView, out: &mut Vec<GridAction>) {
        let Some(mut q) = self.site_queue.take() else {
            return;
        };
        if q.at != Some(grid.now()) {
            q.at = Some(grid.now());
            q.sent = vec![0; grid.sites()];
        }
        while let Some(&job) = q.jobs.front() {
            let sent = q.sent.clone();
            let free = |g: u32| grid.free(g).saturating_sub(sent[g as usize]);
            let Some(site) = self.target(grid, job, &free, true) else {
                break;
            };
            q.sent[site as usize] += grid.units(site, job);
            q.jobs.pop_front();
            out.push(GridAction::Dispatch { job, site });
        }
        self.site_queue = Some(q);
    }

    /// Picks among `candidates` by the strategy; `None` when there are none.
    fn choose(&mut self, grid: &dyn GridView, candidates: &[u32]) -> Option<u32> {
        match self.strategy {
            GroupStrategy::Random => random::pick(&mut self.rng, grid, candidates),
            GroupStrategy::MostNodesAvailable => mna::pick(grid, candidates),
        }
    }
}

impl GridPolicy for GroupSelection {
    fn name(&self) -> &'static str {
        match (self.strategy, self.restricted) {
            (GroupStrategy::Random, false) => "groups-random",
            (GroupStrategy::Random, true) => "groups-random-restricted",
            (GroupStrategy::MostNodesAvailable, false) => "groups-mna",
            (GroupStrategy::MostNodesAvailable, true) => "groups-mna-restricted",
        }
    }

    fn on_arrival(&mut self, job: JobIdx, grid: &dyn GridView, out: &mut Vec<GridAction>) {
        if let Some(q) = self.site_queue.as_mut() {
            q.jobs.push_back(job);
            return self.drain_site_queue(grid, out);
        }
        let free = |g: u32| grid.free(g);
        if let Some(site) = self.target(grid, job, &free, false) {
            out.push(GridAction::Dispatch { job, site });
        }
    }

    fn on_message(&mut self, _: GridMsg, _: &dyn GridView, _: &mut Vec<GridAction>) {}

    fn held(&self) -> usize {
        self.site_queue.as_ref().map_or(0, |q| q.jobs.len())
    }

    fn wants_releases(&self) -> bool {
        self.site_queue.is_some()
    }

    fn on_release(&mut self, grid: &dyn GridView, out: &mut Vec<GridAction>) {
        self.drain_site_queue(grid, out);
    }
}
