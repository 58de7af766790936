//! The availability profile: free allocation units as a step function of time.
//!
//! Local schedulers build it from the running jobs' predicted ends (start + estimate) and
//! place queued jobs into it; conservative backfilling keeps one between events. It is also
//! what answers the two read-only queries of docs/local-policies.md ("The availability profile"): the approximate wait time of a
//! hypothetical job ([`Profile::earliest_start`]) and the availability range list of SCJG 3.1
//! ([`Profile::ranges`]). A reservation is just [`Profile::reserve`], so advance reservations
//! plug into the same structure.

use crate::time::SimTime;

/// `steps[i] = (t_i, free_i)`: from `t_i` until `t_{i+1}` (or forever for the last step)
/// `free_i` units are free. Times strictly increase.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Profile {
    steps: Vec<(SimTime, u32)>,
}

impl Profile {
    /// All `capacity` units free from `now` on.
    pub fn empty(now: SimTime, capacity: u32) -> Profile {
        Profile {
            steps: vec![(now, capacity)],
        }
    }

    /// `free_now` units free at `now`; each `(predicted_end, units)` of a running job frees
    /// its units at its end. Ends at or before `now` count as already free. `releases` must
    /// be sorted by time (the engine keeps running jobs in a map ordered by predicted end).
    pub fn from_running(
        now: SimTime,
        free_now: u32,
        releases: impl IntoIterator<Item = (SimTime, u32)>,
    ) -> Profile {
        let mut steps: Vec<(SimTime, u32)> = vec![(now, free_now)];
        for (end, units) in releases {
            let last = steps.len() - 1;
            if end <= steps[last].0 {
                steps[last].1 += units;
            } else {
                let free = steps[last].1 + units;
                steps.push((end, free));
            }
        }
        Profile { steps }
    }

    pub fn steps(&self) -> &[(SimTime, u32)] {
        &self.steps
    }

    /// Units free at instant `t` (`t` before the profile's start reads as its start).
    pub fn free_at(&self, t: SimTime) -> u32 {
        let i = self.steps.partition_point(|&(s, _)| s <= t);
        self.steps[i.saturating_sub(1)].1
    }

    /// Earliest `s ≥ not_before` such that `units` are free during all of `[s, s + duration)`;
    /// `None` when the profile never has that many units free.
    pub fn earliest_start(
        &self,
        not_before: SimTime,
        units: u32,
        duration: SimTime,
    ) -> Option<SimTime> {
        self.earliest_start_with_floor(not_before, units, duration)
            .0
    }

    /// [`Profile::earliest_start`], plus the *floor*: the first instant `≥ not_before` at
    /// which `units` are free at all. While the profile only loses room (reservations are
    /// added, nothing is released) no later search for `units` or more can start before the
    /// floor, so callers placing many jobs can pass it back as `not_before` and skip the
    /// saturated stretch of the plan instead of rescanning it for every job.
    pub fn earliest_start_with_floor(
        &self,
        not_before: SimTime,
        units: u32,
        duration: SimTime,
    ) -> (Option<SimTime>, Option<SimTime>) {
        let n = self.steps.len();
        // First step that covers `not_before`.
        let mut i = self
            .steps
            .partition_point(|&(s, _)| s <= not_before)
            .saturating_sub(1);
        let mut floor = None;
        while i < n {
            if self.steps[i].1 < units {
                i += 1;
                continue;
            }
            let start = self.steps[i].0.max(not_before);
            floor.get_or_insert(start);
            let end = start + duration;
            // Every later step that begins before `end` must also have room.
            let mut j = i + 1;
            while j < n && self.steps[j].0 < end {
                if self.steps[j].1 < units {
                    break;
                }
                j += 1;
            }
            if j == n || self.steps[j].0 >= end {
                return (Some(start), floor);
            }
            // Step j is too full: no start before it can work.
            i = j + 1;
        }
        (None, floor)
    }

    /// True when `units` are free during all of `[t, t + duration)` (at `t` alone for a
    /// zero duration).
    pub fn fits_at(&self, t: SimTime, units: u32, duration: SimTime) -> bool {
        let mut i = self
            .steps
            .partition_point(|&(s, _)| s <= t)
            .saturating_sub(1);
        let end = t + duration;
        loop {
            if self.steps[i].1 < units {
                return false;
            }
            i += 1;
            if i >= self.steps.len() || self.steps[i].0 >= end {
                return true;
            }
        }
    }

    /// The fewest units free at any instant of `[t, t + duration)`: the widest job of that
    /// length that could start at `t`.
    pub fn min_free(&self, t: SimTime, duration: SimTime) -> u32 {
        let mut i = self
            .steps
            .partition_point(|&(s, _)| s <= t)
            .saturating_sub(1);
        let end = t + duration;
        let mut least = self.steps[i].1;
        while i + 1 < self.steps.len() && self.steps[i + 1].0 < end {
            i += 1;
            least = least.min(self.steps[i].1);
        }
        least
    }

    /// Takes `units` during `[start, start + duration)`. The caller found the window with
    /// [`Profile::earliest_start`]; reserving more than is free is a bug and panics in debug.
    pub fn reserve(&mut self, start: SimTime, duration: SimTime, units: u32) {
        if units == 0 || duration <= SimTime::ZERO {
            return;
        }
        let end = start + duration;
        let a = self.split_at(start);
        let b = self.split_at(end);
        for step in &mut self.steps[a..b] {
            debug_assert!(step.1 >= units, "reservation over capacity");
            step.1 -= units;
        }
    }

    /// Index of the step starting exactly at `t`, inserting one if needed.
    fn split_at(&mut self, t: SimTime) -> usize {
        let i = self.steps.partition_point(|&(s, _)| s < t);
        if i < self.steps.len() && self.steps[i].0 == t {
            return i;
        }
        if i == 0 {
            // Before the profile's start: nothing is known to be used there.
            let free = self.steps[0].1;
            self.steps.insert(0, (t, free));
            return 0;
        }
        let free = self.steps[i - 1].1;
        self.steps.insert(i, (t, free));
        i
    }

    /// SCJG 3.1's availability range list: the maximal ranges `[a, b]` of start times in the
    /// window `[window_start, window_end]` at which a job of `units` × `duration` could start
    /// without touching existing reservations. Ranges are closed and sorted.
    pub fn ranges(
        &self,
        units: u32,
        duration: SimTime,
        window_start: SimTime,
        window_end: SimTime,
    ) -> Vec<(SimTime, SimTime)> {
        let mut out: Vec<(SimTime, SimTime)> = Vec::new();
        let n = self.steps.len();
        // A start s is feasible iff every step overlapping [s, s+d) has room. Feasible starts
        // form unions of intervals; walk the maximal runs of steps with room.
        let mut i = 0;
        while i < n {
            if self.steps[i].1 < units {
                i += 1;
                continue;
            }
            let mut j = i;
            while j + 1 < n && self.steps[j + 1].1 >= units {
                j += 1;
            }
            let run_start = self.steps[i].0;
            // The run of roomy steps ends where step j+1 begins (or never).
            let (lo, hi) = if j + 1 < n {
                let run_end = self.steps[j + 1].0;
                if run_end - run_start < duration {
                    i = j + 1;
                    continue;
                }
                (run_start, run_end - duration)
            } else {
                (run_start, SimTime::NEVER)
            };
            let lo = lo.max(window_start);
            let hi = hi.min(window_end);
            if lo <= hi {
                out.push((lo, hi));
            }
            i = j + 1;
        }
        out
    }
}

impl Profile {
    /// Drops the steps that ended before `now`, keeping the one in force at `now`.
    pub fn forget_before(&mut self, now: SimTime) {
        let i = self.steps.partition_point(|&(s, _)| s <= now);
        if i > 1 {
            self.steps.drain(..i - 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: i64) -> SimTime {
        SimTime(s)
    }

    #[test]
    fn earliest_start_skips_full_windows() {
        // 2 free now, 4 at 10, 8 at 20.
        let p = Profile::from_running(t(0), 2, [(t(10), 2), (t(20), 4)]);
        assert_eq!(p.earliest_start(t(0), 2, t(100)), Some(t(0)));
        assert_eq!(p.earliest_start(t(0), 3, t(5)), Some(t(10)));
        assert_eq!(p.earliest_start(t(0), 8, t(5)), Some(t(20)));
        assert_eq!(p.earliest_start(t(0), 9, t(5)), None);
        assert_eq!(p.earliest_start(t(15), 3, t(1)), Some(t(15)));
    }

    #[test]
    fn reservation_blocks_later_jobs_and_leaves_holes() {
        let mut p = Profile::empty(t(0), 4);
        p.reserve(t(10), t(10), 3);
        // A 2-unit job of length 5 fits before the reservation; of length 15 it must wait.
        assert_eq!(p.earliest_start(t(0), 2, t(5)), Some(t(0)));
        assert_eq!(p.earliest_start(t(0), 2, t(15)), Some(t(20)));
        assert_eq!(p.earliest_start(t(0), 1, t(15)), Some(t(0)));
        assert_eq!(p.free_at(t(12)), 1);
        assert_eq!(p.free_at(t(20)), 4);
        assert_eq!(
            p.ranges(2, t(5), t(0), t(100)),
            vec![(t(0), t(5)), (t(20), t(100))]
        );
    }
}
