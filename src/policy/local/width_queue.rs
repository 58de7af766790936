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

/// What a run of positions (a span or a block) asks at least: the least width, the least
/// estimate lane and the least and the most memory lane of its live jobs (a job put in
/// front, or whose memory is not read yet, counts as lane 0). A removal reads its block's
/// and its span's again: left as they were, the blocks of started jobs kept their widths,
/// and EASY on RICC with failures tested 99 million such blocks lane by lane, seven in ten
/// of those it tested.
///
/// (Kept per width class as well, the least estimate and memory lane among the narrow jobs
/// skipped half the blocks still tested in vain, and cost more to keep than it saved.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Summary {
    width: u32,
    estimate: u32,
    mem_lo: u32,
    mem_hi: u32,
}

impl Summary {
    const EMPTY: Summary = Summary {
        width: u32::MAX,
        estimate: u32::MAX,
        mem_lo: u32::MAX,
        mem_hi: 0,
    };

    /// Counts a job of `width`, `estimate` and `mem` lanes.
    fn add(&mut self, width: u32, estimate: u32, mem: u32) {
        self.width = self.width.min(width);
        self.estimate = self.estimate.min(estimate);
        self.mem_lo = self.mem_lo.min(mem);
        self.mem_hi = self.mem_hi.max(mem);
    }
}

/// Per run of positions, its [`Summary`], lane by lane (a vector per field), so that
/// [`Summaries::outs`] reads sixteen runs' with a few vector compares.
#[derive(Clone, Debug, Default)]
struct Summaries {
    widths: Vec<u32>,
    estimates: Vec<u32>,
    mem_lo: Vec<u32>,
    mem_hi: Vec<u32>,
}

impl Summaries {
    fn len(&self) -> usize {
        self.widths.len()
    }

    /// `runs` runs, the new ones empty.
    fn resize(&mut self, runs: usize) {
        self.widths.resize(runs, u32::MAX);
        self.estimates.resize(runs, u32::MAX);
        self.mem_lo.resize(runs, u32::MAX);
        self.mem_hi.resize(runs, 0);
    }

    fn set(&mut self, r: usize, summary: &Summary) {
        self.widths[r] = summary.width;
        self.estimates[r] = summary.estimate;
        self.mem_lo[r] = summary.mem_lo;
        self.mem_hi[r] = summary.mem_hi;
    }

    /// Reads run `r` again from the runs `parts` of `of` (its parts), a field at a time.
    fn read_from(&mut self, r: usize, of: &Summaries, parts: std::ops::Range<usize>) {
        let least = |v: &[u32]| v[parts.clone()].iter().copied().min().unwrap_or(u32::MAX);
        self.widths[r] = least(&of.widths);
        self.estimates[r] = least(&of.estimates);
        self.mem_lo[r] = least(&of.mem_lo);
        self.mem_hi[r] = of.mem_hi[parts].iter().copied().max().unwrap_or(0);
    }

    /// Counts a job of `width`, `estimate` and `mem` lanes in run `r` (the next run, or
    /// one already there).
    fn note(&mut self, r: usize, width: u32, estimate: u32, mem: u32) {
        if r == self.len() {
            self.resize(r + 1);
        }
        self.widths[r] = self.widths[r].min(width);
        self.estimates[r] = self.estimates[r].min(estimate);
        self.mem_lo[r] = self.mem_lo[r].min(mem);
        self.mem_hi[r] = self.mem_hi[r].max(mem);
    }

    /// True when no job of run `r` passes a pass's test (see [`WidthQueue::next_in`]):
    /// all are wider than `free`; or wider than `extra` and past the shadow (`window32`);
    /// or a short cap rules them all out (all ask more memory per unit than its and are
    /// wider than its units); or a delaying cap does (all past the shadow, with its memory
    /// and at least its units).
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
        let lanes = |v: &[u32]| lanes(v, first);
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
        let n = self.jobs.len();
        self.blocks.resize(n.div_ceil(BLOCK));
        self.spans.resize(n.div_ceil(SPAN));
        for b in 0..self.blocks.len() {
            self.read_block(b);
        }
        for s in 0..self.spans.len() {
            self.read_span(s);
        }
    }

    /// Reads block `b`'s summary again from its live positions (lane by lane for a whole
    /// block: a removed job's width is `GONE`, and its other lanes are masked by it).
    fn read_block(&mut self, b: usize) {
        let first = b * BLOCK;
        let mut summary = Summary::EMPTY;
        if first + BLOCK > self.jobs.len() {
            for p in first..self.jobs.len() {
                if !self.gone[p] {
                    summary.add(self.widths[p], self.estimates[p], self.mems[p]);
                }
            }
            return self.blocks.set(b, &summary);
        }
        let lanes = |v: &[u32]| lanes(v, first);
        let (w, e, m) = (
            lanes(&self.widths),
            lanes(&self.estimates),
            lanes(&self.mems),
        );
        let mut lo = [u32::MAX; BLOCK];
        let mut est = [u32::MAX; BLOCK];
        let mut hi = [0; BLOCK];
        for i in 0..BLOCK {
            let live = w[i] != Self::GONE;
            est[i] = if live { e[i] } else { u32::MAX };
            lo[i] = if live { m[i] } else { u32::MAX };
            hi[i] = if live { m[i] } else { 0 };
        }
        summary.width = w.iter().fold(u32::MAX, |a, &x| a.min(x));
        summary.estimate = est.iter().fold(u32::MAX, |a, &x| a.min(x));
        summary.mem_lo = lo.iter().fold(u32::MAX, |a, &x| a.min(x));
        summary.mem_hi = hi.iter().fold(0, |a, &x| a.max(x));
        self.blocks.set(b, &summary);
    }

    /// Reads span `s`'s summary again from its blocks'.
    fn read_span(&mut self, s: usize) {
        let parts = s * BLOCK..((s + 1) * BLOCK).min(self.blocks.len());
        self.spans.read_from(s, &self.blocks, parts);
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
        let compacts = self.jobs.len() - self.live > self.live.max(64);
        // A short queue is scanned in a few blocks anyway: reading its summaries again at
        // every removal cost KTH-SP2 under EASY (a few dozen jobs waiting) a tenth of its
        // run. Left as they were, they stay no tighter than the live jobs'.
        if !compacts && self.live >= SPAN {
            self.read_removed(positions);
        }
        while self.head < self.jobs.len() && self.gone[self.head] {
            self.head += 1;
        }
        if compacts {
            self.compact();
        }
    }

    /// Reads again the blocks and then the spans holding `positions` (just removed).
    fn read_removed(&mut self, positions: &[usize]) {
        // Each once: a pass's removals come in order, many from one block.
        let mut last = usize::MAX;
        for &p in positions {
            if p / BLOCK != last {
                last = p / BLOCK;
                self.read_block(last);
            }
        }
        last = usize::MAX;
        for &p in positions {
            if p / SPAN != last {
                last = p / SPAN;
                self.read_span(last);
            }
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
        if from == self.jobs.len() {
            return;
        }
        for i in from..self.jobs.len() {
            self.mems[i] = mem(&self.jobs[i]).map_or(0, mem_lane);
        }
        self.mems_upto = self.jobs.len();
        // The summaries read so far counted these jobs' lanes as 0: read them again.
        let n = self.jobs.len();
        for b in from / BLOCK..n.div_ceil(BLOCK) {
            self.read_block(b);
        }
        for s in from / SPAN..n.div_ceil(SPAN) {
            self.read_span(s);
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
        let mut scan = Scan::default();
        self.next_in(&mut scan, from, (free, extra, window), known)
    }

    /// [`WidthQueue::next_backfill_known`] with `scan`'s masks kept from the calls before
    /// it (see [`Scan`]): `(free, extra, window)` as there.
    pub(crate) fn next_in(
        &self,
        scan: &mut Scan,
        from: usize,
        (free, extra, window): (u32, u32, SimTime),
        known: Known,
    ) -> Option<usize> {
        let n = self.widths.len();
        // Saturating both sides keeps `est ≤ window ⇒ est32 ≤ window32`: the block test may
        // let a job through that the exact test then refuses, never the other way round.
        let window32 = saturate_ms(window);
        let mut j = from.max(self.head);
        // The masks earn their cost only over long stretches, or with caps to apply: a short
        // stretch without caps is tested without them, and leaves `scan` as it was.
        let no_caps = known.short[0] == MemCap::NONE && known.delays[0] == MemCap::NONE;
        if no_caps && n.saturating_sub(j) < SPAN {
            return self.next_nearby(j, (free, extra, window, window32));
        }
        // The caps in use come first (`NONE` sorts last).
        let in_use = |caps: &Caps| caps.iter().take_while(|&&c| c != MemCap::NONE).count();
        let short = &known.short[..in_use(&known.short)];
        let delays = &known.delays[..in_use(&known.delays)];
        let caps = (short, delays);
        // `est32 > window32` implies `est > window`: the job runs past the shadow.
        let ok = |j: usize| self.passes(j, (free, extra, window, window32), caps);
        // Each call's test at least as strict as the last one's: every mask kept was read
        // for a test no stricter than this one.
        let (f0, x0, w0, k0) = scan.test;
        if free > f0 || extra > x0 || window != w0 || !known.covers(&k0) {
            *scan = Scan::default();
        }
        scan.test = (free, extra, window, known);
        while j < n {
            let b = j / BLOCK;
            // The last, shorter block, job by job.
            if (b + 1) * BLOCK > n {
                return (j..n).find(|&p| ok(p));
            }
            let span = b / BLOCK;
            let chapter = span / BLOCK;
            if scan.chapter != chapter {
                let first = chapter * BLOCK;
                scan.whole = first + BLOCK <= self.spans.len();
                scan.spans_out = match scan.whole {
                    true => self.spans.outs(first, free, extra, window32, caps),
                    false => 0,
                };
                scan.chapter = chapter;
            }
            // The spans out from this one on, up to the chapter's end (those of the last,
            // shorter chapter one by one).
            let skip = (scan.spans_out >> (span % BLOCK)).trailing_ones() as usize;
            if skip > 0 || !scan.whole && self.spans.out(span, free, extra, window32, caps) {
                j = (span + skip.max(1)) * SPAN;
                continue;
            }
            if scan.span != span {
                let first = span * BLOCK;
                scan.blocks_out = match first + BLOCK <= self.blocks.len() {
                    true => self.blocks.outs(first, free, extra, window32, caps),
                    false => 0,
                };
                scan.span = span;
            }
            let skip = (scan.blocks_out >> (b % BLOCK)).trailing_ones() as usize;
            if skip > 0 {
                j = (b + skip) * BLOCK;
                continue;
            }
            if scan.block != b {
                scan.passing = self.passing(b * BLOCK, (free, extra, window32), caps);
                scan.block = b;
            }
            // The block's passing positions from `j` on, each tested exactly.
            let mut bits = scan.passing >> (j % BLOCK) << (j % BLOCK);
            while bits != 0 {
                let p = b * BLOCK + bits.trailing_zeros() as usize;
                if ok(p) {
                    return Some(p);
                }
                bits &= bits - 1;
            }
            j = (b + 1) * BLOCK;
        }
        None
    }

    /// [`WidthQueue::next_in`] without caps over fewer than a span's positions (a short
    /// queue, the common case): sixteen positions job by job, then whole blocks tested by
    /// their width and estimate lanes only until one holds a job that passes them. The
    /// summaries cannot skip more than a block here, and on KTH-SP2 under EASY (a few
    /// dozen jobs waiting) reading them tripled the cost of each call.
    fn next_nearby(
        &self,
        mut j: usize,
        (free, extra, window, window32): (u32, u32, SimTime, u32),
    ) -> Option<usize> {
        let (w, e, n) = (&self.widths, &self.estimates, self.widths.len());
        let lane_ok = |u: u32, est: u32| (u <= free) & ((u <= extra) | (est <= window32));
        let exact = |p: usize| {
            let job = &self.jobs[p];
            !self.gone[p] && (job.units <= extra || job.estimate <= window)
        };
        while j < n {
            let stepwise_end = (j + BLOCK).min(n);
            if let Some(p) = (j..stepwise_end).find(|&p| lane_ok(w[p], e[p]) && exact(p)) {
                return Some(p);
            }
            j = stepwise_end;
            while j + BLOCK <= n {
                let (wb, eb) = (lanes(w, j), lanes(e, j));
                if (0..BLOCK).fold(false, |any, i| any | lane_ok(wb[i], eb[i])) {
                    break;
                }
                j += BLOCK;
            }
        }
        None
    }

    /// True when the job at position `j` passes [`WidthQueue::next_in`]'s test: its lanes,
    /// then exactly.
    #[inline(always)]
    fn passes(
        &self,
        j: usize,
        (free, extra, window, window32): (u32, u32, SimTime, u32),
        (short, delays): (&[MemCap], &[MemCap]),
    ) -> bool {
        let (u, est, mem) = (self.widths[j], self.estimates[j], self.mems[j]);
        let not_short = short.iter().all(|c| (mem < c.mem) | (u <= c.units));
        let not_delaying = delays.iter().all(|c| (mem != c.mem) | (u < c.units));
        let job = &self.jobs[j];
        (u <= free)
            & ((u <= extra) | (est <= window32))
            & not_short
            & ((est <= window32) | not_delaying)
            && !self.gone[j]
            && (job.units <= extra || job.estimate <= window)
    }

    /// The positions of the block from `first` that pass [`WidthQueue::next_in`]'s lane
    /// test, as a bit each: lane by lane, a test at a time, so that each is a few vector
    /// compares.
    fn passing(
        &self,
        first: usize,
        (free, extra, window32): (u32, u32, u32),
        (short, delays): (&[MemCap], &[MemCap]),
    ) -> u32 {
        let block = |v: &[u32]| lanes(v, first);
        let (wb, eb, mb) = (
            block(&self.widths),
            block(&self.estimates),
            block(&self.mems),
        );
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
        pass.iter()
            .enumerate()
            .fold(0, |bits, (i, &p)| bits | (u32::from(p) << i))
    }
}

/// The `BLOCK` lanes of `v` from `first` (all there: callers test a whole block or run of
/// summaries), as an array, so that a test over them is a few vector compares.
fn lanes(v: &[u32], first: usize) -> [u32; BLOCK] {
    v[first..first + BLOCK]
        .try_into()
        .unwrap_or_else(|_| unreachable!("a whole block of lanes"))
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

    /// True when `self` rules out every job `before` rules out: each of its short caps by
    /// one of no more memory and no more units, each delaying cap by one of its memory and
    /// no more units.
    fn covers(&self, before: &Known) -> bool {
        let short = before
            .short
            .iter()
            .filter(|&&c| c != MemCap::NONE)
            .all(|c| (self.short.iter()).any(|n| n.mem <= c.mem && n.units <= c.units));
        let delays = before
            .delays
            .iter()
            .filter(|&&c| c != MemCap::NONE)
            .all(|c| (self.delays.iter()).any(|n| n.mem == c.mem && n.units <= c.units));
        short && delays
    }
}

/// A pass's scan of the queue, kept from one [`WidthQueue::next_in`] to the next: the masks
/// of the chapter (`BLOCK` spans), the span and the block it is in, each computed once.
///
/// A mask stays right while every test only grows stricter: `free` and `extra` no larger,
/// the same window, every cap still ruled out by one (see [`Known::covers`]); a call with
/// a looser test reads them afresh. Positions are tested exactly as they come, so the masks
/// skip only what a fresh scan would skip. A pass keeps one until it starts a job (which
/// forgets the caps that delay the head) and then takes a fresh one: EASY on RICC with
/// failures asked again, job by job, about the blocks and the spans of the 1.2 million jobs
/// its passes turned down.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scan {
    /// The test the masks were read for.
    test: (u32, u32, SimTime, Known),
    chapter: usize,
    whole: bool,
    spans_out: u32,
    span: usize,
    blocks_out: u32,
    block: usize,
    passing: u32,
}

impl Default for Scan {
    fn default() -> Scan {
        Scan {
            test: (u32::MAX, u32::MAX, SimTime::NEVER, Known::NONE),
            chapter: usize::MAX,
            whole: false,
            spans_out: 0,
            span: usize::MAX,
            blocks_out: 0,
            block: usize::MAX,
            passing: 0,
        }
    }
}

#[cfg(test)]
#[path = "width_queue_tests.rs"]
mod tests;
