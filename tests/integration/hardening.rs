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
