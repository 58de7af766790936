//! EASY's and first-fit's queue: arrival order, with the jobs' widths and estimates in
//! lanes a pass can skip a block at a time.

use super::QueuedJob;
use crate::model::JobIdx;
use crate::time::SimTime;

/// `t` in ms as a `u32`, saturating (negative → 0).
fn saturate_ms(t: SimTime) -> u32 {
    t.0.clamp(0, u32::MAX as i64) as u32
}

/// A queue in arrival order with the jobs' widths kept alongside, so that a pass can skip
/// the jobs wider than the units it has left sixteen at a time, and with started jobs left
/// as tombstones (compacted once they outnumber the live ones) instead of shifting the
/// queue: EASY's and first-fit's passes rescanned and compacted a long queue of wide jobs
/// at every pass (METACENTRUM-2009-2, tens of thousands of jobs waiting: 2.4 s).
///
/// Positions are raw indices into the arrays: stable until a removal compacts them.
#[derive(Clone, Debug, Default)]
pub(crate) struct WidthQueue {
    jobs: Vec<QueuedJob>,
    /// Each job's units; `GONE` for a removed one.
    widths: Vec<u32>,
    /// Each job's estimate in ms, saturated to `u32` (a block filter; exact tests read the
    /// job). Four-byte lanes like the widths, so a block's test is a few vector compares.
    estimates: Vec<u32>,
    /// On a node-typed site, each job's memory per unit in KB plus one, saturated to `u32`
    /// ([`mem_lane`]); 0 for a job not of units only, and until [`WidthQueue::fill_mems`]
    /// reads it. A third lane, so that a pass can skip a block of jobs it knows cannot
    /// start ([`Known`]).
    mems: Vec<u32>,
    /// Positions below this one have their `mems` read (a job put in front has 0).
    mems_upto: usize,
    gone: Vec<bool>,
    /// Per [`SPAN`] and per [`BLOCK`] positions, what their jobs ask at least (see
    /// [`Summaries`]): a pass skips a span or a block none of whose jobs it could start (EASY on RICC's nodes scanned 740 million positions, a quarter of the run;
    /// with failures, whose queues grow tenfold, nine blocks in ten of those it still
    /// tested lane by lane held no such job).
    spans: Summaries,
    blocks: Summaries,
    /// The first live position (`end()` when empty).
    head: usize,
    live: usize,
}

/// Positions per [`WidthQueue::spans`] entry.
const SPAN: usize = 256;
/// Positions tested together, lane by lane; positions per [`WidthQueue::blocks`] entry.
const BLOCK: usize = 16;
// A span's block summaries are read together, a block of them.
const _: () = assert!(SPAN == BLOCK * BLOCK);

/// Per run of positions (a span or a block), the least width, the least estimate lane and
/// the least and the most memory lane of its positions: no more (no less) than those of its
/// live jobs, since a removal leaves them as they were and a compaction reads them again
/// (a job put in front, or whose memory is not read yet, counts as lane 0).
#[derive(Clone, Debug, Default)]
struct Summaries {
    widths: Vec<u32>,
    estimates: Vec<u32>,
    mem_lo: Vec<u32>,
    mem_hi: Vec<u32>,
}

impl Summaries {
    fn clear(&mut self) {
        self.widths.clear();
        self.estimates.clear();
        self.mem_lo.clear();
        self.mem_hi.clear();
    }

    /// Counts a job of `width`, `estimate` and `mem` lanes in run `r` (the next run, or
    /// one already there).
    fn note(&mut self, r: usize, width: u32, estimate: u32, mem: u32) {
        if r == self.widths.len() {
            self.widths.push(u32::MAX);
            self.estimates.push(u32::MAX);
            self.mem_lo.push(u32::MAX);
            self.mem_hi.push(0);
        }
        self.widths[r] = self.widths[r].min(width);
        self.estimates[r] = self.estimates[r].min(estimate);
        self.mem_lo[r] = self.mem_lo[r].min(mem);
        self.mem_hi[r] = self.mem_hi[r].max(mem);
    }

    /// Reads run `r`'s memory lanes again from `mems`, its positions'.
    fn read_mems(&mut self, r: usize, mems: &[u32]) {
        self.mem_lo[r] = mems.iter().copied().min().unwrap_or(u32::MAX);
        self.mem_hi[r] = mems.iter().copied().max().unwrap_or(0);
    }

    /// True when no job of run `r` passes a pass's test (see
    /// [`WidthQueue::next_backfill_known`]): all are wider than `free`; or wider than
    /// `extra` and past the shadow (`window32`); or a short cap rules them all out (all ask
    /// more memory per unit than its and are wider than its units); or a delaying cap does
    /// (all past the shadow, with its memory and at least its units).
    fn out(
        &self,
        r: usize,
        free: u32,
        extra: u32,
        window32: u32,
        known: (&[MemCap], &[MemCap]),
    ) -> bool {
        let (u, est) = (self.widths[r], self.estimates[r]);
        let (lo, hi) = (self.mem_lo[r], self.mem_hi[r]);
        (u > free)
            | ((u > extra) & (est > window32))
            | known.0.iter().any(|c| (lo >= c.mem) & (u > c.units))
            | known
                .1
                .iter()
                .any(|c| (est > window32) & (lo == c.mem) & (hi == c.mem) & (u >= c.units))
    }

    /// [`Summaries::out`] of runs `first..first + BLOCK` (all there), as a bit per run:
    /// lane by lane, a test at a time, so that each is a few vector compares.
    fn outs(
        &self,
        first: usize,
        free: u32,
        extra: u32,
        window32: u32,
        known: (&[MemCap], &[MemCap]),
    ) -> u32 {
        let lanes = |v: &[u32]| -> [u32; BLOCK] {
            v[first..first + BLOCK]
                .try_into()
                .unwrap_or_else(|_| unreachable!("the runs are there"))
        };
        let (u, est) = (lanes(&self.widths), lanes(&self.estimates));
        let (lo, hi) = (lanes(&self.mem_lo), lanes(&self.mem_hi));
        let mut out = [false; BLOCK];
        for i in 0..BLOCK {
            out[i] = (u[i] > free) | ((u[i] > extra) & (est[i] > window32));
        }
        for c in known.0 {
            for i in 0..BLOCK {
                out[i] |= (lo[i] >= c.mem) & (u[i] > c.units);
            }
        }
        for c in known.1 {
            for i in 0..BLOCK {
                out[i] |=
                    (est[i] > window32) & (lo[i] == c.mem) & (hi[i] == c.mem) & (u[i] >= c.units);
            }
        }
        out.iter()
            .enumerate()
            .fold(0, |bits, (i, &o)| bits | (u32::from(o) << i))
    }
}

impl WidthQueue {
    const GONE: u32 = u32::MAX;

    pub(crate) fn push(&mut self, job: QueuedJob) {
        self.jobs.push(job);
        self.widths.push(job.units);
        self.estimates.push(saturate_ms(job.estimate));
        self.mems.push(0);
        self.gone.push(false);
        self.live += 1;
        self.note_span(self.jobs.len() - 1);
    }

    /// Counts position `p`'s job in its span's and its block's summaries.
    fn note_span(&mut self, p: usize) {
        let (w, e, m) = (self.widths[p], self.estimates[p], self.mems[p]);
        self.spans.note(p / SPAN, w, e, m);
        self.blocks.note(p / BLOCK, w, e, m);
    }

    /// Reads every span's and block's summary again (after positions moved).
    fn read_spans(&mut self) {
        self.spans.clear();
        self.blocks.clear();
        for p in 0..self.jobs.len() {
            self.note_span(p);
        }
    }

    /// Puts `job` ahead of every live one: into the tombstone just before the head when
    /// there is one, else by shifting the queue (positions move, as a compaction moves
    /// them). Requeues after failures are rare; arrivals use [`WidthQueue::push`].
    pub(crate) fn push_front(&mut self, job: QueuedJob) {
        if self.head == 0 {
            self.jobs.insert(0, job);
            self.widths.insert(0, job.units);
            self.estimates.insert(0, saturate_ms(job.estimate));
            self.mems.insert(0, 0);
            self.mems_upto += 1;
            self.gone.insert(0, false);
            self.read_spans();
        } else {
            // Every position before the head is a tombstone.
            self.head -= 1;
            let h = self.head;
            self.jobs[h] = job;
            self.widths[h] = job.units;
            self.estimates[h] = saturate_ms(job.estimate);
            self.mems[h] = 0;
            self.gone[h] = false;
            self.note_span(h);
        }
        self.live += 1;
    }

    /// Live jobs.
    pub(crate) fn len(&self) -> usize {
        self.live
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// One past the last position.
    pub(crate) fn end(&self) -> usize {
        self.jobs.len()
    }

    /// The head's position.
    pub(crate) fn head(&self) -> usize {
        self.head
    }

    pub(crate) fn first(&self) -> Option<&QueuedJob> {
        self.jobs.get(self.head)
    }

    /// The job at a live position.
    pub(crate) fn at(&self, pos: usize) -> QueuedJob {
        self.jobs[pos]
    }

    /// The live jobs in arrival order, with their positions.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (usize, &QueuedJob)> + '_ {
        let gone = &self.gone;
        self.jobs
            .iter()
            .enumerate()
            .skip(self.head)
            .filter(move |(i, _)| !gone[*i])
    }

    pub(crate) fn to_vec(&self) -> Vec<QueuedJob> {
        self.iter().map(|(_, j)| *j).collect()
    }

    /// Removes the jobs at `positions` (live ones); may compact, which moves positions.
    pub(crate) fn remove_at(&mut self, positions: &[usize]) {
        if positions.is_empty() {
            return;
        }
        for &p in positions {
            if !self.gone[p] {
                self.gone[p] = true;
                self.widths[p] = Self::GONE;
                self.live -= 1;
            }
        }
        while self.head < self.jobs.len() && self.gone[self.head] {
            self.head += 1;
        }
        if self.jobs.len() - self.live > self.live.max(64) {
            self.compact();
        }
    }

    fn compact(&mut self) {
        let (mut kept, mut upto) = (0, 0);
        for i in 0..self.jobs.len() {
            if i == self.mems_upto {
                upto = kept;
            }
            if !self.gone[i] {
                self.jobs[kept] = self.jobs[i];
                self.widths[kept] = self.widths[i];
                self.estimates[kept] = self.estimates[i];
                self.mems[kept] = self.mems[i];
                kept += 1;
            }
        }
        if self.mems_upto >= self.jobs.len() {
            upto = kept;
        }
        self.mems_upto = upto;
        self.jobs.truncate(kept);
        self.widths.truncate(kept);
        self.estimates.truncate(kept);
        self.mems.truncate(kept);
        self.gone.clear();
        self.gone.resize(kept, false);
        self.head = 0;
        self.read_spans();
    }

    /// [`LocalPolicy::withdraw`].
    pub(crate) fn withdraw(&mut self, job: JobIdx) -> bool {
        let Some((pos, _)) = self.iter().find(|(_, j)| j.idx == job) else {
            return false;
        };
        self.remove_at(&[pos]);
        true
    }

    /// Reads the memory lane of the jobs queued since the last call: `mem` gives a job's
    /// memory per unit (`None`: not a job of units only, which gets 0).
    pub(crate) fn fill_mems(&mut self, mem: impl Fn(&QueuedJob) -> Option<u64>) {
        let from = self.mems_upto;
        for i in from..self.jobs.len() {
            self.mems[i] = mem(&self.jobs[i]).map_or(0, mem_lane);
        }
        self.mems_upto = self.jobs.len();
        // The summaries read so far counted these jobs' lanes as 0: read them again.
        let n = self.mems.len();
        for (summaries, size) in [(&mut self.spans, SPAN), (&mut self.blocks, BLOCK)] {
            for r in from / size..n.div_ceil(size) {
                summaries.read_mems(r, &self.mems[r * size..((r + 1) * size).min(n)]);
            }
        }
    }

    /// Position of the first live job at or after `from` needing at most `free` units.
    pub(crate) fn next_within(&self, from: usize, free: u32) -> Option<usize> {
        self.next_backfill(from, free, free, SimTime::NEVER)
    }

    /// Position of the first live job at or after `from` that EASY may backfill: at most
    /// `free` units, and either at most `extra` units or an estimate of at most `window`
    /// (it ends by the shadow time). [`WidthQueue::next_within`] is the case `extra = free`.
    pub(crate) fn next_backfill(
        &self,
        from: usize,
        free: u32,
        extra: u32,
        window: SimTime,
    ) -> Option<usize> {
        self.next_backfill_known(from, free, extra, window, Known::NONE)
    }

    /// [`WidthQueue::next_backfill`] that also skips, by their memory lane, the jobs a pass
    /// knows cannot start ([`Known`]).
    pub(crate) fn next_backfill_known(
        &self,
        from: usize,
        free: u32,
        extra: u32,
        window: SimTime,
        known: Known,
    ) -> Option<usize> {
        let (w, e, m) = (&self.widths, &self.estimates, &self.mems);
        let n = w.len();
        // Saturating both sides keeps `est ≤ window ⇒ est32 ≤ window32`: the block test may
        // let a job through that the exact test then refuses, never the other way round.
        let window32 = saturate_ms(window);
        // The caps in use come first (`NONE` sorts last).
        let in_use = |caps: &Caps| caps.iter().take_while(|&&c| c != MemCap::NONE).count();
        let short = &known.short[..in_use(&known.short)];
        let delays = &known.delays[..in_use(&known.delays)];
        // `est32 > window32` implies `est > window`: the job runs past the shadow.
        let ok = |u: u32, est: u32, mem: u32| {
            let not_short = short.iter().all(|c| (mem < c.mem) | (u <= c.units));
            let not_delaying = delays.iter().all(|c| (mem != c.mem) | (u < c.units));
            (u <= free)
                & ((u <= extra) | (est <= window32))
                & not_short
                & ((est <= window32) | not_delaying)
        };
        let caps = (short, delays);
        let exact = |j: usize| {
            let job = &self.jobs[j];
            !self.gone[j] && job.units <= free && (job.units <= extra || job.estimate <= window)
        };
        let mut j = from.max(self.head);
        loop {
            // Up to the next block boundary, so that the blocks below are the summaries'.
            let stepwise_end = ((j / BLOCK + 1) * BLOCK).min(n);
            while j < stepwise_end {
                if ok(w[j], e[j], m[j]) && exact(j) {
                    return Some(j);
                }
                j += 1;
            }
            if j >= n {
                return None;
            }
            // A span is asked about once, as the scan enters it, and then its blocks'
            // summaries at once (bit b: block b of the span holds no job to find; none is
            // skipped so in the last span, of fewer blocks).
            let (mut span, mut blocks_out) = (usize::MAX, 0u32);
            while j + BLOCK <= n {
                if j / SPAN != span {
                    span = j / SPAN;
                    if self.spans.out(span, free, extra, window32, caps) {
                        j = (span + 1) * SPAN;
                        continue;
                    }
                    let first = span * BLOCK;
                    blocks_out = match first + BLOCK <= self.blocks.widths.len() {
                        true => self.blocks.outs(first, free, extra, window32, caps),
                        false => 0,
                    };
                }
                if blocks_out >> (j / BLOCK % BLOCK) & 1 == 1 {
                    j += BLOCK;
                    continue;
                }
                let block = |v: &[u32]| -> [u32; BLOCK] {
                    v[j..j + BLOCK]
                        .try_into()
                        .unwrap_or_else(|_| unreachable!("the blocks are BLOCK long"))
                };
                let (wb, eb, mb) = (block(w), block(e), block(m));
                // With `extra ≥ free` and no cap the width alone decides (first-fit, a
                // fresh EASY head).
                if extra >= free && short.is_empty() && delays.is_empty() {
                    if wb.iter().fold(false, |any, &u| any | (u <= free)) {
                        break;
                    }
                    j += BLOCK;
                    continue;
                }
                // Lane by lane, a test at a time, so that each is a few vector compares.
                let mut pass = [false; BLOCK];
                for i in 0..BLOCK {
                    pass[i] = (wb[i] <= free) & ((wb[i] <= extra) | (eb[i] <= window32));
                }
                for c in short {
                    for i in 0..BLOCK {
                        pass[i] &= (mb[i] < c.mem) | (wb[i] <= c.units);
                    }
                }
                for c in delays {
                    for i in 0..BLOCK {
                        pass[i] &= (eb[i] <= window32) | (mb[i] != c.mem) | (wb[i] < c.units);
                    }
                }
                if pass.iter().fold(false, |any, &p| any | p) {
                    break;
                }
                j += BLOCK;
            }
        }
    }
}

/// The memory lane of a job of units only with `m` KB per unit: `m + 1`, saturated, so
/// that 0 stands for the other jobs. Below `u32::MAX` a lane is exact.
pub(crate) fn mem_lane(m: u64) -> u32 {
    m.saturating_add(1).min(u64::from(u32::MAX)) as u32
}

/// How many [`MemCap`]s of each kind a [`Known`] holds: each is a few more vector
/// compares per block, and RICC's queue under EASY on nodes met some 5 million jobs one
/// cap let through that the pass then turned down one by one.
pub(crate) const CAPS: usize = 4;

/// The [`CAPS`] caps that rule out the most jobs (fewest units, then least memory).
pub(crate) type Caps = [MemCap; CAPS];

/// A memory lane and a number of units (a [`Known`] part); `NONE` matches no job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MemCap {
    pub(crate) mem: u32,
    pub(crate) units: u32,
}

impl MemCap {
    pub(crate) const NONE: MemCap = MemCap {
        mem: u32::MAX,
        units: u32::MAX,
    };

    pub(crate) const NO_CAPS: Caps = [MemCap::NONE; CAPS];

    /// Adds `self` to `caps` (kept in order of fewest units, then least memory): it takes
    /// the place of a cap of its lane with more units, or of the last one if it comes
    /// before it.
    pub(crate) fn admit(self, caps: &mut Caps) {
        if self == MemCap::NONE {
            return;
        }
        let key = |c: &MemCap| (c.units, c.mem);
        let last = key(&caps[CAPS - 1]);
        match caps.iter_mut().find(|c| c.mem == self.mem) {
            Some(c) if self.units < c.units => c.units = self.units,
            Some(_) => return,
            None if key(&self) < last => caps[CAPS - 1] = self,
            None => return,
        }
        caps.sort_unstable_by_key(key);
    }

    /// The cap for `m` KB per unit and `units`, or `NONE` when `m`'s lane is not exact.
    pub(crate) fn new(m: u64, units: u64) -> MemCap {
        match (mem_lane(m), u32::try_from(units)) {
            (mem, Ok(units)) if mem < u32::MAX => MemCap { mem, units },
            _ => MemCap::NONE,
        }
    }
}

/// What a pass knows cannot start, for the queue to skip a block at a time (each is what
/// the pass would find job by job, with nothing freed within a pass):
/// - `short`: for each cap, no job of units only with a lane at least its `mem` and more
///   than its `units` units fits now. The nodes hold at most that many units of that
///   memory, and no more of a larger unit (a node holds fewer units the more memory each
///   takes);
/// - `delays`: for each cap, a job of units only with a lane equal to its `mem` and at
///   least its `units` units that runs past the shadow delays the head
///   ([`super::nodefit::NodeShadow::delays_head`]).
///
/// Each holds up to [`CAPS`] caps (unused ones are `NONE`, last); a job any cap rules out
/// is skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Known {
    pub(crate) short: Caps,
    pub(crate) delays: Caps,
}

impl Known {
    pub(crate) const NONE: Known = Known {
        short: MemCap::NO_CAPS,
        delays: MemCap::NO_CAPS,
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(idx: JobIdx, units: u32, secs: i64) -> QueuedJob {
        QueuedJob {
            idx,
            units,
            estimate: SimTime::from_secs(secs),
            queued_at: SimTime::ZERO,
        }
    }

    /// The width queue against a plain `Vec`: random pushes (at the back and the front),
    /// removals and backfill searches
    /// (across compactions) give the same jobs in the same order.
    #[test]
    fn width_queue_searches_like_a_scan() {
        let mut rng = crate::rng::SimRng::new(3);
        let mut wq = WidthQueue::default();
        let mut plain: Vec<QueuedJob> = Vec::new();
        let mut next_idx = 0;
        for _ in 0..3000 {
            for _ in 0..rng.range_u64(0, 6) {
                let job = q(
                    next_idx,
                    1 + rng.range_u64(0, 40) as u32,
                    rng.range_u64(1, 500) as i64,
                );
                next_idx += 1;
                // Now and then a job goes to the front (a requeue after a failure).
                if rng.range_u64(0, 10) == 0 {
                    wq.push_front(job);
                    plain.insert(0, job);
                } else {
                    wq.push(job);
                    plain.push(job);
                }
            }
            let (free, extra) = (rng.range_u64(0, 40) as u32, rng.range_u64(0, 10) as u32);
            let window = SimTime::from_secs(rng.range_u64(0, 500) as i64);
            let ok = |j: &QueuedJob| j.units <= free && (j.units <= extra || j.estimate <= window);
            let expect: Vec<JobIdx> = plain.iter().filter(|j| ok(j)).map(|j| j.idx).collect();
            let mut got = Vec::new();
            let mut from = 0;
            while let Some(k) = wq.next_backfill(from, free, extra, window) {
                got.push((k, wq.at(k).idx));
                from = k + 1;
            }
            assert_eq!(got.iter().map(|g| g.1).collect::<Vec<_>>(), expect);
            assert_eq!(wq.len(), plain.len());
            assert_eq!(wq.first().map(|j| j.idx), plain.first().map(|j| j.idx));
            // Remove some of the matches (as a pass starts them), sometimes the head.
            let removed: Vec<usize> = got
                .iter()
                .filter(|_| rng.range_u64(0, 3) == 0)
                .map(|g| g.0)
                .collect();
            let gone: Vec<JobIdx> = removed.iter().map(|&k| wq.at(k).idx).collect();
            wq.remove_at(&removed);
            plain.retain(|j| !gone.contains(&j.idx));
            if rng.range_u64(0, 20) == 0 && !plain.is_empty() {
                let victim = plain[rng.range_u64(0, plain.len() as u64 - 1) as usize].idx;
                assert!(wq.withdraw(victim));
                plain.retain(|j| j.idx != victim);
            }
            assert_eq!(wq.to_vec(), plain);
        }
    }

    /// The memory lane's skips against a plain filter: a job is skipped exactly when
    /// `Known` says so, on random queues, lanes and caps (across compactions and fronts).
    #[test]
    fn known_skips_exactly_what_it_says() {
        let mut rng = crate::rng::SimRng::new(5);
        let mut wq = WidthQueue::default();
        let mut mem_of = Vec::new();
        for step in 0..400 {
            for _ in 0..rng.range_u64(0, 80) {
                let idx = mem_of.len() as JobIdx;
                let job = q(
                    idx,
                    1 + rng.range_u64(0, 8) as u32,
                    rng.range_u64(1, 50) as i64,
                );
                mem_of.push((rng.range_u64(0, 4) > 0).then(|| rng.range_u64(0, 5) * 10));
                match rng.range_u64(0, 10) {
                    0 => wq.push_front(job),
                    _ => wq.push(job),
                }
            }
            if step % 3 > 0 {
                wq.fill_mems(|j| mem_of[j.idx as usize]);
            }
            let cap = |rng: &mut crate::rng::SimRng| match rng.range_u64(0, 3) {
                0 => MemCap::NONE,
                _ => MemCap::new(rng.range_u64(0, 5) * 10, rng.range_u64(0, 8)),
            };
            let mut known = Known::NONE;
            for _ in 0..rng.range_u64(0, 6) {
                cap(&mut rng).admit(&mut known.short);
                cap(&mut rng).admit(&mut known.delays);
            }
            let (free, extra) = (rng.range_u64(0, 9) as u32, rng.range_u64(0, 9) as u32);
            let window = SimTime::from_secs(rng.range_u64(0, 50) as i64);
            // From any position, the first job no cap skips: as a plain filter finds it
            // (a span skipped whole must hold no such job).
            let skipped = |wq: &WidthQueue, k: usize| {
                let (job, lane) = (wq.at(k), wq.mems[k]);
                let short = (known.short.iter()).any(|c| lane >= c.mem && job.units > c.units);
                let delays = job.estimate > window
                    && (known.delays.iter()).any(|c| lane == c.mem && job.units >= c.units);
                short || delays
            };
            for from in [0, wq.end() / 3, wq.end() / 2] {
                let plain = wq.iter().map(|(p, _)| p).find(|&p| {
                    let job = wq.at(p);
                    p >= from
                        && job.units <= free
                        && (job.units <= extra || job.estimate <= window)
                        && !skipped(&wq, p)
                });
                let got = wq.next_backfill_known(from, free, extra, window, known);
                assert_eq!(got, plain, "step {step}: from {from}");
            }
            let mut from = 0;
            while let Some(k) = wq.next_backfill(from, free, extra, window) {
                let (job, lane) = (wq.at(k), wq.mems[k]);
                let short = (known.short.iter()).any(|c| lane >= c.mem && job.units > c.units);
                let past = job.estimate > window;
                let delays =
                    past && (known.delays.iter()).any(|c| lane == c.mem && job.units >= c.units);
                let got = wq.next_backfill_known(k, free, extra, window, known);
                match short || delays {
                    true => assert_ne!(got, Some(k), "step {step}: job {} not skipped", job.idx),
                    false => assert_eq!(got, Some(k), "step {step}: job {} skipped", job.idx),
                }
                // A lane read is the job's own, or 0 (not read yet, or put in front).
                let want = mem_of[job.idx as usize].map_or(0, mem_lane);
                assert!(lane == want || lane == 0, "step {step}");
                from = k + 1;
            }
            let gone: Vec<usize> = wq
                .iter()
                .map(|(p, _)| p)
                .filter(|_| rng.range_u64(0, 8) == 0)
                .collect();
            wq.remove_at(&gone);
        }
    }
}
