//! The metascheduler's selection step (SCJG §3.1 step 2, §3.3 step 4), one file per mode:
//! given each site's answer to the query — the profile its local policy guarantees, from
//! which its range list for any size is read — choose the common start and the resources.
//! Read-only: reserving, releasing and backing off are the simulation's (`sim.rs`).

mod asap;
mod general;
mod specified;

pub use asap::select_single;
pub use general::select_general;
pub use specified::select_specified;

use super::Request;
use crate::policy::Profile;
use crate::time::SimTime;

/// A selection: one start for every component, and `(site, units)` per component, in the
/// order the metascheduler will reserve them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    pub start: SimTime,
    pub parts: Vec<(u32, u32)>,
}

/// What a metascheduler sees of the sites at a query: each site's guarded profile and
/// capacity, and the order in which it approaches them.
pub struct Answers<'a> {
    pub profiles: &'a [Profile],
    pub capacities: &'a [u32],
    pub order: &'a [u32],
}

/// The selection for `request` of `length` at or after `from`; `None` when no site (or set
/// of sites) can ever hold it.
pub fn select(
    request: &Request,
    answers: &Answers,
    length: SimTime,
    from: SimTime,
) -> Option<Plan> {
    let mut plan = match request {
        Request::Specified(parts) => select_specified(parts, answers, length, from),
        Request::General { units, max_sites } => {
            select_general(*units, *max_sites, answers, length, from)
        }
        Request::Single { units } => select_single(*units, answers, length, from),
    }?;
    // Reserve in the metascheduler's order of sites.
    let rank = |site: u32| answers.order.iter().position(|&s| s == site);
    plan.parts.sort_by_key(|&(site, _)| rank(site));
    Some(plan)
}

/// The intersection of two sorted lists of closed ranges.
pub fn intersect(a: &[(SimTime, SimTime)], b: &[(SimTime, SimTime)]) -> Vec<(SimTime, SimTime)> {
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while i < a.len() && j < b.len() {
        let lo = a[i].0.max(b[j].0);
        let hi = a[i].1.min(b[j].1);
        if lo <= hi {
            out.push((lo, hi));
        }
        if a[i].1 < b[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: i64) -> SimTime {
        SimTime(s)
    }

    #[test]
    fn intersection_of_range_lists() {
        let a = [(t(0), t(5)), (t(10), t(20)), (t(30), SimTime::NEVER)];
        let b = [(t(3), t(12)), (t(18), t(40))];
        assert_eq!(
            intersect(&a, &b),
            vec![(t(3), t(5)), (t(10), t(12)), (t(18), t(20)), (t(30), t(40))]
        );
        assert!(intersect(&a, &[]).is_empty());
    }

    /// Two sites of 4 units: site 0 busy (3 units) until 10, site 1 (4 units) from 5 to 20.
    fn answers() -> (Vec<Profile>, Vec<u32>) {
        let mut p0 = Profile::empty(t(0), 4);
        p0.reserve(t(0), t(10), 3);
        let mut p1 = Profile::empty(t(0), 4);
        p1.reserve(t(5), t(15), 4);
        (vec![p0, p1], vec![4, 4])
    }

    #[test]
    fn specified_takes_the_earliest_common_start() {
        let (profiles, caps) = answers();
        let a = Answers {
            profiles: &profiles,
            capacities: &caps,
            order: &[0, 1],
        };
        // 2 units on each site for 3: site 0 from 10, site 1 before 2 or from 20 → 20.
        let plan = select(&Request::Specified(vec![(0, 2), (1, 2)]), &a, t(3), t(0)).unwrap();
        assert_eq!(plan.start, t(20));
        // 1 unit on each for 3: site 0 any time, site 1 in [0, 2] → 0.
        let plan = select(&Request::Specified(vec![(0, 1), (1, 1)]), &a, t(3), t(0)).unwrap();
        assert_eq!(plan.start, t(0));
        // Too wide for site 1.
        assert!(select(&Request::Specified(vec![(1, 5)]), &a, t(3), t(0)).is_none());
    }

    #[test]
    fn single_site_asap_and_general_split() {
        let (profiles, caps) = answers();
        let a = Answers {
            profiles: &profiles,
            capacities: &caps,
            order: &[1, 0],
        };
        // 4 units for 3: site 1 at 0 (ends 3 ≤ 5) beats site 0 at 10.
        let plan = select(&Request::Single { units: 4 }, &a, t(3), t(0)).unwrap();
        assert_eq!((plan.start, plan.parts), (t(0), vec![(1, 4)]));
        // 4 units for 8: site 1 only from 20, site 0 from 10.
        let plan = select(&Request::Single { units: 4 }, &a, t(8), t(0)).unwrap();
        assert_eq!((plan.start, plan.parts), (t(10), vec![(0, 4)]));
        // 5 units for 8 on ≤ 2 sites: at 0 site 0 has 1, site 1 none over [0, 8); at 10
        // site 0 has 4 and site 1 none until 20; at 20 both have 4 → 4 + 1 at 20? No:
        // at 10, [10, 18) site 1 is busy until 20 → 0. So 20, largest first (ties in the
        // metascheduler's order: site 1 first).
        let plan = select(
            &Request::General {
                units: 5,
                max_sites: 2,
            },
            &a,
            t(8),
            t(0),
        )
        .unwrap();
        assert_eq!((plan.start, plan.parts), (t(20), vec![(1, 4), (0, 1)]));
        // With one site allowed, 5 units never fit.
        let one = Request::General {
            units: 5,
            max_sites: 1,
        };
        assert!(select(&one, &a, t(8), t(0)).is_none());
    }
}
