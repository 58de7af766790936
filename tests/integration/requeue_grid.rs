//! A killed job offered to the grid again (`--requeue-at grid`, issue #41): the grid scheme
//! decides anew, as for a job submitted at the failure, so the job may run next on another
//! site — with the work it checkpointed rescaled to that site's speed; a hand case worked
//! out in its comment, random two-site grids of every speed under every scheme and placing
//! policy (the engine checks each run's lengths against what the killed runs saved), the
//! scenario's version 12 and the CLI's flag.

use gridscope::engine::{JobOutcome, RunOutput};
use gridscope::failure::{
    Checkpointing, FailureModel, Interval, OnFailure, Outage, Outages, RequeueAt,
};
use gridscope::model::{Job, Platform, Site};
use gridscope::policy::grid::{GridParams, GridScheme};
use gridscope::policy::local::LocalPolicyKind;
use gridscope::rng::SimRng;
use gridscope::scenario::failures::run_failures;
use gridscope::time::SimTime;

use crate::failures::spans;

/// A site of `count` nodes of `cores` cores (no memory, no GPUs) at `speed`.
fn site(name: &str, count: u32, cores: u32, speed: f64) -> Site {
    Site {
        speed,
        ..crate::grid_nodes::site(name, count, cores, 0, 0)
    }
}

/// Job `id` at home `home`, submitted at `submit` s, `procs` processors, `run` s of work at
/// its home's speed, estimated `est` s.
fn job(id: i64, submit: i64, procs: u32, run: i64, est: i64, home: u32) -> Job {
    Job {
        home,
        ..crate::failures::job(id, submit, procs, run, est)
    }
}

/// Node `node` of site `site` fails over [start, end) s.
fn down(site: u32, node: u32, start: i64, end: i64) -> Outage {
    Outage {
        site,
        ..crate::failures::down(node, start, end)
    }
}

fn run(
    p: &Platform,
    jobs: &[Job],
    local: LocalPolicyKind,
    scheme: GridScheme,
    outages: Outages,
) -> RunOutput {
    run_held(p, jobs, local, scheme, outages, false)
}

/// [`run`], with the receiver-initiated schemes holding jobs in their home's local queue
/// when `hold_at_home`.
fn run_held(
    p: &Platform,
    jobs: &[Job],
    local: LocalPolicyKind,
    scheme: GridScheme,
    outages: Outages,
    hold_at_home: bool,
) -> RunOutput {
    let params = GridParams {
        hold_at_home,
        ..GridParams::default()
    };
    crate::grid_nodes::run_with_params(p, jobs, &[], local, scheme, &params, outages)
}

/// Site a (one 4-core node, speed 1) and site b (the same at speed 2); b's node is down
/// from 0 to 40 s, so the central scheme sends job 0 (home a, 4 cores, 100 s of work at
/// a, estimate 200 s) to a at 0. It checkpoints every 30 s of work at C = 5 s, R = 10 s:
/// work to 30, a checkpoint to 35, work until a's node fails at 50 (down to 1,000): 30 s
/// saved, at a's speed.
/// - Requeued at the back, it waits for a: from 1,000, R + 70 s + 2 checkpoints = 90 s,
///   to 1,090.
/// - Offered to the grid, it goes to b (a is down), where its work is 50 s and its saved
///   work 30·1/2 = 15 s: R + 35 s + ⌈35/30⌉ − 1 = 1 checkpoint = 50 s, from 50 to 100.
#[test]
fn a_killed_job_offered_to_the_grid_resumes_elsewhere_at_that_sites_speed() {
    let p = Platform {
        name: "two".into(),
        sites: vec![site("a", 1, 4, 1.0), site("b", 1, 4, 2.0)],
    };
    let jobs = [job(0, 0, 4, 100, 200, 0)];
    for local in [LocalPolicyKind::Fcfs, LocalPolicyKind::Easy] {
        for (at, site, span) in [
            (RequeueAt::Back, 0, (1_000, 1_090)),
            (RequeueAt::Grid, 1, (50, 100)),
        ] {
            let outages = Outages {
                windows: vec![down(1, 0, 0, 40), down(0, 0, 50, 1_000)],
                on_failure: OnFailure::Requeue,
                requeue_at: at,
                checkpoint: Some(Checkpointing::every(Interval::Fixed(30.0), 5.0, 10.0)),
                ..Outages::default()
            };
            let out = run(&p, &jobs, local, GridScheme::Central, outages);
            let log = out.failures.as_ref().expect("a failure log");
            assert_eq!(log.killed.len(), 1, "{local} {at:?}");
            assert_eq!(log.killed[0].site, 0);
            assert_eq!(log.killed[0].saved, SimTime::from_secs(30));
            assert_eq!(log.requeue_at, at);
            assert_eq!(out.outcomes[0].site, site, "{local} {at:?}");
            assert_eq!(out.outcomes[0].status, JobOutcome::Finished);
            assert_eq!(spans(&out), [span], "{local} {at:?}");
            let report = run_failures(&p, &jobs, &out.outcomes, log);
            let elsewhere = (at == RequeueAt::Grid).then_some(1);
            assert_eq!(report.requeued_elsewhere, elsewhere, "{local} {at:?}");
        }
    }
}

/// Under the local scheme a job offered to the grid goes home, to the back of its queue:
/// the same schedule as requeued at the back, on random one-site workloads with failures.
#[test]
fn on_one_site_the_grid_is_the_back_of_the_queue() {
    let p = Platform {
        name: "one".into(),
        sites: vec![site("a", 3, 4, 1.0)],
    };
    let mut rng = SimRng::new(12);
    for case in 0..20u64 {
        let jobs = random_jobs(&mut rng, 1);
        for local in [LocalPolicyKind::Fcfs, LocalPolicyKind::Easy] {
            let outages = |at| Outages {
                model: Some(FailureModel::exponential(600.0, 80.0)),
                seed: case,
                requeue_at: at,
                checkpoint: (case % 2 == 1)
                    .then(|| Checkpointing::every(Interval::Fixed(25.0), 3.0, 4.0)),
                ..Outages::default()
            };
            let back = run(
                &p,
                &jobs,
                local,
                GridScheme::Local,
                outages(RequeueAt::Back),
            );
            let grid = run(
                &p,
                &jobs,
                local,
                GridScheme::Local,
                outages(RequeueAt::Grid),
            );
            assert_eq!(back.outcomes, grid.outcomes, "case {case} {local}");
        }
    }
}

/// 40 jobs of random width, length and home over two sites.
fn random_jobs(rng: &mut SimRng, sites: u64) -> Vec<Job> {
    let mut t = 0;
    (0..40)
        .map(|i| {
            t += rng.range_u64(0, 20) as i64;
            let run = 1 + rng.range_u64(0, 200) as i64;
            let procs = 1 + rng.range_u64(0, 7) as u32;
            let home = rng.range_u64(0, sites - 1) as u32;
            job(i, t, procs, run, run + rng.range_u64(0, 100) as i64, home)
        })
        .collect()
}

/// Random two-site grids whose sites run at different speeds, nodes failing, killed jobs
/// offered to the grid again with and without checkpointing (and in a case in four, the
/// receiver-initiated schemes holding jobs at home): every scheme and placing
/// policy ends each run with the engine's checks — every job accounted for, no node over
/// its cores, and every last run exactly the restart, the work its killed runs left (saved
/// at one site's speed, resumed at another's) and its checkpoints. Some jobs do move.
#[test]
fn random_grids_offering_killed_jobs_again_keep_every_invariant() {
    let schemes = [
        GridScheme::Local,
        GridScheme::Sender,
        GridScheme::Receiver,
        GridScheme::Symmetric,
        GridScheme::Central,
    ];
    let speeds = [0.5, 1.0, 1.5, 2.0, 3.0];
    let mut rng = SimRng::new(41);
    let (mut killed, mut moved) = (0, 0);
    for case in 0..30u64 {
        let mut draw_site = |name: &str| {
            let speed = speeds[rng.range_u64(0, 4) as usize];
            site(
                name,
                1 + rng.range_u64(0, 3) as u32,
                2 + rng.range_u64(0, 6) as u32,
                speed,
            )
        };
        let p = Platform {
            name: "r".into(),
            sites: vec![draw_site("a"), draw_site("b")],
        };
        let jobs = random_jobs(&mut rng, 2);
        for scheme in schemes {
            for local in [
                LocalPolicyKind::Fcfs,
                LocalPolicyKind::Easy,
                LocalPolicyKind::Conservative,
                LocalPolicyKind::Sjf,
                LocalPolicyKind::FirstFit,
            ] {
                let outages = Outages {
                    model: Some(FailureModel::exponential(500.0, 100.0)),
                    seed: case,
                    requeue_at: RequeueAt::Grid,
                    checkpoint: (case % 3 != 0)
                        .then(|| Checkpointing::every(Interval::Fixed(20.0), 2.0, 5.0)),
                    ..Outages::default()
                };
                let out = run_held(&p, &jobs, local, scheme, outages, case % 4 == 1);
                let log = out.failures.expect("a failure log");
                killed += log.killed.len();
                let report = run_failures(&p, &jobs, &out.outcomes, &log);
                moved += report.requeued_elsewhere.expect("counted under grid");
                assert!(
                    out.outcomes
                        .iter()
                        .all(|o| !matches!(o.status, JobOutcome::Pending)),
                    "case {case}: {local} under {}",
                    scheme.name()
                );
            }
        }
    }
    // 10,221 and 1,098 when written.
    assert!(killed > 5_000, "{killed} runs killed");
    assert!(
        moved > 500,
        "{moved} requeues whose next run was on the other site"
    );
}

/// `"requeue_at": "grid"` makes a scenario version 12, and a version-11 file with it is
/// refused, naming version 12; the CLI's `--requeue-at grid` reports it, and how many
/// requeues ran next elsewhere.
#[test]
fn requeue_at_grid_is_scenario_version_12_and_a_cli_flag() {
    use gridscope::scenario::{Scenario, REQUEUE_GRID_VERSION};
    let mut s = Scenario::demo();
    s.failures = Some(gridscope::scenario::failures::FailureSpec {
        model: None,
        seed: 0,
        outages: Vec::new(),
        on_failure: OnFailure::Requeue,
        max_requeue: 5,
        requeue_at: RequeueAt::Grid,
        checkpoint: None,
    });
    let s = s.upgrade();
    assert_eq!(s.version, REQUEUE_GRID_VERSION);
    let json = s.to_json();
    assert!(json.contains("\"requeue_at\": \"grid\""), "{json}");
    assert_eq!(Scenario::from_json(&json).expect("reads back"), s);
    let old = json.replace("\"version\": 12", "\"version\": 11");
    let e = Scenario::from_json(&old).expect_err("version 11 refuses it");
    assert!(e.to_string().contains("version 12"), "{e}");

    let csv = crate::root().join("tests/fixtures/outages.csv");
    let csv = csv.display().to_string();
    let out =
        crate::failures::simulate_fixture(&["--outages", &csv, "--requeue-at", "grid", "--json"]);
    let json = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(json.contains("\"requeue_at\": \"grid\""), "{json}");
    // One site: nowhere else to go, and the table says so.
    assert!(json.contains("\"requeued_elsewhere\": 0"), "{json}");
    let out = crate::failures::simulate_fixture(&["--outages", &csv, "--requeue-at", "grid"]);
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("requeued elsewhere"), "{table}");
}
