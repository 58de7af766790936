use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::SimTime;

/// A priority queue of events ordered by `(time, sequence)`: the sequence number is the
/// insertion count, so events at the same instant come out first-in first-out and every run
/// pops them in exactly the same order.
#[derive(Debug)]
pub struct EventQueue<E> {
    heap: BinaryHeap<Reverse<Entry<E>>>,
    next_seq: u64,
}

#[derive(Debug)]
struct Entry<E> {
    time: SimTime,
    seq: u64,
    event: E,
}

// Ordering looks at (time, seq) only: they are unique, so the payload never decides.
impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        (self.time, self.seq) == (other.time, other.seq)
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.time, self.seq).cmp(&(other.time, other.seq))
    }
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue {
            heap: BinaryHeap::new(),
            next_seq: 0,
        }
    }
}

impl<E> EventQueue<E> {
    /// Schedules `event` at `time`, after every event already at that instant.
    pub fn push(&mut self, time: SimTime, event: E) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Reverse(Entry { time, seq, event }));
    }

    /// Time of the next event.
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| e.0.time)
    }

    /// Pops the next event if it happens at or before `time`.
    pub fn pop_until(&mut self, time: SimTime) -> Option<(SimTime, E)> {
        if self.peek_time()? <= time {
            self.heap.pop().map(|e| (e.0.time, e.0.event))
        } else {
            None
        }
    }

    /// Events waiting.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// True when no event waits.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_instant_is_fifo() {
        let mut q = EventQueue::default();
        q.push(SimTime(5), 'c');
        q.push(SimTime(1), 'a');
        q.push(SimTime(5), 'd');
        q.push(SimTime(1), 'b');
        let mut out = vec![];
        while let Some((_, e)) = q.pop_until(SimTime::NEVER) {
            out.push(e);
        }
        assert_eq!(out, vec!['a', 'b', 'c', 'd']);
    }
}
