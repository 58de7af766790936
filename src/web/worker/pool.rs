//! Spreading a scenario's runs over a pool of engine workers, started by this worker (the
//! coordinator): each pool worker simulates one run at a time (`run::start_part`),
//! the next run goes to the first worker free, and the coordinator takes the finished runs
//! back in run order ([`ScenarioRun::adopt`]). The runs are independent and each is the same
//! simulation it would be here, so the report — and every message the page sees — is the
//! same as running them one after the other (a wasm test checks the bytes); only the order
//! in which runs finish, and the time, differ.
//!
//! The coordinator keeps the files, the jobs and the last report (Gantt charts and exports
//! read them here). A pool worker reads no file and generates no workload: before its first
//! share of a run it gets the coordinator's prepared run ([`ToWorker::RunBase`], the jobs
//! as 48-byte records in a `Blob` made once per run) and keeps it until the next run.
//! Pause, resume and cancel are forwarded; a failed pool worker fails the run, and the pool
//! is started afresh on the next one.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Weak;

use super::{finish_scenario, now_ms, post, State};
use crate::engine::{JobOutcome, Outcome, RejectReason};
use crate::model::{Job, Resource};
use crate::policy::local::QosLimit;
use crate::scenario::{RunReport, Scenario, ScenarioRun};
use crate::time::SimTime;
use crate::web::engine_worker::{spawn_with_bytes, EngineWorker};
use crate::web::protocol::*;

/// Below this many job-runs (jobs × algorithms) a run stays in this worker: starting the
/// pool (loading the engine again and sending each worker the prepared run) would cost more
/// than it saves.
pub const POOL_ABOVE_JOB_RUNS: u64 = 50_000;
/// Pool workers at most (each holds its own copy of the engine and, during a pooled run,
/// of its jobs).
pub const MAX_POOL: usize = 8;

/// Workers the run of `run` is spread over, given the page's core count: 1 (this worker
/// alone) for small runs, one core, or one algorithm.
pub fn pool_size(cores: u32, run: &ScenarioRun) -> usize {
    // A run on nodes keeps its placements and failure log in the worker that ran it (the
    // Gantt chart draws them); a pool worker sends back its outcomes only.
    if run.platform().sites.iter().any(|s| s.has_nodes()) {
        return 1;
    }
    // The jobs' QOS and accounts, and the users' and partitions' names a configuration's
    // names meet (issue #42), stay with this worker's workload (a pool worker gets the jobs
    // alone), and only the `slurm` policy reads them.
    let w = run.workload();
    let labelled = !w.qos.is_empty()
        || !w.accounts.is_empty()
        || !w.report.user_names.is_empty()
        || !w.report.partition_names.is_empty();
    let slurm = run
        .scenario()
        .algorithms
        .iter()
        .any(|a| a.local == crate::policy::local::LocalPolicyKind::Slurm);
    if labelled && slurm {
        return 1;
    }
    let job_runs = run.jobs().len() as u64 * run.algorithms() as u64;
    if job_runs < POOL_ABOVE_JOB_RUNS {
        return 1;
    }
    (cores as usize).min(run.algorithms()).clamp(1, MAX_POOL)
}

/// The page hears of a pooled run's progress at most this often (ms).
const PROGRESS_EVERY_MS: f64 = 200.0;

/// Bytes of one encoded [`Outcome`].
const OUTCOME_BYTES: usize = 29;

/// The resources an unplaceable rejection names, in tag order (tags 5–8).
const RESOURCES: [Resource; 4] = [
    Resource::Cores,
    Resource::Memory,
    Resource::Gpus,
    Resource::Nodes,
];

/// The per-job outcomes of a pool worker's run as bytes (the report's JSON skips them):
/// site u32, start i64, end i64 (milliseconds), status u8, then the rejection's needs and
/// capacity u32 (zero otherwise), little-endian.
pub fn encode_outcomes(outcomes: &[Outcome]) -> Vec<u8> {
    let mut out = Vec::with_capacity(outcomes.len() * OUTCOME_BYTES);
    // A rejection's numbers saturate at u32.
    let sat = |v: u64| v.min(u64::from(u32::MAX)) as u32;
    for o in outcomes {
        let (tag, needs, capacity) = match o.status {
            JobOutcome::Pending => (0u8, 0, 0),
            JobOutcome::Finished => (1, 0, 0),
            JobOutcome::Killed => (2, 0, 0),
            // Lost to a node failure (issue #41).
            JobOutcome::Lost => (9, 0, 0),
            JobOutcome::Rejected(RejectReason::TooWide { needs, capacity }) => (3, needs, capacity),
            JobOutcome::Rejected(RejectReason::NoSuchSite) => (4, 0, 0),
            // Node-typed sites (issue #37): 5 + the resource.
            JobOutcome::Rejected(RejectReason::Unplaceable {
                resource,
                needs,
                most,
            }) => {
                // The power cap (issue #40) came after Lost took 9.
                let tag = match RESOURCES.iter().position(|&x| x == resource) {
                    Some(r) => 5 + r as u8,
                    None => 10,
                };
                (tag, sat(needs), sat(most))
            }
            // A Slurm partition's MaxTime (issue #42), in seconds.
            JobOutcome::Rejected(RejectReason::PartitionTimeLimit {
                limit_s,
                max_time_s,
            }) => (11, sat(limit_s), sat(max_time_s)),
            // A Slurm partition's nodes (issue #42): 12 + the resource.
            JobOutcome::Rejected(RejectReason::PartitionNodes {
                resource,
                needs,
                most,
            }) => {
                let r = RESOURCES.iter().position(|&x| x == resource).unwrap_or(0);
                (12 + r as u8, sat(needs), sat(most))
            }
            // A Slurm QOS limit (issue #42): 16 + the limit (20: MaxWall; 21–24: memory and
            // GPU limits).
            JobOutcome::Rejected(RejectReason::QosLimit { limit, needs, most }) => {
                let tag = match limit {
                    QosLimit::MaxJobsPerUser => 16,
                    QosLimit::GrpCpus => 17,
                    QosLimit::GrpJobs => 18,
                    QosLimit::MaxCpusPerUser => 19,
                    QosLimit::MaxWall => 20,
                    QosLimit::GrpMem => 21,
                    QosLimit::GrpGpus => 22,
                    QosLimit::MaxMemPerUser => 23,
                    QosLimit::MaxGpusPerUser => 24,
                };
                (tag, sat(needs), sat(most))
            }
        };
        out.extend_from_slice(&o.site.to_le_bytes());
        out.extend_from_slice(&o.start.0.to_le_bytes());
        out.extend_from_slice(&o.end.0.to_le_bytes());
        out.push(tag);
        out.extend_from_slice(&needs.to_le_bytes());
        out.extend_from_slice(&capacity.to_le_bytes());
    }
    out
}

/// The inverse of [`encode_outcomes`].
pub fn decode_outcomes(bytes: &[u8]) -> Result<Vec<Outcome>, String> {
    if !bytes.len().is_multiple_of(OUTCOME_BYTES) {
        return Err(format!(
            "{} bytes of outcomes are not a whole number of {OUTCOME_BYTES}-byte records",
            bytes.len()
        ));
    }
    let u32_at = |r: &[u8], at: usize| u32::from_le_bytes([r[at], r[at + 1], r[at + 2], r[at + 3]]);
    let i64_at = |r: &[u8], at: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&r[at..at + 8]);
        i64::from_le_bytes(b)
    };
    bytes
        .chunks_exact(OUTCOME_BYTES)
        .map(|r| {
            let status = match r[20] {
                0 => JobOutcome::Pending,
                1 => JobOutcome::Finished,
                2 => JobOutcome::Killed,
                3 => JobOutcome::Rejected(RejectReason::TooWide {
                    needs: u32_at(r, 21),
                    capacity: u32_at(r, 25),
                }),
                4 => JobOutcome::Rejected(RejectReason::NoSuchSite),
                tag @ 5..=8 => JobOutcome::Rejected(RejectReason::Unplaceable {
                    resource: RESOURCES[(tag - 5) as usize],
                    needs: u64::from(u32_at(r, 21)),
                    most: u64::from(u32_at(r, 25)),
                }),
                9 => JobOutcome::Lost,
                10 => JobOutcome::Rejected(RejectReason::Unplaceable {
                    resource: Resource::Power,
                    needs: u64::from(u32_at(r, 21)),
                    most: u64::from(u32_at(r, 25)),
                }),
                11 => JobOutcome::Rejected(RejectReason::PartitionTimeLimit {
                    limit_s: u64::from(u32_at(r, 21)),
                    max_time_s: u64::from(u32_at(r, 25)),
                }),
                tag @ 12..=15 => JobOutcome::Rejected(RejectReason::PartitionNodes {
                    resource: RESOURCES[(tag - 12) as usize],
                    needs: u64::from(u32_at(r, 21)),
                    most: u64::from(u32_at(r, 25)),
                }),
                tag @ 16..=24 => JobOutcome::Rejected(RejectReason::QosLimit {
                    limit: match tag {
                        16 => QosLimit::MaxJobsPerUser,
                        17 => QosLimit::GrpCpus,
                        18 => QosLimit::GrpJobs,
                        19 => QosLimit::MaxCpusPerUser,
                        20 => QosLimit::MaxWall,
                        21 => QosLimit::GrpMem,
                        22 => QosLimit::GrpGpus,
                        23 => QosLimit::MaxMemPerUser,
                        _ => QosLimit::MaxGpusPerUser,
                    },
                    needs: u64::from(u32_at(r, 21)),
                    most: u64::from(u32_at(r, 25)),
                }),
                other => return Err(format!("unknown outcome status {other}")),
            };
            Ok(Outcome {
                site: u32_at(r, 0),
                start: SimTime(i64_at(r, 4)),
                end: SimTime(i64_at(r, 12)),
                status,
            })
        })
        .collect()
}

/// Bytes of one encoded [`Job`].
const JOB_BYTES: usize = 48;

/// Jobs as bytes for a pool worker (decoding them is far cheaper than reading a file or
/// generating a workload again): id u64, submit, run time and estimate i64 (milliseconds),
/// processors and home u32, user and partition i32, little-endian.
pub fn encode_jobs(jobs: &[Job]) -> Vec<u8> {
    let mut out = Vec::with_capacity(jobs.len() * JOB_BYTES);
    for j in jobs {
        out.extend_from_slice(&j.id.to_le_bytes());
        out.extend_from_slice(&j.submit.0.to_le_bytes());
        out.extend_from_slice(&j.runtime.0.to_le_bytes());
        out.extend_from_slice(&j.estimate.0.to_le_bytes());
        out.extend_from_slice(&j.procs.to_le_bytes());
        out.extend_from_slice(&j.home.to_le_bytes());
        out.extend_from_slice(&j.user.to_le_bytes());
        out.extend_from_slice(&j.partition.to_le_bytes());
    }
    out
}

/// The inverse of [`encode_jobs`].
pub fn decode_jobs(bytes: &[u8]) -> Result<Vec<Job>, String> {
    if !bytes.len().is_multiple_of(JOB_BYTES) {
        return Err(format!(
            "{} bytes of jobs are not a whole number of {JOB_BYTES}-byte records",
            bytes.len()
        ));
    }
    let b8 = |r: &[u8], at: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&r[at..at + 8]);
        b
    };
    let b4 = |r: &[u8], at: usize| [r[at], r[at + 1], r[at + 2], r[at + 3]];
    Ok(bytes
        .chunks_exact(JOB_BYTES)
        .map(|r| Job {
            id: i64::from_le_bytes(b8(r, 0)),
            submit: SimTime(i64::from_le_bytes(b8(r, 8))),
            runtime: SimTime(i64::from_le_bytes(b8(r, 16))),
            estimate: SimTime(i64::from_le_bytes(b8(r, 24))),
            procs: u32::from_le_bytes(b4(r, 32)),
            home: u32::from_le_bytes(b4(r, 36)),
            user: i32::from_le_bytes(b4(r, 40)),
            partition: i32::from_le_bytes(b4(r, 44)),
        })
        .collect())
}

/// The pool and the run spread over it.
#[derive(Default)]
pub(super) struct Pool {
    workers: Vec<PoolWorker>,
    next_tag: u64,
    /// The last pool worker's id (ids stay with a worker when a dead one is dropped).
    next_id: u64,
    run: Option<PooledRun>,
}

struct PoolWorker {
    /// Its messages carry this id to [`on_message`].
    id: u64,
    worker: EngineWorker,
    ready: bool,
    /// It failed: it gets nothing more, and is dropped when the next run starts (not from
    /// its own handler).
    dead: bool,
    /// Messages (and attached blobs) waiting for it to say `Ready`.
    queue: Vec<(ToWorker, Option<web_sys::Blob>)>,
    /// The pooled run whose prepared base it has.
    base_tag: Option<u64>,
    /// The run it is simulating.
    busy: Option<usize>,
}

impl PoolWorker {
    fn send(&mut self, msg: &ToWorker, file: Option<web_sys::Blob>) -> Result<(), String> {
        if !self.ready {
            self.queue.push((msg.clone(), file));
            return Ok(());
        }
        self.worker.send(msg, file.as_ref())
    }

    /// Sends a control message (pause, resume, cancel); a worker that cannot be told is
    /// terminated, so it never runs on while the page says it stopped. `false` then.
    fn control(&mut self, msg: &ToWorker) -> bool {
        if self.send(msg, None).is_ok() {
            return true;
        }
        self.dead = true;
        self.worker.terminate();
        false
    }
}

/// The run spread over the pool.
pub(super) struct PooledRun {
    run: ScenarioRun,
    tag: u64,
    /// The prepared run ([`ToWorker::RunBase`]) and its jobs as bytes, for each pool worker.
    base: ToWorker,
    base_jobs: web_sys::Blob,
    /// Workers it uses (the first `size` of the pool).
    size: usize,
    /// The runs in the order they are handed out ([`crate::scenario::hand_out_order`]).
    order: Vec<usize>,
    /// The next position in `order` to hand out.
    next: usize,
    /// Finished runs not yet taken in order: each report (with its outcomes) and what the
    /// page gets of it.
    finished: BTreeMap<usize, (RunReport, RunResult)>,
    /// (jobs done, jobs in all) of each run going on.
    progress: BTreeMap<usize, (u64, u64)>,
    t0: f64,
    /// When the page last heard of the progress (ms).
    last_progress: f64,
    paused: bool,
}

impl Pool {
    fn worker(&mut self, id: u64) -> Option<&mut PoolWorker> {
        self.workers.iter_mut().find(|w| w.id == id)
    }
}

impl PooledRun {
    /// (jobs done, jobs in all) of the runs going on, added up.
    fn jobs_done(&self) -> (u64, u64) {
        self.progress
            .values()
            .fold((0, 0), |(d, t), &(d1, t1)| (d + d1, t + t1))
    }
}

/// Spreads `run` over `size` pool workers (started as needed; each first gets the prepared
/// run).
pub(super) fn start(
    st: &mut State,
    run: ScenarioRun,
    scenario: &Scenario,
    size: usize,
) -> Result<(), String> {
    st.pool.workers.retain(|w| !w.dead);
    while st.pool.workers.len() < size {
        st.pool.next_id += 1;
        let w = spawn(st.me.clone(), st.pool.next_id)?;
        st.pool.workers.push(w);
    }
    st.pool.next_tag += 1;
    let tag = st.pool.next_tag;
    let base = ToWorker::RunBase {
        tag,
        base: Box::new(run.prepared()),
    };
    let base_jobs = blob_of(&encode_jobs(run.jobs()))?;
    st.pool.run = Some(PooledRun {
        run,
        tag,
        base,
        base_jobs,
        size,
        order: crate::scenario::hand_out_order(&scenario.algorithms),
        next: 0,
        finished: BTreeMap::new(),
        progress: BTreeMap::new(),
        t0: now_ms(),
        last_progress: 0.0,
        paused: false,
    });
    feed(&mut st.pool)
}

fn blob_of(bytes: &[u8]) -> Result<web_sys::Blob, String> {
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    web_sys::Blob::new_with_u8_array_sequence(&parts)
        .map_err(|e| format!("cannot hand a file to a pool worker: {e:?}"))
}

/// Starts pool worker `id`; its messages go to [`on_message`].
fn spawn(me: Weak<RefCell<State>>, id: u64) -> Result<PoolWorker, String> {
    let worker = spawn_with_bytes(move |msg, bytes| {
        if let Some(st) = me.upgrade() {
            let msg = msg.map_err(|e| format!("a pool worker: {e}"));
            on_message(&mut st.borrow_mut(), id, msg, bytes);
        }
    })?;
    Ok(PoolWorker {
        id,
        worker,
        ready: false,
        dead: false,
        queue: Vec::new(),
        base_tag: None,
        busy: None,
    })
}

/// Hands the next runs to the free workers of the pooled run.
fn feed(pool: &mut Pool) -> Result<(), String> {
    let Some(r) = pool.run.as_mut() else {
        return Ok(());
    };
    if r.paused {
        return Ok(());
    }
    for w in pool.workers.iter_mut().take(r.size) {
        if r.next >= r.run.algorithms() {
            break;
        }
        if w.busy.is_none() && !w.dead {
            if w.base_tag != Some(r.tag) {
                w.send(&r.base, Some(r.base_jobs.clone()))?;
                w.base_tag = Some(r.tag);
            }
            let index = r.order[r.next];
            let msg = ToWorker::RunPart { tag: r.tag, index };
            w.send(&msg, None)?;
            w.busy = Some(index);
            r.progress.insert(index, (0, r.run.jobs().len() as u64));
            r.next += 1;
        }
    }
    Ok(())
}

/// What pool worker `id` said.
fn on_message(st: &mut State, id: u64, msg: Result<FromWorker, String>, bytes: Option<Vec<u8>>) {
    let tag = st.pool.run.as_ref().map(|r| r.tag);
    let outcome = match msg {
        Err(message) => {
            if let Some(pw) = st.pool.worker(id) {
                pw.dead = true;
                pw.worker.terminate();
            }
            Err(message)
        }
        Ok(FromWorker::Ready) => {
            let Some(pw) = st.pool.worker(id) else {
                return;
            };
            pw.ready = true;
            std::mem::take(&mut pw.queue)
                .into_iter()
                .try_for_each(|(msg, file)| pw.worker.send(&msg, file.as_ref()))
        }
        Ok(FromWorker::PartProgress {
            tag: t,
            index,
            done,
            total,
        }) if Some(t) == tag => {
            if let Some(r) = st.pool.run.as_mut() {
                r.progress.insert(index, (done, total));
                // Every pool worker reports after each of its slices; the page redraws on
                // each report, and its thread shares the cores with the pool.
                if now_ms() - r.last_progress >= PROGRESS_EVERY_MS {
                    r.last_progress = now_ms();
                    post_progress(r);
                }
            }
            Ok(())
        }
        Ok(FromWorker::PartDone {
            tag: t,
            index,
            result,
        }) if Some(t) == tag => part_done(st, id, index, *result, bytes),
        Ok(FromWorker::PartFailed {
            tag: t, message, ..
        }) if Some(t) == tag => Err(message),
        // Loads, pauses and cancels answered, and a cancelled run's late words.
        Ok(_) => Ok(()),
    };
    if let Err(message) = outcome {
        if st.pool.run.is_some() {
            cancel(st);
            post(&FromWorker::Failed { message });
        }
    }
}

/// Run `index` is back from worker `id`: the runs finished in order go to the page, the
/// worker gets the next run, and the last one ends the scenario.
fn part_done(
    st: &mut State,
    id: u64,
    index: usize,
    result: RunResult,
    bytes: Option<Vec<u8>>,
) -> Result<(), String> {
    let mut report = result.report.clone();
    report.outcomes =
        decode_outcomes(&bytes.ok_or("a pool worker's run came without its outcomes")?)?;
    if let Some(pw) = st.pool.worker(id) {
        pw.busy = None;
    }
    let Some(r) = st.pool.run.as_mut() else {
        return Ok(());
    };
    r.progress.remove(&index);
    r.finished.insert(index, (report, result));
    while let Some((report, mut result)) = r.finished.remove(&r.run.finished()) {
        r.run
            .adopt(r.run.finished(), report)
            .map_err(|e| e.to_string())?;
        // The log's waits stay with the coordinator: a pool worker's report has none.
        r.run.add_vs_log();
        if let Some((adopted, ..)) = r.run.last_run() {
            result.report.vs_log = adopted.vs_log.clone();
        }
        post(&FromWorker::RunResult(Box::new(result)));
    }
    if r.run.finished() < r.run.algorithms() {
        return feed(&mut st.pool);
    }
    if let Some(r) = st.pool.run.take() {
        release(&mut st.pool);
        finish_scenario(st, r.run, r.t0);
    }
    Ok(())
}

/// The page's progress: the first run going on, and the jobs done of all of them.
fn post_progress(r: &PooledRun) {
    let (done, total) = r.jobs_done();
    post(&FromWorker::Progress {
        run: r.run.finished(),
        done,
        total,
        in_flight: r.progress.len(),
    });
}

pub(super) fn pause(st: &mut State) {
    let Some(r) = st.pool.run.as_mut() else {
        return;
    };
    r.paused = true;
    if !control_busy(&mut st.pool.workers, &ToWorker::Pause) {
        return fail_control(st, "paused");
    }
    let Some(r) = st.pool.run.as_mut() else {
        return;
    };
    let (done, total) = r.jobs_done();
    post(&FromWorker::Paused {
        run: r.run.finished(),
        done,
        total,
    });
}

pub(super) fn resume(st: &mut State) {
    let Some(r) = st.pool.run.as_mut() else {
        return;
    };
    if !r.paused {
        return;
    }
    r.paused = false;
    if !control_busy(&mut st.pool.workers, &ToWorker::Resume) {
        return fail_control(st, "resumed");
    }
    post(&FromWorker::Resumed);
    if let Err(message) = feed(&mut st.pool) {
        cancel(st);
        post(&FromWorker::Failed { message });
    }
}

/// Sends `msg` to every busy pool worker; `false` when one could not be told (it was
/// terminated: its part of the run is lost).
fn control_busy(workers: &mut [PoolWorker], msg: &ToWorker) -> bool {
    let mut all = true;
    for w in workers.iter_mut().filter(|w| w.busy.is_some() && !w.dead) {
        all &= w.control(msg);
    }
    all
}

/// A pool worker could not be paused or resumed: the run cannot go on as the page would
/// show it, so it stops, and the page says why (rather than "paused" while a part runs).
fn fail_control(st: &mut State, what: &str) {
    cancel(st);
    post(&FromWorker::Failed {
        message: format!(
            "a pool worker could not be {what} (its message channel failed); it was stopped, and the run with it — run again"
        ),
    });
}

/// Drops the pooled run (its workers drop their runs and stay); returns the runs that had
/// reached the page.
pub(super) fn cancel(st: &mut State) -> usize {
    let Some(r) = st.pool.run.take() else {
        return 0;
    };
    release(&mut st.pool);
    r.run.finished()
}

/// Every pool worker that runs a part or holds a prepared run drops it (`Cancel`), so that
/// an idle worker does not keep a finished run's jobs (48 bytes each) until the next
/// pooled run.
fn release(pool: &mut Pool) {
    for w in pool.workers.iter_mut() {
        let busy = w.busy.take().is_some();
        let held = w.base_tag.take().is_some();
        if (busy || held) && !w.dead {
            // One that cannot be told to cancel is terminated (`control`): either way it
            // runs no more once the page says "cancelled".
            w.control(&ToWorker::Cancel);
        }
    }
}
