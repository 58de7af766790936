//! A scenario: everything that defines an experiment — platform, workload, algorithms,
//! options and seed — as one serializable value. The CLI reads it from JSON files, the web
//! app puts it in its share URLs; both run it through [`run_scenario`], so the same scenario
//! gives the same bytes everywhere.

mod cost;
pub mod explain;
pub mod link;
pub mod manifest;
pub mod merged;
mod presets;
mod run;
mod runner;
pub mod ses;
pub mod steps;

pub use cost::CONFIRM_ABOVE_PLAN_WORK;
pub use presets::{platform_preset, PLATFORM_PRESETS, SCENARIO_PRESETS};
pub use run::{hand_out_order, run_loaded, run_loaded_on, run_scenario};
pub use runner::{
    check_algorithm, conventions, prepare, run_report, PolicyFactory, PreparedScenario,
    ScenarioRun, Slice,
};

use serde::{Deserialize, Serialize};

use crate::engine::{EstimateSource, EventOrder, RunConfig, SimError};
use crate::limits::{Limit, LimitExceeded, Limits};
use crate::metrics::Metrics;
use crate::model::{Platform, Site, MAX_SITE_UNITS};
use crate::policy::grid::{GridParams, GridScheme, IdealDiscipline};
use crate::policy::local::LocalPolicyKind;
use crate::workload::hyper_erlang::HyperErlangWorkload;
use crate::workload::{
    merge_sites, read_trace, split_by_partition, Align, ImportReport, Lublin, SesPoisson, SwfError,
    SwfOptions, TraceFormat, TraceOptions, Window, Workload,
};

/// The scenario format written now. Version 2 (2026-11) made `conservative` mean
/// compression; a version-1 file or link is read as it ran then (see [`Scenario::upgrade`]).
pub const SCENARIO_VERSION: u32 = 2;
/// The oldest version still read.
pub const OLDEST_SCENARIO_VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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
    #[serde(default, with = "RunConfigDef")]
    pub options: RunConfig,
}

/// The serde form of the engine's [`RunConfig`] (the engine has no serde): the scenario
/// file's `options`, `{"estimates": "trace"|"exact", "kill_at_estimate": bool,
/// "event_order": "gridscope"|"pyss"|"cqsim"}` (the last added later: absent reads as
/// `gridscope`, and `gridscope` is left out, so older files and links are the same bytes).
/// Any field left out takes its default (`trace`, `true`, `gridscope`).
#[derive(Serialize, Deserialize)]
#[serde(remote = "RunConfig")]
#[serde(deny_unknown_fields)]
struct RunConfigDef {
    // A field left out reads as its default, like a missing `options` object.
    #[serde(with = "EstimateSourceDef", default = "default_estimates")]
    estimates: EstimateSource,
    #[serde(default = "default_kill")]
    kill_at_estimate: bool,
    #[serde(
        default,
        with = "EventOrderDef",
        skip_serializing_if = "is_gridscope_order"
    )]
    event_order: EventOrder,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "EventOrder", rename_all = "snake_case")]
enum EventOrderDef {
    Gridscope,
    Pyss,
    Cqsim,
}

fn default_estimates() -> EstimateSource {
    RunConfig::default().estimates
}

fn default_kill() -> bool {
    RunConfig::default().kill_at_estimate
}

fn is_gridscope_order(o: &EventOrder) -> bool {
    *o == EventOrder::Gridscope
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "EstimateSource", rename_all = "snake_case")]
enum EstimateSourceDef {
    Trace,
    Exact,
}

fn current_version() -> u32 {
    SCENARIO_VERSION
}

/// The platform: a named preset, explicit sites, or one site sized from the trace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
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
#[serde(deny_unknown_fields)]
pub enum WorkloadSpec {
    /// A trace file (plain or gzip): SWF, or GWF, Batsim JSON or sacct (issue #29), the
    /// format told by the content unless `format` says. `file` is resolved by the caller's
    /// loader: a path for the CLI, a dropped file's name for the web app. A GWF trace's
    /// origin sites all go to the one machine (`origin_sites` keeps them apart).
    Swf {
        file: String,
        #[serde(default)]
        strict: bool,
        #[serde(default, skip_serializing_if = "TraceFormat::is_auto")]
        format: TraceFormat,
        /// Minutes east of UTC of zone-less timestamps (sacct); 0 = UTC.
        #[serde(default, skip_serializing_if = "is_zero")]
        utc_offset_min: i32,
    },
    /// One trace with a site per origin (GWF OrigSiteID, in increasing order), in platform
    /// order: the Grid Workloads Archive's multi-site logs on SOB's grids. A trace without
    /// origins is one site.
    OriginSites {
        file: String,
        #[serde(default)]
        strict: bool,
        #[serde(default, skip_serializing_if = "TraceFormat::is_auto")]
        format: TraceFormat,
    },
    SesPoisson(SesPoisson),
    /// The Lublin–Feitelson (2003) model of rigid parallel jobs (docs/workload-models.md).
    Lublin(Lublin),
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
#[serde(deny_unknown_fields)]
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

    /// `easy`; `sender+easy` for a grid scheme over a local policy; `ideal` (`ideal/srpt`,
    /// `ideal/fcfs` for the other disciplines).
    pub fn algorithm(&self) -> String {
        match self.grid {
            GridScheme::Local => self.local.name().to_string(),
            GridScheme::Ideal => match self.grid_params.ideal_discipline {
                IdealDiscipline::ProcessorSharing => "ideal".to_string(),
                d => format!("ideal/{}", d.name()),
            },
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
    /// The workload's offered load on the platform ([`crate::metrics::offered_load`]);
    /// `null` without an arrival span.
    pub offered_load: Option<f64>,
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

/// What can go wrong running a scenario, each variant with what to do about it. The CLI and
/// the page both print it through `Display`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ScenarioError {
    /// The scenario JSON does not parse (serde's message names the line and column).
    Json { detail: String },
    /// A scenario file of another format version.
    UnsupportedVersion { found: u32, supported: u32 },
    /// The scenario lists no algorithm.
    NoAlgorithms,
    /// `platform.kind = preset` names no preset.
    UnknownPlatformPreset { name: String, known: Vec<String> },
    /// The platform cannot be simulated (no site, a site with no units, a bad speed).
    InvalidPlatform { reason: String },
    /// An algorithm's grid parameters are out of range.
    InvalidGridParams { label: String, reason: String },
    /// The workload names more sites than the platform has.
    TooFewSites {
        workload_sites: usize,
        platform: String,
        platform_sites: usize,
    },
    /// A workload generator's parameters are out of range.
    InvalidGenerator { reason: String },
    /// Per-site workloads could not be merged (alignment, window).
    Merge { reason: String },
    /// A workload file could not be had (the loader's reason: missing, not dropped, unreadable).
    Load { file: String, reason: String },
    /// A workload file is not valid SWF (strict mode, or a broken gzip stream).
    Swf(SwfError),
    /// The scenario passed one of the [`Limits`] (sites, generated jobs).
    Limit(LimitExceeded),
    /// Nothing runnable was left after the import.
    EmptyWorkload { name: String, summary: String },
    /// The engine refused the input or the run failed (see [`SimError`]).
    Sim(SimError),
    /// Anything else wrong with the scenario (presets and parameters of the edges).
    Invalid(String),
}

impl std::fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let invalid = |f: &mut std::fmt::Formatter<'_>, m: &dyn std::fmt::Display| {
            write!(f, "invalid scenario: {m}")
        };
        match self {
            ScenarioError::Json { detail } => invalid(f, &format_args!("scenario JSON: {detail}")),
            ScenarioError::UnsupportedVersion { found, supported } => invalid(
                f,
                &format_args!("scenario version {found} is not supported (this build reads version {supported})"),
            ),
            ScenarioError::NoAlgorithms => invalid(f, &"no algorithm to run"),
            ScenarioError::UnknownPlatformPreset { name, known } => invalid(
                f,
                &format_args!("unknown platform preset '{name}'; known: {}", known.join(", ")),
            ),
            ScenarioError::InvalidPlatform { reason }
            | ScenarioError::InvalidGenerator { reason }
            | ScenarioError::Merge { reason } => invalid(f, reason),
            ScenarioError::InvalidGridParams { label, reason } => {
                invalid(f, &format_args!("{label}: {reason}"))
            }
            ScenarioError::TooFewSites {
                workload_sites,
                platform,
                platform_sites,
            } => invalid(
                f,
                &format_args!("the workload has {workload_sites} sites but the platform '{platform}' only {platform_sites}"),
            ),
            ScenarioError::Load { reason, .. } => f.write_str(reason),
            ScenarioError::Swf(e) => e.fmt(f),
            ScenarioError::Limit(e) => e.fmt(f),
            ScenarioError::EmptyWorkload { name, summary } => {
                write!(f, "{name}: no runnable job to simulate\n{summary}")
            }
            ScenarioError::Sim(e) => e.fmt(f),
            ScenarioError::Invalid(m) => invalid(f, m),
        }
    }
}

impl std::error::Error for ScenarioError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ScenarioError::Swf(e) => Some(e),
            ScenarioError::Sim(e) => Some(e),
            _ => None,
        }
    }
}

/// serde says "unknown field `option`, expected one of `version`, …": add the nearest valid
/// name ("did you mean `options`?") when one is close (edit distance ≤ 3).
fn with_suggestion(message: String) -> String {
    let Some(rest) = message.strip_prefix("unknown field `") else {
        return message;
    };
    let Some((unknown, expected)) = rest.split_once('`') else {
        return message;
    };
    let nearest = expected
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|name| (edit_distance(unknown, name), name))
        .min();
    match nearest {
        Some((d, name)) if d <= 3 && d < unknown.len() => {
            format!("{message} — did you mean `{name}`?")
        }
        _ => message,
    }
}

/// Levenshtein distance (small strings: field names).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

impl Scenario {
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        // The version first: a file of another version should say so, not which of this
        // version's fields it lacks.
        #[derive(Deserialize)]
        struct Versioned {
            version: Option<serde_json::Value>,
        }
        if let Ok(Versioned {
            version: Some(serde_json::Value::Number(n)),
        }) = serde_json::from_str::<Versioned>(text)
        {
            let readable = OLDEST_SCENARIO_VERSION as u64..=SCENARIO_VERSION as u64;
            if let Some(v) = n.as_u64().filter(|v| !readable.contains(v)) {
                return Err(ScenarioError::UnsupportedVersion {
                    found: v.min(u32::MAX as u64) as u32,
                    supported: SCENARIO_VERSION,
                });
            }
        }
        let s: Scenario = serde_json::from_str(text).map_err(|e| ScenarioError::Json {
            detail: with_suggestion(e.to_string()),
        })?;
        if !(OLDEST_SCENARIO_VERSION..=SCENARIO_VERSION).contains(&s.version) {
            return Err(ScenarioError::UnsupportedVersion {
                found: s.version,
                supported: SCENARIO_VERSION,
            });
        }
        Ok(s.upgrade())
    }

    /// The same experiment in the current version, run to the same schedules: in version 1
    /// `conservative` was the rebuild, so it becomes `conservative-rebuild`, keeping its
    /// label (the name it had) so outputs name the run as before.
    pub fn upgrade(mut self) -> Scenario {
        if self.version < 2 {
            for a in &mut self.algorithms {
                if a.local == LocalPolicyKind::Conservative {
                    a.label = Some(a.label());
                    a.local = LocalPolicyKind::ConservativeRebuild;
                }
            }
        }
        self.version = SCENARIO_VERSION;
        self
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

/// A shared link whose [`Scenario::expected_job_runs`] passes this (about a few seconds of
/// simulation in a page; 17× the largest bundled preset) waits for the visitor's go.
pub const CONFIRM_ABOVE_JOB_RUNS: f64 = 2_000_000.0;

impl Scenario {
    /// The job-runs the scenario asks for before any file is read — a generator's expected
    /// jobs × the algorithms — or `None` when its jobs come from files (which the user
    /// picks). The page asks before a shared link starts more than it would run unasked.
    pub fn expected_job_runs(&self) -> Option<f64> {
        let jobs = match &self.workload {
            WorkloadSpec::SesPoisson(g) => g.jobs as f64,
            WorkloadSpec::Lublin(g) => g.jobs as f64,
            WorkloadSpec::HyperErlang { sites } => sites
                .iter()
                .map(|g| g.expected_jobs().unwrap_or(f64::INFINITY))
                .sum(),
            _ => return None,
        };
        Some(jobs * self.algorithms.len() as f64)
    }

    /// The limits the scenario's own description can pass — the sites it names, the jobs
    /// it asks a generator for — checked before anything is built from it: the page checks
    /// a shared link here before it renders a row per site (a 2 KB link can name 12,000).
    pub fn check_limits(&self, limits: &Limits) -> Result<(), LimitExceeded> {
        if let PlatformSpec::Sites { name, sites } = &self.platform {
            limits.check(
                Limit::Sites,
                sites.len() as u64,
                &format!("platform '{name}'"),
            )?;
        }
        match &self.workload {
            WorkloadSpec::HyperErlang { sites } => {
                limits.check(
                    Limit::Sites,
                    sites.len() as u64,
                    "the hyper-Erlang workload",
                )?;
                check_draws(sites, limits)
            }
            WorkloadSpec::SwfSites { files, .. } => limits.check(
                Limit::Sites,
                files.len() as u64,
                "the workload's per-site files",
            ),
            WorkloadSpec::SesPoisson(g) => {
                limits.check(Limit::Jobs, g.jobs as u64, "the SES Poisson workload")
            }
            WorkloadSpec::Lublin(g) => {
                limits.check(Limit::Jobs, g.jobs as u64, "the Lublin workload")
            }
            WorkloadSpec::Swf { .. }
            | WorkloadSpec::SwfPartitions { .. }
            | WorkloadSpec::OriginSites { .. } => Ok(()),
        }
    }

    /// A named scenario preset (`demo`, the SOB presets); `None` for an unknown name.
    pub fn preset(name: &str) -> Option<Scenario> {
        if name == "demo" {
            return Some(Scenario::demo());
        }
        presets::sob_scenario(name)
    }
}

/// A hyper-Erlang workload's expected draws (jobs × Erlang orders) against the limit:
/// an order-1000 model drawing 5 M jobs ran 80 s unasked. Parameters that do not resolve
/// pass here; generating reports them.
fn check_draws(sites: &[HyperErlangWorkload], limits: &Limits) -> Result<(), LimitExceeded> {
    let draws: f64 = sites
        .iter()
        .map(|g| g.expected_draws().unwrap_or(0.0))
        .sum();
    if draws.is_nan() || draws > limits.generator_draws as f64 {
        return Err(LimitExceeded {
            limit: Limit::GeneratorDraws,
            max: limits.generator_draws,
            context: format!("the hyper-Erlang workload (about {draws:.2e} draws expected)"),
        });
    }
    Ok(())
}

/// Loads the workload the scenario names. `load(file)` returns a file's bytes. Files are
/// read within `limits`; a generated workload is held to the same job limit.
pub fn load_workload(
    scenario: &Scenario,
    limits: &Limits,
    load: &mut dyn FnMut(&str) -> Result<Vec<u8>, String>,
) -> Result<Workload, ScenarioError> {
    let w = load_unchecked(scenario, limits, load)?;
    limits
        .check(
            Limit::Jobs,
            w.jobs.len() as u64,
            &format!("workload '{}'", w.name),
        )
        .map_err(ScenarioError::Limit)?;
    Ok(w)
}

fn load_unchecked(
    scenario: &Scenario,
    limits: &Limits,
    load: &mut dyn FnMut(&str) -> Result<Vec<u8>, String>,
) -> Result<Workload, ScenarioError> {
    let read_as = |load: &mut dyn FnMut(&str) -> Result<Vec<u8>, String>,
                   file: &str,
                   strict: bool,
                   trace: &TraceOptions| {
        let bytes = load(file).map_err(|reason| ScenarioError::Load {
            file: file.to_string(),
            reason,
        })?;
        let opts = SwfOptions {
            strict,
            limits: *limits,
        };
        read_trace(file, &bytes, &opts, trace).map_err(ScenarioError::Swf)
    };
    let read = |load: &mut dyn FnMut(&str) -> Result<Vec<u8>, String>, file: &str, strict: bool| {
        read_as(load, file, strict, &TraceOptions::default())
    };
    match &scenario.workload {
        WorkloadSpec::Swf {
            file,
            strict,
            format,
            utc_offset_min,
        } => {
            let trace = TraceOptions {
                format: *format,
                utc_offset_min: *utc_offset_min,
            };
            let mut w = read_as(load, file, *strict, &trace)?;
            w.on_one_site();
            Ok(w)
        }
        WorkloadSpec::OriginSites {
            file,
            strict,
            format,
        } => {
            let trace = TraceOptions {
                format: *format,
                utc_offset_min: 0,
            };
            read_as(load, file, *strict, &trace)
        }
        WorkloadSpec::SesPoisson(g) => g
            .generate(scenario.seed)
            .map_err(|reason| ScenarioError::InvalidGenerator { reason }),
        WorkloadSpec::Lublin(g) => {
            // Checked before drawing: a link asking for a billion jobs is refused unallocated.
            limits
                .check(Limit::Jobs, g.jobs as u64, "the Lublin–Feitelson workload")
                .map_err(ScenarioError::Limit)?;
            g.generate(scenario.seed)
                .map_err(|reason| ScenarioError::InvalidGenerator { reason })
        }
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
            merge_sites(parts, *align, *window).map_err(|reason| ScenarioError::Merge { reason })
        }
        WorkloadSpec::SwfPartitions { file, strict } => {
            let (w, _) = split_by_partition(read(load, file, *strict)?);
            Ok(w)
        }
        WorkloadSpec::HyperErlang { sites } => {
            // Checked before drawing: a link asking for thousands of sites of millions of
            // jobs is refused without allocating them.
            limits
                .check(
                    Limit::Sites,
                    sites.len() as u64,
                    "the hyper-Erlang workload",
                )
                .map_err(ScenarioError::Limit)?;
            let mut expected = 0f64;
            for g in sites {
                expected += g
                    .expected_jobs()
                    .map_err(|reason| ScenarioError::InvalidGenerator { reason })?;
            }
            if expected.is_nan() || expected > limits.jobs as f64 {
                return Err(ScenarioError::Limit(LimitExceeded {
                    limit: Limit::Jobs,
                    max: limits.jobs,
                    context: format!(
                        "the hyper-Erlang workload (about {expected:.0} jobs expected)"
                    ),
                }));
            }
            check_draws(sites, limits).map_err(ScenarioError::Limit)?;
            let parts = sites
                .iter()
                .enumerate()
                .map(|(i, g)| {
                    // Each site's own stream: the scenario seed and the site index.
                    let seed = scenario.seed.wrapping_mul(1_000_003).wrapping_add(i as u64);
                    g.generate(seed)
                        .map_err(|reason| ScenarioError::InvalidGenerator { reason })
                })
                .collect::<Result<Vec<_>, _>>()?;
            merge_sites(parts, Align::Zero, None).map_err(|reason| ScenarioError::Merge { reason })
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
            let p = platform_preset(name).ok_or_else(|| ScenarioError::UnknownPlatformPreset {
                name: name.clone(),
                known: PLATFORM_PRESETS.iter().map(|p| p.0.to_string()).collect(),
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
            // A job clamped on import (it asked for more than 2³² − 1 processors) is wider
            // than any site can be: it does not size the platform, it is rejected.
            let widest = workload
                .jobs
                .iter()
                .map(|j| j.procs)
                .filter(|&p| p <= MAX_SITE_UNITS)
                .max()
                .unwrap_or(1);
            let clamp = |n: u64| n.min(u64::from(MAX_SITE_UNITS)) as u32;
            let clamped = |n: u64| match n > u64::from(MAX_SITE_UNITS) {
                true => format!(" ({n}, clamped to {MAX_SITE_UNITS}: the most a site can have)"),
                false => String::new(),
            };
            let (n, why) = match (procs, h.max_procs, h.max_nodes) {
                (Some(p), _, _) => (
                    *p,
                    "the size given (--procs or the scenario's procs)".to_string(),
                ),
                (None, Some(p), _) => (clamp(p), format!("the header's MaxProcs{}", clamped(p))),
                (None, None, Some(n)) => (
                    clamp(n),
                    format!("the header's MaxNodes (no MaxProcs){}", clamped(n)),
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
    platform
        .0
        .validate()
        .map_err(|reason| ScenarioError::InvalidPlatform { reason })?;
    Ok(platform)
}

/// The platform SES's node-group selection runs on: each node group of the one site becomes
/// a node-exclusive site of its own (name, nodes, CPUs per node; the site's speed). A
/// platform of several sites, or of one without groups, is taken as it is: its sites are the
/// groups.
pub fn group_platform(platform: &Platform) -> Result<Platform, ScenarioError> {
    let [site] = platform.sites.as_slice() else {
        return Ok(platform.clone());
    };
    if site.groups.is_empty() {
        return Ok(platform.clone());
    }
    let sites = site
        .groups
        .iter()
        .map(|g| Site {
            name: g.name.clone(),
            nodes: g.nodes,
            cpus_per_node: g.cpus_per_node,
            speed: site.speed,
            allocation: crate::model::Allocation::Node,
            groups: Vec::new(),
        })
        .collect();
    let expanded = Platform {
        name: format!("{} (node groups)", platform.name),
        sites,
    };
    expanded
        .validate()
        .map_err(|reason| ScenarioError::InvalidPlatform { reason })?;
    Ok(expanded)
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

#[cfg(test)]
mod tests;

/// Serde's test for leaving a default number out of a scenario file.
fn is_zero(v: &i32) -> bool {
    *v == 0
}
