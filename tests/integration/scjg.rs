//! SCJG (docs/scjg.md): advance reservations in every local policy, range lists against a
//! brute-force scan, the metascheduler's modes, release and back-off under competition,
//! and the lock-down baseline — golden cases worked out by hand.

use std::collections::BTreeMap;

use gridscope::engine::SimTime;
use gridscope::model::{Job, JobIdx};
use gridscope::policy::local::{LocalPolicyKind, QueuedJob, Reservation, SiteView};
use gridscope::rng::SimRng;
use gridscope::scjg::{
    simulate, Lockdown, MetaStatus, Metajob, Mode, Request, ScjgInput, ScjgParams, SiteOrder,
    SiteSpec,
};

fn s(x: i64) -> SimTime {
    SimTime::from_secs(x)
}

fn q(idx: JobIdx, units: u32, est: i64) -> QueuedJob {
    QueuedJob {
        idx,
        units,
        estimate: s(est),
        queued_at: SimTime::ZERO,
    }
}

fn res(start: i64, end: i64, units: u32) -> Reservation {
    Reservation {
        start: s(start),
        end: s(end),
        units,
        holder: 99,
    }
}

/// One pass of `kind` at t = 0 on a site of 4 units with `running` (units, predicted end)
/// and `reservations`, over a queue in arrival order: the jobs it starts.
fn pass(
    kind: LocalPolicyKind,
    running: &[(u32, i64)],
    reservations: &[Reservation],
    queue: &[QueuedJob],
) -> Vec<JobIdx> {
    let mut run = BTreeMap::new();
    for (i, &(u, end)) in running.iter().enumerate() {
        run.insert((s(end), 1000 + i as JobIdx), u);
    }
    let busy: u32 = running.iter().map(|r| r.0).sum();
    let view = SiteView {
        now: SimTime::ZERO,
        capacity: 4,
        free: 4 - busy,
        running: &run,
        plan_invalidated: false,
        reservations,
        nodes: None,
    };
    let mut policy = kind.build();
    for j in queue {
        policy.enqueue(*j, &view);
    }
    let mut starts = Vec::new();
    policy.schedule(&view, &mut starts);
    starts.sort_unstable();
    starts
}

#[test]
fn a_local_job_never_overlaps_a_reservation_it_would_otherwise_take() {
    // 4 units reserved over [50, 150). Job 1 (2 units, 100 s) would cross 50: refused by
    // every policy. Job 2 (2 units, 50 s) ends exactly at 50: allowed — except behind
    // FCFS's blocked head.
    let r = [res(50, 150, 4)];
    let queue = [q(1, 2, 100), q(2, 2, 50)];
    for kind in LocalPolicyKind::ALL {
        let want: Vec<JobIdx> = if kind == LocalPolicyKind::Fcfs {
            vec![]
        } else {
            vec![2]
        };
        assert_eq!(pass(kind, &[], &r, &queue), want, "{kind}");
        // Without the reservation both start.
        assert_eq!(pass(kind, &[], &[], &queue), vec![1, 2], "{kind}");
    }
}

#[test]
fn a_local_job_may_fit_beside_a_reservation() {
    // 2 of 4 units reserved over [50, 150): a 2-unit job of any length fits beside it.
    let r = [res(50, 150, 2)];
    for kind in LocalPolicyKind::ALL {
        assert_eq!(pass(kind, &[], &r, &[q(1, 2, 1000)]), vec![1], "{kind}");
        assert!(pass(kind, &[], &r, &[q(1, 3, 1000)]).is_empty(), "{kind}");
    }
}

#[test]
fn easy_computes_the_shadow_around_a_reservation() {
    // 2 units busy until 100, all 4 reserved over [100, 200). The head (3 units, 50 s)
    // cannot start before 200 (classic EASY would say 100, with 1 extra unit). A 2-unit job
    // ending by 100 backfills; a 1-unit job of 150 s would cross the reservation.
    let r = [res(100, 200, 4)];
    let queue = [q(1, 3, 50), q(2, 1, 150), q(3, 2, 100)];
    assert_eq!(
        pass(LocalPolicyKind::Easy, &[(2, 100)], &r, &queue),
        vec![3u32]
    );
    let mut run = BTreeMap::new();
    run.insert((s(100), 1000), 2);
    let view = SiteView {
        now: SimTime::ZERO,
        capacity: 4,
        free: 2,
        running: &run,
        plan_invalidated: false,
        reservations: &r,
        nodes: None,
    };
    let mut easy = LocalPolicyKind::Easy.build();
    easy.enqueue(q(1, 3, 50), &view);
    let head = easy.head_reservation(&view).unwrap();
    assert_eq!((head.job, head.shadow), (1, s(200)));
    // The range list EASY answers protects its head: 2 units × 10 s fit before 90 only,
    // then from 250 (the head holds 3 of the 4 units over 200–250).
    assert_eq!(
        easy.range_list(&view, 2, s(10), SimTime::ZERO, s(1000)),
        vec![(SimTime::ZERO, s(90)), (s(250), s(1000))]
    );
}

#[test]
fn conservative_plans_every_job_around_reservations() {
    // All 4 units reserved over [50, 150): job 1 (4 units, 100 s) is planned at 150, job 2
    // (2 units, 40 s) backfills now, job 3 (2 units, 60 s) would cross 50: after job 1, 250.
    let r = [res(50, 150, 4)];
    let run = BTreeMap::new();
    let view = SiteView {
        now: SimTime::ZERO,
        capacity: 4,
        free: 4,
        running: &run,
        plan_invalidated: false,
        reservations: &r,
        nodes: None,
    };
    let mut c = LocalPolicyKind::Conservative.build();
    for j in [q(1, 4, 100), q(2, 2, 40), q(3, 2, 60)] {
        c.enqueue(j, &view);
    }
    let mut starts = Vec::new();
    c.schedule(&view, &mut starts);
    assert_eq!(starts, vec![2]);
    let (plan, _) = c.projected_profile(&view);
    assert_eq!(plan.free_at(s(100)), 0);
    assert_eq!(plan.free_at(s(200)), 0, "job 1 runs 150–250");
    assert_eq!(plan.free_at(s(260)), 2, "job 3 runs 250–310 beside nothing");
}

/// Brute force: units free at instant `x` from the raw running jobs and reservations.
fn free_at(x: i64, cap: u32, running: &[(u32, i64)], reservations: &[Reservation]) -> u32 {
    let busy: u32 = running.iter().filter(|r| r.1 > x).map(|r| r.0).sum::<u32>()
        + reservations
            .iter()
            .filter(|r| r.start.0 <= x && x < r.end.0)
            .map(|r| r.units)
            .sum::<u32>();
    cap.saturating_sub(busy)
}

#[test]
fn range_lists_match_a_brute_force_scan() {
    let mut rng = SimRng::new(11);
    for case in 0..300 {
        let cap = 2 + rng.range_u64(0, 6) as u32;
        // Running jobs and reservations in milliseconds, within capacity at every instant.
        let mut running: Vec<(u32, i64)> = Vec::new();
        let mut reservations: Vec<Reservation> = Vec::new();
        for _ in 0..rng.range_u64(0, 4) {
            let u = 1 + rng.range_u64(0, cap as u64) as u32;
            let end = 1 + rng.range_u64(0, 40) as i64;
            if (0..end).all(|x| free_at(x, cap, &running, &[]) >= u) {
                running.push((u, end));
            }
        }
        for _ in 0..rng.range_u64(0, 4) {
            let u = 1 + rng.range_u64(0, cap as u64) as u32;
            let a = rng.range_u64(0, 50) as i64;
            let b = a + 1 + rng.range_u64(0, 30) as i64;
            if (a..b).all(|x| free_at(x, cap, &running, &reservations) >= u) {
                reservations.push(Reservation {
                    start: SimTime(a),
                    end: SimTime(b),
                    units: u,
                    holder: 0,
                });
            }
        }
        reservations.sort();
        let mut run = BTreeMap::new();
        for (i, &(u, end)) in running.iter().enumerate() {
            run.insert((SimTime(end), i as JobIdx), u);
        }
        let busy: u32 = running.iter().map(|r| r.0).sum();
        let view = SiteView {
            now: SimTime::ZERO,
            capacity: cap,
            free: cap - busy,
            running: &run,
            plan_invalidated: false,
            reservations: &reservations,
            nodes: None,
        };
        // First-fit guards only running jobs and reservations: the raw usage.
        let ff = LocalPolicyKind::FirstFit.build();
        let units = 1 + rng.range_u64(0, cap as u64) as u32;
        let d = 1 + rng.range_u64(0, 20) as i64;
        let (a, b) = (
            rng.range_u64(0, 20) as i64,
            60 + rng.range_u64(0, 20) as i64,
        );
        let ranges = ff.range_list(&view, units, SimTime(d), SimTime(a), SimTime(b));
        for t in a..=b {
            let feasible = (t..t + d).all(|x| free_at(x, cap, &running, &reservations) >= units);
            let listed = ranges.iter().any(|&(lo, hi)| lo.0 <= t && t <= hi.0);
            assert_eq!(
                feasible, listed,
                "case {case}: start {t} for {units}×{d} on {cap} units, running {running:?}, reservations {reservations:?}: ranges {ranges:?}"
            );
        }
    }
}

fn job(id: i64, submit: i64, run: i64, est: i64, procs: u32) -> Job {
    Job {
        id,
        submit: s(submit),
        runtime: s(run),
        estimate: s(est),
        procs,
        home: 0,
        user: -1,
        partition: -1,
    }
}

fn meta(id: i64, submit: i64, run: i64, wallclock: i64, request: Request, k: u32) -> Metajob {
    Metajob {
        id,
        submit: s(submit),
        runtime: s(run),
        wallclock: s(wallclock),
        request,
        scheduler: k,
        earliest: SimTime::ZERO,
    }
}

fn sites(n: usize, units: u32, policy: LocalPolicyKind) -> Vec<SiteSpec> {
    (0..n)
        .map(|i| SiteSpec {
            name: format!("s{i}"),
            units,
            policy,
        })
        .collect()
}

fn started(status: &MetaStatus) -> SimTime {
    match status {
        MetaStatus::Ran { start, .. } => *start,
        other => panic!("metajob did not run: {other:?}"),
    }
}

#[test]
fn an_early_component_frees_its_tail_and_none_starts_early() {
    for kind in LocalPolicyKind::ALL {
        // L1 holds all 4 units, estimate 100 but it ends at 20. The metajob (4 units,
        // wallclock 100, runtime 30) submitted at 1 reserves [100, 200): it still starts
        // at 100 (rule 5). L2 (4 units, 50 s, submitted at 2) backfills at 20 (ends 70 ≤ 100).
        // L3 (4 units, 60 s, at 3) waits for the metajob: its reservation ends at 200, but the
        // component ends at 130 and frees its tail, so L3 starts at 130.
        let local = [
            job(1, 0, 20, 100, 4),
            job(2, 2, 50, 50, 4),
            job(3, 3, 60, 60, 4),
        ];
        let metajobs = [meta(9, 1, 30, 100, Request::Specified(vec![(0, 4)]), 0)];
        let jobs: [&[Job]; 1] = [&local];
        let sp = sites(1, 4, kind);
        let out = simulate(
            ScjgInput {
                sites: &sp,
                local: &jobs,
                metajobs: &metajobs,
            },
            &ScjgParams::default(),
        )
        .unwrap();
        let starts: Vec<_> = out.local[0].iter().map(|o| o.start.unwrap()).collect();
        assert_eq!(started(&out.meta[0].status), s(100), "{kind}");
        assert_eq!(starts, vec![s(0), s(20), s(130)], "{kind}");
        assert_eq!(out.released_tail, 4 * 70_000, "{kind}");
    }
}

#[test]
fn co_allocated_components_start_together() {
    // Site 0 is busy until 100, site 1 until 300 (by estimates): the specified metajob
    // (2 units on each) starts at 300 on both; general co-allocation of 6 units on ≤ 2
    // sites also waits for both; a single-site ASAP metajob of 4 takes site 0 at 100.
    let l0 = [job(1, 0, 100, 100, 4)];
    let l1 = [job(2, 0, 300, 300, 4)];
    let jobs: [&[Job]; 2] = [&l0, &l1];
    let sp = sites(2, 4, LocalPolicyKind::Easy);
    let metajobs = [
        meta(10, 1, 50, 50, Request::Specified(vec![(0, 2), (1, 2)]), 0),
        meta(11, 2, 50, 50, Request::Single { units: 4 }, 0),
        meta(
            12,
            3,
            50,
            50,
            Request::General {
                units: 6,
                max_sites: 2,
            },
            0,
        ),
    ];
    let out = simulate(
        ScjgInput {
            sites: &sp,
            local: &jobs,
            metajobs: &metajobs,
        },
        &ScjgParams::default(),
    )
    .unwrap();
    assert_eq!(started(&out.meta[0].status), s(300));
    // The ASAP job fits site 0 at 100 (ends 150, before the co-allocated job's 300).
    assert_eq!(started(&out.meta[1].status), s(100));
    match &out.meta[2].status {
        MetaStatus::Ran { start, parts, .. } => {
            // At 350 both sites are free again: 4 + 2, widest first in site order.
            assert_eq!(*start, s(350));
            assert_eq!(parts, &vec![(0, 4), (1, 2)]);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn opposed_metaschedulers_collide_then_back_off_and_all_run() {
    // Two metaschedulers, opposed site order, a 10 s query-to-reserve delay: each wants all
    // of both sites at the same time. Both reserve their first site, fail at the other, release
    // and back off (Fig. 3); the random back-off breaks the livelock.
    let empty: [Job; 0] = [];
    let jobs: [&[Job]; 2] = [&empty, &empty];
    let sp = sites(2, 4, LocalPolicyKind::Conservative);
    let both = || Request::Specified(vec![(0, 4), (1, 4)]);
    let metajobs = [
        meta(1, 0, 100, 100, both(), 0),
        meta(2, 0, 100, 100, both(), 1),
    ];
    let params = ScjgParams {
        metaschedulers: 2,
        delay: s(10),
        order: SiteOrder::Opposed,
        ..ScjgParams::default()
    };
    let input = ScjgInput {
        sites: &sp,
        local: &jobs,
        metajobs: &metajobs,
    };
    let out = simulate(
        ScjgInput {
            sites: &sp,
            local: &jobs,
            metajobs: &metajobs,
        },
        &params,
    )
    .unwrap();
    let retries: u32 = out.meta.iter().map(|m| m.retries).sum();
    assert!(retries >= 2, "both collide at least once: {:?}", out.meta);
    assert!(out.meta.iter().all(|m| m.releases >= 1));
    let (a, b) = (started(&out.meta[0].status), started(&out.meta[1].status));
    assert!(
        a + s(100) <= b || b + s(100) <= a,
        "one after the other: {a} {b}"
    );
    // The same order for both: the second finds the first's reservations and queues after.
    let same = ScjgParams {
        order: SiteOrder::Same,
        ..params
    };
    let out = simulate(
        ScjgInput {
            sites: &sp,
            local: &jobs,
            metajobs: &metajobs,
        },
        &same,
    )
    .unwrap();
    assert!(out.meta.iter().map(|m| m.retries).sum::<u32>() <= 1);
    // Courtesy locks: the second metascheduler waits for the first's lock, no collision.
    let courtesy = ScjgParams {
        courtesy: Some(s(30)),
        ..params
    };
    let out = simulate(input, &courtesy).unwrap();
    assert_eq!(out.meta.iter().map(|m| m.retries).sum::<u32>(), 0);
    assert!(out.meta.iter().any(|m| m.lock_wait > SimTime::ZERO));
    // Without back-off room (no retries allowed) a collision fails the metajob, reported.
    let strict = ScjgParams {
        max_retries: 0,
        ..params
    };
    let out = simulate(
        ScjgInput {
            sites: &sp,
            local: &jobs,
            metajobs: &metajobs,
        },
        &strict,
    )
    .unwrap();
    assert!(out.meta.iter().all(|m| m.status == MetaStatus::Failed));
    assert!(out.meta.iter().all(|m| m.history.len() == 1));
}

#[test]
fn lockdown_keeps_local_jobs_out_of_the_window_and_metajobs_in_it() {
    // 8 units, 4 locked for 8 h a day from 08:00. A local job of 8 units × 10 h submitted at
    // 0 would cross 08:00: it waits until 16:00. A 6-unit × 1 h job submitted at 1 h also
    // crosses nothing... it needs 6 > 4 units free inside the window: starts at 1 h (ends
    // 2 h). A metajob of 4 units × 2 h submitted at 0 runs at 08:00.
    let h = 3600;
    let local = [job(1, 0, 10 * h, 10 * h, 8), job(2, h, h, h, 6)];
    let jobs: [&[Job]; 1] = [&local];
    let sp = sites(1, 8, LocalPolicyKind::Easy);
    let metajobs = [
        meta(5, 0, 2 * h, 2 * h, Request::Single { units: 4 }, 0),
        meta(6, 0, 9 * h, 9 * h, Request::Single { units: 4 }, 0),
    ];
    let params = ScjgParams {
        mode: Mode::Lockdown(Lockdown {
            units: 4,
            start_hour: 8.0,
            hours: 8.0,
        }),
        ..ScjgParams::default()
    };
    let out = simulate(
        ScjgInput {
            sites: &sp,
            local: &jobs,
            metajobs: &metajobs,
        },
        &params,
    )
    .unwrap();
    assert_eq!(out.local[0][0].start, Some(s(16 * h)));
    assert_eq!(out.local[0][1].start, Some(s(h)));
    assert_eq!(started(&out.meta[0].status), s(8 * h));
    assert!(
        matches!(out.meta[1].status, MetaStatus::Rejected(_)),
        "longer than a window"
    );
}

fn sdsc() -> Vec<Job> {
    let path = crate::trace(gridscope::scjg::presets::DEFAULT_TRACE);
    let bytes = std::fs::read(path).unwrap();
    gridscope::workload::read_swf("sdsc", &bytes, &Default::default())
        .unwrap()
        .jobs
}

fn sweep_line(
    r: &gridscope::scjg::presets::ScjgPresetResult,
    policy: &str,
    metric: &str,
) -> Vec<f64> {
    let gridscope::scjg::presets::ScjgPresetResult::Sweep(s) = r else {
        panic!("not a sweep")
    };
    s.series
        .iter()
        .find(|l| l.policy == policy && l.metric == metric)
        .unwrap_or_else(|| panic!("{policy} {metric}"))
        .median
        .clone()
}

#[test]
fn preset_trends_hold_on_small_versions() {
    use gridscope::scjg::presets::{run_preset, PresetOptions, ScjgPresetResult};
    let jobs = sdsc();
    let o = PresetOptions {
        seeds: 3,
        percents: vec![0.0, 10.0],
        ..PresetOptions::default()
    };
    let go = |name: &str| run_preset(name, &jobs, &o, 1, &mut |_, _| true).unwrap();
    // Figs. 5–6: utilization falls as metajobs take reservations; metajobs wait.
    let f = go("scjg-fraction");
    let util = sweep_line(&f, "ar", "utilization");
    assert!(util[1] < util[0], "utilization {util:?}");
    assert!(sweep_line(&f, "ar", "metajob_queue_s")[1] > 0.0);
    // Fig. 7: reservations keep utilization above the lock-down block's.
    let l = go("scjg-ar-vs-lockdown");
    let (ar, ld) = (
        sweep_line(&l, "ar", "utilization"),
        sweep_line(&l, "lockdown", "utilization"),
    );
    assert!(ar[0] > ld[0] && ar[1] > ld[1], "ar {ar:?} lockdown {ld:?}");
    assert!(sweep_line(&l, "lockdown", "lockdown_utilization")[1] > 0.0);
    // Fig. 8: more sites, shorter metajob queue times.
    let q = sweep_line(&go("scjg-sites"), "ar", "metajob_queue_s");
    assert!(q[3] < q[0] && q[1] < q[0], "queue times {q:?}");
    // Fig. 3: every metajob placed; courtesy locks collide no more than back-off alone.
    let ScjgPresetResult::Runs(r) = go("scjg-livelock") else {
        panic!("not runs")
    };
    let labels: Vec<&str> = r.runs.iter().map(|x| x.label.as_str()).collect();
    assert_eq!(
        labels,
        ["opposed-backoff", "opposed-courtesy", "same-order"]
    );
    for run in &r.runs {
        assert_eq!(run.metrics.metajobs_failed, 0, "{}", run.label);
        assert_eq!(
            run.metrics.metajobs_ran, run.metrics.metajobs,
            "{}",
            run.label
        );
    }
    assert!(r.runs[1].metrics.retries <= r.runs[0].metrics.retries);
    assert!(
        r.runs[0].timeline.iter().any(|t| t.retries > 0),
        "the opposed run collides"
    );
    // Deterministic: the same result twice.
    assert_eq!(go("scjg-fraction"), f);
}

#[test]
fn inspections_show_reservations_and_the_three_query_answers() {
    use gridscope::scjg::inspect::inspect;
    use gridscope::scjg::presets::PresetOptions;
    let jobs = sdsc();
    let o = PresetOptions {
        percents: vec![0.0, 5.0, 10.0],
        ..PresetOptions::default()
    };
    for name in [
        "scjg-fraction",
        "scjg-sites",
        "scjg-livelock",
        "scjg-ar-vs-lockdown",
    ] {
        let i = inspect(name, &jobs, &o).unwrap();
        assert!(i.to_s > i.from_s, "{name}");
        assert!(
            i.sites.iter().all(|s| !s.rects.is_empty()),
            "{name}: jobs drawn"
        );
        assert!(
            i.sites.iter().any(|s| s.rects.iter().any(|r| r.5)),
            "{name}: components"
        );
        assert!(
            i.sites.iter().any(|s| !s.reservations.is_empty()),
            "{name}: reservations"
        );
        let q = i.query.expect("a probed query");
        assert_eq!(q.sites.len(), i.sites.len(), "{name}");
        for s in &q.sites {
            // The single-range answer is the list's first range; yes iff it holds the start.
            assert_eq!(s.first, s.ranges.first().copied());
            assert_eq!(
                s.yes,
                s.ranges.iter().any(|r| r.0 <= q.from_s && q.from_s <= r.1)
            );
        }
        if name == "scjg-livelock" {
            assert!(
                !q.common.is_empty(),
                "a spanning metajob's ranges intersect"
            );
        }
        let start = q.start_s.expect("the probed metajob ran");
        assert!(start >= q.from_s);
    }
}
