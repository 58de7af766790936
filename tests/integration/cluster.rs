//! `gridscope sweep` (cluster sweeps, docs/cluster.md): bad manifests are errors naming the
//! field, results of another version or of changed traces are refused, corrupt results are
//! rerun, and the merged tables are the same bytes however the cases were sharded. The real
//! Slurm array is scripts/slurm_test.sh.

use std::path::{Path, PathBuf};

use crate::cli::{gridscope, stderr};
use crate::{root, traces_dir};

/// A fresh folder with copies of three fixture traces (the tests change some).
fn workspace(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gridscope-sweep-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("traces")).unwrap();
    for f in ["backfill.swf", "early_end.swf", "promise.swf"] {
        std::fs::copy(
            root().join("tests/fixtures").join(f),
            dir.join("traces").join(f),
        )
        .unwrap();
    }
    dir
}

/// A manifest over the fixtures: 3 policies × 3 traces × 4 seeds = 36 cases.
const MANIFEST: &str = r#"{
  "name": "fixtures",
  "base": { "scenario": { "platform": { "kind": "from_trace" },
                          "workload": { "kind": "swf", "file": "" },
                          "algorithms": [ { "local": "easy" } ] } },
  "axes": [
    { "name": "policy", "path": "algorithms[0].local", "values": ["fcfs", "easy", "conservative"] },
    { "name": "trace", "path": "workload.file", "glob": "traces/*.swf" },
    { "path": "seed", "range": { "from": 1, "to": 4 } }
  ]
}"#;

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

fn ok(args: &[&str]) -> String {
    let o = gridscope(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn fails(args: &[&str]) -> String {
    let o = gridscope(args);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{args:?} should fail: {}",
        stderr(&o)
    );
    stderr(&o)
}

fn merged(dir: &Path) -> Vec<Vec<u8>> {
    ["cases.csv", "points.csv", "merged.json"]
        .iter()
        .map(|f| std::fs::read(dir.join("merged").join(f)).unwrap())
        .collect()
}

#[test]
fn sharded_merge_equals_one_process() {
    let w = workspace("shards");
    let m = write(&w, "m.json", MANIFEST);
    let (one, three) = (w.join("one"), w.join("three"));
    let out = ok(&["sweep", "plan", &m, "--out", one.to_str().unwrap()]);
    assert!(
        out.contains("planned 36 cases (3 policy × 3 trace × 4 seed)"),
        "{out}"
    );
    ok(&["sweep", "plan", &m, "--out", three.to_str().unwrap()]);
    ok(&[
        "sweep",
        "run",
        one.to_str().unwrap(),
        "--shard",
        "0/1",
        "--threads",
        "1",
    ]);
    for i in 0..3 {
        let shard = format!("{i}/3");
        ok(&[
            "sweep",
            "run",
            three.to_str().unwrap(),
            "--shard",
            &shard,
            "--threads",
            "2",
        ]);
    }
    ok(&["sweep", "merge", one.to_str().unwrap()]);
    ok(&["sweep", "merge", three.to_str().unwrap()]);
    assert_eq!(merged(&one), merged(&three));
    let points = String::from_utf8(merged(&one)[1].clone()).unwrap();
    assert!(points.starts_with("policy,trace,label,metric,n,median,ci_low,ci_high,coverage\n"));
    // 3 policies × 3 traces, each metric over the 4 seeds.
    assert!(
        points.contains("fcfs,traces/backfill.swf,fcfs,avg_wait_s,4,"),
        "{points}"
    );
    // A second run has nothing to do; status counts every case done.
    let again = ok(&["sweep", "run", three.to_str().unwrap(), "--shard", "1/3"]);
    assert!(again.contains("0 run"), "{again}");
    let status = ok(&["sweep", "status", one.to_str().unwrap()]);
    assert!(
        status.contains("  all      36      36       0       0       0"),
        "{status}"
    );
}

#[test]
fn bad_manifests_name_the_field_and_line() {
    let w = workspace("bad");
    let out = w.join("out");
    let out = out.to_str().unwrap();
    let cases = [
        (
            MANIFEST.replace("algorithms[0].local", "algorithm[0].local"),
            "axes[0].path: algorithm does not exist",
            ":7:",
        ),
        (
            MANIFEST.replace("[\"fcfs\", \"easy\", \"conservative\"]", "[]"),
            "axes[0].values: the axis has no value",
            ":7:",
        ),
        (
            MANIFEST.replace("traces/*.swf", "traces/*.nothing"),
            "axes[1].values: the glob matches no file",
            ":8:",
        ),
        (
            MANIFEST.replace("\"easy\", \"conservative\"", "\"easy\", \"fifo\""),
            "axes[0]: algorithms[0].local = fifo does not make a valid scenario",
            ":7:",
        ),
        (
            MANIFEST.replace("\"seed\", \"range\"", "\"seed\", \"rnage\""),
            "unknown field `rnage`",
            "line 9",
        ),
        (
            MANIFEST.replace(
                "\"glob\": \"traces/*.swf\"",
                "\"values\": [\"traces/gone.swf\"]",
            ),
            "trace traces/gone.swf (from axes[1] (trace)) does not exist",
            "m.json",
        ),
    ];
    for (text, want, line) in cases {
        let m = write(&w, "m.json", &text);
        let e = fails(&["sweep", "plan", &m, "--out", out]);
        assert!(
            e.contains(want) && e.contains(line),
            "want '{want}' at {line}: {e}"
        );
    }
    let m = write(&w, "m.json", MANIFEST);
    let e = fails(&["sweep", "plan", &m, "--out", out, "--max-cases", "35"]);
    assert!(
        e.contains("more than --max-cases (35) cases: 3 policy × 3 trace × 4 seed"),
        "{e}"
    );
    assert!(!Path::new(out).exists(), "a refused plan writes nothing");
}

#[test]
fn corrupt_results_are_rerun_and_other_versions_refused() {
    let w = workspace("corrupt");
    let m = write(&w, "m.json", MANIFEST);
    let dir = w.join("out");
    let d = dir.to_str().unwrap();
    ok(&["sweep", "plan", &m, "--out", d]);
    ok(&["sweep", "run", d, "--shard", "0/1"]);
    ok(&["sweep", "merge", d]);
    let reference = merged(&dir);
    let results: Vec<PathBuf> = {
        let mut v: Vec<PathBuf> = std::fs::read_dir(dir.join("results"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        v.sort();
        v
    };
    // Truncated: merge refuses it by name, run reruns it, the table comes back the same.
    let text = std::fs::read_to_string(&results[0]).unwrap();
    std::fs::write(&results[0], &text[..text.len() / 2]).unwrap();
    let e = fails(&["sweep", "merge", d]);
    assert!(
        e.contains("1 results are corrupt") && e.contains("truncated"),
        "{e}"
    );
    let o = gridscope(&["sweep", "run", d, "--shard", "0/1"]);
    assert!(
        o.status.success() && stderr(&o).contains("rerun: not two lines (truncated?)"),
        "{}",
        stderr(&o)
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("35 already done, 1 run"));
    ok(&["sweep", "merge", d]);
    assert_eq!(merged(&dir), reference);
    // Another version, with a valid checksum: merge names the case and the version.
    let text = std::fs::read_to_string(&results[1]).unwrap();
    let body = text.lines().next().unwrap().replacen(
        &format!("\"gridscope\":\"{}\"", env!("CARGO_PKG_VERSION")),
        "\"gridscope\":\"0.0.1\"",
        1,
    );
    let sum = sha256(body.as_bytes());
    std::fs::write(&results[1], format!("{body}\n{sum}\n")).unwrap();
    let e = fails(&["sweep", "merge", d]);
    assert!(
        e.contains("gridscope 0.0.1") && e.contains("do not belong to this plan"),
        "{e}"
    );
    // A missing result is named with its point.
    std::fs::remove_file(&results[2]).unwrap();
    let e = fails(&["sweep", "merge", d]);
    assert!(
        e.contains("1 of 36 cases have no result") && e.contains("traces/"),
        "{e}"
    );
}

#[test]
fn a_trace_changed_after_the_plan_is_refused() {
    let w = workspace("changed");
    let m = write(&w, "m.json", MANIFEST);
    let d = w.join("out");
    let d = d.to_str().unwrap();
    ok(&["sweep", "plan", &m, "--out", d]);
    let t = w.join("traces/promise.swf");
    let mut text = std::fs::read_to_string(&t).unwrap();
    text.push_str("\n; an edit\n");
    std::fs::write(&t, text).unwrap();
    let e = fails(&["sweep", "run", d, "--shard", "0/1"]);
    assert!(
        e.contains("trace traces/promise.swf changed since the plan"),
        "{e}"
    );
    // Planning the same folder again with other trace bytes is refused too.
    let e = fails(&["sweep", "plan", &m, "--out", d]);
    assert!(e.contains("already holds another sweep plan"), "{e}");
}

#[test]
fn shard_specs_and_slurm_scripts() {
    let w = workspace("slurm");
    let m = write(&w, "m.json", MANIFEST);
    let d = w.join("out");
    let ds = d.to_str().unwrap();
    ok(&["sweep", "plan", &m, "--out", ds]);
    let o = gridscope(&["sweep", "run", ds, "--shard", "3/3"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = fails(&["sweep", "run", ds, "--shard", "slurm"]);
    assert!(e.contains("SLURM_ARRAY_TASK_ID is not set"), "{e}");
    // An element resubmitted alone (`sbatch --array=2`) has SLURM_ARRAY_TASK_MIN 2 and a
    // count of 1: with --of 4 it is still shard 2 of 4.
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_gridscope"))
        .args(["sweep", "run", ds, "--shard", "slurm", "--of", "4"])
        .env("SLURM_ARRAY_TASK_ID", "2")
        .env("SLURM_ARRAY_TASK_MIN", "2")
        .env("SLURM_ARRAY_TASK_COUNT", "1")
        .env("SLURM_CPUS_PER_TASK", "1")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success() && said.starts_with("shard 2/4: 9 cases"),
        "{said}{}",
        stderr(&o)
    );
    assert!(said.contains("on 1 threads"), "{said}");
    // A partial result a killed run of this host left is removed (and said).
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    let stale = d
        .join("results")
        .join(format!(".x.result.{}.999999999.tmp", host.trim()));
    std::fs::write(&stale, "half a result").unwrap();
    let o = gridscope(&["sweep", "run", ds, "--shard", "2/4"]);
    assert!(
        stderr(&o).contains("removed 1 partial result files"),
        "{}",
        stderr(&o)
    );
    assert!(!stale.exists());
    let out = ok(&[
        "sweep",
        "slurm",
        ds,
        "--tasks",
        "4",
        "--max-parallel",
        "2",
        "--time",
        "0:10:00",
        "--cpus-per-task",
        "2",
    ]);
    assert!(out.contains("array.sbatch (4 tasks)"), "{out}");
    let script = std::fs::read_to_string(d.join("slurm/array.sbatch")).unwrap();
    for line in [
        "#SBATCH --array=0-3%2",
        "#SBATCH --cpus-per-task=2",
        "#SBATCH --time=0:10:00",
        "sweep run",
        "--shard slurm --of 4 --threads 2",
    ] {
        assert!(script.contains(line), "{line} missing:\n{script}");
    }
    let submit = std::fs::read_to_string(d.join("slurm/submit.sh")).unwrap();
    assert!(submit.contains("--dependency=afterok:$array"), "{submit}");
    let o = gridscope(&["sweep", "slurm", ds, "--tasks", "2", "--partition", "a b"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn a_preset_base_and_its_traces() {
    let w = workspace("preset");
    // sob-real-3site names its traces by file name: without "traces" they cannot be found.
    let m = write(
        &w,
        "m.json",
        r#"{ "base": { "preset": "sob-real-3site" }, "axes": [ { "path": "seed", "values": [1] } ] }"#,
    );
    let e = fails(&["sweep", "plan", &m, "--out", w.join("x").to_str().unwrap()]);
    assert!(
        e.contains("traces: the base scenario reads") && e.contains("set \"traces\""),
        "{e}"
    );
    let traces = traces_dir().canonicalize().unwrap();
    let manifest = format!(
        r#"{{ "base": {{ "preset": "demo" }}, "traces": "{}",
             "axes": [ {{ "path": "seed", "values": [1, 2, 3] }},
                       {{ "path": "options.event_order", "values": ["gridscope", "cqsim"] }} ] }}"#,
        traces.display()
    );
    let m = write(&w, "m.json", &manifest);
    let d = w.join("out");
    let d = d.to_str().unwrap();
    let out = ok(&["sweep", "plan", &m, "--out", d]);
    assert!(out.contains("planned 6 cases"), "{out}");
    ok(&["sweep", "run", d, "--shard", "0/1"]);
    ok(&["sweep", "merge", d]);
    let cases = std::fs::read_to_string(Path::new(d).join("merged/cases.csv")).unwrap();
    // The demo runs every local policy: 6 cases × 5 runs.
    assert_eq!(cases.lines().count(), 1 + 6 * 5, "{cases}");
}

fn sha256(bytes: &[u8]) -> String {
    // The tests have no hashing crate: sha256sum is on every machine these tests run on.
    use std::io::Write;
    let mut child = std::process::Command::new("sha256sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8_lossy(&out.stdout)[..64].to_string()
}

#[test]
fn a_failed_case_is_counted_and_named() {
    let w = workspace("failed");
    let m = write(
        &w,
        "m.json",
        r#"{ "base": { "scenario": { "platform": { "kind": "preset", "name": "demo" },
                                     "workload": { "kind": "ses_poisson", "jobs": 100 },
                                     "algorithms": [ { "local": "easy" } ] } },
             "axes": [ { "name": "jobs", "path": "workload.jobs", "values": [0, 50] } ] }"#,
    );
    let d = w.join("out");
    let d = d.to_str().unwrap();
    ok(&["sweep", "plan", &m, "--out", d]);
    let e = fails(&["sweep", "run", d, "--shard", "0/1"]);
    assert!(
        e.contains("1 cases failed") && e.contains("jobs must be between 1"),
        "{e}"
    );
    let status = ok(&["sweep", "status", d]);
    assert!(
        status.contains("  all       2       1       0       1       0"),
        "{status}"
    );
    let e = fails(&["sweep", "merge", d]);
    assert!(
        e.contains("1 of 2 cases have no result") && e.contains("— failed: "),
        "{e}"
    );
}

/// Plans `manifest` twice and runs one copy as one shard and the other as two; the merged
/// tables must be the same bytes. Returns merged.json of the one-shard copy.
fn plan_run_merge(w: &Path, manifest: &str, name: &str) -> serde_json::Value {
    let m = write(w, &format!("{name}.json"), manifest);
    let (one, two) = (w.join(format!("{name}-one")), w.join(format!("{name}-two")));
    for d in [&one, &two] {
        ok(&["sweep", "plan", &m, "--out", d.to_str().unwrap()]);
    }
    ok(&["sweep", "run", one.to_str().unwrap(), "--shard", "0/1"]);
    for s in ["0/2", "1/2"] {
        ok(&["sweep", "run", two.to_str().unwrap(), "--shard", s]);
    }
    for d in [&one, &two] {
        ok(&["sweep", "merge", d.to_str().unwrap()]);
    }
    assert_eq!(
        merged(&one),
        merged(&two),
        "{name}: sharding changed the merge"
    );
    let text = std::fs::read_to_string(one.join("merged/merged.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The merged point (x value, label, metric) as (median, ci_low, ci_high).
fn point(merged: &serde_json::Value, x: &str, label: &str, metric: &str) -> [f64; 3] {
    let p = merged["points"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| {
            p["point"]
                .as_array()
                .and_then(|a| a.first())
                .and_then(|v| v.as_str())
                == Some(x)
                && p["label"] == label
                && p["metric"] == metric
        })
        .unwrap_or_else(|| panic!("no merged point {x} {label} {metric}"));
    ["median", "ci_low", "ci_high"].map(|k| p[k].as_f64().unwrap())
}

fn native(args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&ok(args)).unwrap()
}

/// A family manifest (issue #26 item 5): each case one (x, seed) of SF's and KKOR's sweeps;
/// the merge's medians and intervals are the preset's own, to the bit, however sharded.
#[test]
fn family_manifests_merge_to_the_presets_medians() {
    let w = workspace("family");
    let sf = plan_run_merge(
        &w,
        r#"{ "name": "sf", "base": { "run": { "preset": "sf-heterogeneity", "batches": 2000, "x": [1], "seed": 1 } },
             "axes": [ { "name": "x", "path": "x[0]", "values": [1, 5, 10] },
                       { "path": "seed", "range": { "from": 1, "to": 5 } } ] }"#,
        "sf",
    );
    assert_eq!(sf["cases"].as_array().unwrap().len(), 15);
    let want = native(&[
        "run",
        "--preset",
        "sf-heterogeneity",
        "--seeds",
        "5",
        "--batches",
        "2000",
        "--x",
        "1,5,10",
        "--json",
    ]);
    for s in want["series"].as_array().unwrap() {
        let policy = s["policy"].as_str().unwrap();
        for (i, x) in ["1", "5", "10"].iter().enumerate() {
            let got = point(&sf, x, policy, "mean_response_s");
            let expect = ["median", "lo", "hi"].map(|k| s[k][i].as_f64().unwrap());
            assert_eq!(got, expect, "sf x={x} {policy}");
        }
    }
    let kkor = plan_run_merge(
        &w,
        r#"{ "name": "kkor", "base": { "run": { "preset": "kkor-load", "x": [0.5], "seed": 1 } },
             "axes": [ { "name": "load", "path": "x[0]", "values": [0.5, 0.8] },
                       { "path": "seed", "range": { "from": 1, "to": 3 } } ] }"#,
        "kkor",
    );
    let want = native(&[
        "run",
        "--preset",
        "kkor-load",
        "--seeds",
        "3",
        "--x",
        "0.5,0.8",
        "--json",
    ]);
    let series = want["series"].as_array().unwrap();
    assert_eq!(series.len(), 15);
    for s in series {
        let (policy, metric) = (s["policy"].as_str().unwrap(), s["metric"].as_str().unwrap());
        for (i, x) in ["0.5", "0.8"].iter().enumerate() {
            let expect = ["median", "lo", "hi"].map(|k| s[k][i].as_f64().unwrap());
            assert_eq!(
                point(&kkor, x, policy, metric),
                expect,
                "kkor {x} {policy} {metric}"
            );
        }
    }
}

/// SCJG's sweeps read the shared SDSC-SP2 from the manifest's `traces` folder (locked like
/// any trace), and SES's selection has no x: both merge to the presets' own medians; a
/// metric one scheme lacks (ar's lock-down utilization) is no row.
#[test]
fn scjg_and_ses_family_manifests_merge_to_the_presets_medians() {
    let w = workspace("family-scjg");
    std::os::unix::fs::symlink(
        crate::trace("SDSC-SP2-1998-4.2-cln.swf.gz"),
        w.join("traces/SDSC-SP2-1998-4.2-cln.swf.gz"),
    )
    .unwrap();
    let scjg = plan_run_merge(
        &w,
        r#"{ "base": { "run": { "preset": "scjg-ar-vs-lockdown", "x": [2], "seed": 1 } }, "traces": "traces",
             "axes": [ { "name": "x", "path": "x[0]", "values": [2, 6] },
                       { "path": "seed", "range": { "from": 1, "to": 3 } } ] }"#,
        "scjg",
    );
    assert_eq!(
        scjg["traces"][0]["file"],
        "traces/SDSC-SP2-1998-4.2-cln.swf.gz"
    );
    let traces = traces_dir().display().to_string();
    let want = native(&[
        "run",
        "--preset",
        "scjg-ar-vs-lockdown",
        "--seeds",
        "3",
        "--x",
        "2,6",
        "--traces",
        &traces,
        "--json",
    ]);
    for s in want["series"].as_array().unwrap() {
        let (scheme, metric) = (s["policy"].as_str().unwrap(), s["metric"].as_str().unwrap());
        for (i, x) in ["2", "6"].iter().enumerate() {
            let expect = ["median", "lo", "hi"].map(|k| s[k][i].as_f64().unwrap());
            assert_eq!(
                point(&scjg, x, scheme, metric),
                expect,
                "scjg {x} {scheme} {metric}"
            );
        }
    }
    let rows = scjg["points"].as_array().unwrap();
    assert!(rows.iter().all(|p| p["n"] == 3), "a row of no values");
    let ses = plan_run_merge(
        &w,
        r#"{ "base": { "run": { "preset": "ses-selection", "seed": 1 } },
             "axes": [ { "path": "seed", "range": { "from": 1, "to": 3 } } ] }"#,
        "ses",
    );
    let want = native(&["run", "--preset", "ses-selection", "--seeds", "3", "--json"]);
    let find = |label: &str, metric: &str| {
        ses["points"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["label"] == label && p["metric"] == metric)
            .map(|p| ["median", "ci_low", "ci_high"].map(|k| p[k].as_f64().unwrap()))
            .unwrap_or_else(|| panic!("no {label} {metric}"))
    };
    for run in want["runs"].as_array().unwrap() {
        let (label, m) = (run["label"].as_str().unwrap(), &run["metrics"]);
        let band = ["avg_response_s", "avg_response_lo", "avg_response_hi"]
            .map(|k| m[k].as_f64().unwrap());
        assert_eq!(find(label, "avg_response_s"), band, "ses {label}");
        for g in m["groups"].as_array().unwrap() {
            let key = format!("{}.utilization", g["name"].as_str().unwrap());
            let got = find(label, &key);
            let want = [
                &g["utilization"],
                &g["lo"]["utilization"],
                &g["hi"]["utilization"],
            ]
            .map(|v| v.as_f64().unwrap());
            assert_eq!(got, want, "ses {label} {key}");
        }
    }
}

/// A family manifest's mistakes are named: an unknown preset, a preset with no seed sweep,
/// a run-spec path that does not exist, a seed out of range.
#[test]
fn bad_family_manifests_name_the_field() {
    let w = workspace("family-bad");
    let out = w.join("out");
    let case = |name: &str, text: &str| {
        let m = write(&w, name, text);
        fails(&["sweep", "plan", &m, "--out", out.to_str().unwrap()])
    };
    let e = case(
        "preset.json",
        "{ \"base\": { \"run\": { \"preset\": \"sf-nope\", \"seed\": 1 } },\n  \"axes\": [ { \"path\": \"seed\", \"values\": [1] } ] }",
    );
    assert!(
        e.contains("preset.json:1: base.run.preset: 'sf-nope' is not a preset"),
        "{e}"
    );
    let e = case(
        "fairness.json",
        r#"{ "base": { "run": { "preset": "kkor-fairness", "seed": 1 } }, "axes": [ { "path": "seed", "values": [1] } ] }"#,
    );
    assert!(e.contains("'kkor-fairness' has no seed sweep"), "{e}");
    let e = case(
        "path.json",
        "{ \"base\": { \"run\": { \"preset\": \"sf-size\", \"seed\": 1 } },\n  \"axes\": [\n    { \"name\": \"bogus\", \"path\": \"seedz\", \"values\": [1] } ] }",
    );
    assert!(
        e.contains("path.json:3: axes[0]: seedz = 1 does not make a valid family run: unknown field `seedz`"),
        "{e}"
    );
    let e = case(
        "nested.json",
        r#"{ "base": { "run": { "preset": "sf-size", "seed": 1 } }, "axes": [ { "path": "sweep.arrivals.load", "values": [1] } ] }"#,
    );
    assert!(
        e.contains("axes[0].path: sweep does not exist (there: preset, seed)"),
        "{e}"
    );
    let e = case(
        "seed.json",
        r#"{ "base": { "run": { "preset": "sf-size" } }, "axes": [ { "path": "seed", "values": [1, 0] } ] }"#,
    );
    assert!(
        e.contains("axes[0]: seed = 0 does not make a valid family run: seed must be 1..1000"),
        "{e}"
    );
    let e = case(
        "noseed.json",
        r#"{ "base": { "run": { "preset": "sf-size" } }, "axes": [ { "path": "batches", "values": [100] } ] }"#,
    );
    assert!(e.contains("no `seed`"), "{e}");
}

/// Scenario manifests plan to the case ids they had before family manifests came (the
/// ids name result files: a changed id would rerun every finished case).
#[test]
fn scenario_manifests_keep_their_case_ids() {
    let w = workspace("ids");
    let m = write(&w, "m.json", MANIFEST);
    let out = w.join("out");
    ok(&["sweep", "plan", &m, "--out", out.to_str().unwrap()]);
    let cases = std::fs::read_to_string(out.join("cases.jsonl")).unwrap();
    let ids: Vec<String> = cases
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    // Planned by the binary before this change (commit c7dbf22): the same file, byte for byte.
    assert_eq!(ids[0], "ad784aa426e1965b");
    assert_eq!(ids[35], "9a77fd61289a605e");
    assert!(!cases.contains("\"run\""), "a scenario case has no run");
}

/// The example the page's Cluster sweeps view opens (`examples/cluster/`): its points.csv
/// is what `sweep plan`, `run` and `merge` give for its manifest today, byte for byte, so
/// the shipped table never drifts from the engine that made it.
#[test]
fn the_shipped_example_is_what_its_manifest_gives() {
    let dir = std::env::temp_dir().join(format!("gridscope-sweep-example-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.display().to_string();
    let manifest = root().join("examples/cluster/manifest.json");
    ok(&[
        "sweep",
        "plan",
        &manifest.display().to_string(),
        "--out",
        &out,
    ]);
    ok(&["sweep", "run", &out, "--shard", "0/1"]);
    ok(&["sweep", "merge", &out]);
    let made = std::fs::read(dir.join("merged/points.csv")).unwrap();
    let shipped = std::fs::read(root().join("examples/cluster/points.csv")).unwrap();
    assert!(
        made == shipped,
        "examples/cluster/points.csv is stale: regenerate it as examples/cluster/README.md says"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
