//! Slurm's own policy (issue #42, docs/slurm.md): hand cases whose schedules are worked out
//! in the comments, one per factor and backfill knob; the `slurm.conf` reader; scenarios
//! that keep their old form; and a real trace under Slurm's defaults and the
//! `medium_cluster` preset (invariants checked by every run, the same run twice) and, unbounded,
//! against conservative backfilling by rebuild.

use gridscope::engine::{JobOutcome, Outcome, RejectReason, RunConfig, Simulation};
use gridscope::model::{Job, Platform, Site};
use gridscope::policy::grid::{GridParams, GridScheme};
use gridscope::policy::local::{LocalPolicyKind, Slurm};
use gridscope::policy::slurm::{read_slurm_conf, PartitionFactor, SlurmConfig, TresWeights};
use gridscope::scenario::{run_loaded, AlgorithmSpec, PlatformSpec, Scenario, WorkloadSpec};
use gridscope::time::SimTime;
use gridscope::workload::{read_swf, SwfOptions};

use crate::cli::{gridscope, stderr};
use crate::trace;

/// Job `id` of `user` in `partition`: `procs` processors submitted at `submit` s, running
/// `run` s with an estimate of `est` s.
fn job(id: i64, user: i32, partition: i32, submit: i64, procs: u32, run: i64, est: i64) -> Job {
    Job {
        id,
        submit: SimTime::from_secs(submit),
        runtime: SimTime::from_secs(run),
        estimate: SimTime::from_secs(est),
        procs,
        home: 0,
        user,
        partition,
    }
}

/// Start times in seconds, by job, under `cfg` on one site of 10 processors.
fn starts(cfg: SlurmConfig, jobs: &[Job]) -> Vec<i64> {
    outcomes(cfg, jobs)
        .iter()
        .map(|o| o.start.0 / 1000)
        .collect()
}

/// Each job's outcome under `cfg` on one site of 10 processors.
fn outcomes(cfg: SlurmConfig, jobs: &[Job]) -> Vec<Outcome> {
    outcomes_on_ten(jobs, &mut Slurm::factory(cfg, jobs))
}

/// Each job's outcome on one site of 10 processors under the policies `build` makes (the
/// hand cases here and in `slurm_qos`).
pub(crate) fn outcomes_on_ten(
    jobs: &[Job],
    build: &mut dyn FnMut(usize) -> Box<dyn gridscope::policy::local::LocalPolicy>,
) -> Vec<Outcome> {
    outcomes_on(&Platform::single(Site::flat("s", 10)), jobs, build)
}

/// Each job's outcome on `platform` under the policies `build` makes.
fn outcomes_on(
    platform: &Platform,
    jobs: &[Job],
    build: &mut dyn FnMut(usize) -> Box<dyn gridscope::policy::local::LocalPolicy>,
) -> Vec<Outcome> {
    Simulation::with_local_policies(
        platform,
        jobs,
        build,
        GridScheme::Local,
        &GridParams::default(),
        &RunConfig::default(),
    )
    .unwrap()
    .run(&mut |_, _| true)
    .unwrap()
    .outcomes
}

/// A short calculation period so that the ticks fall where the cases need them.
fn base() -> SlurmConfig {
    SlurmConfig {
        calc_period_s: 100,
        ..SlurmConfig::default()
    }
}

/// A (10 procs) holds the machine until 1000. B (3 procs) was queued at 0, C (8 procs) at
/// 900. With job size alone C (800) beats B (300): C starts at 1000 and B when C ends,
/// 1100. With age too (1000 × age / 1000 s) the tick at 1000 gives B 1000 + 300 against
/// C's 100 + 800: B starts at 1000 and C, which no longer fits, at 1100.
#[test]
fn age_reorders_the_queue() {
    let jobs = [
        job(1, 1, 1, 0, 10, 1000, 1000),
        job(2, 1, 1, 0, 3, 100, 100),
        job(3, 1, 1, 900, 8, 100, 100),
    ];
    let size = SlurmConfig {
        weight_job_size: 1000,
        ..base()
    };
    assert_eq!(starts(size.clone(), &jobs), [0, 1100, 1000]);
    let aged = SlurmConfig {
        weight_age: 1000,
        max_age_s: 1000,
        ..size
    };
    assert_eq!(starts(aged, &jobs), [0, 1000, 1100]);
}

/// A (6 procs) holds 6 processors until 1000, B the other 4 until 50. N (4 procs, 2000 s)
/// is queued at 10, W (10 procs) at 20. When B ends at 50, job size puts W first (1000
/// against 400), and N may not backfill, as it would hold 4 of W's processors at 1000.
/// The tick at 100 adds age (10000 × age / 100 s):
/// N 400 + 9000 against W's 1000 + 8000, so N is the head and fits in the 4 free
/// processors. No job arrives or ends at 100, but Slurm's schedulers run every second or so
/// and start N at the tick; so does the policy (its wake-up at each tick), and W starts when
/// both A and N have ended, at 2100. With passes at arrivals and ends only, W would start
/// when A ends, at 1000, and N after it, at 1100 (a real slurmctld started such jobs 9 s
/// before the simulation did: the replay's a3 and a5, scripts/slurm_replay.sh).
#[test]
fn a_tick_that_makes_a_job_the_head_starts_it_at_the_tick() {
    let jobs = [
        job(1, 1, 1, 0, 6, 1000, 1000),
        job(2, 1, 1, 0, 4, 50, 50),
        job(3, 1, 1, 10, 4, 2000, 2000),
        job(4, 1, 1, 20, 10, 100, 100),
    ];
    let cfg = SlurmConfig {
        weight_job_size: 1000,
        weight_age: 10_000,
        max_age_s: 100,
        ..base()
    };
    assert_eq!(starts(cfg, &jobs), [0, 0, 100, 2100]);
}

/// User 1 runs 10 procs from 0 to 600; at 100 they queue H (10 procs), at 200 user 2 queues
/// L (10 procs). In arrival order H starts at 600, L at 700. With fair share, user 1 has
/// all the usage: 2^(−1/0.5) = 0.25 against user 2's 1, so L starts at 600, H at 700.
#[test]
fn fair_share_favours_the_light_user() {
    let jobs = [
        job(1, 1, 1, 0, 10, 600, 600),
        job(2, 1, 1, 100, 10, 100, 100),
        job(3, 2, 1, 200, 10, 100, 100),
    ];
    assert_eq!(starts(base(), &jobs), [0, 600, 700]);
    let fair = SlurmConfig {
        weight_fairshare: 1000,
        ..base()
    };
    assert_eq!(starts(fair, &jobs), [0, 700, 600]);
}

/// A (10 procs) until 100; B (2 procs) queued at 10, C (9 procs) at 20. Job size favours
/// the wide C (900 against 200): C at 100, B after it at 200. With PriorityFavorSmall B
/// gets 800 against C's 100: B at 100, C at 200.
#[test]
fn job_size_with_and_without_favor_small() {
    let jobs = [
        job(1, 1, 1, 0, 10, 100, 100),
        job(2, 1, 1, 10, 2, 100, 100),
        job(3, 1, 1, 20, 9, 100, 100),
    ];
    let size = SlurmConfig {
        weight_job_size: 1000,
        ..base()
    };
    assert_eq!(starts(size.clone(), &jobs), [0, 200, 100]);
    let small = SlurmConfig {
        favor_small: true,
        ..size
    };
    assert_eq!(starts(small, &jobs), [0, 100, 200]);
}

/// A (partition 1) holds the machine until 100; B (partition 1, 6 procs) queued at 10,
/// C (partition 2, 6 procs) at 20. Partition 2's PriorityJobFactor is 10, partition 1's 1:
/// C's factor 1 beats B's 0.1 and C starts first.
#[test]
fn partition_factor_orders_the_partitions() {
    let jobs = [
        job(1, 1, 1, 0, 10, 100, 100),
        job(2, 1, 1, 10, 6, 100, 100),
        job(3, 1, 2, 20, 6, 100, 100),
    ];
    assert_eq!(starts(base(), &jobs), [0, 100, 200]);
    let part = SlurmConfig {
        weight_partition: 1000,
        partitions: vec![PartitionFactor::new("1", 1), PartitionFactor::new("2", 10)],
        ..base()
    };
    assert_eq!(starts(part, &jobs), [0, 200, 100]);
}

/// Tiers come before priorities (slurmctld's `sort_job_queue2`: partition tier, then
/// priority, then submission). As above but partition 1's PriorityJobFactor is 10 and
/// partition 2's 1: B (1000) outranks C (100) and starts first; with partition 2 at
/// PriorityTier 2, C goes first whatever its priority. In the backfill too: A (6 procs)
/// until 100, W (partition 1, 10 procs) at 1, T (partition 2, 8 procs) at 2, S (partition
/// 1, 4 procs, 150 s) at 3. In one tier W holds 100–200, T 200–300 and S, which would
/// overlap W, 300. With T's partition a tier up, T takes 100–200 and W 200–300.
#[test]
fn priority_tier_comes_before_priority() {
    let jobs = [
        job(1, 1, 1, 0, 10, 100, 100),
        job(2, 1, 1, 10, 6, 100, 100),
        job(3, 1, 2, 20, 6, 100, 100),
    ];
    let cfg = SlurmConfig {
        weight_partition: 1000,
        partitions: vec![PartitionFactor::new("1", 10), PartitionFactor::new("2", 1)],
        ..base()
    };
    assert_eq!(starts(cfg.clone(), &jobs), [0, 100, 200]);
    let mut tiered = cfg;
    tiered.partitions[1].priority_tier = 2;
    assert_eq!(starts(tiered.clone(), &jobs), [0, 200, 100]);
    let jobs = [
        job(1, 1, 1, 0, 6, 100, 100),
        job(2, 1, 1, 1, 10, 100, 100),
        job(3, 1, 2, 2, 8, 100, 100),
        job(4, 1, 1, 3, 4, 150, 150),
    ];
    assert_eq!(starts(base(), &jobs), [0, 100, 200, 300]);
    assert_eq!(starts(tiered, &jobs), [0, 200, 100, 300]);
}

/// A partition's MaxTime: partition 2 allows 1 minute. C (partition 2) asks for 100 s and
/// is rejected at its arrival with the reason, never queued; D (partition 2, 60 s) and B
/// (partition 1, no limit, 100 s) run.
#[test]
fn a_time_limit_beyond_maxtime_is_rejected_with_the_reason() {
    let jobs = [
        job(1, 1, 1, 0, 10, 100, 100),
        job(2, 1, 1, 10, 6, 100, 100),
        job(3, 1, 2, 20, 6, 100, 100),
        job(4, 1, 2, 30, 4, 60, 60),
    ];
    let mut cfg = SlurmConfig {
        partitions: vec![PartitionFactor::new("2", 1)],
        ..base()
    };
    cfg.partitions[0].max_time_s = Some(60);
    let out = outcomes(cfg, &jobs);
    assert_eq!(
        out[2].status,
        JobOutcome::Rejected(RejectReason::PartitionTimeLimit {
            limit_s: 100,
            max_time_s: 60
        })
    );
    let started: Vec<i64> = out.iter().map(|o| o.start.0 / 1000).collect();
    assert_eq!((started[0], started[1], started[3]), (0, 100, 100));
    assert!(RejectReason::PartitionTimeLimit {
        limit_s: 100,
        max_time_s: 60
    }
    .describe(6, 0)
    .contains("MaxTime of 60 s"));
}

/// The CLI reads MaxTime and PriorityTier from a slurm.conf: job 3 (partition 2, 7,200 s
/// against a MaxTime of one minute) is rejected and the report says why.
#[test]
fn the_cli_reports_a_maxtime_rejection() {
    let dir = std::env::temp_dir().join(format!("gridscope-maxtime-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let swf = dir.join("q.swf");
    std::fs::write(
        &swf,
        "; MaxProcs: 10\n\
1 0 -1 100 10 -1 -1 10 100 -1 1 1 -1 -1 -1 1 -1 -1\n\
2 10 -1 100 6 -1 -1 6 100 -1 1 1 -1 -1 -1 1 -1 -1\n\
3 20 -1 100 6 -1 -1 6 7200 -1 1 1 -1 -1 -1 2 -1 -1\n",
    )
    .unwrap();
    let conf = dir.join("slurm.conf");
    std::fs::write(&conf, "PartitionName=2 MaxTime=1 PriorityTier=2\n").unwrap();
    let (swf, conf) = (swf.to_str().unwrap(), conf.to_str().unwrap());
    let o = gridscope(&[
        "simulate",
        swf,
        "--policy",
        "slurm",
        "--slurm-conf",
        conf,
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let run = &v["runs"][0];
    assert_eq!(run["metrics"]["jobs_rejected"], 1, "{run}");
    let why = run["rejected"][0].as_str().unwrap_or_default();
    assert!(
        why.starts_with("job 3: asks for 7200 s, beyond its partition's MaxTime of 60 s"),
        "{why}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// The CLI's partitions as node sets: a platform file of two named node types, a
/// slurm.conf putting partition 1 on type `a` and 2 on `b`. Job 2 (partition 1) waits
/// for node 0 while job 3 (partition 2) starts on node 1; job 4 (8 cores, partition 2)
/// is rejected with its partition's cores.
#[test]
fn the_cli_runs_partitions_on_their_node_types() {
    let dir = std::env::temp_dir().join(format!("gridscope-node-sets-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let platform = write(
        "two.json",
        r#"{"name":"two","sites":[{"name":"c","nodes":2,"cpus_per_node":4,"speed":1.0,"node_types":[{"name":"a","count":1,"cores":4},{"name":"b","count":1,"cores":4}]}]}"#,
    );
    let swf = write(
        "p.swf",
        "; MaxProcs: 8\n\
1 0 -1 100 4 -1 -1 4 100 -1 1 1 -1 -1 -1 1 -1 -1\n\
2 1 -1 100 2 -1 -1 2 100 -1 1 1 -1 -1 -1 1 -1 -1\n\
3 2 -1 100 4 -1 -1 4 100 -1 1 1 -1 -1 -1 2 -1 -1\n\
4 3 -1 100 8 -1 -1 8 100 -1 1 1 -1 -1 -1 2 -1 -1\n",
    );
    let conf = write(
        "slurm.conf",
        "PartitionName=1 Nodes=a\nPartitionName=2 Nodes=b\n",
    );
    let jobs = dir.join("jobs.csv");
    let o = gridscope(&[
        "simulate",
        &swf,
        "--platform",
        &platform,
        "--policy",
        "slurm",
        "--slurm-conf",
        &conf,
        "--jobs",
        jobs.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = std::fs::read_to_string(&jobs).unwrap();
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(
        rows,
        [
            "1,c,c,0,0,100,4,0",
            "2,c,c,1,100,200,2,0",
            "3,c,c,2,2,102,4,1"
        ],
        "{csv}"
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains(
            "rejected job 4: needs 8 cores (8 processors); its partition's nodes have at most 4"
        ),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A (6 procs) until 100; W (10 procs) queued at 1 gets a reservation at 100. S (2 procs,
/// 50 s) ends before it and is backfilled at 2; L (2 procs, 200 s) would delay it, so it
/// waits for W's end, 200.
#[test]
fn backfill_goes_around_a_wide_job() {
    let jobs = [
        job(1, 1, 1, 0, 6, 100, 100),
        job(2, 1, 1, 1, 10, 100, 100),
        job(3, 1, 1, 2, 2, 50, 50),
        job(4, 1, 1, 3, 2, 200, 200),
    ];
    assert_eq!(starts(base(), &jobs), [0, 100, 2, 200]);
}

/// Slurm's backfill reserves whole nodes (`bf_node_cpus`). A (9 procs) until 100; H (5
/// procs, 200 s) at 1 is reserved from 100 to 300; S (1 proc, 150 s) at 2. Reserving
/// H's processors alone leaves 5 free beside it, so S starts at 2. With the 10 processors
/// one node, H's reservation holds all of it and S, which would still run at 100, waits:
/// it starts at 100 beside H, by the main scheduler. With nodes of 5, H holds one node and
/// S fits on the other from 2 on.
#[test]
fn backfill_reservations_hold_whole_nodes() {
    let jobs = [
        job(1, 1, 1, 0, 9, 100, 100),
        job(2, 1, 1, 1, 5, 200, 200),
        job(3, 1, 1, 2, 1, 150, 150),
    ];
    let nodes_of = |n: u32| SlurmConfig {
        bf_node_cpus: n,
        ..base()
    };
    assert_eq!(starts(nodes_of(0), &jobs), [0, 100, 2]);
    assert_eq!(starts(nodes_of(10), &jobs), [0, 100, 100]);
    assert_eq!(starts(nodes_of(5), &jobs), [0, 100, 2]);
}

/// Whole-node reservations on one node are the same on a site of processors (a
/// reservation holds ⌈units / N⌉·N of them, here all) and on a node-typed site of that one
/// node (a reservation holds the node): either way no other job may run on it in the
/// reservation's window. Random workloads; some of them start differently from
/// reservations of processors, so the case is not empty.
#[test]
fn whole_node_reservations_agree_on_processors_and_on_one_node() {
    let mut rng = gridscope::rng::SimRng::new(42);
    let mut changed = 0;
    for case in 0..60 {
        let cores = 2 + rng.range_u64(0, 15) as u32;
        let jobs = crate::nodes::random_jobs(&mut rng, 60, cores);
        let cfg = |n: u32| SlurmConfig {
            bf_node_cpus: n,
            bf_resolution_s: 1,
            weight_job_size: 1000,
            ..base()
        };
        let run = |platform: &Platform, cfg: SlurmConfig| -> Vec<SimTime> {
            outcomes_on(platform, &jobs, &mut Slurm::factory(cfg, &jobs))
                .iter()
                .map(|o| o.start)
                .collect()
        };
        let node = crate::nodes::node_site(vec![gridscope::model::NodeType {
            name: String::new(),
            count: 1,
            cores,
            mem_kb: 0,
            gpus: 0,
            power: None,
            exclusive: false,
        }]);
        let flat = Platform::single(Site::flat("N", cores));
        let whole = run(&flat, cfg(cores));
        assert_eq!(run(&node, cfg(cores)), whole, "case {case}");
        changed += usize::from(run(&flat, cfg(0)) != whole);
    }
    assert!(
        changed > 0,
        "no workload met a reservation beside a narrower job"
    );
}

/// `bf_interval`: the backfill runs only at the passes on its multiples. The jobs of
/// `backfill_goes_around_a_wide_job` (A 6 procs until 100, W 10 procs at 1, S 2 procs
/// 50 s at 2, L 2 procs 200 s at 3). With 30 s, S waits for the backfill at 30 (planned
/// 60 s, `bf_resolution`: it ends by W's reservation at 100) and starts there. With 60 s,
/// S planned from 60 would reach 120, past W's start, so it waits for W's end and starts
/// at 200 beside L, both by the main scheduler.
#[test]
fn bf_interval_backfills_only_on_its_multiples() {
    let jobs = [
        job(1, 1, 1, 0, 6, 100, 100),
        job(2, 1, 1, 1, 10, 100, 100),
        job(3, 1, 1, 2, 2, 50, 50),
        job(4, 1, 1, 3, 2, 200, 200),
    ];
    let every = |s: u64| SlurmConfig {
        bf_interval_s: s,
        ..base()
    };
    assert_eq!(starts(every(0), &jobs), [0, 100, 2, 200]);
    assert_eq!(starts(every(1), &jobs), [0, 100, 2, 200]);
    assert_eq!(starts(every(30), &jobs), [0, 100, 30, 200]);
    assert_eq!(starts(every(60), &jobs), [0, 100, 200, 200]);
}

/// A (6 procs) until 1000; W (10 procs) queued at 1; S (4 procs, 2000 s) at 2. Within the
/// default window W is reserved at 1000 and S, which would delay it, waits for W: 1100.
/// With `bf_window` = 1 minute W's start is too far for a reservation, S starts at 2 and
/// W waits for it: 2002.
#[test]
fn bf_window_prevents_a_far_reservation() {
    let jobs = [
        job(1, 1, 1, 0, 6, 1000, 1000),
        job(2, 1, 1, 1, 10, 100, 100),
        job(3, 1, 1, 2, 4, 2000, 2000),
    ];
    assert_eq!(starts(base(), &jobs), [0, 1000, 1100]);
    let narrow = SlurmConfig {
        bf_window_min: 1,
        ..base()
    };
    assert_eq!(starts(narrow, &jobs), [0, 2002, 2]);
}

/// `bf_max_job_test` = 1: the backfill looks at the blocked head only, so the small job
/// behind it waits though it would fit (A 6 procs until 100, W 10 procs, S 2 procs 50 s).
#[test]
fn bf_max_job_test_bounds_the_backfill() {
    let jobs = [
        job(1, 1, 1, 0, 6, 100, 100),
        job(2, 1, 1, 1, 10, 100, 100),
        job(3, 1, 1, 2, 2, 50, 50),
    ];
    let one = SlurmConfig {
        bf_max_job_test: 1,
        ..base()
    };
    assert_eq!(starts(one, &jobs), [0, 100, 200]);
}

/// `bf_max_job_user` = 1: A (user 1, 6 procs) until 100, W (user 2, 10 procs) queued at 1,
/// and user 3's S1 and S2 (2 procs, 50 s each) both at 2. Without the cap the backfill
/// starts both at 2 (4 procs free, both end before W's reservation at 100). With it, the
/// pass at 2 examines W and S1 and skips S2; at 52 (S1's end) S2 would end at 102, past
/// W's reservation, so it goes after W: 200.
#[test]
fn bf_max_job_user_caps_a_users_jobs_per_pass() {
    let jobs = [
        job(1, 1, 1, 0, 6, 100, 100),
        job(2, 2, 1, 1, 10, 100, 100),
        job(3, 3, 1, 2, 2, 50, 50),
        job(4, 3, 1, 2, 2, 50, 50),
    ];
    assert_eq!(starts(base(), &jobs), [0, 100, 2, 2]);
    let capped = SlurmConfig {
        bf_max_job_user: 1,
        ..base()
    };
    assert_eq!(starts(capped, &jobs), [0, 100, 2, 200]);
    // The skipped job does not count towards bf_max_job_test: with a test limit of 2 and
    // the cap, W and S1 are tested at 2, as without the cap.
    let both = SlurmConfig {
        bf_max_job_user: 1,
        bf_max_job_test: 2,
        ..base()
    };
    assert_eq!(starts(both, &jobs), [0, 100, 2, 200]);
}

/// `bf_min_age_reserve` = 60 s: A (6 procs) until 1000; W (10 procs) queued at 1; S (4
/// procs, 2000 s) at 2. At 2, W has waited 1 s, too young for a reservation, so S starts
/// and W waits for it: 2002. With 1 s W is old enough: it holds 1000 and S waits: 1100.
#[test]
fn bf_min_age_reserve_keeps_young_jobs_from_reserving() {
    let jobs = [
        job(1, 1, 1, 0, 6, 1000, 1000),
        job(2, 1, 1, 1, 10, 100, 100),
        job(3, 1, 1, 2, 4, 2000, 2000),
    ];
    let young = |s| SlurmConfig {
        bf_min_age_reserve_s: s,
        ..base()
    };
    assert_eq!(starts(young(60), &jobs), [0, 2002, 2]);
    assert_eq!(starts(young(1), &jobs), [0, 1000, 1100]);
    // Both read from slurm.conf, and left out of a scenario when 0.
    let r =
        read_slurm_conf(b"SchedulerParameters=bf_max_job_user=3,bf_min_age_reserve=600").unwrap();
    assert_eq!(
        (r.config.bf_max_job_user, r.config.bf_min_age_reserve_s),
        (3, 600)
    );
    assert!(r.unknown.is_empty());
    let text = serde_json::to_string(&SlurmConfig::default()).unwrap();
    assert!(
        !text.contains("bf_max_job_user") && !text.contains("bf_min_age"),
        "{text}"
    );
}

const CONF: &str = "\
# a site's slurm.conf
ClusterName=demo
PriorityType=priority/multifactor
PriorityDecayHalfLife=30-0
PriorityMaxAge=7-0
PriorityCalcPeriod=1
PriorityFavorSmall=YES
PriorityWeightAge=70000
PriorityWeightFairshare=120000   # a comment
priorityweightjobsize=200000
PriorityWeightPartition=1000000
PriorityWeightQOS=50000
PriorityWeightTRES=CPU=1000,Mem=2000,billing=5
SchedulerParameters=bf_window=4320,bf_interval=120,bf_max_job_test=2500,bf_resolution=30
PartitionName=batch Nodes=n[1-4] Default=YES PriorityJobFactor=10 MaxTime=2-00:00:00
PartitionName=debug Nodes=n1 PriorityJobFactor=1 PriorityTier=2 MaxTime=UNLIMITED
";

#[test]
fn slurm_conf_is_read() {
    let r = read_slurm_conf(CONF.as_bytes()).unwrap();
    let expected = SlurmConfig {
        weight_age: 70_000,
        weight_fairshare: 120_000,
        weight_job_size: 200_000,
        weight_partition: 1_000_000,
        weight_qos: 50_000,
        weight_tres: TresWeights {
            cpu: 1000,
            mem: 2000,
            gpu: 0,
        },
        max_age_s: 7 * 86_400,
        decay_half_life_s: 30 * 86_400,
        calc_period_s: 60,
        favor_small: true,
        bf_window_min: 4320,
        bf_max_job_test: 2500,
        bf_resolution_s: 30,
        bf_max_job_user: 0,
        bf_min_age_reserve_s: 0,
        bf_interval_s: 120,
        bf_node_cpus: 0,
        partitions: vec![
            PartitionFactor {
                max_time_s: Some(2 * 86_400),
                nodes: Some(vec!["n[1-4]".into()]),
                ..PartitionFactor::new("batch", 10)
            },
            PartitionFactor {
                priority_tier: 2,
                nodes: Some(vec!["n1".into()]),
                ..PartitionFactor::new("debug", 1)
            },
        ],
        shares: vec![],
        other_shares: 0,
        other_users: 0,
        accounts: vec![],
        fair_tree: true,
        qos: vec![],
        assoc_dump: String::new(),
    };
    assert_eq!(r.config, expected);
    // Fair share weighted without PriorityFlags=NO_FAIR_TREE: Fair Tree, and a note says so;
    // another says how the partitions' Nodes= are read (node types' names).
    assert_eq!(r.notes.len(), 2);
    assert!(
        r.notes[0].contains("Nodes= name node types"),
        "{:?}",
        r.notes
    );
    assert!(r.notes[1].contains("Fair Tree"), "{:?}", r.notes);
    let classic = read_slurm_conf(format!("{CONF}PriorityFlags=NO_FAIR_TREE\n").as_bytes());
    let classic = classic.unwrap();
    assert_eq!(classic.notes.len(), 1);
    assert!(!classic.config.fair_tree);
    let unknown: Vec<(usize, &str)> = r.unknown.iter().map(|(l, k)| (*l, k.as_str())).collect();
    assert_eq!(
        unknown,
        [
            (2, "ClusterName"),
            (3, "PriorityType"),
            (13, "PriorityWeightTRES:billing"),
            (15, "PartitionName:Default"),
        ]
    );
    // An empty file is Slurm's defaults, Fair Tree among them (`SlurmConfig::default()`
    // keeps classic fair share, so that scenarios without the field keep their numbers),
    // but the backfill at every pass, which a note says (Slurm's bf_interval is 30 s).
    let defaults = SlurmConfig {
        fair_tree: true,
        ..SlurmConfig::default()
    };
    let empty = read_slurm_conf(b"").unwrap();
    assert_eq!(empty.config, defaults);
    assert_eq!(empty.notes.len(), 1);
    assert!(
        empty.notes[0].contains("bf_interval=30"),
        "{:?}",
        empty.notes
    );
}

#[test]
fn a_bad_slurm_conf_value_names_its_line() {
    for (text, line, key) in [
        (
            "PriorityWeightAge=1\nPriorityWeightAge=lots\n",
            2,
            "PriorityWeightAge",
        ),
        ("\n\nPriorityMaxAge=7days\n", 3, "PriorityMaxAge"),
        ("PriorityFavorSmall=maybe", 1, "PriorityFavorSmall"),
        ("SchedulerParameters=bf_window=-1", 1, "bf_window"),
        (
            "# x\nPartitionName=p PriorityJobFactor=9999999999",
            2,
            "PriorityJobFactor",
        ),
        ("ClusterName", 1, "ClusterName"),
        ("PartitionName=p MaxTime=soon", 1, "MaxTime"),
        ("PartitionName=p PriorityTier=-1", 1, "PriorityTier"),
        ("PriorityWeightTRES=CPU=100,Mem=lots", 1, "Mem"),
    ] {
        let e = read_slurm_conf(text.as_bytes()).unwrap_err();
        assert_eq!((e.line, e.key.as_str()), (line, key), "{text:?}: {e}");
        assert!(e.to_string().contains(&format!("line {line}")), "{e}");
    }
    // A zero period cannot run; bytes that are not UTF-8 are read, never a panic.
    assert!(read_slurm_conf(b"PriorityCalcPeriod=0").is_err());
    assert!(read_slurm_conf(&[0xff, 0xfe, b'=', 0x80]).is_ok());
}

/// An algorithm without a Slurm configuration serializes as before; one with it round-trips.
#[test]
fn scenarios_keep_their_form() {
    let easy = serde_json::to_string(&AlgorithmSpec::local(LocalPolicyKind::Easy)).unwrap();
    assert_eq!(easy, r#"{"local":"easy"}"#);
    let mut slurm = AlgorithmSpec::local(LocalPolicyKind::Slurm);
    slurm.slurm = Some(SlurmConfig::medium_cluster());
    let text = serde_json::to_string(&slurm).unwrap();
    let back: AlgorithmSpec = serde_json::from_str(&text).unwrap();
    assert_eq!(back, slurm);
    assert!(!LocalPolicyKind::ALL.contains(&LocalPolicyKind::Slurm));
    assert!(!LocalPolicyKind::EVERY.contains(&LocalPolicyKind::Slurm));
    // A partition with Slurm's tier and no MaxTime is written as before the two fields;
    // one with them round-trips, and a file without them reads as the defaults.
    let plain = PartitionFactor::new("batch", 10);
    let text = serde_json::to_string(&plain).unwrap();
    assert_eq!(text, r#"{"name":"batch","priority_job_factor":10}"#);
    assert_eq!(
        serde_json::from_str::<PartitionFactor>(&text).unwrap(),
        plain
    );
    let tiered = PartitionFactor {
        priority_tier: 3,
        max_time_s: Some(3600),
        ..plain
    };
    let text = serde_json::to_string(&tiered).unwrap();
    assert_eq!(
        serde_json::from_str::<PartitionFactor>(&text).unwrap(),
        tiered
    );
}

/// KTH-SP2 under Slurm's defaults and under `medium_cluster`: every job runs, every run
/// passes the engine's invariant checks, and the same run twice gives the same schedule.
#[test]
fn slurm_on_a_real_trace() {
    let name = "KTH-SP2-1996-2.1-cln.swf.gz";
    let bytes = std::fs::read(trace(name)).unwrap();
    let w = read_swf(name, &bytes, &SwfOptions::default()).unwrap();
    let jobs = w.jobs.len() as u64;
    let alg = |cfg: Option<SlurmConfig>| AlgorithmSpec {
        label: Some(format!("slurm-{}", cfg.is_some())),
        slurm: cfg,
        ..AlgorithmSpec::local(LocalPolicyKind::Slurm)
    };
    let scenario = Scenario {
        failures: None,
        carbon: None,
        version: gridscope::scenario::SCENARIO_VERSION,
        name: name.into(),
        seed: 0,
        platform: PlatformSpec::FromTrace { procs: None },
        workload: WorkloadSpec::Swf {
            file: name.into(),
            strict: false,
            format: Default::default(),
            utc_offset_min: 0,
        },
        algorithms: vec![
            alg(None),
            alg(Some(SlurmConfig::medium_cluster())),
            alg(Some(SlurmConfig::medium_cluster())),
        ],
        options: Default::default(),
    };
    let report = run_loaded(&scenario, w, &mut |_, _, _| true).unwrap();
    for run in &report.runs {
        assert_eq!(run.metrics.jobs_finished, jobs, "{}", run.label);
        assert!(
            run.outcomes.iter().all(|o| o.start != SimTime::NEVER),
            "{}",
            run.label
        );
    }
    assert_eq!(report.runs[1].outcomes, report.runs[2].outcomes);
    assert_ne!(report.runs[0].outcomes, report.runs[1].outcomes);
}

/// With every weight 0 (submission order), no window, no bound on the jobs examined and a
/// resolution of 1 s (SWF estimates are whole seconds), Slurm's backfill re-plans every
/// queued job at its earliest start at every pass: conservative backfilling by rebuild.
/// The two agree job for job on KTH-SP2 (checked on SDSC-SP2 too when this was written).
#[test]
fn unbounded_backfill_is_conservative_by_rebuild() {
    let name = "KTH-SP2-1996-2.1-cln.swf.gz";
    let bytes = std::fs::read(trace(name)).unwrap();
    let w = read_swf(name, &bytes, &SwfOptions::default()).unwrap();
    let unbounded = SlurmConfig {
        bf_window_min: 1 << 30,
        bf_max_job_test: u32::MAX,
        bf_resolution_s: 1,
        ..SlurmConfig::default()
    };
    let mut slurm = AlgorithmSpec::local(LocalPolicyKind::Slurm);
    slurm.slurm = Some(unbounded);
    let scenario = Scenario {
        failures: None,
        carbon: None,
        version: gridscope::scenario::SCENARIO_VERSION,
        name: name.into(),
        seed: 0,
        platform: PlatformSpec::FromTrace { procs: None },
        workload: WorkloadSpec::Swf {
            file: name.into(),
            strict: false,
            format: Default::default(),
            utc_offset_min: 0,
        },
        algorithms: vec![
            slurm,
            AlgorithmSpec::local(LocalPolicyKind::ConservativeRebuild),
        ],
        options: Default::default(),
    };
    let report = run_loaded(&scenario, w, &mut |_, _, _| true).unwrap();
    assert_eq!(report.runs[0].outcomes, report.runs[1].outcomes);
}

/// `explain --at T --policy slurm`: the queue at T as `sprio -l` shows it, priorities as of
/// the last `PriorityCalcPeriod` tick (every 60 s from the first submit) at or before T.
/// A (10 procs) holds the machine 0–1000; B (user 1, 2 procs) queued at 100, C (user 2, 8
/// procs) at 200. Weights age 1000 (max age 1000 s) and job size 1000. At 500 the last tick
/// is 480: B's age 380/1000 → 380, size 2/10 → 200, priority 580; C's age 280, size 800,
/// priority 1080. C comes first.
#[test]
fn explain_at_prints_the_queue_as_sprio_does() {
    let dir = std::env::temp_dir().join(format!("gridscope-sprio-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let swf = dir.join("q.swf");
    std::fs::write(
        &swf,
        "; MaxProcs: 10\n\
1 0 -1 1000 10 -1 -1 10 1000 -1 1 1 -1 -1 -1 -1 -1 -1\n\
2 100 -1 100 2 -1 -1 2 100 -1 1 1 -1 -1 -1 -1 -1 -1\n\
3 200 -1 100 8 -1 -1 8 100 -1 1 2 -1 -1 -1 -1 -1 -1\n",
    )
    .unwrap();
    let conf = dir.join("slurm.conf");
    std::fs::write(
        &conf,
        "PriorityWeightAge=1000\nPriorityWeightJobSize=1000\nPriorityMaxAge=16:40\nPriorityCalcPeriod=1\n",
    )
    .unwrap();
    let (swf, conf) = (swf.to_str().unwrap(), conf.to_str().unwrap());
    let args = [
        "explain",
        swf,
        "--policy",
        "slurm",
        "--slurm-conf",
        conf,
        "--at",
        "500",
    ];
    let o = gridscope(&[&args[..], &["--json"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let jobs = v["jobs"].as_array().unwrap();
    let rows: Vec<(i64, u64, f64, f64)> = jobs
        .iter()
        .map(|j| {
            let w = &j["weighted"];
            (
                j["job"].as_i64().unwrap(),
                j["priority"].as_u64().unwrap(),
                w["age"].as_f64().unwrap().floor(),
                w["job_size"].as_f64().unwrap().floor(),
            )
        })
        .collect();
    assert_eq!(rows, [(3, 1080, 280.0, 800.0), (2, 580, 380.0, 200.0)]);
    assert_eq!(jobs[0]["queued_s"], 300.0);
    assert_eq!(jobs[1]["factors"]["job_size"], 0.2);
    assert_eq!(v["weights"]["age"], 1000);
    // The table: a header naming the weights, then sprio's columns.
    let o = gridscope(&args);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.starts_with("2 queued job(s) under slurm at 500 s (weights: age 1000"),
        "{text}"
    );
    assert!(
        text.contains("PRIORITY        AGE  FAIRSHARE    JOBSIZE"),
        "{text}"
    );
    // At 150 only B waits; under EASY there are no priorities; --at needs no --job.
    let o = gridscope(&["explain", swf, "--policy", "slurm", "--at", "150", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["jobs"].as_array().unwrap().len(), 1);
    let o = gridscope(&["explain", swf, "--policy", "easy", "--at", "150"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("slurm policy's (sprio -l)"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A site's own files, as Slurm writes them: a sacct log naming users and partitions, a
/// slurm.conf naming partitions, and `sacctmgr show assoc -P`. The names meet: partition
/// `low` (PriorityJobFactor 1 of 10) gives bob's job a partition factor of 0.1, and alice's
/// 2 shares beside bob's 1, carol's 1 and root's 1 make her normalised shares 2/5, so with
/// all the usage hers her fair-share factor at 500 s is 2^(−1/0.4) (without the dump: 2^−2,
/// alice and bob alone with one share each).
#[test]
fn sacct_names_meet_slurm_conf_and_the_association_dump() {
    let dir = std::env::temp_dir().join(format!("gridscope-assoc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("log.sacct");
    std::fs::write(
        &log,
        "JobID|JobName|Submit|Start|End|Elapsed|Timelimit|NCPUS|NNodes|State|Partition|User|Account\n\
1|a|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:16:40|00:16:40|00:20:00|10|1|COMPLETED|main|alice|root\n\
2|b|2026-01-01T00:01:40|2026-01-01T00:16:40|2026-01-01T00:18:20|00:01:40|00:02:00|2|1|COMPLETED|low|bob|root\n\
3|c|2026-01-01T00:03:20|2026-01-01T00:16:40|2026-01-01T00:18:20|00:01:40|00:02:00|2|1|COMPLETED|main|alice|root\n",
    )
    .unwrap();
    let conf = dir.join("slurm.conf");
    std::fs::write(
        &conf,
        "PriorityWeightFairshare=10000\nPriorityWeightPartition=1000\nPriorityCalcPeriod=1\n\
PartitionName=main Nodes=n1 PriorityJobFactor=10\nPartitionName=low Nodes=n1 PriorityJobFactor=1\n",
    )
    .unwrap();
    let classic = dir.join("classic.conf");
    let mut text = std::fs::read_to_string(&conf).unwrap();
    text.push_str("PriorityFlags=NO_FAIR_TREE\n");
    std::fs::write(&classic, text).unwrap();
    let assoc = dir.join("assoc.txt");
    std::fs::write(
        &assoc,
        "Cluster|Account|User|Share\nc|root||1\nc|root|alice|2\nc|root|bob|1\nc|root|carol|1\nc|root|root|1\n",
    )
    .unwrap();
    let (log, conf, classic, assoc) = (
        log.to_str().unwrap(),
        conf.to_str().unwrap(),
        classic.to_str().unwrap(),
        assoc.to_str().unwrap(),
    );
    let explain = |conf: &str, extra: &[&str]| {
        let args = [
            "explain",
            log,
            "--policy",
            "slurm",
            "--slurm-conf",
            conf,
            "--at",
            "500",
        ];
        gridscope(&[&args[..], extra].concat())
    };
    let factors = |conf: &str, extra: &[&str]| {
        let o = explain(conf, &[extra, &["--json"]].concat());
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let f = |job: i64, key: &str| {
            let j = v["jobs"].as_array().unwrap();
            let j = j.iter().find(|j| j["job"] == job).unwrap();
            j["factors"][key].as_f64().unwrap()
        };
        // sacct's names beside the numbers.
        let j = v["jobs"].as_array().unwrap();
        let j2 = j.iter().find(|j| j["job"] == 2).unwrap();
        assert_eq!(
            (&j2["user_name"], &j2["partition_name"]),
            (&"bob".into(), &"low".into())
        );
        (f(2, "partition"), f(3, "fairshare"), stderr(&o))
    };
    // The text names them too, as sprio -l does.
    let o = explain(conf, &[]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains(" alice ") && text.contains(" low "), "{text}");
    // Classic: alice has used everything; 2^(−1/(2/5)) with the dump, 2^(−1/(1/2)) without.
    let (partition, fairshare, err) = factors(classic, &["--slurm-assoc", assoc]);
    assert_eq!(partition, 0.1);
    assert!((fairshare - 2f64.powf(-2.5)).abs() < 1e-12, "{fairshare}");
    assert!(!err.contains("Fair Tree"), "{err}");
    let (_, fairshare, _) = factors(classic, &[]);
    assert!((fairshare - 0.25).abs() < 1e-12, "{fairshare}");
    // Fair Tree (no NO_FAIR_TREE): bob, carol and root used nothing and rank 4 of 4; alice
    // ranks 1 (0.25). Without the dump there are two users: alice ranks 1 of 2.
    let (_, fairshare, err) = factors(conf, &["--slurm-assoc", assoc]);
    assert_eq!(fairshare, 0.25);
    assert!(err.contains("Fair Tree"), "{err}");
    let (_, fairshare, _) = factors(conf, &[]);
    assert_eq!(fairshare, 0.5);
    // A bad row names its line; --slurm-assoc alone needs slurm among the policies.
    std::fs::write(assoc, "Cluster|Account|User|Share\nc|root|alice|many\n").unwrap();
    let o = gridscope(&["simulate", log, "--policy", "slurm", "--slurm-assoc", assoc]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("line 2"), "{}", stderr(&o));
    let o = gridscope(&["simulate", log, "--policy", "easy", "--slurm-assoc", assoc]);
    assert_eq!(o.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).ok();
}
