//! Import speed of every trace format (issue #29) on real-world-shaped samples generated
//! here: the same 100,000 jobs (seeded) written as SWF, GWF, Slurm `sacct --parsable2` and a
//! Batsim JSON workload, each read by `read_trace` (format told from the content), best of
//! seven; MB/s of text and jobs/s. The jobs: Poisson arrivals (mean gap 60 s), widths
//! 1–256 mostly small powers of two, runtimes log-uniform 10 s – 2 days, limits the runtime
//! × 1–5 rounded up to 5 minutes; in sacct 4 % are cancelled before they start and 2 %
//! pending (reported, not dropped), in GWF five origin sites. Numbers, not pass/fail.
//!
//! `GRIDSCOPE_FORMAT_SAMPLES=DIR cargo bench --bench formats` also writes the samples to DIR
//! (e.g. for `gridscope lint DIR/sample.sacct`).

use std::fmt::Write;
use std::time::Instant;

use gridscope::engine::SimTime;
use gridscope::model::Job;
use gridscope::rng::SimRng;
use gridscope::workload::{read_trace, write_batsim_json, SwfOptions, TraceOptions, Workload};

const JOBS: usize = 100_000;

struct Sample {
    id: u64,
    submit: i64,
    runtime: i64,
    limit: i64,
    procs: u64,
    user: u64,
    site: u64,
    /// 0 ran, 1 cancelled before start, 2 pending.
    state: u8,
}

fn jobs() -> Vec<Sample> {
    let mut rng = SimRng::new(29);
    let mut t = 1_700_000_000i64;
    (0..JOBS as u64)
        .map(|i| {
            t += rng.exponential(60.0).round() as i64;
            let procs = match rng.range_u64(0, 9) {
                0..=3 => 1,
                4 => rng.range_u64(2, 256),
                k => 1 << rng.range_u64(1, k + 1),
            };
            let runtime = libm::exp(libm::log(10.0) + rng.uniform() * libm::log(17_280.0)) as i64;
            let raw = runtime * rng.range_u64(1, 5) as i64;
            let limit = (raw + 299) / 300 * 300;
            let state = match rng.range_u64(0, 99) {
                0..=3 => 1,
                4..=5 => 2,
                _ => 0,
            };
            Sample {
                id: i + 1,
                submit: t,
                runtime,
                limit,
                procs,
                user: rng.range_u64(1, 200),
                site: rng.range_u64(1, 5),
                state,
            }
        })
        .collect()
}

fn civil(unix: i64) -> String {
    // Days to a date (Howard Hinnant's civil_from_days).
    let (days, secs) = (unix.div_euclid(86_400), unix.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

fn hms(s: i64) -> String {
    if s >= 86_400 {
        format!(
            "{}-{:02}:{:02}:{:02}",
            s / 86_400,
            s / 3600 % 24,
            s / 60 % 60,
            s % 60
        )
    } else {
        format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    }
}

fn swf(jobs: &[Sample]) -> String {
    let mut out = String::from("; Version: 2.2\n; UnixStartTime: 1700000000\n; MaxProcs: 256\n");
    for j in jobs.iter().filter(|j| j.state == 0) {
        let _ = writeln!(
            out,
            "{} {} 0 {} {} -1 -1 {} {} -1 1 {} -1 -1 -1 1 -1 -1",
            j.id,
            j.submit - 1_700_000_000,
            j.runtime,
            j.procs,
            j.procs,
            j.limit,
            j.user
        );
    }
    out
}

fn gwf(jobs: &[Sample]) -> String {
    let mut out = String::from("# JobID\tSubmitTime\tWaitTime\tRunTime\tNProcs\tAverageCPUTimeUsed\tUsed Memory\tReqNProcs\tReqTime\tReqMemory\tStatus\tUserID\tGroupID\tExecutableID\tQueueID\tPartitionID\tOrigSiteID\tLastRunSiteID\tJobStructure\tJobStructureParams\tUsedNetwork\tUsedLocalDiskSpace\tUsedResources\tReqPlatform\tReqNetwork\tReqLocalDiskSpace\tReqResources\tVOID\tProjectID\n");
    for j in jobs.iter().filter(|j| j.state == 0) {
        let _ = writeln!(
            out,
            "{}\t{}\t0\t{}\t{}\t-1\t-1\t{}\t{}\t-1\t1\tU{}\t-1\t-1\t-1\t-1\t{}\t{}\tUNITARY\t-1\t-1\t-1\t-1\t-1\t-1\t-1\t-1\t-1\t-1",
            j.id, j.submit, j.runtime, j.procs, j.procs, j.limit, j.user, j.site, j.site
        );
    }
    out
}

fn sacct(jobs: &[Sample]) -> String {
    let mut out = String::from(
        "JobID|Submit|Start|End|Elapsed|Timelimit|NCPUS|NNodes|State|Partition|User|Account\n",
    );
    for j in jobs {
        let (start, end, elapsed, state) = match j.state {
            0 => (
                civil(j.submit + 30),
                civil(j.submit + 30 + j.runtime),
                hms(j.runtime),
                "COMPLETED",
            ),
            1 => (
                "None".into(),
                civil(j.submit + 600),
                hms(0),
                "CANCELLED by 1000",
            ),
            _ => ("Unknown".into(), "Unknown".into(), hms(0), "PENDING"),
        };
        let _ = writeln!(
            out,
            "{}|{}|{start}|{end}|{elapsed}|{}|{}|{}|{state}|batch|user{}|proj{}",
            j.id,
            civil(j.submit),
            hms(j.limit),
            j.procs,
            j.procs.div_ceil(32),
            j.user,
            j.user % 17
        );
    }
    out
}

/// The jobs that ran, through the crate's own Batsim writer (what `gridscope export
/// --format batsim-json` writes): ids as numbers, a delay profile per distinct runtime.
fn batsim(jobs: &[Sample]) -> String {
    let ran: Vec<Job> = jobs
        .iter()
        .filter(|j| j.state == 0)
        .map(|j| Job {
            id: j.id as i64,
            submit: SimTime::from_secs(j.submit - 1_700_000_000),
            runtime: SimTime::from_secs(j.runtime),
            estimate: SimTime::from_secs(j.limit),
            procs: j.procs as u32,
            home: 0,
            user: j.user as i32,
            partition: -1,
        })
        .collect();
    write_batsim_json(
        &Workload::generated("sample".into(), ran, Vec::new()),
        Some(256),
    )
}

fn main() {
    let jobs = jobs();
    let samples = [
        ("sample.swf", swf(&jobs)),
        ("sample.gwf", gwf(&jobs)),
        ("sample.sacct", sacct(&jobs)),
        ("sample.json", batsim(&jobs)),
    ];
    if let Ok(dir) = std::env::var("GRIDSCOPE_FORMAT_SAMPLES") {
        std::fs::create_dir_all(&dir).unwrap();
        for (name, text) in &samples {
            std::fs::write(std::path::Path::new(&dir).join(name), text).unwrap();
        }
    }
    println!("import speed, {JOBS} generated jobs (best of 7, read_trace with the format told from the content)");
    println!(
        "{:<14}{:>10}{:>10}{:>12}{:>10}{:>12}",
        "format", "MB", "records", "jobs", "MB/s", "Mjobs/s"
    );
    for (name, text) in &samples {
        let mut best = f64::INFINITY;
        let mut last = None;
        for _ in 0..7 {
            let t = Instant::now();
            let w = read_trace(
                name,
                text.as_bytes(),
                &SwfOptions::default(),
                &TraceOptions::default(),
            )
            .expect("sample reads");
            best = best.min(t.elapsed().as_secs_f64());
            last = Some(w);
        }
        let w = last.expect("seven runs");
        let mb = text.len() as f64 / 1e6;
        println!(
            "{:<14}{:>10.1}{:>10}{:>12}{:>10.0}{:>12.2}  (read as {})",
            name,
            mb,
            w.report.records,
            w.report.jobs,
            mb / best,
            w.report.jobs as f64 / best / 1e6,
            if w.report.format.is_empty() {
                "swf"
            } else {
                &w.report.format
            }
        );
    }
}
