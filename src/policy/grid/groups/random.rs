//! SES's *random* selection (Appendix B.1): an eligible multi-CPU group G_i with probability
//! |G_i| / T, T the eligible groups' nodes (a draw landing on an ineligible group would be
//! redrawn, which is the same). One draw per decision, from the selector's seeded stream.

use crate::policy::grid::GridView;
use crate::rng::SimRng;

pub(super) fn pick(rng: &mut SimRng, grid: &dyn GridView, candidates: &[u32]) -> Option<u32> {
    let weights: Vec<u64> = candidates
        .iter()
        .map(|&g| grid.capacity(g) as u64)
        .collect();
    if weights.iter().sum::<u64>() == 0 {
        return None;
    }
    Some(candidates[rng.weighted(&weights)])
}
