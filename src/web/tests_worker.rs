//! wasm unit tests of the engine worker (`tests.rs` has the runner): sliced runs and the
//! pool give `run_loaded`'s report byte for byte.

use wasm_bindgen_test::*;

use super::super::protocol::{FromWorker, ToWorker};
use super::super::worker;
use crate::scenario::{load_workload, run_loaded, PlatformSpec, Scenario};

/// Runs `scenario` through the worker's slices of `budget` events to its report.
fn sliced(scenario: &Scenario, budget: u64) -> crate::scenario::Report {
    let w = load_workload(scenario, &Default::default(), &mut |_| {
        Err("no files".into())
    })
    .unwrap();
    let mut run = worker::SlicedRun::new(scenario, w).unwrap();
    let mut done = vec![];
    loop {
        match run.slice(budget).unwrap() {
            worker::Slice::Running => {}
            worker::Slice::RunDone(i) => done.push(i),
            worker::Slice::AllDone => break,
        }
    }
    assert_eq!(done, (0..scenario.algorithms.len()).collect::<Vec<_>>());
    run.finish().0
}

/// The demo's workload on three sites under four grid schemes.
fn three_site_grid() -> Scenario {
    use crate::model::Site;
    use crate::policy::grid::GridScheme;
    use crate::policy::local::LocalPolicyKind;
    use crate::scenario::AlgorithmSpec;
    let mut grid = Scenario::demo();
    grid.platform = PlatformSpec::Sites {
        name: "three".into(),
        sites: vec![
            Site::flat("a", 48),
            Site::flat("b", 48),
            Site::flat("c", 32),
        ],
    };
    grid.algorithms = [
        GridScheme::Local,
        GridScheme::Sender,
        GridScheme::Central,
        GridScheme::Ideal,
    ]
    .iter()
    .map(|&g| AlgorithmSpec::grid(g, LocalPolicyKind::Easy))
    .collect();
    grid
}

/// The worker's sliced runs give `run_loaded`'s report byte for byte (and the same
/// outcomes), whatever the slice size: single site and grid schemes over three sites.
#[wasm_bindgen_test]
fn sliced_runs_give_the_run_loaded_report() {
    for scenario in [Scenario::demo(), three_site_grid()] {
        let w = load_workload(&scenario, &Default::default(), &mut |_| {
            Err("no files".into())
        })
        .unwrap();
        let whole = run_loaded(&scenario, w, &mut |_, _, _| true).unwrap();
        let want = serde_json::to_string_pretty(&whole).unwrap();
        for budget in [1, 97, 1 << 20] {
            let got = sliced(&scenario, budget);
            assert_eq!(
                serde_json::to_string_pretty(&got).unwrap(),
                want,
                "budget {budget}"
            );
            for (a, b) in got.runs.iter().zip(&whole.runs) {
                assert_eq!(a.outcomes, b.outcomes, "{} outcomes", a.label);
            }
            assert_eq!(got.workload.jobs, whole.workload.jobs);
        }
    }
}

/// A scenario the worker cannot run is an error message, not a panic.
#[wasm_bindgen_test]
fn sliced_runs_refuse_what_run_loaded_refuses() {
    let mut s = Scenario::demo();
    s.algorithms.clear();
    let w = load_workload(&Scenario::demo(), &Default::default(), &mut |_| {
        Err("no files".into())
    })
    .unwrap();
    let err = worker::SlicedRun::new(&s, w).err().unwrap();
    assert_eq!(err, crate::scenario::ScenarioError::NoAlgorithms);
}

/// A run spread over a pool: each run simulated alone (`only`), its report and outcomes
/// through the messages a pool worker posts (JSON and bytes), taken back in run order
/// whatever order they finish in (`adopt`) — the same report byte for byte, the same
/// outcomes and the same `RunResult`s for the page as the sequential run.
/// The pool hands the costly runs out first (conservative), the rest in run order.
#[wasm_bindgen_test]
fn pool_hands_conservative_out_first() {
    let demo = Scenario::demo();
    let names: Vec<String> = crate::scenario::hand_out_order(&demo.algorithms)
        .into_iter()
        .map(|i| demo.algorithms[i].local.to_string())
        .collect();
    assert_eq!(names, ["conservative", "fcfs", "easy", "sjf", "firstfit"]);
}

#[wasm_bindgen_test]
fn pooled_runs_give_the_sequential_report() {
    for scenario in [Scenario::demo(), three_site_grid()] {
        let load = || {
            load_workload(&scenario, &Default::default(), &mut |_| {
                Err("no files".into())
            })
            .unwrap()
        };
        let whole = run_loaded(&scenario, load(), &mut |_, _, _| true).unwrap();
        let n = scenario.algorithms.len();
        // What a pool worker gets: the coordinator's prepared run through JSON, the jobs as
        // bytes.
        let prepared = worker::SlicedRun::new(&scenario, load()).unwrap();
        let text = serde_json::to_string(&ToWorker::RunBase {
            tag: 1,
            base: Box::new(prepared.prepared()),
        })
        .unwrap();
        let ToWorker::RunBase { base, .. } = serde_json::from_str(&text).unwrap() else {
            panic!("{text}")
        };
        let jobs = worker::decode_jobs(&worker::encode_jobs(prepared.jobs())).unwrap();
        let base = worker::SlicedRun::from_prepared(*base, jobs);
        // The pool workers' answers, finishing last run first.
        let mut parts = std::collections::BTreeMap::new();
        for index in (0..n).rev() {
            let mut part = base.fresh().only(index).unwrap();
            while part.slice(97).unwrap() == worker::Slice::Running {}
            assert_eq!(part.slice(97).unwrap(), worker::Slice::AllDone);
            let (rr, platform, jobs) = part.last_run().unwrap();
            let result = worker::run_result(index, rr, platform, jobs, 0.0);
            let mut report = part.take_last_run().unwrap();
            let bytes = worker::encode_outcomes(&std::mem::take(&mut report.outcomes));
            let msg = FromWorker::PartDone {
                tag: 1,
                index,
                result: Box::new(result),
            };
            let text = serde_json::to_string(&msg).unwrap();
            let FromWorker::PartDone { result, .. } = serde_json::from_str(&text).unwrap() else {
                panic!("{text}")
            };
            let mut report = result.report.clone();
            report.outcomes = worker::decode_outcomes(&bytes).unwrap();
            parts.insert(index, (report, result));
        }
        let mut coordinator = worker::SlicedRun::new(&scenario, load()).unwrap();
        let mut sequential = worker::SlicedRun::new(&scenario, load()).unwrap();
        for (index, (report, result)) in parts {
            coordinator.adopt(index, report).unwrap();
            while sequential.slice(1 << 20).unwrap() == worker::Slice::Running {}
            let (b, pb, jb) = sequential.last_run().unwrap();
            assert_eq!(
                *result,
                worker::run_result(index, b, pb, jb, 0.0),
                "run {index}"
            );
        }
        let (got, _) = coordinator.finish();
        assert_eq!(
            serde_json::to_string_pretty(&got).unwrap(),
            serde_json::to_string_pretty(&whole).unwrap()
        );
        for (a, b) in got.runs.iter().zip(&whole.runs) {
            assert_eq!(a.outcomes, b.outcomes, "{} outcomes", a.label);
        }
    }
}

/// A pool worker gets the coordinator's jobs as bytes: every field survives, extremes
/// included, and a broken length is refused.
#[wasm_bindgen_test]
fn pool_workers_get_the_same_jobs() {
    let mut jobs = load_workload(&three_site_grid(), &Default::default(), &mut |_| {
        Err("no files".into())
    })
    .unwrap()
    .jobs;
    jobs.push(crate::model::Job {
        id: i64::MIN,
        submit: crate::time::SimTime(i64::MIN),
        runtime: crate::time::SimTime(i64::MAX),
        estimate: crate::time::SimTime(1),
        procs: u32::MAX,
        home: 7,
        user: -1,
        partition: i32::MIN,
    });
    let bytes = worker::encode_jobs(&jobs);
    assert_eq!(worker::decode_jobs(&bytes).unwrap(), jobs);
    assert!(worker::decode_jobs(&bytes[..bytes.len() - 1]).is_err());
}

/// A pool worker's run that does not fit is refused, as are broken outcome bytes; small
/// runs, one core or one algorithm stay in one worker.
#[wasm_bindgen_test]
fn pool_refuses_what_does_not_fit() {
    let scenario = three_site_grid();
    let load = || {
        load_workload(&scenario, &Default::default(), &mut |_| {
            Err("no files".into())
        })
        .unwrap()
    };
    assert!(worker::SlicedRun::new(&scenario, load())
        .unwrap()
        .only(9)
        .is_err());
    let mut part = worker::SlicedRun::new(&scenario, load())
        .unwrap()
        .only(1)
        .unwrap();
    while part.slice(1 << 20).unwrap() == worker::Slice::Running {}
    let report = part.take_last_run().unwrap();
    let mut coordinator = worker::SlicedRun::new(&scenario, load()).unwrap();
    // Run 1 before run 0, or with the outcomes of another workload: refused.
    assert!(coordinator.adopt(1, report.clone()).is_err());
    let mut short = report;
    short.outcomes.pop();
    assert!(coordinator.adopt(0, short).is_err());
    let bytes = worker::encode_outcomes(&part_outcomes());
    assert!(worker::decode_outcomes(&bytes[1..]).is_err());
    let mut bad = bytes.clone();
    bad[20] = 200;
    assert!(worker::decode_outcomes(&bad).is_err());
    assert_eq!(worker::decode_outcomes(&bytes).unwrap(), part_outcomes());
    // The demo is small: it stays in one worker whatever the cores.
    let demo = worker::SlicedRun::new(&Scenario::demo(), {
        load_workload(&Scenario::demo(), &Default::default(), &mut |_| {
            Err("no files".into())
        })
        .unwrap()
    })
    .unwrap();
    let job_runs = demo.jobs().len() * demo.algorithms();
    if (job_runs as u64) < worker::POOL_ABOVE_JOB_RUNS {
        assert_eq!(worker::pool_size(8, &demo), 1);
    }
}

/// One outcome of each kind, for the byte encoding.
fn part_outcomes() -> Vec<crate::engine::Outcome> {
    use crate::engine::{JobOutcome, Outcome, RejectReason};
    use crate::time::SimTime;
    let at = |site, start, end, status| Outcome {
        site,
        start: SimTime(start),
        end: SimTime(end),
        status,
    };
    vec![
        at(0, 0, 10, JobOutcome::Finished),
        at(7, -5, i64::MAX, JobOutcome::Killed),
        at(u32::MAX, i64::MAX, i64::MAX, JobOutcome::Pending),
        at(
            u32::MAX,
            i64::MAX,
            i64::MAX,
            JobOutcome::Rejected(RejectReason::TooWide {
                needs: 9,
                capacity: u32::MAX,
            }),
        ),
        at(1, 2, 3, JobOutcome::Rejected(RejectReason::NoSuchSite)),
        // Lost to a node failure (issue #41).
        at(2, 4, 6, JobOutcome::Lost),
        // Beyond a Slurm partition's MaxTime (issue #42).
        at(
            0,
            i64::MAX,
            i64::MAX,
            JobOutcome::Rejected(RejectReason::PartitionTimeLimit {
                limit_s: 7200,
                max_time_s: 3600,
            }),
        ),
        // Beyond what a Slurm partition's nodes hold (issue #42).
        at(
            0,
            i64::MAX,
            i64::MAX,
            JobOutcome::Rejected(RejectReason::PartitionNodes {
                resource: crate::model::Resource::Gpus,
                needs: 9,
                most: 4,
            }),
        ),
        // Held for ever by a Slurm QOS limit (issue #42), each limit.
        at(
            0,
            i64::MAX,
            i64::MAX,
            JobOutcome::Rejected(RejectReason::QosLimit {
                limit: crate::policy::local::QosLimit::GrpCpus,
                needs: 8,
                most: 6,
            }),
        ),
        at(
            0,
            i64::MAX,
            i64::MAX,
            JobOutcome::Rejected(RejectReason::QosLimit {
                limit: crate::policy::local::QosLimit::MaxJobsPerUser,
                needs: 1,
                most: 0,
            }),
        ),
        at(
            0,
            i64::MAX,
            i64::MAX,
            JobOutcome::Rejected(RejectReason::QosLimit {
                limit: crate::policy::local::QosLimit::GrpJobs,
                needs: 1,
                most: 0,
            }),
        ),
        at(
            0,
            i64::MAX,
            i64::MAX,
            JobOutcome::Rejected(RejectReason::QosLimit {
                limit: crate::policy::local::QosLimit::MaxCpusPerUser,
                needs: 12,
                most: 8,
            }),
        ),
    ]
}
