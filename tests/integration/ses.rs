//! SES node-group selection (docs/ses.md): golden decisions on the Lattice cluster's groups
//! (A 36×4, B 20×4, C 1×4, D 50×1 as engine sites 0–3), random's frequencies, and the
//! preset's trends on a short run.

use gridscope::engine::{simulate_grid, JobOutcome, RunConfig, SimTime, Simulation};
use gridscope::model::{Job, Platform};
use gridscope::policy::grid::{GridParams, GridScheme};
use gridscope::policy::local::LocalPolicyKind;
use gridscope::scenario::ses::{run_crossover, run_selection, SES_DAYS};
use gridscope::scenario::{group_platform, platform_preset};
use gridscope::workload::SesPoisson;

const A: u32 = 0;
const C: u32 = 2;
const D: u32 = 3;

fn lattice() -> Platform {
    group_platform(&platform_preset("ses-lattice").unwrap()).unwrap()
}

fn job(id: i64, submit: i64, run: i64, procs: u32) -> Job {
    Job {
        id,
        submit: SimTime::from_secs(submit),
        runtime: SimTime::from_secs(run),
        estimate: SimTime::from_secs(run),
        procs,
        home: 0,
        user: -1,
        partition: -1,
    }
}

/// The group (engine site) each job ran on.
fn groups_of(jobs: &[Job], scheme: GridScheme, restricted: bool, seed: u64) -> Vec<u32> {
    let params = GridParams {
        restricted,
        ..GridParams::default()
    };
    let p = lattice();
    let sim = Simulation::new(
        &p,
        jobs,
        LocalPolicyKind::Fcfs,
        scheme,
        &params,
        &RunConfig::default(),
    )
    .unwrap()
    .with_seed(seed);
    let out = sim.run(&mut |_, _| true).unwrap();
    out.outcomes
        .iter()
        .map(|o| {
            assert!(matches!(o.status, JobOutcome::Finished));
            o.site
        })
        .collect()
}

#[test]
fn lattice_groups_become_node_exclusive_sites() {
    let p = lattice();
    let names: Vec<&str> = p.sites.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["A", "B", "C", "D"]);
    assert_eq!(p.sites[A as usize].capacity_units(), 36);
    // A 1-CPU job on a 4-CPU node holds the node: one unit of A's 36.
    assert_eq!(p.sites[A as usize].units_for(1), 1);
    assert_eq!(p.sites[A as usize].units_for(8), 2);
    assert_eq!(p.sites[D as usize].units_for(3), 3);
}

#[test]
fn small_jobs_go_to_the_single_cpu_group_first() {
    for scheme in [GridScheme::GroupsRandom, GridScheme::GroupsMna] {
        for restricted in [false, true] {
            let jobs = [job(1, 0, 100, 1), job(2, 0, 100, 3)];
            assert_eq!(
                groups_of(&jobs, scheme, restricted, 1),
                [D, D],
                "{scheme:?}"
            );
        }
    }
}

#[test]
fn when_d_is_full_only_non_restricted_small_jobs_overflow() {
    // 50 one-CPU jobs fill D; the 51st cannot start there at once.
    let mut jobs: Vec<Job> = (0..50).map(|i| job(i, 0, 1000, 1)).collect();
    jobs.push(job(50, 10, 100, 1));
    let restricted = groups_of(&jobs, GridScheme::GroupsMna, true, 1);
    assert_eq!(restricted[50], D, "restricted: waits for a D node");
    let free = groups_of(&jobs, GridScheme::GroupsMna, false, 1);
    // Non-restricted MNA: the 4-CPU group with most free nodes, A (36).
    assert_eq!(free[50], A, "non-restricted: overflows to a 4-CPU node");
}

#[test]
fn mna_picks_the_group_with_most_free_nodes() {
    // Job 0 takes 32 of A's 36 nodes (128 CPUs), leaving A 4, B 20, C 1 free:
    // the next wide job goes to B; with B then down to 18 free, the third too.
    let jobs = [job(0, 0, 1000, 128), job(1, 1, 1000, 8), job(2, 2, 1000, 8)];
    let g = groups_of(&jobs, GridScheme::GroupsMna, false, 1);
    assert_eq!(g, [A, 1, 1]);
    // Ties go to the larger group: on an empty cluster A (36) before B (20).
    assert_eq!(
        groups_of(&[job(0, 0, 10, 4)], GridScheme::GroupsMna, false, 1),
        [A]
    );
    // A job too wide for C (8 CPUs = 2 nodes) never lands there, even under random.
    for seed in 1..50 {
        assert_ne!(
            groups_of(&[job(0, 0, 10, 8)], GridScheme::GroupsRandom, false, seed)[0],
            C
        );
    }
}

#[test]
fn random_draws_groups_in_proportion_to_their_nodes() {
    // 4-CPU jobs arriving far apart (each alone on the cluster): A, B, C with 36, 20, 1 nodes.
    let n = 5700u64;
    let jobs: Vec<Job> = (0..n).map(|i| job(i as i64, i as i64 * 10, 1, 4)).collect();
    let g = groups_of(&jobs, GridScheme::GroupsRandom, false, 42);
    let observed = [0, 1, 2].map(|k| g.iter().filter(|&&s| s == k).count() as f64);
    let expected = [36.0, 20.0, 1.0].map(|w| w / 57.0 * n as f64);
    let chi2: f64 = observed
        .iter()
        .zip(expected)
        .map(|(o, e)| (o - e) * (o - e) / e)
        .sum();
    // 2 degrees of freedom: P(χ² > 13.8) = 0.001.
    assert!(
        chi2 < 13.8,
        "χ² = {chi2}, observed {observed:?}, expected {expected:?}"
    );
    assert_eq!(
        g.iter().filter(|&&s| s == D).count(),
        0,
        "4-CPU jobs never go to D"
    );
}

#[test]
fn group_schemes_run_on_any_platform_and_keep_the_invariants() {
    // The engine checks capacity per group (site) after every run, so a job can never span
    // groups; a platform without groups runs with its sites as the groups.
    let p = platform_preset("sob-3").unwrap();
    let jobs: Vec<Job> = (0..200)
        .map(|i| Job {
            home: (i % 3) as u32,
            ..job(i, i * 30, 500 + (i * 37) % 900, 1 + (i as u32 * 7) % 64)
        })
        .collect();
    for scheme in [GridScheme::GroupsRandom, GridScheme::GroupsMna] {
        simulate_grid(
            &p,
            &jobs,
            LocalPolicyKind::Easy,
            scheme,
            &GridParams::default(),
            &RunConfig::default(),
            &mut |_, _| true,
        )
        .unwrap();
    }
}

#[test]
fn ses_selection_shows_the_papers_trends() {
    let s = run_selection(&SesPoisson::default(), SES_DAYS, 3, &mut |_, _| true).unwrap();
    let run = |label: &str| s.runs.iter().find(|r| r.label == label).unwrap();
    let labels: Vec<&str> = s.runs.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(
        labels,
        ["random", "mna", "random-restricted", "mna-restricted"]
    );
    for r in &s.runs {
        assert_eq!(r.metrics.groups.len(), 4);
        assert!(r
            .metrics
            .groups
            .iter()
            .all(|g| g.lo.is_some() && g.hi.is_some()));
    }
    // Queue length over time per group (the first seed): four groups, the queue at D longer
    // on average when small jobs are restricted to it.
    let mean_queue_d = |label: &str| {
        let q = run(label).queue_series.as_ref().expect("queue series");
        assert_eq!(q.groups.len(), 4);
        assert!(q
            .groups
            .iter()
            .all(|g| g.queue_length.len() == 84 && g.queue_length.iter().all(|v| *v >= 0.0)));
        q.groups[3].queue_length.iter().sum::<f64>() / 84.0
    };
    assert!(mean_queue_d("mna-restricted") > mean_queue_d("mna"));
    let d = |label: &str| &run(label).metrics.groups[3];
    // Restricted variants pile up at D: more delay there and a longer response.
    assert!(d("mna-restricted").avg_queue_delay_s > d("mna").avg_queue_delay_s);
    assert!(run("mna-restricted").metrics.avg_response_s > run("mna").metrics.avg_response_s);
    assert!(run("random-restricted").metrics.avg_response_s > run("random").metrics.avg_response_s);
    // D is the most utilized group in every variant.
    for r in &s.runs {
        let util: Vec<f64> = r.metrics.groups.iter().map(|g| g.utilization).collect();
        assert!(
            util[3] >= util[0] && util[3] >= util[1],
            "{}: {util:?}",
            r.label
        );
    }
    // MNA leaves the one-node group C less used than random does.
    assert!(run("mna").metrics.groups[2].jobs <= run("random").metrics.groups[2].jobs);
}

#[test]
fn the_crossover_sweep_keeps_the_cpu_demand_and_finds_no_win_at_the_papers_load() {
    let c = run_crossover(
        &SesPoisson::default(),
        &[0.05, 0.5],
        SES_DAYS,
        3,
        &mut |_, _| true,
    )
    .unwrap();
    assert_eq!(c.x, [0.05, 0.5]);
    assert_eq!(c.series.len(), 4);
    // Few wide jobs: restricting the small ones to D costs a lot.
    assert!(c.series[3].median[0] > 2.0 * c.series[1].median[0]);
    // Half wide: D is rarely full, so the variants barely differ; restriction never wins.
    assert!((c.series[3].median[1] / c.series[1].median[1] - 1.0).abs() < 0.05);
    assert!(
        c.crossover.iter().all(|(_, at)| at.is_none()),
        "{:?}",
        c.crossover
    );
}

/// Starts of `jobs` (seconds) under MNA over FCFS, with SES's per-group queues or one FCFS
/// queue for the whole site.
fn starts_with_site_queue(jobs: &[Job], site_queue: bool) -> Vec<i64> {
    let params = GridParams {
        site_queue,
        ..GridParams::default()
    };
    let p = lattice();
    let out = Simulation::new(
        &p,
        jobs,
        LocalPolicyKind::Fcfs,
        GridScheme::GroupsMna,
        &params,
        &RunConfig::default(),
    )
    .unwrap()
    .run(&mut |_, _| true)
    .unwrap();
    out.outcomes.iter().map(|o| o.start.0 / 1000).collect()
}

#[test]
fn one_site_queue_makes_the_head_block_the_other_groups() {
    // Job 1 takes all of A (36 nodes × 4 CPUs) for 100 s; job 2 needs A again (B has only
    // 20 nodes) and waits; job 3 needs one node, which B has free at once. Per-group queues:
    // job 3 goes to B and starts at 2. One site queue: job 3 waits behind job 2 until A
    // frees at 100, when both are sent (job 2 to A, job 3 to B).
    let jobs = [job(1, 0, 100, 144), job(2, 1, 50, 144), job(3, 2, 10, 4)];
    assert_eq!(starts_with_site_queue(&jobs, false), vec![0, 100, 2]);
    assert_eq!(starts_with_site_queue(&jobs, true), vec![0, 100, 100]);
    // Small jobs keep their rule: with D free, a 1-CPU job behind nobody starts at once.
    let small = [job(1, 0, 10, 1)];
    assert_eq!(starts_with_site_queue(&small, true), vec![0]);
}
