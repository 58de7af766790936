//! Issue #30: inputs that used to pass silently (a negative or repeated job id rewritten,
//! a job wider than any machine run anyway, an SF arrival CV whose c² overflows) and the
//! bounds on memory and time. Each asserts the clear message or the correct result.

use crate::cli::{gridscope, stderr};
use crate::root;

fn scratch(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("gridscope-hardening-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A job id of −3 used to be written as 0 in `--jobs`: ids round-trip, negative or repeated.
#[test]
fn negative_and_repeated_job_ids_round_trip_in_the_jobs_csv() {
    let dir = scratch("ids");
    let csv = dir.join("jobs.csv");
    let trace = root().join("tests/bad_inputs/negative-ids.swf");
    let o = gridscope(&[
        "simulate",
        trace.to_str().unwrap(),
        "--policy",
        "easy",
        "--jobs",
        csv.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&csv).unwrap();
    let ids: Vec<&str> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap())
        .collect();
    assert_eq!(ids, ["-3", "-3"], "{text}");
    // `explain` finds a job by its negative id.
    let o = gridscope(&[
        "explain",
        trace.to_str().unwrap(),
        "--policy",
        "easy",
        "--job",
        "-3",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// A job asking for 10¹² CPUs is clamped to 2³² − 1 on import, which no site can have:
/// every run rejects it as too wide, whatever the platform is sized from.
#[test]
fn a_job_wider_than_any_site_is_rejected_not_run() {
    let trace = root().join("tests/bad_inputs/huge-procs.swf");
    for extra in [&[][..], &["--procs", "4294967294"][..]] {
        let mut args = vec![
            "simulate",
            trace.to_str().unwrap(),
            "--policy",
            "easy",
            "--json",
        ];
        args.extend_from_slice(extra);
        let o = gridscope(&args);
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(out.contains("\"jobs_rejected\": 1"), "{extra:?}: {out}");
        assert!(out.contains("\"jobs_finished\": 0"), "{extra:?}: {out}");
    }
    // A site of 2³² − 1 processors (where the clamped job would fit) is refused.
    let o = gridscope(&[
        "simulate",
        trace.to_str().unwrap(),
        "--policy",
        "easy",
        "--procs",
        "4294967295",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("a site can have at most 4294967294"),
        "{}",
        stderr(&o)
    );
}

/// CV 10¹⁵⁵ made c² infinite, every gap NaN and every batch arrive at t = 0, with exit 0.
#[test]
fn an_sf_arrival_cv_past_its_bound_is_an_error_and_1e9_still_runs() {
    let run = |cv: &str| {
        gridscope(&[
            "run",
            "--preset",
            "sf-batch",
            "--cv",
            cv,
            "--seeds",
            "1",
            "--batches",
            "300",
            "--x",
            "2",
        ])
    };
    for cv in ["1e155", "1e10", "inf"] {
        let o = run(cv);
        assert_eq!(o.status.code(), Some(1), "CV {cv}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("arrival CV must be at most 10⁹") || cv == "inf",
            "{}",
            stderr(&o)
        );
    }
    let o = run("1e9");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(!out.contains("NaN") && !out.contains("inf"), "{out}");
}

/// An order-1000 hyper-Erlang drawing 5 M jobs took 80 s with no bound: its draws (jobs ×
/// orders) are held to `--max-generator-draws`, before anything is drawn, on every edge
/// (`check_limits` is what the page runs on a shared link).
#[test]
fn a_hyper_erlang_of_order_1000_and_5m_jobs_is_refused_before_drawing() {
    use gridscope::limits::{Limit, Limits};
    use gridscope::scenario::{load_workload, Scenario, ScenarioError, WorkloadSpec};
    let mut s = Scenario::preset("sob-synthetic-heavy").unwrap();
    let WorkloadSpec::HyperErlang { sites } = &mut s.workload else {
        panic!("sob-synthetic-heavy is a hyper-Erlang scenario")
    };
    sites.truncate(1);
    let g = &mut sites[0];
    let mut classes = g.resolved_classes().unwrap();
    for c in &mut classes {
        // Order 1000 with the same means: each sample is 1000 draws.
        for d in [&mut c.interarrival, &mut c.service] {
            let k = 1000.0 / f64::from(d.n);
            d.n = 1000;
            d.lambda1 *= k;
            d.lambda2 *= k;
        }
    }
    g.classes = Some(classes);
    g.arrival_rate_factor *= 5.0e6 / g.expected_jobs().unwrap();
    assert!((g.expected_jobs().unwrap() - 5.0e6).abs() < 1.0);
    let l = Limits::default();
    let e = s.check_limits(&l).unwrap_err();
    assert_eq!(e.limit, Limit::GeneratorDraws, "{e}");
    assert!(e.to_string().contains("--max-generator-draws"), "{e}");
    let t = std::time::Instant::now();
    match load_workload(&s, &l, &mut |_| unreachable!()) {
        Err(ScenarioError::Limit(e)) => assert_eq!(e.limit, Limit::GeneratorDraws),
        other => panic!("{:?}", other.map(|w| w.jobs.len())),
    }
    assert!(t.elapsed().as_secs_f64() < 1.0, "refused before drawing");
}

/// `--series 100000` on 1,000 sites allocated 4 GiB and aborted: series points × sites ×
/// runs are held to `--max-series-points`, checked before the run when the scenario names
/// its sites.
#[test]
fn series_points_times_sites_are_bounded_before_the_run() {
    let dir = scratch("series");
    std::fs::write(
        dir.join("w.swf"),
        "1 0 0 100 1 -1 -1 1 100 -1 1 1 1 -1 -1 -1 -1 -1\n".repeat(5),
    )
    .unwrap();
    std::fs::write(dir.join("wide.json"), crate::limits::many_sites(1000)).unwrap();
    let scenario = dir.join("wide.json");
    let t = std::time::Instant::now();
    let o = gridscope(&[
        "run",
        scenario.to_str().unwrap(),
        "--series",
        "100000",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains(
            "--series 100000 on 1000 sites × 1 runs: more than 4,000,000 time-series points"
        ) && e.contains("--max-series-points"),
        "{e}"
    );
    assert!(t.elapsed().as_secs_f64() < 10.0);
    // Within the limit the same scenario gives its series, one per site.
    let o = gridscope(&[
        "run",
        scenario.to_str().unwrap(),
        "--series",
        "100",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        v["runs"][0]["series"]["sites"].as_array().unwrap().len(),
        1000
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A same-instant backlog costs conservative backfilling about N³: its plan work is held
/// to `--max-plan-work` (the default lets RICC-2010-2, the costliest shared trace, run),
/// and the run ends with the limit's message instead of running for hours.
#[test]
fn a_conservative_backlog_is_bounded_by_its_plan_work() {
    let dir = scratch("backlog");
    let mut swf = String::new();
    let mut rng = gridscope::rng::SimRng::new(1);
    for i in 1..=1000 {
        let (run, procs) = (rng.range_u64(1, 3600), rng.range_u64(1, 64));
        swf += &format!(
            "{i} 0 0 {run} {procs} -1 -1 {procs} {} -1 1 1 1 -1 -1 -1 -1 -1\n",
            2 * run
        );
    }
    let trace = dir.join("backlog.swf");
    std::fs::write(&trace, swf).unwrap();
    for policy in ["conservative", "conservative-rebuild"] {
        let args = [
            "simulate",
            trace.to_str().unwrap(),
            "--policy",
            policy,
            "--procs",
            "128",
        ];
        let o = gridscope(&[&args[..], &["--max-plan-work", "1000000"]].concat());
        assert_eq!(o.status.code(), Some(1), "{policy}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(
            e.contains(&format!("{policy} at site 'backlog' by t = "))
                && e.contains("more than 1,000,000 steps of work conservative backfilling")
                && e.contains("--max-plan-work"),
            "{e}"
        );
        let o = gridscope(&args);
        assert_eq!(o.status.code(), Some(0), "{policy}: {}", stderr(&o));
    }
    // Other policies count no plan work: the same limit does not stop them.
    let o = gridscope(&[
        "simulate",
        trace.to_str().unwrap(),
        "--policy",
        "easy",
        "--procs",
        "128",
        "--max-plan-work",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).ok();
}
