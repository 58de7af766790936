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
        err.contains("1 job(s) run under an account that is not their user's first"),
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
