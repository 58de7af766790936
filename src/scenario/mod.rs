//! A scenario: everything that defines an experiment — platform, workload, algorithms,
//! options and seed — as one serializable value. The CLI reads it from JSON files, the web
//! app puts it in its share URLs; both run it through [`run_scenario`], so the same scenario
//! gives the same bytes everywhere.

mod presets;

pub use presets::{platform_preset, PLATFORM_PRESETS, SCENARIO_PRESETS};

use serde::{Deserialize, Serialize};

use crate::engine::{
    check_ideal, check_invariants, simulate_grid, JobOutcome, RejectReason, RunConfig, SimError,
};
use crate::metrics::{compute, Metrics};
use crate::model::{Platform, Site};
use crate::policy::grid::{GridParams, GridScheme};
use crate::policy::local::LocalPolicyKind;
use crate::workload::hyper_erlang::HyperErlangWorkload;
use crate::workload::{
    merge_sites, read_swf, split_by_partition, Align, ImportReport, SesPoisson, SwfOptions, Window,
    Workload,
};

pub const SCENARIO_VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scenario {
    #[serde(default = "current_version")]
    pub version: u32,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub seed: u64,
    pub platform: PlatformSpec,
    pub workload: WorkloadSpec,
    pub algorithms: Vec<AlgorithmSpec>,
    #[serde(default)]
    pub options: RunConfig,
}

fn current_version() -> u32 {
    SCENARIO_VERSION
}

/// The platform: a named preset, explicit sites, or one site sized from the trace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PlatformSpec {
    Preset {
        name: String,
    },
    Sites {
        name: String,
        sites: Vec<Site>,
    },
    /// One processor-granular site of `procs` processors; without `procs`, the header's
    /// MaxProcs, else MaxNodes, else the widest job (the report says which).
    FromTrace {
        #[serde(default)]
        procs: Option<u32>,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WorkloadSpec {
    /// An SWF file (plain or gzip). `file` is resolved by the caller's loader: a path for the
    /// CLI, a dropped file's name for the web app.
    Swf {
        file: String,
        #[serde(default)]
        strict: bool,
    },
    SesPoisson(SesPoisson),
    /// One SWF file per site, in platform order (SOB's real multi-site runs).
    SwfSites {
        files: Vec<String>,
        #[serde(default)]
        align: Align,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        window: Option<Window>,
        #[serde(default)]
        strict: bool,
    },
    /// One SWF file split into sites by partition (field 16), partitions in increasing order.
    SwfPartitions {
        file: String,
        #[serde(default)]
        strict: bool,
    },
    /// One hyper-Erlang generator per site, in platform order (SOB's synthetic runs); each
    /// site's stream gets its own seed derived from the scenario seed.
    HyperErlang {
        sites: Vec<HyperErlangWorkload>,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AlgorithmSpec {
    /// Shown in outputs; defaults to [`AlgorithmSpec::algorithm`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    pub local: LocalPolicyKind,
    /// The grid scheme above the local policies (SOB); `local` = no migration.
    #[serde(default, skip_serializing_if = "is_local")]
    pub grid: GridScheme,
    #[serde(default, skip_serializing_if = "is_default_params")]
    pub grid_params: GridParams,
}

fn is_local(g: &GridScheme) -> bool {
    *g == GridScheme::Local
}

fn is_default_params(p: &GridParams) -> bool {
    *p == GridParams::default()
}

impl Default for AlgorithmSpec {
    fn default() -> Self {
        AlgorithmSpec {
            label: None,
            local: LocalPolicyKind::Easy,
            grid: GridScheme::Local,
            grid_params: GridParams::default(),
        }
    }
}

impl AlgorithmSpec {
    pub fn local(local: LocalPolicyKind) -> AlgorithmSpec {
        AlgorithmSpec {
            local,
            ..Default::default()
        }
    }

    pub fn grid(grid: GridScheme, local: LocalPolicyKind) -> AlgorithmSpec {
        AlgorithmSpec {
            local,
            grid,
            ..Default::default()
        }
    }

    pub fn label(&self) -> String {
        self.label.clone().unwrap_or_else(|| self.algorithm())
    }

    /// `easy`; `sender+easy` for a grid scheme over a local policy; `ideal`.
    pub fn algorithm(&self) -> String {
        match self.grid {
            GridScheme::Local => self.local.name().to_string(),
            GridScheme::Ideal => "ideal".to_string(),
            g => format!("{}+{}", g.name(), self.local.name()),
        }
    }
}

/// Everything a scenario run produced.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub scenario: String,
    pub platform: Platform,
    /// How the platform was chosen (for `from_trace`).
    pub platform_note: String,
    pub conventions: Conventions,
    pub runs: Vec<RunReport>,
    pub import: ImportReport,
    #[serde(skip)]
    pub workload: Workload,
}

#[derive(Clone, Debug, Serialize)]
pub struct Conventions {
    pub estimates: &'static str,
    pub kill_at_estimate: bool,
    pub time_unit: &'static str,
    pub same_instant_order: &'static str,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    pub label: String,
    pub algorithm: String,
    pub metrics: Metrics,
    /// Rejected jobs with their reasons (the first 20; `metrics.jobs_rejected` counts all).
    pub rejected: Vec<String>,
    pub events: u64,
    pub max_queue: usize,
    /// Utilization and queue length over time, when asked for (`--series N`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series: Option<crate::metrics::Series>,
    #[serde(skip)]
    pub outcomes: Vec<crate::engine::Outcome>,
}

/// What can go wrong running a scenario, each with what to do about it.
#[derive(Debug, Clone, PartialEq)]
pub enum ScenarioError {
    /// The scenario itself is wrong (unknown preset, empty algorithm list, bad parameter).
    Invalid(String),
    /// The workload could not be loaded or read.
    Workload(String),
    Sim(SimError),
}

impl std::fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ScenarioError::Invalid(m) => write!(f, "invalid scenario: {m}"),
            ScenarioError::Workload(m) => f.write_str(m),
            ScenarioError::Sim(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ScenarioError {}

impl Scenario {
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        let s: Scenario = serde_json::from_str(text)
            .map_err(|e| ScenarioError::Invalid(format!("scenario JSON: {e}")))?;
        if s.version != SCENARIO_VERSION {
            return Err(ScenarioError::Invalid(format!(
                "scenario version {} is not supported (this build reads version {SCENARIO_VERSION})",
                s.version
            )));
        }
        Ok(s)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The built-in demo: SES's Poisson workload (2,000 jobs) on one 128-processor site,
    /// every local policy. Offered load ≈ 72 %.
    pub fn demo() -> Scenario {
        Scenario {
            version: SCENARIO_VERSION,
            name: "demo: SES Poisson workload on 128 processors, all local policies".into(),
            seed: 1,
            platform: PlatformSpec::Preset {
                name: "demo".into(),
            },
            workload: WorkloadSpec::SesPoisson(SesPoisson {
                estimate_factor: 2.0,
                ..SesPoisson::default()
            }),
            algorithms: LocalPolicyKind::ALL
                .iter()
                .map(|&k| AlgorithmSpec::local(k))
                .collect(),
            options: RunConfig::default(),
        }
    }
}

impl Scenario {
    /// A named scenario preset (`demo`, the SOB presets); `None` for an unknown name.
    pub fn preset(name: &str) -> Option<Scenario> {
        if name == "demo" {
            return Some(Scenario::demo());
        }
        presets::sob_scenario(name)
    }
}

/// Loads the workload the scenario names. `load(file)` returns a file's bytes.
pub fn load_workload(
    scenario: &Scenario,
    load: &mut dyn FnMut(&str) -> Result<Vec<u8>, String>,
) -> Result<Workload, ScenarioError> {
    let read = |load: &mut dyn FnMut(&str) -> Result<Vec<u8>, String>, file: &str, strict: bool| {
        let bytes = load(file).map_err(ScenarioError::Workload)?;
        read_swf(file, &bytes, &SwfOptions { strict })
            .map_err(|e| ScenarioError::Workload(e.to_string()))
    };
    match &scenario.workload {
        WorkloadSpec::Swf { file, strict } => read(load, file, *strict),
        WorkloadSpec::SesPoisson(g) => g.generate(scenario.seed).map_err(ScenarioError::Invalid),
        WorkloadSpec::SwfSites {
            files,
            align,
            window,
            strict,
        } => {
            let parts = files
                .iter()
                .map(|f| read(load, f, *strict))
                .collect::<Result<Vec<_>, _>>()?;
            merge_sites(parts, *align, *window).map_err(ScenarioError::Invalid)
        }
        WorkloadSpec::SwfPartitions { file, strict } => {
            let (w, _) = split_by_partition(read(load, file, *strict)?);
            Ok(w)
        }
        WorkloadSpec::HyperErlang { sites } => {
            let parts = sites
                .iter()
                .enumerate()
                .map(|(i, g)| {
                    // Each site's own stream: the scenario seed and the site index.
                    let seed = scenario.seed.wrapping_mul(1_000_003).wrapping_add(i as u64);
                    g.generate(seed).map_err(ScenarioError::Invalid)
                })
                .collect::<Result<Vec<_>, _>>()?;
            merge_sites(parts, Align::Zero, None).map_err(ScenarioError::Invalid)
        }
    }
}

/// Resolves the platform for a workload.
pub fn resolve_platform(
    spec: &PlatformSpec,
    workload: &Workload,
) -> Result<(Platform, String), ScenarioError> {
    let platform = match spec {
        PlatformSpec::Preset { name } => {
            let p = platform_preset(name).ok_or_else(|| {
                let names: Vec<&str> = PLATFORM_PRESETS.iter().map(|p| p.0).collect();
                ScenarioError::Invalid(format!(
                    "unknown platform preset '{name}'; known: {}",
                    names.join(", ")
                ))
            })?;
            (p, format!("preset {name}"))
        }
        PlatformSpec::Sites { name, sites } => (
            Platform {
                name: name.clone(),
                sites: sites.clone(),
            },
            "explicit sites".into(),
        ),
        PlatformSpec::FromTrace { procs } => {
            let h = &workload.report.header;
            let widest = workload.jobs.iter().map(|j| j.procs).max().unwrap_or(1);
            let (n, why) = match (procs, h.max_procs, h.max_nodes) {
                (Some(p), _, _) => (*p, "given on the command line".to_string()),
                (None, Some(p), _) => (
                    p.min(u32::MAX as u64) as u32,
                    "the header's MaxProcs".into(),
                ),
                (None, None, Some(n)) => (
                    n.min(u32::MAX as u64) as u32,
                    "the header's MaxNodes (no MaxProcs)".into(),
                ),
                (None, None, None) => (
                    widest,
                    "the widest job (the header gives neither MaxProcs nor MaxNodes)".into(),
                ),
            };
            let site_name = workload
                .name
                .rsplit('/')
                .next()
                .unwrap_or("site")
                .trim_end_matches(".gz")
                .trim_end_matches(".swf")
                .to_string();
            (
                Platform::single(Site::flat(site_name, n)),
                format!("one site of {n} processors from {why}"),
            )
        }
    };
    platform.0.validate().map_err(ScenarioError::Invalid)?;
    Ok(platform)
}

/// Runs every algorithm of the scenario on an already loaded workload, checking the
/// invariants after each run. `progress(run, done, total)` may return false to cancel.
pub fn run_loaded(
    scenario: &Scenario,
    workload: Workload,
    progress: &mut dyn FnMut(usize, u64, u64) -> bool,
) -> Result<Report, ScenarioError> {
    if scenario.algorithms.is_empty() {
        return Err(ScenarioError::Invalid("no algorithm to run".into()));
    }
    if workload.jobs.is_empty() {
        return Err(ScenarioError::Workload(format!(
            "{}: no runnable job to simulate\n{}",
            workload.name,
            workload.report.summary().trim_end()
        )));
    }
    let (platform, platform_note) = resolve_platform(&scenario.platform, &workload)?;
    let mut jobs = workload.jobs.clone();
    let homes = jobs.iter().map(|j| j.home).max().unwrap_or(0) as usize + 1;
    if platform.sites.len() == 1 {
        // A single-site platform takes every job.
        for j in &mut jobs {
            j.home = 0;
        }
    } else if homes > platform.sites.len() {
        return Err(ScenarioError::Invalid(format!(
            "the workload has {homes} sites but the platform '{}' only {}",
            platform.name,
            platform.sites.len()
        )));
    }
    let skipped = workload.report.skipped_total;
    let cfg = scenario.options;
    let mut runs = Vec::with_capacity(scenario.algorithms.len());
    for (i, alg) in scenario.algorithms.iter().enumerate() {
        alg.grid_params
            .validate()
            .map_err(|e| ScenarioError::Invalid(format!("{}: {e}", alg.label())))?;
        let out = simulate_grid(
            &platform,
            &jobs,
            alg.local,
            alg.grid,
            &alg.grid_params,
            &cfg,
            &mut |d, t| progress(i, d, t),
        )
        .map_err(ScenarioError::Sim)?;
        if alg.grid == GridScheme::Ideal {
            check_ideal(&platform, &jobs, &out.outcomes, &cfg)
                .map_err(|e| ScenarioError::Sim(SimError::Invariant(e)))?;
        } else {
            check_invariants(&platform, &jobs, &out.outcomes, &cfg)
                .map_err(|e| ScenarioError::Sim(SimError::Invariant(e.0)))?;
        }
        let metrics = compute(
            &platform,
            &jobs,
            &out.outcomes,
            &cfg,
            skipped,
            out.ideal_capacity,
        );
        let accounted = metrics.jobs_finished + metrics.jobs_rejected + metrics.jobs_skipped;
        if accounted != workload.report.records {
            return Err(ScenarioError::Sim(SimError::Invariant(format!(
                "{accounted} jobs accounted for (finished + rejected + skipped) but the workload has {} records",
                workload.report.records
            ))));
        }
        let rejected = jobs
            .iter()
            .zip(&out.outcomes)
            .filter_map(|(j, o)| match o.status {
                JobOutcome::Rejected(RejectReason::TooWide { needs, capacity }) => Some(format!(
                    "job {}: needs {needs} units ({} processors), its site has {capacity}",
                    j.id, j.procs
                )),
                JobOutcome::Rejected(RejectReason::NoSuchSite) => {
                    Some(format!("job {}: home site {} does not exist", j.id, j.home))
                }
                _ => None,
            })
            .take(20)
            .collect();
        runs.push(RunReport {
            label: alg.label(),
            algorithm: alg.algorithm(),
            metrics,
            rejected,
            events: out.events,
            max_queue: out.max_queue,
            series: None,
            outcomes: out.outcomes,
        });
    }
    let mut workload = workload;
    workload.jobs = jobs;
    Ok(Report {
        scenario: scenario.name.clone(),
        platform,
        platform_note,
        conventions: Conventions {
            estimates: match cfg.estimates {
                crate::engine::EstimateSource::Trace => "trace (SWF field 9; runtime when missing)",
                crate::engine::EstimateSource::Exact => "exact (the real runtime)",
            },
            kill_at_estimate: cfg.kill_at_estimate,
            time_unit: "seconds from the workload's first submit",
            same_instant_order:
                "completions, then arrivals in input order, then one scheduling pass per site",
        },
        runs,
        import: workload.report.clone(),
        workload,
    })
}

/// Loads and runs a scenario.
pub fn run_scenario(
    scenario: &Scenario,
    load: &mut dyn FnMut(&str) -> Result<Vec<u8>, String>,
    progress: &mut dyn FnMut(usize, u64, u64) -> bool,
) -> Result<Report, ScenarioError> {
    let workload = load_workload(scenario, load)?;
    run_loaded(scenario, workload, progress)
}

/// The per-job CSV: `job_id,home,site,submit,start,end,procs`, one row per job that ran,
/// times in seconds from the first submit (integers when exact).
pub fn jobs_csv(report: &Report, run: &RunReport) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(run.outcomes.len() * 40 + 64);
    out.push_str("job_id,home,site,submit,start,end,procs\n");
    let name = |i: u32| csv_field(&report.platform.sites[i as usize].name);
    let names: Vec<String> = (0..report.platform.sites.len() as u32).map(name).collect();
    for (j, o) in report.workload.jobs.iter().zip(&run.outcomes) {
        if !o.ran() {
            continue;
        }
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{}",
            j.id,
            names
                .get(j.home as usize)
                .map(String::as_str)
                .unwrap_or("?"),
            names[o.site as usize],
            j.submit,
            o.start,
            o.end,
            j.procs
        );
    }
    out
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}
