//! Conservative backfilling on a node-typed site (issues #37 and #41, docs/nodes.md): every
//! queued job holds a reservation of *particular nodes* (its shares of their cores, memory
//! and GPUs) from an instant on, and the job starts on exactly those nodes.
//!
//! Why nodes and not a count, and how a job's earliest start is found on them: the plan's
//! own header ([`super::node_plan`]).
//!
//! Known maintenance windows (issue #41) are in the plan as the whole node used, so no
//! reservation overlaps one; a node down for a failure is used from now on with no end
//! (nobody knows when it is repaired) until it comes back and the plan is made again.
//!
//! Compression (Mu'alem & Feitelson; `conservative`): when a job ends before its estimate,
//! or is killed, the rest of its hold is given back and each queued job in arrival order
//! is taken out and put back at its earliest start before its reservation, on whatever
//! nodes first-fit finds there, or where it was. A reservation never moves later. The
//! rebuild variant (`conservative-rebuild`) re-places every queued job in arrival order
//! instead. Either makes the plan again from the running jobs when it cannot follow the
//! site (a job outlived its estimate, a node went down or came back, a reserved start found
//! its nodes still busy under a per-event order).
//!
//! On one node the rule is the processor rule exactly (a node's cores are interchangeable):
//! the integration test holds the two to the same schedules.
//!
//! Cost: a try builds what every node has free over the window (one binary search per node
//! with a plan) and walks first-fit, so a search costs nodes × tries, and compression
//! searches every queued job at every early end. Fine for queues of hundreds on hundreds
//! of nodes; the counting rule is far faster (docs/performance.md has both).

use std::collections::{BTreeMap, BTreeSet};

use super::node_plan::{After, NodePlan};
use super::nodefit::NodesView;
use super::{QueuedJob, SiteView};
use crate::model::fit::unit_mem;
use crate::model::{JobIdx, Share};
use crate::time::SimTime;

/// A queued job's reservation: its start and its shares of the nodes.
#[derive(Clone, Debug)]
struct Held {
    start: SimTime,
    shares: Vec<Share>,
}

#[derive(Clone, Debug)]
struct Entry {
    job: QueuedJob,
    /// `None` until placed; a start of `NEVER` (no shares) when no placement exists while a
    /// node is down (tried again when the plan is made again).
    held: Option<Held>,
    /// The freed-room stamp ([`NodeConservative::freed`]) when it was last placed or
    /// checked: every start before its reservation failed then.
    stamp: u64,
}

/// What the next pass must do first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
enum Pending {
    #[default]
    Nothing,
    /// Room was given back: compress (or, for the rebuild variant, make the plan again).
    Compress,
    /// The plan no longer follows the site: make it again from the running jobs.
    Rebuild,
}

/// Conservative backfilling's plan on nodes (module header).
#[derive(Debug)]
pub(crate) struct NodeConservative {
    /// Compression (`conservative`) or rebuild (`conservative-rebuild`) on early ends.
    compress: bool,
    /// Jobs by arrival key (requeued at the front: below every arrival).
    queue: BTreeMap<i64, Entry>,
    /// (reserved start, arrival key) of every placed job.
    by_start: BTreeSet<(SimTime, i64)>,
    plan: NodePlan,
    built: bool,
    pending: Pending,
    /// A notice came since the last pass (an engine's `plan_invalidated` without one means
    /// something changed that no hook told: make the plan again).
    noticed: bool,
    /// The instant of the last [`NodeConservative::released`], for the shares that follow.
    released_at: SimTime,
    next_key: i64,
    next_front: i64,
    /// The shares of this pass's starts, for the engine to take.
    chosen: Vec<(JobIdx, Vec<Share>)>,
    /// Room given back since the oldest stamp a queued job holds, as (stamp, from, to):
    /// the tail of a job that ended early, the old slot of a job that moved up, a
    /// withdrawn job's reservation. A job can move only to a start whose window overlaps
    /// room given back since it was last placed (before, every start before its
    /// reservation failed, and the plan has only lost room elsewhere), so compression
    /// searches only there (on a node-typed site the room need not be before its start:
    /// a node its first-fit did not take may be the one that was short).
    freed: Vec<(u64, SimTime, SimTime)>,
    stamp: u64,
    /// Queued jobs looked at by compression ([`NodeConservative::plan_work`] adds the
    /// plan's).
    work: u64,
}

impl NodeConservative {
    pub(crate) fn new(compress: bool) -> NodeConservative {
        NodeConservative {
            compress,
            queue: BTreeMap::new(),
            by_start: BTreeSet::new(),
            plan: NodePlan::default(),
            built: false,
            pending: Pending::Nothing,
            noticed: false,
            released_at: SimTime::ZERO,
            next_key: 0,
            next_front: -1,
            chosen: Vec::new(),
            freed: Vec::new(),
            stamp: 0,
            work: 0,
        }
    }

    pub(crate) fn enqueue(&mut self, job: QueuedJob) {
        let stamp = self.stamp;
        self.queue.insert(
            self.next_key,
            Entry {
                job,
                held: None,
                stamp,
            },
        );
        self.next_key += 1;
    }

    /// A killed job requeued ahead of every waiting job: the plan is made again at the next
    /// pass (as the failure that killed it asks anyway), so that it is placed first.
    pub(crate) fn enqueue_front(&mut self, job: QueuedJob) {
        let stamp = self.stamp;
        self.queue.insert(
            self.next_front,
            Entry {
                job,
                held: None,
                stamp,
            },
        );
        self.next_front -= 1;
        self.notice(Pending::Rebuild);
    }

    pub(crate) fn queue_len(&self) -> usize {
        self.queue.len()
    }

    pub(crate) fn plan_work(&self) -> u64 {
        self.work + self.plan.work
    }

    pub(crate) fn queued(&self) -> Vec<QueuedJob> {
        self.queue.values().map(|e| e.job).collect()
    }

    pub(crate) fn withdraw(&mut self, job: JobIdx) -> bool {
        let Some(key) = self
            .queue
            .iter()
            .find(|(_, e)| e.job.idx == job)
            .map(|(&k, _)| k)
        else {
            return false;
        };
        if let Some(e) = self.queue.remove(&key) {
            if let Some(h) = e.held {
                self.by_start.remove(&(h.start, key));
                let end = h.start.after(e.job.estimate);
                self.plan.unhold(h.start, end, &h.shares);
                self.log_freed(h.start, end);
            }
        }
        self.notice(Pending::Compress);
        true
    }

    pub(crate) fn released(&mut self, now: SimTime) {
        self.released_at = now;
    }

    /// A running job planned until `predicted_end` gave `shares` back at the instant of the
    /// last [`NodeConservative::released`].
    pub(crate) fn released_nodes(&mut self, predicted_end: SimTime, shares: &[Share]) {
        let now = self.released_at;
        if predicted_end > now {
            self.plan.unhold(now, predicted_end, shares);
            self.log_freed(now, predicted_end);
            self.notice(Pending::Compress);
        } else if self.compress {
            // pyss compresses at every termination: a job moved up in an earlier pass may
            // have left room before a job the pass had already visited.
            self.notice(Pending::Compress);
        }
    }

    /// The site changed in a way no hold describes (an overrun, a node down or back).
    pub(crate) fn replan(&mut self) {
        self.notice(Pending::Rebuild);
    }

    fn log_freed(&mut self, from: SimTime, to: SimTime) {
        self.stamp += 1;
        self.freed.push((self.stamp, from, to));
    }

    fn notice(&mut self, what: Pending) {
        self.noticed = true;
        self.pending = self.pending.max(what);
    }

    /// The nodes the last pass chose for job `idx`, which it started.
    pub(crate) fn chosen_nodes(&mut self, idx: JobIdx, out: &mut Vec<Share>) -> bool {
        match self.chosen.iter().position(|c| c.0 == idx) {
            Some(i) => {
                let (_, shares) = self.chosen.swap_remove(i);
                out.clear();
                out.extend_from_slice(&shares);
                true
            }
            None => false,
        }
    }

    pub(crate) fn schedule(
        &mut self,
        site: &SiteView,
        nodes: &NodesView,
        starts: &mut Vec<JobIdx>,
    ) {
        let now = site.now;
        self.chosen.clear();
        let rebuild = !self.built
            || self.pending == Pending::Rebuild
            || (self.pending == Pending::Compress && !self.compress)
            || (site.plan_invalidated && !self.noticed);
        if rebuild {
            self.rebuild(site, nodes);
        } else {
            self.plan.forget_before(now);
            if self.pending == Pending::Compress {
                self.compress(now, nodes);
            }
            let newcomers: Vec<i64> = self
                .queue
                .iter()
                .filter(|(_, e)| e.held.is_none())
                .map(|(&k, _)| k)
                .collect();
            for key in newcomers {
                self.place(key, (now, now), SimTime::NEVER, nodes);
            }
        }
        self.pending = Pending::Nothing;
        self.noticed = false;
        self.start_due(site, nodes, starts);
    }

    /// The plan made again: the running jobs until their predicted ends, the maintenance
    /// windows still to come, the nodes down now, then every queued job in arrival order.
    fn rebuild(&mut self, site: &SiteView, nodes: &NodesView) {
        let now = site.now;
        self.plan.build(site, nodes, false);
        self.by_start.clear();
        self.built = true;
        let keys: Vec<i64> = self.queue.keys().copied().collect();
        for key in keys {
            if let Some(e) = self.queue.get_mut(&key) {
                e.held = None;
            }
            self.place(key, (now, now), SimTime::NEVER, nodes);
        }
    }

    /// Compression: each queued job in arrival order moves to its earliest start before
    /// its reservation, if there is one.
    fn compress(&mut self, now: SimTime, nodes: &NodesView) {
        // Room given back before every queued job was last placed helps none of them.
        let oldest = self
            .queue
            .values()
            .map(|e| e.stamp)
            .min()
            .unwrap_or(self.stamp);
        self.freed.retain(|f| f.0 > oldest);
        let keys: Vec<i64> = self.queue.keys().copied().collect();
        for key in keys {
            self.work += 1;
            let Some(e) = self.queue.get_mut(&key) else {
                continue;
            };
            let (stamp, estimate, job) = (e.stamp, e.job.estimate, e.job);
            e.stamp = self.stamp;
            let Some(h) = e.held.take() else {
                continue;
            };
            // The starts whose windows reach room given back since: after
            // `from − estimate`, before the last instant given back.
            let i = self.freed.partition_point(|f| f.0 <= stamp);
            let reach = self.freed[i..]
                .iter()
                .fold(None, |r, &(_, from, to)| match r {
                    None => Some((from, to)),
                    Some((lo, hi)) => Some((from.min(lo), to.max(hi))),
                });
            // First-fit of a job with GPUs or a node count is not monotone in the room
            // (cores found sooner can leave GPUs unvisited): less room elsewhere may let it
            // in, so it is searched over every start before its reservation.
            let monotone =
                unit_mem(self.plan.memory(), job.units, &nodes.demand(job.idx)).is_some();
            let reach = match monotone {
                true => reach,
                false => Some((SimTime(now.0.saturating_add(estimate.0)), SimTime::NEVER)),
            };
            let range = reach
                .filter(|_| h.start > now && h.start != SimTime::NEVER)
                .map(|(lo, hi)| {
                    (
                        SimTime(lo.0.saturating_sub(estimate.0)).max(now),
                        h.start.min(hi),
                    )
                })
                .filter(|(from, before)| from < before);
            let Some((from, before)) = range else {
                if let Some(e) = self.queue.get_mut(&key) {
                    e.held = Some(h);
                }
                continue;
            };
            let end = h.start.after(estimate);
            self.plan.unhold(h.start, end, &h.shares);
            self.by_start.remove(&(h.start, key));
            if self.place(key, (now, from), before, nodes) {
                self.log_freed(h.start, end);
            } else {
                self.plan.hold(h.start, end, &h.shares);
                self.by_start.insert((h.start, key));
                if let Some(e) = self.queue.get_mut(&key) {
                    e.held = Some(h);
                }
            }
        }
    }

    /// Places job `key` at its earliest start from `from` (not before `now`) before
    /// `before` and holds it there; false (leaving it unplaced) when there is none. A job
    /// with no start at all (`before` = `NEVER`) is kept with a start of `NEVER`.
    fn place(
        &mut self,
        key: i64,
        (now, from): (SimTime, SimTime),
        before: SimTime,
        nodes: &NodesView,
    ) -> bool {
        let Some(job) = self.queue.get(&key).map(|e| e.job) else {
            return false;
        };
        let found = self.plan.earliest((now, from), before, &job, nodes, None);
        let held = match found {
            Some(start) => {
                let shares = self.plan.take_probe();
                self.plan.hold(start, start.after(job.estimate), &shares);
                self.by_start.insert((start, key));
                Held { start, shares }
            }
            None if before == SimTime::NEVER => Held {
                start: SimTime::NEVER,
                shares: Vec::new(),
            },
            None => return false,
        };
        let stamp = self.stamp;
        if let Some(e) = self.queue.get_mut(&key) {
            e.held = Some(held);
            e.stamp = stamp;
        }
        true
    }

    /// Starts every job whose reservation has come, on its nodes. One whose nodes are not
    /// all free yet (a job predicted to end now not yet ended, under a per-event order)
    /// waits, and the plan is made again at the next pass.
    fn start_due(&mut self, site: &SiteView, nodes: &NodesView, starts: &mut Vec<JobIdx>) {
        let now = site.now;
        let due: Vec<(SimTime, i64)> = self.by_start.range(..=(now, i64::MAX)).copied().collect();
        if due.is_empty() {
            return;
        }
        let mut free = nodes.pool.free().clone();
        for (start, key) in due {
            let Some(e) = self.queue.get(&key) else {
                continue;
            };
            let Some(h) = &e.held else { continue };
            let fits = h.shares.iter().all(|s| {
                let n = s.node as usize;
                free.cores[n] >= s.cores && free.mem_kb[n] >= s.mem_kb && free.gpus[n] >= s.gpus
            });
            if !fits {
                self.pending = Pending::Rebuild;
                continue;
            }
            if start < now {
                // Held from its reservation's start, it runs from now: the plan is off.
                self.pending = Pending::Rebuild;
            }
            free.take(&h.shares);
            starts.push(e.job.idx);
            self.chosen.push((e.job.idx, h.shares.clone()));
            self.by_start.remove(&(start, key));
            self.queue.remove(&key);
        }
    }
}
