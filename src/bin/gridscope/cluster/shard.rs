//! `gridscope sweep run DIR --shard I/N`: this shard's cases on the local cores, each result
//! written atomically with its checksum; cases already done are skipped, so a killed or
//! pre-empted task resumes where it stopped; a corrupt result is rerun.

use std::io::Write;
use std::sync::Mutex;
use std::time::Instant;

use gridscope::limits::Limits;
use gridscope::scenario::{load_workload, run_loaded_on};

use super::store::{family_trace, Dir, Lock, Plan, RunResult, FORMAT, VERSION};
use super::store::{read_result, result_text, write_atomic, Bad, CaseLine, CaseResult};
use crate::cli::{Shard, ShardRunArgs, ShardSpec};
use crate::io::{hostname, load_file, read_file};
use crate::progress::Progress;
use crate::{output, CliError};

/// The shard a `--shard slurm` task is: its array index of `--of N`, else of
/// `SLURM_ARRAY_TASK_COUNT` (the generated script always passes `--of`: an array resubmitted
/// in part counts only its part).
pub fn resolve(spec: &ShardSpec, of: Option<usize>) -> Result<Shard, CliError> {
    if let ShardSpec::Fixed(s) = spec {
        if of.is_some_and(|n| n != s.count) {
            return Err(CliError::Usage("--of contradicts --shard I/N".into()));
        }
        return Ok(*s);
    }
    let env = |name: &str| -> Result<Option<usize>, CliError> {
        match std::env::var(name) {
            Err(_) => Ok(None),
            Ok(v) => v
                .trim()
                .parse()
                .map(Some)
                .map_err(|_| CliError::Failed(format!("{name}='{v}' is not a whole number"))),
        }
    };
    let id = env("SLURM_ARRAY_TASK_ID")?.ok_or_else(|| {
        CliError::Failed(
            "--shard slurm: SLURM_ARRAY_TASK_ID is not set (not inside a Slurm array task; use --shard I/N)".into(),
        )
    })?;
    let count = match of {
        Some(n) => n,
        None => env("SLURM_ARRAY_TASK_COUNT")?.ok_or_else(|| {
            CliError::Failed(
                "--shard slurm: give --of N (SLURM_ARRAY_TASK_COUNT is not set)".into(),
            )
        })?,
    };
    // The array index itself, not its offset from SLURM_ARRAY_TASK_MIN: one element
    // resubmitted alone (`sbatch --array=3 array.sbatch`) must still be shard 3.
    let index = id;
    if count == 0 || index >= count {
        return Err(CliError::Failed(format!(
            "--shard slurm: array task {id} is not one of {count} shards (0..{count})"
        )));
    }
    Ok(Shard { index, count })
}

/// Which shard each case belongs to: the costliest case first, each to the shard with the
/// least work so far (ties: the lowest shard). A function of the plan and N only, so every
/// task computes the same split without talking to the others, and the shards get about
/// the same work (a hash split of 40 cases in 4 gives 7 to 14 a shard).
pub fn shard_of(cases: &[CaseLine], count: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..cases.len()).collect();
    order.sort_by(|&a, &b| cases[b].work.total_cmp(&cases[a].work).then(a.cmp(&b)));
    let mut load = vec![0f64; count];
    let mut owner = vec![0; cases.len()];
    for i in order {
        let mut best = 0;
        for s in 1..count {
            if load[s] < load[best] {
                best = s;
            }
        }
        // Every case counts for at least one unit, so cases of unknown work spread too.
        load[best] += cases[i].work.max(1.0);
        owner[i] = best;
    }
    owner
}

/// How a result file on disk stands.
pub enum Done {
    Yes,
    No,
    /// Corrupt or of another version: to be rerun (the reason).
    Redo(String),
}

pub fn done(dir: &Dir, id: &str) -> Done {
    match read_result(&dir.result_path(id), id) {
        Ok(r) if r.gridscope == VERSION && r.format == FORMAT => Done::Yes,
        Ok(r) => Done::Redo(format!("it was run by gridscope {}", r.gridscope)),
        Err(Bad::Missing) => Done::No,
        Err(Bad::Corrupt(why)) => Done::Redo(why),
    }
}

pub fn run(a: &ShardRunArgs) -> Result<(), CliError> {
    let shard = resolve(&a.shard, a.of)?;
    let dir = Dir::new(&a.dir);
    let plan = dir.plan()?;
    let cases = dir.cases()?;
    let lock = dir.lock()?;
    let limits = a.limits.limits();
    let owner = shard_of(&cases, shard.count);
    let mine: Vec<&CaseLine> = cases
        .iter()
        .filter(|c| owner[c.index] == shard.index)
        .collect();
    check_traces(&plan, &lock, &mine, &limits)?;
    dir.mkdirs(&["results", "running", "failed", "log"])?;
    let stale = super::store::remove_stale_temporaries(&dir.file("results"), &hostname());
    if stale > 0 {
        output::note(&format!(
            "removed {stale} partial result files left by killed runs on this host"
        ));
    }
    let mut todo = Vec::new();
    for c in &mine {
        match done(&dir, &c.id) {
            Done::Yes => {}
            Done::No => todo.push(*c),
            Done::Redo(why) => {
                output::note(&format!("case {} ({}): rerun: {why}", c.index, c.id));
                todo.push(*c);
            }
        }
    }
    // The costliest first, so a long case does not start last while the other cores idle.
    todo.sort_by(|a, b| b.work.total_cmp(&a.work).then(a.index.cmp(&b.index)));
    let threads = threads(a.threads);
    let host = hostname();
    let log = Log::open(&dir, &host)?;
    log.line(&format!(
        "start shard {}/{} cases {} todo {} threads {threads}",
        shard.index,
        shard.count,
        mine.len(),
        todo.len()
    ));
    let started = Instant::now();
    let mut progress = Progress::new();
    let total = todo.len();
    let outcomes = gridscope::par::map_in_order(
        total,
        threads,
        &|i| run_case(&dir, &plan, &lock, todo[i], &limits, &host, &log),
        &mut |d, of| progress.show(&format!("sweep run: case {d}/{of}"), d as f64 / of as f64),
    )
    .unwrap_or_default();
    drop(progress);
    let failed: Vec<String> = outcomes.into_iter().filter_map(Result::err).collect();
    log.line(&format!(
        "end shard {}/{} ran {} failed {} seconds {:.3} cpu {}",
        shard.index,
        shard.count,
        total,
        failed.len(),
        started.elapsed().as_secs_f64(),
        cpu_seconds().map_or("?".into(), |c| format!("{c:.2}"))
    ));
    output::stdout(&format!(
        "shard {}/{}: {} cases, {} already done, {} run, {} failed ({:.1} s on {threads} threads)\n",
        shard.index,
        shard.count,
        mine.len(),
        mine.len() - total,
        total - failed.len(),
        failed.len(),
        started.elapsed().as_secs_f64()
    ))?;
    if failed.is_empty() {
        Ok(())
    } else {
        Err(CliError::Failed(format!(
            "{} cases failed (their errors are in {}):\n{}",
            failed.len(),
            dir.file("failed").display(),
            failed.join("\n")
        )))
    }
}

/// `--threads`, else Slurm's CPUs for the task, else the available cores.
fn threads(given: Option<usize>) -> usize {
    given
        .or_else(|| {
            std::env::var("SLURM_CPUS_PER_TASK")
                .ok()
                .and_then(|v| v.trim().parse().ok())
                .filter(|&n: &usize| n > 0)
        })
        .unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        })
}

/// The traces this shard reads are the bytes the plan locked (a trace replaced on the
/// shared file system after planning would otherwise make a table of two different inputs).
fn check_traces(
    plan: &Plan,
    lock: &Lock,
    mine: &[&CaseLine],
    limits: &Limits,
) -> Result<(), CliError> {
    let mut files = std::collections::BTreeSet::new();
    for c in mine {
        files.extend(c.files(plan));
    }
    for f in files {
        let Some(locked) = lock.traces.iter().find(|t| t.file == f) else {
            return Err(CliError::Failed(format!(
                "trace {f} is not in lock.json: plan the sweep again"
            )));
        };
        let bytes = read_file(&plan.root.join(&f), limits)?;
        let sum = super::store::sha256_hex(&bytes);
        if sum != locked.sha256 {
            return Err(CliError::Failed(format!(
                "trace {f} changed since the plan: SHA-256 {sum}, the lock has {} ({} bytes now, {} then); restore it or plan the sweep again",
                locked.sha256,
                bytes.len(),
                locked.bytes
            )));
        }
    }
    Ok(())
}

/// Runs one case and files its result (or its error in `failed/`).
fn run_case(
    dir: &Dir,
    plan: &Plan,
    lock: &Lock,
    c: &CaseLine,
    limits: &Limits,
    host: &str,
    log: &Log,
) -> Result<(), String> {
    let started = Instant::now();
    let marker = dir.running_path(&c.id);
    let _ = std::fs::write(&marker, format!("{host} {}\n", std::process::id()));
    let result = simulate(plan, lock, c, limits).and_then(|r| {
        write_atomic(&dir.result_path(&c.id), result_text(&r).as_bytes()).map_err(|e| e.to_string())
    });
    let _ = std::fs::remove_file(&marker);
    match result {
        Ok(()) => {
            let _ = std::fs::remove_file(dir.failed_path(&c.id));
            log.line(&format!(
                "case {} {} seconds {:.3}",
                c.index,
                c.id,
                started.elapsed().as_secs_f64()
            ));
            Ok(())
        }
        Err(e) => {
            let _ = std::fs::write(dir.failed_path(&c.id), format!("{e}\n"));
            log.line(&format!("failed {} {}", c.index, c.id));
            Err(format!(
                "case {} ({}, {}): {e}",
                c.index,
                c.id,
                c.point.join(", ")
            ))
        }
    }
}

fn simulate(plan: &Plan, lock: &Lock, c: &CaseLine, limits: &Limits) -> Result<CaseResult, String> {
    let traces = c
        .files(plan)
        .into_iter()
        .map(|f| {
            let sum = lock
                .traces
                .iter()
                .find(|t| t.file == f)
                .map(|t| t.sha256.clone());
            (f, sum.unwrap_or_default())
        })
        .collect();
    let (Some(scenario), None) = (&c.scenario, &c.run) else {
        return simulate_family(plan, c, traces, limits);
    };
    let workload = load_workload(scenario, limits, &mut |f| {
        load_file(&plan.root.join(f), limits)
    })
    .map_err(|e| e.to_string())?;
    let report = run_loaded_on(scenario, workload, 1, limits, &mut |_, _, _| true)
        .map_err(|e| e.to_string())?;
    let runs = report
        .runs
        .iter()
        .map(|r| RunResult {
            label: r.label.clone(),
            algorithm: r.algorithm.clone(),
            metrics: serde_json::to_value(&r.metrics).unwrap_or_default(),
            events: r.events,
            max_queue: r.max_queue,
        })
        .collect();
    Ok(case_result(c, traces, report.offered_load, runs))
}

/// A case's result file: this binary's format and version, the case, what it read and ran.
fn case_result(
    c: &CaseLine,
    traces: Vec<(String, String)>,
    offered_load: Option<f64>,
    runs: Vec<RunResult>,
) -> CaseResult {
    CaseResult {
        format: FORMAT,
        gridscope: VERSION.into(),
        id: c.id.clone(),
        index: c.index,
        traces,
        offered_load,
        runs,
    }
}

/// One seed of a family run (`reproduce::case`): its lines as runs of the result, with no
/// events or queue (the families' own simulations do not count them).
fn simulate_family(
    plan: &Plan,
    c: &CaseLine,
    traces: Vec<(String, String)>,
    limits: &Limits,
) -> Result<CaseResult, String> {
    let spec = c
        .run
        .as_ref()
        .ok_or("the case has neither a scenario nor a run")?;
    let runs = gridscope::reproduce::case::run_case(spec, &mut |name| {
        load_file(&plan.root.join(family_trace(plan, name)), limits)
    })?;
    let runs = runs
        .into_iter()
        .map(|r| RunResult {
            label: r.label,
            algorithm: r.algorithm,
            metrics: serde_json::Value::Object(r.metrics),
            events: 0,
            max_queue: 0,
        })
        .collect();
    Ok(case_result(c, traces, None, runs))
}

/// This process's CPU time (user + system) so far, from `/proc/self/stat` (Linux; in clock
/// ticks of 1/100 s, the kernel's USER_HZ): for the log, to tell overhead from a busy machine.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces) end at its last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i)?.parse::<u64>().ok();
    // utime and stime: fields 14 and 15 of the line, 11 and 12 counted from the state (0).
    Some((ticks(11)? + ticks(12)?) as f64 / 100.0)
}

/// This process's log, `DIR/log/HOST-PID.log`: a line per case (id, seconds) and at the
/// start and end, so a test (or a user) can tell which cases a task ran.
pub struct Log(Mutex<Option<std::fs::File>>);

impl Log {
    fn open(dir: &Dir, host: &str) -> Result<Log, CliError> {
        let p = dir
            .file("log")
            .join(format!("{host}-{}.log", std::process::id()));
        let f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&p)
            .map_err(|source| CliError::Write { path: p, source })?;
        Ok(Log(Mutex::new(Some(f))))
    }

    fn line(&self, text: &str) {
        if let Ok(mut g) = self.0.lock() {
            if let Some(f) = g.as_mut() {
                let _ = writeln!(f, "{text}");
            }
        }
    }
}
