//! A scenario: everything that defines an experiment — platform, workload, algorithms,
//! options and seed — as one serializable value. The CLI reads it from JSON files, the web
//! app puts it in its share URLs; both run it through [`run_scenario`], so the same scenario
//! gives the same bytes everywhere.
//!
//! This file holds the value, its specs and its reading (the version upgrade); beside it,
//! `serde_engine.rs` the serde forms of the engine's options, `error.rs` [`ScenarioError`],
//! `load.rs` the workload, `platform.rs` the platform and `report.rs` what a run produced.

pub mod carbon;
mod cost;
pub mod energy;
mod error;
pub mod explain;
pub mod failures;
pub mod link;
mod load;
pub mod manifest;
pub mod merged;
mod platform;
mod platform_file;
mod presets;
mod report;
mod run;
mod run_report;
mod runner;
mod serde_engine;
pub mod ses;
pub mod sprio;
pub mod steps;

pub use cost::CONFIRM_ABOVE_PLAN_WORK;
pub use error::ScenarioError;
pub use load::load_workload;
pub use platform::{group_platform, resolve_platform};
pub use platform_file::read_platform_file;
pub use presets::{platform_preset, PLATFORM_PRESETS, SCENARIO_PRESETS};
pub use report::{conventions, jobs_csv, Conventions, Report, RunReport};
pub use run::{
    hand_out_order, run_loaded, run_loaded_on, run_loaded_with_carbon, run_loaded_with_outages,
    run_scenario,
};
pub use run_report::{run_report, run_report_on};
pub use runner::{check_algorithm, prepare, PolicyFactory, PreparedScenario, ScenarioRun, Slice};

use serde::{Deserialize, Serialize};

use crate::engine::RunConfig;
use crate::limits::{Limit, LimitExceeded, Limits};
use crate::model::{PlacementRule, Site};
use crate::policy::grid::{GridParams, GridScheme, IdealDiscipline};
use crate::policy::local::LocalPolicyKind;
use crate::policy::slurm::SlurmConfig;
use crate::workload::hyper_erlang::HyperErlangWorkload;
use crate::workload::{Align, Lublin, SesPoisson, TraceFormat, Window};
use error::with_suggestion;
use load::check_draws;
use serde_engine::RunConfigDef;

/// The scenario format written now. Version 2 (2026-11) made `conservative` mean
/// compression; a version-1 file or link is read as it ran then (see [`Scenario::upgrade`]).
/// Version 3 (issue #37) lets a site list `node_types` (nodes with cores, memory and GPUs):
/// a scenario is written in the lowest version that describes it ([`Scenario::upgrade`]),
/// so one without node types stays version 2 and keeps its bytes (share links, manifest
/// case ids). Version 4 (issue #41) adds `failures`, likewise written only when present;
/// version 5 (issue #40) an algorithm's `power_off_after_s` and `carbon_slack_s` and a node
/// type's `power`, likewise; version 6 the grid's `carbon` intensity and an algorithm's
/// `power_cap_w`, likewise; version 7 (issue #37) the Lublin model's GPU and memory jobs
/// (`gpu_share`, `gpus_per_job`, `mem_share`, `mem_kb_per_proc`), likewise; version 8
/// (issue #37) an algorithm's `placement` (best fit), likewise; version 9 (issue #41)
/// checkpointing's `per_job` and `within_limit`, likewise; version 10 (issue #37)
/// node-exclusive node types (`allocation: node` on a site with `node_types`), likewise;
/// version 11 a node type's `exclusive`, likewise; version 12 (issue #41) failures'
/// `"requeue_at": "grid"`, likewise.
pub const SCENARIO_VERSION: u32 = 2;
/// The first version whose sites may list node types.
pub const NODE_TYPES_VERSION: u32 = 3;
/// The first version with `failures` (issue #41), written only when there are some.
pub const FAILURES_VERSION: u32 = 4;
/// The first version with an algorithm's `power_off_after_s` and `carbon_slack_s` and a node
/// type's `power` (issue #40), written only when one is there.
pub const POWER_VERSION: u32 = 5;
/// The first version with the grid's `carbon` intensity and an algorithm's `power_cap_w`
/// (issue #40), written only when one is there.
pub const CARBON_VERSION: u32 = 6;
/// The first version whose Lublin workload may draw GPU and memory jobs (issue #37),
/// written only when it does.
pub const DEMANDS_VERSION: u32 = 7;
/// The first version with an algorithm's `placement` (issue #37), written only when it is
/// not first fit.
pub const PLACEMENT_VERSION: u32 = 8;
/// The first version whose checkpointing may take a per-job interval or count against
/// the limit (issue #41), written only when it does.
pub const CHECKPOINT_VERSION: u32 = 9;
/// The first version whose sites with node types may be node-exclusive (`allocation:
/// node`, issue #37): written only when one is. Older builds refused the pair.
pub const EXCLUSIVE_NODES_VERSION: u32 = 10;
/// The first version whose node types may be node-exclusive one by one (`"exclusive":
/// true` on a type: an exclusive GPU partition beside shared CPU nodes, issue #37),
/// written only when one is. Older builds refused the field.
pub const EXCLUSIVE_TYPES_VERSION: u32 = 11;
/// The first version whose failures may offer a killed job to the grid again
/// (`"requeue_at": "grid"`, issue #41), written only when they do. Older builds refused
/// the value.
pub const REQUEUE_GRID_VERSION: u32 = 12;
/// The newest version read.
pub const NEWEST_SCENARIO_VERSION: u32 = REQUEUE_GRID_VERSION;
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
    /// Nodes that go down in every run (issue #41, docs/failures.md; version 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failures: Option<failures::FailureSpec>,
    /// The grid's carbon intensity (issue #40, docs/energy.md; version 6): runs on powered
    /// nodes report their emissions under it, and an algorithm's `carbon_slack_s` holds
    /// jobs to its cleaner hours.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carbon: Option<carbon::CarbonSpec>,
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
    /// The `slurm` policy's configuration (docs/slurm.md); Slurm's documented defaults when
    /// absent. Only `local: "slurm"` takes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slurm: Option<SlurmConfig>,
    /// Switch a node off once no job has held it this many seconds (issue #40,
    /// docs/energy.md; version 5): a job placed on a sleeping node waits for its boot.
    /// Absent: every node stays on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power_off_after_s: Option<f64>,
    /// Carbon-aware delay (issue #40, docs/energy.md; version 5): each job is held until the
    /// start within this many seconds of its submission where the grid's carbon intensity
    /// over its estimated run is lowest (needs a carbon series). Absent: no delay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carbon_slack_s: Option<f64>,
    /// Each powered site draws at most this many watts (issue #40, docs/energy.md "Power
    /// cap"; version 6): a start that could pass it waits. Absent: no cap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power_cap_w: Option<f64>,
    /// How a start picks its nodes on node-typed sites (issue #37, docs/nodes.md; version
    /// 8): `first_fit` (node order, the default) or `best_fit` (least free first).
    #[serde(default, skip_serializing_if = "PlacementRule::is_first_fit")]
    pub placement: PlacementRule,
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
            slurm: None,
            power_off_after_s: None,
            carbon_slack_s: None,
            power_cap_w: None,
            placement: PlacementRule::FirstFit,
        }
    }
}

/// Each algorithm with each placement rule of `list`, side by side: easy, easy, best-fit, …
pub fn with_placements(
    algorithms: Vec<AlgorithmSpec>,
    list: &[PlacementRule],
) -> Vec<AlgorithmSpec> {
    energy::side_by_side(algorithms, list, |a, rule| a.placement = rule)
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

    /// The label given, else the algorithm's name (with the idle time after which nodes
    /// are switched off: `easy, off after 600 s`).
    pub fn label(&self) -> String {
        if let Some(label) = &self.label {
            return label.clone();
        }
        let mut label = self.algorithm();
        if !self.placement.is_first_fit() {
            label.push_str(&format!(", {}", self.placement.name()));
        }
        if let Some(s) = self.power_off_after_s {
            label.push_str(&format!(", off after {s} s"));
        }
        if let Some(w) = self.power_cap_w {
            label.push_str(&format!(", cap {w} W"));
        }
        if let Some(s) = self.carbon_slack_s {
            label.push_str(&format!(", carbon slack {s} s"));
        }
        label
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
            let readable = OLDEST_SCENARIO_VERSION as u64..=NEWEST_SCENARIO_VERSION as u64;
            if let Some(v) = n.as_u64().filter(|v| !readable.contains(v)) {
                return Err(ScenarioError::UnsupportedVersion {
                    found: v.min(u32::MAX as u64) as u32,
                    supported: NEWEST_SCENARIO_VERSION,
                });
            }
        }
        let s: Scenario = serde_json::from_str(text).map_err(|e| ScenarioError::Json {
            detail: with_suggestion(e.to_string()),
        })?;
        if !(OLDEST_SCENARIO_VERSION..=NEWEST_SCENARIO_VERSION).contains(&s.version) {
            return Err(ScenarioError::UnsupportedVersion {
                found: s.version,
                supported: NEWEST_SCENARIO_VERSION,
            });
        }
        if let PlatformSpec::Sites { sites, .. } = &s.platform {
            if s.version < NODE_TYPES_VERSION {
                if let Some(site) = sites.iter().find(|site| site.has_nodes()) {
                    return Err(ScenarioError::InvalidPlatform {
                        reason: format!(
                            "site '{}' lists node_types, which came in scenario version {NODE_TYPES_VERSION}; this file says version {}",
                            site.name, s.version
                        ),
                    });
                }
            }
        }
        if s.version < DEMANDS_VERSION && s.draws_demands() {
            return Err(ScenarioError::InvalidGenerator {
                reason: format!(
                    "the Lublin workload draws GPU or memory jobs, which came in scenario version {DEMANDS_VERSION}; this file says version {}",
                    s.version
                ),
            });
        }
        if s.version < PLACEMENT_VERSION && s.places_other_than_first_fit() {
            return Err(ScenarioError::Invalid(format!(
                "an algorithm's \"placement\" came in scenario version {PLACEMENT_VERSION}; this file says version {}",
                s.version
            )));
        }
        if s.version < EXCLUSIVE_NODES_VERSION && s.has_exclusive_node_types() {
            return Err(ScenarioError::InvalidPlatform {
                reason: format!(
                    "a site with node_types and \"allocation\": \"node\" (node-exclusive) came in scenario version {EXCLUSIVE_NODES_VERSION}; this file says version {}",
                    s.version
                ),
            });
        }
        if s.version < EXCLUSIVE_TYPES_VERSION && s.has_exclusive_type_flags() {
            return Err(ScenarioError::InvalidPlatform {
                reason: format!(
                    "a node type's \"exclusive\" came in scenario version {EXCLUSIVE_TYPES_VERSION}; this file says version {}",
                    s.version
                ),
            });
        }
        if s.version < REQUEUE_GRID_VERSION && s.requeues_to_grid() {
            return Err(ScenarioError::Invalid(format!(
                "failures' \"requeue_at\": \"grid\" came in scenario version {REQUEUE_GRID_VERSION}; this file says version {}",
                s.version
            )));
        }
        if s.version < CHECKPOINT_VERSION && s.checkpoints_v9() {
            return Err(ScenarioError::Invalid(format!(
                "checkpointing's \"per_job\" and \"within_limit\" came in scenario version {CHECKPOINT_VERSION}; this file says version {}",
                s.version
            )));
        }
        Ok(s.upgrade())
    }

    /// True when a killed job is offered to the grid again (version 12).
    pub fn requeues_to_grid(&self) -> bool {
        let at = self.failures.as_ref().map(|f| f.requeue_at);
        at == Some(crate::failure::RequeueAt::Grid)
    }

    /// True when checkpointing takes a per-job interval or counts against the limit
    /// (version 9).
    pub fn checkpoints_v9(&self) -> bool {
        let checkpoint = self.failures.as_ref().and_then(|f| f.checkpoint);
        checkpoint.is_some_and(|c| c.is_v9())
    }

    /// True when an algorithm places by another rule than first fit (version 8).
    pub fn places_other_than_first_fit(&self) -> bool {
        self.algorithms.iter().any(|a| !a.placement.is_first_fit())
    }

    /// True when the workload is a Lublin model with GPU or memory fields (version 7).
    pub fn draws_demands(&self) -> bool {
        matches!(&self.workload, WorkloadSpec::Lublin(g) if g.states_demands())
    }

    /// The same experiment in the current version (3 with node types, else 2), run to the
    /// same schedules: in version 1
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
        // Power models on node types came with version 5 too: an older reader would refuse
        // the field without saying the link is newer than it.
        let switches_off = self
            .algorithms
            .iter()
            .any(|a| a.power_off_after_s.is_some() || a.carbon_slack_s.is_some())
            || self.has_power_models();
        let capped = self.algorithms.iter().any(|a| a.power_cap_w.is_some());
        self.version = if self.requeues_to_grid() {
            REQUEUE_GRID_VERSION
        } else if self.has_exclusive_type_flags() {
            EXCLUSIVE_TYPES_VERSION
        } else if self.has_exclusive_node_types() {
            EXCLUSIVE_NODES_VERSION
        } else if self.checkpoints_v9() {
            CHECKPOINT_VERSION
        } else if self.places_other_than_first_fit() {
            PLACEMENT_VERSION
        } else if self.draws_demands() {
            DEMANDS_VERSION
        } else if self.carbon.is_some() || capped {
            CARBON_VERSION
        } else if switches_off {
            POWER_VERSION
        } else if self.failures.is_some() {
            FAILURES_VERSION
        } else if self.has_node_types() {
            NODE_TYPES_VERSION
        } else {
            SCENARIO_VERSION
        };
        self
    }

    /// True when a node type of an explicit platform says what it draws (version 5).
    pub fn has_power_models(&self) -> bool {
        matches!(&self.platform, PlatformSpec::Sites { sites, .. }
            if sites.iter().any(|s| s.node_types.iter().any(|t| t.power.is_some())))
    }

    /// True when a site of an explicit platform lists node types (version 3).
    pub fn has_node_types(&self) -> bool {
        matches!(&self.platform, PlatformSpec::Sites { sites, .. } if sites.iter().any(|s| s.has_nodes()))
    }

    /// True when a site with node types is node-exclusive (`allocation: node`, version 10).
    pub fn has_exclusive_node_types(&self) -> bool {
        matches!(&self.platform, PlatformSpec::Sites { sites, .. }
            if sites.iter().any(|s| s.has_nodes() && s.allocation == crate::model::Allocation::Node))
    }

    /// True when a node type is node-exclusive by itself (`"exclusive": true`, version 11).
    pub fn has_exclusive_type_flags(&self) -> bool {
        matches!(&self.platform, PlatformSpec::Sites { sites, .. }
            if sites.iter().any(|s| s.node_types.iter().any(|t| t.exclusive)))
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The built-in demo: SES's Poisson workload (2,000 jobs) on one 128-processor site,
    /// every local policy. Offered load ≈ 72 %.
    pub fn demo() -> Scenario {
        Scenario {
            failures: None,
            carbon: None,
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
    /// The demo's workload on 128 one-core nodes that draw as Batsim's `cluster_energy_128`
    /// host; FCFS, EASY and conservative always on and with idle nodes switched off after
    /// 600 s and 60 s (issue #40, docs/energy.md).
    pub fn energy_demo() -> Scenario {
        let mut site = Site::flat("cluster", 128);
        site.node_types = vec![crate::model::NodeType {
            name: "n".into(),
            count: 128,
            cores: 1,
            mem_kb: 0,
            gpus: 0,
            power: Some(crate::energy::PowerModel::BATSIM_CLUSTER_ENERGY_128),
            exclusive: false,
        }];
        let bases = [
            LocalPolicyKind::Fcfs,
            LocalPolicyKind::Easy,
            LocalPolicyKind::Conservative,
        ]
        .map(AlgorithmSpec::local);
        Scenario {
            name: "energy-demo: switching idle nodes off, 128 nodes of Batsim's host".into(),
            platform: PlatformSpec::Sites {
                name: "energy-demo".into(),
                sites: vec![site],
            },
            algorithms: energy::with_idle_timeouts(bases.into(), &[None, Some(600.0), Some(60.0)]),
            ..Scenario::demo()
        }
        .upgrade()
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
        if name == "energy-demo" {
            return Some(Scenario::energy_demo());
        }
        match name {
            "gpu-cluster" => return Some(presets::gpu_cluster()),
            "memory-cluster" => return Some(presets::memory_cluster()),
            _ => {}
        }
        presets::sob_scenario(name)
    }
}

#[cfg(test)]
mod tests;

/// Serde's test for leaving a default number out of a scenario file.
fn is_zero(v: &i32) -> bool {
    *v == 0
}
