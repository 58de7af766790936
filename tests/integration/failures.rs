//! Failures and maintenance (issue #41): hand cases whose schedules are worked out in the
//! comments (a requeued job, a lost job, a failure during a backfilled job under EASY, a job
//! ending at the instant its node fails, overlapping outages), failure models on random
//! workloads under every policy that places on nodes (the node check every run ends with
//! holds: no job on a node while it is down; every job accounted for; the same seed gives
//! the same run), and the errors a bad outage gets.

use gridscope::engine::{EventOrder, JobOutcome, RunConfig, RunOutput, SimError, Simulation};
use gridscope::failure::{FailureModel, OnFailure, Outage, OutageKind, Outages, RequeueAt};
use gridscope::model::{Job, NodeType, Platform, Site};
use gridscope::policy::grid::{GridParams, GridScheme};
use gridscope::policy::local::LocalPolicyKind;
use gridscope::rng::SimRng;
use gridscope::time::SimTime;

const ON_NODES: [LocalPolicyKind; 7] = [
    LocalPolicyKind::Fcfs,
    LocalPolicyKind::Easy,
    LocalPolicyKind::Conservative,
    LocalPolicyKind::ConservativeRebuild,
    LocalPolicyKind::Sjf,
    LocalPolicyKind::FirstFit,
    LocalPolicyKind::Slurm,
];

/// One site of `count` nodes of `cores` cores, no memory or GPUs.
pub(crate) fn nodes(count: u32, cores: u32) -> Platform {
    crate::nodes::node_site(vec![NodeType {
        name: String::new(),
        count,
        cores,
        mem_kb: 0,
        gpus: 0,
        power: None,
        exclusive: false,
    }])
}

/// Job `id` of `procs` processors submitted at `submit` s, running `run` s, estimated `est` s.
pub(crate) fn job(id: i64, submit: i64, procs: u32, run: i64, est: i64) -> Job {
    Job {
        id,
        submit: SimTime::from_secs(submit),
        runtime: SimTime::from_secs(run),
        estimate: SimTime::from_secs(est),
        procs,
        home: 0,
        user: 1,
        partition: 0,
    }
}

pub(crate) fn down(node: u32, start: i64, end: i64) -> Outage {
    Outage {
        site: 0,
        node,
        start: SimTime::from_secs(start),
        end: SimTime::from_secs(end),
        kind: OutageKind::Failure,
    }
}

pub(crate) fn run(
    platform: &Platform,
    jobs: &[Job],
    policy: LocalPolicyKind,
    outages: Outages,
) -> Result<RunOutput, SimError> {
    Simulation::new(
        platform,
        jobs,
        policy,
        GridScheme::Local,
        &GridParams::default(),
        &RunConfig::default(),
    )?
    .with_outages(outages)?
    .run(&mut |_, _| true)
}

fn windows(windows: Vec<Outage>, on_failure: OnFailure) -> Outages {
    Outages {
        windows,
        on_failure,
        ..Outages::default()
    }
}

/// `gridscope simulate` of tests/fixtures/memory_decides.swf (its notes say what each job
/// asks) on its platform, two nodes of 4 cores, under FCFS, then `extra`.
pub(crate) fn simulate_fixture(extra: &[&str]) -> std::process::Output {
    let fixtures = crate::root().join("tests/fixtures");
    let fx = |f: &str| fixtures.join(f).display().to_string();
    let (swf, sys) = (fx("memory_decides.swf"), fx("memory_decides.json"));
    let base = ["simulate", &swf, "--platform", &sys, "--policy", "fcfs"];
    crate::cli::gridscope(&[&base[..], extra].concat())
}

/// (start s, end s) of every job.
pub(crate) fn spans(out: &RunOutput) -> Vec<(i64, i64)> {
    out.outcomes
        .iter()
        .map(|o| (o.start.0 / 1000, o.end.0 / 1000))
        .collect()
}

/// Two one-core nodes; job 0 (100 s) on node 0 and job 1 (50 s) on node 1 at t = 0. Node 0
/// fails from 30 to 60 s: job 0 is killed at 30 and requeued; node 1 frees at 50, where it
/// runs again from the start (node 0 is still down), to 150. SJF starts the shorter job 1
/// first, on node 0: the failure kills it instead, and it runs again when node 0 is back.
#[test]
fn a_killed_job_is_requeued_and_runs_again_from_the_start() {
    let p = nodes(2, 1);
    let jobs = [job(0, 0, 1, 100, 100), job(1, 0, 1, 50, 50)];
    for policy in ON_NODES {
        let out = run(
            &p,
            &jobs,
            policy,
            windows(vec![down(0, 30, 60)], OnFailure::Requeue),
        )
        .expect("runs");
        let (victim, spans_want, node) = match policy {
            LocalPolicyKind::Sjf => (1, [(0, 100), (60, 110)], "0"),
            _ => (0, [(50, 150), (0, 50)], "1"),
        };
        assert_eq!(spans(&out), spans_want, "{policy:?}");
        assert_eq!(out.placements.nodes_text(victim), node);
        let log = out.failures.expect("a failure log");
        assert_eq!(log.killed.len(), 1);
        assert_eq!(log.killed[0].job, victim as u32);
        assert_eq!(
            (log.killed[0].start, log.killed[0].end),
            (SimTime(0), SimTime(30_000))
        );
        assert_eq!(log.downtimes.len(), 1);
        assert_eq!(log.downtimes[0].end, SimTime(60_000));
    }
}

/// Requeued at the back or at the front. Two one-core nodes: jobs 0 and 1 (100 s) start at
/// 0; jobs 2 and 3 (50 s) queue at 10. Node 0 fails from 30 to 40, killing job 0. At the
/// back, job 0 waits behind jobs 2 and 3: they run 40–90 and 90–140 on node 0, and job 0
/// gets node 1 at 100. At the front it is the next to start: 40–140, then jobs 2 and 3 at
/// 100 and 140. (SJF's order puts the shorter jobs 2 and 3 ahead of job 0 anyway, so at
/// the back it runs as FCFS does. Slurm's queue is in priority order, ties by job id as
/// Slurm's, so job 0 comes first at the back too: the front's schedule either way.)
#[test]
fn a_requeued_job_goes_to_the_back_or_the_front() {
    let p = nodes(2, 1);
    let jobs = [
        job(0, 0, 1, 100, 100),
        job(1, 0, 1, 100, 100),
        job(2, 10, 1, 50, 50),
        job(3, 10, 1, 50, 50),
    ];
    for policy in ON_NODES {
        for (at, want) in [
            (RequeueAt::Back, [(100, 200), (0, 100), (40, 90), (90, 140)]),
            (
                RequeueAt::Front,
                [(40, 140), (0, 100), (100, 150), (140, 190)],
            ),
        ] {
            let outages = Outages {
                requeue_at: at,
                ..windows(vec![down(0, 30, 40)], OnFailure::Requeue)
            };
            let out = run(&p, &jobs, policy, outages).expect("runs");
            let want = match policy {
                LocalPolicyKind::Slurm => [(40, 140), (0, 100), (100, 150), (140, 190)],
                _ => want,
            };
            assert_eq!(spans(&out), want, "{policy:?} {at:?}");
            assert_eq!(out.failures.expect("log").requeue_at, at);
        }
    }
}

/// The same case with lost jobs: job 0 ends at the failure, unfinished.
#[test]
fn a_lost_job_ends_at_the_failure() {
    let p = nodes(2, 1);
    let jobs = [job(0, 0, 1, 100, 100), job(1, 0, 1, 50, 50)];
    let out = run(
        &p,
        &jobs,
        LocalPolicyKind::Fcfs,
        windows(vec![down(0, 30, 60)], OnFailure::Lost),
    )
    .expect("runs");
    assert_eq!(spans(&out), [(0, 30), (0, 50)]);
    assert_eq!(out.outcomes[0].status, JobOutcome::Lost);
    assert_eq!(out.outcomes[1].status, JobOutcome::Finished);
}

/// EASY on two nodes of two cores. A (2 cores, 100 s) starts at 0 on node 0; B (4 cores)
/// waits for it, its reservation at 100; C (2 cores, 60 s) backfills at 2 on node 1, as it
/// ends by 100. Node 1 fails from 30 to 40: C is killed and requeued behind B. At 40 the
/// node is back, and C backfills again (40 + 60 = 100, still by B's reservation); at 100 A
/// and C end and B starts.
#[test]
fn a_failure_during_a_backfilled_job() {
    let p = nodes(2, 2);
    let jobs = [
        job(0, 0, 2, 100, 100),
        job(1, 1, 4, 100, 100),
        job(2, 2, 2, 60, 60),
    ];
    let out = run(
        &p,
        &jobs,
        LocalPolicyKind::Easy,
        windows(vec![down(1, 30, 40)], OnFailure::Requeue),
    )
    .expect("runs");
    assert_eq!(spans(&out), [(0, 100), (100, 200), (40, 100)]);
    // Without the failure C would have run from 2 to 62.
    let clean = run(&p, &jobs, LocalPolicyKind::Easy, Outages::default()).expect("runs");
    assert_eq!(spans(&clean), [(0, 100), (100, 200), (2, 62)]);
    assert!(clean.failures.is_none());
}

/// A job that ends at the instant its node fails has finished (completions come first),
/// and a job starting at that instant does not get the node.
#[test]
fn a_job_ending_as_its_node_fails_has_finished() {
    let p = nodes(1, 1);
    let jobs = [job(0, 0, 1, 30, 30), job(1, 30, 1, 10, 10)];
    let out = run(
        &p,
        &jobs,
        LocalPolicyKind::Fcfs,
        windows(vec![down(0, 30, 45)], OnFailure::Requeue),
    )
    .expect("runs");
    assert_eq!(spans(&out), [(0, 30), (45, 55)]);
    assert!(out.failures.expect("log").killed.is_empty());
}

/// A job is requeued at most `max_requeue` times (Slurm's `MaxBatchRequeue`), then lost:
/// one node fails at 10, 30 and 50 s, each time 5 s into the job's run.
#[test]
fn a_job_requeued_too_often_is_lost() {
    let p = nodes(1, 1);
    let jobs = [job(0, 5, 1, 100, 100)];
    let outages = Outages {
        windows: vec![down(0, 10, 25), down(0, 30, 45), down(0, 50, 60)],
        max_requeue: 2,
        ..Outages::default()
    };
    let out = run(&p, &jobs, LocalPolicyKind::Fcfs, outages).expect("runs");
    assert_eq!(spans(&out), [(45, 50)]);
    assert_eq!(out.outcomes[0].status, JobOutcome::Lost);
    let log = out.failures.expect("log");
    assert_eq!(log.killed.len(), 3);
    assert_eq!(log.requeue_limit, 1);
}

/// Overlapping outages of a node merge: it is down from the first start to the last end,
/// and the log has one down time. (Job 0 ends as the node goes down: it has finished.)
#[test]
fn overlapping_outages_merge() {
    let p = nodes(1, 1);
    let jobs = [job(0, 0, 1, 5, 5), job(1, 10, 1, 5, 5)];
    let out = run(
        &p,
        &jobs,
        LocalPolicyKind::Fcfs,
        windows(vec![down(0, 5, 20), down(0, 15, 30)], OnFailure::Requeue),
    )
    .expect("runs");
    assert_eq!(spans(&out), [(0, 5), (30, 35)]);
    let log = out.failures.expect("log");
    assert_eq!(log.downtimes.len(), 1);
    assert_eq!(
        (log.downtimes[0].start, log.downtimes[0].end),
        (SimTime(5_000), SimTime(30_000))
    );
}

fn random_jobs(rng: &mut SimRng, n: usize, widest: u32) -> Vec<Job> {
    let mut t = 0;
    (0..n)
        .map(|i| {
            t += rng.range_u64(0, 30) as i64;
            let run = rng.range_u64(1, 400) as i64;
            let est = run + rng.range_u64(0, 200) as i64;
            job(
                i as i64,
                t,
                rng.range_u64(1, u64::from(widest)) as u32,
                run,
                est,
            )
        })
        .collect()
}

/// Failures drawn from a model on random workloads, under every policy that places on
/// nodes and both rules: every run ends with its checks passed (no node over its capacity
/// or held while down, every job finished, killed at its estimate or lost), some jobs were
/// killed, and the same seed gives the same run.
#[test]
fn drawn_failures_keep_every_invariant() {
    let p = nodes(8, 4);
    for case in 0..6u64 {
        let mut rng = SimRng::new(100 + case);
        let jobs = random_jobs(&mut rng, 300, 12);
        for policy in ON_NODES {
            for on_failure in [OnFailure::Requeue, OnFailure::Lost] {
                let outages = Outages {
                    model: Some(FailureModel::exponential(3_000.0, 400.0)),
                    seed: case,
                    on_failure,
                    ..Outages::default()
                };
                let out = run(&p, &jobs, policy, outages.clone())
                    .unwrap_or_else(|e| panic!("case {case} {policy:?} {on_failure:?}: {e}"));
                let log = out.failures.as_ref().expect("log");
                assert!(
                    !log.killed.is_empty(),
                    "case {case} {policy:?}: nothing failed"
                );
                let lost = out
                    .outcomes
                    .iter()
                    .filter(|o| o.status == JobOutcome::Lost)
                    .count();
                match on_failure {
                    OnFailure::Requeue => assert_eq!(lost as u64, log.requeue_limit),
                    OnFailure::Lost => assert_eq!(lost, log.killed.len()),
                }
                let again = run(&p, &jobs, policy, outages).expect("runs");
                assert_eq!(out.outcomes, again.outcomes);
                assert_eq!(out.failures, again.failures);
            }
        }
    }
}

/// A named FTA model on a long workload: LANL's nodes fail every ~1,780 h, so a year on
/// 64 nodes sees some failures.
#[test]
fn a_named_model_runs() {
    let p = nodes(64, 4);
    let mut rng = SimRng::new(9);
    let mut jobs = random_jobs(&mut rng, 2_000, 16);
    for (i, j) in jobs.iter_mut().enumerate() {
        j.submit = SimTime::from_secs(i as i64 * 15_000);
        j.runtime = SimTime(j.runtime.0 * 40);
        j.estimate = SimTime(j.estimate.0 * 40);
    }
    for name in ["lanl05-exp", "lanl05-wbl", "lanl05-logn", "lanl05-gam"] {
        let outages = Outages {
            model: FailureModel::preset(name),
            seed: 1,
            ..Outages::default()
        };
        let out = run(&p, &jobs, LocalPolicyKind::Easy, outages).expect("runs");
        let log = out.failures.expect("log");
        assert!(!log.downtimes.is_empty(), "{name}: no node went down");
    }
}

#[test]
fn bad_outages_are_refused_with_the_reason() {
    let jobs = [job(0, 0, 1, 10, 10)];
    let flat = Platform::single(Site::flat("F", 4));
    let e = run(
        &flat,
        &jobs,
        LocalPolicyKind::Fcfs,
        windows(vec![down(0, 1, 2)], OnFailure::Requeue),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("no site lists node types"), "{e}");
    let e = run(
        &nodes(2, 1),
        &jobs,
        LocalPolicyKind::Fcfs,
        windows(vec![down(5, 1, 2)], OnFailure::Requeue),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("node 5 of site 0"), "{e}");
    let pyss = RunConfig {
        event_order: EventOrder::Pyss,
        ..RunConfig::default()
    };
    let e = Simulation::new(
        &nodes(2, 1),
        &jobs[..],
        LocalPolicyKind::Fcfs,
        GridScheme::Local,
        &GridParams::default(),
        &pyss,
    )
    .and_then(|s| s.with_outages(windows(vec![down(0, 1, 2)], OnFailure::Requeue)))
    .err()
    .map(|e| e.to_string())
    .unwrap_or_default();
    assert!(e.contains("not pyss's"), "{e}");
}

/// The CLI: `simulate --platform … --outages CSV` prints what the file held and the run's
/// failure table; job 1 (4 cores on node 0) is killed at 50 s and runs again at 110 s,
/// after node 0 is back at 70 s and jobs 4 and 5 took it; a bad line names its file and
/// line, and an unknown model its presets.
#[test]
fn the_cli_runs_outages_and_names_bad_input() {
    let dir = std::env::temp_dir().join(format!("gridscope-failures-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let jobs = dir.join("jobs.csv").display().to_string();
    let out = crate::checkpoint::simulate_with_outages(&["--jobs", &jobs]);
    assert!(out.status.success(), "{}", crate::cli::stderr(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("failures (docs/failures.md):"), "{stdout}");
    assert!(
        crate::cli::stderr(&out).contains("1 outage (1 failure, 0 maintenance)"),
        "{}",
        crate::cli::stderr(&out)
    );
    let csv_out = std::fs::read_to_string(&jobs).unwrap();
    assert!(
        csv_out.contains("\n1,memory_decides,memory_decides,0,110,210,4,1\n"),
        "{csv_out}"
    );
    // The same outage as Batsim's external events (v3/v4 lines, then Batsim 5's generic
    // form) gives the same run.
    let events = [
        "{\"type\": \"machine_unavailable\", \"resources\": \"0\", \"timestamp\": 50}\n\
         {\"type\": \"machine_available\", \"resources\": \"0\", \"timestamp\": 70}\n",
        "{\"type\": \"generic\", \"timestamp\": 50, \"data\": \"{\\\"type\\\": \\\"machine_unavailable\\\", \\\"resources\\\": \\\"0\\\"}\"}\n\
         {\"type\": \"generic\", \"timestamp\": 70, \"data\": \"{\\\"type\\\": \\\"machine_available\\\", \\\"resources\\\": \\\"0\\\"}\"}\n",
    ];
    for (i, text) in events.iter().enumerate() {
        let file = dir.join(format!("events{i}.json"));
        std::fs::write(&file, text).unwrap();
        let file = file.display().to_string();
        let jobs_b = dir.join(format!("jobs{i}.csv")).display().to_string();
        let out = simulate_fixture(&[
            "--outages",
            &file,
            "--requeue-at",
            "back",
            "--jobs",
            &jobs_b,
        ]);
        assert!(out.status.success(), "{}", crate::cli::stderr(&out));
        assert!(crate::cli::stderr(&out).contains("1 outage (1 failure, 0 maintenance)"));
        assert_eq!(
            std::fs::read_to_string(&jobs_b).unwrap(),
            csv_out,
            "events {i}"
        );
    }
    std::fs::write(dir.join("bad.csv"), "node,start,end,kind\n7,1,2,failure\n").unwrap();
    let bad = dir.join("bad.csv").display().to_string();
    let out = simulate_fixture(&["--outages", &bad]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        crate::cli::stderr(&out)
            .contains("bad.csv:2: node 7 does not exist (site 'memory_decides' has nodes 0 to 1)"),
        "{}",
        crate::cli::stderr(&out)
    );
    let out = simulate_fixture(&["--failures", "nope"]);
    assert!(crate::cli::stderr(&out).contains("not a preset (lanl05-exp, lanl05-wbl"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// FCFS with failures the slow, obvious way, on one-core nodes: at each instant the jobs
/// ending then end; then the nodes going down then kill their jobs (in outage order, a
/// node's job once), which go back to the end of the queue; then the nodes coming back
/// return; then the arrivals queue; then the queue's head starts while enough nodes are up
/// and free (the lowest-numbered ones). Returns each job's last (start, end).
fn reference_fcfs(nodes: usize, jobs: &[Job], outages: &[Outage]) -> Vec<(i64, i64)> {
    let mut times: Vec<i64> = jobs.iter().map(|j| j.submit.0).collect();
    times.extend(outages.iter().flat_map(|o| [o.start.0, o.end.0]));
    let mut holder: Vec<Option<usize>> = vec![None; nodes];
    let mut up = vec![true; nodes];
    let mut queue: Vec<usize> = Vec::new();
    let mut run: Vec<(i64, i64)> = vec![(-1, -1); jobs.len()];
    let mut running: Vec<usize> = Vec::new();
    let mut next_job = 0;
    let mut now = i64::MIN;
    loop {
        let ends = running.iter().map(|&i| run[i].1);
        let Some(t) = times.iter().copied().chain(ends).filter(|&t| t > now).min() else {
            break;
        };
        now = t;
        running.retain(|&i| {
            let done = run[i].1 == now;
            if done {
                holder
                    .iter_mut()
                    .filter(|h| **h == Some(i))
                    .for_each(|h| *h = None);
            }
            !done
        });
        for o in outages.iter().filter(|o| o.start.0 == now) {
            let n = o.node as usize;
            up[n] = false;
            if let Some(victim) = holder[n] {
                holder
                    .iter_mut()
                    .filter(|h| **h == Some(victim))
                    .for_each(|h| *h = None);
                running.retain(|&i| i != victim);
                run[victim] = (-1, -1);
                queue.push(victim);
            }
        }
        for o in outages.iter().filter(|o| o.end.0 == now) {
            up[o.node as usize] = true;
        }
        while next_job < jobs.len() && jobs[next_job].submit.0 == now {
            queue.push(next_job);
            next_job += 1;
        }
        while let Some(&head) = queue.first() {
            let free: Vec<usize> = (0..nodes)
                .filter(|&n| up[n] && holder[n].is_none())
                .collect();
            let want = jobs[head].procs as usize;
            if free.len() < want {
                break;
            }
            free[..want].iter().for_each(|&n| holder[n] = Some(head));
            run[head] = (now, now + jobs[head].runtime.0);
            running.push(head);
            queue.remove(0);
        }
    }
    run.iter().map(|&(s, e)| (s / 1000, e / 1000)).collect()
}

/// The engine's FCFS with failures equals the reference on random workloads and random
/// outages (whole seconds, each node's outages apart, none at a job's submission; the
/// victims of one instant's failures queue in the order the engine kills them, so each
/// instant takes down at most one node).
#[test]
fn fcfs_with_failures_matches_the_reference() {
    let mut killed = 0;
    for case in 0..40u64 {
        let mut rng = SimRng::new(1_000 + case);
        let nodes_n = rng.range_u64(2, 6) as u32;
        let jobs: Vec<Job> = random_jobs(&mut rng, 40, nodes_n)
            .into_iter()
            .map(|mut j| {
                j.estimate = j.runtime;
                j
            })
            .collect();
        let horizon = jobs.last().map_or(0, |j| j.submit.0 / 1000) + 2_000;
        let mut outages = Vec::new();
        let mut used = std::collections::BTreeSet::new();
        for node in 0..nodes_n {
            let mut t = rng.range_u64(1, 300) as i64;
            while t < horizon {
                let len = rng.range_u64(1, 200) as i64;
                if used.insert(t) && used.insert(t + len) {
                    outages.push(down(node, t, t + len));
                }
                t += len + rng.range_u64(1, 600) as i64;
            }
        }
        let submits: std::collections::BTreeSet<i64> =
            jobs.iter().map(|j| j.submit.0 / 1000).collect();
        outages.retain(|o| {
            !submits.contains(&(o.start.0 / 1000)) && !submits.contains(&(o.end.0 / 1000))
        });
        outages.sort_by_key(|o| (o.start, o.node));
        let want = reference_fcfs(nodes_n as usize, &jobs, &outages);
        let out = run(
            &nodes(nodes_n, 1),
            &jobs,
            LocalPolicyKind::Fcfs,
            Outages {
                windows: outages.clone(),
                max_requeue: u32::MAX,
                ..Outages::default()
            },
        )
        .unwrap_or_else(|e| panic!("case {case}: {e}"));
        assert_eq!(spans(&out), want, "case {case}: outages {outages:?}");
        killed += out.failures.map_or(0, |l| l.killed.len());
    }
    assert!(killed > 100, "only {killed} runs killed over the cases");
}
