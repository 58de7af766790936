use super::*;

/// sacctmgr's own header and rows (`show qos -P` with its default columns trimmed to a
/// few): priorities, a per-user job limit, a CPU group limit beside a GPU one, a wall
/// limit, empty values as no limit.
#[test]
fn a_sacctmgr_dump_reads_priorities_and_limits() {
    let dump = b"Name|Priority|GraceTime|GrpTRES|MaxWall|MaxJobsPU\n\
normal|0|00:00:00||||\n\
high|100|00:00:00|cpu=64,gres/gpu=8||4\n\
debug|50|00:00:00||00:30:00|1\n";
    let d = read_qos(dump).unwrap();
    assert_eq!(
        d.defs,
        [
            QosDef::new("normal", 0),
            QosDef {
                max_jobs_per_user: Some(4),
                grp_cpus: Some(64),
                grp_gpus: Some(8),
                ..QosDef::new("high", 100)
            },
            QosDef {
                max_jobs_per_user: Some(1),
                max_wall_s: Some(1800),
                ..QosDef::new("debug", 50)
            },
        ]
    );
    // GraceTime is set on every row (00:00:00, Slurm's default) and named once.
    assert_eq!(
        d.not_read,
        ["GraceTime (set for QOS normal) is not modelled",]
    );
    // MaxWall as sacctmgr prints it, with days, or minutes; anything else names its line.
    let d = read_qos(b"Name|MaxWall\na|1-00:00:00\nb|90\n").unwrap();
    assert_eq!(d.defs[0].max_wall_s, Some(86_400));
    assert_eq!(d.defs[1].max_wall_s, Some(5_400));
    let e = read_qos(b"Name|MaxWall\na|soon\n").unwrap_err();
    assert_eq!(e.line, 2);
    assert!(e.reason.contains("MaxWall 'soon'"), "{e}");
}

/// Memory and GPUs in the TRES lists: memory in KB from sacctmgr's units (megabytes
/// without one), GPUs by `gres/gpu`; a typed GPU (`gres/gpu:a100`) is not modelled.
#[test]
fn tres_limits_read_memory_and_gpus() {
    let d = read_qos(
        b"Name|GrpTRES|MaxTRESPU\nbig|cpu=64,mem=512G,gres/gpu=8|mem=4096,gres/gpu:a100=2\n",
    )
    .unwrap();
    let q = &d.defs[0];
    assert_eq!(q.grp_tres(), [Some(64), Some(512 << 20), Some(8)]);
    assert_eq!(q.per_user_tres(), [None, Some(4096 << 10), None]);
    assert_eq!(
        d.not_read,
        ["MaxTRESPU gres/gpu:a100 (set for QOS big) is not modelled"]
    );
    let e = read_qos(b"Name|GrpTRES\nbig|mem=lots\n").unwrap_err();
    assert!(e.reason.contains("GrpTRES mem 'lots'"), "{e}");
    // A job's memory: per processor times its processors, per node times its nodes.
    let jobs = [job(4), job(4)];
    let per_cpu = Demand {
        mem_kb: 100,
        gpus: 2,
        ..Demand::default()
    };
    let per_node = Demand {
        mem_kb: 1000,
        mem_per_node: true,
        nodes: 2,
        ..Demand::default()
    };
    let of = QosOfJobs::new(&d.defs, &jobs, &[per_cpu, per_node], &[], &[]);
    assert_eq!(of.tres(0), [4, 400, 2]);
    assert_eq!(of.tres(1), [4, 2000, 0]);
}

/// `GrpJobs` and `MaxTRESPU` (sacctmgr's names; `MaxTRESPerUser` too) are read, their CPUs
/// alone from the TRES list.
#[test]
fn group_jobs_and_per_user_cpus_are_read() {
    let d = read_qos(b"Name|GrpJobs|MaxTRESPU\nnormal|10|cpu=16,mem=64G\n").unwrap();
    assert_eq!(d.defs[0].grp_jobs, Some(10));
    assert_eq!(d.defs[0].max_cpus_per_user, Some(16));
    assert!(d.defs[0].limits());
    assert_eq!(d.defs[0].max_mem_kb_per_user, Some(64 << 20));
    assert!(d.not_read.is_empty(), "{:?}", d.not_read);
    let d = read_qos(b"Name|MaxTRESPerUser\nnormal|cpu=2\n").unwrap();
    assert_eq!(d.defs[0].max_cpus_per_user, Some(2));
    let e = read_qos(b"Name|GrpJobs\nnormal|many\n").unwrap_err();
    assert!(e.reason.contains("GrpJobs 'many'"), "{e}");
}

#[test]
fn a_headerless_dump_is_name_priority_maxjobspu_grptres() {
    let d = read_qos(b"normal|0||\nlong|10|2|cpu=8\n").unwrap();
    assert_eq!(d.defs[1].max_jobs_per_user, Some(2));
    assert_eq!(d.defs[1].grp_cpus, Some(8));
}

#[test]
fn bad_rows_name_their_line() {
    let e = read_qos(b"Name|Priority\nnormal|0\nhigh|lots\n").unwrap_err();
    assert_eq!(e.line, 3);
    assert!(e.to_string().contains("Priority 'lots' of QOS high"), "{e}");
    let e = read_qos(b"Name|Priority\nnormal|0\nnormal|1\n").unwrap_err();
    assert!(e.reason.contains("defined twice"), "{e}");
    let e = read_qos(b"Name|GrpTRES\nx|cpu\n").unwrap_err();
    assert!(e.reason.contains("not KEY=VALUE"), "{e}");
    let e = read_qos(b"Name|Priority\n|3\n").unwrap_err();
    assert!(e.reason.contains("no QOS name"), "{e}");
}

#[test]
fn no_input_panics() {
    for bytes in [
        &b""[..],
        b"|||",
        b"\xff\xfe|\n",
        b"Name\n\n\n",
        b"Name|GrpTRES\na|=,=\n",
    ] {
        let _ = read_qos(bytes);
    }
}

fn job(procs: u32) -> Job {
    Job {
        id: 1,
        submit: crate::time::SimTime::ZERO,
        runtime: crate::time::SimTime(1),
        estimate: crate::time::SimTime(1),
        procs,
        home: 0,
        user: 0,
        partition: 0,
    }
}

/// A job runs under the QOS it names; one naming none or an undefined one under `normal`
/// when defined, else under none. sacct's numbers go through its names; SWF's are the names.
#[test]
fn each_job_finds_its_qos() {
    let defs = [QosDef::new("normal", 0), QosDef::new("high", 10)];
    let jobs = [job(1), job(2), job(3)];
    let names = ["high".to_string(), "lost".to_string()];
    let of = QosOfJobs::new(&defs, &jobs, &[], &[0, 1, -1], &names);
    assert_eq!([of.get(0), of.get(1), of.get(2)], [1, 0, 0]);
    let without_normal = [QosDef::new("high", 10)];
    let of = QosOfJobs::new(&without_normal, &jobs, &[], &[0, 1, -1], &names);
    assert_eq!([of.get(0), of.get(1), of.get(2)], [0, NO_QOS, NO_QOS]);
    // SWF: queue 1 is QOS "1".
    let swf = [QosDef::new("1", 5)];
    let of = QosOfJobs::new(&swf, &jobs, &[], &[1, 2, -1], &[]);
    assert_eq!([of.get(0), of.get(1), of.get(2)], [0, NO_QOS, NO_QOS]);
    // No job names one: every job runs under normal.
    let of = QosOfJobs::new(&defs, &jobs, &[], &[], &[]);
    assert_eq!(of.get(2), 0);
    assert_eq!(of.cpus(2), 0, "no CPU limit: no processors kept");
    let limited = [QosDef {
        grp_cpus: Some(4),
        ..QosDef::new("normal", 0)
    }];
    assert_eq!(QosOfJobs::new(&limited, &jobs, &[], &[], &[]).cpus(2), 3);
    let notes = qos_notes(&defs, &[0, 1, -1, 1], &names);
    assert_eq!(
        notes,
        [
            "1 jobs name no QOS: they run under normal",
            "2 jobs name QOS lost, which the definitions lack: they run under normal",
        ]
    );
}
