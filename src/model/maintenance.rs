//! Known maintenance windows of a site's nodes (issue #41): the schedulers plan around them.
//! A job never starts on a node if its estimate would overlap one of that node's windows
//! (Slurm's `MAINT` reservations do the same), and EASY's reservation for its head knows a
//! node in maintenance comes back at the window's end. Failures are not in here: nobody
//! knows them in advance.

use crate::time::SimTime;

/// Per node, its maintenance windows `[start, end)` in time order, overlapping and touching
/// ones merged; and every window of every node by end, so that a query reads only the
/// windows near its interval (a placement test asks at every job of every pass).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Maintenance {
    windows: Vec<Vec<(SimTime, SimTime)>>,
    /// (end, start, node) of every window, in that order.
    by_end: Vec<(SimTime, SimTime, u32)>,
    /// The longest window: one ending at `e` started after `e − longest`.
    longest: SimTime,
}

impl Maintenance {
    /// The calendar of `node_count` nodes with `windows` (node, start, end) in any order;
    /// windows on nodes past the count, or empty, are left out (the engine checks the nodes
    /// before). `None` when no window is left.
    pub fn new(
        node_count: usize,
        windows: impl IntoIterator<Item = (u32, SimTime, SimTime)>,
    ) -> Option<Maintenance> {
        let mut per_node: Vec<Vec<(SimTime, SimTime)>> = vec![Vec::new(); node_count];
        for (node, start, end) in windows {
            if let Some(list) = per_node.get_mut(node as usize) {
                if start < end {
                    list.push((start, end));
                }
            }
        }
        let mut by_end = Vec::new();
        for (n, list) in per_node.iter_mut().enumerate() {
            if list.is_empty() {
                continue;
            }
            list.sort_unstable();
            let mut merged: Vec<(SimTime, SimTime)> = Vec::with_capacity(list.len());
            for &(s, e) in list.iter() {
                match merged.last_mut() {
                    Some(last) if s <= last.1 => last.1 = last.1.max(e),
                    _ => merged.push((s, e)),
                }
            }
            by_end.extend(merged.iter().map(|&(s, e)| (e, s, n as u32)));
            *list = merged;
        }
        by_end.sort_unstable();
        let longest = by_end.iter().map(|&(e, s, _)| e - s).max()?;
        Some(Maintenance {
            windows: per_node,
            by_end,
            longest,
        })
    }

    /// The windows that end after `from` and may start before `to`, by end: those ending
    /// before `to + longest` (a window ending later started at or after `to`).
    fn near(&self, from: SimTime, to: SimTime) -> impl Iterator<Item = &(SimTime, SimTime, u32)> {
        let i = self.by_end.partition_point(|w| w.0 <= from);
        let last = to + self.longest;
        self.by_end[i..].iter().take_while(move |w| w.0 < last)
    }

    /// True when one of node `n`'s windows overlaps `[from, to)`.
    pub fn overlaps(&self, n: usize, from: SimTime, to: SimTime) -> bool {
        let list = &self.windows[n];
        // The first window ending after `from` is the only one that can overlap first.
        let i = list.partition_point(|&(_, end)| end <= from);
        list.get(i).is_some_and(|&(start, _)| start < to)
    }

    /// The nodes a job running over `[from, to)` may use, as a bit per node (bit n of word
    /// n / 64) for [`crate::model::fit::first_fit_within`]; `None` when it may use every
    /// node (no window overlaps), so that the usual placement and its caches apply.
    pub fn allowed(&self, from: SimTime, to: SimTime) -> Option<Vec<u64>> {
        let mut mask: Option<Vec<u64>> = None;
        for &(_, start, n) in self.near(from, to) {
            if start < to {
                let words = mask.get_or_insert_with(|| all_nodes(self.windows.len()));
                let n = n as usize;
                words[n / 64] &= !(1u64 << (n % 64));
            }
        }
        mask
    }

    /// The windows that overlap `[from, to)`, as (node, start, end), by end then node.
    pub fn overlapping(
        &self,
        from: SimTime,
        to: SimTime,
    ) -> impl Iterator<Item = (u32, SimTime, SimTime)> + '_ {
        self.near(from, to)
            .filter(move |w| w.1 < to)
            .map(|&(end, start, n)| (n, start, end))
    }

    /// Every window still open after `now`, as (node, start, end), by node then start.
    pub fn open_after(&self, now: SimTime) -> impl Iterator<Item = (u32, SimTime, SimTime)> + '_ {
        self.windows.iter().enumerate().flat_map(move |(n, list)| {
            let i = list.partition_point(|&(_, end)| end <= now);
            list[i..].iter().map(move |&(s, e)| (n as u32, s, e))
        })
    }

    /// Every window still open after `now`, as (end, node, in force at `now`), by end then
    /// node: a node in maintenance comes back at its window's end, and the end of a window
    /// to come is when a job it kept from the node may use it again.
    pub fn ending_after(&self, now: SimTime) -> impl Iterator<Item = (SimTime, u32, bool)> + '_ {
        let i = self.by_end.partition_point(|w| w.0 <= now);
        self.by_end[i..]
            .iter()
            .map(move |&(end, start, n)| (end, n, start <= now))
    }
}

/// Every one of `count` nodes allowed.
fn all_nodes(count: usize) -> Vec<u64> {
    let mut words = vec![u64::MAX; count.div_ceil(64)];
    if !count.is_multiple_of(64) {
        if let Some(last) = words.last_mut() {
            *last = (1u64 << (count % 64)) - 1;
        }
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(secs: i64) -> SimTime {
        SimTime::from_secs(secs)
    }

    #[test]
    fn windows_merge_and_overlap_half_open() {
        let m = Maintenance::new(
            3,
            [
                (1, s(100), s(200)),
                (1, s(150), s(300)),
                (1, s(300), s(310)),
                (2, s(5), s(5)),
            ],
        )
        .expect("a window");
        assert_eq!(m.windows[1], [(s(100), s(310))]);
        assert_eq!(m.by_end, [(s(310), s(100), 1)]);
        assert!(!m.overlaps(1, s(0), s(100)), "ending at the start is clear");
        assert!(m.overlaps(1, s(0), s(101)));
        assert!(m.overlaps(1, s(309), s(400)));
        assert!(
            !m.overlaps(1, s(310), s(400)),
            "starting at the end is clear"
        );
        assert!(!m.overlaps(0, s(0), s(1000)));
    }

    #[test]
    fn allowed_clears_only_the_overlapping_nodes() {
        let m = Maintenance::new(70, [(3, s(100), s(200)), (65, s(50), s(60))]).expect("some");
        assert_eq!(m.allowed(s(0), s(50)), None);
        let mask = m.allowed(s(0), s(150)).expect("a mask");
        assert_eq!(mask.len(), 2);
        assert_eq!(mask[0], !(1 << 3));
        assert_eq!(mask[1], (1 << 6) - 1 - (1 << 1));
        assert_eq!(
            m.ending_after(s(0)).collect::<Vec<_>>(),
            [(s(60), 65, false), (s(200), 3, false)]
        );
        assert_eq!(
            m.ending_after(s(55)).collect::<Vec<_>>(),
            [(s(60), 65, true), (s(200), 3, false)]
        );
        assert_eq!(
            m.ending_after(s(150)).collect::<Vec<_>>(),
            [(s(200), 3, true)]
        );
        assert_eq!(m.ending_after(s(250)).count(), 0);
    }

    /// `allowed` (reading only the windows near the interval) clears exactly the nodes a
    /// window of which overlaps it, on random windows and intervals.
    #[test]
    fn allowed_matches_every_nodes_windows() {
        let mut rng = crate::rng::SimRng::new(41);
        for _ in 0..200 {
            let count = rng.range_u64(1, 130) as usize;
            let windows: Vec<(u32, SimTime, SimTime)> = (0..rng.range_u64(1, 40))
                .map(|_| {
                    let start = rng.range_u64(0, 5_000) as i64;
                    let node = rng.range_u64(0, count as u64 - 1) as u32;
                    (node, s(start), s(start + rng.range_u64(1, 800) as i64))
                })
                .collect();
            let m = Maintenance::new(count, windows.iter().copied()).expect("windows");
            for _ in 0..50 {
                let from = s(rng.range_u64(0, 6_000) as i64);
                let to = from + s(rng.range_u64(1, 2_000) as i64);
                let blocked = |n: usize| {
                    windows
                        .iter()
                        .any(|&(w, a, b)| w as usize == n && a < to && b > from)
                };
                let want: Vec<bool> = (0..count).map(|n| !blocked(n)).collect();
                let got: Vec<bool> = match m.allowed(from, to) {
                    None => vec![true; count],
                    Some(mask) => (0..count)
                        .map(|n| mask[n / 64] >> (n % 64) & 1 == 1)
                        .collect(),
                };
                assert_eq!(got, want);
                assert!((0..count).all(|n| m.overlaps(n, from, to) == blocked(n)));
            }
        }
    }

    #[test]
    fn no_window_no_calendar() {
        assert_eq!(Maintenance::new(4, [(9, s(0), s(10))]), None);
        assert_eq!(Maintenance::new(4, []), None);
    }
}
