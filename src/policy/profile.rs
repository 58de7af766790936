//! The availability profile: free allocation units as a step function of time.
//!
//! Local schedulers build it from the running jobs' predicted ends (start + estimate) and
//! place queued jobs into it; conservative backfilling keeps one between events. It is also
//! what answers the two read-only queries of docs/local-policies.md ("The availability profile"): the approximate wait time of a
//! hypothetical job ([`Profile::earliest_start`]) and the availability range list of SCJG 3.1
//! ([`Profile::ranges`]). A reservation is just [`Profile::reserve`], so advance reservations
//! plug into the same structure.

use crate::time::SimTime;

/// Step `i` runs from `times[i]` until `times[i + 1]` (or forever for the last step) with
/// `frees[i]` units free. Times strictly increase.
///
/// Times and free counts are kept in two arrays rather than one array of pairs: the
/// searches below scan long runs of free counts (a job's window can span most of a plan,
/// 125 steps on average for conservative backfilling on CEA-Curie), and a dense `u32` array
/// lets those scans test 16 steps at a time.
///
/// The default profile has no steps at all: room for [`Profile::move_sooner`]'s scratch,
/// not a plan to search.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Profile {
    times: Vec<SimTime>,
    frees: Vec<u32>,
}

/// Steps scanned together: after a first stretch step by step (most searches end there), a
/// block is tested with one branch-free pass and searched only when it holds the answer.
const SCAN_BLOCK: usize = 16;

/// True when some free count of the block satisfies `hit`; written branch-free over a
/// fixed-size array so that it compiles to a few vector compares.
#[inline]
fn block_has(frees: &[u32], at: usize, hit: impl Fn(u32) -> bool) -> bool {
    let block: &[u32; SCAN_BLOCK] = frees[at..at + SCAN_BLOCK]
        .try_into()
        .unwrap_or_else(|_| unreachable!("the block is SCAN_BLOCK long"));
    block.iter().fold(false, |any, &f| any | hit(f))
}

/// Index of the first step at or after `from` with at least `units` free.
fn first_with_room(frees: &[u32], from: usize, units: u32) -> Option<usize> {
    let n = frees.len();
    let mut j = from;
    let stepwise_end = (from + SCAN_BLOCK).min(n);
    while j < stepwise_end {
        if frees[j] >= units {
            return Some(j);
        }
        j += 1;
    }
    while j + SCAN_BLOCK <= n {
        if block_has(frees, j, |f| f >= units) {
            break;
        }
        j += SCAN_BLOCK;
    }
    (j..n).find(|&k| frees[k] >= units)
}

/// Index of the first step at or after `from` that begins before `end` and has fewer than
/// `units` free: the step that blocks a window ending at `end` (`Err`). When every step of
/// the window has room, `Ok` with the index of the first step beginning at or after `end`
/// (the number of steps if none), so that a reservation needs no second search.
fn first_blocking(
    times: &[SimTime],
    frees: &[u32],
    from: usize,
    end: SimTime,
    units: u32,
) -> Result<usize, usize> {
    let n = frees.len();
    let mut j = from;
    // Whole blocks inside the window (their last step begins before `end`).
    while j + SCAN_BLOCK <= n && times[j + SCAN_BLOCK - 1] < end {
        if block_has(frees, j, |f| f < units) {
            break;
        }
        j += SCAN_BLOCK;
    }
    while j < n && times[j] < end {
        if frees[j] < units {
            return Err(j);
        }
        j += 1;
    }
    Ok(j)
}

/// The number of leading `times` before `t` (`times` increasing): an exponential search
/// from the front, as cheap as the answer is near it.
fn gallop_before(times: &[SimTime], t: SimTime) -> usize {
    let mut hi = 1;
    while hi < times.len() && times[hi] < t {
        hi *= 2;
    }
    let lo = hi / 2;
    let hi = hi.min(times.len());
    lo + times[lo..hi].partition_point(|&s| s < t)
}

/// The most steps [`Profile::move_sooner`] edits in a copy and splices back; a longer
/// stretch is edited in place (copying it twice cost more than the shifts it saves).
const SHORT_MOVE: usize = 24;

/// A window found by [`Profile::earliest_window`]: its start, the step in force then and
/// the first step beginning at or after its end, for [`Profile::reserve_found`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub start: SimTime,
    first: usize,
    past_end: usize,
}

impl Profile {
    /// All `capacity` units free from `now` on.
    pub fn empty(now: SimTime, capacity: u32) -> Profile {
        Profile {
            times: vec![now],
            frees: vec![capacity],
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
        let mut times = vec![now];
        let mut frees = vec![free_now];
        for (end, units) in releases {
            let last = times.len() - 1;
            if end <= times[last] {
                frees[last] += units;
            } else {
                let free = frees[last] + units;
                times.push(end);
                frees.push(free);
            }
        }
        Profile { times, frees }
    }

    /// The steps `(t_i, free_i)`, earliest first.
    pub fn steps(&self) -> impl ExactSizeIterator<Item = (SimTime, u32)> + '_ {
        self.times.iter().copied().zip(self.frees.iter().copied())
    }

    /// When each step begins (strictly increasing).
    pub fn times(&self) -> &[SimTime] {
        &self.times
    }

    /// Units free during each step.
    pub fn frees(&self) -> &[u32] {
        &self.frees
    }

    /// Index of the step in force at `t` (the first step for `t` before the profile starts).
    fn step_at(&self, t: SimTime) -> usize {
        self.times.partition_point(|&s| s <= t).saturating_sub(1)
    }

    /// [`Profile::step_at`], searching outward from `guess` (gallop, then bisect).
    fn step_at_near(&self, t: SimTime, guess: usize) -> usize {
        let times = &self.times;
        let n = times.len();
        let g = guess.min(n - 1);
        if times[g] <= t {
            // The answer is at or right of g: the last index with times ≤ t.
            let mut lo = g;
            let mut step = 1;
            while lo + step < n && times[lo + step] <= t {
                lo += step;
                step *= 2;
            }
            let hi = (lo + step).min(n);
            lo + times[lo..hi].partition_point(|&s| s <= t) - 1
        } else {
            // Left of g (or the first step, for t before the profile's start).
            let mut hi = g;
            let mut step = 1;
            while hi >= step && times[hi - step] > t {
                hi -= step;
                step *= 2;
            }
            let lo = hi.saturating_sub(step);
            (lo + times[lo..hi].partition_point(|&s| s <= t)).saturating_sub(1)
        }
    }

    /// Units free at instant `t` (`t` before the profile's start reads as its start).
    pub fn free_at(&self, t: SimTime) -> u32 {
        self.frees[self.step_at(t)]
    }

    /// Earliest `s ≥ not_before` such that `units` are free during all of `[s, s + duration)`;
    /// `None` when the profile never has that many units free.
    pub fn earliest_start(
        &self,
        not_before: SimTime,
        units: u32,
        duration: SimTime,
    ) -> Option<SimTime> {
        self.earliest_window(not_before, units, duration)
            .0
            .map(|w| w.start)
    }

    /// [`Profile::earliest_start`] as a window — its start and its place in the step list,
    /// so that [`Profile::reserve_found`] can take it without searching again — plus the
    /// *floor*: the first instant `≥ not_before` at which `units` are free at all. While
    /// the profile only loses room (reservations are added, nothing is released) no later
    /// search for `units` or more can start before the floor, so callers placing many jobs
    /// can pass it back as `not_before` and skip the saturated stretch of the plan instead
    /// of rescanning it for every job.
    pub fn earliest_window(
        &self,
        not_before: SimTime,
        units: u32,
        duration: SimTime,
    ) -> (Option<Window>, Option<SimTime>) {
        self.earliest_window_near(not_before, None, units, duration)
    }

    /// [`Profile::earliest_window`] given a guess of the index of the step in force at
    /// `not_before` (say where a window reserved earlier began): the step
    /// is looked for outward from the guess, so a guess a few steps off costs a few
    /// comparisons instead of a binary search of the whole plan. Any guess gives the same
    /// answer.
    #[inline]
    pub fn earliest_window_near(
        &self,
        not_before: SimTime,
        guess: Option<usize>,
        units: u32,
        duration: SimTime,
    ) -> (Option<Window>, Option<SimTime>) {
        let mut i = match guess {
            Some(g) => self.step_at_near(not_before, g),
            None => self.step_at(not_before),
        };
        let mut floor = None;
        while let Some(k) = first_with_room(&self.frees, i, units) {
            let start = self.times[k].max(not_before);
            floor.get_or_insert(start);
            let end = start + duration;
            // Every later step that begins before `end` must also have room.
            match first_blocking(&self.times, &self.frees, k + 1, end, units) {
                Ok(past_end) => {
                    let window = Window {
                        start,
                        first: k,
                        past_end,
                    };
                    return (Some(window), floor);
                }
                // That step is too full: no start before it can work.
                Err(j) => i = j + 1,
            }
        }
        (None, floor)
    }

    /// True when `units` are free during all of `[t, t + duration)` (at `t` alone for a
    /// zero duration).
    pub fn fits_at(&self, t: SimTime, units: u32, duration: SimTime) -> bool {
        let i = self.step_at(t);
        self.frees[i] >= units
            && first_blocking(&self.times, &self.frees, i + 1, t + duration, units).is_ok()
    }

    /// The fewest units free at any instant of `[t, t + duration)`: the widest job of that
    /// length that could start at `t`.
    pub fn min_free(&self, t: SimTime, duration: SimTime) -> u32 {
        let i = self.step_at(t);
        let end = t + duration;
        let window_end = i + 1 + self.times[i + 1..].partition_point(|&s| s < end);
        self.frees[i..window_end]
            .iter()
            .fold(u32::MAX, |least, &f| least.min(f))
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
        self.take(a, b, units);
    }

    /// Takes up to `units` at every instant of `[start, start + duration)`: all that is
    /// free where less is. A reservation of whole nodes on a site of processors (Slurm's
    /// backfill) takes its nodes' free processors so, whatever their running jobs hold.
    pub fn reserve_up_to(&mut self, start: SimTime, duration: SimTime, units: u32) {
        if units == 0 || duration <= SimTime::ZERO {
            return;
        }
        let end = start + duration;
        let a = self.split_at(start);
        let b = self.split_at(end);
        for free in &mut self.frees[a..b] {
            *free -= (*free).min(units);
        }
    }

    /// Takes `units` from steps `a..b`; more than is free is a bug and panics in debug.
    fn take(&mut self, a: usize, b: usize, units: u32) {
        for free in &mut self.frees[a..b] {
            debug_assert!(*free >= units, "reservation over capacity");
            *free -= units;
        }
    }

    /// [`Profile::reserve`] of a window this profile just found (`duration` and `units` as
    /// searched, nothing changed since): the same steps, without searching for them.
    /// Returns the index of the step that begins at the window's start (a guess for later
    /// searches from there; indices shift as steps are added).
    #[inline]
    pub fn reserve_found(&mut self, window: Window, duration: SimTime, units: u32) -> usize {
        if units == 0 || duration <= SimTime::ZERO {
            return window.first;
        }
        let Window {
            start,
            first: mut a,
            past_end: mut b,
        } = window;
        debug_assert!(self.times[a] <= start && b > a);
        if self.times[a] != start {
            // The window starts inside step a: split it.
            self.times.insert(a + 1, start);
            self.frees.insert(a + 1, self.frees[a]);
            a += 1;
            b += 1;
        }
        let end = start + duration;
        if b == self.times.len() || self.times[b] != end {
            // The window ends inside step b − 1: split it.
            self.times.insert(b, end);
            self.frees.insert(b, self.frees[b - 1]);
        }
        self.take(a, b, units);
        a
    }

    /// Gives back `units` during `[start, start + duration)`: the inverse of
    /// [`Profile::reserve`] for a block that was reserved there (conservative backfilling's
    /// compression frees the tail of a job that ended early and the old slot of a job that
    /// moved up). Steps left equal to their neighbour are merged, so a plan that keeps moving
    /// jobs does not keep every split point it ever had (searches answer the same either way).
    pub fn release(&mut self, start: SimTime, duration: SimTime, units: u32) {
        if units == 0 || duration <= SimTime::ZERO {
            return;
        }
        let a = self.split_at(start);
        self.release_from(a, start + duration, units);
    }

    /// [`Profile::release`] of `[old, old + duration)` then [`Profile::reserve`] of
    /// `[new, new + duration)`: a job of `units` moving up from `old` to `new` (compression,
    /// 48 million times on RICC). The steps are looked for outward from `guess`, the index
    /// of a step at or before `new` (the one in force there, as
    /// [`Profile::earliest_before_counted`] found it), instead of by binary searches of the whole plan. Only the
    /// steps from the one in force at `new` to the one in force at the old block's end
    /// change; when they are few ([`SHORT_MOVE`]) they are copied into `scratch`, released
    /// and reserved there and spliced back: one shift of the plan's tail instead of one per
    /// step split or merged. Any guess gives the same plan as the two calls, step for step.
    pub fn move_sooner(
        &mut self,
        old: SimTime,
        new: SimTime,
        duration: SimTime,
        units: u32,
        guess: usize,
        scratch: &mut Profile,
    ) {
        if units == 0 || duration <= SimTime::ZERO {
            return;
        }
        debug_assert!(new < old);
        // Every split, raise and merge of the two calls falls in `lo..hi`: the release
        // merges its first step into the one before it (after `new`'s) and its last into
        // the one it split off (in force at the end); the reservation lies before the end.
        let lo = self.step_at_near(new, guess);
        // The old block's end is usually far past `new`: a binary search of the rest of the
        // plan takes fewer probes than a gallop from `lo`.
        let end = old + duration;
        let hi = lo + self.times[lo..].partition_point(|&s| s <= end);
        if hi - lo > SHORT_MOVE {
            let a = self.split_at_near(old, lo);
            self.release_from(a, old + duration, units);
            // The release changed nothing before `old`: step `lo` is still `new`'s.
            let a = self.split_at_near(new, lo);
            let b = self.split_at_near(new + duration, a);
            self.take(a, b, units);
            return;
        }
        scratch.times.clear();
        scratch.times.extend_from_slice(&self.times[lo..hi]);
        scratch.frees.clear();
        scratch.frees.extend_from_slice(&self.frees[lo..hi]);
        scratch.release(old, duration, units);
        scratch.reserve(new, duration, units);
        self.times.splice(lo..hi, scratch.times.drain(..));
        self.frees.splice(lo..hi, scratch.frees.drain(..));
    }

    /// The rest of [`Profile::release`], from the step `a` beginning at the block's start.
    fn release_from(&mut self, a: usize, end: SimTime, units: u32) {
        let b = self.split_at_near(end, a);
        for free in &mut self.frees[a..b] {
            *free += units;
        }
        // Only the two boundaries can have become equal to their neighbours: the steps
        // between them all rose by the same amount.
        if b < self.frees.len() && self.frees[b] == self.frees[b - 1] {
            self.times.remove(b);
            self.frees.remove(b);
        }
        if a > 0 && self.frees[a] == self.frees[a - 1] {
            self.times.remove(a);
            self.frees.remove(a);
        }
    }

    /// The earliest `t` in `[not_before, start_before)` such that `units` are free during
    /// all of `[t, min(t + duration, reserved_at))`, for `start_before ≤ reserved_at`;
    /// `None` when there is none. Compression asks this of a job reserved at `reserved_at`:
    /// the job itself holds `units` from there on, so a window that starts earlier has room
    /// past `reserved_at` once its own block is given back — only the stretch before its
    /// reservation decides, and the search stops at `start_before`.
    pub fn earliest_before(
        &self,
        not_before: SimTime,
        units: u32,
        duration: SimTime,
        reserved_at: SimTime,
        start_before: SimTime,
    ) -> Option<SimTime> {
        self.earliest_before_counted(
            not_before,
            units,
            duration,
            reserved_at,
            start_before,
            &mut 0,
            &mut 0,
        )
        .map(|(start, _)| start)
    }

    /// [`Profile::earliest_before`], adding to `scanned` the steps the search went over (the
    /// cost of a search, which the plan-work bound counts: issue #30). `guess` is a guess of
    /// the index of the step in force at `not_before` (any guess gives the same answer; a
    /// near one saves a binary search of the plan, as a pass's searches start near each
    /// other) and is left at that index for the next search. A window found comes with the
    /// index of the step in force at its start (for a move there: [`Profile::move_sooner`]).
    #[allow(clippy::too_many_arguments)]
    pub fn earliest_before_counted(
        &self,
        not_before: SimTime,
        units: u32,
        duration: SimTime,
        reserved_at: SimTime,
        start_before: SimTime,
        scanned: &mut u64,
        guess: &mut usize,
    ) -> Option<(SimTime, usize)> {
        let start_before = start_before.min(reserved_at);
        if not_before >= start_before {
            return None;
        }
        let first = self.step_at_near(not_before, *guess);
        *guess = first;
        let mut i = first;
        // The steps that begin before `start_before`: no window starts in a later one.
        let last = i + gallop_before(&self.times[i..], start_before);
        loop {
            let Some(k) = first_with_room(&self.frees[..last], i, units) else {
                *scanned += (last - first) as u64;
                return None;
            };
            let start = self.times[k].max(not_before);
            let end = (start + duration).min(reserved_at);
            match first_blocking(&self.times, &self.frees, k + 1, end, units) {
                Ok(j) => {
                    *scanned += (j - first) as u64;
                    return Some((start, k));
                }
                Err(j) => i = j + 1,
            }
        }
    }

    /// The most units free at any instant of `[from, to)`.
    pub fn max_free(&self, from: SimTime, to: SimTime) -> u32 {
        let i = self.step_at(from);
        let end = i + 1 + self.times[i + 1..].partition_point(|&s| s < to);
        self.frees[i..end].iter().copied().max().unwrap_or(0)
    }

    /// Index of the step starting exactly at `t`, inserting one if needed.
    fn split_at(&mut self, t: SimTime) -> usize {
        let i = self.times.partition_point(|&s| s < t);
        if i < self.times.len() && self.times[i] == t {
            return i;
        }
        // Before the profile's start nothing is known to be used: the new step copies the
        // first one.
        let free = self.frees[i.saturating_sub(1)];
        self.times.insert(i, t);
        self.frees.insert(i, free);
        i
    }

    /// [`Profile::split_at`], looking for the step outward from `guess` (gallop, then
    /// bisect): the same step, inserted the same way, whatever the guess.
    fn split_at_near(&mut self, t: SimTime, guess: usize) -> usize {
        // The last step beginning at or before `t` (the first one for `t` before it).
        let j = self.step_at_near(t, guess);
        if self.times[j] == t {
            return j;
        }
        // Before the profile's start the new step copies the first one, as in `split_at`.
        let i = if self.times[j] < t { j + 1 } else { j };
        let free = self.frees[j];
        self.times.insert(i, t);
        self.frees.insert(i, free);
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
        let n = self.times.len();
        // A start s is feasible iff every step overlapping [s, s+d) has room. Feasible starts
        // form unions of intervals; walk the maximal runs of steps with room.
        let mut i = 0;
        while i < n {
            if self.frees[i] < units {
                i += 1;
                continue;
            }
            let mut j = i;
            while j + 1 < n && self.frees[j + 1] >= units {
                j += 1;
            }
            let run_start = self.times[i];
            // The run of roomy steps ends where step j+1 begins (or never).
            let (lo, hi) = if j + 1 < n {
                let run_end = self.times[j + 1];
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
        let i = self.times.partition_point(|&s| s <= now);
        if i > 1 {
            self.times.drain(..i - 1);
            self.frees.drain(..i - 1);
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

    /// Free units at instant `x`, read the slow way: capacity minus every block over it.
    fn brute_free(capacity: u32, blocks: &[(i64, i64, u32)], x: i64) -> u32 {
        let used: u32 = blocks
            .iter()
            .filter(|&&(a, b, _)| a <= x && x < b)
            .map(|b| b.2)
            .sum();
        capacity - used
    }

    #[test]
    fn searches_agree_with_instant_by_instant_reading() {
        // Plans of up to 60 blocks, so windows span more than one scan block of 16 steps.
        let mut rng = crate::rng::SimRng::new(7);
        for round in 0..300 {
            let capacity = 1 + rng.range_u64(0, 16) as u32;
            let mut p = Profile::empty(t(0), capacity);
            let mut blocks = Vec::new();
            for _ in 0..rng.range_u64(0, 60) {
                let units = 1 + rng.range_u64(0, capacity as u64 - 1) as u32;
                let len = 1 + rng.range_u64(0, 30) as i64;
                if let Some(s) = p.earliest_start(t(rng.range_u64(0, 100) as i64), units, t(len)) {
                    p.reserve(s, t(len), units);
                    blocks.push((s.0, s.0 + len, units));
                }
            }
            for _ in 0..20 {
                let units = 1 + rng.range_u64(0, capacity as u64 - 1) as u32;
                let len = 1 + rng.range_u64(0, 60) as i64;
                let from = rng.range_u64(0, 150) as i64;
                let fits = |s: i64| (s..s + len).all(|x| brute_free(capacity, &blocks, x) >= units);
                let expect = (from..=4000).find(|&s| fits(s)).map(t);
                assert_eq!(
                    p.earliest_start(t(from), units, t(len)),
                    expect,
                    "round {round}"
                );
                assert_eq!(
                    p.fits_at(t(from), units, t(len)),
                    fits(from),
                    "round {round}"
                );
                let least = (from..from + len)
                    .map(|x| brute_free(capacity, &blocks, x))
                    .min();
                assert_eq!(Some(p.min_free(t(from), t(len))), least, "round {round}");
            }
        }
    }

    /// A move from any guess leaves the plan step for step as a release and a reservation
    /// do.
    #[test]
    fn a_move_from_any_guess_is_a_release_and_a_reservation() {
        let mut rng = crate::rng::SimRng::new(11);
        let mut scratch = Profile::default();
        for round in 0..300 {
            let mut p = Profile::empty(t(0), 16);
            let mut blocks = Vec::new();
            for _ in 0..rng.range_u64(1, 40) {
                let units = 1 + rng.range_u64(0, 7) as u32;
                let len = t(1 + rng.range_u64(0, 40) as i64);
                if let Some(s) = p.earliest_start(t(rng.range_u64(0, 200) as i64), units, len) {
                    p.reserve(s, len, units);
                    blocks.push((s, len, units));
                }
            }
            for _ in 0..20 {
                let (old, len, units) = blocks[rng.range_u64(0, blocks.len() as u64 - 1) as usize];
                let mut guess = rng.range_u64(0, p.times().len() as u64 + 2) as usize;
                let Some((new, _)) =
                    p.earliest_before_counted(t(0), units, len, old, old, &mut 0, &mut guess)
                else {
                    continue;
                };
                let mut want = p.clone();
                want.release(old, len, units);
                want.reserve(new, len, units);
                let guess = if rng.range_u64(0, 1) == 0 {
                    guess
                } else {
                    rng.range_u64(0, p.times().len() as u64 + 2) as usize
                };
                p.move_sooner(old, new, len, units, guess, &mut scratch);
                assert_eq!(p, want, "round {round}");
                let i = blocks.iter().position(|b| *b == (old, len, units)).unwrap();
                blocks[i] = (new, len, units);
            }
        }
    }

    #[test]
    fn a_search_from_any_guess_finds_the_same_step() {
        let mut rng = crate::rng::SimRng::new(5);
        for round in 0..200 {
            let mut p = Profile::empty(t(10), 8);
            for _ in 0..rng.range_u64(0, 40) {
                let len = 1 + rng.range_u64(0, 20) as i64;
                if let Some(s) = p.earliest_start(t(rng.range_u64(0, 200) as i64), 1, t(len)) {
                    p.reserve(s, t(len), 1);
                }
            }
            let n = p.times().len();
            for _ in 0..30 {
                let at = t(rng.range_u64(0, 300) as i64);
                let guess = rng.range_u64(0, n as u64 + 3) as usize;
                assert_eq!(p.step_at_near(at, guess), p.step_at(at), "round {round}");
                let units = 1 + rng.range_u64(0, 8) as u32;
                let len = t(1 + rng.range_u64(0, 30) as i64);
                assert_eq!(
                    p.earliest_window_near(at, Some(guess), units, len),
                    p.earliest_window(at, units, len),
                    "round {round}"
                );
            }
        }
    }
}
