//! A reference single-site scheduler: the local policies' spec written naively.
//!
//! Nothing here is shared with the engine. There is no event queue, no availability profile
//! and no incremental state: at every instant the reference finds the next event time by
//! scanning every job, works out which jobs are running from their start times, and each
//! scheduling pass recomputes everything it needs from scratch (shadow times by trying every
//! candidate time, conservative reservations by trying every candidate start and checking
//! the usage at every point where it can change). It is slow (O(n³) and worse) and meant to
//! be obviously correct, so that the differential test can hold the engine to it.
//!
//! The semantics, for one site of `capacity` units where a job needs `procs` units:
//! - planned = estimate (Trace) or runtime (Exact); effective = min(runtime, planned) with
//!   kills on, runtime with kills off. A job started at `s` holds its units during
//!   `[s, s + effective)` and is Killed iff kills are on and runtime > planned.
//! - A running job's predicted end is `s + planned`, except for a job that outlives its
//!   estimate (kills off): from the instant `s + planned` on, it is its real end.
//! - Event instants are submits, real ends and (kills off) estimate expiries of overrunning
//!   jobs. At each, under the default order: ending jobs release their units, submitted jobs
//!   join the queue in input order (rejected if wider than the site), then exactly one
//!   scheduling pass runs. The pyss and cqsim orders take the same happenings one at a time
//!   with a pass after each ([`reference_starts`] says in which order); ends and expiries of
//!   one instant come in the order their jobs started.

use gridscope::engine::{EstimateSource, EventOrder, RunConfig, SimTime};
use gridscope::model::Job;
use gridscope::policy::local::LocalPolicyKind;

/// The time the scheduler plans with for `job`.
pub fn planned(job: &Job, cfg: &RunConfig) -> SimTime {
    match cfg.estimates {
        EstimateSource::Trace => job.estimate,
        EstimateSource::Exact => job.runtime,
    }
}

/// How long `job` really holds its units once started.
pub fn effective(job: &Job, cfg: &RunConfig) -> SimTime {
    if cfg.kill_at_estimate {
        job.runtime.min(planned(job, cfg))
    } else {
        job.runtime
    }
}

/// True when `job` is stopped at its estimate.
pub fn killed(job: &Job, cfg: &RunConfig) -> bool {
    cfg.kill_at_estimate && job.runtime > planned(job, cfg)
}

/// True when `job` keeps running past its planned end (kills off, runtime above planned).
fn overruns(job: &Job, cfg: &RunConfig) -> bool {
    !cfg.kill_at_estimate && job.runtime > planned(job, cfg)
}

/// A job currently holding units, as the scheduler sees it at some instant.
#[derive(Clone, Copy, Debug)]
struct Running {
    procs: u32,
    predicted_end: SimTime,
}

/// One thing that happens at an instant, as the event orders see it: a job's real end, an
/// overrunning job's estimate expiring (kills off), a job's submission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Happening {
    End(usize),
    Expiry(usize),
    Submit(usize),
}

/// What the reference knows between passes.
struct State<'a> {
    jobs: &'a [Job],
    cfg: &'a RunConfig,
    capacity: u32,
    start: Vec<Option<SimTime>>,
    /// The order jobs were started in (the instant's events of two jobs come in this order).
    started_as: Vec<usize>,
    /// The job's end has been handled: its units are free.
    ended: Vec<bool>,
    /// Its estimate expired (kills off): the scheduler predicts its real end from then on.
    expired: Vec<bool>,
    /// Waiting jobs, as indices into `jobs`, in arrival (input) order.
    queue: Vec<usize>,
    /// Conservative (compression): each queued job's reservation, kept from pass to pass.
    reserved: Vec<Option<SimTime>>,
    /// Since the last pass: something changed at the site (a pass is due), a job's end was
    /// told to the scheduler (compression), an estimate expired (a rebuild).
    touched: bool,
    replan: Replan,
}

/// Per-job start times under `kind` on one flat site of `capacity` units; `None` for a job
/// wider than the site (rejected). `jobs` must be sorted by submit time.
///
/// This is the scheduling spec written the naive way; see the module documentation. The
/// instant's happenings are taken in `cfg.event_order`'s order (docs/local-policies.md,
/// "Event order at one instant"):
/// - `gridscope`: every end and expiry (in the order their jobs started), every submission
///   (input order), then one pass;
/// - `cqsim`: each end or expiry with a pass after it, then each submission with a pass;
/// - `pyss`: every job ending at or after its predicted end is freed first without a word to
///   the scheduler; each submission with a pass; then each end or expiry in start order with
///   a pass after it — a freed job's end is told to the scheduler there.
///
/// A pass runs only when something reached the site since the last one (a job too wide is
/// rejected without one).
pub fn reference_starts(
    capacity: u32,
    jobs: &[Job],
    kind: LocalPolicyKind,
    cfg: &RunConfig,
) -> Vec<Option<SimTime>> {
    let n = jobs.len();
    let mut st = State {
        jobs,
        cfg,
        capacity,
        start: vec![None; n],
        started_as: Vec::new(),
        ended: vec![false; n],
        expired: vec![false; n],
        queue: Vec::new(),
        reserved: vec![None; n],
        touched: false,
        replan: Replan {
            compress: false,
            rebuild: false,
        },
    };
    let mut last: Option<SimTime> = None;
    loop {
        // The next event instant: the smallest of every submit, real end and estimate
        // expiry that is later than the previous instant.
        let mut next: Option<SimTime> = None;
        for (i, job) in jobs.iter().enumerate() {
            let mut instants = vec![job.submit];
            if let Some(s) = st.start[i] {
                instants.push(s + effective(job, cfg));
                if overruns(job, cfg) {
                    instants.push(s + planned(job, cfg));
                }
            }
            for x in instants {
                if last.is_none_or(|l| x > l) && next.is_none_or(|nx| x < nx) {
                    next = Some(x);
                }
            }
        }
        let Some(t) = next else { break };
        last = Some(t);

        // Ends and expiries due now, in the order their jobs started; submissions in input
        // order.
        let mut due: Vec<Happening> = Vec::new();
        for &i in &st.started_as {
            let s = st.start[i].expect("started");
            if s + effective(&jobs[i], cfg) == t {
                due.push(Happening::End(i));
            } else if overruns(&jobs[i], cfg) && s + planned(&jobs[i], cfg) == t {
                due.push(Happening::Expiry(i));
            }
        }
        let submits: Vec<Happening> = (0..n)
            .filter(|&i| jobs[i].submit == t)
            .map(Happening::Submit)
            .collect();

        match cfg.event_order {
            EventOrder::Gridscope => {
                for &h in due.iter().chain(&submits) {
                    st.happen(h, true);
                }
                st.pass(kind, t);
            }
            EventOrder::Cqsim => {
                for &h in due.iter().chain(&submits) {
                    st.happen(h, true);
                    st.pass(kind, t);
                }
            }
            EventOrder::Pyss => {
                // Ends at (or, overrunning, past) the predicted end: free now, told later.
                let freed_first = |h: &Happening| match *h {
                    Happening::End(i) => effective(&jobs[i], cfg) >= planned(&jobs[i], cfg),
                    _ => false,
                };
                for h in due.iter().filter(|h| freed_first(h)) {
                    st.happen(*h, false);
                }
                for &h in &submits {
                    st.happen(h, true);
                    st.pass(kind, t);
                }
                for h in &due {
                    if freed_first(h) {
                        st.replan.compress = true;
                        st.touched = true;
                    } else {
                        st.happen(*h, true);
                    }
                    st.pass(kind, t);
                }
            }
        }
    }
    assert!(
        st.queue.is_empty(),
        "reference left jobs queued: {:?}",
        st.queue
    );
    st.start
}

impl State<'_> {
    /// One happening at the site; `tell` = the scheduler hears of an end now.
    fn happen(&mut self, h: Happening, tell: bool) {
        match h {
            Happening::End(i) => {
                self.ended[i] = true;
                self.touched = true;
                if tell {
                    self.replan.compress = true;
                }
            }
            Happening::Expiry(i) => {
                self.expired[i] = true;
                self.touched = true;
                self.replan.rebuild = true;
            }
            Happening::Submit(i) => {
                // Too wide: rejected on arrival, the site never sees it.
                if self.jobs[i].procs <= self.capacity {
                    self.queue.push(i);
                    self.touched = true;
                }
            }
        }
    }

    /// The jobs holding units now (started, end not yet handled) as the scheduler predicts
    /// them: start + planned, or the real end once the estimate expired.
    fn running(&self) -> Vec<Running> {
        (0..self.jobs.len())
            .filter(|&i| self.start[i].is_some() && !self.ended[i])
            .map(|i| {
                let s = self.start[i].expect("started");
                let job = &self.jobs[i];
                Running {
                    procs: job.procs,
                    predicted_end: if self.expired[i] {
                        s + effective(job, self.cfg)
                    } else {
                        s + planned(job, self.cfg)
                    },
                }
            })
            .collect()
    }

    /// One scheduling pass at `t`, if anything reached the site since the last one.
    fn pass(&mut self, kind: LocalPolicyKind, t: SimTime) {
        if !self.touched {
            return;
        }
        self.touched = false;
        let running = self.running();
        let used: u32 = running.iter().map(|r| r.procs).sum();
        assert!(used <= self.capacity, "reference over capacity at {t:?}");
        let replan = std::mem::replace(
            &mut self.replan,
            Replan {
                compress: false,
                rebuild: false,
            },
        );
        let started = if kind == LocalPolicyKind::Conservative {
            let plan: Vec<(u32, SimTime, SimTime)> = running
                .iter()
                .map(|r| (r.procs, t, r.predicted_end))
                .collect();
            compression_pass(
                self.cfg,
                t,
                self.capacity,
                self.jobs,
                &self.queue,
                plan,
                &mut self.reserved,
                replan,
            );
            // Due jobs by reservation then arrival, each if its units are free now (under
            // the per-event orders the plan may count a job ending now as free before its
            // end is handled: a due job waits for it).
            let mut due: Vec<usize> = self
                .queue
                .iter()
                .copied()
                .filter(|&i| self.reserved[i].is_some_and(|r| r <= t))
                .collect();
            due.sort_by_key(|&i| self.reserved[i]); // stable: arrival order within a time
            fits_now(self.capacity - used, self.jobs, due)
        } else {
            pass(
                kind,
                self.cfg,
                t,
                self.capacity,
                self.jobs,
                &self.queue,
                running,
            )
        };
        for i in started {
            assert!(self.start[i].is_none());
            self.start[i] = Some(t);
            self.started_as.push(i);
            self.queue.retain(|&q| q != i);
        }
    }
}

/// The jobs of `due`, in its order, that fit in `free` units taken one after the other.
fn fits_now(mut free: u32, jobs: &[Job], due: Vec<usize>) -> Vec<usize> {
    due.into_iter()
        .filter(|&i| {
            let fits = jobs[i].procs <= free;
            if fits {
                free -= jobs[i].procs;
            }
            fits
        })
        .collect()
}

/// One scheduling pass at `t`: the jobs (indices into `jobs`) to start now.
fn pass(
    kind: LocalPolicyKind,
    cfg: &RunConfig,
    t: SimTime,
    capacity: u32,
    jobs: &[Job],
    queue: &[usize],
    mut running: Vec<Running>,
) -> Vec<usize> {
    let mut free = capacity - running.iter().map(|r| r.procs).sum::<u32>();
    let mut started = Vec::new();
    match kind {
        LocalPolicyKind::Fcfs => {
            for &i in queue {
                if jobs[i].procs > free {
                    break;
                }
                free -= jobs[i].procs;
                started.push(i);
            }
        }
        LocalPolicyKind::Sjf => {
            let mut order: Vec<usize> = queue.to_vec();
            // Stable: equal planned times stay in arrival order.
            order.sort_by_key(|&i| planned(&jobs[i], cfg));
            for i in order {
                if jobs[i].procs > free {
                    break;
                }
                free -= jobs[i].procs;
                started.push(i);
            }
        }
        LocalPolicyKind::FirstFit => {
            for &i in queue {
                if jobs[i].procs <= free {
                    free -= jobs[i].procs;
                    started.push(i);
                }
            }
        }
        LocalPolicyKind::Easy => {
            // (a) Start from the head while it fits.
            let mut k = 0;
            while k < queue.len() && jobs[queue[k]].procs <= free {
                let job = &jobs[queue[k]];
                free -= job.procs;
                started.push(queue[k]);
                running.push(Running {
                    procs: job.procs,
                    predicted_end: t + planned(job, cfg),
                });
                k += 1;
            }
            // (b) Backfill behind the head without delaying it.
            if k < queue.len() && free > 0 {
                let head = &jobs[queue[k]];
                let free_at = |when: SimTime| -> u32 {
                    capacity
                        - running
                            .iter()
                            .filter(|r| r.predicted_end > when)
                            .map(|r| r.procs)
                            .sum::<u32>()
                };
                // Try every predicted end; keep the earliest one where the head fits.
                let mut shadow: Option<SimTime> = None;
                for r in &running {
                    let cand = r.predicted_end;
                    if free_at(cand) >= head.procs && shadow.is_none_or(|s| cand < s) {
                        shadow = Some(cand);
                    }
                }
                let shadow = shadow.expect("the head fits once everything running has ended");
                let mut extra = free_at(shadow) - head.procs;
                for &i in &queue[k + 1..] {
                    let job = &jobs[i];
                    let ends_by_shadow = t + planned(job, cfg) <= shadow;
                    if job.procs <= free && (ends_by_shadow || job.procs <= extra) {
                        free -= job.procs;
                        if !ends_by_shadow {
                            extra -= job.procs;
                        }
                        started.push(i);
                    }
                }
            }
        }
        LocalPolicyKind::Conservative => unreachable!("compression keeps state: compression_pass"),
        LocalPolicyKind::Slurm => unreachable!("slurm has hand cases of its own (slurm.rs)"),
        LocalPolicyKind::ConservativeRebuild => {
            // The plan: (procs, from, to) intervals. Running jobs hold their units from
            // now to their predicted end.
            let mut plan: Vec<(u32, SimTime, SimTime)> = running
                .iter()
                .map(|r| (r.procs, t, r.predicted_end))
                .collect();
            let usage = |plan: &[(u32, SimTime, SimTime)], at: SimTime| -> u32 {
                plan.iter()
                    .filter(|&&(_, from, to)| from <= at && at < to)
                    .map(|&(p, _, _)| p)
                    .sum()
            };
            for &i in queue {
                let job = &jobs[i];
                let len = planned(job, cfg);
                let mut candidates: Vec<SimTime> = vec![t];
                candidates.extend(plan.iter().map(|&(_, _, to)| to).filter(|&to| to >= t));
                candidates.sort();
                candidates.dedup();
                let mut chosen: Option<SimTime> = None;
                for s in candidates {
                    // Usage can only rise where an interval begins: check s and every
                    // interval start inside the window (and, harmlessly, every end).
                    let mut points = vec![s];
                    for &(_, from, to) in &plan {
                        for x in [from, to] {
                            if s < x && x < s + len {
                                points.push(x);
                            }
                        }
                    }
                    if points
                        .iter()
                        .all(|&x| usage(&plan, x) + job.procs <= capacity)
                    {
                        chosen = Some(s);
                        break;
                    }
                }
                let s = chosen.expect("a reservation exists once the plan is over");
                plan.push((job.procs, s, s + len));
                if s == t {
                    started.push(i);
                }
            }
            // Reserved now, in arrival order, each if its units are free now.
            return fits_now(free, jobs, started);
        }
    }
    started
}

/// A block of units held during `[from, to)` from the start (a fully used advance
/// reservation, SCJG §2): local jobs are scheduled around it.
pub type Block = (SimTime, SimTime, u32);

/// [`reference_starts`] on a site holding `blocks` (kills on). The same spec with one more
/// rule, written as naively: a job may start at `t` only if, at every instant of
/// `[t, t + planned)`, the running jobs (by predicted end), the blocks and the jobs started
/// or planned this pass leave it room. EASY's shadow is the head's earliest such start;
/// conservative places the blocks in its plan first. Block starts and ends are event
/// instants too.
pub fn reference_starts_with_blocks(
    capacity: u32,
    jobs: &[Job],
    kind: LocalPolicyKind,
    cfg: &RunConfig,
    blocks: &[Block],
) -> Vec<Option<SimTime>> {
    assert!(cfg.kill_at_estimate, "blocks need kills at the estimate");
    let n = jobs.len();
    let mut start: Vec<Option<SimTime>> = vec![None; n];
    let mut queue: Vec<usize> = Vec::new();
    let mut last: Option<SimTime> = None;
    let mut reserved: Vec<Option<SimTime>> = vec![None; n];
    loop {
        let mut instants: Vec<SimTime> = blocks.iter().flat_map(|b| [b.0, b.1]).collect();
        for (i, job) in jobs.iter().enumerate() {
            instants.push(job.submit);
            if let Some(s) = start[i] {
                instants.push(s + effective(job, cfg));
            }
        }
        let Some(t) = instants
            .into_iter()
            .filter(|&x| last.is_none_or(|l| x > l))
            .min()
        else {
            break;
        };
        last = Some(t);
        // Everything that holds units from t on, as (units, from, to) intervals.
        let mut plan: Vec<(u32, SimTime, SimTime)> = blocks
            .iter()
            .filter(|b| b.1 > t)
            .map(|&(from, to, u)| (u, from.max(t), to))
            .collect();
        for (i, job) in jobs.iter().enumerate() {
            if let Some(s) = start[i] {
                if s + effective(job, cfg) > t {
                    plan.push((job.procs, t, s + planned(job, cfg)));
                }
            }
        }
        assert!(
            usage(&plan, t) <= capacity,
            "reference over capacity at {t:?}"
        );
        for (i, job) in jobs.iter().enumerate() {
            if job.submit == t && job.procs <= capacity {
                queue.push(i);
            }
        }
        let started = if kind == LocalPolicyKind::Conservative {
            // A job or a block ended: compress; a block started (its reservation became a
            // running job, which SCJG's site reports as a reservation change): rebuild.
            let replan = Replan {
                compress: blocks.iter().any(|b| b.1 == t)
                    || jobs
                        .iter()
                        .enumerate()
                        .any(|(i, job)| start[i].is_some_and(|s| s + effective(job, cfg) == t)),
                rebuild: blocks.iter().any(|b| b.0 == t),
            };
            compression_pass(cfg, t, capacity, jobs, &queue, plan, &mut reserved, replan)
        } else {
            pass_with_blocks(kind, cfg, t, capacity, jobs, &queue, plan)
        };
        for i in started {
            start[i] = Some(t);
            queue.retain(|&q| q != i);
        }
    }
    assert!(queue.is_empty(), "reference left jobs queued: {queue:?}");
    start
}

fn usage(plan: &[(u32, SimTime, SimTime)], at: SimTime) -> u32 {
    plan.iter()
        .filter(|&&(_, from, to)| from <= at && at < to)
        .map(|&(p, _, _)| p)
        .sum()
}

/// True when `procs` fit at every instant of `[s, s + len)` beside `plan` (usage only rises
/// where an interval begins, so s and those starts are the points to check).
fn fits(plan: &[(u32, SimTime, SimTime)], cap: u32, procs: u32, s: SimTime, len: SimTime) -> bool {
    let mut points = vec![s];
    points.extend(plan.iter().map(|p| p.1).filter(|&x| s < x && x < s + len));
    points.iter().all(|&x| usage(plan, x) + procs <= cap)
}

/// The earliest start ≥ t of `procs` × `len` beside `plan`: t or an interval's end.
fn earliest(
    plan: &[(u32, SimTime, SimTime)],
    cap: u32,
    procs: u32,
    t: SimTime,
    len: SimTime,
) -> SimTime {
    let mut candidates: Vec<SimTime> = vec![t];
    candidates.extend(plan.iter().map(|p| p.2).filter(|&x| x >= t));
    candidates.sort();
    candidates
        .into_iter()
        .find(|&s| fits(plan, cap, procs, s, len))
        .expect("room once the plan is over")
}

fn pass_with_blocks(
    kind: LocalPolicyKind,
    cfg: &RunConfig,
    t: SimTime,
    cap: u32,
    jobs: &[Job],
    queue: &[usize],
    mut plan: Vec<(u32, SimTime, SimTime)>,
) -> Vec<usize> {
    let mut started = Vec::new();
    if kind == LocalPolicyKind::ConservativeRebuild {
        // Every queued job, in arrival order, at its earliest start around the plan.
        for &i in queue {
            let job = &jobs[i];
            let len = planned(job, cfg);
            let s = earliest(&plan, cap, job.procs, t, len);
            plan.push((job.procs, s, s + len));
            if s == t {
                started.push(i);
            }
        }
        return started;
    }
    let mut order: Vec<usize> = queue.to_vec();
    if kind == LocalPolicyKind::Sjf {
        order.sort_by_key(|&i| planned(&jobs[i], cfg));
    }
    let mut k = 0;
    // Heads (FCFS, SJF, EASY) or everyone in turn (first-fit): start whatever fits now.
    while k < order.len() {
        let job = &jobs[order[k]];
        let len = planned(job, cfg);
        if fits(&plan, cap, job.procs, t, len) {
            plan.push((job.procs, t, t + len));
            started.push(order[k]);
        } else if kind != LocalPolicyKind::FirstFit {
            break;
        }
        k += 1;
    }
    if kind == LocalPolicyKind::Easy && k < order.len() {
        let head = &jobs[order[k]];
        let len = planned(head, cfg);
        let shadow = earliest(&plan, cap, head.procs, t, len);
        plan.push((head.procs, shadow, shadow + len));
        for &i in &order[k + 1..] {
            let job = &jobs[i];
            let len = planned(job, cfg);
            if fits(&plan, cap, job.procs, t, len) {
                plan.push((job.procs, t, t + len));
                started.push(i);
            }
        }
    }
    started
}

/// When a compression pass re-plans: after a job ended (`compress`: every queued job, in
/// arrival order, to its earliest start beside all the others, never later), or from
/// scratch when the plan broke (`rebuild`: a job outlived its estimate, a reservation
/// started), every queued job re-placed in arrival order.
#[derive(Clone, Copy, Debug)]
pub struct Replan {
    pub compress: bool,
    pub rebuild: bool,
}

/// One pass of conservative backfilling by compression at `t`, written naively: `plan`
/// holds what runs and any blocks; `reserved` each queued job's reservation (`None` for a
/// newcomer). Returns the jobs whose reservation is `t`.
#[allow(clippy::too_many_arguments)]
pub fn compression_pass(
    cfg: &RunConfig,
    t: SimTime,
    cap: u32,
    jobs: &[Job],
    queue: &[usize],
    plan: Vec<(u32, SimTime, SimTime)>,
    reserved: &mut [Option<SimTime>],
    replan: Replan,
) -> Vec<usize> {
    let block = |i: usize, s: SimTime| (jobs[i].procs, s, s + planned(&jobs[i], cfg));
    if replan.rebuild {
        for &i in queue {
            reserved[i] = None;
        }
    }
    if replan.compress && !replan.rebuild {
        for &i in queue {
            let Some(r) = reserved[i].filter(|&r| r > t) else {
                continue;
            };
            // Everything but this job: what runs, the blocks, every other reservation.
            let mut others = plan.clone();
            others.extend(
                queue
                    .iter()
                    .filter(|&&q| q != i)
                    .filter_map(|&q| reserved[q].map(|s| block(q, s))),
            );
            let e = earliest(&others, cap, jobs[i].procs, t, planned(&jobs[i], cfg));
            assert!(
                e <= r,
                "compression moved job {} later: {r:?} -> {e:?}",
                jobs[i].id
            );
            reserved[i] = Some(e);
        }
    }
    // Newcomers (and, after a rebuild, everyone) in arrival order.
    for &i in queue {
        if reserved[i].is_none() {
            let mut all = plan.clone();
            all.extend(
                queue
                    .iter()
                    .filter_map(|&q| reserved[q].map(|s| block(q, s))),
            );
            reserved[i] = Some(earliest(
                &all,
                cap,
                jobs[i].procs,
                t,
                planned(&jobs[i], cfg),
            ));
        }
    }
    queue
        .iter()
        .copied()
        .filter(|&i| reserved[i] == Some(t))
        .collect()
}
