//! Compression's queue (conservative backfilling, Mu'alem & Feitelson 2001): the queued jobs
//! in arrival order in one array, and their reserved starts in a heap. A compression pass
//! walks the whole queue in arrival order (RICC-2010-2: 627 million visits) and each move
//! re-keys a start (48 million): an array walk and a heap push cost a fraction of a tree
//! walk and a tree remove-and-insert.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::super::QueuedJob;
use crate::model::JobIdx;
use crate::time::SimTime;

/// A queued job, its reservation (`None` until placed) and the stamp of its last placement
/// or check (see `FreedLog`).
#[derive(Clone, Copy, Debug)]
pub(super) struct Entry {
    /// Arrival sequence: the queue's order and the job's key.
    pub seq: u64,
    pub job: QueuedJob,
    pub start: Option<SimTime>,
    pub checked: u64,
    alive: bool,
}

impl Entry {
    pub fn new(seq: u64, job: QueuedJob) -> Entry {
        Entry {
            seq,
            job,
            start: None,
            checked: 0,
            alive: true,
        }
    }
}

/// The queue in arrival order: an array sorted by sequence where a job that leaves is
/// marked gone, and the gone ones are swept out once they are as many as the live ones
/// (so a lookup is a binary search and the sweeps cost a constant per job).
#[derive(Clone, Debug, Default)]
pub(super) struct ArrivalQueue {
    entries: Vec<Entry>,
    gone: usize,
}

impl ArrivalQueue {
    /// Queues a job; its sequence must be above every earlier one.
    pub fn push(&mut self, entry: Entry) {
        debug_assert!(self.entries.last().is_none_or(|e| e.seq < entry.seq));
        self.entries.push(entry);
    }

    pub fn len(&self) -> usize {
        self.entries.len() - self.gone
    }

    /// The queued jobs in arrival order.
    pub fn iter(&self) -> impl Iterator<Item = &Entry> + '_ {
        self.entries.iter().filter(|e| e.alive)
    }

    /// The queued jobs in arrival order, to change their reservations.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut Entry> + '_ {
        self.entries.iter_mut().filter(|e| e.alive)
    }

    /// The jobs not placed yet: the newcomers, all at the back of the queue.
    pub fn unplaced_mut(&mut self) -> impl Iterator<Item = &mut Entry> + '_ {
        let placed = self
            .entries
            .iter()
            .rposition(|e| e.alive && e.start.is_some())
            .map_or(0, |i| i + 1);
        self.entries[placed..].iter_mut().filter(|e| e.alive)
    }

    fn position(&self, seq: u64) -> Option<usize> {
        let i = self.entries.binary_search_by_key(&seq, |e| e.seq).ok()?;
        self.entries[i].alive.then_some(i)
    }

    pub fn get(&self, seq: u64) -> Option<&Entry> {
        self.position(seq).map(|i| &self.entries[i])
    }

    /// The sequence of the queued job `idx` (a linear search: withdrawals are rare).
    pub fn find_job(&self, idx: JobIdx) -> Option<u64> {
        self.iter().find(|e| e.job.idx == idx).map(|e| e.seq)
    }

    /// Takes job `seq` out of the queue.
    pub fn remove(&mut self, seq: u64) -> Option<Entry> {
        let i = self.position(seq)?;
        let e = self.entries[i];
        self.entries[i].alive = false;
        self.gone += 1;
        if self.gone > 32 && self.gone * 2 > self.entries.len() {
            self.entries.retain(|e| e.alive);
            self.gone = 0;
        }
        Some(e)
    }

    /// True when the job `seq` is queued and reserved at `start`.
    fn reserved_at(&self, seq: u64, start: SimTime) -> bool {
        self.get(seq).is_some_and(|e| e.start == Some(start))
    }
}

/// (reserved start, arrival sequence) of the placed jobs, soonest first. A move pushes the
/// job's new start and leaves the old key behind: a key is live while its job is still
/// queued and reserved there, and stale keys are dropped when they come to the top (the
/// top is kept live between passes) or swept out when they outnumber the queue. Jobs come
/// out in the order of a sorted set of the live keys, since a job's key is never pushed
/// twice: between clears (a rebuild) a job is placed once and then only moves sooner.
#[derive(Clone, Debug, Default)]
pub(super) struct StartHeap(BinaryHeap<Reverse<(SimTime, u64)>>);

impl StartHeap {
    pub fn clear(&mut self) {
        self.0.clear();
    }

    pub fn push(&mut self, start: SimTime, seq: u64) {
        self.0.push(Reverse((start, seq)));
    }

    /// The soonest live key (after [`StartHeap::settle`]).
    pub fn first(&self) -> Option<(SimTime, u64)> {
        self.0.peek().map(|&Reverse(key)| key)
    }

    /// Takes out the soonest live key due by `now`, dropping stale keys on the way.
    pub fn pop_due(&mut self, now: SimTime, queue: &ArrivalQueue) -> Option<(SimTime, u64)> {
        while let Some(&Reverse((start, seq))) = self.0.peek() {
            if start > now {
                return None;
            }
            self.0.pop();
            if queue.reserved_at(seq, start) {
                return Some((start, seq));
            }
        }
        None
    }

    /// Drops stale keys from the top, and sweeps them all out once they outnumber the live.
    pub fn settle(&mut self, queue: &ArrivalQueue) {
        if self.0.len() > 2 * queue.len() + 64 {
            let live: Vec<_> = queue
                .iter()
                .filter_map(|e| e.start.map(|s| Reverse((s, e.seq))))
                .collect();
            self.0 = BinaryHeap::from(live);
            return;
        }
        while let Some(&Reverse((start, seq))) = self.0.peek() {
            if queue.reserved_at(seq, start) {
                return;
            }
            self.0.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Jobs that move up (new keys pushed, old ones left stale), leave and are swept out
    /// come out of the heap in the order of a sorted set of the live keys.
    #[test]
    fn the_heap_gives_the_live_keys_in_order() {
        let mut rng = crate::rng::SimRng::new(4);
        for round in 0..100 {
            let mut queue = ArrivalQueue::default();
            let mut heap = StartHeap::default();
            let n = rng.range_u64(1, 200);
            for seq in 0..n {
                let job = QueuedJob {
                    idx: seq as JobIdx,
                    units: 1,
                    estimate: SimTime(1),
                    queued_at: SimTime::ZERO,
                };
                let mut e = Entry::new(seq, job);
                let start = SimTime(rng.range_u64(0, 1000) as i64);
                e.start = Some(start);
                queue.push(e);
                heap.push(start, seq);
            }
            for _ in 0..rng.range_u64(0, 300) {
                let seq = rng.range_u64(0, n - 1);
                if rng.range_u64(0, 3) == 0 {
                    queue.remove(seq);
                } else if let Some(e) = queue.iter_mut().find(|e| e.seq == seq) {
                    // A move is always to a sooner start.
                    let start = e.start.unwrap().0;
                    if start == 0 {
                        continue;
                    }
                    let sooner = SimTime(rng.range_u64(0, start as u64 - 1) as i64);
                    e.start = Some(sooner);
                    heap.push(sooner, seq);
                }
                heap.settle(&queue);
            }
            let mut want: Vec<(SimTime, u64)> =
                queue.iter().map(|e| (e.start.unwrap(), e.seq)).collect();
            want.sort();
            assert_eq!(heap.first(), want.first().copied(), "round {round}");
            let mut got = Vec::new();
            while let Some(key) = heap.pop_due(SimTime::NEVER, &queue) {
                got.push(key);
            }
            assert_eq!(got, want, "round {round}");
        }
    }
}
