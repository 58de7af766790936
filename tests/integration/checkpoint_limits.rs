//! Checkpointing per job and within the wallclock limit (issue #41, docs/failures.md): a
//! job's Young interval from its own mean time between failures M/k, and runs whose
//! checkpoints push them past their limit, killed there. Hand cases worked out in their
//! comments; the engine's invariant check (run lengths, kill status, the log of cut runs)
//! runs at the end of each.

use gridscope::engine::JobOutcome;
use gridscope::failure::{Checkpointing, Dist, FailureModel, Interval, Outages};
use gridscope::model::{fewest_nodes, Demand, NodeType};
use gridscope::policy::local::LocalPolicyKind;
use gridscope::scenario::failures::run_failures;
use gridscope::time::SimTime;

use crate::checkpoint::simulate_with_outages;
use crate::failures::{down, job, nodes, run, spans};

fn node_type(cores: u32, mem_kb: u64, gpus: u32) -> NodeType {
    NodeType {
        name: String::new(),
        count: 4,
        cores,
        mem_kb,
        gpus,
        power: None,
        exclusive: false,
    }
}

/// The fewest nodes that hold a job: by cores, memory per processor (which adds up) and
/// GPUs, on the type that needs the fewest; its own node count when it names one.
#[test]
fn fewest_nodes_reads_cores_memory_and_gpus() {
    let none = Demand::default();
    let small = node_type(8, 16_000, 0);
    let gpu = node_type(4, 64_000, 2);
    assert_eq!(fewest_nodes(1, &none, std::slice::from_ref(&small)), 1);
    assert_eq!(fewest_nodes(16, &none, std::slice::from_ref(&small)), 2);
    assert_eq!(fewest_nodes(17, &none, std::slice::from_ref(&small)), 3);
    // 4 processors × 8,000 KB: 32,000 KB, two 16,000 KB nodes (or one 64,000 KB node).
    let mem = Demand {
        mem_kb: 8_000,
        ..none
    };
    assert_eq!(fewest_nodes(4, &mem, std::slice::from_ref(&small)), 2);
    assert_eq!(fewest_nodes(4, &mem, &[small.clone(), gpu.clone()]), 1);
    // Per-node memory does not add up; a node type too small for it is out.
    let per_node = Demand {
        mem_kb: 32_000,
        mem_per_node: true,
        ..none
    };
    assert_eq!(fewest_nodes(8, &per_node, &[small.clone(), gpu.clone()]), 2);
    // 5 GPUs on 2-GPU nodes: 3; no GPU type holds them: 1 (no placement to read).
    let gpus = Demand { gpus: 5, ..none };
    assert_eq!(fewest_nodes(1, &gpus, &[small.clone(), gpu]), 3);
    assert_eq!(fewest_nodes(1, &gpus, std::slice::from_ref(&small)), 1);
    let named = Demand { nodes: 6, ..none };
    assert_eq!(fewest_nodes(1, &named, &[small]), 6);
    assert_eq!(fewest_nodes(64, &none, &[]), 1);
}

/// Young's interval per job: M/k for a job on k nodes. Exponential failures of mean
/// 10⁹ s (none in a run this short), C = 0.05 s: a one-node job's τ is √(2·0.05·10⁹) =
/// 10,000 s, a four-node job's √(2·0.05·2.5·10⁸) = 5,000 s. Both have 12,000 s of work:
/// one checkpoint (12,000.05 s) against two (12,000.1 s). With the node's M for both, both
/// write one.
#[test]
fn a_job_on_more_nodes_checkpoints_more_often() {
    let p = nodes(8, 1);
    let jobs = [job(0, 0, 1, 12_000, 12_000), job(1, 0, 4, 12_000, 12_000)];
    let model = FailureModel {
        name: "rare".into(),
        up: Dist::Exponential { mean: 1e9 },
        down: Dist::Exponential { mean: 10.0 },
        unit_s: 1.0,
        share: None,
    };
    let young = |per_job| Outages {
        model: Some(model.clone()),
        checkpoint: Some(Checkpointing {
            per_job,
            ..Checkpointing::every(Interval::Young, 0.05, 0.0)
        }),
        ..Outages::default()
    };
    let out = run(&p, &jobs, LocalPolicyKind::Fcfs, young(true)).expect("runs");
    let log = out.failures.as_ref().expect("a failure log");
    assert!(log.killed.is_empty(), "no failure in 12,000 s of M = 10⁹ s");
    let ends: Vec<i64> = out.outcomes.iter().map(|o| o.end.0).collect();
    assert_eq!(ends, [12_000_050, 12_000_100]);
    let c = run_failures(&p, &jobs, &out.outcomes, log)
        .checkpoint
        .expect("checkpointing reported");
    assert_eq!(c.interval_s, 10_000.0);
    assert_eq!(c.interval_range_s, Some([5_000.0, 10_000.0]));
    assert_eq!(c.checkpoints, 3);
    let out = run(&p, &jobs, LocalPolicyKind::Fcfs, young(false)).expect("runs");
    let ends: Vec<i64> = out.outcomes.iter().map(|o| o.end.0).collect();
    assert_eq!(ends, [12_000_050, 12_000_050]);
    // A fixed interval is the same for every job: per job, it is refused.
    let fixed = Outages {
        checkpoint: Some(Checkpointing {
            per_job: true,
            ..Checkpointing::every(Interval::Fixed(30.0), 5.0, 0.0)
        }),
        ..Outages::default()
    };
    let e = run(&p, &jobs, LocalPolicyKind::Fcfs, fixed).unwrap_err();
    assert!(e.to_string().contains("per-job checkpoint interval"), "{e}");
}

fn within_limit(interval_s: f64, cost_s: f64, restart_s: f64, within: bool) -> Checkpointing {
    Checkpointing {
        within_limit: within,
        ..Checkpointing::every(Interval::Fixed(interval_s), cost_s, restart_s)
    }
}

/// One one-core node. Job 0: 100 s of work, limit 100 s, a checkpoint every 30 s at C =
/// 10 s: 100 + 3·10 = 130 s in all. Counted against its limit, the run is killed at 100:
/// work 0–30, checkpoint 30–40, work 40–70, checkpoint 70–80, work 80–100 — 80 s done,
/// 20 s undone, 20 s of overhead. Job 1 (submitted at 1, 10 s) is planned behind the
/// limit, so it runs 100–110 (under EASY too: the head's reservation is at 100). Taken to
/// include the checkpoints (the default), job 0 runs to 130 and job 1 130–140.
#[test]
fn checkpoints_counted_against_the_limit_kill_the_run_there() {
    let p = nodes(1, 1);
    let jobs = [job(0, 0, 1, 100, 100), job(1, 1, 1, 10, 10)];
    for policy in [
        LocalPolicyKind::Fcfs,
        LocalPolicyKind::Easy,
        LocalPolicyKind::Conservative,
    ] {
        let outages = |within| Outages {
            checkpoint: Some(within_limit(30.0, 10.0, 0.0, within)),
            ..Outages::default()
        };
        let out = run(&p, &jobs, policy, outages(true)).expect("runs");
        assert_eq!(spans(&out), [(0, 100), (100, 110)], "{policy:?}");
        assert_eq!(out.outcomes[0].status, JobOutcome::Killed);
        assert_eq!(out.outcomes[1].status, JobOutcome::Finished);
        let log = out.failures.as_ref().expect("a failure log");
        assert_eq!(
            log.cut_at_limit,
            [SimTime::from_secs(20), SimTime::ZERO],
            "{policy:?}"
        );
        let f = run_failures(&p, &jobs, &out.outcomes, log);
        let c = f.checkpoint.clone().expect("checkpointing reported");
        let h = |s: f64| s / 3600.0;
        assert_eq!((c.checkpoints, c.cut_at_limit), (2, Some(1)));
        assert!((c.work_unfinished_core_h.unwrap() - h(20.0)).abs() < 1e-12);
        assert!((c.overhead_core_h - h(20.0)).abs() < 1e-12, "{c:?}");
        assert!((f.useful_core_h - h(80.0 + 10.0)).abs() < 1e-12, "{f:?}");
        let out = run(&p, &jobs, policy, outages(false)).expect("runs");
        assert_eq!(spans(&out), [(0, 130), (130, 140)], "{policy:?}");
        assert_eq!(out.outcomes[0].status, JobOutcome::Finished);
        let log = out.failures.as_ref().expect("a failure log");
        let c = run_failures(&p, &jobs, &out.outcomes, log)
            .checkpoint
            .unwrap();
        assert_eq!((c.cut_at_limit, c.work_unfinished_core_h), (None, None));
    }
}

/// A requeued job keeps its limit. Job 0 as above (every 30 s, C = 10 s) is killed by a
/// failure at 50: 30 s saved (its checkpoint 30–40), and the node is back at 60. With no
/// restart cost its second run is 70 s of work and 2 checkpoints: 90 s, inside its limit,
/// 60–150. With R = 20 s it would be 110 s: killed at 160, having done 60 s of the 70 s
/// left (restart 60–80, work 80–110, checkpoint 110–120, work 120–150, checkpoint
/// 150–160 cut short).
#[test]
fn a_resumed_run_keeps_the_limit() {
    let p = nodes(1, 1);
    let jobs = [job(0, 0, 1, 100, 100)];
    let outages = |restart_s| Outages {
        windows: vec![down(0, 50, 60)],
        checkpoint: Some(within_limit(30.0, 10.0, restart_s, true)),
        ..Outages::default()
    };
    let out = run(&p, &jobs, LocalPolicyKind::Fcfs, outages(0.0)).expect("runs");
    assert_eq!(spans(&out), [(60, 150)]);
    assert_eq!(out.outcomes[0].status, JobOutcome::Finished);
    let out = run(&p, &jobs, LocalPolicyKind::Fcfs, outages(20.0)).expect("runs");
    assert_eq!(spans(&out), [(60, 160)]);
    assert_eq!(out.outcomes[0].status, JobOutcome::Killed);
    let log = out.failures.as_ref().expect("a failure log");
    assert_eq!(log.cut_at_limit, [SimTime::from_secs(10)]);
    let c = run_failures(&p, &jobs, &out.outcomes, log)
        .checkpoint
        .unwrap();
    // 1 checkpoint in the killed run, 2 in the cut one; one restart.
    assert_eq!((c.checkpoints, c.restarts), (3, 1));
}

/// `simulate --checkpoint-per-job --checkpoint-within-limit` and the scenario's version 9:
/// written only with one of them, a version-8 file that has one is refused by name.
#[test]
fn the_cli_and_the_scenario_carry_both_switches() {
    use gridscope::scenario::{Scenario, CHECKPOINT_VERSION};
    let out = simulate_with_outages(&["--checkpoint", "30", "--checkpoint-within-limit", "--json"]);
    assert!(out.status.success(), "{}", crate::cli::stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let c = &v["runs"][0]["failures"]["checkpoint"];
    assert!(c["cut_at_limit"].is_u64(), "{c}");
    assert!(c["work_unfinished_core_h"].is_f64(), "{c}");
    assert!(c.get("interval_range_s").is_none(), "{c}");
    let out = simulate_with_outages(&["--checkpoint", "30", "--checkpoint-per-job"]);
    assert!(!out.status.success());
    assert!(
        crate::cli::stderr(&out).contains("per-job checkpoint interval"),
        "{}",
        crate::cli::stderr(&out)
    );
    let scenario = |version: u32, checkpoint: &str| {
        format!(
            r#"{{"version": {version}, "name": "x",
            "platform": {{"kind": "sites", "name": "x", "sites": [{{"name": "x", "nodes": 2,
                "cpus_per_node": 4, "node_types": [{{"count": 2, "cores": 4}}]}}]}},
            "workload": {{"kind": "swf", "file": "x.swf"}},
            "algorithms": [{{"local": "fcfs"}}],
            "failures": {{"checkpoint": {checkpoint}}}}}"#
        )
    };
    let plain = r#"{"interval": {"fixed": 60}, "cost_s": 5, "restart_s": 5}"#;
    let kept = r#"{"interval": {"fixed": 60}, "cost_s": 5, "restart_s": 5, "within_limit": true}"#;
    let s = Scenario::from_json(&scenario(4, plain)).expect("a version-4 scenario");
    assert_eq!(s.version, 4);
    assert!(!s.to_json().contains("within_limit"));
    let s = Scenario::from_json(&scenario(9, kept)).expect("a version-9 scenario");
    assert_eq!(s.version, CHECKPOINT_VERSION);
    assert_eq!(Scenario::from_json(&s.to_json()).expect("reads back"), s);
    let e = Scenario::from_json(&scenario(8, kept)).unwrap_err();
    assert!(e.to_string().contains("version 9"), "{e}");
}
