//! KKOR (issue 11): hand-made golden cases for each rule of the centralized and decentralized
//! algorithms, the generator's moments, determinism and the presets' trends.

use gridscope::kkor::centralized::{free_slots, list_schedule};
use gridscope::kkor::generator::{from_swf_jobs, generate, GeneratorParams};
use gridscope::kkor::presets::{self, equal_rates};
use gridscope::kkor::{
    paper_clusters, run, Cluster, KkorJob, KkorParams, KkorPolicy, KkorRun, ReceiverLimit,
};
use gridscope::policy::Profile;
use gridscope::time::SimTime;
use gridscope::workload::{read_swf, SwfOptions};

/// The `kkor-real` preset on the shared traces (read here, at the edge).
fn real_preset() -> presets::KkorRunsResult {
    let workloads: Vec<(String, u32, Vec<gridscope::model::Job>)> = presets::REAL_TRACES
        .iter()
        .map(|&(file, procs)| {
            let bytes = std::fs::read(crate::trace(file)).unwrap();
            let w = read_swf(file, &bytes, &SwfOptions::default()).unwrap();
            (
                file.split('-').take(2).collect::<Vec<_>>().join("-"),
                procs,
                w.jobs,
            )
        })
        .collect();
    let sites: Vec<presets::RealSite> = workloads
        .iter()
        .map(|(name, procs, jobs)| presets::RealSite {
            name,
            procs: *procs,
            jobs,
        })
        .collect();
    presets::real_traces(
        &sites,
        presets::REAL_JOBS_PER_SITE,
        presets::REAL_SLACK,
        presets::REAL_TIME_UNIT_S,
        &KkorParams::default(),
        &mut |_, _| true,
    )
    .unwrap()
}

/// Prints the presets at their defaults with wall times (run with `--ignored --nocapture`).
#[test]
#[ignore = "an experiment printer: the KKOR presets at their defaults with wall times, docs/kkor.md (run with --ignored --nocapture)"]
fn print_presets() {
    for (name, _) in presets::KKOR_PRESETS {
        let t0 = std::time::Instant::now();
        let r = if *name == "kkor-real" {
            presets::KkorPresetResult::Runs(real_preset())
        } else {
            presets::run_preset(name, 0, &mut |_, _| true).unwrap()
        };
        let ms = t0.elapsed().as_millis();
        println!(
            "=== {name}: {ms} ms\n{}",
            serde_json::to_string(&r).unwrap()
        );
    }
    // The other reading of the receiver's obligation, for comparison.
    let until = KkorParams {
        receiver_limit: ReceiverLimit::UntilReached,
        ..KkorParams::default()
    };
    let cl = paper_clusters();
    let rates = presets::rates_for_loads(&cl, &presets::FAIRNESS_LOADS);
    let f = presets::fairness(&cl, &rates, &until, 500, 10, &mut |_, _| true).unwrap();
    println!(
        "=== kkor-fairness until_reached\n{}",
        serde_json::to_string(&f).unwrap()
    );
    let l = presets::load_sweep(&cl, &presets::LOAD_POINTS, &until, 500, 10, &mut |_, _| {
        true
    });
    println!(
        "=== kkor-load until_reached\n{}",
        serde_json::to_string(&l.unwrap()).unwrap()
    );
}

#[test]
fn real_traces_run_under_every_algorithm() {
    let r = real_preset();
    let labels: Vec<&str> = r.runs.iter().map(|x| x.label.as_str()).collect();
    assert_eq!(labels, ["centralized", "decentralized", "local"]);
    assert_eq!(r.clusters.len(), 3);
    assert!(r.runs.iter().all(|x| x.metrics.jobs_measured > 1000));
    assert_eq!(r.runs[2].metrics.migrations, 0.0);
    let e = presets::run_preset("kkor-real", 1, &mut |_, _| true).unwrap_err();
    assert!(e.contains("real_traces"), "{e}");
}

#[test]
fn every_policy_runs_at_light_and_heavy_load() {
    let clusters = paper_clusters();
    for load in [0.3, 0.9] {
        let g = GeneratorParams::paper(equal_rates(&clusters, load));
        let jobs = generate(&clusters, &g, 7).unwrap();
        for p in KkorPolicy::ALL {
            // The invariants are checked inside every run.
            let r = run(&clusters, &jobs, p, &KkorParams::default()).unwrap();
            assert_eq!(r.metrics.jobs_measured, 400);
            assert!(r.metrics.utilization > 0.0 && r.metrics.utilization <= 1.0);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Hand-made cases. Times in time units (×1000 ticks); every run also passes the invariants.

const U: i64 = gridscope::kkor::TICKS_PER_UNIT;

fn job(id: i64, org: usize, procs: u32, p: i64, r: i64, d: i64) -> KkorJob {
    KkorJob {
        id,
        org,
        procs,
        length: p * U,
        release: r * U,
        due: d * U,
    }
}

/// (cluster, start, migrated) per job, starts in time units.
fn starts(r: &KkorRun) -> Vec<(usize, i64, bool)> {
    r.placements
        .iter()
        .map(|p| (p.cluster, p.start / U, p.migrated))
        .collect()
}

fn two(m1: u32, m2: u32) -> Vec<Cluster> {
    vec![Cluster::new("O1", m1, 1.0), Cluster::new("O2", m2, 1.0)]
}

fn with_c(c: &[f64]) -> KkorParams {
    KkorParams {
        coefficients: c.to_vec(),
        trim: false,
        ..KkorParams::default()
    }
}

#[test]
fn slot_list_scheduling_takes_the_first_edd_job_that_fits_and_skips_to_wider_slots() {
    let cl = vec![Cluster::new("O1", 4, 1.0)];
    // 2 of 4 processors busy until 10: slots (0, 10, 2) and (10, open, 4).
    let mut prof = vec![Profile::empty(SimTime(0), 4)];
    prof[0].reserve(SimTime(0), SimTime(10 * U), 2);
    assert_eq!(
        free_slots(&prof[0], SimTime(0)),
        vec![(0, Some(10 * U), 2), (10 * U, None, 4)]
    );
    // EDD queue: A (3 wide) is first but fits only the later, wider slot; B (2 wide, 20
    // long) fits slot 0 for its whole length; C then waits for the next slot with more
    // processors free than the full one.
    let jobs = vec![
        job(0, 0, 3, 5, 0, 20),
        job(1, 0, 2, 20, 0, 30),
        job(2, 0, 1, 5, 0, 40),
    ];
    let placed = list_schedule(&mut prof, &cl, &jobs, &[0, 1, 2], SimTime(0));
    let got: Vec<(usize, i64)> = placed.iter().map(|&(j, _, s)| (j, s.0 / U)).collect();
    // B at 0 (slot 0, 2 free); slot 0 now full; C at 10 (2 free); slot 10 has 1 left, A
    // needs 3: skip to 15 (2 free, no), then 20 (4 free): A at 20.
    assert_eq!(got, vec![(1, 0), (2, 10), (0, 20)]);
}

#[test]
fn slot_list_scheduling_needs_the_job_to_fit_in_every_following_slot() {
    let cl = vec![Cluster::new("O1", 4, 1.0)];
    // 3 of 4 busy during [5, 10): slots (0,5,4), (5,10,1), (10,open,4).
    let mut prof = vec![Profile::empty(SimTime(0), 4)];
    prof[0].reserve(SimTime(5 * U), SimTime(5 * U), 3);
    // X (2 wide, 8 long) has room at 0 but not during [5, 10): it must not start at 0 or
    // at 3 (after Y); Y (1 wide, 3 long) fits at 0.
    let jobs = vec![job(0, 0, 2, 8, 0, 10), job(1, 0, 1, 3, 0, 50)];
    let placed = list_schedule(&mut prof, &cl, &jobs, &[0, 1], SimTime(0));
    let got: Vec<(usize, i64)> = placed.iter().map(|&(j, _, s)| (j, s.0 / U)).collect();
    assert_eq!(got, vec![(1, 0), (0, 10)]);
}

#[test]
fn centralized_batches_are_edd_ordered_and_closed_by_size_or_length() {
    let cl = vec![Cluster::new("O1", 2, 1.0)];
    // Three 2-wide jobs at 0 with due dates 50, 30, 40: the batch (S = 3) closes at the
    // third arrival and runs them in due-date order.
    let jobs = vec![
        job(0, 0, 2, 10, 0, 50),
        job(1, 0, 2, 10, 0, 30),
        job(2, 0, 2, 10, 0, 40),
    ];
    let p = KkorParams {
        batch_jobs: 3,
        batch_length: 1000 * U,
        ..with_c(&[])
    };
    let r = run(&cl, &jobs, KkorPolicy::Centralized, &p).unwrap();
    assert_eq!(
        starts(&r),
        vec![(0, 20, false), (0, 0, false), (0, 10, false)]
    );
    // S = 10, L = 5: jobs at 0 and 3 wait for the timer at 5; one at 7 opens the next batch.
    let jobs = vec![
        job(0, 0, 1, 1, 0, 50),
        job(1, 0, 1, 1, 3, 50),
        job(2, 0, 1, 1, 7, 50),
    ];
    let p = KkorParams {
        batch_jobs: 10,
        batch_length: 5 * U,
        ..with_c(&[])
    };
    let r = run(&cl, &jobs, KkorPolicy::Centralized, &p).unwrap();
    assert_eq!(
        starts(&r),
        vec![(0, 5, false), (0, 5, false), (0, 12, false)]
    );
    assert_eq!(r.batches.len(), 2);
    // Two clusters: the grid scheduler uses the earliest slot anywhere.
    let cl = two(2, 2);
    let jobs = vec![job(0, 0, 2, 10, 0, 30), job(1, 0, 2, 10, 0, 40)];
    let p = KkorParams {
        batch_jobs: 2,
        ..with_c(&[])
    };
    let r = run(&cl, &jobs, KkorPolicy::Centralized, &p).unwrap();
    assert_eq!(starts(&r), vec![(0, 0, false), (1, 0, true)]);
    assert_eq!(r.migrations, vec![vec![0, 1], vec![0, 0]]);
}

#[test]
fn conservative_placement_never_delays_a_scheduled_job() {
    let cl = vec![Cluster::new("O1", 4, 1.0)];
    let jobs = vec![
        // Batch at 0: A (2 wide) at 0, B (4 wide) waits for A's end: t_max = 20.
        job(0, 0, 2, 10, 0, 100),
        job(1, 0, 4, 10, 0, 200),
        // C (2 wide, 15 long) at 1 would fit beside A now but would delay B: deferred to
        // the next batch at t_max = 20.
        job(2, 0, 2, 15, 1, 300),
        // D (2 wide, 5 long) at 2 fits beside A and ends before B: backfilled at 2.
        job(3, 0, 2, 5, 2, 300),
        // E (1 wide, 30 long) at 3 would grow t_max: deferred too, beside C at 20.
        job(4, 0, 1, 30, 3, 300),
    ];
    for policy in [KkorPolicy::Local, KkorPolicy::Decentralized] {
        let r = run(&cl, &jobs, policy, &with_c(&[])).unwrap();
        assert_eq!(
            starts(&r),
            vec![
                (0, 0, false),
                (0, 10, false),
                (0, 20, false),
                (0, 2, false),
                (0, 20, false)
            ],
            "{}",
            policy.name()
        );
        let b: Vec<(i64, i64)> = r.batches.iter().map(|w| (w.t0 / U, w.t1 / U)).collect();
        assert_eq!(b, vec![(0, 20), (20, 50)]);
    }
}

/// O1 (2 processors) is full until 20 with A; O2 (2 processors) runs E (1 wide) during
/// [0, 10): its batch is [0, 10], with one processor free.
fn busy_o1_half_busy_o2(o1_len: i64) -> Vec<KkorJob> {
    vec![job(0, 0, 2, o1_len, 0, 1000), job(1, 1, 1, 10, 0, 1000)]
}

#[test]
fn a_deferral_that_would_miss_its_due_date_migrates() {
    let cl = two(2, 2);
    let mut jobs = busy_o1_half_busy_o2(10);
    // X at 1 on O1: no room before t_max = 10, and 10 + 5 > 12: offered; O2 has a
    // processor free during [1, 6) that delays nobody: X moves there.
    jobs.push(job(2, 0, 1, 5, 1, 12));
    let r = run(&cl, &jobs, KkorPolicy::Decentralized, &with_c(&[1.0, 1.0])).unwrap();
    assert_eq!(starts(&r)[2], (1, 1, true));
    assert_eq!(r.migrations, vec![vec![0, 1], vec![0, 0]]);
    assert_eq!(r.offers.migrated, 1);
    // Local keeps it and it is late by 3.
    let l = run(&cl, &jobs, KkorPolicy::Local, &with_c(&[1.0, 1.0])).unwrap();
    assert_eq!(starts(&l)[2], (0, 10, false));
    assert_eq!(l.placements[2].end - jobs[2].due, 3 * U);
    // With a latency of 1, the strip starts after request, answer and transfer: at 4.
    let p = KkorParams {
        latency: U,
        ..with_c(&[1.0, 1.0])
    };
    let r = run(&cl, &jobs, KkorPolicy::Decentralized, &p).unwrap();
    assert_eq!(starts(&r)[2], (1, 4, true));
}

#[test]
fn a_job_that_becomes_late_during_list_scheduling_migrates() {
    let cl = two(2, 2);
    // O1's batch at 1: B (2 wide, due 10) first; C (1 wide, 8 long, due 12) would start at
    // 6 when B ends and finish at 14: it crosses its due date while waiting and is
    // offered; O2's free processor takes it at 1.
    let jobs = vec![
        job(0, 1, 1, 10, 0, 1000),
        job(1, 0, 2, 5, 1, 10),
        job(2, 0, 1, 8, 1, 12),
    ];
    let r = run(&cl, &jobs, KkorPolicy::Decentralized, &with_c(&[1.0, 1.0])).unwrap();
    assert_eq!(starts(&r), vec![(1, 0, false), (0, 1, false), (1, 1, true)]);
    let l = run(&cl, &jobs, KkorPolicy::Local, &with_c(&[1.0, 1.0])).unwrap();
    assert_eq!(starts(&l)[2], (0, 6, false));
}

#[test]
fn receiver_accepts_foreign_surface_up_to_its_limit_and_refuses_beyond() {
    let cl = two(2, 2);
    let mut jobs = busy_o1_half_busy_o2(10);
    // L_2 = 0.25 · (10 − 0) · 2 = 5 processor-units. X1 (surface 4) is accepted; X2
    // (surface 4 more: 8 > 5) is refused although O2 still has a free processor.
    jobs.push(job(2, 0, 1, 4, 1, 12));
    jobs.push(job(3, 0, 1, 4, 2, 12));
    let r = run(
        &cl,
        &jobs,
        KkorPolicy::Decentralized,
        &with_c(&[10.0, 0.25]),
    )
    .unwrap();
    assert_eq!(starts(&r)[2..], [(1, 1, true), (0, 10, false)]);
    assert_eq!(r.offers.refused_receiver_limit, 1);
    let w = r
        .batches
        .iter()
        .find(|w| w.cluster == 1 && w.batch == 1)
        .unwrap();
    assert_eq!((w.limit, w.accepted), (5 * U, 4 * U));
    // With c_2 = 0.4, L_2 = 8: both fit.
    let r = run(&cl, &jobs, KkorPolicy::Decentralized, &with_c(&[10.0, 0.4])).unwrap();
    assert_eq!(starts(&r)[2..], [(1, 1, true), (1, 5, true)]);
    // The other reading (refuse once L is reached): X2 goes (4 < 5, the batch passes L),
    // X3 (1 long, due 10) is refused (8 ≥ 5) though [9, 10) is free on O2.
    jobs.push(job(4, 0, 1, 1, 3, 10));
    let p = KkorParams {
        receiver_limit: ReceiverLimit::UntilReached,
        ..with_c(&[10.0, 0.25])
    };
    let r = run(&cl, &jobs, KkorPolicy::Decentralized, &p).unwrap();
    assert_eq!(
        starts(&r)[2..],
        [(1, 1, true), (1, 5, true), (0, 10, false)]
    );
    assert_eq!(r.offers.refused_receiver_limit, 1);
}

#[test]
fn receiver_refuses_a_job_that_grows_its_makespan_past_the_allowance() {
    let cl = two(2, 2);
    // O1 full until 20; O2 full until 10 (batch [0, 10]), c_2 = 0.5: allowance 5, L_2 = 10.
    let mut jobs = vec![job(0, 0, 2, 20, 0, 1000), job(1, 1, 2, 10, 0, 1000)];
    // X1 (2 wide, 4 long, due 15) only fits at O2's end: makespan 10 → 14, growth 4 ≤ 5:
    // accepted. X2 (1 wide, 2 long, due 16): surface still within L_2 (8 + 2 ≤ 10), but its
    // strip [14, 16) grows the makespan by 6 > 5: refused.
    jobs.push(job(2, 0, 2, 4, 1, 15));
    jobs.push(job(3, 0, 1, 2, 2, 16));
    let r = run(&cl, &jobs, KkorPolicy::Decentralized, &with_c(&[10.0, 0.5])).unwrap();
    assert_eq!(starts(&r)[2..], [(1, 10, true), (0, 20, false)]);
    assert_eq!(r.offers.refused_makespan, 1);
    assert_eq!(r.offers.refused_receiver_limit, 0);
    // With c_2 = 0.6 (allowance 6, L_2 = 12) X2 goes too.
    let r = run(&cl, &jobs, KkorPolicy::Decentralized, &with_c(&[10.0, 0.6])).unwrap();
    assert_eq!(starts(&r)[3], (1, 14, true));
}

#[test]
fn everyone_refuses_an_organization_that_exported_more_than_its_limit() {
    let cl = two(2, 2);
    let mut jobs = busy_o1_half_busy_o2(20);
    // O1's batch [0, 20] with c_1 = 0.1: L_1 = 0.1 · 20 · 2 = 4. X1 (surface 5) leaves
    // while O1 has exported 0 ≤ 4; then 5 > 4 and X2 is refused by everyone.
    jobs.push(job(2, 0, 1, 5, 1, 12));
    jobs.push(job(3, 0, 1, 3, 2, 12));
    let r = run(&cl, &jobs, KkorPolicy::Decentralized, &with_c(&[0.1, 10.0])).unwrap();
    assert_eq!(starts(&r)[2..], [(1, 1, true), (0, 20, false)]);
    assert_eq!(r.offers.refused_sender_limit, 1);
    // c_1 = 0.25: L_1 = 10, X2 leaves too (into O2's hole after X1).
    let r = run(
        &cl,
        &jobs,
        KkorPolicy::Decentralized,
        &with_c(&[0.25, 10.0]),
    )
    .unwrap();
    assert_eq!(starts(&r)[3], (1, 6, true));
}

// ---------------------------------------------------------------------------------------
// The generator, determinism, input errors, SWF due dates.

fn mean_var(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    (m, v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / n)
}

fn close(what: &str, got: f64, want: f64, rel: f64) {
    assert!(
        (got - want).abs() <= rel * want.abs(),
        "{what}: sample {got}, analytic {want} (tolerance {} %)",
        rel * 100.0
    );
}

#[test]
fn generator_moments_match_the_analytic_ones() {
    let clusters = paper_clusters();
    let rates = vec![0.1, 0.2, 0.3];
    let g = GeneratorParams {
        jobs: 200_000,
        ..GeneratorParams::paper(rates)
    };
    let jobs = generate(&clusters, &g, 11).unwrap();
    let units = |t: i64| t as f64 / U as f64;
    // Poisson: mean inter-arrival 1/Σλ; organization k with probability λ_k/Σλ.
    let last = units(jobs.last().unwrap().release);
    close(
        "mean inter-arrival",
        last / jobs.len() as f64,
        1.0 / 0.6,
        0.01,
    );
    let share = |k: usize| jobs.iter().filter(|j| j.org == k).count() as f64 / jobs.len() as f64;
    close("share of O1", share(0), 1.0 / 6.0, 0.02);
    close("share of O3", share(2), 0.5, 0.01);
    // q on the 128-processor cluster (never capped): 1 w.p. 1/4, else uniform {2..64}.
    let q3: Vec<f64> = jobs
        .iter()
        .filter(|j| j.org == 2)
        .map(|j| f64::from(j.procs))
        .collect();
    let (m, v) = mean_var(&q3);
    let eu2 = (63.0 * 63.0 - 1.0) / 12.0 + 33.0 * 33.0;
    let (mq, eq2) = (0.25 + 0.75 * 33.0, 0.25 + 0.75 * eu2);
    close("E[q]", m, mq, 0.01);
    close("Var[q]", v, eq2 - mq * mq, 0.02);
    close(
        "P(q = 1)",
        q3.iter().filter(|&&q| q == 1.0).count() as f64 / q3.len() as f64,
        0.25,
        0.02,
    );
    // On the 32-processor cluster q is capped at 32: E = 0.25 + 0.75·(31·17 + 32·32)/63.
    let q1: Vec<f64> = jobs
        .iter()
        .filter(|j| j.org == 0)
        .map(|j| f64::from(j.procs))
        .collect();
    assert!(q1.iter().all(|&q| q <= 32.0));
    close(
        "E[q] capped at 32",
        mean_var(&q1).0,
        0.25 + 0.75 * (31.0 * 17.0 + 32.0 * 32.0) / 63.0,
        0.015,
    );
    // p: Normal(20, 20) conditioned on p ≥ 1: mean μ + σλ, variance σ²(1 + aλ − λ²), with
    // a = (1 − μ)/σ and λ = φ(a)/(1 − Φ(a)).
    let a = (1.0 - 20.0) / 20.0;
    let phi = libm::exp(-a * a / 2.0) / libm::sqrt(2.0 * std::f64::consts::PI);
    let lam = phi / (0.5 * libm::erfc(a / std::f64::consts::SQRT_2));
    let p: Vec<f64> = jobs.iter().map(|j| units(j.length)).collect();
    assert!(p.iter().all(|&x| x >= 1.0));
    let (mp, vp) = mean_var(&p);
    close("E[p]", mp, 20.0 + 20.0 * lam, 0.01);
    close("Var[p]", vp, 400.0 * (1.0 + a * lam - lam * lam), 0.02);
    // Due-date slack d − r: uniform on [p, 180] given p, so E = (E[p] + 180)/2 (p > 180 has
    // negligible mass); never below p.
    let slack: Vec<f64> = jobs.iter().map(|j| units(j.due - j.release)).collect();
    assert!(jobs.iter().all(|j| j.due - j.release >= j.length));
    close("E[d − r]", mean_var(&slack).0, (mp + 180.0) / 2.0, 0.01);
    // The preset's analytic helpers agree.
    close(
        "expected_length",
        presets::expected_length(&g),
        20.0 + 20.0 * lam,
        1e-9,
    );
    close("expected_procs", presets::expected_procs(&g, 128), mq, 1e-9);
}

#[test]
fn same_seed_same_run_and_bytes() {
    let clusters = paper_clusters();
    let g = GeneratorParams::paper(equal_rates(&clusters, 0.8));
    let a = generate(&clusters, &g, 5).unwrap();
    assert_eq!(a, generate(&clusters, &g, 5).unwrap());
    assert_ne!(a, generate(&clusters, &g, 6).unwrap());
    for p in KkorPolicy::ALL {
        let r1 = run(&clusters, &a, p, &KkorParams::default()).unwrap();
        let r2 = run(&clusters, &a, p, &KkorParams::default()).unwrap();
        assert_eq!(r1, r2);
        assert_eq!(
            serde_json::to_string(&r1).unwrap(),
            serde_json::to_string(&r2).unwrap()
        );
    }
    let small = |s| {
        presets::load_sweep(
            &clusters,
            &[0.5],
            &KkorParams::default(),
            100,
            s,
            &mut |_, _| true,
        )
        .map(|r| serde_json::to_string(&r).unwrap())
        .unwrap()
    };
    assert_eq!(small(2), small(2));
}

#[test]
fn bad_inputs_are_errors_not_panics() {
    let cl = two(2, 2);
    let p = KkorParams::default();
    let e = run(&cl, &[], KkorPolicy::Centralized, &p).unwrap_err();
    assert!(
        matches!(e, gridscope::kkor::KkorError::Invalid { what: "jobs", .. }),
        "{e:?}"
    );
    let e = e.to_string();
    assert!(e.contains("at least one job"), "{e}");
    let e = run(&cl, &[job(0, 0, 3, 1, 0, 5)], KkorPolicy::Local, &p)
        .unwrap_err()
        .to_string();
    assert!(e.contains("own cluster"), "{e}");
    let e = run(&cl, &[job(0, 5, 1, 1, 0, 5)], KkorPolicy::Local, &p)
        .unwrap_err()
        .to_string();
    assert!(e.contains("organization"), "{e}");
    let e = run(&cl, &[job(0, 0, 1, 1, 5, 2)], KkorPolicy::Local, &p)
        .unwrap_err()
        .to_string();
    assert!(e.contains("due date"), "{e}");
    let bad_c = KkorParams {
        coefficients: vec![f64::NAN],
        ..KkorParams::default()
    };
    assert!(run(
        &cl,
        &[job(0, 0, 1, 1, 0, 5)],
        KkorPolicy::Decentralized,
        &bad_c
    )
    .is_err());
    let zero_s = KkorParams {
        batch_jobs: 0,
        ..KkorParams::default()
    };
    assert!(run(
        &cl,
        &[job(0, 0, 1, 1, 0, 5)],
        KkorPolicy::Centralized,
        &zero_s
    )
    .is_err());
    assert!(run(&[], &[job(0, 0, 1, 1, 0, 5)], KkorPolicy::Centralized, &p).is_err());
    let e = presets::run_preset("kkor-nope", 1, &mut |_, _| true).unwrap_err();
    assert!(e.contains("kkor-load"), "{e}");
    assert!(presets::run_preset("kkor-load", 1, &mut |_, _| false).is_err());
    let g = GeneratorParams::paper(vec![1.0]);
    assert!(generate(&cl, &g, 1).unwrap_err().contains("rates"));
    let g = GeneratorParams::paper(vec![0.0, f64::INFINITY]);
    assert!(generate(&cl, &g, 1).is_err());
    // Arrival rates so small that times would overflow; a workload whose schedule could.
    let g = GeneratorParams::paper(vec![1e-300, 0.0]);
    assert!(generate(&cl, &g, 1).unwrap_err().contains("too small"));
    let huge: Vec<KkorJob> = (0..9000)
        .map(|i| KkorJob {
            length: 1 << 49,
            due: 1 << 50,
            ..job(i, 0, 1, 1, 0, 1)
        })
        .collect();
    for policy in KkorPolicy::ALL {
        let e = run(&cl, &huge, policy, &p).unwrap_err().to_string();
        assert!(e.contains("could pass"), "{e}");
    }
}

#[test]
fn swf_jobs_get_due_dates_by_the_slack_rule() {
    use gridscope::model::Job;
    let cl = two(4, 8);
    let sj = |id: i64, submit_s: i64, run_s: i64, procs: u32, home: u32| Job {
        id,
        submit: SimTime::from_secs(submit_s),
        runtime: SimTime::from_secs(run_s),
        estimate: SimTime::from_secs(run_s.max(1)),
        procs,
        home,
        user: -1,
        partition: -1,
    };
    let swf = vec![
        sj(1, 0, 120, 2, 0),
        sj(2, 60, 600, 8, 1),
        sj(3, 90, 60, 8, 0),
        sj(4, 120, 0, 1, 1),
    ];
    // One time unit = 60 s; slack 3: d = r + 3p.
    let c = from_swf_jobs(&swf, &cl, 3.0, 60.0).unwrap();
    assert_eq!(c.skipped_too_wide, 1);
    let got: Vec<(i64, usize, u32, i64, i64, i64)> = c
        .jobs
        .iter()
        .map(|j| (j.id, j.org, j.procs, j.length, j.release, j.due))
        .collect();
    assert_eq!(
        got,
        vec![
            (1, 0, 2, 2 * U, 0, 6 * U),
            (2, 1, 8, 10 * U, U, 31 * U),
            (4, 1, 1, 1, 2 * U, 2 * U + 3)
        ]
    );
    for p in KkorPolicy::ALL {
        run(&cl, &c.jobs, p, &KkorParams::default()).unwrap();
    }
    assert!(from_swf_jobs(&swf, &cl[..1], 3.0, 60.0)
        .unwrap_err()
        .contains("site 1"));
    assert!(from_swf_jobs(&swf, &cl, 0.5, 60.0).is_err());
    assert!(from_swf_jobs(&swf, &cl, 2.0, 0.0).is_err());
    let far = [sj(9, 900_000_000_000, 1, 1, 0)];
    assert!(from_swf_jobs(&far, &cl, 2.0, 1e-6)
        .unwrap_err()
        .contains("passes"));
}

// ---------------------------------------------------------------------------------------
// Trends on small versions of the presets.

fn series<'a>(r: &'a presets::KkorSweepResult, policy: &str, metric: &str) -> &'a [f64] {
    &r.series
        .iter()
        .find(|s| s.policy == policy && s.metric == metric)
        .unwrap()
        .median
}

#[test]
fn load_trends_decentralized_beats_local_at_high_load() {
    let cl = paper_clusters();
    let r = presets::load_sweep(
        &cl,
        &[0.3, 0.9],
        &KkorParams::default(),
        300,
        3,
        &mut |_, _| true,
    )
    .unwrap();
    let (c, d, l) = ("centralized", "decentralized", "local");
    // High load: decentralized clearly better than local in tardiness and flow time,
    // centralized best.
    assert!(series(&r, d, "mean_tardiness")[1] < 0.8 * series(&r, l, "mean_tardiness")[1]);
    assert!(series(&r, d, "mean_flow_time")[1] < series(&r, l, "mean_flow_time")[1]);
    assert!(series(&r, c, "mean_flow_time")[1] <= series(&r, d, "mean_flow_time")[1]);
    // Low load: few migrations, decentralized close to local.
    assert!(series(&r, d, "migrations")[0] < series(&r, d, "migrations")[1]);
    let (fd, fl) = (
        series(&r, d, "mean_flow_time")[0],
        series(&r, l, "mean_flow_time")[0],
    );
    assert!((fd - fl).abs() < 0.15 * fl, "{fd} vs {fl}");
    for s in &r.series {
        for i in 0..2 {
            assert!(s.lo[i] <= s.median[i] && s.median[i] <= s.hi[i]);
        }
    }
}

#[test]
fn fairness_trends_less_loaded_organizations_stay_near_local() {
    let cl = paper_clusters();
    let rates = presets::rates_for_loads(&cl, &presets::FAIRNESS_LOADS);
    let r = presets::fairness(&cl, &rates, &KkorParams::default(), 300, 3, &mut |_, _| {
        true
    })
    .unwrap();
    let labels: Vec<&str> = r.runs.iter().map(|x| x.label.as_str()).collect();
    assert_eq!(
        labels,
        ["centralized", "distr1", "distr2", "distr3", "local"]
    );
    for run in &r.runs[1..4] {
        for o in &run.metrics.organizations[..2] {
            let rel = o
                .relative_to_local
                .as_ref()
                .unwrap()
                .mean_flow_time
                .unwrap();
            assert!(
                (0.8..1.25).contains(&rel),
                "{} {}: {rel}",
                run.label,
                o.name
            );
        }
    }
    let json = serde_json::to_value(presets::KkorPresetResult::Runs(r)).unwrap();
    assert!(json["runs"][0]["metrics"]["organizations"][0]["mean_flow_time"].is_number());
}

#[test]
fn the_invariant_check_catches_broken_schedules() {
    use gridscope::kkor::invariants::check;
    use gridscope::kkor::{BatchWindow, Placement, ReceiverLimit};
    const W: Option<ReceiverLimit> = Some(ReceiverLimit::Within);
    let cl = two(2, 2);
    let jobs = vec![job(0, 0, 2, 10, 0, 100), job(1, 0, 1, 10, 5, 100)];
    let at = |cluster: usize, start: i64, migrated: bool| Placement {
        cluster,
        start: start * U,
        end: (start + 10) * U,
        migrated,
        batch: 1,
    };
    let ok = vec![at(0, 0, false), at(0, 10, false)];
    check(&cl, &jobs, &ok, &[], None).unwrap();
    let over = vec![at(0, 0, false), at(0, 5, false)];
    assert!(check(&cl, &jobs, &over, &[], None)
        .unwrap_err()
        .contains("runs 3 processors"));
    let early = [at(0, 0, false), at(0, 4, false)];
    assert!(check(&cl, &jobs, &early[..1], &[], None)
        .unwrap_err()
        .contains("placements"));
    let early = vec![at(0, 10, false), at(1, 4, true)];
    assert!(check(&cl, &jobs, &early, &[], None)
        .unwrap_err()
        .contains("before its release"));
    let short = vec![
        at(0, 0, false),
        Placement {
            end: 12 * U,
            ..at(0, 10, false)
        },
    ];
    assert!(check(&cl, &jobs, &short, &[], None)
        .unwrap_err()
        .contains("p·s_l"));
    // Job 1 migrated to O2 in its batch 1 (surface 10): a window with L = 5 is broken, one
    // that does not count it too.
    let moved = vec![at(0, 0, false), at(1, 5, true)];
    let w = |limit: i64, accepted: i64| BatchWindow {
        cluster: 1,
        batch: 1,
        t0: 0,
        t1: 10 * U,
        limit: limit * U,
        accepted: accepted * U,
        exported: 0,
    };
    check(&cl, &jobs, &moved, &[w(10, 10)], W).unwrap();
    assert!(check(&cl, &jobs, &moved, &[w(5, 10)], W)
        .unwrap_err()
        .contains("over its limit"));
    assert!(check(&cl, &jobs, &moved, &[w(10, 0)], W)
        .unwrap_err()
        .contains("add up"));
    assert!(check(&cl, &jobs, &moved, &[], W)
        .unwrap_err()
        .contains("no window"));
}
