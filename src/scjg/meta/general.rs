//! General co-allocation (SCJG §3, class 2): the metajob gives its units in all and the most
//! sites it may span; the metascheduler chooses where, how many units each, and when.
//!
//! Search rule: the earliest common start wins. Candidate starts are `from` and every
//! instant ≥ `from` at which some site's guarded profile changes (the earliest feasible
//! start is always one of them: feasibility only appears when a window's left edge passes a
//! step). At each candidate `t`, each site offers the fewest units free over
//! `[t, t + length)`; sites are taken widest offer first (ties in the metascheduler's order)
//! until the units are covered, within `max_sites`; each taken site gets its whole offer,
//! the last one the rest. So a split uses the fewest sites possible at the earliest start.

use super::{Answers, Plan};
use crate::time::SimTime;

pub fn select_general(
    units: u32,
    max_sites: u32,
    answers: &Answers,
    length: SimTime,
    from: SimTime,
) -> Option<Plan> {
    let max_sites = max_sites.max(1) as usize;
    // Can it ever fit? The widest sites, all free.
    let mut caps: Vec<u32> = answers.capacities.to_vec();
    caps.sort_unstable_by(|a, b| b.cmp(a));
    if caps.iter().take(max_sites).map(|&c| c as u64).sum::<u64>() < units as u64 {
        return None;
    }
    let mut candidates: Vec<SimTime> = vec![from];
    for p in answers.profiles {
        candidates.extend(p.times().iter().copied().filter(|&t| t > from));
    }
    candidates.sort_unstable();
    candidates.dedup();
    let mut offers: Vec<(u32, usize, u32)> = Vec::with_capacity(answers.order.len());
    for t in candidates {
        offers.clear();
        for (rank, &site) in answers.order.iter().enumerate() {
            let free = answers.profiles[site as usize].min_free(t, length);
            if free > 0 {
                offers.push((free, rank, site));
            }
        }
        offers.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let covered: u64 = offers.iter().take(max_sites).map(|o| o.0 as u64).sum();
        if covered < units as u64 {
            continue;
        }
        let mut left = units;
        let mut parts = Vec::new();
        for &(free, _, site) in &offers {
            if left == 0 {
                break;
            }
            let take = free.min(left);
            parts.push((site, take));
            left -= take;
        }
        return Some(Plan { start: t, parts });
    }
    None
}
