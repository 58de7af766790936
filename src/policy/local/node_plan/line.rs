//! One node's plan ([`super::NodePlan`], for conservative backfilling and Slurm's backfill on
//! nodes): a step function of the cores, memory and GPUs its holders use.

use crate::model::Share;
use crate::time::SimTime;

/// What a node's holders use from an instant on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Use {
    pub(super) cores: u32,
    pub(super) mem_kb: u64,
    pub(super) gpus: u32,
}

impl Use {
    pub(super) fn max(self, o: Use) -> Use {
        Use {
            cores: self.cores.max(o.cores),
            mem_kb: self.mem_kb.max(o.mem_kb),
            gpus: self.gpus.max(o.gpus),
        }
    }
}

/// One node's plan: step `i` uses `steps[i].1` from `steps[i].0` until the next step;
/// nothing is used before the first. Equal neighbours are merged.
#[derive(Clone, Debug, Default)]
pub(super) struct Line {
    pub(super) steps: Vec<(SimTime, Use)>,
}

impl Line {
    /// The index of the step beginning at `t`, made by splitting the one in force there.
    pub(super) fn split(&mut self, t: SimTime) -> usize {
        let i = self.steps.partition_point(|s| s.0 < t);
        if self.steps.get(i).is_some_and(|s| s.0 == t) {
            return i;
        }
        let before = match i {
            0 => Use::default(),
            _ => self.steps[i - 1].1,
        };
        self.steps.insert(i, (t, before));
        i
    }

    /// Adds (`hold`) or takes away `share` during `[from, to)`.
    pub(super) fn change(&mut self, from: SimTime, to: SimTime, share: &Share, hold: bool) {
        if to <= from {
            return;
        }
        let a = self.split(from);
        let b = self.split(to);
        for (_, u) in &mut self.steps[a..b] {
            if hold {
                u.cores += share.cores;
                u.mem_kb += share.mem_kb;
                u.gpus += share.gpus;
            } else {
                u.cores = u.cores.saturating_sub(share.cores);
                u.mem_kb = u.mem_kb.saturating_sub(share.mem_kb);
                u.gpus = u.gpus.saturating_sub(share.gpus);
            }
        }
        if b < self.steps.len() && self.steps[b].1 == self.steps[b - 1].1 {
            self.steps.remove(b);
        }
        let same_as_before = match a {
            0 => self.steps[0].1 == Use::default(),
            _ => self.steps[a].1 == self.steps[a - 1].1,
        };
        if same_as_before {
            self.steps.remove(a);
        }
    }

    /// The most of each resource used at any instant of `[from, to)`, and the first
    /// instant a window starting later can have more of some resource free: the end of
    /// the last step at a resource's most (a window starting before it still holds it),
    /// the soonest over the resources used at all (`NEVER` when none is).
    pub(super) fn peak(&self, from: SimTime, to: SimTime) -> (Use, SimTime) {
        let first = self
            .steps
            .partition_point(|s| s.0 <= from)
            .saturating_sub(1);
        let mut most = Use::default();
        // Per resource: the end of the last step at its most so far.
        let mut left = [SimTime::NEVER; 3];
        let steps = &self.steps[first..];
        for (k, &(t, u)) in steps.iter().enumerate() {
            if t >= to {
                break;
            }
            if t > from || k == 0 {
                let ends = steps.get(k + 1).map_or(SimTime::NEVER, |s| s.0);
                let now_most = most.max(u);
                for (slot, (value, best)) in left.iter_mut().zip([
                    (u64::from(u.cores), u64::from(now_most.cores)),
                    (u.mem_kb, now_most.mem_kb),
                    (u64::from(u.gpus), u64::from(now_most.gpus)),
                ]) {
                    if value == best && value > 0 {
                        *slot = ends;
                    }
                }
                most = now_most;
            }
        }
        let mut rise = SimTime::NEVER;
        for (slot, used) in
            left.into_iter()
                .zip([u64::from(most.cores), most.mem_kb, u64::from(most.gpus)])
        {
            if used > 0 {
                rise = rise.min(slot);
            }
        }
        (most, rise)
    }

    /// Drops the steps over before `now`, keeping the one in force at `now`.
    pub(super) fn forget_before(&mut self, now: SimTime) {
        let i = self.steps.partition_point(|s| s.0 <= now);
        if i > 1 {
            self.steps.drain(..i - 1);
        }
    }
}
