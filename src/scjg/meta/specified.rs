//! Specified co-allocation (SCJG §3, class 1): the metajob names every site and its units;
//! the metascheduler chooses only the time — the earliest start in the intersection of the
//! sites' range lists (ASAP utility).

use super::{intersect, Answers, Plan};
use crate::time::SimTime;

pub fn select_specified(
    parts: &[(u32, u32)],
    answers: &Answers,
    length: SimTime,
    from: SimTime,
) -> Option<Plan> {
    let mut common: Option<Vec<(SimTime, SimTime)>> = None;
    for &(site, units) in parts {
        let s = site as usize;
        if units > *answers.capacities.get(s)? {
            return None;
        }
        let ranges = answers.profiles[s].ranges(units, length, from, SimTime::NEVER);
        common = Some(match common {
            None => ranges,
            Some(c) => intersect(&c, &ranges),
        });
    }
    let start = common?.first()?.0;
    Some(Plan {
        start,
        parts: parts.to_vec(),
    })
}
