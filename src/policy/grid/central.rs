use super::{best_site, home_first, GridAction, GridMsg, GridParams, GridPolicy, GridView};
use crate::model::JobIdx;

/// Centralized (SOB §2.2): one global queue with perfect, free knowledge of every site; each
/// job goes on arrival to the site of minimum turnaround cost. No φ threshold.
pub struct Central {
    params: GridParams,
}

impl Central {
    pub fn new(params: GridParams) -> Central {
        Central { params }
    }
}

impl GridPolicy for Central {
    fn name(&self) -> &'static str {
        "central"
    }

    /// A job no site gives an approximate wait for goes home, where the dispatch queues
    /// it or rejects it with the reason (dropped here before, it waited for ever).
    fn on_arrival(&mut self, job: JobIdx, grid: &dyn GridView, out: &mut Vec<GridAction>) {
        let site = best_site(grid, job, home_first(grid, job), self.params.epsilon())
            .map_or(grid.home(job), |(site, _)| site);
        out.push(GridAction::Dispatch { job, site });
    }

    fn on_message(&mut self, _: GridMsg, _: &dyn GridView, _: &mut Vec<GridAction>) {}

    fn held(&self) -> usize {
        0
    }
}
