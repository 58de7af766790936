//! The `gridscope` binary as users and scripts call it: output shapes, exit codes, messages,
//! and no panic on any trace or any garbage.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::{root, traces_dir};

/// Runs the CLI from the repository root (shared with the other test modules).
pub(crate) fn gridscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gridscope"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("run gridscope")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn simulate_json_has_the_documented_shape() {
    let o = gridscope(&[
        "simulate",
        "tests/fixtures/backfill.swf",
        "--policy",
        "easy",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let run = &v["runs"][0];
    assert_eq!(run["label"], "easy");
    assert_eq!(run["algorithm"], "easy");
    for key in [
        "avg_wait_s",
        "avg_response_s",
        "wait_stddev_s",
        "avg_bounded_slowdown",
        "utilization",
        "makespan_s",
        "jobs_finished",
        "jobs_skipped",
    ] {
        assert!(run["metrics"][key].is_number(), "metrics.{key} missing");
    }
    assert_eq!(run["metrics"]["jobs_finished"], 5);
    assert!(v["import"]["records"].is_number());
    assert_eq!(v["conventions"]["kill_at_estimate"], true);
}

#[test]
fn jobs_csv_has_exact_columns() {
    let dir = std::env::temp_dir().join(format!("gridscope-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("jobs.csv");
    let o = gridscope(&[
        "simulate",
        "tests/fixtures/skips.swf",
        "--policy",
        "fcfs",
        "--jobs",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = std::fs::read_to_string(&out).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("job_id,home,site,submit,start,end,procs")
    );
    // Times count from the first accepted submit (job 6 at 2 s): job 10 (6 s) is at 4 and
    // runs 1.5 s; fractional times keep their decimals, exact ones print as integers.
    assert!(csv.contains("\n6,skips,skips,0,0,10,4\n"), "{csv}");
    assert!(csv.contains("\n10,skips,skips,4,4,5.5,2\n"), "{csv}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn usage_errors_exit_2_with_a_message() {
    for args in [
        vec!["simulate", "tests/fixtures/backfill.swf"],
        vec![
            "simulate",
            "tests/fixtures/backfill.swf",
            "--policy",
            "magic",
        ],
        vec![
            "simulate",
            "tests/fixtures/backfill.swf",
            "--policy",
            "easy",
            "--procs",
            "0",
        ],
        vec![
            "simulate",
            "tests/fixtures/backfill.swf",
            "--policy",
            "easy",
            "--bogus",
        ],
        vec!["frobnicate"],
        vec![],
    ] {
        let o = gridscope(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).starts_with("error: "), "{args:?}");
    }
}

#[test]
fn input_errors_exit_1_and_name_file_and_line() {
    let o = gridscope(&["simulate", "no/such/file.swf", "--policy", "easy"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("cannot read no/such/file.swf"),
        "{}",
        stderr(&o)
    );

    let o = gridscope(&["lint", "tests/fixtures/skips.swf", "--strict"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("skips.swf:13: expected 18 fields, found 17"),
        "{}",
        stderr(&o)
    );

    let o = gridscope(&["lint", "tests/fixtures/skips.swf"]);
    assert!(o.status.success());
    let text = stdout(&o);
    assert!(text.contains("malformed lines:"), "{text}");
    assert!(
        text.contains("skips.swf:14: field 9 is 'x8', not a number"),
        "{text}"
    );
}

/// The offered load is in the report; a real trace on a far smaller machine than its own
/// gets a note before the run (the queues will grow all run), and on its own machine none.
#[test]
fn an_overloaded_platform_is_said_before_the_run() {
    let kth = traces_dir().join("KTH-SP2-1996-2.1-cln.swf.gz");
    let kth = kth.to_str().unwrap();
    let o = gridscope(&["simulate", kth, "--policy", "fcfs", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stderr.is_empty(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let load = v["offered_load"].as_f64().unwrap();
    assert!(
        (0.6..0.8).contains(&load),
        "KTH-SP2 on its 100 CPUs: {load}"
    );
    let o = gridscope(&["simulate", kth, "--policy", "fcfs", "--procs", "32"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.starts_with("note: the workload offers 1.64 times what platform")
            && err.contains("the queues grow all run"),
        "{err}"
    );
    assert!(stdout(&o).contains("offered load: 1.640"), "{}", stdout(&o));
    // Tiny hand-made workloads overload on purpose: no note.
    let o = gridscope(&[
        "simulate",
        "tests/fixtures/backfill.swf",
        "--policy",
        "easy",
    ]);
    assert!(o.stderr.is_empty(), "{}", stderr(&o));
}

#[test]
fn narrower_machine_rejects_wide_jobs_with_reasons() {
    let o = gridscope(&[
        "simulate",
        "tests/fixtures/backfill.swf",
        "--policy",
        "easy",
        "--procs",
        "6",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["runs"][0]["metrics"]["jobs_rejected"], 1);
    let reason = v["runs"][0]["rejected"][0].as_str().unwrap();
    assert!(
        reason.contains("job 2") && reason.contains("8 processors"),
        "{reason}"
    );
}

#[test]
fn every_trace_lints_and_simulates_without_panicking() {
    let mut names: Vec<_> = std::fs::read_dir(traces_dir())
        .expect("../shared/traces beside the checkout")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "gz"))
        .collect();
    names.sort();
    assert!(names.len() >= 25, "expected the 25 shared traces");
    for p in &names {
        let path = p.to_str().unwrap();
        for args in [
            vec!["lint", path],
            vec!["simulate", path, "--policy", "easy"],
        ] {
            let o = gridscope(&args);
            let code = o.status.code();
            assert!(
                code == Some(0) || (code == Some(1) && stderr(&o).starts_with("error: ")),
                "{args:?} exited {code:?}: {}",
                stderr(&o)
            );
        }
    }
}

#[test]
fn demo_runs_and_is_deterministic() {
    let a = gridscope(&["run", "--preset", "demo", "--json"]);
    let b = gridscope(&["run", "--preset", "demo", "--json"]);
    assert!(a.status.success(), "{}", stderr(&a));
    assert_eq!(a.stdout, b.stdout);
    let v: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
    assert_eq!(v["runs"].as_array().unwrap().len(), 5);
    let c = gridscope(&["run", "--preset", "demo", "--seed", "2", "--json"]);
    assert_ne!(a.stdout, c.stdout, "the seed changes the workload");
    let s = gridscope(&["run", "--preset", "demo", "--json", "--series", "8"]);
    let v: serde_json::Value = serde_json::from_slice(&s.stdout).unwrap();
    let util = &v["runs"][0]["series"]["sites"][0]["utilization"];
    assert_eq!(util.as_array().unwrap().len(), 8);
    assert!(util
        .as_array()
        .unwrap()
        .iter()
        .all(|u| (0.0..=1.0).contains(&u.as_f64().unwrap())));
}

#[test]
fn scenario_file_runs_relative_to_itself() {
    let dir = std::env::temp_dir().join(format!("gridscope-scn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        root().join("tests/fixtures/backfill.swf"),
        dir.join("w.swf"),
    )
    .unwrap();
    let scn = r#"{"version":1,"name":"t","seed":3,
        "platform":{"kind":"sites","name":"p","sites":[{"name":"a","nodes":10,"cpus_per_node":1}]},
        "workload":{"kind":"swf","file":"w.swf"},
        "algorithms":[{"local":"easy"},{"label":"cbf","local":"conservative"}]}"#;
    std::fs::write(dir.join("s.json"), scn).unwrap();
    let o = gridscope(&["run", dir.join("s.json").to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["runs"][1]["label"], "cbf");

    std::fs::write(dir.join("bad.json"), r#"{"version":9}"#).unwrap();
    let o = gridscope(&["run", dir.join("bad.json").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("bad.json"), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn garbage_and_damaged_input_never_panics() {
    use gridscope::rng::SimRng;
    use gridscope::workload::{read_swf, SwfOptions};
    let mut rng = SimRng::new(7);
    let good = std::fs::read(Path::new(&root()).join("tests/fixtures/backfill.swf")).unwrap();
    let gz = std::fs::read(crate::trace("NASA-iPSC-1993-3.swf.gz")).unwrap();
    for case in 0..2_000u64 {
        let base = if case % 2 == 0 { &good } else { &gz };
        let mut bytes = base.clone();
        let cut = rng.range_u64(0, bytes.len() as u64) as usize;
        bytes.truncate(cut.max(2));
        for _ in 0..rng.range_u64(0, 8) {
            let i = rng.range_u64(0, bytes.len() as u64 - 1) as usize;
            bytes[i] = rng.range_u64(0, 255) as u8;
        }
        for strict in [false, true] {
            let _ = read_swf(
                "fuzz",
                &bytes,
                &SwfOptions {
                    strict,
                    ..Default::default()
                },
            );
        }
    }
}

#[test]
fn allocate_prints_the_fractions_in_rates_order() {
    let o = gridscope(&[
        "allocate",
        "--policy",
        "owa",
        "--rates",
        "1,1,1,1,1,1,1,1,1,16",
        "--lambda",
        "0.1",
        "--batch-size",
        "10",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let f = v["fractions"].as_array().unwrap();
    assert_eq!(f.len(), 10);
    assert_eq!(format!("{:.3}", f[9].as_f64().unwrap()), "0.888");
    let o = gridscope(&[
        "allocate",
        "--policy",
        "ww",
        "--rates",
        "16,1,1,1,1,1,1,1,1,1",
        "--lambda",
        "0.1",
        "--batch-size",
        "10",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        format!("{:.3}", v["fractions"][0].as_f64().unwrap()),
        "0.640"
    );
}

#[test]
fn allocate_refuses_bad_systems() {
    for (args, needle) in [
        (
            vec!["allocate", "--policy", "owa", "--lambda", "0.1"],
            "--rates is required",
        ),
        (
            vec!["allocate", "--rates", "1,0", "--lambda", "0.1"],
            "positive",
        ),
        (
            vec![
                "allocate",
                "--rates",
                "1,1",
                "--lambda",
                "0.2",
                "--batch-size",
                "10",
            ],
            "saturated",
        ),
        (
            vec!["allocate", "--rates", "1,x", "--lambda", "0.1"],
            "not a number",
        ),
    ] {
        let o = gridscope(&args);
        assert_ne!(o.status.code(), Some(0), "{args:?}");
        assert!(stderr(&o).contains(needle), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn sf_sweep_preset_runs_with_bands() {
    let o = gridscope(&[
        "run",
        "--preset",
        "sf-heterogeneity",
        "--seeds",
        "3",
        "--batches",
        "3000",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["x"].as_array().unwrap().len(), 20);
    let series = v["series"].as_array().unwrap();
    let median = |p: &str| {
        series.iter().find(|s| s["policy"] == p).unwrap()["median"][19]
            .as_f64()
            .unwrap()
    };
    // At 20:1, OWA beats WW by a wide margin and DLL is the dynamic bound.
    assert!(median("owa") < 0.8 * median("ww"));
    assert!(median("dll") <= median("owa"));
    for s in series {
        let (lo, med, hi) = (&s["lo"], &s["median"], &s["hi"]);
        for i in 0..20 {
            assert!(lo[i].as_f64() <= med[i].as_f64() && med[i].as_f64() <= hi[i].as_f64());
        }
    }
    let o = gridscope(&[
        "run",
        "--preset",
        "sf-hybrid",
        "--seeds",
        "3",
        "--batches",
        "2000",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let s = v["series"].as_array().unwrap();
    // When the fast resource drops to 1 (x index 3), the hybrid adapts and beats static OWA.
    assert!(s[1]["median"][3].as_f64().unwrap() < s[0]["median"][3].as_f64().unwrap());
}

#[test]
fn sf_sweep_parameters_can_be_changed_and_bad_ones_are_named() {
    // The CV experiment at a higher load: the spec changes, so the result is "custom".
    let o = gridscope(&[
        "run",
        "--preset",
        "sf-cv",
        "--load",
        "0.3",
        "--x",
        "1,3",
        "--seeds",
        "2",
        "--batches",
        "1000",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["preset"], "custom");
    assert_eq!(v["x"], serde_json::json!([1.0, 3.0]));
    assert_eq!(v["spec"]["arrivals"], serde_json::json!({"load": 0.3}));
    assert!(v["description"]
        .as_str()
        .unwrap()
        .contains("load λk/Σμ = 0.3"));
    // A sweep along another axis with other policies and rounded dispatch.
    let o = gridscope(&[
        "run",
        "--preset",
        "sf-batch",
        "--vary",
        "size",
        "--rates",
        "1,4",
        "--x",
        "2,4,8",
        "--batch-size",
        "5",
        "--policies",
        "ww,owa",
        "--dispatch",
        "rounded",
        "--seeds",
        "1",
        "--batches",
        "500",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["series"].as_array().unwrap().len(), 2);
    assert_eq!(v["x_label"], "resources (n)");
    // The paper's preset, unchanged, keeps its name and headline.
    let o = gridscope(&[
        "run",
        "--preset",
        "sf-hybrid",
        "--seeds",
        "1",
        "--batches",
        "400",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["preset"], "sf-hybrid");
    assert!(v["history"]["hybrid"].as_array().unwrap().len() > 10);
    for (args, code, needle) in [
        (
            &["--x", "10,400"][..],
            1,
            "at x = 400: the system is saturated",
        ),
        (&["--lambda", "1", "--load", "0.1"][..], 2, "not both"),
        (
            &["--policies", "ww,fast"][..],
            2,
            "unknown allocation policy 'fast'",
        ),
        (&["--vary", "speed"][..], 2, "unknown sweep axis"),
        (&["--x", "1,two"][..], 2, "--x: 'two' is not a number"),
        (&["--dispatch", "roundrobin"][..], 2, "random or rounded"),
    ] {
        let mut all = vec![
            "run",
            "--preset",
            "sf-batch",
            "--seeds",
            "1",
            "--batches",
            "300",
        ];
        all.extend_from_slice(args);
        let o = gridscope(&all);
        assert_eq!(o.status.code(), Some(code), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn sob_real_presets_run_all_six_schemes_with_grid_metrics() {
    for preset in ["sob-real-3site", "sob-real-3site-5m"] {
        sob_real_preset(preset);
    }
}

fn sob_real_preset(preset: &str) {
    let traces = crate::traces_dir();
    let o = gridscope(&[
        "run",
        "--preset",
        preset,
        "--json",
        "--traces",
        traces.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let runs = v["runs"].as_array().unwrap();
    let labels: Vec<&str> = runs.iter().map(|r| r["label"].as_str().unwrap()).collect();
    assert_eq!(
        labels,
        [
            "local",
            "sender",
            "receiver",
            "symmetric",
            "central",
            "ideal"
        ]
    );
    let m = |label: &str, key: &str| {
        runs.iter().find(|r| r["label"] == label).unwrap()["metrics"][key]
            .as_f64()
            .unwrap()
    };
    assert_eq!(m("local", "fraction_transferred"), 0.0);
    // Migration helps the waiting jobs; receiver-initiated migrates the fewest.
    assert!(m("sender", "avg_wait_s") < m("local", "avg_wait_s") / 2.0);
    assert!(m("receiver", "fraction_transferred") < m("sender", "fraction_transferred"));
    assert!(m("receiver", "fraction_transferred") < m("central", "fraction_transferred"));
    for r in runs {
        let e = r["metrics"]["grid_efficiency"].as_f64().unwrap();
        assert!(e > 0.0 && e <= 1.0);
    }
    assert_eq!(runs[1]["algorithm"], "sender+easy");
    // Every job of the window is accounted for.
    assert_eq!(
        m("local", "jobs_finished") + m("local", "jobs_rejected") + m("local", "jobs_skipped"),
        v["import"]["records"].as_f64().unwrap()
    );
}

#[test]
fn unknown_preset_lists_the_known_ones() {
    let o = gridscope(&["run", "--preset", "nope"]);
    assert_eq!(o.status.code(), Some(1));
    for name in ["demo", "sob-synthetic-heavy", "sob-real-3site", "sf-batch"] {
        assert!(stderr(&o).contains(name), "{}", stderr(&o));
    }
}

#[test]
fn fit_matches_three_moments_and_writes_a_synthetic_trace() {
    let dir = std::env::temp_dir().join(format!("gridscope-fit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("synth.swf");
    let trace = crate::trace("KTH-SP2-1996-2.1-cln.swf.gz");
    let o = gridscope(&[
        "fit",
        trace.to_str().unwrap(),
        "--cpus-per-node",
        "1",
        "--json",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let classes = v["classes"].as_array().unwrap();
    assert!(classes.len() > 2);
    let jobs: u64 = classes.iter().map(|c| c["jobs"].as_u64().unwrap()).sum();
    assert_eq!(
        jobs,
        v["trace_jobs"].as_u64().unwrap(),
        "every job in one class"
    );
    for c in classes {
        // The 2 % merge rule left no small class.
        assert!(c["jobs"].as_f64().unwrap() >= 0.02 * jobs as f64, "{c}");
        for d in ["interarrival", "service"] {
            let m = &c[d];
            let (s, f) = (
                m["sample"][0].as_f64().unwrap(),
                m["fitted"][0].as_f64().unwrap(),
            );
            assert!(
                (s - f).abs() <= 1e-6 * s.abs().max(1.0),
                "means differ: {m}"
            );
        }
    }
    let synth = gridscope(&["lint", out.to_str().unwrap(), "--json"]);
    let r: serde_json::Value = serde_json::from_slice(&synth.stdout).unwrap();
    let n = r["jobs"].as_f64().unwrap();
    let t = v["trace_jobs"].as_f64().unwrap();
    assert!((n - t).abs() < 0.1 * t, "synthetic {n} vs trace {t}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn subcommand_help_lists_its_flags() {
    let o = gridscope(&["simulate", "--help"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    for flag in ["--policy", "--estimates", "--procs", "--no-kill", "--jobs"] {
        assert!(text.contains(flag), "{flag} missing from:\n{text}");
    }
    // `help COMMAND` is the same help; `help TOPIC` stays a reference table.
    let o = gridscope(&["help", "simulate"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("--estimates"), "{}", stdout(&o));
    let o = gridscope(&["help", "policies"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).starts_with("fcfs"), "{}", stdout(&o));
    let o = gridscope(&["run", "--help"]);
    assert!(stdout(&o).contains("--lambda") && stdout(&o).contains("--traces"));
}

#[test]
fn typos_exit_2_with_a_suggestion() {
    for (args, suggestion) in [
        (&["simulat"][..], "'simulate'"),
        (
            &["simulate", "tests/fixtures/backfill.swf", "--polcy", "easy"][..],
            "'--policy'",
        ),
        (&["help", "metrcs"][..], "'metrics'"),
        (
            &[
                "simulate",
                "tests/fixtures/backfill.swf",
                "--policy",
                "easy",
                "--estimates",
                "exat",
            ][..],
            "'exact'",
        ),
    ] {
        let o = gridscope(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).starts_with("error: "), "{args:?}");
        assert!(stderr(&o).contains(suggestion), "{args:?}: {}", stderr(&o));
        assert!(o.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn bad_values_name_the_flag_and_the_value() {
    for (args, needles) in [
        (&["--procs", "0"][..], &["--procs", "'0'"][..]),
        (&["--series", "x"][..], &["--series", "'x'"][..]),
        (
            &["--policy", "easy,magic"][..],
            &["--policy", "'magic'"][..],
        ),
    ] {
        let mut all = vec![
            "simulate",
            "tests/fixtures/backfill.swf",
            "--policy",
            "easy",
        ];
        all.extend_from_slice(args);
        let o = gridscope(&all);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        for n in needles {
            assert!(stderr(&o).contains(n), "{args:?}: {}", stderr(&o));
        }
    }
    // A flag of another kind of run is a usage error that says where it applies.
    let o = gridscope(&["run", "--preset", "demo", "--seeds", "3"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--seeds applies only to the sweep presets"));
    // The last of a repeated flag wins, as before clap.
    let o = gridscope(&[
        "simulate",
        "tests/fixtures/backfill.swf",
        "--policy",
        "sjf",
        "--policy",
        "easy",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["runs"][0]["label"], "easy");
}

#[test]
fn version_and_completions() {
    let o = gridscope(&["--version"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        stdout(&o).trim(),
        format!("gridscope {}", env!("CARGO_PKG_VERSION"))
    );
    for shell in ["bash", "zsh", "fish"] {
        let o = gridscope(&["completions", shell]);
        assert_eq!(o.status.code(), Some(0), "{shell}: {}", stderr(&o));
        let script = stdout(&o);
        assert!(script.contains("gridscope"), "{shell}");
        assert!(
            script.contains("simulate") && script.contains("policy"),
            "{shell}"
        );
    }
    let o = gridscope(&["completions", "tcsh"]);
    assert_eq!(o.status.code(), Some(2));
}

/// A fresh scratch folder for one test.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("gridscope-{name}-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs gridscope with the given stdout and stderr.
fn gridscope_with(args: &[&str], out: Stdio, err: Stdio) -> std::process::ExitStatus {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gridscope"))
        .args(args)
        .current_dir(root())
        .stdout(out)
        .stderr(err)
        .spawn()
        .expect("run gridscope");
    child.wait().expect("wait for gridscope")
}

#[test]
fn a_failed_write_of_results_exits_1() {
    let full = || {
        Stdio::from(
            std::fs::File::options()
                .write(true)
                .open("/dev/full")
                .unwrap(),
        )
    };
    let backfill = "tests/fixtures/backfill.swf";
    // A full disk, for the results on stdout and for a jobs file.
    let o = Command::new(env!("CARGO_BIN_EXE_gridscope"))
        .args(["simulate", backfill, "--policy", "easy", "--json"])
        .current_dir(root())
        .stdout(full())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("cannot write the results to stdout"),
        "{}",
        stderr(&o)
    );
    let o = gridscope(&[
        "simulate",
        backfill,
        "--policy",
        "easy",
        "--jobs",
        "/dev/full",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("cannot write /dev/full"),
        "{}",
        stderr(&o)
    );
    let o = gridscope(&["help", "metrics"]);
    assert!(o.status.success());
    let status = gridscope_with(&["help", "metrics"], full(), Stdio::null());
    assert_eq!(status.code(), Some(1), "help to a full disk");
}

/// A pipe whose reader is already gone: every write to it fails with EPIPE.
fn closed_pipe() -> Stdio {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    Stdio::from(writer)
}

#[test]
fn closed_pipes_never_panic() {
    let backfill = "tests/fixtures/backfill.swf";
    // The reader of stdout went away (`gridscope ... | head -1`): a quiet end, exit 0.
    let o = Command::new(env!("CARGO_BIN_EXE_gridscope"))
        .args(["simulate", backfill, "--policy", "all", "--json"])
        .current_dir(root())
        .stdout(closed_pipe())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(o.stderr.is_empty(), "{}", stderr(&o));
    // The same closed pipe as a jobs *file* loses results: an error.
    let o = Command::new(env!("CARGO_BIN_EXE_gridscope"))
        .args([
            "simulate",
            backfill,
            "--policy",
            "easy",
            "--jobs",
            "/dev/stdout",
        ])
        .current_dir(root())
        .stdout(closed_pipe())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("cannot write /dev/stdout"),
        "{}",
        stderr(&o)
    );
    // Errors and notes to a closed stderr: the exit code still says what happened, and no
    // panic (101).
    let dir = scratch("closed-stderr");
    let out = dir.join("o.csv");
    for (args, code) in [
        (&["simulate", "no/such.swf", "--policy", "easy"][..], 1),
        (&["simulat"][..], 2),
        (
            &[
                "run", "--preset", "sf-batch", "--lambda", "1", "--load", "1",
            ][..],
            2,
        ),
        (
            &[
                "simulate",
                backfill,
                "--policy",
                "easy,easy",
                "--jobs",
                out.to_str().unwrap(),
            ][..],
            0,
        ),
    ] {
        let status = gridscope_with(args, Stdio::null(), closed_pipe());
        assert_eq!(status.code(), Some(code), "{args:?}");
    }
    assert!(dir.join("o.easy-2.csv").exists());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn outputs_never_overwrite_an_input() {
    let dir = scratch("inputs");
    let trace = dir.join("w.swf");
    std::fs::copy(root().join("tests/fixtures/backfill.swf"), &trace).unwrap();
    let original = std::fs::read(&trace).unwrap();
    std::os::unix::fs::symlink(&trace, dir.join("link.swf")).unwrap();
    std::fs::hard_link(&trace, dir.join("hard.swf")).unwrap();
    let scn = r#"{"version":1,"name":"t","seed":1,"platform":{"kind":"from_trace"},
        "workload":{"kind":"swf","file":"w.swf"},"algorithms":[{"local":"easy"}]}"#;
    std::fs::write(dir.join("s.json"), scn).unwrap();
    let p = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let sub = format!(
        "{}/../{}/./w.swf",
        p(""),
        dir.file_name().unwrap().to_str().unwrap()
    );
    for (args, flag) in [
        (
            vec!["simulate", &p("w.swf"), "--policy", "easy", "--jobs", &sub],
            "--jobs",
        ),
        (
            vec![
                "simulate",
                &p("w.swf"),
                "--policy",
                "easy",
                "--jobs",
                &p("link.swf"),
            ],
            "--jobs",
        ),
        (
            vec![
                "simulate",
                &p("w.swf"),
                "--policy",
                "easy",
                "--jobs",
                &p("hard.swf"),
            ],
            "--jobs",
        ),
        (vec!["run", &p("s.json"), "--jobs", &p("s.json")], "--jobs"),
        (vec!["run", &p("s.json"), "--jobs", &p("w.swf")], "--jobs"),
        (
            vec!["fit", &p("w.swf"), "--cpus-per-node", "1", "--out", &sub],
            "--out",
        ),
    ] {
        let o = gridscope(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(e.starts_with(&format!("error: {flag} ")), "{args:?}: {e}");
        assert!(e.contains("would overwrite the input"), "{args:?}: {e}");
    }
    assert_eq!(
        std::fs::read(&trace).unwrap(),
        original,
        "the trace is intact"
    );
    assert_eq!(std::fs::read_to_string(dir.join("s.json")).unwrap(), scn);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn per_run_files_are_sanitized_and_unique() {
    let dir = scratch("labels");
    std::fs::copy(
        root().join("tests/fixtures/backfill.swf"),
        dir.join("w.swf"),
    )
    .unwrap();
    let files = |dir: &Path| {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.starts_with("out"))
            .collect();
        names.sort();
        names
    };
    // The same policy twice: the second run's file is suffixed, and stderr says so.
    let out = dir.join("out.csv");
    let o = gridscope(&[
        "simulate",
        dir.join("w.swf").to_str().unwrap(),
        "--policy",
        "easy,sjf,easy",
        "--jobs",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        files(&dir),
        ["out.easy-2.csv", "out.easy.csv", "out.sjf.csv"]
    );
    assert!(
        stderr(&o).contains("run 3 is labelled 'easy'"),
        "{}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("out.easy-2.csv"), "{}", stderr(&o));
    let a = std::fs::read(dir.join("out.easy.csv")).unwrap();
    assert_eq!(a, std::fs::read(dir.join("out.easy-2.csv")).unwrap());
    // Labels from a scenario: a path in a label stays inside the output folder; duplicates
    // are suffixed.
    let sub = scratch("labels-out");
    let scn = r#"{"version":1,"name":"t","seed":1,"platform":{"kind":"from_trace"},
        "workload":{"kind":"swf","file":"w.swf"},
        "algorithms":[{"label":"/../x","local":"easy"},{"label":"..","local":"fcfs"},
                      {"label":"a b","local":"sjf"},{"label":"a b","local":"fcfs"}]}"#;
    std::fs::write(dir.join("s.json"), scn).unwrap();
    let o = gridscope(&[
        "run",
        dir.join("s.json").to_str().unwrap(),
        "--jobs",
        sub.join("out.csv").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        files(&sub),
        [
            "out._.._x.csv",
            "out.__.csv",
            "out.a_b-2.csv",
            "out.a_b.csv"
        ]
    );
    assert_eq!(stderr(&o).lines().count(), 4, "{}", stderr(&o));
    assert!(!sub.parent().unwrap().join("x.csv").exists());
    std::fs::remove_dir_all(&dir).ok();
    std::fs::remove_dir_all(&sub).ok();
}

#[test]
fn ses_presets_print_groups_with_bands_and_refuse_foreign_flags() {
    let o = gridscope(&["run", "--preset", "ses-selection", "--seeds", "3", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let labels: Vec<&str> = v["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["label"].as_str().unwrap())
        .collect();
    assert_eq!(
        labels,
        ["random", "mna", "random-restricted", "mna-restricted"]
    );
    let groups = v["runs"][0]["metrics"]["groups"].as_array().unwrap();
    let names: Vec<&str> = groups.iter().map(|g| g["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["A", "B", "C", "D"]);
    for key in ["utilization", "avg_queue_delay_s", "jobs"] {
        assert!(groups[3][key].is_number(), "{key}");
        assert!(groups[3]["lo"][key].is_number() && groups[3]["hi"][key].is_number());
    }
    // The same seeds give the same bytes.
    let again = gridscope(&["run", "--preset", "ses-selection", "--seeds", "3", "--json"]);
    assert_eq!(stdout(&o), stdout(&again));
    let o = gridscope(&[
        "run",
        "--preset",
        "ses-restriction-crossover",
        "--seeds",
        "2",
        "--x",
        "0.05,0.5",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["x"], serde_json::json!([0.05, 0.5]));
    assert_eq!(v["series"].as_array().unwrap().len(), 4);
    let o = gridscope(&["run", "--preset", "ses-selection", "--batches", "100"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--batches does not apply to ses-selection"));
}

#[test]
fn threads_change_nothing_in_the_output() {
    let trace = crate::trace("KTH-SP2-1996-2.1-cln.swf.gz");
    let run = |n: &str| {
        let o = gridscope(&[
            "simulate",
            trace.to_str().unwrap(),
            "--policy",
            "all",
            "--json",
            "--threads",
            n,
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o)
    };
    assert_eq!(run("1"), run("2"));
    assert_eq!(run("1"), run("5"));
    let demo = |n: &str| {
        stdout(&gridscope(&[
            "run",
            "--preset",
            "demo",
            "--json",
            "--threads",
            n,
        ]))
    };
    assert_eq!(demo("1"), demo("3"));
    let o = gridscope(&["simulate", trace.to_str().unwrap(), "--threads", "0"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn kkor_presets_print_the_documented_shapes() {
    let o = gridscope(&["run", "--preset", "kkor-fairness", "--seeds", "2", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let labels: Vec<&str> = v["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["label"].as_str().unwrap())
        .collect();
    assert_eq!(
        labels,
        ["centralized", "distr1", "distr2", "distr3", "local"]
    );
    let m = &v["runs"][0]["metrics"];
    for key in [
        "mean_flow_time",
        "mean_tardiness",
        "late_jobs",
        "utilization",
    ] {
        assert!(m[key].is_number(), "{key}");
        assert!(m["organizations"][0][key].is_number(), "{key}");
    }
    let o = gridscope(&["run", "--preset", "kkor-load", "--seeds", "2", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let series = v["series"].as_array().unwrap();
    for policy in ["centralized", "decentralized", "local"] {
        assert!(series.iter().any(|s| s["policy"] == policy
            && s["metric"] == "mean_tardiness"
            && s["median"].is_array()));
    }
    let o = gridscope(&["run", "--preset", "kkor-real", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = gridscope(&["run", "--preset", "kkor-load", "--batches", "10"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn scjg_presets_print_the_documented_shapes() {
    let o = gridscope(&[
        "run",
        "--preset",
        "scjg-fraction",
        "--seeds",
        "2",
        "--x",
        "0,5",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["x"], serde_json::json!([0.0, 5.0]));
    let series = v["series"].as_array().unwrap();
    for metric in [
        "utilization",
        "avg_expansion_factor",
        "metajob_queue_s",
        "local_wait_s",
        "retries",
        "metajobs_failed",
    ] {
        assert!(
            series.iter().any(|s| s["policy"] == "ar"
                && s["metric"] == metric
                && s["median"].as_array().map(|a| a.len()) == Some(2)
                && s["lo"].is_array()
                && s["hi"].is_array()),
            "{metric}"
        );
    }
    let o = gridscope(&[
        "run",
        "--preset",
        "scjg-ar-vs-lockdown",
        "--seeds",
        "1",
        "--x",
        "2",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let series = v["series"].as_array().unwrap();
    assert!(series.iter().any(|s| s["policy"] == "lockdown"));
    let o = gridscope(&["run", "--preset", "scjg-livelock", "--seeds", "1", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["runs"][0]["label"], "opposed-backoff");
    assert!(v["runs"][0]["metrics"]["retries"].is_number());
    let o = gridscope(&["run", "--preset", "scjg-sites", "--x", "1,2"]);
    assert_eq!(o.status.code(), Some(2), "--x is for the share sweeps");
}

#[test]
fn kkor_parameters_reach_the_presets_and_stay_out_of_the_others() {
    let flow = |args: &[&str]| -> Vec<f64> {
        let mut all = vec![
            "run",
            "--preset",
            "kkor-load",
            "--seeds",
            "2",
            "--x",
            "0.8",
            "--json",
        ];
        all.extend_from_slice(args);
        let o = gridscope(&all);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        ["centralized", "decentralized"]
            .iter()
            .map(|p| {
                v["series"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|s| s["policy"] == *p && s["metric"] == "mean_flow_time")
                    .unwrap()["median"][0]
                    .as_f64()
                    .unwrap()
            })
            .collect()
    };
    let base = flow(&[]);
    // Full cooperation helps the decentralized runs only; bigger batches slow centralized.
    let c1 = flow(&["--coefficients", "1,1,1"]);
    assert_eq!(c1[0], base[0]);
    assert!(c1[1] < base[1], "{c1:?} vs {base:?}");
    let big = flow(&["--batch-jobs", "100", "--batch-length", "50"]);
    assert!(big[0] > base[0], "{big:?} vs {base:?}");
    for args in [
        &["run", "--preset", "kkor-load", "--coefficients", "2,1,1"][..],
        &["run", "--preset", "kkor-real", "--batch-jobs", "3"],
        &["run", "--preset", "ses-selection", "--batch-jobs", "3"],
        &["run", "--preset", "sf-size", "--coefficients", "1"],
        &["run", "--preset", "demo", "--batch-length", "5"],
    ] {
        let o = gridscope(args);
        assert_ne!(o.status.code(), Some(0), "{args:?} must be refused");
    }
}

/// `fit --method max_likelihood`: the same classes, a much smaller Kolmogorov–Smirnov
/// distance on KTH-SP2's run times than the paper's moment matching (0.33 → 0.08).
#[test]
fn fit_by_maximum_likelihood_follows_the_bulk_of_the_samples() {
    let kth = crate::trace("KTH-SP2-1996-2.1-cln.swf.gz");
    let json = |method: &str| -> serde_json::Value {
        let out = gridscope(&[
            "fit",
            kth.to_str().unwrap(),
            "--cpus-per-node",
            "1",
            "--json",
            "--method",
            method,
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let (m, ml) = (json("moments"), json("max_likelihood"));
    assert_eq!(m["method"], "moments");
    assert_eq!(ml["method"], "max_likelihood");
    let classes = |v: &serde_json::Value| {
        v["classes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (c["class"]["nmin"].clone(), c["jobs"].clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(classes(&m), classes(&ml));
    let pooled = |v: &serde_json::Value| v["quality"]["pooled_service_ks"].as_f64().unwrap();
    assert!(
        pooled(&m) > 0.3 && pooled(&ml) < 0.1,
        "{} vs {}",
        pooled(&m),
        pooled(&ml)
    );
    // An unknown method is a command-line error naming the choices.
    let out = gridscope(&[
        "fit",
        kth.to_str().unwrap(),
        "--cpus-per-node",
        "1",
        "--method",
        "em",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("moments, max_likelihood"));
}

/// `--event-order` on `simulate` and `run`: the report names the order; a bad one is a usage
/// error listing the valid ones.
#[test]
fn event_order_flags_reach_the_report() {
    let trace = traces_dir().join("KTH-SP2-1996-2.1-cln.swf.gz");
    let trace = trace.to_str().unwrap();
    for (args, want) in [
        (
            vec!["simulate", trace, "--policy", "easy", "--json"],
            "completions",
        ),
        (
            vec![
                "simulate",
                trace,
                "--policy",
                "easy",
                "--event-order",
                "pyss",
                "--json",
            ],
            "pyss",
        ),
        (
            vec![
                "run",
                "--preset",
                "demo",
                "--event-order",
                "cqsim",
                "--json",
            ],
            "cqsim",
        ),
    ] {
        let o = gridscope(&args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let order = v["conventions"]["same_instant_order"].as_str().unwrap();
        assert!(order.starts_with(want), "{args:?}: {order}");
    }
    let bad = gridscope(&[
        "simulate",
        trace,
        "--policy",
        "easy",
        "--event-order",
        "slurm",
    ]);
    assert_eq!(bad.status.code(), Some(2));
    let e = stderr(&bad);
    assert!(
        e.contains("gridscope") && e.contains("pyss") && e.contains("cqsim"),
        "{e}"
    );
}
