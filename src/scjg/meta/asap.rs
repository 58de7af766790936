//! Single-site ASAP (SCJG §4, the Fig. 8 experiment): the metajob needs its units on any one
//! site; the metascheduler takes the site whose range list starts earliest (ties: the first
//! in its order of sites).

use super::{Answers, Plan};
use crate::time::SimTime;

pub fn select_single(
    units: u32,
    answers: &Answers,
    length: SimTime,
    from: SimTime,
) -> Option<Plan> {
    let mut best: Option<(SimTime, u32)> = None;
    for &site in answers.order {
        let s = site as usize;
        if units > answers.capacities[s] {
            continue;
        }
        let Some(start) = answers.profiles[s].earliest_start(from, units, length) else {
            continue;
        };
        if best.is_none_or(|(b, _)| start < b) {
            best = Some((start, site));
        }
    }
    let (start, site) = best?;
    Some(Plan {
        start,
        parts: vec![(site, units)],
    })
}
