//! Differential test: the engine's local schedulers against the naive reference in
//! `reference.rs`, on thousands of random small workloads, plus one hand-worked example
//! per policy.
//!
//! Every random case is reproducible from (policy, config, seed): `gen_case(seed)` rebuilds
//! the workload, and a mismatch panics with everything needed to turn it into a golden test.

use std::fmt::Write as _;
use std::time::Instant;

use gridscope::engine::{
    simulate, EstimateSource, EventOrder, JobOutcome, Outcome, RunConfig, SimTime,
};
use gridscope::model::{Job, Platform, Site};
use gridscope::policy::local::LocalPolicyKind;
use gridscope::rng::SimRng;

use crate::reference::{effective, killed, reference_starts};

/// Random workloads per (policy, order, config) combination; 3 orders × 4 configs × 6
/// policies × this.
const CASES_PER_COMBO: u64 = 1000;

const CONFIGS: [RunConfig; 4] = [
    RunConfig {
        estimates: EstimateSource::Trace,
        kill_at_estimate: true,
        event_order: EventOrder::Gridscope,
    },
    RunConfig {
        estimates: EstimateSource::Trace,
        kill_at_estimate: false,
        event_order: EventOrder::Gridscope,
    },
    RunConfig {
        estimates: EstimateSource::Exact,
        kill_at_estimate: true,
        event_order: EventOrder::Gridscope,
    },
    RunConfig {
        estimates: EstimateSource::Exact,
        kill_at_estimate: false,
        event_order: EventOrder::Gridscope,
    },
];

/// One random workload on one flat site.
struct Case {
    capacity: u32,
    jobs: Vec<Job>,
}

fn job(id: i64, submit: SimTime, runtime: SimTime, estimate: SimTime, procs: u32) -> Job {
    Job {
        id,
        submit,
        runtime,
        estimate,
        procs,
        home: 0,
        user: -1,
        partition: -1,
    }
}

fn secs(s: i64) -> SimTime {
    SimTime::from_secs(s)
}

/// Whole seconds most of the time, an odd number of milliseconds now and then.
fn jitter(rng: &mut SimRng, p: f64) -> SimTime {
    if rng.uniform() < p {
        SimTime(rng.range_u64(1, 999) as i64)
    } else {
        SimTime::ZERO
    }
}

/// A small random workload: 1–40 jobs on 1–16 units, submits on few distinct seconds so
/// that ties are frequent, estimates below, equal to and above the runtime, now and then a
/// job wider than the site.
fn gen_case(seed: u64) -> Case {
    let mut rng = SimRng::new(seed);
    let capacity = rng.range_u64(1, 16) as u32;
    let n = rng.range_u64(1, 40) as usize;
    // Span of submit times: a burst (many ties), moderate or spread.
    let span = [0, 3, 10, 30, 60][rng.range_u64(0, 4) as usize];
    let mut jobs: Vec<Job> = Vec::with_capacity(n);
    for _ in 0..n {
        let submit = secs(rng.range_u64(0, span) as i64) + jitter(&mut rng, 0.1);
        let runtime = secs(rng.range_u64(1, 20) as i64) + jitter(&mut rng, 0.15);
        let mode = rng.uniform();
        let estimate = if mode < 0.3 {
            runtime
        } else if mode < 0.6 {
            // Below the runtime (always possible: runtime ≥ 1 s).
            let whole = secs(rng.range_u64(1, 19) as i64);
            if whole < runtime && rng.uniform() < 0.8 {
                whole
            } else {
                SimTime(rng.range_u64(1, runtime.0 as u64 - 1) as i64)
            }
        } else {
            // Above the runtime, by whole seconds and/or a few milliseconds.
            let above = secs(rng.range_u64(0, 20) as i64) + jitter(&mut rng, 0.2);
            runtime
                + if above == SimTime::ZERO {
                    secs(1)
                } else {
                    above
                }
        };
        let procs = if rng.uniform() < 0.04 {
            capacity + rng.range_u64(1, 3) as u32
        } else if rng.uniform() < 0.5 {
            rng.range_u64(1, capacity.min(3) as u64) as u32
        } else {
            rng.range_u64(1, capacity as u64) as u32
        };
        jobs.push(job(0, submit, runtime, estimate, procs));
    }
    jobs.sort_by_key(|j| j.submit); // stable
    for (i, j) in jobs.iter_mut().enumerate() {
        j.id = i as i64 + 1;
    }
    Case { capacity, jobs }
}

fn engine_outcomes(
    capacity: u32,
    jobs: &[Job],
    kind: LocalPolicyKind,
    cfg: &RunConfig,
) -> Result<Vec<Outcome>, String> {
    let platform = Platform::single(Site::flat("s", capacity));
    simulate(&platform, jobs, kind, cfg, &mut |_, _| true)
        .map(|out| out.outcomes)
        .map_err(|e| e.to_string())
}

/// The reference's verdict for one job, in the engine's terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    Rejected,
    Ran {
        start: SimTime,
        end: SimTime,
        killed: bool,
    },
}

fn expected(capacity: u32, jobs: &[Job], kind: LocalPolicyKind, cfg: &RunConfig) -> Vec<Verdict> {
    reference_starts(capacity, jobs, kind, cfg)
        .into_iter()
        .zip(jobs)
        .map(|(s, j)| match s {
            None => Verdict::Rejected,
            Some(start) => Verdict::Ran {
                start,
                end: start + effective(j, cfg),
                killed: killed(j, cfg),
            },
        })
        .collect()
}

fn actual(outcomes: &[Outcome]) -> Vec<Option<Verdict>> {
    outcomes
        .iter()
        .map(|o| match o.status {
            JobOutcome::Rejected(_) => Some(Verdict::Rejected),
            JobOutcome::Finished | JobOutcome::Killed => Some(Verdict::Ran {
                start: o.start,
                end: o.end,
                killed: o.status == JobOutcome::Killed,
            }),
            // No failures in the differential runs.
            JobOutcome::Pending | JobOutcome::Lost => None,
        })
        .collect()
}

fn show(v: Option<Verdict>) -> String {
    match v {
        None => "PENDING".to_string(),
        Some(Verdict::Rejected) => "rejected".to_string(),
        Some(Verdict::Ran { start, end, killed }) => {
            format!(
                "start {start} end {end}{}",
                if killed { " killed" } else { "" }
            )
        }
    }
}

fn describe_case(
    kind: LocalPolicyKind,
    cfg: &RunConfig,
    seed: Option<u64>,
    capacity: u32,
    jobs: &[Job],
) -> String {
    let mut m = String::new();
    let _ = writeln!(
        m,
        "policy {} ({kind:?}), cfg {cfg:?}, seed {}, capacity {capacity}",
        kind.name(),
        seed.map_or("-".to_string(), |s| s.to_string())
    );
    let _ = writeln!(m, "jobs (seconds):");
    for j in jobs {
        let _ = writeln!(
            m,
            "  job(id {}, submit {}, runtime {}, estimate {}, procs {})",
            j.id, j.submit, j.runtime, j.estimate, j.procs
        );
    }
    m
}

/// Runs one workload through the engine and the reference; panics with the whole case on
/// any difference. Returns (jobs that ran, jobs that waited) for the summary.
fn check(
    kind: LocalPolicyKind,
    cfg: &RunConfig,
    seed: Option<u64>,
    capacity: u32,
    jobs: &[Job],
) -> (usize, usize) {
    let want = expected(capacity, jobs, kind, cfg);
    let got = match engine_outcomes(capacity, jobs, kind, cfg) {
        Ok(o) => actual(&o),
        Err(e) => panic!(
            "engine error: {e}\n{}",
            describe_case(kind, cfg, seed, capacity, jobs)
        ),
    };
    let bad = got.len() != want.len() || want.iter().zip(&got).any(|(w, g)| Some(*w) != *g);
    if bad {
        let mut m = String::from("engine and reference disagree\n");
        m += &describe_case(kind, cfg, seed, capacity, jobs);
        let _ = writeln!(m, "schedules (reference | engine):");
        for (i, j) in jobs.iter().enumerate() {
            let w = want.get(i).copied();
            let g = got.get(i).copied().flatten();
            let mark = if w == g { "" } else { "   <-- differs" };
            let _ = writeln!(m, "  job {}: {} | {}{mark}", j.id, show(w), show(g));
        }
        panic!("{m}");
    }
    let ran = want
        .iter()
        .filter(|v| matches!(v, Verdict::Ran { .. }))
        .count();
    let waited = want
        .iter()
        .zip(jobs)
        .filter(|(v, j)| matches!(v, Verdict::Ran { start, .. } if *start > j.submit))
        .count();
    (ran, waited)
}

/// The event orders of one instant the random cases run under (docs/local-policies.md).
const ORDERS: [EventOrder; 3] = [EventOrder::Gridscope, EventOrder::Pyss, EventOrder::Cqsim];

/// All random cases of one policy: every event order × every config × `CASES_PER_COMBO`
/// seeds (the default order's seeds are the ones it always had; the others have their own).
fn differential(kind: LocalPolicyKind) {
    let t0 = Instant::now();
    let (mut cases, mut jobs_ran, mut jobs_waited) = (0u64, 0usize, 0usize);
    for (o, order) in ORDERS.iter().enumerate() {
        for (c, cfg) in CONFIGS.iter().enumerate() {
            let cfg = RunConfig {
                event_order: *order,
                ..*cfg
            };
            for k in 0..CASES_PER_COMBO {
                let seed = (o as u64) * 10_000_000 + (c as u64) * 1_000_000 + k;
                let case = gen_case(seed);
                let (ran, waited) = check(kind, &cfg, Some(seed), case.capacity, &case.jobs);
                cases += 1;
                jobs_ran += ran;
                jobs_waited += waited;
            }
        }
    }
    println!(
        "differential {}: {cases} cases ({} orders × {} configs × {CASES_PER_COMBO}), {jobs_ran} jobs ran, {jobs_waited} waited, {:.2?}",
        kind.name(),
        ORDERS.len(),
        CONFIGS.len(),
        t0.elapsed()
    );
}

#[test]
fn differential_fcfs() {
    differential(LocalPolicyKind::Fcfs);
}

#[test]
fn differential_easy() {
    differential(LocalPolicyKind::Easy);
}

#[test]
fn differential_conservative() {
    differential(LocalPolicyKind::Conservative);
}

#[test]
fn differential_conservative_rebuild() {
    differential(LocalPolicyKind::ConservativeRebuild);
}

#[test]
fn differential_sjf() {
    differential(LocalPolicyKind::Sjf);
}

#[test]
fn differential_firstfit() {
    differential(LocalPolicyKind::FirstFit);
}

#[test]
fn all_policies_are_covered() {
    // A new policy must get its own differential test (and a reference implementation).
    assert_eq!(LocalPolicyKind::ALL.len(), 5);
    assert_eq!(LocalPolicyKind::EVERY.len(), 6);
}

// ---------------------------------------------------------------------------------------
// Hand-worked examples. Every job has estimate = runtime, Trace estimates, kills on; the
// expected starts are checked against both the reference and the engine.

const PLAIN: RunConfig = RunConfig {
    estimates: EstimateSource::Trace,
    kill_at_estimate: true,
    event_order: EventOrder::Gridscope,
};

/// (submit, runtime = estimate, procs), in seconds.
fn simple_jobs(spec: &[(i64, i64, u32)]) -> Vec<Job> {
    spec.iter()
        .enumerate()
        .map(|(i, &(sub, rt, p))| job(i as i64 + 1, secs(sub), secs(rt), secs(rt), p))
        .collect()
}

fn hand_check(
    kind: LocalPolicyKind,
    cfg: &RunConfig,
    capacity: u32,
    jobs: &[Job],
    want_secs: &[Option<i64>],
) {
    let want: Vec<Option<SimTime>> = want_secs.iter().map(|s| s.map(secs)).collect();
    let reference = reference_starts(capacity, jobs, kind, cfg);
    assert_eq!(
        reference,
        want,
        "reference disagrees with the hand-worked starts\n{}",
        describe_case(kind, cfg, None, capacity, jobs)
    );
    check(kind, cfg, None, capacity, jobs);
}

#[test]
fn hand_fcfs_head_blocks() {
    // 4 units. J1 (3 units, 0–10) starts at 0, leaving 1. J2 needs 2: does not fit, and
    // strict FCFS stops there, so J3 (1 unit) waits behind it although it fits.
    // At 10 J1 ends: J2 and J3 start. J4 is wider than the site: rejected.
    let jobs = simple_jobs(&[(0, 10, 3), (0, 5, 2), (0, 2, 1), (1, 1, 5)]);
    hand_check(
        LocalPolicyKind::Fcfs,
        &PLAIN,
        4,
        &jobs,
        &[Some(0), Some(10), Some(10), None],
    );
}

#[test]
fn hand_firstfit_skips_blocked_jobs() {
    // Same workload as FCFS: J1 starts at 0 (1 unit left), J2 (2 units) is skipped, J3
    // (1 unit) starts at 0. At 2 J3 ends: 1 unit free, J2 still does not fit. At 10 J2 starts.
    let jobs = simple_jobs(&[(0, 10, 3), (0, 5, 2), (0, 2, 1), (1, 1, 5)]);
    hand_check(
        LocalPolicyKind::FirstFit,
        &PLAIN,
        4,
        &jobs,
        &[Some(0), Some(10), Some(0), None],
    );
}

#[test]
fn hand_sjf_orders_by_estimate() {
    // 2 units. J1 (2 units, 0–10) starts at 0. At 1, J2 (1 unit, runtime 2 but estimate 8),
    // J3 (2 units, 3 s) and J4 (1 unit, 3 s) arrive: by estimate the queue is J3, J4 (tie on
    // 3 s, arrival order), J2. At 10: J3 starts and takes both units; J4 would fit nowhere.
    // At 13: J4 then J2 start. J2 finishes at 15 (it runs 2 s of its 8 s estimate).
    let mut jobs = simple_jobs(&[(0, 10, 2), (1, 8, 1), (1, 3, 2), (1, 3, 1)]);
    jobs[1].runtime = secs(2);
    hand_check(
        LocalPolicyKind::Sjf,
        &PLAIN,
        2,
        &jobs,
        &[Some(0), Some(13), Some(10), Some(13)],
    );
    // Under FCFS the same queue runs in arrival order: J2 and J3 can't both fit at 10, so
    // J2 starts at 10 (1 unit, until 12); J3 (2 units) waits until 12, J4 until 15.
    hand_check(
        LocalPolicyKind::Fcfs,
        &PLAIN,
        2,
        &jobs,
        &[Some(0), Some(10), Some(12), Some(15)],
    );
}

#[test]
fn hand_easy_does_not_delay_the_head() {
    // 4 units. J1 (2 units, 0–10) starts at 0. At 1 J2 (4 units, 5 s) becomes the head: it
    // cannot start before J1's predicted end, so its shadow time is 10 with 0 extra units.
    // At 2 J3 (1 unit, 20 s) would end at 22 > 10 and the head leaves no extra units: it
    // does not backfill. J4 (1 unit, 5 s) ends at 7 ≤ 10: it backfills at 2.
    // At 7 (J4 ends) nothing can start. At 10 J2 starts (until 15); J3 starts at 15.
    let jobs = simple_jobs(&[(0, 10, 2), (1, 5, 4), (2, 20, 1), (2, 5, 1)]);
    hand_check(
        LocalPolicyKind::Easy,
        &PLAIN,
        4,
        &jobs,
        &[Some(0), Some(10), Some(15), Some(2)],
    );
}

#[test]
fn hand_easy_uses_extra_units() {
    // 4 units. J1 (2 units, 0–10) starts at 0. Head J2 (3 units, 5 s): shadow 10, and at 10
    // it leaves 4 − 3 = 1 extra unit. J3 (4 units) does not fit now. J4 (1 unit, 20 s)
    // outlives the shadow but fits in the extra unit: it backfills at 1. J5 (2 units, 9 s)
    // would end by the shadow but only 1 unit is free now: it waits.
    // At 10: J1 ends, J2 starts (3 units, J4 holds 1). At 15 J2 ends: J3 needs 4 but J4
    // runs until 21, so J3 starts at 21 (EASY let J4 delay the second job). Does J5 backfill at
    // 15? The head J3 has shadow 21 (J4's end) with 0 extra, and J5 would end at 24 > 21:
    // no. J5 starts when J3 ends, at 31.
    let jobs = simple_jobs(&[(0, 10, 2), (1, 5, 3), (1, 10, 4), (1, 20, 1), (1, 9, 2)]);
    hand_check(
        LocalPolicyKind::Easy,
        &PLAIN,
        4,
        &jobs,
        &[Some(0), Some(10), Some(21), Some(1), Some(31)],
    );
}

#[test]
fn hand_conservative_protects_every_reservation() {
    // The workload of `hand_easy_uses_extra_units`. At 1 the plan is rebuilt in arrival order:
    // J1 runs until 10; J2 (3 units) is reserved at 10–15; J3 (4 units) at 15–25.
    // J4 (1 unit, 20 s): at 1 its window 1–21 overlaps J3's 4 units at 15; at 10 (10–30)
    // too; at 15 J3 is there; at 25 it fits: reserved at 25, unlike EASY.
    // J5 (2 units, 9 s): at 1 the window 1–10 only sees J1 (2 units): it starts at 1.
    // Later passes reproduce the same plan: J2 at 10, J3 at 15, J4 at 25.
    let jobs = simple_jobs(&[(0, 10, 2), (1, 5, 3), (1, 10, 4), (1, 20, 1), (1, 9, 2)]);
    hand_check(
        LocalPolicyKind::Conservative,
        &PLAIN,
        4,
        &jobs,
        &[Some(0), Some(10), Some(15), Some(25), Some(1)],
    );
}

#[test]
fn hand_easy_overrun_moves_the_shadow() {
    // Kills off. 2 units. J1 (1 unit, estimate 5, runtime 10) starts at 0. J2 (2 units)
    // arrives at 1 and becomes the head: shadow 5 (J1's predicted end), 0 extra.
    // J3 (1 unit, 3 s) arrives at 3: 3 + 3 = 6 > 5, no extra: it waits.
    // At 5 J1 outlives its estimate: its predicted end becomes 10 and that instant has a
    // pass. Shadow 10, so J3 (5–8) now backfills. At 10 J1 ends and J2 starts.
    let cfg = RunConfig {
        estimates: EstimateSource::Trace,
        kill_at_estimate: false,
        event_order: EventOrder::Gridscope,
    };
    let mut jobs = simple_jobs(&[(0, 5, 1), (1, 4, 2), (3, 3, 1)]);
    jobs[0].runtime = secs(10);
    hand_check(
        LocalPolicyKind::Easy,
        &cfg,
        2,
        &jobs,
        &[Some(0), Some(10), Some(5)],
    );
}

#[test]
fn hand_conservative_same_instant_arrivals_keep_input_order() {
    // 1 unit. J1 runs 0–1. J2 and J3 (1 s each) both arrive at 2, in that order: J2 is
    // planned first and starts at 2, J3 at 3. (The engine once planned same-instant
    // arrivals in reverse order and started J3 first; found by the differential test.)
    let jobs = simple_jobs(&[(0, 1, 1), (2, 1, 1), (2, 1, 1)]);
    hand_check(
        LocalPolicyKind::Conservative,
        &PLAIN,
        1,
        &jobs,
        &[Some(0), Some(2), Some(3)],
    );
}

/// Up to three random fully used reservations on a site of `capacity` units, never over
/// capacity together.
fn random_blocks(rng: &mut SimRng, capacity: u32) -> Vec<crate::reference::Block> {
    let mut blocks: Vec<crate::reference::Block> = Vec::new();
    for _ in 0..rng.range_u64(1, 3) {
        let units = rng.range_u64(1, capacity as u64) as u32;
        let from = secs(rng.range_u64(0, 40) as i64) + jitter(rng, 0.2);
        let to = from + secs(rng.range_u64(1, 20) as i64);
        let points: Vec<SimTime> = blocks.iter().map(|b| b.0).chain([from]).collect();
        let fits = points.iter().filter(|&&x| from <= x && x < to).all(|&x| {
            let used: u32 = blocks
                .iter()
                .filter(|b| b.0 <= x && x < b.1)
                .map(|b| b.2)
                .sum();
            used + units <= capacity
        });
        if fits {
            blocks.push((from, to, units));
        }
    }
    blocks
}

/// Local starts under SCJG's simulation with `blocks` as metajobs that take their
/// reservation at their earliest start and use all of it.
fn scjg_starts(
    capacity: u32,
    jobs: &[Job],
    kind: LocalPolicyKind,
    blocks: &[crate::reference::Block],
) -> Vec<Option<SimTime>> {
    use gridscope::scjg::{
        simulate, MetaStatus, Metajob, Request, ScjgInput, ScjgParams, SiteSpec,
    };
    let metajobs: Vec<Metajob> = blocks
        .iter()
        .enumerate()
        .map(|(i, &(from, to, units))| Metajob {
            id: 1000 + i as i64,
            submit: SimTime::ZERO,
            runtime: to - from,
            wallclock: to - from,
            request: Request::Specified(vec![(0, units)]),
            scheduler: 0,
            earliest: from,
        })
        .collect();
    let sites = [SiteSpec {
        name: "s".into(),
        units: capacity,
        policy: kind,
    }];
    let local: [&[Job]; 1] = [jobs];
    let input = ScjgInput {
        sites: &sites,
        local: &local,
        metajobs: &metajobs,
    };
    let out = simulate(input, &ScjgParams::default()).expect("scjg run");
    for (m, b) in out.meta.iter().zip(blocks) {
        assert!(
            matches!(m.status, MetaStatus::Ran { start, .. } if start == b.0),
            "block {b:?} not at its start: {:?}",
            m.status
        );
    }
    out.local[0].iter().map(|o| o.start).collect()
}

/// The local policies around advance reservations against the reference's naive rule, on
/// random workloads with random reservations (estimates from the trace, kills on).
#[test]
fn differential_with_reservations() {
    let cfg = RunConfig::default();
    for kind in LocalPolicyKind::EVERY {
        for seed in 0..1000u64 {
            let case = gen_case(seed);
            let mut rng = SimRng::new(seed ^ 0xB10C);
            let blocks = random_blocks(&mut rng, case.capacity);
            let want = crate::reference::reference_starts_with_blocks(
                case.capacity,
                &case.jobs,
                kind,
                &cfg,
                &blocks,
            );
            let got = scjg_starts(case.capacity, &case.jobs, kind, &blocks);
            if want != got {
                let mut m = format!("{kind}, seed {seed}: reservations {blocks:?}\n");
                m += &describe_case(kind, &cfg, Some(seed), case.capacity, &case.jobs);
                for (i, j) in case.jobs.iter().enumerate() {
                    let mark = if want[i] == got[i] {
                        ""
                    } else {
                        "   <-- differs"
                    };
                    let _ = writeln!(m, "  job {}: {:?} | {:?}{mark}", j.id, want[i], got[i]);
                }
                panic!("{m}");
            }
        }
    }
}

/// Start times (s) of `jobs` on one site of `capacity` units under `order` (the engine's,
/// checked against the reference's).
fn starts_under(
    kind: LocalPolicyKind,
    order: EventOrder,
    capacity: u32,
    jobs: &[Job],
) -> Vec<Option<i64>> {
    let cfg = RunConfig {
        event_order: order,
        ..PLAIN
    };
    let got: Vec<Option<i64>> = engine_outcomes(capacity, jobs, kind, &cfg)
        .unwrap()
        .iter()
        .map(|o| o.ran().then(|| o.start.as_secs_f64() as i64))
        .collect();
    // The reference takes the instant's events in the same order, independently.
    let want: Vec<Option<i64>> = reference_starts(capacity, jobs, kind, &cfg)
        .iter()
        .map(|s| s.map(|s| s.as_secs_f64() as i64))
        .collect();
    assert_eq!(got, want, "engine | reference under {order:?}");
    got
}

#[test]
fn event_orders_differ_where_an_arrival_meets_an_early_end() {
    // EASY, 4 units. J1 (3 units, runs 5 s of a 10 s estimate) starts at 0. H (4 units,
    // 10 s) arrives at 1 and waits, its reservation at J1's estimated end, 10. A (1 unit,
    // 2 s) arrives at 5, when J1 ends early.
    // gridscope: J1's completion first (4 free), then A; one pass: H (head) starts at 5 and
    //   A waits for it: 15.
    // cqsim: J1's completion with a pass (H starts at 5), then A's arrival with a pass (no
    //   room): the same.
    // pyss: A's submission first, while J1's estimated slice still holds 3 units until 10:
    //   H cannot start, A backfills (1 unit free, ends at 7 ≤ 10) and starts at 5; then J1's
    //   termination frees 3 units, too few for H, which starts when A ends, at 7.
    let mut jobs = simple_jobs(&[(0, 10, 3), (1, 10, 4), (5, 2, 1)]);
    jobs[0].runtime = secs(5);
    let easy = LocalPolicyKind::Easy;
    let want_ours = vec![Some(0), Some(5), Some(15)];
    assert_eq!(
        starts_under(easy, EventOrder::Gridscope, 4, &jobs),
        want_ours
    );
    assert_eq!(starts_under(easy, EventOrder::Cqsim, 4, &jobs), want_ours);
    assert_eq!(
        starts_under(easy, EventOrder::Pyss, 4, &jobs),
        vec![Some(0), Some(7), Some(5)]
    );
    // J1 ending exactly at its estimate (runtime 10, A at 10): pyss counts it free before
    // A's submission, so every order starts H at 10 and A at 20.
    let mut exact = simple_jobs(&[(0, 10, 3), (1, 10, 4), (10, 2, 1)]);
    exact[0].runtime = secs(10);
    for order in [EventOrder::Gridscope, EventOrder::Pyss, EventOrder::Cqsim] {
        assert_eq!(
            starts_under(easy, order, 4, &exact),
            vec![Some(0), Some(10), Some(20)],
            "{order:?}"
        );
    }
}

#[test]
fn event_orders_differ_where_two_jobs_end_together() {
    // First-fit, 4 units. J1 and J2 (2 units, 5 s each) start at 0. W (4 units, 3 s) arrives
    // at 1, S (2 units, 10 s) at 2; both wait. At 5 both J1 and J2 end.
    // gridscope (and pyss: both end at their estimates, so both are free before any pass):
    //   one pass with 4 units free: W fits first and starts at 5; S waits for it: 8.
    // cqsim: J1's completion with a pass (2 free: W does not fit, S does and starts at 5),
    //   then J2's with a pass (2 free, W still does not fit): W waits for S, until 15.
    let jobs = simple_jobs(&[(0, 5, 2), (0, 5, 2), (1, 3, 4), (2, 10, 2)]);
    let ff = LocalPolicyKind::FirstFit;
    let ours = vec![Some(0), Some(0), Some(5), Some(8)];
    assert_eq!(starts_under(ff, EventOrder::Gridscope, 4, &jobs), ours);
    assert_eq!(starts_under(ff, EventOrder::Pyss, 4, &jobs), ours);
    assert_eq!(
        starts_under(ff, EventOrder::Cqsim, 4, &jobs),
        vec![Some(0), Some(0), Some(15), Some(5)]
    );
}

#[test]
fn pyss_passes_after_each_termination_even_one_already_free() {
    // EASY, 4 units. X (2 units, 10 s of a 10 s estimate) and Y (2 units, 10 s of a 20 s
    // estimate) start at 0. H (4 units, 5 s) arrives at 1: its reservation is at Y's
    // estimated end, 20. B (2 units, 8 s) arrives at 2; nothing is free. At 10 both end.
    // gridscope: both freed, one pass: H starts at 10, B when H ends, 15.
    // pyss: X's slice has ended (free), no submission; X's termination comes first (it
    //   started first) and its pass sees 2 units free: H cannot start, B backfills (ends at
    //   18 ≤ 20) and starts at 10; Y's termination frees 2 more, too few for H: H starts at
    //   18. cqsim, completion by completion with a pass after each: the same as pyss.
    let mut jobs = simple_jobs(&[(0, 10, 2), (0, 20, 2), (1, 5, 4), (2, 8, 2)]);
    jobs[1].runtime = secs(10);
    let easy = LocalPolicyKind::Easy;
    assert_eq!(
        starts_under(easy, EventOrder::Gridscope, 4, &jobs),
        vec![Some(0), Some(0), Some(10), Some(15)]
    );
    for order in [EventOrder::Pyss, EventOrder::Cqsim] {
        assert_eq!(
            starts_under(easy, order, 4, &jobs),
            vec![Some(0), Some(0), Some(18), Some(10)],
            "{order:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// Property: every local policy under every event order keeps the run's invariants.

/// A random workload made for same-instant events: whole seconds only, so jobs end
/// together, end when others arrive and are due when others end; estimates exact, short
/// (early ends) or long (overruns); one to three sites, some node-exclusive, some slower.
fn gen_instants_case(seed: u64) -> (Platform, Vec<Job>) {
    let mut rng = SimRng::new(seed);
    let sites: Vec<Site> = (0..rng.range_u64(1, 3))
        .map(|k| {
            let mut site = Site::flat(format!("s{k}"), rng.range_u64(1, 12) as u32);
            if rng.uniform() < 0.3 {
                site.cpus_per_node = rng.range_u64(2, 4) as u32;
                site.allocation = gridscope::model::Allocation::Node;
            }
            if rng.uniform() < 0.3 {
                site.speed = [0.5, 2.0, 3.0][rng.range_u64(0, 2) as usize];
            }
            site
        })
        .collect();
    let platform = Platform {
        name: "p".into(),
        sites,
    };
    let widest = platform.sites.iter().map(|s| s.cpus()).max().unwrap_or(1);
    let mut jobs: Vec<Job> = (0..rng.range_u64(1, 40))
        .map(|_| {
            let submit = secs(rng.range_u64(0, 12) as i64);
            let runtime = secs(rng.range_u64(1, 6) as i64);
            let estimate = secs(match rng.range_u64(0, 2) {
                0 => runtime.as_secs_f64() as i64,
                1 => rng.range_u64(1, 8) as i64,
                _ => rng.range_u64(6, 12) as i64,
            });
            let mut j = job(
                0,
                submit,
                runtime,
                estimate,
                rng.range_u64(1, widest) as u32,
            );
            j.home = rng.range_u64(0, platform.sites.len() as u64 - 1) as u32;
            j
        })
        .collect();
    jobs.sort_by_key(|j| j.submit);
    for (i, j) in jobs.iter_mut().enumerate() {
        j.id = i as i64 + 1;
    }
    (platform, jobs)
}

/// Every local policy, under every event order, kills on and off, locally and under two
/// migrating grid schemes (sender-initiated; receiver-initiated holding jobs at home,
/// which withdraws queued jobs): every run must pass its own invariant check — capacity
/// never exceeded, every job accounted for, none started before its submit. Conservative
/// backfilling under the cqsim order failed it (issue #24: a job due now started before
/// the other jobs ending now had released).
#[test]
fn every_policy_under_every_event_order_keeps_its_invariants() {
    use gridscope::engine::simulate_grid;
    use gridscope::policy::grid::{GridParams, GridScheme};
    let schemes = [
        (GridScheme::Local, GridParams::default()),
        (GridScheme::Sender, GridParams::default()),
        (
            GridScheme::Receiver,
            GridParams {
                hold_at_home: true,
                ..GridParams::default()
            },
        ),
    ];
    let mut runs = 0;
    for kind in LocalPolicyKind::EVERY {
        for order in [EventOrder::Gridscope, EventOrder::Pyss, EventOrder::Cqsim] {
            for kill_at_estimate in [true, false] {
                let cfg = RunConfig {
                    estimates: EstimateSource::Trace,
                    kill_at_estimate,
                    event_order: order,
                };
                for seed in 0..150u64 {
                    let (platform, jobs) = gen_instants_case(seed);
                    let (scheme, params) = &schemes[seed as usize % schemes.len()];
                    if let Err(e) = simulate_grid(
                        &platform,
                        &jobs,
                        kind,
                        *scheme,
                        params,
                        &cfg,
                        &mut |_, _| true,
                    ) {
                        panic!(
                            "{kind} under {} (kills {kill_at_estimate}, {scheme:?}), seed {seed}: {e}\nplatform {platform:?}\njobs {jobs:?}",
                            order.name()
                        );
                    }
                    runs += 1;
                }
            }
        }
    }
    println!("invariants held in {runs} runs");
}

/// Several sites of different speeds, some node-exclusive, under the local scheme: every
/// job runs at its home site, so each site's schedule must be the reference's on that
/// site's jobs alone, in allocation units (a node-exclusive job holds ⌈procs / cpus per
/// node⌉ nodes) — and a site's speed must change nothing for jobs run at home. The cases
/// take the three event orders in turn: under each a site's passes follow its own events
/// only. (The random cases above are one flat site; issue #30.)
#[test]
fn differential_several_sites_with_speeds_and_node_exclusive() {
    use gridscope::model::Allocation;
    const CASES: u64 = 150;
    let t0 = Instant::now();
    let mut checked = 0u64;
    for kind in LocalPolicyKind::ALL {
        for (c, cfg) in CONFIGS.iter().enumerate() {
            for k in 0..CASES {
                let seed = 7_000_000 + (c as u64) * 1_000_000 + k;
                // Each case under one event order, in turn. Under pyss's a site's jobs freed
                // at their estimates are passed at that site's own first arrival of the
                // instant (or their termination), never at another site's arrival: the
                // engine passed them at any site's first arrival until issue #30's test.
                let cfg = &RunConfig {
                    event_order: ORDERS[(k % 3) as usize],
                    ..*cfg
                };
                let mut rng = SimRng::new(seed);
                let n_sites = rng.range_u64(2, 3) as usize;
                let mut sites = Vec::new();
                let mut jobs: Vec<Job> = Vec::new();
                for s in 0..n_sites {
                    let node = rng.uniform() < 0.5;
                    let cpn = if node { rng.range_u64(2, 4) as u32 } else { 1 };
                    let nodes = rng.range_u64(1, 8) as u32;
                    let speed = [1.0, 2.0, 0.5, 375.0][rng.range_u64(0, 3) as usize];
                    sites.push(Site {
                        name: format!("s{s}"),
                        nodes,
                        cpus_per_node: cpn,
                        speed,
                        allocation: if node {
                            Allocation::Node
                        } else {
                            Allocation::Processor
                        },
                        groups: vec![],
                        node_types: vec![],
                    });
                    // A flat case on as many CPUs, its jobs homed here.
                    let mut case = gen_case(seed * 10 + s as u64);
                    for j in &mut case.jobs {
                        j.procs = (j.procs * (nodes * cpn)).div_ceil(case.capacity.max(1));
                        j.procs = j.procs.max(1);
                        j.home = s as u32;
                    }
                    jobs.extend(case.jobs);
                }
                jobs.sort_by_key(|j| j.submit); // stable
                for (i, j) in jobs.iter_mut().enumerate() {
                    j.id = i as i64 + 1;
                }
                let platform = Platform {
                    name: "multi".into(),
                    sites: sites.clone(),
                };
                let got = match simulate(&platform, &jobs, kind, cfg, &mut |_, _| true) {
                    Ok(out) => actual(&out.outcomes),
                    Err(e) => panic!("engine error: {e}, {kind:?} {cfg:?} seed {seed}"),
                };
                for (s, site) in sites.iter().enumerate() {
                    let mine: Vec<usize> = (0..jobs.len())
                        .filter(|&i| jobs[i].home == s as u32)
                        .collect();
                    // Units worked out here, not by the model's own `units_for`.
                    let node = site.allocation == Allocation::Node;
                    let cpn = site.cpus_per_node;
                    let units: Vec<Job> = mine
                        .iter()
                        .map(|&i| Job {
                            procs: if node {
                                jobs[i].procs.div_ceil(cpn)
                            } else {
                                jobs[i].procs
                            },
                            ..jobs[i].clone()
                        })
                        .collect();
                    let capacity = if node { site.nodes } else { site.nodes * cpn };
                    let want = expected(capacity, &units, kind, cfg);
                    for (w, &i) in want.iter().zip(&mine) {
                        assert_eq!(
                            Some(*w),
                            got[i],
                            "job {} at site {s} ({site:?}) differs: reference {} | engine {}\n{}",
                            jobs[i].id,
                            show(Some(*w)),
                            show(got[i]),
                            describe_case(kind, cfg, Some(seed), capacity, &units)
                        );
                    }
                }
                checked += 1;
            }
        }
    }
    println!(
        "differential, several sites: {checked} cases, {:.2?}",
        t0.elapsed()
    );
}
