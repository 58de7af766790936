//! Throughput benchmark: parse + simulate real traces under each local policy.
//!
//! `cargo bench --bench throughput` (or `bash scripts/bench.sh`). Each case runs in a child
//! process so its peak memory (VmHWM) is its own. Reports wall time for parsing and for the
//! simulation, jobs per second, SWF parsing speed on the decompressed text, and peak memory
//! per job beyond the input bytes. A case over its time budget is cancelled and reported so.
//! Reads the traces from ../shared/traces; nothing is copied into the project.

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use gridscope::engine::{check_invariants, simulate, RunConfig};
use gridscope::model::{Job, Platform, Site};
use gridscope::policy::local::LocalPolicyKind;
use gridscope::rng::SimRng;
use gridscope::time::SimTime;
use gridscope::workload::{read_swf, SwfOptions};

const TRACES: &[&str] = &[
    "SDSC-SP2-1998-4.2-cln.swf.gz",
    "KTH-SP2-1996-2.1-cln.swf.gz",
    "SDSC-BLUE-2000-4.2-cln.swf.gz",
    "CEA-Curie-2011-2.1-cln.swf.gz",
    "RICC-2010-2.swf.gz",
];
const BUDGET: Duration = Duration::from_secs(60);

fn traces_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/traces")
}

fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// One case, in this (child) process; prints one result line.
fn one(trace: &str, policy: &str) {
    let kind: LocalPolicyKind = policy.parse().unwrap();
    let base_kb = peak_rss_kb();
    let bytes = std::fs::read(traces_dir().join(trace)).expect("trace");
    let t0 = Instant::now();
    let w = read_swf(trace, &bytes, &SwfOptions::default()).unwrap();
    let parse = t0.elapsed();
    let procs = w
        .report
        .header
        .max_procs
        .unwrap_or(1)
        .max(w.jobs.iter().map(|j| j.procs as u64).max().unwrap_or(1)) as u32;
    let platform = Platform::single(Site::flat("bench", procs));
    let cfg = RunConfig::default();
    let t1 = Instant::now();
    let result = simulate(&platform, &w.jobs, kind, &cfg, &mut |_, _| {
        t1.elapsed() < BUDGET
    });
    let sim = t1.elapsed();
    let peak_kb = peak_rss_kb();
    let jobs = w.jobs.len() as f64;
    let beyond = (peak_kb.saturating_sub(base_kb) as f64 * 1024.0 - bytes.len() as f64) / jobs;
    match result {
        Ok(out) => {
            check_invariants(&platform, &w.jobs, &out.outcomes, &cfg).expect("invariants");
            let total = parse + sim;
            println!(
                "{trace:<34} {policy:<13} {:>8} jobs  parse {:>7.3} s  sim {:>7.3} s  total {:>7.3} s  {:>10.0} jobs/s  {:>6.1} B/job  max queue {}",
                w.jobs.len(),
                parse.as_secs_f64(),
                sim.as_secs_f64(),
                total.as_secs_f64(),
                jobs / total.as_secs_f64(),
                beyond,
                out.max_queue
            );
        }
        Err(e) => println!(
            "{trace:<34} {policy:<13} {:>8} jobs  parse {:>7.3} s  sim > {} s ({e})",
            w.jobs.len(),
            parse.as_secs_f64(),
            BUDGET.as_secs()
        ),
    }
}

/// A backlog of `n` jobs submitted together on 128 processors (seed 1): widths 1–64, run
/// times 1 s–1 h, estimates twice the run time, so every job ends early and conservative
/// backfilling re-plans the queue at every completion.
fn backlog(n: usize) -> Vec<Job> {
    let mut rng = SimRng::new(1);
    (0..n)
        .map(|i| {
            let run = rng.range_u64(1, 3600) as i64;
            Job {
                id: i as i64 + 1,
                submit: SimTime::ZERO,
                runtime: SimTime::from_secs(run),
                estimate: SimTime::from_secs(2 * run),
                procs: rng.range_u64(1, 64) as u32,
                home: 0,
                user: -1,
                partition: -1,
            }
        })
        .collect()
}

/// The same-instant backlog under each policy: conservative-rebuild's cost grows with the
/// cube of the backlog (a re-plan of the whole queue at each of its completions);
/// compression's with the jobs that can move at each completion.
fn backlog_case(n: usize, policy: &str) {
    let kind: LocalPolicyKind = policy.parse().unwrap();
    let jobs = backlog(n);
    let platform = Platform::single(Site::flat("backlog", 128));
    let cfg = RunConfig::default();
    let t = Instant::now();
    let result = simulate(&platform, &jobs, kind, &cfg, &mut |_, _| {
        t.elapsed() < BUDGET
    });
    match result {
        Ok(_) => println!(
            "backlog of {n:>6} same-instant jobs  {policy:<20} {:>8.3} s",
            t.elapsed().as_secs_f64()
        ),
        Err(_) => println!(
            "backlog of {n:>6} same-instant jobs  {policy:<20} > {} s",
            BUDGET.as_secs()
        ),
    }
}

/// SWF parsing speed on decompressed text (the gzip decoder is measured separately).
fn parse_speed(trace: &str) {
    let gz = std::fs::read(traces_dir().join(trace)).expect("trace");
    let mut text = Vec::new();
    let t = Instant::now();
    std::io::Read::read_to_end(&mut flate2::read::MultiGzDecoder::new(&gz[..]), &mut text).unwrap();
    let inflate = t.elapsed();
    let mut best = f64::MAX;
    for _ in 0..5 {
        let t = Instant::now();
        let w = read_swf(trace, &text, &SwfOptions::default()).unwrap();
        std::hint::black_box(&w);
        best = best.min(t.elapsed().as_secs_f64());
    }
    let mb = text.len() as f64 / 1e6;
    println!(
        "{trace:<34} {mb:>7.1} MB text: SWF parse {:>6.0} MB/s (best of 5); gzip inflate {:>6.0} MB/s",
        mb / best,
        mb / inflate.as_secs_f64()
    );
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    if let [flag, what, policy] = args.as_slice() {
        if flag == "--one" {
            one(what, policy);
            return;
        }
        if flag == "--backlog" {
            backlog_case(what.parse().unwrap(), policy);
            return;
        }
    }
    let filter = args.first().cloned().unwrap_or_default();
    let exe = std::env::current_exe().unwrap();
    println!("# parse speed");
    for trace in TRACES.iter().filter(|t| t.contains(&filter)) {
        parse_speed(trace);
    }
    println!(
        "# parse + simulate (one process per case; budget {} s)",
        BUDGET.as_secs()
    );
    for trace in TRACES.iter().filter(|t| t.contains(&filter)) {
        for kind in LocalPolicyKind::ALL {
            let out = Command::new(&exe)
                .args(["--one", trace, kind.name()])
                .output()
                .unwrap();
            print!("{}", String::from_utf8_lossy(&out.stdout));
            if !out.status.success() {
                eprintln!("{trace} {kind}: {}", String::from_utf8_lossy(&out.stderr));
            }
        }
    }
    if !filter.is_empty() && !"backlog".contains(&filter) {
        return;
    }
    println!("# same-instant backlog (budget {} s)", BUDGET.as_secs());
    for n in [1_000, 2_500, 5_000, 10_000, 20_000] {
        for policy in ["easy", "conservative", "conservative-rebuild"] {
            let out = Command::new(&exe)
                .args(["--backlog", &n.to_string(), policy])
                .output()
                .unwrap();
            print!("{}", String::from_utf8_lossy(&out.stdout));
        }
    }
}
