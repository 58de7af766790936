//! Which nodes have every core held at an instant ([`FullNodes`]), so that a walk of the
//! nodes for a job of units skips them without reading their plans.
//!
//! Why: on HPC2N under Slurm's backfill, 95 % of the nodes a walk read were core-full
//! somewhere in the job's window, and 98.5 % of those at the window's first instant: the
//! walk read a whole machine's plans to find the few nodes with a core free. A node whose
//! cores are all held at the window's start gives the job nothing (its units need a core
//! each), whatever its memory.
//!
//! How: a tree over the nodes (a perfect binary tree, padded with nodes that are always
//! full). A leaf holds the intervals in which its node's cores are all held, from its plan;
//! an inner vertex the intersection of its children's, i.e. the intervals in which *every*
//! node below it is full. A search for the first node from `i` not full at `t` skips each
//! subtree whose intervals contain `t`. A node's plan changing recomputes its leaf and,
//! while it changes, the intersections above it.

use super::line::Line;
use crate::time::SimTime;

/// Intervals `[from, to)`, sorted and disjoint.
type Spans = Vec<(SimTime, SimTime)>;

/// The nodes' core-full intervals in a tree (module header).
#[derive(Clone, Debug, Default)]
pub(super) struct FullNodes {
    /// Leaves from `base` on; vertex `v`'s children are `2v` and `2v + 1` (1 is the root).
    spans: Vec<Spans>,
    base: usize,
    nodes: usize,
    /// A spare list, so that recomputing a vertex allocates nothing.
    scratch: Spans,
}

/// Where `t` falls in `spans`: the end of the interval holding it.
fn holding(spans: &Spans, t: SimTime) -> Option<SimTime> {
    let i = spans.partition_point(|s| s.0 <= t);
    let s = spans.get(i.checked_sub(1)?)?;
    (t < s.1).then_some(s.1)
}

/// The intervals in both `a` and `b`.
fn intersect(a: &Spans, b: &Spans, out: &mut Spans) {
    out.clear();
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let from = a[i].0.max(b[j].0);
        let to = a[i].1.min(b[j].1);
        if from < to {
            out.push((from, to));
        }
        if a[i].1 < b[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
}

/// The intervals in which `line` holds at least `cores` cores.
fn full_spans(line: &Line, cores: u32, out: &mut Spans) {
    out.clear();
    for (k, &(t, u)) in line.steps.iter().enumerate() {
        if u.cores < cores {
            continue;
        }
        let end = line.steps.get(k + 1).map_or(SimTime::NEVER, |s| s.0);
        match out.last_mut() {
            Some(last) if last.1 == t => last.1 = end,
            _ => out.push((t, end)),
        }
    }
}

const ALWAYS: (SimTime, SimTime) = (SimTime(i64::MIN), SimTime::NEVER);

impl FullNodes {
    /// The tree for `lines` (nodes of `cores[n]` cores each).
    pub(super) fn build(&mut self, lines: &[Line], cores: &[u32]) {
        self.nodes = lines.len();
        self.base = lines.len().next_power_of_two().max(1);
        self.spans.resize_with(2 * self.base, Vec::new);
        for v in self.base..2 * self.base {
            let n = v - self.base;
            match lines.get(n) {
                Some(line) => full_spans(line, cores[n], &mut self.spans[v]),
                None => {
                    self.spans[v].clear();
                    self.spans[v].push(ALWAYS);
                }
            }
        }
        for v in (1..self.base).rev() {
            self.merge(v);
        }
    }

    /// Vertex `v`'s intervals from its children's; true when they changed.
    fn merge(&mut self, v: usize) -> bool {
        let mut out = std::mem::take(&mut self.scratch);
        intersect(&self.spans[2 * v], &self.spans[2 * v + 1], &mut out);
        self.swap_in(v, out)
    }

    /// Makes `out` vertex `v`'s intervals, keeping the old ones as scratch; true when
    /// they changed.
    fn swap_in(&mut self, v: usize, out: Spans) -> bool {
        let changed = out != self.spans[v];
        self.scratch = std::mem::replace(&mut self.spans[v], out);
        changed
    }

    /// Node `n`'s plan changed to `line`.
    pub(super) fn update(&mut self, n: usize, line: &Line, cores: u32) {
        if n >= self.nodes {
            return;
        }
        let mut v = self.base + n;
        let mut out = std::mem::take(&mut self.scratch);
        full_spans(line, cores, &mut out);
        if !self.swap_in(v, out) {
            return;
        }
        while v > 1 {
            v /= 2;
            if !self.merge(v) {
                return;
            }
        }
    }

    /// The first node from `from` on whose cores are not all held at `t`; `rise` is
    /// lowered to the first instant one of the nodes skipped can be other than full (the
    /// end of an interval every node of a skipped subtree is full in).
    ///
    /// Bottom-up: from the leaf, each subtree full at `t` is passed by moving to the next
    /// one to its right (up while it is a right child); the first that is not is descended,
    /// always into its left child when that one is not full at `t` (a vertex's intervals
    /// are its leaves' intersection, so some leaf below it is open), else the right.
    pub(super) fn next_open(&self, from: usize, t: SimTime, rise: &mut SimTime) -> Option<usize> {
        if from >= self.nodes {
            return None;
        }
        let mut v = self.base + from;
        loop {
            match holding(&self.spans[v], t) {
                None => break,
                Some(end) => {
                    *rise = (*rise).min(end);
                    while v % 2 == 1 {
                        v /= 2;
                        if v <= 1 {
                            return None;
                        }
                    }
                    v += 1;
                }
            }
        }
        while v < self.base {
            v *= 2;
            if let Some(end) = holding(&self.spans[v], t) {
                *rise = (*rise).min(end);
                v += 1;
            }
        }
        Some(v - self.base).filter(|&n| n < self.nodes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Share;

    fn t(s: i64) -> SimTime {
        SimTime(s)
    }

    fn hold(line: &mut Line, from: i64, to: i64, cores: u32) {
        let share = Share {
            node: 0,
            cores,
            mem_kb: 0,
            gpus: 0,
        };
        line.change(t(from), t(to), &share, true);
    }

    /// The search finds the nodes a walk of every node's plan finds not full, in order, and
    /// lowers `rise` no further than the soonest end of a skipped node's full interval.
    #[test]
    fn next_open_agrees_with_every_nodes_plan() {
        let mut rng = crate::rng::SimRng::new(7);
        for _ in 0..200 {
            let n = 1 + rng.range_u64(0, 9) as usize;
            let cores: Vec<u32> = (0..n).map(|_| 1 + rng.range_u64(0, 3) as u32).collect();
            let mut lines = vec![Line::default(); n];
            let mut full = FullNodes::default();
            full.build(&lines, &cores);
            for step in 0..30 {
                let k = rng.range_u64(0, n as u64 - 1) as usize;
                let from = rng.range_u64(0, 50) as i64;
                let to = from + 1 + rng.range_u64(0, 30) as i64;
                hold(&mut lines[k], from, to, 1 + rng.range_u64(0, 2) as u32);
                if step % 7 == 0 {
                    full.build(&lines, &cores);
                } else {
                    full.update(k, &lines[k], cores[k]);
                }
                let at = t(rng.range_u64(0, 80) as i64);
                let mut open = Vec::new();
                let mut rise = SimTime::NEVER;
                let mut i = 0;
                while let Some(m) = full.next_open(i, at, &mut rise) {
                    open.push(m);
                    i = m + 1;
                }
                let full_at = |m: usize| lines[m].peak(at, t(at.0 + 1)).0.cores >= cores[m];
                let want: Vec<usize> = (0..n).filter(|&m| !full_at(m)).collect();
                assert_eq!(open, want);
                // Every skipped node stays full until `rise`.
                for m in (0..n).filter(|&m| full_at(m)) {
                    let mut spans = Vec::new();
                    full_spans(&lines[m], cores[m], &mut spans);
                    assert!(holding(&spans, at).is_some_and(|end| end >= rise));
                }
            }
        }
    }
}
