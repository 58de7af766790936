//! Placing queued jobs into a plan fast without changing where they go: the lower bounds
//! (`Floors`) both conservative backfillings use for their placements — compression for
//! newcomers, the rebuild for every job — and `place`, the bounded earliest-start search.

use super::QueuedJob;
use crate::policy::Profile;
use crate::time::SimTime;

/// Lower bounds for the next searches, valid while the plan only loses room (between
/// rebuilds: reservations are added, nothing is released).
///
/// * Floors: units → the first instant the plan had that many free (see
///   [`Profile::earliest_window`]); any floor for as many units or fewer bounds a
///   search for `units`. Few distinct widths occur, so a sorted `Vec` beats a map.
/// * Shapes: (units, estimate) → where the last job of exactly that shape was placed. A
///   later job of the same shape cannot fit earlier: its window would have fitted the first
///   one in a plan that had at least as much room. Real queues repeat shapes (RICC: 849
///   distinct shapes in 447,794 jobs), so a rebuild places a run of job-array members
///   without rescanning the plan before the previous member's start. Kept in a small
///   direct-mapped table (see [`ShapeSlot`]): a lost entry only loses a bound.
#[derive(Default)]
pub(super) struct Floors {
    widths: Vec<(u32, SimTime)>,
    shapes: Vec<ShapeSlot>,
    /// Entries of `shapes` from another generation are empty: clearing is one increment.
    generation: u32,
}

/// One entry of the shape table: where the last job of (`units`, `estimate`) was placed,
/// and the index of its step then (a hint for the next search; indices shift).
#[derive(Clone, Copy)]
struct ShapeSlot {
    units: u32,
    generation: u32,
    estimate: SimTime,
    start: SimTime,
    step: usize,
}

impl Default for ShapeSlot {
    /// An empty slot: its generation is never a live one.
    fn default() -> Self {
        ShapeSlot {
            units: 0,
            generation: u32::MAX,
            estimate: SimTime::ZERO,
            start: SimTime::ZERO,
            step: 0,
        }
    }
}

/// The shape table's size bounds (powers of two; 32 bytes a slot). A map costs a tree
/// search and an insert per placement even when shapes never repeat (a backlog of
/// distinct jobs); the table costs a hash and one compare. A lost bound costs a whole
/// search, so collisions must be rare: the table grows to 64 slots per queued job within
/// these bounds — 32 KiB for a site with short queues (a grid may have thousands of sites),
/// at most 512 KiB. Measured on CEA-Curie (average queue ≈ 50): 1.85 s with 512 slots,
/// 1.7–1.8 s with 1,024 to 16,384; METACENTRUM (estimates exact, so its plan is rebuilt
/// once and shapes accumulate over the whole run) 1.6 s with a table that grew only at
/// rebuilds, 1.4–1.5 s with 16,384 slots.
const MIN_SHAPE_SLOTS: usize = 1024;
const SLOTS_PER_QUEUED_JOB: usize = 64;
const MAX_SHAPE_SLOTS: usize = 16384;

impl Floors {
    /// The slot of a shape in a table of `len` slots (a power of two): Fibonacci hashing
    /// of the pair; fixed, so runs stay deterministic.
    fn slot(len: usize, units: u32, estimate: SimTime) -> usize {
        let key = (u64::from(units) << 40) ^ (estimate.0 as u64);
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - len.trailing_zeros())) as usize
    }

    /// Where the last job of this shape was placed, and its step's index then.
    fn shape(&self, units: u32, estimate: SimTime) -> Option<(SimTime, usize)> {
        if self.shapes.is_empty() {
            return None;
        }
        let e = self.shapes[Self::slot(self.shapes.len(), units, estimate)];
        (e.generation == self.generation && e.units == units && e.estimate == estimate)
            .then_some((e.start, e.step))
    }

    /// Records a placement; a no-op without a table (a projection's scratch bounds).
    fn set_shape(&mut self, units: u32, estimate: SimTime, start: SimTime, step: usize) {
        if self.shapes.is_empty() {
            return;
        }
        let i = Self::slot(self.shapes.len(), units, estimate);
        self.shapes[i] = ShapeSlot {
            units,
            generation: self.generation,
            estimate,
            start,
            step,
        };
    }

    /// Grows the shape table for a queue of `queued` jobs, keeping its live entries: a plan
    /// that is never invalidated (estimates exact) is never rebuilt, so the table must grow
    /// between rebuilds too. Doubling at least, so the re-insertions stay linear overall.
    pub(super) fn fit_to(&mut self, queued: usize) {
        let slots = queued
            .saturating_mul(SLOTS_PER_QUEUED_JOB)
            .next_power_of_two()
            .clamp(MIN_SHAPE_SLOTS, MAX_SHAPE_SLOTS);
        if slots <= self.shapes.len() {
            return;
        }
        let old = std::mem::replace(&mut self.shapes, vec![ShapeSlot::default(); slots]);
        let live = self.generation;
        for e in old.into_iter().filter(|e| e.generation == live) {
            self.set_shape(e.units, e.estimate, e.start, e.step);
        }
    }

    /// A copy of the widths' floors alone (a projection's scratch bounds).
    pub(super) fn widths_only(&self) -> Floors {
        Floors {
            widths: self.widths.clone(),
            ..Floors::default()
        }
    }

    /// Empties both tables before a rebuild of a queue of `queued` jobs.
    pub(super) fn clear(&mut self, queued: usize) {
        self.widths.clear();
        // u32::MAX marks empty slots; after 2³²−1 clears the old generations would come
        // round again, so the table is wiped instead.
        self.generation += 1;
        if self.generation == u32::MAX {
            self.generation = 0;
            self.shapes
                .iter_mut()
                .for_each(|e| *e = ShapeSlot::default());
        }
        // After the new generation, so that growing has no live entry to carry over.
        self.fit_to(queued);
    }

    /// The floor for `units`: the first instant the plan had that many units free, or
    /// fewer (a lower bound either way).
    fn width_floor(&self, units: u32) -> Option<SimTime> {
        let i = self.widths.partition_point(|&(u, _)| u <= units);
        i.checked_sub(1).map(|i| self.widths[i].1)
    }

    fn set_floor(&mut self, units: u32, floor: SimTime) {
        match self.widths.binary_search_by_key(&units, |&(u, _)| u) {
            Ok(i) => self.widths[i].1 = floor,
            Err(i) => self.widths.insert(i, (units, floor)),
        }
    }
}

pub(super) fn place(
    profile: &mut Profile,
    floors: &mut Floors,
    now: SimTime,
    job: &QueuedJob,
) -> SimTime {
    // A job of a shape already placed starts its search there (usually well past the width's
    // floor, which is then not looked up); a new shape starts at its width's floor.
    let (not_before, guess, from_floor) = match floors.shape(job.units, job.estimate) {
        Some((start, step)) => (start.max(now), Some(step), false),
        None => {
            let floor = floors.width_floor(job.units);
            (floor.map_or(now, |t| t.max(now)), None, true)
        }
    };
    let (window, found_floor) =
        profile.earliest_window_near(not_before, guess, job.units, job.estimate);
    // The search reports the first instant with room at or after where it began: a floor
    // for the width only when it began at the width's floor, not at a shape's start.
    if let (Some(f), true) = (found_floor, from_floor) {
        floors.set_floor(job.units, f);
    }
    // The engine only queues jobs that fit the site, so a start always exists once every
    // running job has released; NEVER would only show up as a capacity-check failure.
    let Some(window) = window else {
        return SimTime::NEVER;
    };
    let step = profile.reserve_found(window, job.estimate, job.units);
    floors.set_shape(job.units, job.estimate, window.start, step);
    window.start
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::JobIdx;

    fn t(s: i64) -> SimTime {
        SimTime(s)
    }

    /// `place` with its width floors and shape starts gives every job the start a plain
    /// earliest-start search from `now` gives, on queues that repeat shapes (job arrays)
    /// and mix widths, over plans that already hold running jobs.
    #[test]
    fn bounded_placement_equals_plain_search() {
        let mut rng = crate::rng::SimRng::new(11);
        for round in 0..400 {
            let capacity = 2 + rng.range_u64(0, 30) as u32;
            let now = t(rng.range_u64(0, 50) as i64);
            let releases: Vec<(SimTime, u32)> = {
                let mut left = capacity;
                let mut out = Vec::new();
                let mut at = now.0;
                while left > 0 && rng.range_u64(0, 3) > 0 {
                    let units = 1 + rng.range_u64(0, left as u64 - 1) as u32;
                    at += rng.range_u64(0, 40) as i64;
                    out.push((t(at), units));
                    left -= units;
                }
                out
            };
            let busy: u32 = releases.iter().map(|&(_, u)| u).sum();
            let base = Profile::from_running(now, capacity - busy, releases);
            let shapes: Vec<(u32, i64)> = (0..1 + rng.range_u64(0, 5))
                .map(|_| {
                    let units = 1 + rng.range_u64(0, capacity as u64 - 1) as u32;
                    (units, 1 + rng.range_u64(0, 50) as i64)
                })
                .collect();
            let mut bounded = base.clone();
            let mut plain = base;
            let mut floors = Floors::default();
            floors.clear(80);
            for i in 0..rng.range_u64(1, 80) {
                let (units, len) = shapes[rng.range_u64(0, shapes.len() as u64 - 1) as usize];
                let job = QueuedJob {
                    idx: i as JobIdx,
                    units,
                    estimate: t(len),
                    queued_at: now,
                };
                let got = place(&mut bounded, &mut floors, now, &job);
                let want = plain.earliest_start(now, units, t(len)).unwrap();
                plain.reserve(want, t(len), units);
                assert_eq!(got, want, "round {round}, job {i}");
            }
            assert_eq!(bounded, plain, "round {round}");
        }
    }

    /// With far more shapes than slots, a lookup finds its own shape's entry or nothing,
    /// never a colliding shape's.
    #[test]
    fn shape_table_never_answers_for_another_shape() {
        let mut floors = Floors::default();
        floors.clear(10);
        assert_eq!(floors.shapes.len(), MIN_SHAPE_SLOTS);
        // Few widths and scattered estimates (distinct: the index is in the low bits), so
        // shapes of one width collide; estimates in arithmetic progression would not.
        let mut rng = crate::rng::SimRng::new(3);
        let shapes: Vec<(u32, SimTime)> = (0..5000u32)
            .map(|i| {
                let estimate = (rng.range_u64(0, 1 << 30) << 13) as i64 + i64::from(i);
                (1 + i % 3, t(estimate))
            })
            .collect();
        for (k, &(units, estimate)) in shapes.iter().enumerate() {
            floors.set_shape(units, estimate, t(k as i64), k);
        }
        let mut found = 0;
        for (k, &(units, estimate)) in shapes.iter().enumerate() {
            if let Some(entry) = floors.shape(units, estimate) {
                assert_eq!(entry, (t(k as i64), k));
                found += 1;
            }
        }
        assert!(found > 0 && found <= MIN_SHAPE_SLOTS);
        // Growing the table (a long queue between rebuilds) keeps every live entry.
        let before: Vec<_> = shapes.iter().map(|&(u, e)| floors.shape(u, e)).collect();
        floors.fit_to(5000);
        assert_eq!(floors.shapes.len(), MAX_SHAPE_SLOTS);
        for (k, &(units, estimate)) in shapes.iter().enumerate() {
            if before[k].is_some() {
                assert_eq!(floors.shape(units, estimate), before[k]);
            }
        }
        // A rebuild forgets every entry.
        floors.clear(10);
        assert!(shapes.iter().all(|&(u, e)| floors.shape(u, e).is_none()));
    }
}
