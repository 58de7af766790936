//! A run set against the log it replays (issue #42, docs/slurm.md "Against the log"): the
//! readers keep each job's logged wait through every reorder, the writer gives it back, and
//! `simulate --vs-log` reports the per-job wait error and FastSim's moving-average error,
//! worked out by hand here; a schedule set against itself scores 0 on a real trace.

use gridscope::engine::{RunConfig, Simulation};
use gridscope::model::{Platform, Site};
use gridscope::policy::grid::{GridParams, GridScheme};
use gridscope::policy::local::LocalPolicyKind;
use gridscope::time::SimTime;
use gridscope::workload::{read_swf, read_trace, write_swf, SwfOptions, TraceOptions};

use crate::cli::{gridscope, stderr};
use crate::{root, trace};

fn secs(waits: &[Option<SimTime>]) -> Vec<Option<i64>> {
    waits.iter().map(|w| w.map(|t| t.0 / 1000)).collect()
}

/// SWF field 3 is the wait, -1 unknown; jobs out of submit order are sorted with their
/// waits; a log where no job has a wait keeps none.
#[test]
fn the_swf_reader_keeps_each_jobs_wait_through_the_sort() {
    let swf = "\
1 100 7 10 1 -1 -1 1 10 -1 1 1 -1 -1 -1 -1 -1 -1
2 50 -1 10 1 -1 -1 1 10 -1 1 1 -1 -1 -1 -1 -1 -1
3 0 30 10 1 -1 -1 1 10 -1 1 1 -1 -1 -1 -1 -1 -1
";
    let w = read_swf("w.swf", swf.as_bytes(), &SwfOptions::default()).unwrap();
    let ids: Vec<i64> = w.jobs.iter().map(|j| j.id).collect();
    assert_eq!(ids, [3, 2, 1]);
    assert_eq!(secs(&w.logged_waits), [Some(30), None, Some(7)]);
    // Written and read back: the same waits.
    let back = read_swf(
        "b.swf",
        write_swf(&w, &w.report.header).as_bytes(),
        &SwfOptions::default(),
    )
    .unwrap();
    assert_eq!(back.logged_waits, w.logged_waits);
    let none = swf
        .replace(" 7 10 ", " -1 10 ")
        .replace(" 30 10 ", " -1 10 ");
    let w = read_swf("n.swf", none.as_bytes(), &SwfOptions::default()).unwrap();
    assert!(w.logged_waits.is_empty());
}

/// sacct's wait is Start − Submit (tests/fixtures/formats/small.sacct: jobs 101, 102, 105
/// and 109 ran, after 5 s, 4 min, 2 min and 1 min); GWF's is field 3 as in SWF
/// (small.gwf: jobs 1, 2, 3, 5, 6 and 8 waited 0, 5, 0, 0, 2 and 0 s; 4 ran 0 s and 7 is
/// malformed).
#[test]
fn sacct_and_gwf_logs_give_their_waits() {
    for (name, expected) in [
        (
            "small.sacct",
            vec![(101, 5), (102, 240), (105, 120), (109, 60)],
        ),
        (
            "small.gwf",
            vec![(1, 0), (2, 5), (3, 0), (5, 0), (6, 2), (8, 0)],
        ),
    ] {
        let bytes = std::fs::read(root().join("tests/fixtures/formats").join(name)).unwrap();
        let w = read_trace(
            name,
            &bytes,
            &SwfOptions::default(),
            &TraceOptions::default(),
        )
        .unwrap();
        let got: Vec<(i64, i64)> = w
            .jobs
            .iter()
            .zip(&w.logged_waits)
            .map(|(j, t)| (j.id, t.map_or(-1, |t| t.0 / 1000)))
            .collect();
        assert_eq!(got, expected, "{name}");
        // Through SWF and back: the same waits.
        let back = read_swf(
            "b.swf",
            write_swf(&w, &w.report.header).as_bytes(),
            &SwfOptions::default(),
        )
        .unwrap();
        assert_eq!(back.logged_waits, w.logged_waits, "{name}");
    }
}

/// Four jobs on a 2-processor machine, FCFS; the log says they waited 0, 100, -1 (unknown)
/// and 50 s.
/// - A (2 procs, 0–100) starts at once: simulated 0, logged 0.
/// - B (1 proc, submitted 10) waits for A: starts 100, simulated 90 against 100: error −10.
/// - C (1 proc, submitted 20) starts beside B at 100: no logged wait, not compared.
/// - D (2 procs, submitted 30, runs 10) waits for B and C (100 + 50): simulated 120
///   against 50: error +70.
///
/// Compared: A, B, D. Logged mean 50, simulated mean 70, mean error 20, mean |error|
/// 80/3, all within an hour; the log spans minutes, so no 14-day window.
#[test]
fn vs_log_reports_the_wait_errors_worked_out_by_hand() {
    let dir = std::env::temp_dir().join(format!("gridscope-vslog-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let swf = dir.join("log.swf");
    std::fs::write(
        &swf,
        "; MaxProcs: 2\n\
1 0 0 100 2 -1 -1 2 100 -1 1 1 -1 -1 -1 -1 -1 -1\n\
2 10 100 50 1 -1 -1 1 50 -1 1 1 -1 -1 -1 -1 -1 -1\n\
3 20 -1 50 1 -1 -1 1 50 -1 1 1 -1 -1 -1 -1 -1 -1\n\
4 30 50 10 2 -1 -1 2 10 -1 1 1 -1 -1 -1 -1 -1 -1\n",
    )
    .unwrap();
    let jobs = dir.join("jobs.csv");
    let o = gridscope(&[
        "simulate",
        swf.to_str().unwrap(),
        "--policy",
        "fcfs",
        "--vs-log",
        "--json",
        "--jobs",
        jobs.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let r = &v["runs"][0]["vs_log"];
    assert_eq!(r["jobs"], 3);
    assert_eq!(r["jobs_without_logged_wait"], 1);
    assert_eq!(r["jobs_not_run"], 0);
    assert_eq!(r["logged_mean_wait_s"], 50.0);
    assert_eq!(r["simulated_mean_wait_s"], 70.0);
    assert_eq!(r["mean_error_s"], 20.0);
    assert!((r["mean_abs_error_s"].as_f64().unwrap() - 80.0 / 3.0).abs() < 1e-12);
    assert_eq!(r["within_hour"], 1.0);
    assert_eq!(r["window_days"], 14);
    assert_eq!(r["windows"], 0);
    assert!(r["moving_mape_percent"].is_null());
    // One partition (field 16 is -1 throughout): no breakdown.
    assert!(r["by_partition"].is_null());
    let csv = std::fs::read_to_string(&jobs).unwrap();
    assert_eq!(
        csv,
        "job_id,home,site,submit,start,end,procs,logged_wait\n\
1,log,log,0,0,100,2,0\n\
2,log,log,10,100,150,1,100\n\
3,log,log,20,100,150,1,\n\
4,log,log,30,150,160,2,50\n"
    );
    // The table says the same.
    let o = gridscope(&[
        "simulate",
        swf.to_str().unwrap(),
        "--policy",
        "fcfs",
        "--vs-log",
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("against the log's waits (3 jobs compared; 1 without a logged wait"),
        "{text}"
    );
    // A log that records no wait is an error, not an empty comparison.
    let bare = dir.join("bare.swf");
    std::fs::write(&bare, "1 0 -1 100 2 -1 -1 2 100 -1 1 1 -1 -1 -1 -1 -1 -1\n").unwrap();
    let o = gridscope(&[
        "simulate",
        bare.to_str().unwrap(),
        "--policy",
        "fcfs",
        "--vs-log",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("records no job's wait"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A real log whose recorded waits are a run's own schedule: KTH-SP2 under EASY, its
/// simulated waits written back as the log's. Set against itself, EASY's errors are all 0
/// (and the moving-average MAPE too, over the year's windows); FCFS on the same log is far
/// off.
#[test]
fn a_schedule_set_against_itself_scores_zero_on_a_real_trace() {
    let path = trace("KTH-SP2-1996-2.1-cln.swf.gz");
    let bytes = std::fs::read(&path).unwrap();
    let mut w = read_swf("kth", &bytes, &SwfOptions::default()).unwrap();
    let platform = Platform::single(Site::flat("kth", 100));
    let easy = |jobs: &[gridscope::model::Job], policy| {
        Simulation::new(
            &platform,
            jobs,
            policy,
            GridScheme::Local,
            &GridParams::default(),
            &RunConfig::default(),
        )
        .unwrap()
        .run(&mut |_, _| true)
        .unwrap()
        .outcomes
    };
    let own = easy(&w.jobs, LocalPolicyKind::Easy);
    w.logged_waits = w
        .jobs
        .iter()
        .zip(&own)
        .map(|(j, o)| o.ran().then(|| o.start - j.submit))
        .collect();
    let v = gridscope::metrics::vs_log(&w.jobs, &w.logged_waits, &own).unwrap();
    assert_eq!(v.jobs, w.jobs.len() as u64);
    assert_eq!(
        (v.mean_error_s, v.mean_abs_error_s, v.within_hour),
        (0.0, 0.0, 1.0)
    );
    assert!(v.windows > 7000, "{} windows", v.windows);
    assert_eq!(
        (v.moving_mape_percent, v.moving_mae_s),
        (Some(0.0), Some(0.0))
    );
    assert!(!v.curve.is_empty() && v.curve.len() <= 400);
    let fcfs = easy(&w.jobs, LocalPolicyKind::Fcfs);
    let f = gridscope::metrics::vs_log(&w.jobs, &w.logged_waits, &fcfs).unwrap();
    assert!(
        f.mean_error_s > 0.0 && f.moving_mape_percent.unwrap() > 100.0,
        "{f:?}"
    );
}
