//! Messages between the page and the engine worker, as typed values on both sides. Both
//! sides are this crate: `EngineWorker::send` and the worker's `post` carry them as JSON
//! text (engine types cross as their own serde JSON; `float_roundtrip` keeps every f64 to
//! the bit), plus, for `Load`, the dropped `File` object itself (structured-cloned, read in
//! the worker). Nothing on the page reads a message by string key. A paper family's run (a
//! registry family's preset as its `RunSpec`, or the report card) is one
//! [`ToWorker::Family`] carrying a [`FamilyRequest`], answered by progress and a
//! [`FamilyResult`] (`worker::families`).

use serde::{Deserialize, Serialize};

use crate::family::RunSpec;
use crate::model::{Platform, Site};
use crate::scenario::{RunReport, Scenario};
use crate::workload::ImportReport;

/// A dropped or picked file as the share URL records it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileInfo {
    pub name: String,
    pub size: u64,
    /// Lower-case hex SHA-256 of the file's bytes (as dropped, before any gunzip).
    pub sha256: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "cmd", rename_all = "snake_case")]
pub enum ToWorker {
    /// Read, hash and import the attached file.
    Load {
        name: String,
    },
    Forget {
        name: String,
    },
    /// Runs every algorithm of the scenario, in slices; replaces a run going on.
    Run {
        scenario: Scenario,
        /// Engine workers the runs may be spread over (the page's
        /// `navigator.hardwareConcurrency`; 0 or 1: this worker runs them one after the
        /// other). Added later, hence the default.
        #[serde(default)]
        workers: u32,
    },
    /// The pooled run `tag` as the coordinator prepared it, its jobs attached as bytes
    /// (`worker::encode_jobs`): sent to a pool worker before its first `RunPart` of the
    /// run, so that it neither reads a file nor generates a workload again.
    RunBase {
        tag: u64,
        base: Box<PreparedRun>,
    },
    /// A pool worker's share of a `Run`: run `index` of the pooled run `tag` (whose
    /// `RunBase` came first) alone, answered by `PartProgress` and `PartDone` (or
    /// `PartFailed`), each carrying `tag`.
    RunPart {
        tag: u64,
        index: usize,
    },
    /// Holds the run going on after its current slice (answered by `Paused`).
    Pause,
    Resume,
    /// Drops the run going on; the worker lives on (answered by `Cancelled`).
    Cancel,
    /// Processor (unit) allocation of one site of one run, for the Gantt chart.
    Gantt {
        run: usize,
        site: usize,
        from_s: f64,
        to_s: f64,
    },
    Export {
        what: ExportKind,
        run: usize,
    },
    /// Per-job A/B of two runs of the last result (`metrics::compare`, issue #29).
    Compare {
        a: usize,
        b: usize,
    },
    /// Fits the SOB hyper-Erlang model to a loaded file (`hyper_erlang::fit_classes`).
    Fit {
        name: String,
        cpus_per_node: u32,
        /// Moments (SOB §3.1, the default) or maximum likelihood.
        #[serde(default)]
        method: crate::workload::hyper_erlang::FitMethod,
    },
    /// Runs this worker's share of an SF allocation sweep (a preset's spec as the page's
    /// fields left it): tasks `worker`, `worker + of`, `worker + 2·of`, … of
    /// [`crate::allocation::sweep::SweepPlan`]; answered by `SweepPartDone`.
    SweepPart {
        spec: crate::allocation::sweep::SweepSpec,
        seeds: u64,
        batches: u64,
        worker: u64,
        of: u64,
    },
    /// Runs a paper family's preset or the report card ([`FamilyRequest`], run by
    /// `worker::families`).
    Family {
        request: FamilyRequest,
    },
    /// The step-by-step view of run `algorithm` at `site` (`scenario::steps::trace_steps`).
    Steps {
        scenario: Scenario,
        algorithm: usize,
        site: usize,
        /// The window's start, seconds after the first submission.
        #[serde(default)]
        from_s: f64,
        max_steps: usize,
    },
    /// Why job `job` of run `algorithm` waited (`scenario::explain`).
    Explain {
        scenario: Scenario,
        algorithm: usize,
        job: i64,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExportKind {
    /// Per-job CSV of one run (`jobs_csv`).
    JobsCsv,
    /// The workload of the last run as SWF (generated or imported).
    WorkloadSwf,
    /// The synthetic workload drawn from the last hyper-Erlang fit, as SWF (`run` unused).
    SyntheticSwf,
    /// One run's jobs in Batsim's jobs.csv schema, which evalys reads (issue #29).
    BatsimJobsCsv,
    /// The workload of the last run as a Batsim JSON workload (`run` unused).
    WorkloadBatsimJson,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "ev", rename_all = "snake_case")]
pub enum FromWorker {
    Ready,
    Loaded {
        file: FileInfo,
        jobs: u64,
        summary: String,
        report: Box<ImportReport>,
        /// The one site this trace alone would run on (`PlatformSpec::FromTrace`: the
        /// header's MaxProcs, else MaxNodes, else the widest job): several files dropped
        /// together become a platform of these, one per file. Added later, hence the
        /// default.
        #[serde(default)]
        site: Option<Site>,
    },
    LoadFailed {
        name: String,
        error: String,
    },
    Started {
        platform: Platform,
        platform_note: String,
        import_summary: String,
        jobs: u64,
        algorithms: usize,
        /// The workload's offered load on the platform (`metrics::offered_load`).
        #[serde(default)]
        offered_load: Option<f64>,
    },
    Progress {
        run: usize,
        done: u64,
        total: u64,
        /// Runs going on at once (spread over a pool of workers): `run` is the first of
        /// them and `done`/`total` add up theirs. Added later: 0 reads as 1.
        #[serde(default)]
        in_flight: usize,
    },
    RunResult(Box<RunResult>),
    /// The run holds at this point until `Resume`.
    Paused {
        run: usize,
        done: u64,
        total: u64,
    },
    Resumed,
    /// The answer to `Cancel`: what the worker said about the run before this belongs to the
    /// cancelled run. `runs` had finished.
    Cancelled {
        runs: usize,
    },
    Done {
        report_json: String,
        elapsed_ms: f64,
    },
    Failed {
        message: String,
    },
    Gantt(Box<GanttData>),
    /// The answer to `Compare`.
    Compared(Box<AbData>),
    Export {
        filename: String,
        mime: String,
        text: String,
    },
    Fitted {
        name: String,
        cpus_per_node: u32,
        classes: Vec<crate::workload::hyper_erlang::FittedClass>,
        /// The trace beside a synthetic workload drawn from the fit (added later: absent
        /// from older workers, hence the default).
        #[serde(default)]
        compare: Option<Box<FitCompare>>,
        /// Kolmogorov–Smirnov distances of the fit (added later, hence the default).
        #[serde(default)]
        quality: Option<crate::workload::fit_quality::FitQuality>,
        #[serde(default)]
        method: crate::workload::hyper_erlang::FitMethod,
    },
    FitFailed {
        name: String,
        error: String,
    },
    SweepProgress {
        done: u64,
        total: u64,
    },
    /// One worker's share of a sweep, in task order; the page assembles the parts.
    SweepPartDone {
        worker: u64,
        samples: Vec<Result<crate::allocation::sweep::SweepSample, String>>,
    },
    SweepFailed {
        message: String,
    },
    /// A family run (`worker::families`): `done` of `total` seeds or points.
    FamilyProgress {
        done: u64,
        total: u64,
    },
    FamilyDone {
        result: Box<FamilyResult>,
        elapsed_ms: f64,
    },
    FamilyFailed {
        message: String,
    },
    Steps {
        algorithm: usize,
        site: usize,
        frames: Vec<crate::scenario::steps::StepFrame>,
    },
    /// A pool worker's progress on its run (to the coordinating worker, not the page).
    PartProgress {
        tag: u64,
        index: usize,
        done: u64,
        total: u64,
    },
    /// A pool worker's finished run: what the page gets of it (computed there, so the
    /// coordinator only forwards it in run order), its per-job outcomes riding along as
    /// bytes (`worker::pool::encode_outcomes`), the report's JSON skipping them.
    PartDone {
        tag: u64,
        index: usize,
        result: Box<RunResult>,
    },
    PartFailed {
        tag: u64,
        index: usize,
        message: String,
    },
    StepsFailed {
        message: String,
    },
    Explained {
        explanation: crate::scenario::explain::Explanation,
    },
    ExplainFailed {
        message: String,
    },
}

/// The loaded trace and a synthetic workload drawn from its fit (`hyper_erlang::synthesize`),
/// as empirical CDFs computed in the worker (a few hundred points each).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FitCompare {
    pub original: crate::metrics::WorkloadCdfs,
    /// Empty (zero jobs) when the draw failed; `error` says why.
    pub synthetic: crate::metrics::WorkloadCdfs,
    pub seed: u64,
    /// Arrivals of the synthetic workload stop here: the trace's last submit, seconds.
    pub horizon_s: f64,
    #[serde(default)]
    pub error: Option<String>,
}

/// The engine's sweep result crosses to the page as is (it owns its strings).
pub type SweepData = crate::allocation::sweep::SweepResult;

/// A scenario prepared for its runs (platform resolved, jobs checked), all but the jobs:
/// what a pool worker needs besides them to run its share ([`ToWorker::RunBase`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PreparedRun {
    pub scenario: Scenario,
    pub platform: Platform,
    pub platform_note: String,
    /// The workload's name and origin (ticks), and what its import decided.
    pub workload: String,
    pub origin: i64,
    pub report: ImportReport,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    pub idx: usize,
    /// The run's report (label, algorithm, metrics, rejected, events, max_queue); its
    /// per-job outcomes stay in the worker.
    pub report: RunReport,
    /// (wait seconds, fraction of jobs with a wait ≤ it), ascending.
    pub wait_cdf: Vec<(f64, f64)>,
    pub series: SeriesData,
    pub elapsed_ms: f64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SeriesData {
    pub bucket_s: f64,
    pub sites: Vec<SiteSeriesData>,
    /// The grid's mean carbon intensity per bucket in g/kWh, when the scenario has one
    /// (issue #40; else empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub carbon_g_per_kwh: Vec<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SiteSeriesData {
    pub name: String,
    pub utilization: Vec<f64>,
    pub queue_length: Vec<f64>,
    /// The share of the site's nodes up per bucket, in a run with failures (else empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nodes_up: Vec<f64>,
    /// Memory held / the nodes' memory per bucket, on a node-typed site with memory (issue
    /// #37; else empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub memory: Vec<f64>,
    /// GPUs held / the nodes' GPUs per bucket, on a node-typed site with GPUs (else empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gpus: Vec<f64>,
    /// Idle cores stranded / the nodes' cores per bucket, on a node-typed site with memory
    /// or GPUs (else empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cores_stranded: Vec<f64>,
    /// Free memory stranded on nodes with every core taken / the nodes' memory per bucket,
    /// on a node-typed site with memory (else empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub memory_stranded: Vec<f64>,
    /// Free GPUs stranded on nodes with every core taken / the nodes' GPUs per bucket, on a
    /// node-typed site with GPUs (else empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gpus_stranded: Vec<f64>,
    /// The site's mean power per bucket in watts, when its nodes have power models (issue
    /// #40; else empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub power_w: Vec<f64>,
    /// Mean nodes per bucket computing, idle, switching (off or booting) and off, when its
    /// nodes have power models (else empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub node_states: Vec<[f64; 4]>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GanttData {
    pub run: usize,
    pub site: usize,
    pub from_s: f64,
    pub to_s: f64,
    /// Allocation units of the site (processors or nodes).
    pub capacity: u32,
    pub unit: String,
    /// (job id, start s, end s, first unit, units): one rectangle per contiguous block.
    pub rects: Vec<(i64, f64, f64, u32, u32)>,
    /// Runs a failure killed, as `rects` (issue #41; node-typed sites).
    #[serde(default)]
    pub killed: Vec<(i64, f64, f64, u32, u32)>,
    /// Nodes down: (start s, end s, first unit, units) (issue #41).
    #[serde(default)]
    pub down: Vec<(f64, f64, u32, u32)>,
    /// More jobs fell in the window than were drawn.
    pub truncated: bool,
}

/// Two runs compared job by job: the comparison and, for the scatter, every paired job
/// binned by its two waits, the jobs marked on it (the extremes), and the jobs the pointer
/// can pick (at most [`AB_POINTS`], evenly spaced in A's order when there are more, and the
/// marked ones).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AbData {
    pub a: usize,
    pub b: usize,
    pub comparison: crate::metrics::compare::Comparison,
    /// (job id, wait under A s, wait under B s).
    pub points: Vec<(i64, f64, f64)>,
    /// Every paired job, counted in an [`AB_GRID`] × [`AB_GRID`] grid over both waits.
    pub density: AbDensity,
    /// Marked on the scatter: the top gainers and losers the panel lists, and the jobs that
    /// waited longest under either run — (job id, wait under A s, wait under B s).
    pub marked: Vec<(i64, f64, f64)>,
}

/// Every paired job of an A/B comparison in a grid over [0, `span_s`) × [0, `span_s`) (wait
/// under A × wait under B), counted apart as gained, lost or the same under B, so the chart
/// draws each cell in the colour of most of its jobs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AbDensity {
    /// The axes' span in seconds: just over the longest wait under either run.
    pub span_s: f64,
    /// Counts per cell, `[iy * AB_GRID + ix]` (ix along A's wait, iy along B's).
    pub gained: Vec<u32>,
    pub lost: Vec<u32>,
    pub same: Vec<u32>,
}

impl AbDensity {
    /// Bins the pairs (waits in seconds).
    pub fn of(pairs: impl Iterator<Item = (f64, f64)> + Clone) -> AbDensity {
        let longest = pairs.clone().map(|(a, b)| a.max(b)).fold(0.0, f64::max);
        // At least an hour, and a little room above the longest wait.
        let span_s = (longest * 1.05).max(3600.0);
        let cells = AB_GRID * AB_GRID;
        let mut d = AbDensity {
            span_s,
            gained: vec![0; cells],
            lost: vec![0; cells],
            same: vec![0; cells],
        };
        let bin = |v: f64| ((v / span_s * AB_GRID as f64) as usize).min(AB_GRID - 1);
        for (a, b) in pairs {
            let k = bin(b) * AB_GRID + bin(a);
            let counts = if b < a {
                &mut d.gained
            } else if b > a {
                &mut d.lost
            } else {
                &mut d.same
            };
            counts[k] += 1;
        }
        d
    }

    /// Jobs counted in all.
    pub fn jobs(&self) -> u64 {
        let sum = |v: &[u32]| v.iter().map(|&c| u64::from(c)).sum::<u64>();
        sum(&self.gained) + sum(&self.lost) + sum(&self.same)
    }
}

/// Jobs the A/B scatter's pointer can pick, at most (the chart draws every job, binned).
pub const AB_POINTS: usize = 5000;
/// Cells along each axis of the A/B scatter's grid.
pub const AB_GRID: usize = 120;
/// Jobs that waited longest under either run, marked on the A/B scatter.
pub const AB_LONGEST: usize = 10;

impl RunResult {
    /// The run's label as the results show it.
    pub fn label(&self) -> &str {
        &self.report.label
    }
}

/// What a family view runs: a preset of a registry family (`crate::family::FAMILIES`) as
/// the registry's [`RunSpec`] — the flags of `gridscope run --preset …`, what claim files and
/// manifests store — or the report card. A `#f2=` share link holds one
/// (`web::family_link`, which also reads the older `#f1=`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum FamilyRequest {
    /// A family's preset, run through the registry (`crate::family::run`). `trace` names the
    /// file the page attaches, which stands in for the trace the run reads (SCJG's; the link
    /// records the name, the visitor picks the file again).
    Run {
        spec: RunSpec,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        trace: Option<String>,
    },
    /// The papers' report card (`gridscope reproduce`): `papers` empty for all. The runs that
    /// read a trace get it when its file is attached (named `trace`); the others say which
    /// trace they need.
    Card {
        #[serde(default)]
        papers: Vec<String>,
        /// Also the sensitivity sweeps of the parameters the papers leave open.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        sensitivity: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        trace: Option<String>,
    },
}

/// A linked family run of more than this many seed × point runs (the presets' defaults are
/// 10 seeds × at most 10 points) waits for the visitor's go.
pub const CONFIRM_ABOVE_RUNS: u64 = 200;

impl FamilyRequest {
    /// Seed × point runs the request asks for (one point when it names none).
    pub fn runs(&self) -> u64 {
        match self {
            FamilyRequest::Run { spec, .. } => {
                let seeds = spec.seeds.unwrap_or_else(|| {
                    crate::family::find(&spec.preset).map_or(1, |f| f.default_seeds())
                });
                let points = spec.x.as_ref().map_or(1, |x| x.len().max(1));
                seeds.saturating_mul(points as u64)
            }
            FamilyRequest::Card { .. } => 1,
        }
    }

    /// What a linked request above [`CONFIRM_ABOVE_RUNS`] would run, for the notice that
    /// asks before starting it; `None` when it may start by itself.
    pub fn asks_first(&self) -> Option<String> {
        let runs = self.runs();
        (runs > CONFIRM_ABOVE_RUNS).then(|| {
            format!(
                "This shared link asks for {runs} runs (seeds × points) — more than a link starts by itself ({CONFIRM_ABOVE_RUNS}); press Run to start it (Cancel stops it)."
            )
        })
    }
}

/// A finished family view's run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FamilyResult {
    /// A family's report as its JSON (`FamilyReport::value`, what `gridscope run --preset
    /// NAME --json` prints), which the family's panel reads back into its result type, and
    /// what the family shows beside it (`Family::detail`).
    Run {
        preset: String,
        report: serde_json::Value,
        #[serde(default)]
        detail: Option<serde_json::Value>,
    },
    Card(Box<crate::reproduce::Card>),
}
