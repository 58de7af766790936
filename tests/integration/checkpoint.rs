//! Checkpointing in a run (issue #41, docs/failures.md): a hand case of a restart after a
//! checkpoint, worked out in its comment, and the statistical check against the analytic
//! model — one node, exponential failures of mean M, a long job checkpointing every τ at
//! cost C — through the engine itself: over many seeds the simulated waste matches the
//! exact expectation within its confidence interval, the first-order `C/τ + τ/(2M)` within
//! that plus the formula's own error, and Young's τ wastes least of the intervals tried.

use gridscope::engine::JobOutcome;
use gridscope::failure::checkpoint::{first_order_waste, young_interval};
use gridscope::failure::{Checkpointing, Dist, FailureModel, Interval, OnFailure, Outages};
use gridscope::policy::local::LocalPolicyKind;
use gridscope::scenario::failures::run_failures;
use gridscope::time::SimTime;

use crate::failures::{down, job, nodes, run, spans};

/// [`crate::failures::simulate_fixture`] with tests/fixtures/outages.csv (node 0 down from
/// 50 to 70 s), then `extra`.
pub(crate) fn simulate_with_outages(extra: &[&str]) -> std::process::Output {
    let csv = crate::root().join("tests/fixtures/outages.csv");
    let csv = csv.display().to_string();
    crate::failures::simulate_fixture(&[&["--outages", &csv], extra].concat())
}

fn every(interval_s: f64, cost_s: f64, restart_s: f64) -> Checkpointing {
    Checkpointing::every(Interval::Fixed(interval_s), cost_s, restart_s)
}

/// One node of 4 cores. Job 0 (4 cores, 100 s of work, estimate 200 s) checkpoints every
/// 30 s of work at C = 5 s; a restart costs R = 10 s. Its first run from 0: work to 30, a
/// checkpoint to 35, work again, until the node fails at 50 — one checkpoint written, 30 s
/// saved, 15 s of work lost. It goes back to the end of the queue, behind job 1 (submitted
/// at 1, 4 cores, 10 s, one piece of work: no checkpoint), which runs when the node is back,
/// 60 to 70. Then job 0 resumes: R to 80, then 70 s of work with ⌈70/30⌉ − 1 = 2
/// checkpoints on the way: 10 + 70 + 10 = 90 s, to 160.
#[test]
fn a_requeued_job_resumes_from_its_last_checkpoint() {
    let p = nodes(1, 4);
    let jobs = [job(0, 0, 4, 100, 200), job(1, 1, 4, 10, 20)];
    for policy in [LocalPolicyKind::Fcfs, LocalPolicyKind::Easy] {
        let outages = Outages {
            windows: vec![down(0, 50, 60)],
            on_failure: OnFailure::Requeue,
            checkpoint: Some(every(30.0, 5.0, 10.0)),
            ..Outages::default()
        };
        let out = run(&p, &jobs, policy, outages).expect("runs");
        assert_eq!(spans(&out), [(70, 160), (60, 70)], "{policy:?}");
        let log = out.failures.as_ref().expect("a failure log");
        assert_eq!(log.killed.len(), 1);
        assert_eq!(log.killed[0].saved, SimTime::from_secs(30));
        let f = run_failures(&p, &jobs, &out.outcomes, log);
        let c = f.checkpoint.clone().expect("checkpointing reported");
        // 1 checkpoint in the killed run, 2 in the last; one restart.
        assert_eq!((c.checkpoints, c.restarts), (3, 1));
        // Overhead: 5 + 10 + 2·5 = 25 s on 4 cores; saved 30 s on 4 cores; lost 15 s.
        let h = |s: f64| 4.0 * s / 3600.0;
        assert!((c.overhead_core_h - h(25.0)).abs() < 1e-9, "{c:?}");
        assert!((c.work_saved_core_h - h(30.0)).abs() < 1e-9);
        assert!((f.work_lost_core_h - h(15.0)).abs() < 1e-9, "{f:?}");
        // Useful: job 0's 100 s and job 1's 10 s.
        assert!((f.useful_core_h - h(110.0)).abs() < 1e-9, "{f:?}");
        let spent = h(50.0 + 90.0 + 10.0);
        assert!((f.goodput - h(110.0) / spent).abs() < 1e-9);
    }
}

/// A failure during the restart or before the first checkpoint saves nothing; a run
/// killed during a checkpoint keeps only the checkpoints already written.
#[test]
fn only_written_checkpoints_are_saved() {
    let p = nodes(1, 1);
    let jobs = [job(0, 0, 1, 100, 100)];
    // Killed at 20, before its first checkpoint (at 30): nothing saved. The node is down
    // to 70; the next run has no checkpoint to read, so it pays no R and starts afresh.
    let outages = Outages {
        windows: vec![down(0, 20, 70), down(0, 102, 110)],
        checkpoint: Some(every(30.0, 5.0, 10.0)),
        ..Outages::default()
    };
    let out = run(&p, &jobs, LocalPolicyKind::Fcfs, outages).expect("runs");
    let log = out.failures.as_ref().expect("a failure log");
    // Second run from 70: work to 100, checkpoint 100-105; the node fails at 102, during
    // it: nothing saved. Third run from 110, from scratch again: 100 + 3·5 = 115 s, to 225.
    assert_eq!(log.killed.len(), 2);
    assert_eq!(log.killed[0].saved, SimTime::ZERO);
    assert_eq!(log.killed[1].saved, SimTime::ZERO);
    assert_eq!(spans(&out), [(110, 225)]);
    assert_eq!(out.outcomes[0].status, JobOutcome::Finished);
}

/// Young's and Daly's intervals need a failure model; a negative cost is refused.
#[test]
fn a_checkpoint_without_its_mtbf_is_refused() {
    let p = nodes(1, 1);
    let jobs = [job(0, 0, 1, 100, 100)];
    let young = Outages {
        windows: vec![down(0, 20, 70)],
        checkpoint: Some(Checkpointing::every(Interval::Young, 5.0, 0.0)),
        ..Outages::default()
    };
    let e = run(&p, &jobs, LocalPolicyKind::Fcfs, young).unwrap_err();
    assert!(e.to_string().contains("need a failure model"), "{e}");
    let negative = Outages {
        windows: vec![down(0, 20, 70)],
        checkpoint: Some(every(30.0, -1.0, 0.0)),
        ..Outages::default()
    };
    let e = run(&p, &jobs, LocalPolicyKind::Fcfs, negative).unwrap_err();
    assert!(e.to_string().contains("checkpoint cost"), "{e}");
}

/// Mean waste `(wall − downtime)/work − 1` of one job of `pieces` × τ of work on one node
/// with exponential failures of mean `mtbf_s` (repairs of mean 10 s, whose time is taken
/// out), over `seeds` runs; with its standard error.
fn engine_waste(interval_s: f64, cost_s: f64, mtbf_s: f64, pieces: i64, seeds: u64) -> (f64, f64) {
    let p = nodes(1, 1);
    let tau = SimTime::from_secs_f64(interval_s);
    let work = tau.0 * pieces;
    let jobs = [gridscope::model::Job {
        runtime: SimTime(work),
        estimate: SimTime(work),
        ..job(0, 0, 1, 1, 1)
    }];
    let model = FailureModel {
        name: "exp".into(),
        up: Dist::Exponential { mean: mtbf_s },
        down: Dist::Exponential { mean: 10.0 },
        unit_s: 1.0,
        share: None,
    };
    let mut wastes = Vec::new();
    for seed in 0..seeds {
        let outages = Outages {
            model: Some(model.clone()),
            seed,
            max_requeue: u32::MAX,
            checkpoint: Some(every(interval_s, cost_s, 0.0)),
            ..Outages::default()
        };
        let out = run(&p, &jobs, LocalPolicyKind::Fcfs, outages).expect("runs");
        assert_eq!(out.outcomes[0].status, JobOutcome::Finished);
        let log = out.failures.expect("a failure log");
        let end = out.outcomes[0].end;
        let down: i64 = log
            .downtimes
            .iter()
            .map(|d| (d.end.min(end) - d.start).0.max(0))
            .sum();
        wastes.push((end.0 - down) as f64 / work as f64 - 1.0);
    }
    let n = wastes.len() as f64;
    let mean = wastes.iter().sum::<f64>() / n;
    let var = wastes.iter().map(|w| (w - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, (var / n).sqrt())
}

/// The exact expected waste of that job: each of its first `n − 1` pieces takes τ + C and
/// its last τ, and a piece of length L takes `M·(e^{L/M} − 1)` on average under exponential
/// failures when a failure loses the piece (no restart cost).
fn exact_job_waste(interval_s: f64, cost_s: f64, mtbf_s: f64, pieces: i64) -> f64 {
    let piece = |l: f64| mtbf_s * (l / mtbf_s).exp_m1();
    let wall = (pieces - 1) as f64 * piece(interval_s + cost_s) + piece(interval_s);
    wall / (pieces as f64 * interval_s) - 1.0
}

#[test]
fn simulated_waste_matches_the_analytic_model_and_young_minimises_it() {
    // (M, C): τ + C ≪ M in both, where the first-order formula is meant to hold.
    for (mtbf_s, cost_s) in [(20_000.0, 20.0), (50_000.0, 60.0)] {
        let young = young_interval(cost_s, mtbf_s);
        let mut by_tau = Vec::new();
        for factor in [0.25, 0.5, 1.0, 2.0, 4.0] {
            let tau = (young * factor).round();
            // About 40 h of work: tens of failures a job.
            let pieces = (40.0 * 3600.0 / tau).round() as i64;
            let (mean, se) = engine_waste(tau, cost_s, mtbf_s, pieces, 120);
            let exact = exact_job_waste(tau, cost_s, mtbf_s, pieces);
            let first = first_order_waste(tau, cost_s, mtbf_s);
            eprintln!(
                "M={mtbf_s} C={cost_s} tau={tau} ({factor}·Young): simulated {mean:.5} ± {se:.5}, exact {exact:.5}, first-order {first:.5}"
            );
            assert!(
                (mean - exact).abs() <= 3.0 * se,
                "τ={tau}: simulated {mean} ± {se} against the exact {exact}"
            );
            assert!(
                (mean - first).abs() <= 3.0 * se + (exact - first).abs(),
                "τ={tau}: simulated {mean} ± {se} against the first-order {first}"
            );
            by_tau.push((mean, factor));
        }
        let best = by_tau
            .iter()
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .expect("five intervals");
        assert_eq!(best.1, 1.0, "M={mtbf_s}: {by_tau:?}");
    }
}

/// `simulate --checkpoint`: the checkpoint table, and the errors of an interval that is not
/// one and of Young's without a model.
#[test]
fn the_cli_checkpoints_and_names_bad_intervals() {
    let with = simulate_with_outages;
    // Job 1 (100 s on node 0) is killed at 50 after its checkpoint at 30 (written 30-35).
    let out = with(&[
        "--checkpoint",
        "30",
        "--checkpoint-cost",
        "5",
        "--restart-cost",
        "10",
    ]);
    assert!(out.status.success(), "{}", crate::cli::stderr(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("checkpointing: every 30 s of work, C = 5 s, R = 10 s"),
        "{stdout}"
    );
    let row = stdout
        .lines()
        .skip_while(|l| !l.starts_with("checkpointing:"))
        .find(|l| l.starts_with("fcfs"))
        .expect("a checkpoint row");
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cells[2], "1", "one restart: {row}");
    let out = with(&["--checkpoint", "often"]);
    assert_eq!(out.status.code(), Some(2), "{}", crate::cli::stderr(&out));
    assert!(crate::cli::stderr(&out)
        .contains("--checkpoint often: expected young, daly or a number of seconds"));
    let out = with(&["--checkpoint", "young"]);
    assert!(!out.status.success());
    assert!(
        crate::cli::stderr(&out).contains("need a failure model"),
        "{}",
        crate::cli::stderr(&out)
    );
}

/// A scenario file with `failures` (version 4, jobs requeued at the front): it round-trips, `gridscope run` gives the
/// failure and checkpoint tables `simulate`'s flags give, and a bad outage names itself.
#[test]
fn a_scenario_carries_its_failures() {
    use gridscope::scenario::failures::{FailureSpec, OutageSpec};
    use gridscope::scenario::{
        read_platform_file, AlgorithmSpec, PlatformSpec, Scenario, WorkloadSpec, FAILURES_VERSION,
    };
    let root = crate::root();
    let fx = root.join("tests/fixtures");
    let sys = std::fs::read_to_string(fx.join("memory_decides.json")).unwrap();
    let platform = read_platform_file("memory_decides.json", &sys).unwrap();
    let spec = FailureSpec {
        model: None,
        seed: 0,
        outages: vec![OutageSpec {
            site: None,
            node: 0,
            start_s: 50,
            end_s: 70,
            kind: gridscope::failure::OutageKind::Failure,
        }],
        on_failure: OnFailure::Requeue,
        max_requeue: 5,
        requeue_at: gridscope::failure::RequeueAt::Front,
        checkpoint: Some(every(30.0, 5.0, 10.0)),
    };
    let scenario = Scenario {
        version: 2,
        name: "failures".into(),
        seed: 0,
        platform: PlatformSpec::Sites {
            name: platform.name,
            sites: platform.sites,
        },
        workload: WorkloadSpec::Swf {
            file: "memory_decides.swf".into(),
            strict: false,
            format: Default::default(),
            utc_offset_min: 0,
        },
        algorithms: vec![AlgorithmSpec::local(LocalPolicyKind::Fcfs)],
        options: Default::default(),
        failures: Some(spec),
        carbon: None,
    }
    .upgrade();
    assert_eq!(scenario.version, FAILURES_VERSION);
    let json = scenario.to_json();
    assert_eq!(Scenario::from_json(&json).expect("reads back"), scenario);
    let dir = std::env::temp_dir().join(format!("gridscope-ckpt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        fx.join("memory_decides.swf"),
        dir.join("memory_decides.swf"),
    )
    .unwrap();
    let file = dir.join("failures.json");
    std::fs::write(&file, &json).unwrap();
    let tables = |out: &std::process::Output| {
        assert!(out.status.success(), "{}", crate::cli::stderr(out));
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        let from = text
            .find("failures (docs/failures.md):")
            .expect("a failure table");
        text[from..].to_string()
    };
    let by_file = tables(&crate::cli::gridscope(&[
        "run",
        &file.display().to_string(),
    ]));
    let by_flags = tables(&crate::cli::gridscope(&[
        "simulate",
        &fx.join("memory_decides.swf").display().to_string(),
        "--platform",
        &fx.join("memory_decides.json").display().to_string(),
        "--policy",
        "fcfs",
        "--outages",
        &fx.join("outages.csv").display().to_string(),
        "--checkpoint",
        "30",
        "--checkpoint-cost",
        "5",
        "--restart-cost",
        "10",
        "--requeue-at",
        "front",
    ]));
    assert!(json.contains("\"requeue_at\": \"front\""), "{json}");
    assert!(by_file.contains("checkpointing: every 30 s"), "{by_file}");
    assert_eq!(by_file, by_flags);
    let bad = json.replace("\"end_s\": 70", "\"end_s\": 40");
    std::fs::write(&file, bad).unwrap();
    let out = crate::cli::gridscope(&["run", &file.display().to_string()]);
    assert!(
        crate::cli::stderr(&out)
            .contains("failures: outage 0 ends at 40 s, not after its start at 50 s"),
        "{}",
        crate::cli::stderr(&out)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Correlated failures (OpenDC's way): each event takes `share` of the site's nodes down
/// over the same span; the run keeps its invariants (the node check every run ends with),
/// the same seed gives the same run, and a share outside (0, 1] names the field.
#[test]
fn correlated_failures_take_a_share_of_the_site_at_once() {
    let p = nodes(10, 2);
    let jobs: Vec<_> = (0..200)
        .map(|i| job(i, i * 300, 1 + (i as u32 % 4), 2000 + (i % 7) * 500, 6000))
        .collect();
    let model = FailureModel {
        name: "site-wide".into(),
        up: Dist::Exponential { mean: 20_000.0 },
        down: Dist::Exponential { mean: 2_000.0 },
        unit_s: 1.0,
        share: Some(0.3),
    };
    let outages = |seed| Outages {
        model: Some(model.clone()),
        seed,
        checkpoint: Some(every(600.0, 10.0, 10.0)),
        ..Outages::default()
    };
    for policy in [LocalPolicyKind::Fcfs, LocalPolicyKind::Easy] {
        let out = run(&p, &jobs, policy, outages(3)).expect("runs");
        let log = out.failures.as_ref().expect("a failure log");
        assert!(log.downtimes.len() >= 6, "{}", log.downtimes.len());
        // Each event: 3 of the 10 nodes, down together.
        let mut spans: Vec<(SimTime, SimTime)> =
            log.downtimes.iter().map(|d| (d.start, d.end)).collect();
        spans.sort_unstable();
        for group in spans.chunk_by(|a, b| a == b) {
            assert_eq!(group.len() % 3, 0, "{group:?}");
        }
        let again = run(&p, &jobs, policy, outages(3)).expect("runs");
        assert_eq!(out.outcomes, again.outcomes);
        let other = run(&p, &jobs, policy, outages(4)).expect("runs");
        assert_ne!(out.failures, other.failures);
    }
    let bad = Outages {
        model: Some(FailureModel {
            share: Some(1.5),
            ..model.clone()
        }),
        ..Outages::default()
    };
    let e = run(&p, &jobs, LocalPolicyKind::Fcfs, bad).unwrap_err();
    assert!(e.to_string().contains("share must be a fraction"), "{e}");
}
