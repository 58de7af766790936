//! Hostile and careless inputs against the limits (`gridscope help limits`): every one gets a
//! clear error naming the limit and its flag, or a counted, reported decision — never an
//! abort, a hang or a silently altered result. The big inputs are generated here, small.

use std::io::Write;
use std::path::PathBuf;
use std::process::Command;

use gridscope::limits::Limits;
use gridscope::workload::{read_swf, SwfError, SwfOptions};

use crate::cli::{gridscope, stderr};
use crate::root;

const JOB: &[u8] = b"1 0 0 100 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1\n";

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gridscope-limits-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn gzip(text: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(text).unwrap();
    e.finish().unwrap()
}

fn limited(f: impl FnOnce(&mut Limits)) -> SwfOptions {
    let mut limits = Limits::default();
    f(&mut limits);
    SwfOptions {
        strict: false,
        limits,
    }
}

#[test]
fn a_gzip_bomb_of_job_lines_stops_at_the_job_limit() {
    // 200,000 job lines in ~28 KB of gzip; the limit at 50,000 records.
    let bomb = gzip(&JOB.repeat(200_000));
    assert!(bomb.len() < 40_000, "{}", bomb.len());
    let e = read_swf("bomb.swf.gz", &bomb, &limited(|l| l.jobs = 50_000)).unwrap_err();
    let SwfError::Limit(ref x) = e else {
        panic!("{e}")
    };
    assert_eq!(x.max, 50_000);
    let m = e.to_string();
    assert!(
        m.contains("bomb.swf.gz") && m.contains("--max-jobs") && m.contains("50,000"),
        "{m}"
    );
    // Within the limit it reads every job.
    let w = read_swf("bomb.swf.gz", &bomb, &limited(|l| l.jobs = 200_000)).unwrap();
    assert_eq!(w.jobs.len(), 200_000);
}

#[test]
fn inflated_bytes_and_line_length_are_bounded() {
    // Blank lines inflate without a single job: only the inflated-size limit stops them.
    let blanks = gzip(&vec![b'\n'; 3 << 20]);
    let e = read_swf(
        "blank.gz",
        &blanks,
        &limited(|l| l.inflated_bytes = 1 << 20),
    )
    .unwrap_err();
    assert!(e.to_string().contains("--max-inflated-bytes"), "{e}");
    // One endless line: malformed (named, counted), never buffered, in gzip and plain text.
    let mut long = vec![b'7'; 5000];
    long.push(b'\n');
    long.extend_from_slice(JOB);
    for (name, bytes) in [("long.gz", gzip(&long)), ("long.swf", long.clone())] {
        let w = read_swf(name, &bytes, &limited(|l| l.line_bytes = 1000)).unwrap();
        assert_eq!(w.report.malformed, 1, "{name}");
        assert_eq!(w.jobs.len(), 1, "{name}");
        let ex = &w.report.malformed_examples[0];
        assert!(
            ex.starts_with(&format!("{name}:1: line longer than 1000")),
            "{ex}"
        );
    }
}

#[test]
fn a_huge_bad_field_is_quoted_short() {
    let mut line = b"1 0 0 ".to_vec();
    line.extend(std::iter::repeat_n(b'x', 100_000));
    line.extend_from_slice(b" 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1\n");
    let w = read_swf("f.swf", &line, &SwfOptions::default()).unwrap();
    let ex = &w.report.malformed_examples[0];
    assert!(ex.len() < 120, "{} bytes quoted", ex.len());
    assert!(ex.contains("100000 bytes"), "{ex}");
    // The verdict says what is wrong with the lines, not that they lack fields.
    assert!(
        w.report.warnings[0].contains("have the 18 SWF fields"),
        "{:?}",
        w.report.warnings
    );
}

#[test]
fn the_cli_names_each_limit_and_its_flag() {
    // /dev/zero never ends: the file limit stops the read.
    let o = gridscope(&["lint", "/dev/zero", "--max-file-bytes", "1M"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("--max-file-bytes"), "{}", stderr(&o));

    let dir = scratch("cli");
    let bomb = dir.join("bomb.swf.gz");
    std::fs::write(&bomb, gzip(&JOB.repeat(30_000))).unwrap();
    let b = bomb.to_str().unwrap();
    let o = gridscope(&["simulate", b, "--policy", "easy", "--max-jobs", "10K"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("more than 10,240 job records"),
        "{}",
        stderr(&o)
    );
    let o = gridscope(&["lint", b, "--max-jobs", "30000"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // A bad limit value is a usage error naming the flag.
    let o = gridscope(&["lint", b, "--max-jobs", "0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--max-jobs"), "{}", stderr(&o));
    let o = gridscope(&["help", "limits"]);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    for flag in [
        "--max-file-bytes",
        "--max-inflated-bytes",
        "--max-line-bytes",
        "--max-jobs",
        "--max-sites",
        "--max-sweep-jobs",
    ] {
        assert!(text.contains(flag), "{flag} missing from help limits");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A scenario of `n` four-CPU sites whose jobs all start at site 0.
pub(crate) fn many_sites(n: usize) -> String {
    let sites: Vec<String> = (0..n)
        .map(|i| format!(r#"{{"name":"s{i}","nodes":4,"cpus_per_node":1}}"#))
        .collect();
    format!(
        r#"{{"version":1,"name":"many","seed":1,
        "platform":{{"kind":"sites","name":"wide","sites":[{}]}},
        "workload":{{"kind":"swf","file":"w.swf"}},
        "algorithms":[{{"local":"fcfs","grid":"sender"}}]}}"#,
        sites.join(",")
    )
}

#[test]
fn platforms_are_held_to_the_site_limit_and_transfers_stay_sparse() {
    let dir = scratch("sites");
    std::fs::write(dir.join("w.swf"), JOB.repeat(20)).unwrap();
    std::fs::write(dir.join("big.json"), many_sites(5000)).unwrap();
    let o = gridscope(&["run", dir.join("big.json").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("platform 'wide': more than 4,096 sites") && e.contains("--max-sites"),
        "{e}"
    );

    // 100 sites: past the dense matrix's 64, the counts come sparse.
    std::fs::write(dir.join("mid.json"), many_sites(100)).unwrap();
    let o = gridscope(&["run", dir.join("mid.json").to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let m = &v["runs"][0]["metrics"];
    assert_eq!(m["transfers"], serde_json::json!([]));
    let counts = m["transfer_counts"].as_array().unwrap();
    let total: u64 = counts.iter().map(|c| c[2].as_u64().unwrap()).sum();
    assert_eq!(total, 20, "{counts:?}");
    assert!(
        counts.iter().all(|c| c[0] == 0),
        "every job's home is site 0"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn scenario_files_stay_in_their_folder() {
    let dir = scratch("confine");
    let inner = dir.join("inner");
    std::fs::create_dir_all(&inner).unwrap();
    std::fs::write(dir.join("outside.swf"), JOB).unwrap();
    let scn = r#"{"version":1,"name":"t","seed":1,
        "platform":{"kind":"sites","name":"p","sites":[{"name":"a","nodes":4,"cpus_per_node":1}]},
        "workload":{"kind":"swf","file":"../outside.swf"},
        "algorithms":[{"local":"easy"}]}"#;
    let s = inner.join("s.json");
    std::fs::write(&s, scn).unwrap();
    let o = gridscope(&["run", s.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("outside its own folder") && e.contains("--allow-any-path"),
        "{e}"
    );
    let o = gridscope(&["run", s.to_str().unwrap(), "--allow-any-path"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // An absolute path is outside too.
    let abs = scn.replace("../outside.swf", "/etc/passwd");
    std::fs::write(&s, abs).unwrap();
    let o = gridscope(&["run", s.to_str().unwrap()]);
    assert!(
        stderr(&o).contains("outside its own folder"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn numbers_beyond_double_precision_are_refused_not_printed() {
    let o = gridscope(&["allocate", "--rates", "1,1", "--lambda", "1e-320", "--json"]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    assert!(stderr(&o).contains("double precision"), "{}", stderr(&o));
    let o = gridscope(&[
        "run",
        "--preset",
        "sf-size",
        "--seeds",
        "2",
        "--batches",
        "300",
        "--rates",
        "1e300,1e300",
    ]);
    assert_eq!(o.status.code(), Some(1));
    // A sweep above the sweep limit is refused with the flag that raises it.
    let o = gridscope(&["run", "--preset", "sf-cv", "--max-sweep-jobs", "1000"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("--max-sweep-jobs"), "{}", stderr(&o));
}

#[test]
fn table_columns_never_merge() {
    let dir = scratch("table");
    let line = b"1 0 0 999999999999 4 -1 -1 4 999999999999 -1 1 1 1 -1 -1 -1 -1 -1\n\
                 2 1 0 999999999999 4 -1 -1 4 999999999999 -1 1 1 1 -1 -1 -1 -1 -1\n";
    std::fs::write(dir.join("huge.swf"), line).unwrap();
    let o = gridscope(&[
        "simulate",
        dir.join("huge.swf").to_str().unwrap(),
        "--policy",
        "fcfs,easy",
        "--procs",
        "4",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    let rows: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("fcfs") || l.starts_with("easy"))
        .collect();
    assert_eq!(rows.len(), 2, "{out}");
    for r in rows {
        assert_eq!(r.split_whitespace().count(), 11, "columns merged: {r}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Every piece of `pattern` (separated by " … ") occurs in `text`, in that order.
fn says_in_order(text: &str, pattern: &str) -> bool {
    let mut rest = text;
    for piece in pattern.split(" … ") {
        match rest.find(piece) {
            Some(i) => rest = &rest[i + piece.len()..],
            None => return false,
        }
    }
    true
}

#[test]
fn bad_input_corpus_gets_its_verdicts() {
    let dir = root().join("tests/bad_inputs");
    let table = std::fs::read_to_string(dir.join("VERDICTS.tsv")).unwrap();
    let mut rows = 0;
    for line in table
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let cols: Vec<&str> = line.split('\t').collect();
        let [file, args, exit, pattern] = cols[..] else {
            panic!("VERDICTS.tsv: bad row {line:?}")
        };
        let args: Vec<&str> = args
            .split(' ')
            .map(|a| if a == "FILE" { file } else { a })
            .collect();
        let o = Command::new(env!("CARGO_BIN_EXE_gridscope"))
            .args(&args)
            .current_dir(&dir)
            .output()
            .unwrap();
        let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
        assert_eq!(
            o.status.code(),
            exit.parse().ok(),
            "{file} {args:?}:\n{text}"
        );
        assert!(
            says_in_order(&text, pattern),
            "{file} {args:?}: '{pattern}' not in\n{text}"
        );
        rows += 1;
    }
    // Every file of the corpus has at least one verdict.
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name != "VERDICTS.tsv" && name != "README.md" {
            assert!(
                table.contains(&format!("{name}\t")),
                "{name} has no verdict"
            );
        }
    }
    assert!(rows >= 25, "{rows} verdicts");
}

#[test]
fn deeply_nested_json_is_an_error_not_a_stack_overflow() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert!(gridscope::scenario::Scenario::from_json(&deep).is_err());
    let dir = scratch("deep");
    std::fs::write(dir.join("deep.json"), &deep).unwrap();
    let o = gridscope(&["run", dir.join("deep.json").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).ok();
}
