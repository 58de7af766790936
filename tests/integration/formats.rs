//! Trace formats beyond SWF (issue #29): the hand-made fixtures of tests/fixtures/formats/
//! (GWF, Batsim JSON, Slurm sacct) read with their counts by reason, strict mode naming
//! file and line, a round trip per format through SWF and through Batsim JSON, the CLI's
//! --format / --utc-offset / convert / --jobs-format batsim, and `compare` on a pair of runs
//! whose answer is worked out by hand.

use gridscope::model::Job;
use gridscope::workload::batsim_json::read_batsim_json;
use gridscope::workload::{
    read_swf, read_trace, write_batsim_json, write_swf, SwfOptions, TraceFormat, TraceOptions,
    Workload,
};

use crate::cli::{gridscope, stderr};
use crate::root;

fn fixture(name: &str) -> (String, Vec<u8>) {
    let path = format!("tests/fixtures/formats/{name}");
    let bytes = std::fs::read(root().join(&path)).expect("fixture");
    (path, bytes)
}

fn read(name: &str) -> Workload {
    let (path, bytes) = fixture(name);
    read_trace(
        &path,
        &bytes,
        &SwfOptions::default(),
        &TraceOptions::default(),
    )
    .expect("read")
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("gridscope-fmt-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The fields every format carries, homes left out (SWF has no origin site).
fn shape(w: &Workload) -> Vec<(i64, i64, i64, i64, u32)> {
    w.jobs
        .iter()
        .map(|j: &Job| {
            (
                j.id,
                (j.submit + w.origin).0,
                j.runtime.0,
                j.estimate.0,
                j.procs,
            )
        })
        .collect()
}

#[test]
fn gwf_fixture_counts_and_sites() {
    let w = read("small.gwf");
    let r = &w.report;
    assert_eq!(r.format, "gwf");
    assert_eq!(
        (r.records, r.jobs, r.skipped_total, r.malformed),
        (7, 6, 1, 1)
    );
    assert_eq!(r.skipped_by_reason["runtime <= 0"], 1);
    assert_eq!(r.malformed_by_reason["too few fields"], 1);
    assert_eq!(r.procs_from_requested, 1);
    assert_eq!(r.estimate_missing, 1);
    // OrigSiteIDs 3 and 1: site 0 is origin 1, site 1 origin 3.
    assert_eq!(r.sites, vec!["1", "3"]);
    let homes: Vec<(i64, u32)> = w.jobs.iter().map(|j| (j.id, j.home)).collect();
    assert_eq!(homes, vec![(1, 1), (2, 0), (3, 1), (5, 0), (6, 1), (8, 0)]);
    assert_eq!(r.header.unix_start_time, Some(1_100_000_000));
    assert_eq!(
        r.malformed_examples,
        vec!["tests/fixtures/formats/small.gwf:11: expected 29 fields (at least 17, up to OrigSiteID), found 4"]
    );
}

#[test]
fn sacct_fixture_reports_pending_and_cancelled_jobs() {
    let w = read("small.sacct");
    let r = &w.report;
    assert_eq!(r.format, "sacct");
    assert_eq!(
        (r.records, r.jobs, r.skipped_total, r.malformed),
        (8, 4, 4, 1)
    );
    for why in [
        "pending, never started",
        "cancelled before start",
        "cancelled at start (runtime 0)",
        "still running (no End)",
    ] {
        assert_eq!(r.skipped_by_reason[why], 1, "{why}");
    }
    assert_eq!(r.malformed_by_reason["bad time"], 1);
    assert!(
        r.malformed_examples[0].starts_with("tests/fixtures/formats/small.sacct:9: 'yesterday'")
    );
    assert!(
        r.warnings.iter().any(|m| m.contains("read as UTC")),
        "{:?}",
        r.warnings
    );
    // 2024-03-01T10:00:00 UTC is 1709287200.
    assert_eq!(r.header.unix_start_time, Some(1_709_287_200));
    // Job 101: 10 min run, 30 min limit, 4 CPUs; job 105's UNLIMITED limit is its runtime.
    let got = shape(&w);
    assert_eq!(got[0], (101, 0, 600_000, 1_800_000, 4));
    assert_eq!(got[2], (105, 240_000, 1_800_000, 1_800_000, 16));
    assert_eq!(r.estimate_missing, 1);
    assert!(r.header.notes.contains(&"partition 1 = gpu".to_string()));
}

#[test]
fn sacct_zone_less_timestamps_follow_the_offset() {
    let (path, bytes) = fixture("small.sacct");
    let trace = TraceOptions {
        format: TraceFormat::Sacct,
        utc_offset_min: 60,
    };
    let w = read_trace(&path, &bytes, &SwfOptions::default(), &trace).unwrap();
    assert_eq!(w.report.header.unix_start_time, Some(1_709_287_200 - 3600));
    assert!(w
        .report
        .warnings
        .iter()
        .any(|m| m.contains("read as UTC+01:00")));
    // A timestamp with its zone is read in it whatever the offset.
    let text = b"JobID|Submit|Start|End|Elapsed|Timelimit|NCPUS|NNodes|State\n\
1|2024-03-01T10:00:00Z|2024-03-01T11:00:00+01:00|2024-03-01T10:01:00Z|00:01:00|5|1|1|COMPLETED\n";
    let w = read_trace("z", text, &SwfOptions::default(), &trace).unwrap();
    assert_eq!(w.report.header.unix_start_time, Some(1_709_287_200));
    assert_eq!(w.jobs[0].runtime.0, 60_000);
    assert!(w
        .report
        .warnings
        .iter()
        .all(|m| !m.contains("no time zone")));
}

#[test]
fn batsim_fixture_counts_and_platform_size() {
    let w = read("small_batsim.json");
    let r = &w.report;
    assert_eq!(r.format, "batsim-json");
    assert_eq!(
        (r.records, r.jobs, r.skipped_total, r.malformed),
        (6, 5, 1, 1)
    );
    assert_eq!(
        r.skipped_by_reason["profile without a fixed delay (not type delay)"],
        1
    );
    assert_eq!(r.header.max_procs, Some(16));
    assert_eq!(
        r.malformed_examples,
        vec!["tests/fixtures/formats/small_batsim.json:10: job 6: subtime missing or not a number"]
    );
    assert_eq!(shape(&w)[3], (5, 25_500, 30_000, 200_000, 1));
}

#[test]
fn strict_mode_names_file_and_line_in_every_format() {
    let strict = SwfOptions {
        strict: true,
        ..Default::default()
    };
    for (name, line) in [
        ("small.gwf", 11),
        ("small.sacct", 9),
        ("small_batsim.json", 10),
    ] {
        let (path, bytes) = fixture(name);
        let e = read_trace(&path, &bytes, &strict, &TraceOptions::default()).unwrap_err();
        assert!(
            e.to_string().starts_with(&format!("{path}:{line}: ")),
            "{name}: {e}"
        );
    }
}

/// Every format, read, written as SWF and read back: the same jobs (and the same absolute
/// times, through the header's UnixStartTime); written as Batsim JSON and read back: the
/// same jobs relative to the first submit.
#[test]
fn round_trip_per_format_through_swf_and_batsim_json() {
    for name in ["small.gwf", "small.sacct", "small_batsim.json"] {
        let w = read(name);
        let swf = write_swf(&w, &w.report.header);
        let back = read_swf("back.swf", swf.as_bytes(), &SwfOptions::default()).unwrap();
        assert_eq!(shape(&back), shape(&w), "{name} through SWF");
        assert_eq!(
            back.report.header.unix_start_time,
            w.report.header.unix_start_time
        );
        assert_eq!(back.report.header.max_procs, w.report.header.max_procs);
        let users: Vec<(i32, i32)> = w.jobs.iter().map(|j| (j.user, j.partition)).collect();
        let back_users: Vec<(i32, i32)> = back.jobs.iter().map(|j| (j.user, j.partition)).collect();
        assert_eq!(
            users, back_users,
            "{name}: users and partitions through SWF"
        );
        let json = write_batsim_json(&w, None);
        let again = read_batsim_json("back.json", json.as_bytes(), &SwfOptions::default()).unwrap();
        let rel = |w: &Workload| -> Vec<(i64, i64, i64, i64, u32)> {
            w.jobs
                .iter()
                .map(|j| (j.id, j.submit.0, j.runtime.0, j.estimate.0, j.procs))
                .collect()
        };
        assert_eq!(rel(&again), rel(&w), "{name} through Batsim JSON");
        assert_eq!(again.report.malformed + again.report.skipped_total, 0);
    }
    // And SWF itself through Batsim JSON.
    let bytes = std::fs::read(root().join("tests/fixtures/backfill.swf")).unwrap();
    let w = read_swf("backfill.swf", &bytes, &SwfOptions::default()).unwrap();
    let again = read_batsim_json(
        "b.json",
        write_batsim_json(&w, Some(8)).as_bytes(),
        &Default::default(),
    )
    .unwrap();
    assert_eq!(again.jobs.len(), w.jobs.len());
    assert_eq!(again.report.header.max_procs, Some(8));
}

#[test]
fn swf_is_still_read_as_before() {
    let bytes = std::fs::read(root().join("tests/fixtures/skips.swf")).unwrap();
    let a = read_swf("s", &bytes, &SwfOptions::default()).unwrap();
    let b = read_trace(
        "s",
        &bytes,
        &SwfOptions::default(),
        &TraceOptions::default(),
    )
    .unwrap();
    assert_eq!(a.jobs, b.jobs);
    assert_eq!(a.report, b.report);
    assert!(b.report.format.is_empty());
}

#[test]
fn cli_lints_simulates_and_overrides_the_format() {
    for name in ["small.gwf", "small.sacct", "small_batsim.json"] {
        let path = format!("tests/fixtures/formats/{name}");
        let o = gridscope(&["lint", &path, "--json"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert!(v["skipped_by_reason"].is_object(), "{name}");
        let o = gridscope(&["simulate", &path, "--policy", "fcfs,easy", "--json"]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
    }
    // Told it is SWF, a GWF file is 29 fields a line: the SWF reader says so.
    let o = gridscope(&[
        "lint",
        "tests/fixtures/formats/small.gwf",
        "--format",
        "swf",
    ]);
    assert!(o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("this does not look like SWF"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let o = gridscope(&[
        "lint",
        "tests/fixtures/formats/small.gwf",
        "--format",
        "csv",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let o = gridscope(&[
        "lint",
        "tests/fixtures/formats/small.sacct",
        "--utc-offset",
        "-05:00",
    ]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("read as UTC-05:00"));
}

#[test]
fn cli_converts_and_writes_batsim_jobs_csv() {
    let dir = scratch("convert");
    let out = dir.join("w.json");
    let o = gridscope(&[
        "convert",
        "tests/fixtures/formats/small.sacct",
        "--to",
        "batsim-json",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("cancelled before start"));
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(v["nb_res"], 16);
    assert_eq!(v["jobs"].as_array().unwrap().len(), 4);
    // Never over an input.
    let o = gridscope(&[
        "convert",
        "tests/fixtures/formats/small.gwf",
        "--to",
        "swf",
        "--out",
        "tests/fixtures/formats/small.gwf",
    ]);
    assert!(!o.status.success());
    let jobs = dir.join("jobs.csv");
    let o = gridscope(&[
        "simulate",
        "tests/fixtures/formats/small_batsim.json",
        "--policy",
        "easy",
        "--jobs",
        jobs.to_str().unwrap(),
        "--jobs-format",
        "batsim",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&jobs).unwrap();
    assert!(text.starts_with("job_id,workload_name,profile,submission_time,"));
    assert_eq!(text.lines().count(), 1 + 5);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn origin_sites_keeps_a_site_per_origin() {
    let dir = scratch("origin");
    std::fs::copy(
        root().join("tests/fixtures/formats/small.gwf"),
        dir.join("small.gwf"),
    )
    .unwrap();
    let scenario = serde_json::json!({
        "version": 2, "name": "gwf origins", "seed": 0,
        "platform": {"kind": "sites", "name": "two", "sites": [
            {"name": "origin1", "nodes": 8, "cpus_per_node": 1},
            {"name": "origin3", "nodes": 2, "cpus_per_node": 1}]},
        "workload": {"kind": "origin_sites", "file": "small.gwf"},
        "algorithms": [{"local": "fcfs"}]
    });
    let file = dir.join("s.json");
    std::fs::write(&file, scenario.to_string()).unwrap();
    let o = gridscope(&["run", file.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let m = &v["runs"][0]["metrics"];
    // Origin 3's jobs 1, 3 and 6 (2, 1, 2 CPUs) fit its 2 CPUs; nothing is rejected.
    assert_eq!(m["jobs_finished"], 6, "{m}");
    let _ = std::fs::remove_dir_all(dir);
}

/// A pair of runs whose answer is known: waits A = 0, 10, 20, 30 s and B = 5, 0, 20, 60 s for
/// jobs 1–4, so B − A = 5, −10, 0, 30: mean 6.25, median 2.5, job 2 gained most, job 4
/// lost most. Three seed pairs with mean differences 6.25, 2 and 1 (all positive): the exact
/// sign-flip test finds 2 of 8 patterns as extreme, p = 0.25.
#[test]
fn compare_a_hand_made_pair() {
    let dir = scratch("compare");
    let write = |name: &str, waits: &[i64]| {
        let mut s = String::from("job_id,home,site,submit,start,end,procs\n");
        for (i, w) in waits.iter().enumerate() {
            let submit = 100 * i as i64;
            s.push_str(&format!(
                "{},m,m,{submit},{},{},1\n",
                i + 1,
                submit + w,
                submit + w + 50
            ));
        }
        let p = dir.join(name);
        std::fs::write(&p, s).unwrap();
        p.to_str().unwrap().to_string()
    };
    let a = write("a.csv", &[0, 10, 20, 30]);
    let b = write("b.csv", &[5, 0, 20, 60]);
    let o = gridscope(&["compare", &a, &b, "--json", "--top", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["jobs_paired"], 4);
    assert_eq!(v["mean_diff_s"], 6.25);
    assert_eq!(v["median_diff_s"], 2.5);
    assert_eq!(
        (
            v["gained"].as_u64(),
            v["lost"].as_u64(),
            v["unchanged"].as_u64()
        ),
        (Some(1), Some(2), Some(1))
    );
    assert_eq!(v["top_gainers"][0]["job_id"], 2);
    assert_eq!(v["top_gainers"].as_array().unwrap().len(), 1);
    assert_eq!(v["top_losers"][0]["job_id"], 4);
    assert_eq!(v["top_losers"][1]["job_id"], 1);
    // Wilcoxon: |d| = 5, 10, 30 ranked 1, 2, 3; W+ = 1 + 3 = 4.
    assert_eq!(v["per_job"]["w_plus"], 4.0);
    assert!(v.get("over_seeds").is_none());
    let a2 = write("a2.csv", &[0, 0, 0, 0]);
    let b2 = write("b2.csv", &[2, 2, 2, 2]);
    let a3 = write("a3.csv", &[10, 10, 10, 10]);
    let b3 = write("b3.csv", &[11, 11, 11, 11]);
    let o = gridscope(&[
        "compare",
        &format!("{a},{a2},{a3}"),
        &format!("{b},{b2},{b3}"),
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let s = &v["over_seeds"];
    assert_eq!(s["pairs"], 3);
    assert_eq!(s["mean_diffs_s"], serde_json::json!([6.25, 2.0, 1.0]));
    assert_eq!(s["p_value"], 0.25);
    assert_eq!(s["exact"], true);
    let lo = s["ci95_low_s"].as_f64().unwrap();
    let hi = s["ci95_high_s"].as_f64().unwrap();
    assert!(
        (1.0..=6.25).contains(&lo) && (lo..=6.25).contains(&hi),
        "{lo} {hi}"
    );
    // The same bytes again (seeded bootstrap).
    let o2 = gridscope(&[
        "compare",
        &format!("{a},{a2},{a3}"),
        &format!("{b},{b2},{b3}"),
        "--json",
    ]);
    assert_eq!(o.stdout, o2.stdout);
    // Text output and a bad file named with its line.
    let o = gridscope(&["compare", &a, &b]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("gained most under B"));
    let bad = dir.join("bad.csv");
    std::fs::write(&bad, "job_id,submit,start\n1,0,x\n").unwrap();
    let o = gridscope(&["compare", &a, bad.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("bad.csv:2: start is not a number"),
        "{}",
        stderr(&o)
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// Mutated fixtures (bytes flipped, inserted from a set of troublemakers — separators,
/// multi-byte characters, quotes, braces — and cut short) through every reader, lenient and
/// strict: an answer every time, never a panic; in lenient mode the counts add up.
#[test]
fn mutated_inputs_never_panic_in_any_reader() {
    let mut rng = gridscope::rng::SimRng::new(29);
    let pieces: [&[u8]; 12] = [
        b"|",
        b"\t",
        b"\n",
        b"{",
        b"}",
        b"\"",
        "é".as_bytes(),
        "€".as_bytes(),
        b"-1",
        b"99999999999999999999",
        b":",
        b"T",
    ];
    for name in ["small.gwf", "small.sacct", "small_batsim.json"] {
        let (_, base) = fixture(name);
        for i in 0..1500 {
            let mut b = base.clone();
            for _ in 0..rng.range_u64(1, 6) {
                let at = rng.range_u64(0, b.len() as u64) as usize;
                match rng.range_u64(0, 2) {
                    0 if at < b.len() => b[at] = rng.range_u64(0, 255) as u8,
                    1 => {
                        let p = pieces[rng.range_u64(0, pieces.len() as u64 - 1) as usize];
                        b.splice(at..at, p.iter().copied());
                    }
                    _ => b.truncate(at),
                }
            }
            for format in TraceFormat::ALL {
                let trace = TraceOptions {
                    format,
                    utc_offset_min: 0,
                };
                for strict in [false, true] {
                    let opts = SwfOptions {
                        strict,
                        ..Default::default()
                    };
                    if let Ok(w) = read_trace(name, &b, &opts, &trace) {
                        let r = &w.report;
                        assert_eq!(r.jobs, w.jobs.len() as u64, "{name} #{i}");
                        if !strict && !r.format.is_empty() {
                            assert_eq!(
                                r.records,
                                r.jobs + r.skipped_total,
                                "{name} #{i} {format:?}"
                            );
                            assert_eq!(r.malformed, r.malformed_by_reason.values().sum::<u64>());
                        }
                    }
                }
            }
        }
    }
}
