//! The steppable engine: stepping instant by instant, in slices or to a time gives the same
//! run as `simulate`; snapshots show the queue and EASY's head reservation; a run that is not
//! finished cannot be taken as a result.

use std::sync::Arc;

use gridscope::engine::{simulate_grid, Input, RunConfig, SimError, SimTime, Simulation};
use gridscope::model::{Job, Platform, Site};
use gridscope::policy::grid::{GridParams, GridScheme};
use gridscope::policy::local::LocalPolicyKind;
use gridscope::rng::SimRng;

fn job(id: i64, submit: i64, run: i64, est: i64, procs: u32) -> Job {
    Job {
        id,
        submit: SimTime::from_secs(submit),
        runtime: SimTime::from_secs(run),
        estimate: SimTime::from_secs(est),
        procs,
        home: 0,
        user: -1,
        partition: -1,
    }
}

fn random_jobs(seed: u64, n: usize, width: u32) -> Vec<Job> {
    let mut rng = SimRng::new(seed);
    let mut t = 0;
    (0..n as i64)
        .map(|id| {
            t += rng.range_u64(0, 30 - 1) as i64;
            let run = 1 + rng.range_u64(0, 200 - 1) as i64;
            let est = run + rng.range_u64(0, 100 - 1) as i64;
            job(id, t, run, est, rng.range_u64(1, width as u64) as u32)
        })
        .collect()
}

#[test]
fn stepping_gives_the_same_run_as_simulate() {
    let p = Platform::single(Site::flat("s", 16));
    let cfg = RunConfig::default();
    for kind in LocalPolicyKind::ALL {
        let jobs = random_jobs(7, 300, 16);
        let params = GridParams::default();
        let whole = simulate_grid(
            &p,
            &jobs,
            kind,
            GridScheme::Local,
            &params,
            &cfg,
            &mut |_, _| true,
        )
        .unwrap();
        // One instant at a time.
        let mut sim =
            Simulation::new(&p, &jobs[..], kind, GridScheme::Local, &params, &cfg).unwrap();
        let mut steps = 0;
        while sim.step().unwrap() {
            steps += 1;
        }
        assert!(steps > 0);
        let stepped = sim.finish().unwrap();
        assert_eq!(stepped.outcomes, whole.outcomes, "{kind}");
        assert_eq!(stepped.events, whole.events, "{kind}");
        assert_eq!(stepped.max_queue, whole.max_queue, "{kind}");
        // In slices of events, over shared (owned) inputs, as the web worker does.
        let shared: Arc<[Job]> = Arc::from(jobs.clone());
        let mut sim = Simulation::new(
            Input::Shared(Arc::new(p.clone())),
            shared,
            kind,
            GridScheme::Local,
            &params,
            &cfg,
        )
        .unwrap();
        while !sim.run_events(50).unwrap() {}
        assert_eq!(sim.finish().unwrap().outcomes, whole.outcomes, "{kind}");
    }
}

#[test]
fn run_until_stops_at_the_given_time() {
    let p = Platform::single(Site::flat("s", 4));
    let jobs = [
        job(1, 0, 100, 100, 4),
        job(2, 10, 50, 50, 4),
        job(3, 500, 5, 5, 1),
    ];
    let cfg = RunConfig::default();
    let mut sim = Simulation::new(
        &p,
        &jobs[..],
        LocalPolicyKind::Fcfs,
        GridScheme::Local,
        &GridParams::default(),
        &cfg,
    )
    .unwrap();
    assert!(!sim.run_until(SimTime::from_secs(100)).unwrap());
    assert_eq!(sim.now(), SimTime::from_secs(100));
    // Job 1 ended at 100 and job 2 started then.
    assert_eq!(sim.last_step().completed, vec![0]);
    assert_eq!(sim.last_step().started, vec![(0, 1)]);
    assert_eq!(sim.progress(), (1, 3));
    assert_eq!(sim.next_time(), Some(SimTime::from_secs(150)));
    // Not finished: no result can be taken.
    assert!(matches!(sim.finish(), Err(SimError::Cancelled)));
}

#[test]
fn snapshot_shows_easys_shadow_time_and_extra_units() {
    // 10 units; job 0 holds 6 until 100 (by estimate), job 1 needs 8: its shadow is 100,
    // when 10 are free, 2 beyond its need. Job 2 (2 units, long) backfills on the extra units.
    let p = Platform::single(Site::flat("s", 10));
    let jobs = [
        job(0, 0, 100, 100, 6),
        job(1, 1, 100, 100, 8),
        job(2, 1, 1000, 1000, 2),
        job(3, 1, 1000, 1000, 2),
    ];
    let cfg = RunConfig::default();
    let mut sim = Simulation::new(
        &p,
        &jobs[..],
        LocalPolicyKind::Easy,
        GridScheme::Local,
        &GridParams::default(),
        &cfg,
    )
    .unwrap();
    sim.step().unwrap();
    sim.step().unwrap();
    assert_eq!(sim.now(), SimTime::from_secs(1));
    // Job 2 backfilled on the 2 extra units; job 3 did not fit (2 free, but no extra left).
    assert_eq!(sim.last_step().started, vec![(0, 2)]);
    let snap = sim.site_snapshot(0).unwrap();
    assert_eq!(snap.free, 2);
    assert_eq!(
        snap.queue.iter().map(|q| q.idx).collect::<Vec<_>>(),
        vec![1, 3]
    );
    let head = snap.head.unwrap();
    assert_eq!(head.job, 1);
    assert_eq!(head.shadow, SimTime::from_secs(100));
    // At the shadow, 10 − 2 (job 2 still running) = 8 free: none beyond the head's need.
    assert_eq!(head.extra, 0);
    assert_eq!(
        snap.profile,
        vec![
            (SimTime::from_secs(1), 2),
            (SimTime::from_secs(100), 8),
            (SimTime::from_secs(1001), 10)
        ]
    );
    assert!(sim.site_snapshot(1).is_none());
}

#[test]
fn recorded_passes_say_which_jobs_came_from_the_head_and_which_were_backfilled() {
    let p = Platform::single(Site::flat("s", 10));
    let jobs = [
        job(0, 0, 100, 100, 6),
        job(1, 1, 100, 100, 8),
        job(2, 1, 1000, 1000, 2),
    ];
    let cfg = RunConfig::default();
    let mut sim = Simulation::new(
        &p,
        &jobs[..],
        LocalPolicyKind::Easy,
        GridScheme::Local,
        &GridParams::default(),
        &cfg,
    )
    .unwrap()
    .record_passes();
    sim.step().unwrap();
    // t = 0: job 0 starts from the head.
    let pass = &sim.last_step().passes[0];
    assert_eq!(
        (pass.started.clone(), pass.note.unwrap().heads),
        (vec![0], 1)
    );
    sim.step().unwrap();
    // t = 1: the head (job 1) waits for its shadow at 100 with 2 extra units; job 2 is
    // backfilled on them.
    let pass = &sim.last_step().passes[0];
    let note = pass.note.unwrap();
    assert_eq!(pass.started, vec![2]);
    assert_eq!(note.heads, 0);
    let r = note.reservation.unwrap();
    assert_eq!((r.job, r.shadow, r.extra), (1, SimTime::from_secs(100), 2));
}

#[test]
fn the_idealized_scheme_steps_in_one_go() {
    let p = Platform {
        name: "two".into(),
        sites: vec![Site::flat("a", 4), Site::flat("b", 4)],
    };
    let jobs = vec![job(1, 0, 100, 100, 4), job(2, 0, 100, 100, 4)];
    let cfg = RunConfig::default();
    let whole = simulate_grid(
        &p,
        &jobs,
        LocalPolicyKind::Easy,
        GridScheme::Ideal,
        &GridParams::default(),
        &cfg,
        &mut |_, _| true,
    )
    .unwrap();
    let mut sim = Simulation::new(
        &p,
        &jobs[..],
        LocalPolicyKind::Easy,
        GridScheme::Ideal,
        &GridParams::default(),
        &cfg,
    )
    .unwrap();
    assert!(sim.step().unwrap());
    assert!(!sim.step().unwrap());
    assert_eq!(sim.finish().unwrap().outcomes, whole.outcomes);
}

#[test]
fn bad_input_is_a_typed_error() {
    let p = Platform::single(Site::flat("s", 4));
    let jobs = vec![job(5, 10, 1, 1, 1), job(6, 0, 1, 1, 1)];
    let e = simulate_grid(
        &p,
        &jobs,
        LocalPolicyKind::Fcfs,
        GridScheme::Local,
        &GridParams::default(),
        &RunConfig::default(),
        &mut |_, _| true,
    )
    .unwrap_err();
    assert_eq!(e, SimError::Unsorted { job: 6, after: 5 });
    assert_eq!(
        e.to_string(),
        "jobs must be sorted by submit time (job 6 comes after job 5)"
    );
}

#[test]
fn the_step_view_explains_each_start() {
    use gridscope::scenario::steps::trace_steps;
    use gridscope::scenario::{load_workload, AlgorithmSpec, PlatformSpec, Scenario, WorkloadSpec};

    // The backfill fixture: a head that must not be delayed and a job that backfills.
    let path = crate::root().join("tests/fixtures/backfill.swf");
    let bytes = std::fs::read(&path).unwrap();
    let scenario = Scenario {
        failures: None,
        carbon: None,
        version: 1,
        name: "step".into(),
        seed: 1,
        platform: PlatformSpec::FromTrace { procs: None },
        workload: WorkloadSpec::Swf {
            file: "backfill.swf".into(),
            strict: false,
            format: Default::default(),
            utc_offset_min: 0,
        },
        algorithms: vec![AlgorithmSpec::local(LocalPolicyKind::Easy)],
        options: RunConfig::default(),
    };
    let w = load_workload(&scenario, &Default::default(), &mut |_| Ok(bytes.clone())).unwrap();
    let frames = trace_steps(&scenario, w, 0, 0, 0.0, 1000).unwrap();
    assert!(!frames.is_empty());
    let all: Vec<&String> = frames.iter().flat_map(|f| &f.events).collect();
    assert!(
        all.iter().any(|e| e.contains("started: head of the queue")),
        "{all:?}"
    );
    assert!(
        all.iter().any(|e| e.contains("started: backfilled")),
        "{all:?}"
    );
    // Frames are in time order and the free units never exceed the capacity.
    assert!(frames.windows(2).all(|w| w[0].time_s < w[1].time_s));
    assert!(frames.iter().all(|f| f.free <= f.capacity));
    // It is the same run as the whole simulation: the last frame leaves nothing queued.
    assert!(frames.last().unwrap().queue.is_empty());
}
