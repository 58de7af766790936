//! Where jobs sit on a site's units, for drawing: the engine only counts units, so a Gantt
//! chart needs a placement. Jobs are packed in start order onto the lowest free units
//! (first fit over free intervals; a job that finds no single interval wide enough takes
//! pieces from the lowest ones).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::time::SimTime;

/// One job to place: `(id, start, end, units)`.
pub type Interval = (i64, SimTime, SimTime, u32);

/// One rectangle drawn: `(index into the input, first unit, units)`.
pub type Placed = (usize, u32, u32);

/// Packs `jobs` (in any order) onto `capacity` units; returns the rectangles of jobs that
/// overlap `[from, to]`, at most `max` of them, and whether more were left out.
pub fn pack_units(
    jobs: &[Interval],
    capacity: u32,
    from: SimTime,
    to: SimTime,
    max: usize,
) -> (Vec<Placed>, bool) {
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&i| (jobs[i].1, i));
    let mut free: Vec<(u32, u32)> = vec![(0, capacity)];
    let mut running: BinaryHeap<Reverse<(SimTime, usize)>> = BinaryHeap::new();
    let mut held: Vec<Vec<(u32, u32)>> = vec![Vec::new(); jobs.len()];
    let mut out = Vec::new();
    let mut truncated = false;
    for &i in &order {
        let (_, start, end, units) = jobs[i];
        while let Some(&Reverse((e, j))) = running.peek() {
            if e > start {
                break;
            }
            running.pop();
            release(&mut free, std::mem::take(&mut held[j]));
        }
        if start > to {
            break;
        }
        let blocks = take(&mut free, units.min(capacity));
        if end >= from {
            for &(lo, hi) in &blocks {
                if out.len() >= max {
                    truncated = true;
                    break;
                }
                out.push((i, lo, hi - lo));
            }
        }
        running.push(Reverse((end, i)));
        held[i] = blocks;
    }
    (out, truncated)
}

fn release(free: &mut Vec<(u32, u32)>, blocks: Vec<(u32, u32)>) {
    free.extend(blocks);
    free.sort_unstable();
    let mut merged: Vec<(u32, u32)> = Vec::with_capacity(free.len());
    for &(lo, hi) in free.iter() {
        match merged.last_mut() {
            Some(last) if last.1 == lo => last.1 = hi,
            _ => merged.push((lo, hi)),
        }
    }
    *free = merged;
}

fn take(free: &mut Vec<(u32, u32)>, mut need: u32) -> Vec<(u32, u32)> {
    let mut blocks = Vec::new();
    if let Some(k) = free.iter().position(|&(lo, hi)| hi - lo >= need) {
        let (lo, hi) = free[k];
        blocks.push((lo, lo + need));
        if hi - lo == need {
            free.remove(k);
        } else {
            free[k].0 = lo + need;
        }
        return blocks;
    }
    while need > 0 && !free.is_empty() {
        let (lo, hi) = free[0];
        let n = need.min(hi - lo);
        blocks.push((lo, lo + n));
        need -= n;
        if n == hi - lo {
            free.remove(0);
        } else {
            free[0].0 = lo + n;
        }
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_take_the_lowest_free_units_and_release_them() {
        let t = SimTime::from_secs;
        let jobs = [
            (1, t(0), t(10), 2),
            (2, t(0), t(5), 1),
            (3, t(5), t(10), 1),
            (4, t(10), t(20), 4),
        ];
        let (rects, more) = pack_units(&jobs, 4, t(0), t(100), 100);
        assert!(!more);
        assert_eq!(rects, vec![(0, 0, 2), (1, 2, 1), (2, 2, 1), (3, 0, 4)]);
    }
}
