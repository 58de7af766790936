//! `gridscope explain` on a hand-made case (tests/fixtures/backfill.swf, whose notes say
//! what each job must do): the story of job 3 under EASY, FCFS and conservative, compared
//! with tests/golden/explain-backfill.txt (checked by hand once; `UPDATE_GOLDEN=1` after a
//! reviewed change), and the errors a user meets.

use crate::cli::{gridscope, stderr};
use crate::root;

fn explain(args: &[&str]) -> String {
    let o = gridscope(&[&["explain"], args].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    String::from_utf8(o.stdout).expect("utf-8")
}

#[test]
fn job_3_of_the_backfill_case_waits_for_the_reasons_its_notes_give() {
    let fixture = root().join("tests/fixtures/backfill.swf");
    let fixture = fixture.to_str().expect("utf-8 path");
    let mut text = String::new();
    for policy in ["easy", "fcfs", "conservative", "firstfit"] {
        text.push_str(&format!("== {policy}\n"));
        text.push_str(&explain(&[fixture, "--policy", policy, "--job", "3"]));
    }
    // EASY: it fits at 2 s but would delay job 2's reservation (ends 202 > shadow 100, 4
    // CPUs > 2 extra); then it waits for units until job 2 has started and ended.
    assert!(
        text.contains("at 2 s: would delay the head job 2"),
        "{text}"
    );
    let golden = root().join("tests/golden/explain-backfill.txt");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, &text).expect("write golden");
        return;
    }
    let want = std::fs::read_to_string(&golden).expect("tests/golden/explain-backfill.txt");
    assert_eq!(text, want, "(UPDATE_GOLDEN=1 to accept after review)");
}

#[test]
fn the_json_names_each_reason_and_an_unknown_job_is_an_error() {
    let fixture = root().join("tests/fixtures/backfill.swf");
    let fixture = fixture.to_str().expect("utf-8 path");
    let json = explain(&[fixture, "--policy", "easy", "--job", "3", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(v["start_s"], 150.0);
    assert_eq!(v["spans"][0]["reason"]["kind"], "would_delay_head");
    assert_eq!(v["spans"][0]["reason"]["shadow_s"], 100.0);
    assert_eq!(v["spans"][1]["reason"]["kind"], "too_few_units");
    let o = gridscope(&["explain", fixture, "--policy", "easy", "--job", "99"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("no job 99 in workload"),
        "{}",
        stderr(&o)
    );
    // A job wider than the machine is rejected with its reason, not explained as waiting.
    let wide = root().join("tests/fixtures/too_wide.swf");
    let text = explain(&[
        wide.to_str().expect("utf-8"),
        "--policy",
        "easy",
        "--job",
        "2",
    ]);
    assert!(
        text.ends_with("rejected: it needs 8 units and the site has 4\n"),
        "{text}"
    );
    assert!(!text.contains("did not wait"), "{text}");
}

/// `explain --placement`: the best-fit hand case of `nodes.rs`
/// (`best_fit_keeps_a_whole_node_free_where_first_fit_splits_it`; 2 nodes × 4 cores ×
/// 100 KB). Job 4 (one core, 75 KB) waits from 70 s to 560 s under first fit, memory
/// short on both nodes, and starts at once under best fit, which kept node 0 whole.
#[test]
fn explain_runs_under_the_placement_rule_asked() {
    let dir = std::env::temp_dir().join(format!("gs-explain-bf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let swf = dir.join("bf.swf");
    let platform = dir.join("bf.json");
    // id submit wait run procs cpu mem req_procs req_time req_mem(KB/proc) status user …
    let line = |id: u32, submit: u32, run: u32, procs: u32, mem: u32| {
        format!("{id} {submit} -1 {run} {procs} -1 -1 {procs} {run} {mem} 1 1 1 1 1 1 -1 -1\n")
    };
    let text: String = [
        line(1, 0, 50, 4, 25),
        line(2, 0, 1000, 2, 25),
        line(3, 60, 500, 2, 25),
        line(4, 70, 100, 1, 75),
    ]
    .concat();
    std::fs::write(&swf, text).unwrap();
    std::fs::write(
        &platform,
        r#"{"groups": {"g0": {"core": 4, "mem": 100}}, "resources": {"g0": 2}}"#,
    )
    .unwrap();
    let (swf, platform) = (swf.to_str().unwrap(), platform.to_str().unwrap());
    let run = |rule: &str| {
        explain(&[
            swf,
            "--platform",
            platform,
            "--placement",
            rule,
            "--policy",
            "fcfs",
            "--job",
            "4",
        ])
    };
    let first = run("first-fit");
    assert!(first.contains("started at 560 s"), "{first}");
    assert!(first.contains("memory"), "{first}");
    let best = run("best-fit");
    assert!(best.contains("started at 70 s"), "{best}");
    let o = gridscope(&[
        "explain",
        swf,
        "--placement",
        "worst-fit",
        "--platform",
        platform,
    ]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("worst-fit"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// On nodes (issue #37): job 4 of tests/fixtures/memory_decides.swf finds a core free from
/// 2 s on but no node with the memory it asks for (the fixture's notes), and `explain
/// --platform` says so, by name, under FCFS and conservative backfilling alike.
#[test]
fn on_nodes_the_wait_names_the_resource_the_free_nodes_lack() {
    let swf = root().join("tests/fixtures/memory_decides.swf");
    let platform = root().join("tests/fixtures/memory_decides.json");
    let (swf, platform) = (
        swf.to_str().expect("utf-8"),
        platform.to_str().expect("utf-8"),
    );
    for policy in ["fcfs", "conservative"] {
        let text = explain(&[
            swf,
            "--platform",
            platform,
            "--policy",
            policy,
            "--job",
            "4",
        ]);
        assert!(
            text.contains("no node holds it: it needs 1 processors and 1 are free, but the nodes with free cores lack the memory it asks for"),
            "{policy}: {text}"
        );
        // Node 1 has the core (jobs 2 and 3 hold 3 of its 4) but 210 KB, not 220.
        assert!(
            text.contains("(free now: node 1: 1 cores, 210 KB)"),
            "{policy}: {text}"
        );
        assert!(text.contains("started at 100 s"), "{policy}: {text}");
    }
    let json = explain(&[
        swf,
        "--platform",
        platform,
        "--policy",
        "fcfs",
        "--job",
        "4",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(v["spans"][0]["reason"]["kind"], "no_node_holds_it");
    assert_eq!(v["spans"][0]["reason"]["short"], "memory");
    let nodes = &v["spans"][0]["reason"]["free_nodes"];
    assert_eq!(nodes[0]["node"], 1);
    assert_eq!(nodes[0]["mem_kb"], 210);
}

/// Under the power policies of issue #40 (the `energy-demo` preset's 128 one-core nodes of
/// Batsim's host): with idle nodes off after 60 s, a job placed on sleeping nodes is told
/// how much of its wait was their boot; under a 16 kW cap (at most 40 cores computing), a
/// job short of units is told the cap is what counts them.
#[test]
fn the_wait_names_a_boot_and_a_power_cap() {
    use gridscope::scenario::explain::{explain, WaitReason};
    use gridscope::scenario::{load_workload, AlgorithmSpec, Scenario};
    let mut scenario = Scenario::preset("energy-demo").unwrap();
    let easy = scenario
        .algorithms
        .iter()
        .find(|a| a.label() == "easy, off after 60 s")
        .cloned()
        .unwrap();
    let capped = AlgorithmSpec {
        power_off_after_s: None,
        power_cap_w: Some(16_000.0),
        ..easy.clone()
    };
    scenario.algorithms = vec![easy, capped];
    let workload = || {
        load_workload(&scenario, &Default::default(), &mut |f| {
            Err(format!("no file {f}"))
        })
        .unwrap()
    };
    let ids: Vec<i64> = workload().jobs.iter().map(|j| j.id).take(400).collect();
    let booted = ids
        .iter()
        .find_map(|&id| {
            let x = explain(&scenario, workload(), 0, id).unwrap();
            x.boot_wait_s.map(|b| (x, b))
        })
        .expect("no job of the first 400 waited for a boot");
    // Batsim's host boots in 151.52 s, after up to 6.1 s more of switching off.
    assert!(booted.1 >= 151.52 && booted.1 <= 157.62, "{:?}", booted.0);
    let text = booted.0.text();
    assert!(
        text.contains("s of it for its nodes to boot (placed on sleeping nodes at")
            && !text.contains("it did not wait"),
        "{text}"
    );
    let capped = ids
        .iter()
        .map(|&id| explain(&scenario, workload(), 1, id).unwrap())
        .find(|x| {
            x.spans.iter().any(|s| {
                matches!(
                    s.reason,
                    WaitReason::TooFewUnits {
                        power_cap: Some(40),
                        ..
                    }
                )
            })
        })
        .expect("no job of the first 400 waited for units under the cap");
    assert!(
        capped
            .text()
            .contains("(the site's power cap lets at most 40 compute at once)"),
        "{}",
        capped.text()
    );
    assert!(capped.boot_wait_s.is_none());
}
