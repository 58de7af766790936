//! Jobs' own accounts (issue #42, docs/slurm.md "Accounts"): Slurm charges an association,
//! an (account, user) pair, so a user in two accounts has two usages, each ranked under
//! its own account. The account comes from sacct's `Account` column or SWF's group
//! (field 13); a job that names none runs under its user's first account.

use crate::cli::{gridscope, stderr};

/// The association tree of the cases below: root holds phys and chem (1 share each);
/// alice is in both, bob in phys, carol in chem (1 share each).
const ASSOC: &str = "Cluster|Account|User|Share|ParentName\n\
c|root||1|\n\
c|phys||1|root\n\
c|phys|alice|1|\n\
c|phys|bob|1|\n\
c|chem||1|root\n\
c|chem|alice|1|\n\
c|chem|carol|1|\n";

/// Every job's fair-share factor at 500 s (`explain --at 500 --json`), by job id.
fn fair_shares(dir: &std::path::Path, log: &str, assoc: &str) -> (Vec<(i64, f64)>, String) {
    let assoc_file = dir.join("assoc.txt");
    std::fs::write(&assoc_file, assoc).unwrap();
    let conf = dir.join("slurm.conf");
    std::fs::write(
        &conf,
        "PriorityWeightFairshare=10000\nPriorityCalcPeriod=1\n",
    )
    .unwrap();
    let o = gridscope(&[
        "explain",
        log,
        "--policy",
        "slurm",
        "--slurm-conf",
        conf.to_str().unwrap(),
        "--slurm-assoc",
        assoc_file.to_str().unwrap(),
        "--at",
        "500",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut got: Vec<(i64, f64)> = v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            let f = j["factors"]["fairshare"].as_f64().unwrap();
            (j["job"].as_i64().unwrap(), f)
        })
        .collect();
    got.sort_by_key(|&(id, _)| id);
    (got, stderr(&o))
}

/// Alice fills the 10 processors under phys from 0 to 1,000 s; at 500 s five jobs wait.
/// Fair Tree at the 480-s tick: chem has used nothing (LF ∞) and ranks before phys (S ½
/// over U 1). In chem alice (her chem association used nothing) and carol tie at rank 4 of
/// 4 (factor 1); in phys bob ranks 2 (0.5) and alice's phys association 1 (0.25). Alice's
/// job naming no account runs under phys, her first; the one naming `bio`, which the tree
/// lacks, does too, and a note says so.
#[test]
fn each_association_has_its_own_usage() {
    let dir = std::env::temp_dir().join(format!("gridscope-accounts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("log.sacct");
    std::fs::write(
        &log,
        "JobID|Submit|Start|End|Timelimit|NCPUS|State|User|Account\n\
1|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:16:40|00:20:00|10|COMPLETED|alice|phys\n\
2|2026-01-01T00:01:00|2026-01-01T00:16:40|2026-01-01T00:18:20|00:02:00|2|COMPLETED|alice|chem\n\
3|2026-01-01T00:01:10|2026-01-01T00:16:40|2026-01-01T00:18:20|00:02:00|2|COMPLETED|alice|\n\
4|2026-01-01T00:01:20|2026-01-01T00:16:40|2026-01-01T00:18:20|00:02:00|2|COMPLETED|bob|phys\n\
5|2026-01-01T00:01:30|2026-01-01T00:16:40|2026-01-01T00:18:20|00:02:00|2|COMPLETED|carol|chem\n\
6|2026-01-01T00:01:40|2026-01-01T00:16:40|2026-01-01T00:18:20|00:02:00|2|COMPLETED|alice|bio\n",
    )
    .unwrap();
    let (got, err) = fair_shares(&dir, log.to_str().unwrap(), ASSOC);
    let expected = vec![(2, 1.0), (3, 0.25), (4, 0.5), (5, 1.0), (6, 0.25)];
    assert_eq!(got, expected, "{err}");
    assert!(
        err.contains("1 job(s) run under an account other than the first the tree lists"),
        "{err}"
    );
    assert!(
        err.contains("1 job(s) name an account the association tree does not hold"),
        "{err}"
    );
    // The same log as SWF: the group field (13) carries the account's number, the
    // header's notes its name. SWF's numbers are the names, so a dump for it names users
    // (alice 0, bob 1, carol 2) and accounts (phys 0, chem 1) by them.
    let swf = dir.join("log.swf");
    let (log, swf) = (log.to_str().unwrap(), swf.to_str().unwrap());
    let o = gridscope(&["convert", log, "--to", "swf", "--out", swf]);
    assert!(o.status.success(), "{}", stderr(&o));
    let swf_text = std::fs::read_to_string(swf).unwrap();
    assert!(swf_text.contains("group 1 = account chem"), "{swf_text}");
    let numbered = ASSOC
        .replace("phys", "0")
        .replace("chem", "1")
        .replace("alice", "0")
        .replace("bob", "1")
        .replace("carol", "2");
    let (got, err) = fair_shares(&dir, swf, &numbered);
    assert_eq!(got, expected, "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A scenario file may carry the association dump as the site printed it (`assoc_dump`,
/// what the page's paste box keeps) and partitions by their sacct names: both meet the
/// log's names at the run's start, and the run is the one the CLI's `--slurm-conf` and
/// `--slurm-assoc` give.
#[test]
fn a_scenarios_dump_and_partition_names_meet_the_log_at_the_runs_start() {
    let dir = std::env::temp_dir().join(format!("gridscope-assoc-scn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut log =
        String::from("JobID|Submit|Start|End|Timelimit|NCPUS|State|User|Account|Partition\n");
    // Twelve jobs of three users in two accounts and two partitions, on 10 processors.
    for k in 0..12u32 {
        let user = ["alice", "bob", "carol"][(k % 3) as usize];
        let account = if k % 4 == 0 { "chem" } else { "phys" };
        let part = if k % 5 == 0 { "low" } else { "main" };
        log += &format!(
            "{}|2026-01-01T00:{:02}:00|2026-01-01T01:00:00|2026-01-01T01:{:02}:00|01:00:00|{}|COMPLETED|{user}|{account}|{part}\n",
            k + 1,
            k * 2,
            5 + k * 3,
            2 + (k * 7) % 9,
        );
    }
    std::fs::write(dir.join("log.sacct"), &log).unwrap();
    let conf = "PriorityWeightFairshare=10000\nPriorityWeightPartition=5000\nPriorityWeightAge=100\n\
PriorityCalcPeriod=1\nPartitionName=main Nodes=n1 PriorityJobFactor=10\nPartitionName=low Nodes=n1 PriorityJobFactor=1\n";
    std::fs::write(dir.join("slurm.conf"), conf).unwrap();
    std::fs::write(dir.join("assoc.txt"), ASSOC).unwrap();
    let path = |f: &str| dir.join(f).to_str().unwrap().to_string();
    let flags = gridscope(&[
        "simulate",
        &path("log.sacct"),
        "--policy",
        "slurm",
        "--slurm-conf",
        &path("slurm.conf"),
        "--slurm-assoc",
        &path("assoc.txt"),
        "--json",
    ]);
    assert!(flags.status.success(), "{}", stderr(&flags));
    // The scenario: slurm.conf's configuration by names, the dump as text.
    let report = gridscope::policy::slurm::read_slurm_conf(conf.as_bytes()).unwrap();
    let mut cfg = report.config;
    cfg.assoc_dump = ASSOC.to_string();
    assert_eq!(cfg.partitions[0].name, "main");
    let scenario = serde_json::json!({
        "workload": {"kind": "swf", "file": "log.sacct"},
        "platform": {"kind": "from_trace"},
        "algorithms": [{"local": "slurm", "slurm": cfg}],
    });
    std::fs::write(dir.join("scenario.json"), scenario.to_string()).unwrap();
    let run = gridscope(&["run", &path("scenario.json"), "--json"]);
    assert!(run.status.success(), "{}", stderr(&run));
    let metrics = |o: &std::process::Output| {
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["runs"][0]["metrics"].clone()
    };
    assert_eq!(metrics(&run), metrics(&flags));
    // Without the dump, or with partitions the log does not name, the run differs: both
    // were applied.
    let mut bare = cfg.clone();
    bare.assoc_dump.clear();
    let mut unnamed = cfg.clone();
    unnamed.partitions.iter_mut().for_each(|p| p.name.push('X'));
    for (file, other) in [("bare.json", bare), ("unnamed.json", unnamed)] {
        let scenario = serde_json::json!({
            "workload": {"kind": "swf", "file": "log.sacct"},
            "platform": {"kind": "from_trace"},
            "algorithms": [{"local": "slurm", "slurm": other}],
        });
        std::fs::write(dir.join(file), scenario.to_string()).unwrap();
        let o = gridscope(&["run", &path(file), "--json"]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_ne!(metrics(&o), metrics(&flags), "{file}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
