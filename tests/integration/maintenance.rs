//! Known maintenance windows (issue #41): the schedulers plan around them. A job never
//! starts on a node when its estimate would overlap one of the node's windows, EASY's
//! reservation for its head knows when a window ends, and so no job that keeps to its
//! estimate is ever killed by maintenance. Hand cases with their schedules worked out in
//! the comments, and random windows on random workloads under every policy that places on
//! nodes.

use gridscope::engine::{JobOutcome, RunOutput};
use gridscope::failure::{Outage, OutageKind, Outages};
use gridscope::policy::local::LocalPolicyKind;
use gridscope::rng::SimRng;
use gridscope::time::SimTime;

use crate::failures::{job, nodes, run, spans};

const ON_NODES: [LocalPolicyKind; 7] = [
    LocalPolicyKind::Fcfs,
    LocalPolicyKind::Easy,
    LocalPolicyKind::Conservative,
    LocalPolicyKind::ConservativeRebuild,
    LocalPolicyKind::Sjf,
    LocalPolicyKind::FirstFit,
    LocalPolicyKind::Slurm,
];

fn maintenance(node: u32, start: i64, end: i64) -> Outage {
    Outage {
        site: 0,
        node,
        start: SimTime::from_secs(start),
        end: SimTime::from_secs(end),
        kind: OutageKind::Maintenance,
    }
}

fn planned(windows: Vec<Outage>) -> Outages {
    Outages {
        windows,
        ..Outages::default()
    }
}

fn nothing_killed(out: &RunOutput) {
    let log = out.failures.as_ref().expect("a failure log");
    assert!(log.killed.is_empty(), "killed: {:?}", log.killed);
    assert!(out
        .outcomes
        .iter()
        .all(|o| o.status == JobOutcome::Finished));
}

/// One node, maintenance from 100 to 200 s. Job 0 (150 s) cannot start at 0 (it would
/// still run at 100): it starts when the window ends, at 200. Job 1 (50 s) ends by 100:
/// FCFS keeps it behind job 0 (to 350); EASY backfills it at 0, as job 0's reservation is
/// at the window's end (200); SJF and first-fit start it at 0 too. Nothing is killed.
#[test]
fn a_job_waits_for_a_window_it_would_overlap() {
    let p = nodes(1, 1);
    let jobs = [job(0, 0, 1, 150, 150), job(1, 0, 1, 50, 50)];
    for policy in ON_NODES {
        let out = run(&p, &jobs, policy, planned(vec![maintenance(0, 100, 200)])).expect("runs");
        let want = match policy {
            LocalPolicyKind::Fcfs => [(200, 350), (350, 400)],
            _ => [(200, 350), (0, 50)],
        };
        assert_eq!(spans(&out), want, "{policy:?}");
        nothing_killed(&out);
        let log = out.failures.expect("log");
        assert_eq!(log.downtimes.len(), 1);
    }
}

/// Conservative backfilling on nodes (docs/nodes.md): two one-core nodes, node 1 in
/// maintenance from 10 to 100 s, every job submitted at 0. Job 0 (10 s) starts on node 0.
/// Job 1 (50 s): counted as processors, one is free at every instant (node 1 until 10,
/// node 0 from 10), but no node is free for all of `[0, 50)`: its reservation is node 0 at
/// 10. Job 2 (5 s) fits on node 1 before the window and delays nothing: it starts at 0.
/// Both variants; EASY gives the same starts (job 1 its blocked head, job 2 backfilled).
#[test]
fn conservative_reserves_the_node_a_window_leaves_free() {
    let p = nodes(2, 1);
    let jobs = [
        job(0, 0, 1, 10, 10),
        job(1, 0, 1, 50, 50),
        job(2, 0, 1, 5, 5),
    ];
    for policy in [
        LocalPolicyKind::Conservative,
        LocalPolicyKind::ConservativeRebuild,
        LocalPolicyKind::Easy,
    ] {
        let out = run(&p, &jobs, policy, planned(vec![maintenance(1, 10, 100)])).expect("runs");
        assert_eq!(spans(&out), [(0, 10), (10, 60), (0, 5)], "{policy:?}");
        let on: Vec<u32> = (0..3).map(|i| out.placements.of(i)[0].node).collect();
        assert_eq!(on, [0, 0, 1], "{policy:?}");
        nothing_killed(&out);
    }
}

/// Two one-core nodes, node 0 in maintenance from 100 to 200 s; every job submitted at 0.
/// Job 0 (500 s) would be placed on node 0 by first-fit, but its run would overlap the
/// window: it goes to node 1. Job 1 (both nodes, 100 s) is EASY's blocked head, its
/// reservation at 500. Job 2 (100 s) backfills on node 0, ending as the window opens. Job 3
/// (150 s) finds no node at 0, none at 100 (node 0 goes down), and backfills at 200 on
/// node 0 when the window ends (200 + 150 ≤ 500). Job 1 starts at 500.
/// FCFS holds everything behind job 1: jobs 2 and 3 start together at 600.
#[test]
fn a_window_blocks_easys_head_and_jobs_backfill_around_it() {
    let p = nodes(2, 1);
    let jobs = [
        job(0, 0, 1, 500, 500),
        job(1, 0, 2, 100, 100),
        job(2, 0, 1, 100, 100),
        job(3, 0, 1, 150, 150),
    ];
    let windows = || planned(vec![maintenance(0, 100, 200)]);
    let easy = run(&p, &jobs, LocalPolicyKind::Easy, windows()).expect("runs");
    assert_eq!(spans(&easy), [(0, 500), (500, 600), (0, 100), (200, 350)]);
    assert_eq!(easy.placements.nodes_text(0), "1");
    assert_eq!(easy.placements.nodes_text(2), "0");
    assert_eq!(easy.placements.nodes_text(3), "0");
    nothing_killed(&easy);
    let fcfs = run(&p, &jobs, LocalPolicyKind::Fcfs, windows()).expect("runs");
    assert_eq!(spans(&fcfs), [(0, 500), (500, 600), (600, 700), (600, 750)]);
    nothing_killed(&fcfs);
    // As a failure (unknown in advance) the same window kills job 0, placed on node 0.
    let failure = Outages {
        windows: vec![Outage {
            kind: OutageKind::Failure,
            ..maintenance(0, 100, 200)
        }],
        ..Outages::default()
    };
    let surprised = run(&p, &jobs, LocalPolicyKind::Easy, failure).expect("runs");
    assert_eq!(surprised.failures.expect("log").killed.len(), 1);
}

/// A head that needs a node now in maintenance: one node down from 0 to 300 s (the window
/// is in force when job 0 arrives at 10), a second node busy until 400 with job 1. Job 0
/// (both nodes) has its reservation at 400, and job 2 (100 s, one core) backfills at 300
/// when the node is back, as it ends by 400. Job 3 (200 s) would not end by 400: it waits
/// for job 0.
#[test]
fn a_node_in_maintenance_comes_back_for_easys_reservation() {
    let p = nodes(2, 1);
    let jobs = [
        job(1, 0, 1, 400, 400),
        job(0, 10, 2, 100, 100),
        job(2, 20, 1, 100, 100),
        job(3, 30, 1, 200, 200),
    ];
    let out = run(
        &p,
        &jobs,
        LocalPolicyKind::Easy,
        planned(vec![maintenance(1, 0, 300)]),
    )
    .expect("runs");
    assert_eq!(spans(&out), [(0, 400), (400, 500), (300, 400), (500, 700)]);
    nothing_killed(&out);
}

/// Random maintenance windows on random workloads under every policy that places on nodes:
/// every run passes its checks, every job finishes (jobs keep to their estimates, so none
/// is on a node when its window opens), and each job's run is clear of every window on its
/// nodes.
#[test]
fn random_windows_kill_nothing() {
    let p = nodes(6, 4);
    for case in 0..8u64 {
        let mut rng = SimRng::new(700 + case);
        let mut t = 0;
        let jobs: Vec<_> = (0..200)
            .map(|i| {
                t += rng.range_u64(0, 40) as i64;
                let run = rng.range_u64(1, 500) as i64;
                let procs = rng.range_u64(1, 10) as u32;
                job(i, t, procs, run, run + rng.range_u64(0, 300) as i64)
            })
            .collect();
        let windows: Vec<Outage> = (0..12)
            .map(|_| {
                let start = rng.range_u64(0, 6_000) as i64;
                let node = rng.range_u64(0, 5) as u32;
                maintenance(node, start, start + rng.range_u64(1, 900) as i64)
            })
            .collect();
        for policy in ON_NODES {
            let out = run(&p, &jobs, policy, planned(windows.clone()))
                .unwrap_or_else(|e| panic!("case {case} {policy:?}: {e}"));
            nothing_killed(&out);
            for (i, o) in out.outcomes.iter().enumerate() {
                let end = o.start + jobs[i].estimate;
                for share in out.placements.of(i) {
                    for w in windows.iter().filter(|w| w.node == share.node) {
                        assert!(
                            end <= w.start || o.start >= w.end,
                            "case {case} {policy:?}: job {i} [{:?}, {end:?}) on node {} \
                             overlaps {w:?}",
                            o.start,
                            share.node
                        );
                    }
                }
            }
        }
    }
}

/// "Why did this job wait" names the windows (issue #41): two one-core nodes, node 1 in
/// maintenance from 10 to 100 s. Job 1 (10 s) takes node 0 at 0; job 2 (50 s) finds node 1
/// free but its window inside `[0, 50)`, so from 0 to 10 it waits because of that window,
/// named with its node and its instants, in words and in the JSON.
#[test]
fn the_wait_names_the_maintenance_window_in_the_way() {
    use gridscope::scenario::explain::{explain, WaitReason};
    use gridscope::scenario::failures::{FailureSpec, OutageSpec};
    use gridscope::scenario::{AlgorithmSpec, PlatformSpec, Scenario, WorkloadSpec};
    use gridscope::workload::{read_trace, SwfOptions, TraceOptions};
    let swf = "1 0 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n\
               2 0 -1 50 1 -1 -1 1 50 -1 1 1 1 -1 1 -1 -1 -1\n";
    let workload = || {
        read_trace(
            "w.swf",
            swf.as_bytes(),
            &SwfOptions::default(),
            &TraceOptions::default(),
        )
        .expect("reads")
    };
    let sites = nodes(2, 1).sites;
    let scenario = Scenario {
        version: 4,
        name: "window".into(),
        seed: 0,
        platform: PlatformSpec::Sites {
            name: "two".into(),
            sites,
        },
        workload: WorkloadSpec::Swf {
            file: "w.swf".into(),
            strict: false,
            format: Default::default(),
            utc_offset_min: 0,
        },
        algorithms: vec![AlgorithmSpec::local(LocalPolicyKind::Fcfs)],
        options: Default::default(),
        failures: Some(FailureSpec {
            model: None,
            seed: 0,
            outages: vec![OutageSpec {
                site: None,
                node: 1,
                start_s: 10,
                end_s: 100,
                kind: OutageKind::Maintenance,
            }],
            on_failure: Default::default(),
            max_requeue: 5,
            requeue_at: Default::default(),
            checkpoint: None,
        }),
        carbon: None,
    }
    .upgrade();
    let x = explain(&scenario, workload(), 0, 2).expect("explains");
    let first = &x.spans[0];
    let WaitReason::NoNodeHoldsIt { short, windows, .. } = &first.reason else {
        panic!("{:?}", first.reason);
    };
    assert_eq!(short, "maintenance");
    assert_eq!(windows.len(), 1);
    assert_eq!(
        (windows[0].node, windows[0].start_s, windows[0].end_s),
        (1, 10.0, 100.0)
    );
    let text = x.text();
    assert!(
        text.contains(
            "maintenance keeps its estimate from the nodes that would hold it (node 1 10 s–100 s)"
        ),
        "{text}"
    );
}
