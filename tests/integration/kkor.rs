//! KKOR (issue 11): hand-made golden cases for each rule of the centralized and decentralized
//! algorithms, the generator's moments, determinism and the presets' trends.

use gridscope::kkor::centralized::{free_slots, list_schedule};
use gridscope::kkor::generator::{generate, GeneratorParams};
use gridscope::kkor::presets::{self, equal_rates};
use gridscope::kkor::{paper_clusters, run, Cluster, KkorJob, KkorParams, KkorPolicy, KkorRun};
use gridscope::policy::Profile;
use gridscope::time::SimTime;

/// Prints both presets at their defaults with wall times (run with `--ignored --nocapture`).
#[test]
#[ignore]
fn print_presets() {
    for (name, _) in presets::KKOR_PRESETS {
        let t0 = std::time::Instant::now();
        let r = presets::run_preset(name, 0, &mut |_, _| true).unwrap();
        let ms = t0.elapsed().as_millis();
        println!(
            "=== {name}: {ms} ms\n{}",
            serde_json::to_string(&r).unwrap()
        );
    }
}

#[test]
fn smoke_all_policies_at_every_load() {
    let clusters = paper_clusters();
    for load in [0.3, 0.9] {
        let g = GeneratorParams::paper(equal_rates(&clusters, load));
        let jobs = generate(&clusters, &g, 7).unwrap();
        for p in KkorPolicy::ALL {
            let r = run(&clusters, &jobs, p, &KkorParams::default()).unwrap();
            println!(
                "{load} {} {:?}",
                p.name(),
                (
                    r.metrics.mean_flow_time,
                    r.metrics.mean_tardiness,
                    r.metrics.late_jobs,
                    r.metrics.utilization,
                    r.metrics.migrations
                )
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// Hand-made cases. Times in time units (×1000 ticks); every run also passes the invariants.

const U: i64 = gridscope::kkor::TICKS_PER_UNIT;

fn job(id: u64, org: usize, procs: u32, p: i64, r: i64, d: i64) -> KkorJob {
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
