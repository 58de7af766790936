//! SES's *most nodes available* selection (Appendix B.1): the eligible multi-CPU group with
//! the most free nodes now; ties go to the larger group, then to the earlier one.

use crate::policy::grid::GridView;

pub(super) fn pick(grid: &dyn GridView, candidates: &[u32]) -> Option<u32> {
    candidates.iter().copied().min_by(|&a, &b| {
        (grid.free(b), grid.capacity(b))
            .cmp(&(grid.free(a), grid.capacity(a)))
            .then(a.cmp(&b))
    })
}
