//! A sweep directory on disk: the plan, the cases, the lock and one result file per case,
//! each written atomically (a temporary file in the same folder, then a rename), so a killed
//! task leaves either the whole file or none; a result carries a SHA-256 of its body, so a
//! truncated or altered one is found and rerun, never merged.
//!
//! ```text
//! DIR/plan.json        the manifest, its folder, the axes, counts (written by plan)
//! DIR/cases.jsonl      one case a line: index, id, point, work, scenario
//! DIR/lock.json        gridscope version, each trace's SHA-256 and size
//! DIR/results/ID.result  line 1 the result JSON, line 2 the SHA-256 of line 1
//! DIR/running/ID       a task is running the case (host and pid)
//! DIR/failed/ID.txt    the case's run failed: the error
//! DIR/log/             one log per run process (case, seconds)
//! DIR/merged/          cases.csv, points.csv, merged.json (written by merge)
//! DIR/slurm/           array.sbatch, merge.sbatch, submit.sh, logs/
//! ```

use std::io::Write;
use std::path::{Path, PathBuf};

use gridscope::reproduce::case;
use gridscope::reproduce::runs::RunSpec;
use gridscope::scenario::manifest::{workload_files, AxisInfo};
use gridscope::scenario::Scenario;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::CliError;

/// This binary's version: results of another are refused by merge.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The format of plan.json, cases.jsonl and result files.
pub const FORMAT: u32 = 1;

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct Plan {
    pub format: u32,
    pub gridscope: String,
    pub name: String,
    /// The manifest's folder (absolute): workload file names of the cases are relative to it.
    pub root: PathBuf,
    pub manifest: serde_json::Value,
    pub axes: Vec<AxisInfo>,
    pub seed_axis: Option<usize>,
    pub cases: usize,
    /// Jobs × runs over every case (generated workloads: expected jobs).
    pub job_runs: f64,
}

/// One case: a scenario (a scenario manifest's) or one seed of a family run (a family
/// manifest's, `{"run": …}`); exactly one of the two.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct CaseLine {
    pub index: usize,
    pub id: String,
    pub point: Vec<String>,
    /// Jobs × runs: how shards are balanced.
    pub work: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<Scenario>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<RunSpec>,
}

impl CaseLine {
    /// The JSON its id hashes: the scenario's, or the run spec's.
    pub fn canonical(&self) -> String {
        match (&self.scenario, &self.run) {
            (Some(s), _) => serde_json::to_string(s).unwrap_or_default(),
            (None, Some(r)) => serde_json::to_string(r).unwrap_or_default(),
            (None, None) => String::new(),
        }
    }

    /// The trace files the case reads, as the lock names them (relative to the plan's root):
    /// a scenario's workload files; a family run's traces under the manifest's `traces`.
    pub fn files(&self, plan: &Plan) -> Vec<String> {
        match (&self.scenario, &self.run) {
            (Some(s), _) => workload_files(s),
            (None, Some(r)) => case::traces(r)
                .into_iter()
                .map(|f| family_trace(plan, &f))
                .collect(),
            (None, None) => Vec::new(),
        }
    }
}

/// A family run's trace `name` as the lock names it: under the manifest's `traces` folder.
pub fn family_trace(plan: &Plan, name: &str) -> String {
    match plan
        .manifest
        .get("traces")
        .and_then(serde_json::Value::as_str)
    {
        Some(dir) if !dir.is_empty() => format!("{}/{name}", dir.trim_end_matches('/')),
        _ => name.to_string(),
    }
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Lock {
    pub gridscope: String,
    pub traces: Vec<TraceLock>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct TraceLock {
    /// As the cases name it (relative to the plan's root, or absolute).
    pub file: String,
    pub sha256: String,
    pub bytes: u64,
    pub jobs: u64,
}

/// A sweep directory.
pub struct Dir {
    pub path: PathBuf,
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// A case's id: the first 16 hex digits of the SHA-256 of its canonical scenario JSON.
pub fn case_id(canonical: &str) -> String {
    sha256_hex(canonical.as_bytes())[..16].to_string()
}

fn cannot(what: &Path) -> impl Fn(std::io::Error) -> CliError + '_ {
    move |source| CliError::Write {
        path: what.to_path_buf(),
        source,
    }
}

/// Writes `bytes` to `path` atomically: a temporary file beside it, synced, then renamed over
/// it (readers see the old file or the new one, never a part).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    // Host and pid in the name: two tasks never share a temporary file, and one left by a
    // killed task can be told from one being written (`remove_stale_temporaries`).
    let tmp = path.with_file_name(format!(
        ".{name}.{}.{}.tmp",
        crate::io::hostname(),
        std::process::id()
    ));
    let mut f = std::fs::File::create(&tmp).map_err(cannot(&tmp))?;
    f.write_all(bytes).map_err(cannot(&tmp))?;
    f.sync_data().map_err(cannot(&tmp))?;
    drop(f);
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        cannot(path)(e)
    })
}

impl Dir {
    pub fn new(path: &Path) -> Dir {
        Dir {
            path: path.to_path_buf(),
        }
    }

    pub fn file(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    pub fn result_path(&self, id: &str) -> PathBuf {
        self.path.join("results").join(format!("{id}.result"))
    }

    pub fn running_path(&self, id: &str) -> PathBuf {
        self.path.join("running").join(id)
    }

    pub fn failed_path(&self, id: &str) -> PathBuf {
        self.path.join("failed").join(format!("{id}.txt"))
    }

    pub fn mkdirs(&self, subdirs: &[&str]) -> Result<(), CliError> {
        for d in subdirs {
            let p = self.path.join(d);
            std::fs::create_dir_all(&p)
                .map_err(|source| CliError::CreateDir { path: p, source })?;
        }
        Ok(())
    }

    fn read_text(&self, name: &str) -> Result<String, CliError> {
        let p = self.file(name);
        std::fs::read_to_string(&p).map_err(|e| {
            CliError::Failed(format!(
                "cannot read {}: {e} (is {} a folder written by `gridscope sweep plan`?)",
                p.display(),
                self.path.display()
            ))
        })
    }

    pub fn plan(&self) -> Result<Plan, CliError> {
        let text = self.read_text("plan.json")?;
        let plan: Plan = serde_json::from_str(&text)
            .map_err(|e| CliError::Json(e).at(self.file("plan.json").display().to_string()))?;
        if plan.format != FORMAT {
            return Err(CliError::Failed(format!(
                "{} has format {}; this gridscope reads format {FORMAT}: plan the sweep again",
                self.file("plan.json").display(),
                plan.format
            )));
        }
        Ok(plan)
    }

    pub fn cases(&self) -> Result<Vec<CaseLine>, CliError> {
        let text = self.read_text("cases.jsonl")?;
        let path = self.file("cases.jsonl");
        let cases: Vec<CaseLine> = text
            .lines()
            .enumerate()
            .map(|(i, l)| {
                serde_json::from_str(l)
                    .map_err(|e| CliError::Json(e).at(format!("{}:{}", path.display(), i + 1)))
            })
            .collect::<Result<_, _>>()?;
        // The ids are the cases' identity: one that does not hash to its scenario was edited.
        for (i, c) in cases.iter().enumerate() {
            let one = c.scenario.is_some() != c.run.is_some();
            if !one || c.index != i || case_id(&c.canonical()) != c.id {
                return Err(CliError::Failed(format!(
                    "{}:{}: case {} does not match its scenario (the file was edited): plan the sweep again",
                    path.display(),
                    i + 1,
                    c.id
                )));
            }
        }
        Ok(cases)
    }

    pub fn lock(&self) -> Result<Lock, CliError> {
        let text = self.read_text("lock.json")?;
        serde_json::from_str(&text)
            .map_err(|e| CliError::Json(e).at(self.file("lock.json").display().to_string()))
    }
}

/// What one case's run gave, as its result file holds it.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct CaseResult {
    pub format: u32,
    pub gridscope: String,
    pub id: String,
    pub index: usize,
    /// The traces the run read, with the SHA-256 they had.
    pub traces: Vec<(String, String)>,
    pub offered_load: Option<f64>,
    pub runs: Vec<RunResult>,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct RunResult {
    pub label: String,
    pub algorithm: String,
    pub metrics: serde_json::Value,
    pub events: u64,
    pub max_queue: usize,
}

/// A result file's text: the JSON body on one line, then its SHA-256.
pub fn result_text(r: &CaseResult) -> String {
    let body = serde_json::to_string(r).unwrap_or_default();
    let sum = sha256_hex(body.as_bytes());
    format!("{body}\n{sum}\n")
}

/// Why a result file cannot be used.
pub enum Bad {
    Missing,
    /// Truncated, altered or not a result: rerun it.
    Corrupt(String),
}

/// Reads and checks a result file: the checksum, the body, the id it is filed under.
pub fn read_result(path: &Path, id: &str) -> Result<CaseResult, Bad> {
    let text = match std::fs::read(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Bad::Missing),
        Err(e) => return Err(Bad::Corrupt(format!("unreadable: {e}"))),
    };
    let text = String::from_utf8(text).map_err(|_| Bad::Corrupt("not UTF-8".into()))?;
    let mut lines = text.split('\n');
    let (Some(body), Some(sum), Some(""), None) =
        (lines.next(), lines.next(), lines.next(), lines.next())
    else {
        return Err(Bad::Corrupt("not two lines (truncated?)".into()));
    };
    if sha256_hex(body.as_bytes()) != sum {
        return Err(Bad::Corrupt(
            "checksum mismatch (truncated or altered)".into(),
        ));
    }
    let r: CaseResult =
        serde_json::from_str(body).map_err(|e| Bad::Corrupt(format!("not a case result: {e}")))?;
    if r.id != id {
        return Err(Bad::Corrupt(format!("holds case {}, not {id}", r.id)));
    }
    Ok(r)
}

/// Removes the temporary files in `folder` that a killed process of this host left
/// (`.NAME.HOST.PID.tmp` whose PID is gone); those of other hosts are left alone, since
/// their processes cannot be seen from here. Returns how many were removed.
pub fn remove_stale_temporaries(folder: &Path, host: &str) -> usize {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return 0;
    };
    let mut removed = 0;
    for e in entries.filter_map(Result::ok) {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(stem) = name.strip_prefix('.').and_then(|n| n.strip_suffix(".tmp")) else {
            continue;
        };
        // The host may hold dots (a full domain name): match it as the name's tail.
        let Some((rest, pid)) = stem.rsplit_once('.') else {
            continue;
        };
        let ours = rest.ends_with(&format!(".{host}"));
        let dead = !pid.is_empty()
            && pid.chars().all(|c| c.is_ascii_digit())
            && !Path::new("/proc").join(pid).exists();
        if ours && dead && std::fs::remove_file(e.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}
