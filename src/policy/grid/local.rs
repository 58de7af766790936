use super::{GridAction, GridMsg, GridPolicy, GridView};
use crate::model::JobIdx;

/// No migration: every job goes straight to its home site's local queue.
pub struct LocalOnly;

impl GridPolicy for LocalOnly {
    fn name(&self) -> &'static str {
        "local"
    }

    fn on_arrival(&mut self, job: JobIdx, grid: &dyn GridView, out: &mut Vec<GridAction>) {
        out.push(GridAction::Dispatch {
            job,
            site: grid.home(job),
        });
    }

    fn on_message(&mut self, _: GridMsg, _: &dyn GridView, _: &mut Vec<GridAction>) {}

    fn held(&self) -> usize {
        0
    }
}
