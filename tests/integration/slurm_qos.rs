//! Slurm's QOS under the `slurm` policy (issue #42, docs/slurm.md "QOS"): hand cases whose
//! schedules are worked out in the comments, one per part of a QOS (its priority,
//! `MaxJobsPU`, `GrpTRES` of CPUs and GPUs, `MaxWall`, the backfill passing a held job over), the QOS read from
//! sacct and SWF, and the CLI's `--slurm-qos`.

use gridscope::engine::{JobOutcome, Outcome, RejectReason, RunConfig, Simulation};
use gridscope::model::{Job, Platform, Site};
use gridscope::policy::grid::{GridParams, GridScheme};
use gridscope::policy::local::{QosLimit, Slurm};
use gridscope::policy::slurm::{JobLabels, QosDef, SlurmConfig};
use gridscope::time::SimTime;
use gridscope::workload::{read_trace, write_swf, SwfOptions, TraceOptions};

use crate::cli::{gridscope, stderr};

/// Job `id` of `user`: `procs` processors submitted at `submit` s, running `run` s with
/// an estimate of as long.
fn job(id: i64, user: i32, submit: i64, procs: u32, run: i64) -> Job {
    Job {
        id,
        submit: SimTime::from_secs(submit),
        runtime: SimTime::from_secs(run),
        estimate: SimTime::from_secs(run),
        procs,
        home: 0,
        user,
        partition: 1,
    }
}

/// Each job's outcome under `cfg` on one site of 10 processors, job k under QOS
/// `qos[k]` named `names` (SWF's numbers when `names` is empty).
fn outcomes(cfg: &SlurmConfig, jobs: &[Job], qos: &[i32], names: &[String]) -> Vec<Outcome> {
    let platform = Platform::single(Site::flat("s", 10));
    let mut build = Slurm::factory_on(
        cfg.clone(),
        jobs,
        &[],
        &platform,
        JobLabels {
            qos,
            qos_names: names,
            ..Default::default()
        },
    );
    crate::slurm::outcomes_on_ten(jobs, &mut build)
}

fn starts(cfg: &SlurmConfig, jobs: &[Job], qos: &[i32], names: &[String]) -> Vec<i64> {
    outcomes(cfg, jobs, qos, names)
        .iter()
        .map(|o| o.start.0 / 1000)
        .collect()
}

fn base() -> SlurmConfig {
    SlurmConfig {
        calc_period_s: 100,
        ..SlurmConfig::default()
    }
}

/// The QOS factor: A (10 procs) holds the machine until 100; B (6 procs, QOS low,
/// priority 10) was queued at 10 and C (6 procs, QOS high, priority 100) at 20. Without a
/// QOS weight B goes first (submission order): B at 100, C at 200. With weight 1000, B's
/// priority is 1000 × 10/100 = 100 and C's 1000: C at 100, B at 200.
#[test]
fn the_qos_priority_orders_the_queue() {
    let jobs = [
        job(1, 1, 0, 10, 100),
        job(2, 1, 10, 6, 100),
        job(3, 1, 20, 6, 100),
    ];
    let names = ["low".to_string(), "high".to_string()];
    let qos = [0, 0, 1];
    let defs = vec![QosDef::new("low", 10), QosDef::new("high", 100)];
    let unweighted = SlurmConfig {
        qos: defs.clone(),
        ..base()
    };
    assert_eq!(starts(&unweighted, &jobs, &qos, &names), [0, 100, 200]);
    let weighted = SlurmConfig {
        weight_qos: 1000,
        ..unweighted
    };
    assert_eq!(starts(&weighted, &jobs, &qos, &names), [0, 200, 100]);
}

/// `MaxJobsPU=1` on `normal`, which every job runs under (none names a QOS). User 1's
/// second job (2 procs at 1) is held while its first (0–100) runs, and holds nothing
/// up: user 2's job (2 procs at 2) starts at once. The second starts at 100. Without the
/// limit all three start as they come.
#[test]
fn max_jobs_per_user_holds_a_job_without_blocking_others() {
    let jobs = [
        job(1, 1, 0, 2, 100),
        job(2, 1, 1, 2, 100),
        job(3, 2, 2, 2, 100),
    ];
    let limited = SlurmConfig {
        qos: vec![QosDef {
            max_jobs_per_user: Some(1),
            ..QosDef::new("normal", 0)
        }],
        ..base()
    };
    assert_eq!(starts(&limited, &jobs, &[], &[]), [0, 100, 2]);
    assert_eq!(starts(&base(), &jobs, &[], &[]), [0, 1, 2]);
}

/// `GrpTRES=cpu=6`: job 1 (4 procs, 0–100) leaves 2 CPUs to the QOS. Job 2 (4 procs at
/// time 1) is held; job 3 (2 procs at 2) fits the limit and starts; job 4 (8 procs) can
/// never run under it and is rejected with the reason. Job 2 starts when job 1 ends
/// (2 + 4 = 6).
#[test]
fn grp_cpus_caps_the_qos_and_rejects_what_it_can_never_hold() {
    let jobs = [
        job(1, 1, 0, 4, 100),
        job(2, 2, 1, 4, 100),
        job(3, 3, 2, 2, 100),
        job(4, 4, 3, 8, 100),
    ];
    // SWF: queue 7 is QOS "7".
    let cfg = SlurmConfig {
        qos: vec![QosDef {
            grp_cpus: Some(6),
            ..QosDef::new("7", 0)
        }],
        ..base()
    };
    let out = outcomes(&cfg, &jobs, &[7, 7, 7, 7], &[]);
    let started: Vec<i64> = out.iter().take(3).map(|o| o.start.0 / 1000).collect();
    assert_eq!(started, [0, 100, 2]);
    let why = RejectReason::QosLimit {
        limit: QosLimit::GrpCpus,
        needs: 8,
        most: 6,
    };
    assert_eq!(out[3].status, JobOutcome::Rejected(why));
    assert!(
        why.describe(8, 0).contains("QOSGrpCpuLimit"),
        "{}",
        why.describe(8, 0)
    );
    // Under another QOS (queue 8, not defined, no normal) nothing is limited: job 4 waits
    // for 8 free processors, at 101.
    let free: Vec<i64> = outcomes(&cfg, &jobs, &[8, 8, 8, 8], &[])
        .iter()
        .map(|o| o.start.0 / 1000)
        .collect();
    assert_eq!(free, [0, 1, 2, 101]);
}

/// `GrpTRES=gres/gpu=4` on QOS 1, two nodes of 8 cores and 8 GPUs: job 1 (3 GPUs, 0–100)
/// leaves 1 GPU to the QOS. Job 2 (2 GPUs at 1) is held; job 3 (1 GPU at 2) fits the limit
/// and starts; job 4 (5 GPUs) can never run under it and is rejected with the reason. Job
/// 2 starts when job 1 ends (1 + 2 ≤ 4). Memory counts likewise (`MaxTRESPU=mem`, unit
/// test `tres_limits_read_memory_and_gpus`).
#[test]
fn grp_gpus_caps_the_qos_and_rejects_what_it_can_never_hold() {
    use gridscope::model::{Demand, NodeType};
    let jobs = [
        job(1, 1, 0, 2, 100),
        job(2, 2, 1, 2, 100),
        job(3, 3, 2, 2, 100),
        job(4, 4, 3, 2, 100),
    ];
    let gpus = |g: u32| Demand {
        gpus: g,
        ..Demand::default()
    };
    let demands = [gpus(3), gpus(2), gpus(1), gpus(5)];
    let mut platform = Platform::single(Site::flat("n", 16));
    platform.sites[0].nodes = 2;
    platform.sites[0].cpus_per_node = 8;
    platform.sites[0].node_types = vec![NodeType {
        name: "g".into(),
        count: 2,
        cores: 8,
        mem_kb: 1 << 20,
        gpus: 8,
        power: None,
        exclusive: false,
    }];
    let cfg = SlurmConfig {
        qos: vec![QosDef {
            grp_gpus: Some(4),
            ..QosDef::new("1", 0)
        }],
        ..base()
    };
    let labels = JobLabels {
        qos: &[1, 1, 1, 1],
        ..Default::default()
    };
    let out = Simulation::with_local_policies(
        &platform,
        &jobs[..],
        &mut Slurm::factory_on(cfg, &jobs, &demands, &platform, labels),
        GridScheme::Local,
        &GridParams::default(),
        &RunConfig::default(),
    )
    .and_then(|s| s.with_demands(&demands[..]))
    .and_then(|s| s.run(&mut |_, _| true))
    .unwrap()
    .outcomes;
    let started: Vec<i64> = out.iter().take(3).map(|o| o.start.0 / 1000).collect();
    assert_eq!(started, [0, 100, 2]);
    let why = RejectReason::QosLimit {
        limit: QosLimit::GrpGpus,
        needs: 5,
        most: 4,
    };
    assert_eq!(out[3].status, JobOutcome::Rejected(why));
    assert!(why.describe(2, 0).contains("QOSGrpGRES"));
}

/// `MaxWall=100` on QOS `short` (SWF queue 3): job 2 asks 101 s and can never start
/// under it (rejected with the reason); job 3 asks exactly 100 s and runs, as do jobs
/// under another QOS with no wall limit (queue 4: job 4 asks 1,000 s).
#[test]
fn max_wall_rejects_a_longer_time_limit() {
    let jobs = [
        job(1, 1, 0, 2, 50),
        job(2, 1, 1, 2, 101),
        job(3, 2, 2, 2, 100),
        job(4, 2, 3, 2, 1000),
    ];
    let cfg = SlurmConfig {
        qos: vec![
            QosDef {
                max_wall_s: Some(100),
                ..QosDef::new("3", 0)
            },
            QosDef::new("4", 0),
        ],
        ..base()
    };
    let out = outcomes(&cfg, &jobs, &[3, 3, 3, 4], &[]);
    let why = RejectReason::QosLimit {
        limit: QosLimit::MaxWall,
        needs: 101,
        most: 100,
    };
    assert_eq!(out[1].status, JobOutcome::Rejected(why));
    assert!(why.describe(2, 0).contains("QOSMaxWallDurationPerJobLimit"));
    let started: Vec<i64> = [0, 2, 3].iter().map(|&k| out[k].start.0 / 1000).collect();
    assert_eq!(started, [0, 2, 3]);
}

/// `MaxTRESPU=cpu=4` and `GrpJobs=3` on `normal`. User 1's job 2 (4 procs at 1) is held
/// while their job 1 (2 procs, 0–100) runs; user 2's job 3 (4 procs at 2) starts; user 1's
/// job 4 (2 procs at 3) fits their 4 CPUs and starts (three jobs run: the group limit).
/// At 100 job 1 ends, but job 4 still holds 2 of user 1's CPUs: job 2 starts when it ends,
/// at 103. Job 5 (8 procs) can never run under 4 CPUs a user and is rejected. User 3's job
/// 6 (1 proc at 5) waits for `GrpJobs=3` until job 1's end at 100.
#[test]
fn per_user_cpus_and_group_jobs_hold_jobs() {
    let jobs = [
        job(1, 1, 0, 2, 100),
        job(2, 1, 1, 4, 100),
        job(3, 2, 2, 4, 100),
        job(4, 1, 3, 2, 100),
        job(5, 3, 4, 8, 100),
        job(6, 3, 5, 1, 100),
    ];
    let cfg = SlurmConfig {
        qos: vec![QosDef {
            max_cpus_per_user: Some(4),
            grp_jobs: Some(3),
            ..QosDef::new("normal", 0)
        }],
        ..base()
    };
    let out = outcomes(&cfg, &jobs, &[], &[]);
    let started: Vec<i64> = [0, 1, 2, 3, 5]
        .iter()
        .map(|&k| out[k].start.0 / 1000)
        .collect();
    assert_eq!(started, [0, 103, 2, 3, 100]);
    assert_eq!(
        out[4].status,
        JobOutcome::Rejected(RejectReason::QosLimit {
            limit: QosLimit::MaxCpusPerUser,
            needs: 8,
            most: 4,
        })
    );
}

/// The backfill gives a held job no reservation. Job 1 (user 1, 8 procs, 0–100); job 2
/// (user 1, all 10 procs at 1); job 3 (user 2, 2 procs for 200 s at 2). Without limits
/// job 2 reserves 100–200 and job 3, which would overlap it, waits until 200. With
/// `MaxJobsPU=1` job 2 is held (its user runs job 1): job 3 starts at 2, and job 2, free
/// of the limit at 100, waits for job 3's processors until 202.
#[test]
fn the_backfill_passes_a_held_job_over() {
    let jobs = [
        job(1, 1, 0, 8, 100),
        job(2, 1, 1, 10, 100),
        job(3, 2, 2, 2, 200),
    ];
    assert_eq!(starts(&base(), &jobs, &[], &[]), [0, 100, 200]);
    let limited = SlurmConfig {
        qos: vec![QosDef {
            max_jobs_per_user: Some(1),
            ..QosDef::new("normal", 0)
        }],
        ..base()
    };
    assert_eq!(starts(&limited, &jobs, &[], &[]), [0, 202, 2]);
}

/// sacct's QOS column is read (numbered in order of first appearance, the names kept),
/// and written back as SWF's queue, where the SWF reader finds it again.
#[test]
fn sacct_qos_is_read_and_kept_through_swf() {
    let text = "JobID|Submit|Start|End|NCPUS|State|User|QOS\n\
1|2024-01-01T00:00:00|2024-01-01T00:00:10|2024-01-01T00:01:00|2|COMPLETED|alice|high\n\
2|2024-01-01T00:00:05|2024-01-01T00:00:20|2024-01-01T00:01:00|2|COMPLETED|bob|normal\n\
3|2024-01-01T00:00:06|2024-01-01T00:00:20|2024-01-01T00:01:00|2|COMPLETED|bob|\n\
4|2024-01-01T00:00:07|2024-01-01T00:00:20|2024-01-01T00:01:00|2|COMPLETED|bob|high\n";
    let opts = SwfOptions::default();
    let w = read_trace("q.sacct", text.as_bytes(), &opts, &TraceOptions::default()).unwrap();
    assert_eq!(w.qos, [0, 1, -1, 0]);
    assert_eq!(w.report.qos_names, ["high", "normal"]);
    let swf = write_swf(&w, &w.report.header);
    assert!(swf.contains("; Note: queue 0 = QOS high"), "{swf}");
    let back = read_trace("q.swf", swf.as_bytes(), &opts, &TraceOptions::default()).unwrap();
    assert_eq!(back.qos, w.qos);
    // A workload naming no QOS keeps no table.
    let plain = read_trace(
        "p.swf",
        b"1 0 -1 10 1 -1 -1 1 10 -1 1 1 -1 -1 -1 1 -1 -1\n",
        &opts,
        &TraceOptions::default(),
    )
    .unwrap();
    assert!(plain.qos.is_empty());
}

/// The CLI: an sacct log naming QOS and `--slurm-qos` with sacctmgr's dump. QOS `tiny`
/// allows 1 CPU; job 2 (2 CPUs under it) is rejected with the reason, and the notes name
/// the job whose QOS the dump lacks and the columns not read.
#[test]
fn the_cli_reads_a_qos_dump() {
    let dir = std::env::temp_dir().join(format!("gridscope-qos-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let log = write(
        "q.sacct",
        "JobID|Submit|Start|End|Timelimit|NCPUS|State|User|QOS\n\
1|2024-01-01T00:00:00|2024-01-01T00:00:10|2024-01-01T00:01:00|00:02:00|2|COMPLETED|alice|normal\n\
2|2024-01-01T00:00:05|2024-01-01T00:00:20|2024-01-01T00:01:00|00:02:00|2|COMPLETED|bob|tiny\n\
3|2024-01-01T00:00:06|2024-01-01T00:00:20|2024-01-01T00:01:00|00:02:00|2|COMPLETED|bob|gold\n",
    );
    let dump = write(
        "qos.txt",
        "Name|Priority|GrpTRES|MaxJobsPU|MaxSubmitPU\nnormal|0|||\ntiny|10|cpu=1||20\n",
    );
    let o = gridscope(&[
        "simulate",
        &log,
        "--policy",
        "slurm",
        "--slurm-qos",
        &dump,
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("MaxSubmitPU (set for QOS tiny) is not modelled"),
        "{err}"
    );
    assert!(
        err.contains("1 jobs name QOS gold, which the definitions lack: they run under normal"),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let run = &v["runs"][0];
    assert_eq!(run["metrics"]["jobs_rejected"], 1, "{run}");
    let why = run["rejected"][0].as_str().unwrap_or_default();
    assert!(
        why.starts_with("job 2: needs 2 CPUs; its QOS's GrpTRES"),
        "{why}"
    );
    // --slurm-qos alone needs slurm among the policies; a bad row names its line.
    let o = gridscope(&["simulate", &log, "--policy", "easy", "--slurm-qos", &dump]);
    assert!(
        stderr(&o).contains("--slurm-qos configures the slurm policy"),
        "{}",
        stderr(&o)
    );
    let bad = write("bad.txt", "Name|Priority\nnormal|x\n");
    let o = gridscope(&["simulate", &log, "--policy", "slurm", "--slurm-qos", &bad]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("QOS dump line 2"), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).ok();
}

/// `gridscope explain` names the QOS limit a job waited for: SWF's queue 1 is QOS "1" with
/// `MaxJobsPU=1`. User 1's second job (2 procs at 1) waits for the first (0–100) although
/// 8 processors are free.
#[test]
fn explain_names_the_qos_limit_a_job_waits_for() {
    let dir = std::env::temp_dir().join(format!("gridscope-qos-why-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let swf = dir.join("q.swf");
    std::fs::write(
        &swf,
        "; MaxProcs: 10\n\
1 0 -1 100 2 -1 -1 2 100 -1 1 1 -1 -1 1 1 -1 -1\n\
2 1 -1 100 2 -1 -1 2 100 -1 1 1 -1 -1 1 1 -1 -1\n",
    )
    .unwrap();
    let dump = dir.join("qos.txt");
    std::fs::write(&dump, "Name|Priority|MaxJobsPU|GrpTRES\n1|0|1|\n").unwrap();
    let (swf, dump) = (swf.to_str().unwrap(), dump.to_str().unwrap());
    let o = gridscope(&[
        "explain",
        swf,
        "--policy",
        "slurm",
        "--slurm-qos",
        dump,
        "--job",
        "2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("held by a limit: QOS 1's MaxJobsPU=1: its user runs 1 jobs under it (Slurm's reason QOSMaxJobsPerUserLimit)"),
        "{text}"
    );
    assert!(text.contains("started at 100"), "{text}");
    std::fs::remove_dir_all(&dir).ok();
}
