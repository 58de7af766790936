//! `gridscope sweep plan MANIFEST --out DIR`: the manifest expanded into cases with stable
//! ids, every trace they read hashed into a lock, the work counted. Planning twice into the
//! same folder is allowed when the cases are the same (results already there are kept).

use std::path::Path;

use gridscope::limits::{Limits, ReadError};
use gridscope::reproduce::case;
use gridscope::scenario::manifest::{self, base_scenario, expand, workload_files, Manifest};
use gridscope::workload::{read_swf, SwfOptions};

use super::store::{case_id, sha256_hex, write_atomic, CaseLine, Dir, Lock, Plan, TraceLock};
use super::store::{FORMAT, VERSION};
use crate::cli::PlanArgs;
use crate::io::{load_file, read_file, read_text};
use crate::progress::Progress;
use crate::{output, CliError};

pub fn plan(a: &PlanArgs) -> Result<(), CliError> {
    let limits = a.limits.limits();
    let manifest_path = Path::new(&a.manifest);
    let text = read_text(manifest_path, &limits)?;
    let at = |e: manifest::ManifestError| match e.line(&text) {
        Some(line) => CliError::Manifest(e).at(format!("{}:{line}", a.manifest)),
        None => CliError::Manifest(e).at(&a.manifest),
    };
    let m = Manifest::from_json(&text).map_err(at)?;
    let root = std::fs::canonicalize(manifest_path)
        .map_err(|e| CliError::Read(ReadError::io(&a.manifest, e)))?
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    if m.family_run().is_some() {
        return plan_family(a, &m, root, &at);
    }
    let base = base_scenario(&m, &mut |f| {
        let bytes = load_file(&root.join(f), &limits)?;
        String::from_utf8(bytes).map_err(|_| format!("{f} is not UTF-8 text"))
    })
    .map_err(at)?;
    let expansion = expand(&m, &base, a.max_cases, &mut |g| glob(&root, g)).map_err(at)?;
    let mut files: std::collections::BTreeMap<String, String> = Default::default();
    for c in &expansion.cases {
        for f in workload_files(&c.scenario) {
            files.entry(f.clone()).or_insert_with(|| {
                m.axes
                    .iter()
                    .enumerate()
                    .find(|(i, _)| c.point[*i] == f)
                    .map_or("the base scenario's workload".to_string(), |(i, _)| {
                        format!("axes[{i}] ({})", expansion.axes[i].name)
                    })
            });
        }
    }
    let traces = lock_traces(&files, &root, &limits).map_err(|e| in_manifest(a, e))?;
    let jobs_of = |f: &str| traces.iter().find(|t| t.file == f).map_or(0, |t| t.jobs) as f64;
    let mut cases = Vec::with_capacity(expansion.cases.len());
    for c in &expansion.cases {
        let files = workload_files(&c.scenario);
        let jobs = if files.is_empty() {
            c.scenario.expected_job_runs().unwrap_or(0.0)
                / c.scenario.algorithms.len().max(1) as f64
        } else {
            files.iter().map(|f| jobs_of(f)).sum()
        };
        cases.push(CaseLine {
            index: c.index,
            id: case_id(&c.canonical),
            point: c.point.clone(),
            work: jobs * c.scenario.algorithms.len() as f64,
            scenario: Some(c.scenario.clone()),
            run: None,
        });
    }
    finish(
        a,
        &m,
        root,
        &expansion.axes,
        expansion.seed_axis,
        cases,
        traces,
    )
}

fn in_manifest(a: &PlanArgs, e: CliError) -> CliError {
    e.at(&a.manifest)
}

/// A family manifest (`{"run": …}`): each case one seed of the family's run
/// (`reproduce::case`); its traces (SCJG's) under the manifest's `traces` folder.
fn plan_family(
    a: &PlanArgs,
    m: &Manifest,
    root: std::path::PathBuf,
    at: &dyn Fn(manifest::ManifestError) -> CliError,
) -> Result<(), CliError> {
    let limits = a.limits.limits();
    let expansion = case::expand(m, a.max_cases, &mut |g| glob(&root, g)).map_err(at)?;
    let dir = m.traces.clone().unwrap_or_default();
    let rebase = |f: &str| {
        if dir.is_empty() {
            f.to_string()
        } else {
            format!("{}/{f}", dir.trim_end_matches('/'))
        }
    };
    let mut files: std::collections::BTreeMap<String, String> = Default::default();
    for c in &expansion.cases {
        for f in case::traces(&c.spec) {
            files
                .entry(rebase(&f))
                .or_insert_with(|| format!("{} (set \"traces\" to its folder)", c.spec.preset));
        }
    }
    let traces = lock_traces(&files, &root, &limits).map_err(|e| in_manifest(a, e))?;
    let cases = expansion
        .cases
        .iter()
        .map(|c| CaseLine {
            index: c.index,
            id: case_id(&c.canonical),
            point: c.point.clone(),
            work: case::work(&c.spec),
            scenario: None,
            run: Some(c.spec.clone()),
        })
        .collect();
    finish(
        a,
        m,
        root,
        &expansion.axes,
        expansion.seed_axis,
        cases,
        traces,
    )
}

/// Checks the ids, writes the plan and says what it holds.
fn finish(
    a: &PlanArgs,
    m: &Manifest,
    root: std::path::PathBuf,
    axes: &[manifest::AxisInfo],
    seed_axis: Option<usize>,
    cases: Vec<CaseLine>,
    traces: Vec<TraceLock>,
) -> Result<(), CliError> {
    let mut ids = std::collections::BTreeMap::new();
    for c in &cases {
        if let Some(other) = ids.insert(c.id.clone(), c.index) {
            return Err(CliError::Failed(format!(
                "{}: cases {other} and {} are the same {} ({}); an axis repeats a value or a zip pairs the same values twice",
                a.manifest,
                c.index,
                if c.run.is_some() { "run" } else { "scenario" },
                c.point.join(", ")
            )));
        }
    }
    let plan = Plan {
        format: FORMAT,
        gridscope: VERSION.into(),
        name: m.name.clone(),
        root,
        manifest: serde_json::to_value(m).unwrap_or_default(),
        axes: axes.to_vec(),
        seed_axis,
        cases: cases.len(),
        job_runs: cases.iter().map(|c| c.work).sum(),
    };
    let lock = Lock {
        gridscope: VERSION.into(),
        traces,
    };
    write_plan(&a.out, &plan, &cases, &lock)?;
    let axes: Vec<String> = plan
        .axes
        .iter()
        .map(|x| format!("{} {}", x.values, x.name))
        .collect();
    output::stdout(&format!(
        "planned {} cases ({}) in {}\n{} traces locked (SHA-256 and size in lock.json)\nwork: {:.3e} job-runs (jobs × runs); run them with `gridscope sweep run {} --shard I/N` or `gridscope sweep slurm {} --tasks N`\n",
        plan.cases,
        axes.join(" × "),
        a.out.display(),
        lock.traces.len(),
        plan.job_runs,
        a.out.display(),
        a.out.display(),
    ))
}

/// Writes the plan files; a folder that already holds a plan must hold these same cases.
fn write_plan(out: &Path, plan: &Plan, cases: &[CaseLine], lock: &Lock) -> Result<(), CliError> {
    let dir = Dir::new(out);
    let mut lines = String::new();
    for c in cases {
        lines.push_str(&serde_json::to_string(c).unwrap_or_default());
        lines.push('\n');
    }
    if dir.file("cases.jsonl").exists() {
        let old = std::fs::read_to_string(dir.file("cases.jsonl")).unwrap_or_default();
        let old_lock = dir.lock().ok();
        if old != lines || old_lock.as_ref() != Some(lock) {
            return Err(CliError::Failed(format!(
                "{} already holds another sweep plan (other cases or other traces): plan into a new --out folder, or remove it",
                out.display()
            )));
        }
        output::note(&format!(
            "{} already holds this plan: its results are kept",
            out.display()
        ));
    }
    dir.mkdirs(&["", "results", "running", "failed", "log"])?;
    // cases.jsonl last: it is what marks a folder as holding a plan, so a plan cut short
    // (a full disk) is written again rather than refused as another plan.
    write_atomic(&dir.file("lock.json"), pretty(lock).as_bytes())?;
    write_atomic(&dir.file("plan.json"), pretty(plan).as_bytes())?;
    write_atomic(&dir.file("cases.jsonl"), lines.as_bytes())
}

/// Pretty JSON of the plan files, with a final newline.
fn pretty<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default() + "\n"
}

/// Every trace the cases read (`files`: name → where it comes from): it must exist; its
/// SHA-256, size and job count.
fn lock_traces(
    files: &std::collections::BTreeMap<String, String>,
    root: &Path,
    limits: &Limits,
) -> Result<Vec<TraceLock>, CliError> {
    for (f, from) in files {
        if !root.join(f).is_file() {
            return Err(CliError::Failed(format!(
                "trace {f} (from {from}) does not exist: {} is not a file",
                root.join(f).display()
            )));
        }
    }
    let names: Vec<&String> = files.keys().collect();
    let mut progress = Progress::new();
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let locked = gridscope::par::map_in_order(
        names.len(),
        threads,
        &|i| lock_one(names[i], &root.join(names[i]), limits),
        &mut |done, of| progress.show(&format!("plan: trace {done}/{of}"), done as f64 / of as f64),
    )
    .unwrap_or_default();
    locked.into_iter().collect()
}

fn lock_one(file: &str, path: &Path, limits: &Limits) -> Result<TraceLock, CliError> {
    let bytes = read_file(path, limits)?;
    let opts = SwfOptions {
        strict: false,
        limits: *limits,
    };
    let w = read_swf(file, &bytes, &opts).map_err(|e| CliError::Trace(e).at(file))?;
    Ok(TraceLock {
        file: file.to_string(),
        sha256: sha256_hex(&bytes),
        bytes: bytes.len() as u64,
        jobs: w.jobs.len() as u64,
    })
}

/// The files a glob names (`*` and `?` in its last component only), relative to `root` as
/// the pattern is, in name order.
fn glob(root: &Path, pattern: &str) -> Result<Vec<String>, String> {
    let (dir, name) = pattern.rsplit_once('/').unwrap_or(("", pattern));
    if dir.contains(['*', '?', '[']) {
        return Err(format!(
            "'{pattern}': wildcards only in the file name, not in its folders"
        ));
    }
    let folder = if dir.is_empty() {
        root.to_path_buf()
    } else {
        root.join(dir)
    };
    let entries = std::fs::read_dir(&folder)
        .map_err(|e| format!("'{pattern}': cannot list {}: {e}", folder.display()))?;
    let mut out: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.path().is_file())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| wildcard(name.as_bytes(), n.as_bytes()))
        .map(|n| {
            if dir.is_empty() {
                n
            } else {
                format!("{dir}/{n}")
            }
        })
        .collect();
    out.sort();
    Ok(out)
}

/// `*` any run of characters, `?` one; everything else itself.
fn wildcard(p: &[u8], s: &[u8]) -> bool {
    match (p.first(), s.first()) {
        (None, None) => true,
        (Some(b'*'), _) => wildcard(&p[1..], s) || (!s.is_empty() && wildcard(p, &s[1..])),
        (Some(b'?'), Some(_)) => wildcard(&p[1..], &s[1..]),
        (Some(a), Some(b)) if a == b => wildcard(&p[1..], &s[1..]),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::wildcard;

    #[test]
    fn wildcards_match_names() {
        assert!(wildcard(b"*.swf.gz", b"KTH.swf.gz"));
        assert!(wildcard(b"lublin_???.swf.gz", b"lublin_256.swf.gz"));
        assert!(!wildcard(b"*.swf", b"KTH.swf.gz"));
        assert!(wildcard(b"*", b""));
    }
}
