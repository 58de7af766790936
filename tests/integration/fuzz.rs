//! A mutational fuzzer, without dependencies (cargo-fuzz needs a nightly toolchain and
//! libFuzzer, which these machines cannot install): seeded mutations of a seed corpus for
//! each target — the SWF reader (and a simulation of what it accepted), the scenario JSON
//! (and its run), the share-link decoder, the allocation inputs, merged tables and
//! manifests, the Python entry points, and Slurm's files (and their run). Each target runs for a
//! time budget, `GRIDSCOPE_FUZZ_SECONDS` (default 2 s; check.sh gives it more), from a seed
//! that changes every run (`GRIDSCOPE_FUZZ_SEED` replays one) so CI keeps exploring.
//!
//! A panic, an invariant violation or a broken accounting is a crash: the input is written
//! to `target/fuzz-crashes/<target>-<n>` and the test fails naming it. Fixed crashes go into
//! `tests/fuzz_corpus/<target>/`, which every run replays first.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use gridscope::allocation::fractions::{owa_batch, predicted_response, weighted};
use gridscope::engine::{InvariantViolation, SimError};
use gridscope::rng::SimRng;
use gridscope::scenario::link::{pack, unpack};
use gridscope::scenario::{
    load_workload, run_loaded, AlgorithmSpec, PlatformSpec, Scenario, ScenarioError, WorkloadSpec,
    SCENARIO_VERSION,
};
use gridscope::workload::{read_swf, SwfOptions};

use crate::root;

fn budget() -> Duration {
    let s = std::env::var("GRIDSCOPE_FUZZ_SECONDS")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or(2.0);
    Duration::from_secs_f64(s)
}

fn seed() -> u64 {
    std::env::var("GRIDSCOPE_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        })
}

/// Bytes that break parsers: extremes, separators, encodings.
const TOKENS: &[&[u8]] = &[
    b"-1",
    b"0",
    b"1e309",
    b"-1e309",
    b"NaN",
    b"inf",
    b"99999999999999999999",
    b"9223372036854775807",
    b"-9223372036854775808",
    b"4294967296",
    b"0.0005",
    b"-0.0005",
    b"1e-320",
    b"\r",
    b"\n",
    b";",
    b"\0",
    b"\xEF\xBB\xBF",
    b" ",
    b"\t",
    b"\xff\xfe",
    b"; MaxProcs: 0\n",
    b"; UnixStartTime: -9999999999999\n",
    b"\"",
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b"null",
    b"true",
    b"\"\"",
    b"1e18",
    b"-5",
];

/// Uniform in 0..n (n ≥ 1).
fn below(rng: &mut SimRng, n: u64) -> u64 {
    rng.range_u64(0, n.max(1) - 1)
}

fn mutate(rng: &mut SimRng, input: &[u8], others: &[Vec<u8>]) -> Vec<u8> {
    let mut v = input.to_vec();
    let rounds = 1 + below(rng, 4);
    for _ in 0..rounds {
        let len = v.len() as u64;
        let at = if len == 0 {
            0
        } else {
            below(rng, len) as usize
        };
        match below(rng, 8) {
            0 if !v.is_empty() => v[at] ^= 1 << below(rng, 8),
            1 if !v.is_empty() => {
                let end = (at + rng.range_u64(1, 64) as usize).min(v.len());
                v.drain(at..end);
            }
            2 if !v.is_empty() => {
                let end = (at + rng.range_u64(1, 256) as usize).min(v.len());
                let piece = v[at..end].to_vec();
                let times = rng.range_u64(1, 20) as usize;
                for _ in 0..times {
                    v.splice(at..at, piece.iter().copied());
                }
            }
            3 | 4 => {
                let t = TOKENS[below(rng, TOKENS.len() as u64) as usize];
                // Replace a whole token (run of non-space bytes) or insert.
                let end = v[at..]
                    .iter()
                    .position(|b| b.is_ascii_whitespace())
                    .map_or(v.len(), |p| at + p);
                if below(rng, 2) == 0 {
                    v.splice(at..end, t.iter().copied());
                } else {
                    v.splice(at..at, t.iter().copied());
                }
            }
            5 if !others.is_empty() => {
                let o = &others[below(rng, others.len() as u64) as usize];
                if !o.is_empty() {
                    let from = below(rng, o.len() as u64) as usize;
                    let end = (from + rng.range_u64(1, 512) as usize).min(o.len());
                    v.splice(at..at, o[from..end].iter().copied());
                }
            }
            6 => v.truncate(at),
            _ => {
                if !v.is_empty() {
                    v[at] = below(rng, 256) as u8;
                }
            }
        }
    }
    v
}

/// A structure-aware mutation of JSON: a few random nodes changed to values that break
/// assumptions (extreme numbers, other names, long strings, repeated or missing elements,
/// unknown keys); text that is not JSON gets byte mutations.
fn mutate_json(rng: &mut SimRng, input: &[u8], others: &[Vec<u8>]) -> Vec<u8> {
    let Ok(mut v) = serde_json::from_slice::<serde_json::Value>(input) else {
        return mutate(rng, input, others);
    };
    for _ in 0..1 + below(rng, 3) {
        mutate_node(rng, &mut v, 0);
    }
    let text = serde_json::to_vec(&v).unwrap_or_default();
    // Now and then a byte-level change on top.
    if below(rng, 8) == 0 {
        mutate(rng, &text, others)
    } else {
        text
    }
}

fn mutate_node(rng: &mut SimRng, v: &mut serde_json::Value, depth: u32) {
    use serde_json::{json, Value};
    const NUMBERS: &[f64] = &[
        0.0,
        -1.0,
        1.0,
        3.0,
        0.5,
        1e18,
        -1e18,
        1e308,
        1e-320,
        4294967296.0,
        65536.0,
        1e6,
    ];
    const STRINGS: &[&str] = &[
        "",
        "x",
        "easy",
        "conservative",
        "fcfs",
        "sjf",
        "firstfit",
        "sender",
        "receiver",
        "symmetric",
        "central",
        "ideal",
        "groups_random",
        "groups_mna",
        "demo",
        "sob-6",
        "sob-3",
        "ses-lattice",
        "kkor",
        "../w.swf",
        "M1",
        "M6",
        "swf",
        "ses_poisson",
        "hyper_erlang",
        "sites",
        "preset",
        "from_trace",
    ];
    let descend = depth < 6 && below(rng, 3) != 0;
    match v {
        Value::Object(m) if descend && !m.is_empty() => {
            let i = below(rng, m.len() as u64) as usize;
            if let Some((_, child)) = m.iter_mut().nth(i) {
                mutate_node(rng, child, depth + 1);
            }
        }
        Value::Array(a) if descend && !a.is_empty() => {
            let i = below(rng, a.len() as u64) as usize;
            mutate_node(rng, &mut a[i], depth + 1);
        }
        Value::Object(m) => match below(rng, 3) {
            0 if !m.is_empty() => {
                let k = m
                    .keys()
                    .nth(below(rng, m.len() as u64) as usize)
                    .cloned()
                    .unwrap_or_default();
                m.remove(&k);
            }
            1 => {
                m.insert("optoins".into(), json!(1));
            }
            _ => {}
        },
        Value::Array(a) => match below(rng, 3) {
            0 if !a.is_empty() => {
                a.remove(below(rng, a.len() as u64) as usize);
            }
            1 if !a.is_empty() && a.len() < 64 => {
                let e = a[below(rng, a.len() as u64) as usize].clone();
                for _ in 0..1 + below(rng, 8) {
                    a.push(e.clone());
                }
            }
            _ => a.clear(),
        },
        Value::Number(_) => {
            let x = NUMBERS[below(rng, NUMBERS.len() as u64) as usize];
            *v = if x.fract() == 0.0 && x.abs() < 1e15 {
                json!(x as i64)
            } else {
                json!(x)
            };
        }
        Value::String(_) => {
            *v = if below(rng, 10) == 0 {
                json!("y".repeat(10_000))
            } else {
                json!(STRINGS[below(rng, STRINGS.len() as u64) as usize])
            };
        }
        Value::Bool(b) => *b = !*b,
        Value::Null => *v = json!(1),
    }
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let _ = e.write_all(bytes);
    e.finish().unwrap_or_default()
}

/// The committed regressions of a target.
fn corpus(target: &str) -> Vec<Vec<u8>> {
    let dir = root().join("tests/fuzz_corpus").join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.sort();
    files
        .iter()
        .filter(|p| p.extension().is_none_or(|e| e != "md"))
        .filter_map(|p| std::fs::read(p).ok())
        .collect()
}

/// Runs `check` on the corpus, then on mutations of `seeds` until the budget is spent.
/// `check` returns `Err(why)` for a crash that is not a panic.
fn fuzz(target: &str, seeds: Vec<Vec<u8>>, check: &dyn Fn(&[u8]) -> Result<(), String>) -> u64 {
    fuzz_with(
        target,
        seeds,
        &|rng, base, seeds| mutate(rng, base, seeds),
        check,
    )
}

type Mutator = dyn Fn(&mut SimRng, &[u8], &[Vec<u8>]) -> Vec<u8>;

fn fuzz_with(
    target: &str,
    seeds: Vec<Vec<u8>>,
    mutator: &Mutator,
    check: &dyn Fn(&[u8]) -> Result<(), String>,
) -> u64 {
    let seed = seed();
    // Printed first, so a run that hangs or is killed can still be replayed.
    eprintln!("fuzz {target}: GRIDSCOPE_FUZZ_SEED={seed}");
    let mut rng = SimRng::new(seed);
    let replay = corpus(target);
    let deadline = Instant::now() + budget();
    let watchdog = Watchdog::start(target, seed);
    let mut n = 0u64;
    let mut inputs = replay
        .iter()
        .cloned()
        .chain(seeds.iter().cloned())
        .collect::<Vec<_>>()
        .into_iter();
    loop {
        let input = match inputs.next() {
            Some(i) => i,
            None if Instant::now() >= deadline => break,
            None => {
                let base = &seeds[below(&mut rng, seeds.len() as u64) as usize];
                mutator(&mut rng, base, &seeds)
            }
        };
        n += 1;
        watchdog.now_checking(n, &input);
        let outcome = catch_unwind(AssertUnwindSafe(|| check(&input)));
        let why = match outcome {
            Ok(Ok(())) => continue,
            Ok(Err(why)) => why,
            Err(p) => format!(
                "panic: {}",
                p.downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default()
            ),
        };
        let dir = root().join("target/fuzz-crashes");
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join(format!("{target}-{n}"));
        let _ = std::fs::write(&path, &input);
        panic!("fuzz target {target} crashed on input {} ({why}); replay with GRIDSCOPE_FUZZ_SEED={seed}, and add it to tests/fuzz_corpus/{target}/", path.display());
    }
    eprintln!(
        "fuzz {target}: {n} inputs in {:?} (GRIDSCOPE_FUZZ_SEED={seed})",
        budget()
    );
    n
}

/// A hang is a crash too: an input checked for longer than [`HANG`] is written to
/// `target/fuzz-crashes/{target}-hang` and the process stops with the seed on stderr — not a
/// CI that runs until its time limit with the seed in captured output (a Lublin load factor
/// of ~1e-300 did that once).
struct Watchdog {
    current: std::sync::Arc<std::sync::Mutex<(u64, Instant, Vec<u8>)>>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

const HANG: Duration = Duration::from_secs(120);

impl Watchdog {
    fn start(target: &str, seed: u64) -> Watchdog {
        use std::sync::atomic::Ordering;
        let current = std::sync::Arc::new(std::sync::Mutex::new((0, Instant::now(), Vec::new())));
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (cur, halt, target) = (current.clone(), stop.clone(), target.to_string());
        std::thread::spawn(move || {
            while !halt.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(500));
                let Ok(c) = cur.lock() else { return };
                if c.1.elapsed() > HANG {
                    use std::io::Write;
                    let dir = root().join("target/fuzz-crashes");
                    let _ = std::fs::create_dir_all(&dir);
                    let path = dir.join(format!("{target}-hang"));
                    let _ = std::fs::write(&path, &c.2);
                    // Straight to the process's stderr: the test harness captures eprintln!.
                    let _ = writeln!(
                        std::io::stderr(),
                        "fuzz target {target} hung on input {} ({} s on input #{}); replay with GRIDSCOPE_FUZZ_SEED={seed}, and add it to tests/fuzz_corpus/{target}/",
                        path.display(),
                        HANG.as_secs(),
                        c.0
                    );
                    std::process::exit(101);
                }
            }
        });
        Watchdog { current, stop }
    }

    fn now_checking(&self, n: u64, input: &[u8]) {
        if let Ok(mut c) = self.current.lock() {
            *c = (n, Instant::now(), input.to_vec());
        }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// The first `lines` lines of a shared trace (the whole fixtures are small). A missing
/// trace fails the test (`crate::trace`): the seeds would silently shrink otherwise.
fn head(path: &Path, lines: usize) -> Option<Vec<u8>> {
    let bytes = std::fs::read(path)
        .unwrap_or_else(|e| panic!("{}: {e} (the fuzz seeds need it)", path.display()));
    let w = if bytes.starts_with(&[0x1f, 0x8b]) {
        use std::io::Read;
        let mut s = Vec::new();
        flate2::read::MultiGzDecoder::new(&bytes[..])
            .take(1 << 20)
            .read_to_end(&mut s)
            .ok()?;
        s
    } else {
        bytes
    };
    let end = w
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .nth(lines)
        .map_or(w.len(), |(i, _)| i + 1);
    Some(w[..end].to_vec())
}

fn swf_seeds() -> Vec<Vec<u8>> {
    let mut seeds: Vec<Vec<u8>> = [
        "backfill",
        "early_end",
        "overrun",
        "same_instant",
        "skips",
        "too_wide",
    ]
    .iter()
    .filter_map(|f| std::fs::read(root().join(format!("tests/fixtures/{f}.swf"))).ok())
    .collect();
    for t in [
        "KTH-SP2-1996-2.1-cln.swf.gz",
        "alea-wagap-2013.swf.gz",
        "LCG.swf.gz",
        "DAS2-fs1-2003-1.swf.gz",
    ] {
        if let Some(h) = head(&crate::trace(t), 60) {
            seeds.push(h);
        }
    }
    seeds
}

/// A simulation's error is fine unless it is an invariant violation (a bug).
fn not_a_bug(r: Result<gridscope::scenario::Report, ScenarioError>) -> Result<(), String> {
    match r {
        Err(ScenarioError::Sim(SimError::Invariant(InvariantViolation(m)))) => {
            Err(format!("invariant violated: {m}"))
        }
        _ => Ok(()),
    }
}

fn swf_scenario(file: &str) -> Scenario {
    Scenario {
        failures: None,
        carbon: None,
        version: SCENARIO_VERSION,
        name: "fuzz".into(),
        seed: 1,
        platform: PlatformSpec::FromTrace { procs: None },
        workload: WorkloadSpec::Swf {
            file: file.into(),
            strict: false,
            format: Default::default(),
            utc_offset_min: 0,
        },
        algorithms: gridscope::policy::local::LocalPolicyKind::ALL
            .iter()
            .map(|&k| AlgorithmSpec::local(k))
            .collect(),
        options: Default::default(),
    }
}

#[test]
fn fuzz_the_swf_reader_and_what_it_accepts() {
    let check = |input: &[u8]| -> Result<(), String> {
        // Every fourth input goes in gzip, every eighth gzip cut short.
        let bytes = match input.len() % 8 {
            0 => {
                let g = gzip(input);
                g[..g.len() * 2 / 3].to_vec()
            }
            4 => gzip(input),
            _ => input.to_vec(),
        };
        for strict in [false, true] {
            let opts = SwfOptions {
                strict,
                ..Default::default()
            };
            let Ok(w) = read_swf("fuzz.swf", &bytes, &opts) else {
                continue;
            };
            let r = &w.report;
            if r.jobs + r.skipped_total != r.records {
                return Err(format!(
                    "{} jobs + {} skipped != {} records",
                    r.jobs, r.skipped_total, r.records
                ));
            }
            if w.jobs.windows(2).any(|p| p[0].submit > p[1].submit) {
                return Err("jobs not in submit order".into());
            }
            if !strict && w.jobs.len() <= 300 {
                let s = swf_scenario("fuzz.swf");
                not_a_bug(run_loaded(&s, w, &mut |_, _, _| true))?;
            }
        }
        Ok(())
    };
    fuzz("swf", swf_seeds(), &check);
}

fn scenario_seeds() -> Vec<Vec<u8>> {
    let mut seeds = vec![serde_json::to_vec(&Scenario::demo()).unwrap()];
    for (name, _) in gridscope::scenario::SCENARIO_PRESETS {
        if let Some(s) = Scenario::preset(name) {
            seeds.push(serde_json::to_vec(&s).unwrap());
        }
    }
    seeds.push(
        br#"{"version":1,"name":"t","seed":3,
        "platform":{"kind":"sites","name":"p","sites":[{"name":"a","nodes":10,"cpus_per_node":1},{"name":"b","nodes":4,"cpus_per_node":2,"speed":2.0}]},
        "workload":{"kind":"swf","file":"w.swf"},
        "algorithms":[{"local":"easy","grid":"sender"},{"label":"cbf","local":"conservative","grid":"receiver"},{"local":"fcfs","grid":"central"},{"local":"sjf","grid":"ideal"}]}"#
            .to_vec(),
    );
    seeds
}

#[test]
fn fuzz_scenario_json_and_its_run() {
    let trace = std::fs::read(root().join("tests/fixtures/backfill.swf")).unwrap();
    let check = |input: &[u8]| -> Result<(), String> {
        let Ok(text) = std::str::from_utf8(input) else {
            return Ok(());
        };
        let Ok(s) = Scenario::from_json(text) else {
            return Ok(());
        };
        // Keep each run small: generated workloads of a few thousand job-runs at most.
        if s.expected_job_runs().is_some_and(|c| c > 20_000.0) {
            return Ok(());
        }
        let Ok(w) = load_workload(&s, &Default::default(), &mut |_| Ok(trace.clone())) else {
            return Ok(());
        };
        if w.jobs.len() > 2000 {
            return Ok(());
        }
        not_a_bug(run_loaded(&s, w, &mut |_, _, _| true))
    };
    fuzz_with("scenario", scenario_seeds(), &mutate_json, &check);
}

#[test]
fn fuzz_share_links() {
    let seeds: Vec<Vec<u8>> = scenario_seeds()
        .iter()
        .map(|j| {
            pack(
                "s1=",
                &serde_json::from_slice::<serde_json::Value>(j).unwrap(),
            )
            .unwrap()
            .into_bytes()
        })
        .collect();
    let check = |input: &[u8]| -> Result<(), String> {
        let Ok(text) = std::str::from_utf8(input) else {
            return Ok(());
        };
        match unpack::<serde_json::Value>("s1=", text, "scenario") {
            Ok(Some(v))
                if serde_json::to_vec(&v).map_or(0, |j| j.len()) as u64
                    > gridscope::scenario::link::MAX_JSON * 2 =>
            {
                Err("decoded past the size limit".into())
            }
            _ => {
                let _ = unpack::<Scenario>("s1=", text, "scenario");
                Ok(())
            }
        }
    };
    let mutator = |rng: &mut SimRng, base: &[u8], seeds: &[Vec<u8>]| -> Vec<u8> {
        if below(rng, 2) == 0 {
            return mutate(rng, base, seeds);
        }
        // A well-formed link around a mutated scenario.
        let text = std::str::from_utf8(base).unwrap_or_default();
        match unpack::<serde_json::Value>("s1=", text, "scenario") {
            Ok(Some(v)) => {
                let json = mutate_json(rng, &serde_json::to_vec(&v).unwrap_or_default(), &[]);
                let v: serde_json::Value = serde_json::from_slice(&json).unwrap_or_default();
                // A JSON value always serializes: pack cannot fail on it.
                pack("s1=", &v).unwrap_or_default().into_bytes()
            }
            _ => mutate(rng, base, seeds),
        }
    };
    fuzz_with("share", seeds, &mutator, &check);
}

#[test]
fn fuzz_allocation_inputs() {
    // Input: rates, λ and k as text "r1,r2,..;λ;k".
    let seeds: Vec<Vec<u8>> = [
        "1,1,1,16;0.1;10",
        "2,2,2,2;0.5;1",
        "1;0.5;1",
        "1,1,1,1,1,1,1,1,1,20;0.1;10",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    let check = |input: &[u8]| -> Result<(), String> {
        let text = String::from_utf8_lossy(input);
        let parts: Vec<&str> = text.split(';').collect();
        let [rates, lambda, k] = parts[..] else {
            return Ok(());
        };
        let rates: Vec<f64> = rates
            .split(',')
            .filter_map(|r| r.trim().parse().ok())
            .take(1000)
            .collect();
        let (Ok(lambda), Ok(k)) = (lambda.trim().parse::<f64>(), k.trim().parse::<u32>()) else {
            return Ok(());
        };
        if let Ok(a) = owa_batch(&rates, lambda, k) {
            let sum: f64 = a.iter().sum();
            if a.iter().any(|x| !x.is_finite() || *x < 0.0) || (sum - 1.0).abs() > 1e-6 {
                return Err(format!("owa fractions {a:?}"));
            }
            if let Some(t) = predicted_response(&rates, &a, lambda, k) {
                if !t.is_finite() || t < 0.0 {
                    return Err(format!("predicted response {t}"));
                }
            }
        }
        if !rates.is_empty() {
            let _ = weighted(&rates);
        }
        Ok(())
    };
    fuzz("allocation", seeds, &check);
}

/// Merged tables dropped on the page and manifests from `#m1=` links: whatever the bytes,
/// an answer (a table, lines, an overview or an error), never a panic.
#[test]
fn fuzz_merged_tables_and_manifests() {
    use gridscope::scenario::manifest::{overview, Manifest};
    use gridscope::scenario::merged::parse;
    let seeds: Vec<Vec<u8>> = [
        "order,jobs,label,metric,n,median,ci_low,ci_high,coverage\ngridscope,300,fcfs,avg_wait_s,3,10,5,20,0.75\npyss,\"3,0\",easy,avg_wait_s,3,1,0.5,2,0.75\n",
        r#"{"name": "x", "axes": [{"name": "jobs", "path": "workload.jobs", "values": 2}, {"name": "seed", "path": "seed", "values": 3}], "seed_axis": "seed", "points": [{"point": ["300"], "label": "fcfs", "metric": "avg_wait_s", "n": 3, "median": 1.5, "ci_low": 1, "ci_high": 2, "coverage": 0.75}]}"#,
        r#"{"name": "m", "base": {"preset": "demo"}, "axes": [{"path": "seed", "range": {"from": 1, "to": 3}}, {"name": "o", "path": "options.event_order", "values": ["pyss", "cqsim"]}], "zip": [], "seed_axis": "seed"}"#,
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    let check = |input: &[u8]| -> Result<(), String> {
        if let Ok(t) = parse("f", input) {
            for m in t.metrics() {
                let l = t.lines(&m, t.default_x_axis());
                if l.lines.iter().any(|s| s.median.len() != l.x.len()) {
                    return Err("a line without one value per x".into());
                }
            }
        }
        if let Ok(m) = Manifest::from_json(std::str::from_utf8(input).unwrap_or_default()) {
            let _ = overview(&m, 1_000, 1 << 20);
        }
        Ok(())
    };
    fuzz_with("merged", seeds, &mutate_json, &check);
}

/// Sweep manifests as `gridscope sweep plan` reads them (issue #30): `Manifest::from_json`,
/// the base scenario through a reader that hands back a small scenario for any file name,
/// and `expand` with a glob that lists two traces. Every case must come back as a
/// scenario whose JSON reads back (what a shard runs) and the limits check must answer.
#[test]
fn fuzz_sweep_manifests() {
    use gridscope::scenario::manifest::{base_scenario, expand, Manifest};
    let base_file = serde_json::to_string(&Scenario::demo()).unwrap();
    let seeds: Vec<Vec<u8>> = [
        r#"{"name": "fixtures", "base": {"scenario": {"platform": {"kind": "from_trace"}, "workload": {"kind": "swf", "file": ""}, "algorithms": [{"local": "easy"}]}}, "axes": [{"name": "policy", "path": "algorithms[0].local", "values": ["fcfs", "easy", "conservative"]}, {"name": "trace", "path": "workload.file", "glob": "traces/*.swf"}, {"path": "seed", "range": {"from": 1, "to": 4}}]}"#,
        r#"{"name": "p x t x s", "base": {"file": "base.json"}, "axes": [{"name": "policy", "path": "algorithms[0].local", "values": ["fcfs", "easy", "conservative"]}, {"name": "cpus", "path": "platform.procs", "values": [64, 128, 256]}, {"path": "seed", "range": {"from": 1, "to": 20, "step": 3}}], "zip": [], "seed_axis": "seed"}"#,
        r#"{"name": "m", "base": {"preset": "demo"}, "axes": [{"path": "seed", "range": {"from": 1, "to": 3}}, {"name": "o", "path": "options.event_order", "values": ["pyss", "cqsim"]}, {"name": "e", "path": "options.estimates", "values": ["exact", "trace"]}], "zip": [["o", "e"]], "seed_axis": "seed"}"#,
        r#"{"base": {"file": "dir/base.json"}, "traces": "t", "axes": [{"name": "a", "path": "algorithms", "values": [[{"local": "sjf"}], [{"local": "firstfit", "grid": "sender"}]]}, {"name": "n", "path": "platform.sites[0].nodes", "values": [1, 2]}, {"path": "workload.jobs", "range": {"from": 10, "to": 30, "step": 10}}]}"#,
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    let check = |input: &[u8]| -> Result<(), String> {
        let Ok(m) = Manifest::from_json(std::str::from_utf8(input).unwrap_or_default()) else {
            return Ok(());
        };
        let Ok(base) = base_scenario(&m, &mut |_| Ok(base_file.clone())) else {
            return Ok(());
        };
        let mut glob = |g: &str| -> Result<Vec<String>, String> {
            if g.contains("none") {
                Ok(Vec::new())
            } else {
                Ok(vec!["traces/a.swf".into(), "traces/b.swf.gz".into()])
            }
        };
        let Ok(x) = expand(&m, &base, 500, &mut glob) else {
            return Ok(());
        };
        if x.cases.len() > 500 {
            return Err(format!("{} cases past the bound of 500", x.cases.len()));
        }
        for case in &x.cases {
            if case.point.len() != x.axes.len() {
                return Err(format!(
                    "case {} has {} values for {} axes",
                    case.index,
                    case.point.len(),
                    x.axes.len()
                ));
            }
            let json = case.scenario.to_json();
            if let Err(e) = Scenario::from_json(&json) {
                return Err(format!(
                    "case {} does not read back: {e}\n{json}",
                    case.index
                ));
            }
            let _ = case.scenario.check_limits(&Default::default());
        }
        Ok(())
    };
    fuzz_with("manifest", seeds, &mutate_json, &check);
}

/// What the Python package calls in the crate (python/src: `normalize_scenario`,
/// `decode_share_link`, `lublin`, `read_swf` then `fit_and_synthesize`, `run_scenario`),
/// without the interpreter: the first byte picks the entry point, the rest is its text.
/// `normalize_scenario` must be idempotent (its output is a current-version scenario).
#[test]
fn fuzz_python_entry_points() {
    use gridscope::limits::{Limit, Limits};
    use gridscope::scenario::run_loaded_on;
    use gridscope::workload::hyper_erlang::{fit_classes_with, synthesize, FitMethod};
    use gridscope::workload::Lublin;
    let trace = std::fs::read(root().join("tests/fixtures/backfill.swf")).unwrap();
    let mut seeds: Vec<Vec<u8>> = scenario_seeds()
        .into_iter()
        .map(|s| [b"n".to_vec(), s].concat())
        .collect();
    let link = format!(
        "https://x/#{}",
        pack(
            "s1=",
            &serde_json::json!({"scenario": Scenario::demo(), "files": [{"name": "a.swf"}]})
        )
        .unwrap()
    );
    seeds.push([b"l", link.as_bytes()].concat());
    seeds.push(br#"L{"jobs": 300, "nodes": 64, "job_types": true, "load_factor": 1.5, "estimate_factor": 2.0, "start_hour": 5}"#.to_vec());
    seeds.push(br#"L{"jobs": 50}"#.to_vec());
    seeds.push([b"w".to_vec(), trace.clone()].concat());
    seeds.push([b"m".to_vec(), trace.clone()].concat());
    let check = |input: &[u8]| -> Result<(), String> {
        let Some((&which, rest)) = input.split_first() else {
            return Ok(());
        };
        let text = std::str::from_utf8(rest).unwrap_or_default();
        match which {
            b'n' => {
                let Ok(s) = Scenario::from_json(text) else {
                    return Ok(());
                };
                if s.check_limits(&Limits::default()).is_err() {
                    return Ok(());
                }
                let once = s.to_json();
                let again = Scenario::from_json(&once)
                    .map_err(|e| format!("normalized scenario does not read back: {e}\n{once}"))?
                    .to_json();
                if again != once {
                    return Err(format!("normalize is not idempotent:\n{once}\n{again}"));
                }
                // run_scenario on the normalized scenario, when small.
                if s.expected_job_runs().is_some_and(|c| c > 20_000.0) {
                    return Ok(());
                }
                let Ok(w) = load_workload(&s, &Limits::default(), &mut |_| Ok(trace.clone()))
                else {
                    return Ok(());
                };
                if w.jobs.len() > 2000 {
                    return Ok(());
                }
                not_a_bug(run_loaded_on(
                    &s,
                    w,
                    1,
                    &Limits::default(),
                    &mut |_, _, _| true,
                ))
            }
            b'l' => {
                #[derive(serde::Deserialize)]
                struct Shared {
                    scenario: Scenario,
                }
                let fragment = text.rsplit_once('#').map_or(text, |(_, f)| f);
                if let Ok(Some(shared)) = unpack::<Shared>("s1=", fragment, "scenario") {
                    let _ = Scenario::from_json(&shared.scenario.to_json());
                }
                Ok(())
            }
            b'L' => {
                let Ok(g) = serde_json::from_str::<Lublin>(text) else {
                    return Ok(());
                };
                if Limits::default()
                    .check(Limit::Jobs, g.jobs as u64, "l")
                    .is_err()
                    || g.jobs > 3000
                {
                    return Ok(());
                }
                if let Ok(w) = g.generate(7) {
                    if w.jobs.windows(2).any(|p| p[0].submit > p[1].submit) {
                        return Err("Lublin jobs out of submit order".into());
                    }
                }
                Ok(())
            }
            b'w' | b'm' => {
                let opts = SwfOptions {
                    strict: which == b'm',
                    limits: Limits::default(),
                };
                let Ok(w) = read_swf("t.swf", rest, &opts) else {
                    return Ok(());
                };
                if w.jobs.is_empty() || w.jobs.len() > 5000 {
                    return Ok(());
                }
                for method in [FitMethod::Moments, FitMethod::MaxLikelihood] {
                    let fitted = fit_classes_with(&w.jobs, 2, method);
                    if let Ok(s) = synthesize(&w.jobs, &fitted, 3) {
                        // A synthetic workload is a workload: in submit order, runnable.
                        let jobs = &s.workload.jobs;
                        if jobs.windows(2).any(|p| p[0].submit > p[1].submit) {
                            return Err("synthetic jobs out of submit order".into());
                        }
                        if jobs.iter().any(|j| j.procs == 0 || j.runtime.0 < 0) {
                            return Err("a synthetic job with no CPU or a negative run time".into());
                        }
                    }
                }
                Ok(())
            }
            _ => Ok(()),
        }
    };
    fuzz_with("python", seeds, &mutate, &check);
}

/// A site's Slurm files as a user drops them: a `slurm.conf`, then after a line `%%` an
/// association dump, then after another a QOS dump. Whatever the bytes, the readers answer
/// (a configuration or an error naming its line), and a configuration they accept runs: 24
/// jobs of three users in three partitions under four QOS (SWF's queues 0–3), on ten
/// processors or on two nodes with memory and GPUs (the TRES shares), every invariant
/// checked, every job accounted for (run or rejected with its reason, a partition's MaxTime
/// and a QOS limit among them) and no QOS limit passed at any instant.
#[test]
fn fuzz_slurm_files_and_their_run() {
    use gridscope::engine::{JobOutcome, RunConfig, Simulation};
    use gridscope::model::{Demand, Job, NodeType, Platform, Site};
    use gridscope::policy::grid::{GridParams, GridScheme};
    use gridscope::policy::local::Slurm;
    use gridscope::policy::slurm::{read_assoc, read_qos, read_slurm_conf, QosOfJobs, NO_QOS};
    use gridscope::time::SimTime;
    let seeds: Vec<Vec<u8>> = [
        "PriorityWeightAge=1000\nPriorityWeightJobSize=500\nPriorityMaxAge=0:10:00\nPriorityCalcPeriod=1\n",
        "PriorityWeightFairshare=100000\nPriorityDecayHalfLife=1:00:00\nPriorityFlags=NO_FAIR_TREE\n%%\nCluster|Account|User|Share\nc|root||1\nc|root|1|2\nc|root|2|1\nc|a|3|5\nc|root|a|3\n",
        "PriorityWeightTRES=CPU=1000,Mem=2000,GRES/gpu=3000,billing=1\nPriorityWeightPartition=1000\n",
        "SchedulerParameters=bf_window=5,bf_max_job_test=3,bf_resolution=30,bf_interval=20,bf_max_job_user=1,bf_min_age_reserve=60\n",
        "PartitionName=1 PriorityJobFactor=10 PriorityTier=3 MaxTime=2\nPartitionName=2 MaxTime=UNLIMITED PriorityTier=0\nPartitionName=DEFAULT MaxTime=1\n",
        // Twice, one byte apart: each of the two platforms (picked by the length's parity).
        "PartitionName=1 Nodes=a\nPartitionName=2 Nodes=b PriorityTier=2\nPartitionName=3 Nodes=a,b\nPriorityWeightAge=100\n",
        "PartitionName=1 Nodes=a\nPartitionName=2 Nodes=b PriorityTier=2\nPartitionName=3 Nodes=a,b\nPriorityWeightAge=100\n\n",
        // QOS: priorities, a per-user job limit and CPU group limits (one below the widest).
        "PriorityWeightQOS=1000\n%%\n%%\nName|Priority|MaxJobsPU|GrpTRES\nnormal|0|1|\n1|10||cpu=6\n2|5|2|cpu=12,gres/gpu=1\n",
        "PriorityWeightQOS=1000\n%%\n%%\nName|Priority|MaxJobsPU|GrpTRES\nnormal|0|1|\n1|10||cpu=6\n2|5|2|cpu=12,gres/gpu=1\n\n",
        "PriorityWeightQOS=1\n%%\n%%\nName|Priority|GrpJobs|MaxTRESPU\nnormal|0|2|cpu=9\n3|1|1|cpu=4\n",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    let jobs: Vec<Job> = (0..24i64)
        .map(|i| Job {
            id: i + 1,
            submit: SimTime::from_secs(i * 25),
            runtime: SimTime::from_secs(30 + (i * 37) % 200),
            estimate: SimTime::from_secs(60 + (i * 53) % 300),
            procs: 1 + (i as u32 * 7) % 10,
            home: 0,
            user: 1 + (i as i32 % 3),
            partition: 1 + (i as i32 / 2 % 3),
        })
        .collect();
    let demands: Vec<Demand> = (0..24u32)
        .map(|i| Demand {
            mem_kb: u64::from(i % 4) * 8,
            gpus: i % 3 / 2,
            ..Demand::default()
        })
        .collect();
    let processors = Platform::single(Site::flat("s", 10));
    let mut nodes = Platform::single(Site::flat("n", 10));
    nodes.sites[0].nodes = 2;
    nodes.sites[0].cpus_per_node = 5;
    let node_type = |name: &str| NodeType {
        name: name.into(),
        count: 1,
        cores: 5,
        mem_kb: 100,
        gpus: 1,
        power: None,
        exclusive: false,
    };
    nodes.sites[0].node_types = vec![node_type("a"), node_type("b")];
    let check = |input: &[u8]| -> Result<(), String> {
        let text = String::from_utf8_lossy(input);
        let mut parts = text.splitn(3, "\n%%\n");
        let conf = parts.next().unwrap_or_default();
        let dump = parts.next().filter(|d| !d.is_empty());
        let qos_dump = parts.next();
        let Ok(report) = read_slurm_conf(conf.as_bytes()) else {
            return Ok(());
        };
        let _ = report.messages();
        let mut cfg = report.config;
        if let Some(q) = qos_dump {
            let Ok(d) = read_qos(q.as_bytes()) else {
                return Ok(());
            };
            cfg.qos = d.defs;
        }
        if let Some(dump) = dump {
            let Ok(tree) = read_assoc(dump.as_bytes()) else {
                return Ok(());
            };
            let _ = tree.apply(&mut cfg, |n| n.parse().ok(), &[1, 2, 3]);
        }
        if cfg.check().is_err() {
            return Ok(());
        }
        let on_nodes = input.len() % 2 == 1;
        let platform = if on_nodes { &nodes } else { &processors };
        // Each job's partition's nodes, where it is a node set (`Nodes=` of types a, b).
        let node_set = |partition: i32| -> Option<Vec<u32>> {
            let names = cfg
                .partitions
                .iter()
                .find(|p| p.name == partition.to_string())?
                .nodes
                .as_ref()?;
            if names.is_empty() || !names.iter().all(|n| n == "a" || n == "b") {
                return None;
            }
            let types = [("a", 0u32), ("b", 1)];
            let of = |t: &str| names.iter().any(|n| n == t);
            Some(
                types
                    .iter()
                    .filter(|(t, _)| of(t))
                    .map(|&(_, i)| i)
                    .collect(),
            )
        };
        let sets: Vec<Option<Vec<u32>>> = jobs.iter().map(|j| node_set(j.partition)).collect();
        let queues: Vec<i32> = (0..jobs.len() as i32).map(|i| i % 4).collect();
        let sim = Simulation::with_local_policies(
            platform,
            &jobs[..],
            &mut Slurm::factory_on(
                cfg.clone(),
                &jobs,
                &demands,
                platform,
                gridscope::policy::slurm::JobLabels {
                    qos: &queues,
                    ..Default::default()
                },
            ),
            GridScheme::Local,
            &GridParams::default(),
            &RunConfig::default(),
        );
        let sim = match on_nodes {
            true => sim.and_then(|s| s.with_demands(&demands[..])),
            false => sim,
        };
        let out = sim
            .and_then(|s| s.run(&mut |_, _| true))
            .map_err(|e| format!("the run failed: {e}"))?;
        if let Some(o) = out
            .outcomes
            .iter()
            .find(|o| o.status == JobOutcome::Pending)
        {
            return Err(format!("a job was left pending: {o:?}"));
        }
        // A job of a partition that is a node set ran on its nodes only.
        for (i, set) in sets.iter().enumerate() {
            let Some(set) = set.as_ref().filter(|_| on_nodes) else {
                continue;
            };
            if let Some(s) = out.placements.of(i).iter().find(|s| !set.contains(&s.node)) {
                return Err(format!(
                    "job {} ran on node {} outside its partition",
                    i + 1,
                    s.node
                ));
            }
        }
        // No QOS limit passed at any instant: ends before starts at one instant.
        let of = QosOfJobs::new(&cfg.qos, &jobs, &[], &queues, &[]);
        let mut changes: Vec<(SimTime, i32, usize)> = Vec::new();
        for (i, o) in out.outcomes.iter().enumerate() {
            if o.ran() && of.get(i) != NO_QOS {
                changes.push((o.start, 1, i));
                changes.push((o.end, -1, i));
            }
        }
        changes.sort();
        // (jobs, CPUs) per (QOS, user) and per QOS.
        let mut per_user = std::collections::BTreeMap::<(u32, i32), (i64, i64)>::new();
        let mut per_qos = vec![(0i64, 0i64); cfg.qos.len()];
        for (t, d, i) in changes {
            let q = of.get(i);
            let def = &cfg.qos[q as usize];
            let (d, c) = (i64::from(d), i64::from(d) * i64::from(jobs[i].procs));
            let mine = per_user.entry((q, jobs[i].user)).or_insert((0, 0));
            *mine = (mine.0 + d, mine.1 + c);
            let all = &mut per_qos[q as usize];
            *all = (all.0 + d, all.1 + c);
            let over = def.max_jobs_per_user.is_some_and(|m| mine.0 > i64::from(m))
                || def.max_cpus_per_user.is_some_and(|m| mine.1 > m as i64)
                || def.grp_jobs.is_some_and(|m| all.0 > i64::from(m))
                || def.grp_cpus.is_some_and(|g| all.1 > g as i64);
            if over {
                return Err(format!(
                    "QOS {} passed a limit at {t}: user {} runs {mine:?} (jobs, CPUs), the QOS {all:?}",
                    def.name, jobs[i].user
                ));
            }
        }
        Ok(())
    };
    fuzz("slurm", seeds, &check);
}
