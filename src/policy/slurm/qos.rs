//! Slurm's QOS (quality of service, issue #42): the definitions a site has, as
//! `sacctmgr show qos format=Name,Priority,MaxJobsPU,MaxTRESPU,GrpJobs,GrpTRES -P` prints them
//! ([`read_qos`]; bytes in, `Result` out, a bad row names its line), and which one each job
//! runs under ([`QosOfJobs`]).
//!
//! Five things of a QOS are modelled (slurm.schedmd.com `qos.html`, `resource_limits.html`):
//! - `Priority`: the QOS factor of a job's priority is its QOS's priority over the highest
//!   priority of any QOS (`priority_multifactor`: "the QOS priority normalized");
//! - `MaxJobsPU` and `MaxTRESPU=cpu=N,mem=M,gres/gpu=G`: at most this many running jobs,
//!   and CPUs, memory and GPUs, per user under the QOS; a job past one stays pending
//!   (reasons `QOSMaxJobsPerUserLimit`, `QOSMaxCpuPerUserLimit`, `QOSMaxMemoryPerUser`,
//!   `QOSMaxGRESPerUser`);
//! - `GrpJobs` and `GrpTRES=cpu=N,mem=M,gres/gpu=G`: the running jobs under the QOS are at
//!   most this many, and hold at most that together (`QOSGrpJobsLimit`, `QOSGrpCpuLimit`,
//!   `QOSGrpMemLimit`, `QOSGrpGRES`);
//! - `MaxWall`: a job's time limit at most this (`QOSMaxWallDurationPerJobLimit`).
//!
//! A job no state can let start (more CPUs than a CPU limit, a job limit of 0, or a time
//! limit beyond `MaxWall`) is rejected by a run with the reason.
//!
//! Everything else a dump carries (other TRES, preemption, usage factors) is
//! listed as not read, never silently ignored.

use super::DumpError;

use serde::{Deserialize, Serialize};

use crate::model::{Demand, Job};

/// One QOS as a site defines it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QosDef {
    /// Its name: matched against sacct's `QOS` column, or, for SWF, the queue (field 15)
    /// written out (`"2"`).
    pub name: String,
    /// `Priority` (0 by default, as Slurm's `normal`).
    #[serde(default)]
    pub priority: u32,
    /// `MaxJobsPU`: running jobs per user under this QOS (`None`: no limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_jobs_per_user: Option<u32>,
    /// `GrpTRES=cpu=N`: CPUs (processors) the running jobs under this QOS hold together
    /// (`None`: no limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grp_cpus: Option<u64>,
    /// `GrpJobs`: running jobs under this QOS (`None`: no limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grp_jobs: Option<u32>,
    /// `MaxTRESPU=cpu=N`: CPUs one user's running jobs under this QOS hold together
    /// (`None`: no limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_cpus_per_user: Option<u64>,
    /// `MaxWall` in seconds: the longest time limit a job under this QOS may ask (`None`:
    /// no limit). Slurm leaves a longer job pending (`QOSMaxWallDurationPerJobLimit`), or
    /// refuses it at submission under `AccountingStorageEnforce=limits`; a run rejects it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_wall_s: Option<u64>,
    /// `GrpTRES=mem=M`, in KB: memory the running jobs under this QOS hold together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grp_mem_kb: Option<u64>,
    /// `GrpTRES=gres/gpu=G`: GPUs the running jobs under this QOS hold together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grp_gpus: Option<u64>,
    /// `MaxTRESPU=mem=M`, in KB: memory one user's running jobs under this QOS hold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_mem_kb_per_user: Option<u64>,
    /// `MaxTRESPU=gres/gpu=G`: GPUs one user's running jobs under this QOS hold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_gpus_per_user: Option<u64>,
}

/// The trackable resources a QOS limit counts, in the order of [`QosDef::grp_tres`]: CPUs
/// (a job's processors), memory in KB (its memory per processor times its processors, or
/// per node times its node count, 1 when it names none) and GPUs.
pub const QOS_TRES: [&str; 3] = ["cpu", "mem", "gres/gpu"];

impl QosDef {
    /// A QOS with a priority and no limits.
    pub fn new(name: impl Into<String>, priority: u32) -> QosDef {
        QosDef {
            name: name.into(),
            priority,
            max_jobs_per_user: None,
            grp_cpus: None,
            grp_jobs: None,
            max_cpus_per_user: None,
            max_wall_s: None,
            grp_mem_kb: None,
            grp_gpus: None,
            max_mem_kb_per_user: None,
            max_gpus_per_user: None,
        }
    }

    /// `GrpTRES`: CPUs, memory (KB) and GPUs ([`QOS_TRES`]).
    pub fn grp_tres(&self) -> [Option<u64>; 3] {
        [self.grp_cpus, self.grp_mem_kb, self.grp_gpus]
    }

    /// `MaxTRESPU`: CPUs, memory (KB) and GPUs ([`QOS_TRES`]).
    pub fn per_user_tres(&self) -> [Option<u64>; 3] {
        [
            self.max_cpus_per_user,
            self.max_mem_kb_per_user,
            self.max_gpus_per_user,
        ]
    }

    /// True when the QOS limits what runs (not only the priority).
    pub fn limits(&self) -> bool {
        self.max_jobs_per_user.is_some()
            || self.grp_jobs.is_some()
            || self.max_wall_s.is_some()
            || self.counts_tres()
    }

    /// True when a limit counts CPUs, memory or GPUs.
    fn counts_tres(&self) -> bool {
        self.grp_tres()
            .iter()
            .chain(&self.per_user_tres())
            .any(Option::is_some)
    }
}

/// The QOS a dump defines, and what it carried that is not modelled.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QosDump {
    pub defs: Vec<QosDef>,
    /// Columns with a value this reader does not model (each named once, with the first
    /// QOS that sets it), and TRES limits beyond CPUs.
    pub not_read: Vec<String>,
}

/// A row the QOS-dump reader cannot use ([`DumpError`] with its prefix).
pub type QosError = DumpError;

/// The columns read: name, priority, per-user running jobs, group TRES, group jobs,
/// per-user TRES.
const NAME: usize = 0;
const PRIORITY: usize = 1;
const MAX_JOBS_PU: usize = 2;
const GRP_TRES: usize = 3;
const GRP_JOBS: usize = 4;
const MAX_TRES_PU: usize = 5;
const MAX_WALL: usize = 6;

/// Reads a dump. The first line may be sacctmgr's header (`Name|Priority|…`, any order,
/// any other columns); without one the columns are `Name|Priority|MaxJobsPU|GrpTRES` (as
/// `-n` prints that format). Empty values are Slurm's "no limit".
pub fn read_qos(bytes: &[u8]) -> Result<QosDump, QosError> {
    let text = String::from_utf8_lossy(bytes);
    let mut cols: [Option<usize>; 7] = [Some(0), Some(1), Some(2), Some(3), None, None, None];
    let mut other: Vec<(usize, String)> = Vec::new();
    let mut dump = QosDump::default();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let row = raw.trim_end_matches('\r');
        if row.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = row.split('|').map(str::trim).collect();
        if i == 0 && fields.iter().any(|f| f.eq_ignore_ascii_case("name")) {
            cols = [None; 7];
            for (at, name) in fields.iter().enumerate() {
                match name.to_ascii_lowercase().as_str() {
                    "name" => cols[NAME] = Some(at),
                    "priority" => cols[PRIORITY] = Some(at),
                    "maxjobspu" | "maxjobsperuser" => cols[MAX_JOBS_PU] = Some(at),
                    "grptres" => cols[GRP_TRES] = Some(at),
                    "grpjobs" => cols[GRP_JOBS] = Some(at),
                    "maxtrespu" | "maxtresperuser" => cols[MAX_TRES_PU] = Some(at),
                    "maxwall" | "maxwalldurationperjob" => cols[MAX_WALL] = Some(at),
                    _ => other.push((at, name.to_string())),
                }
            }
            continue;
        }
        let bad = |reason: String| QosError {
            dump: "QOS dump",
            line,
            reason,
        };
        let get = |k: usize| cols[k].and_then(|c| fields.get(c).copied()).unwrap_or("");
        let name = get(NAME);
        if name.is_empty() {
            return Err(bad("no QOS name".into()));
        }
        if dump.defs.iter().any(|d| d.name == name) {
            return Err(bad(format!("QOS {name} is defined twice")));
        }
        let number = |k: usize, what: &str| -> Result<Option<u64>, QosError> {
            match get(k) {
                "" => Ok(None),
                v => v
                    .parse::<u64>()
                    .map(Some)
                    .map_err(|_| bad(format!("{what} '{v}' of QOS {name} is not a whole number"))),
            }
        };
        let priority = number(PRIORITY, "Priority")?.unwrap_or(0);
        let priority = u32::try_from(priority)
            .map_err(|_| bad(format!("Priority of QOS {name} is beyond 2^32 − 1")))?;
        let max_jobs =
            number(MAX_JOBS_PU, "MaxJobsPU")?.map(|n| u32::try_from(n).unwrap_or(u32::MAX));
        let grp_jobs = number(GRP_JOBS, "GrpJobs")?.map(|n| u32::try_from(n).unwrap_or(u32::MAX));
        let [grp_cpus, grp_mem_kb, grp_gpus] =
            tres_limits(get(GRP_TRES), "GrpTRES", name, &mut dump.not_read).map_err(bad)?;
        let [max_cpus_per_user, max_mem_kb_per_user, max_gpus_per_user] =
            tres_limits(get(MAX_TRES_PU), "MaxTRESPU", name, &mut dump.not_read).map_err(bad)?;
        let max_wall_s = match get(MAX_WALL) {
            "" => None,
            v => Some(super::conf::slurm_time(v).map_err(|e| {
                bad(format!(
                    "MaxWall '{v}' of QOS {name}: {e} ([D-]HH:MM:SS, MM:SS or minutes)"
                ))
            })?),
        };
        for (at, column) in &other {
            let set = fields.get(*at).is_some_and(|v| !v.is_empty());
            if set
                && !dump
                    .not_read
                    .iter()
                    .any(|n| n.starts_with(&format!("{column} ")))
            {
                dump.not_read
                    .push(format!("{column} (set for QOS {name}) is not modelled"));
            }
        }
        dump.defs.push(QosDef {
            name: name.to_string(),
            priority,
            max_jobs_per_user: max_jobs,
            grp_cpus,
            grp_jobs,
            max_cpus_per_user,
            max_wall_s,
            grp_mem_kb,
            grp_gpus,
            max_mem_kb_per_user,
            max_gpus_per_user,
        });
    }
    Ok(dump)
}

/// A TRES list `column` (`GrpTRES`, `MaxTRESPU`: `cpu=64,mem=512G,gres/gpu=8`): its CPUs,
/// memory in KB (a number with `K`, `M` (the default), `G` or `T`, as sacctmgr prints
/// it) and GPUs ([`QOS_TRES`]); other TRES go to `not_read`.
fn tres_limits(
    v: &str,
    column: &str,
    qos: &str,
    not_read: &mut Vec<String>,
) -> Result<[Option<u64>; 3], String> {
    let mut limits = [None; 3];
    for item in v.split(',').filter(|i| !i.is_empty()) {
        let Some((key, value)) = item.split_once('=') else {
            return Err(format!(
                "{column} item '{item}' of QOS {qos} is not KEY=VALUE"
            ));
        };
        let bad = || format!("{column} {key} '{value}' of QOS {qos} is not a whole number");
        if let Some(r) = QOS_TRES.iter().position(|t| key.eq_ignore_ascii_case(t)) {
            let n = match r {
                1 => memory_kb(value).ok_or_else(bad)?,
                _ => value.parse::<u64>().map_err(|_| bad())?,
            };
            limits[r] = Some(n);
        } else {
            let note = format!("{column} {key} (set for QOS {qos}) is not modelled");
            if !not_read
                .iter()
                .any(|n| n.starts_with(&format!("{column} {key} ")))
            {
                not_read.push(note);
            }
        }
    }
    Ok(limits)
}

/// A TRES memory amount (`512G`, `4096`: megabytes without a suffix) in KB.
fn memory_kb(v: &str) -> Option<u64> {
    let (digits, unit) = match v.find(|c: char| !c.is_ascii_digit()) {
        Some(at) => v.split_at(at),
        None => (v, "M"),
    };
    let shift = match unit.to_ascii_uppercase().as_str() {
        "K" => 0,
        "M" => 10,
        "G" => 20,
        "T" => 30,
        _ => return None,
    };
    digits.parse::<u64>().ok()?.checked_mul(1 << shift)
}

/// No QOS: a job whose record names none, or one the definitions lack, when there is no
/// `normal` to fall back on.
pub const NO_QOS: u32 = u32::MAX;

/// Which definition each job runs under (an index into the configuration's `qos`, or
/// [`NO_QOS`]): the one named as its record's QOS; a job whose record names none, or a
/// QOS not defined, runs under `normal` when that is defined (Slurm's default QOS).
#[derive(Clone, Debug, Default)]
pub struct QosOfJobs {
    /// Per job (empty: every job runs under `fallback`).
    of: Vec<u32>,
    fallback: u32,
    /// Each job's CPUs, memory (KB) and GPUs ([`QOS_TRES`]), when a QOS limits them.
    tres: Vec<[u64; 3]>,
}

impl QosOfJobs {
    /// `numbers` are the workload's per-job QOS (empty, or one per job; -1 none), `names`
    /// sacct's names for them (empty for SWF, whose numbers are the names), `demands` the
    /// jobs' (empty: processors only).
    pub fn new(
        defs: &[QosDef],
        jobs: &[Job],
        demands: &[Demand],
        numbers: &[i32],
        names: &[String],
    ) -> QosOfJobs {
        let fallback = defs
            .iter()
            .position(|d| d.name == "normal")
            .map_or(NO_QOS, |i| i as u32);
        let tres = match defs.iter().any(QosDef::counts_tres) {
            true => jobs
                .iter()
                .enumerate()
                .map(|(i, j)| job_tres(j, demands.get(i)))
                .collect(),
            false => Vec::new(),
        };
        if defs.is_empty() || numbers.is_empty() {
            return QosOfJobs {
                of: Vec::new(),
                fallback,
                tres,
            };
        }
        // Each distinct number's definition, looked up once.
        let mut known: std::collections::BTreeMap<i32, u32> = std::collections::BTreeMap::new();
        let of = numbers
            .iter()
            .map(|&q| {
                *known.entry(q).or_insert_with(|| {
                    qos_name(q, names)
                        .and_then(|n| defs.iter().position(|d| d.name == n))
                        .map_or(fallback, |i| i as u32)
                })
            })
            .collect();
        QosOfJobs { of, fallback, tres }
    }

    /// Job `idx`'s definition, or [`NO_QOS`].
    pub fn get(&self, idx: usize) -> u32 {
        self.of.get(idx).copied().unwrap_or(self.fallback)
    }

    /// Job `idx`'s processors (0 unless a QOS limits a TRES).
    pub fn cpus(&self, idx: usize) -> u64 {
        self.tres(idx)[0]
    }

    /// Job `idx`'s CPUs, memory (KB) and GPUs ([`QOS_TRES`]; zeros unless a QOS limits a
    /// TRES).
    pub fn tres(&self, idx: usize) -> [u64; 3] {
        self.tres.get(idx).copied().unwrap_or_default()
    }
}

/// What a job holds of each TRES a QOS counts ([`QOS_TRES`]).
fn job_tres(job: &Job, demand: Option<&Demand>) -> [u64; 3] {
    let d = demand.copied().unwrap_or_default();
    let times = match d.mem_per_node {
        true => u64::from(d.nodes.max(1)),
        false => u64::from(job.procs),
    };
    [
        u64::from(job.procs),
        d.mem_kb.saturating_mul(times),
        u64::from(d.gpus),
    ]
}

/// The name of QOS number `q` (`None` for -1).
fn qos_name(q: i32, names: &[String]) -> Option<String> {
    match names.is_empty() {
        true => (q >= 0).then(|| q.to_string()),
        false => usize::try_from(q).ok().and_then(|i| names.get(i)).cloned(),
    }
}

/// Notes for the user on the jobs whose QOS the definitions lack (they run under `normal`
/// when defined, else under none), by the QOS they name.
pub fn qos_notes(defs: &[QosDef], numbers: &[i32], names: &[String]) -> Vec<String> {
    if defs.is_empty() {
        return Vec::new();
    }
    let fallback = match defs.iter().any(|d| d.name == "normal") {
        true => "run under normal",
        false => "run under no QOS (factor 0, no limits)",
    };
    if numbers.is_empty() {
        return vec![format!("no job names a QOS: every job would {fallback}")];
    }
    let mut missing: std::collections::BTreeMap<String, u64> = std::collections::BTreeMap::new();
    for &q in numbers {
        let name = qos_name(q, names);
        if !name
            .as_ref()
            .is_some_and(|n| defs.iter().any(|d| d.name == *n))
        {
            *missing
                .entry(name.unwrap_or_else(|| "(none)".into()))
                .or_insert(0) += 1;
        }
    }
    missing
        .into_iter()
        .map(|(name, n)| match name.as_str() {
            "(none)" => format!("{n} jobs name no QOS: they {fallback}"),
            _ => format!("{n} jobs name QOS {name}, which the definitions lack: they {fallback}"),
        })
        .collect()
}

#[cfg(test)]
#[path = "qos_tests.rs"]
mod tests;
