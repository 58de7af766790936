//! The page: a Yew component holding the scenario being edited, the files, the worker and
//! the results. The engine never runs here; it runs in the worker (`worker.rs`).

use std::collections::HashMap;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{HtmlCanvasElement, HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use super::engine_worker::{self, EngineWorker};
use super::plots;
use super::protocol::*;
use super::sf;
use super::share::{self, Shared};
use crate::engine::EstimateSource;
use crate::metrics::METRIC_HELP;
use crate::model::{Allocation, Site};
use crate::policy::grid::{GridParams, GridScheme};
use crate::policy::local::LocalPolicyKind;
use crate::scenario::{
    platform_preset, AlgorithmSpec, PlatformSpec, Scenario, WorkloadSpec, PLATFORM_PRESETS,
    SCENARIO_PRESETS,
};
use crate::workload::hyper_erlang::{FittedClass, FittedMoments};
use crate::workload::SesPoisson;

/// Table columns: (metric key, header, decimals).
const COLUMNS: &[(&str, &str, usize)] = &[
    ("avg_wait_s", "avg wait (s)", 1),
    ("avg_response_s", "avg response (s)", 1),
    ("wait_stddev_s", "wait sd (s)", 1),
    ("max_wait_s", "max wait (s)", 0),
    ("avg_bounded_slowdown", "bounded slowdown", 2),
    ("avg_expansion_factor", "expansion factor", 3),
    ("utilization", "utilization", 3),
    ("grid_efficiency", "grid efficiency", 3),
    ("fraction_transferred", "transferred", 3),
    ("makespan_s", "makespan (s)", 0),
    ("jobs_finished", "finished", 0),
    ("jobs_killed", "killed", 0),
    ("jobs_rejected", "rejected", 0),
    ("jobs_skipped", "skipped", 0),
];

#[derive(Clone, Debug, PartialEq)]
enum FileStatus {
    Loading,
    Loaded {
        info: FileInfo,
        jobs: u64,
        summary: String,
    },
    Failed(String),
}

struct FileEntry {
    /// The name the worker knows the file by.
    name: String,
    file: web_sys::File,
    status: FileStatus,
}

#[derive(Default)]
struct RunState {
    running: bool,
    run: usize,
    done: u64,
    total: u64,
    algorithms: usize,
}

/// Canvases: bars, CDF, utilization, queue, Gantt, per-site utilization, the SOB figure
/// (`SOB_FIG`), then the fit's CDFs of inter-arrival time, run time and processors
/// (`FIT_CDFS`).
const CHARTS: usize = 10;
/// Canvas of the SOB Figure 3/4-style panels.
const SOB_FIG: usize = 6;
/// Canvases of the trace-vs-fitted-model CDFs: (index, title, x axis, data-testid).
const FIT_CDFS: [(usize, &str, &str, &str); 3] = [
    (
        7,
        "Inter-arrival time CDF",
        "gap between submits (s, log; 0 s drawn at 1 s)",
        "chart-fit-interarrival",
    ),
    (8, "Run time CDF", "run time (s, log)", "chart-fit-runtime"),
    (9, "Processors CDF", "processors (log)", "chart-fit-procs"),
];

/// SOB §3.2's five metrics as Figures 3 and 4 show them: (metric key, key in the figure's
/// table, normalized to the baseline run). Wait and response are divided by the baseline's;
/// the deviation, efficiency and transferred share are absolute, as in the paper.
const SOB_METRICS: [(&str, &str, bool); 5] = [
    ("avg_wait_s", "avg_wait_norm", true),
    ("avg_response_s", "avg_response_norm", true),
    ("wait_stddev_s", "wait_stddev_s", false),
    ("grid_efficiency", "grid_efficiency", false),
    ("fraction_transferred", "fraction_transferred", false),
];

/// One of the CDFs of a workload (inter-arrival, run time or processors).
type CdfPick = fn(&crate::metrics::WorkloadCdfs) -> &[(f64, f64)];

/// The last hyper-Erlang fit as the worker sent it.
struct FitState {
    name: String,
    cpus_per_node: u32,
    classes: Vec<FittedClass>,
    /// The trace and a synthetic workload drawn from the fit, as CDFs (absent from an older
    /// worker).
    compare: Option<Box<FitCompare>>,
}

pub type Edit = Rc<dyn Fn(&mut Scenario, &str) -> Result<(), String>>;

pub enum Msg {
    Worker(u32, FromWorker),
    WorkerError(u32, String),
    Files(Vec<web_sys::File>),
    RemoveFile(String),
    Edit(Edit, String),
    Run,
    Cancel,
    Share,
    Sort(&'static str),
    Baseline(usize),
    BarMetric(usize),
    SelectRun(usize),
    SelectTransfers(usize),
    FitCpn(String),
    Fit,
    SelectSite(usize),
    Zoom(f64),
    Pan(f64),
    ZoomReset,
    Export(ExportKind),
    ExportJson,
    HashChanged,
    Dragging(bool),
    Hover(usize, f64, f64),
    DismissError,
    Preset(String),
}

pub struct App {
    worker: Option<EngineWorker>,
    generation: u32,
    ready: bool,
    queue: Vec<(String, Option<web_sys::File>)>,
    scenario: Scenario,
    files: Vec<FileEntry>,
    /// Files a shared scenario needs before it can run.
    needed: Vec<FileInfo>,
    run: RunState,
    platform_note: String,
    import_summary: String,
    jobs: u64,
    platform: Option<crate::model::Platform>,
    results: Vec<RunResult>,
    report_json: Option<String>,
    elapsed_ms: Option<f64>,
    errors: Vec<String>,
    notice: Option<String>,
    sort: (&'static str, bool),
    baseline: usize,
    bar_metric: usize,
    sel_run: usize,
    /// The run whose transfer matrix is shown (index into `results`).
    sel_transfers: Option<usize>,
    /// CPUs per node for the hyper-Erlang fit.
    fit_cpn: u32,
    fitting: bool,
    fit: Option<FitState>,
    fit_error: Option<String>,
    sel_site: usize,
    window: Option<(f64, f64)>,
    gantt: Option<GanttData>,
    share_url: Option<String>,
    dirty: bool,
    dragging: bool,
    canvases: [NodeRef; CHARTS],
    geoms: [Option<plots::Geom>; CHARTS],
    hover: [String; CHARTS],
    /// The scenario preset last chosen (the select shows it).
    preset: String,
    _listeners: Vec<(String, Listener)>,
}

/// A window event listener kept alive as long as the page.
type Listener = Closure<dyn FnMut(web_sys::Event)>;

fn window() -> web_sys::Window {
    web_sys::window().expect("a window")
}

fn metric(r: &RunResult, key: &str) -> f64 {
    r.run["metrics"][key].as_f64().unwrap_or(f64::NAN)
}

/// Utilization of site `k` in a run (`metrics.sites[k].utilization`).
/// A site's utilization over its own span (SOB Table 6's measure; see METRIC_HELP).
fn site_util(r: &RunResult, k: usize) -> f64 {
    r.run["metrics"]["sites"][k]["span_utilization"]
        .as_f64()
        .unwrap_or(f64::NAN)
}

fn fmt_num(v: f64, decimals: usize) -> String {
    if !v.is_finite() {
        return "–".into();
    }
    let s = format!("{v:.decimals$}");
    // Thousands separators on the integer part.
    let (int, frac) = s
        .split_once('.')
        .map(|(a, b)| (a, Some(b)))
        .unwrap_or((&s, None));
    let (sign, digits) = int.strip_prefix('-').map(|d| ("-", d)).unwrap_or(("", int));
    let mut grouped = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    match frac {
        Some(f) => format!("{sign}{grouped}.{f}"),
        None => format!("{sign}{grouped}"),
    }
}

fn help_for(key: &str) -> String {
    METRIC_HELP
        .iter()
        .find(|m| m.key == key)
        .map(|m| {
            if m.source.is_empty() {
                m.formula.to_string()
            } else {
                format!("{} [{}]", m.formula, m.source)
            }
        })
        .unwrap_or_default()
}

/// A unit for a time axis whose largest value is `max_s`: (name, seconds per unit).
fn secs_unit(max_s: f64) -> (&'static str, f64) {
    if max_s >= 2.0 * 3600.0 {
        ("h", 3600.0)
    } else if max_s >= 120.0 {
        ("min", 60.0)
    } else {
        ("s", 1.0)
    }
}

impl App {
    /// SOB Fig. 3/4 numbers: (baseline run, whether it is the run labelled `local`, per run the
    /// five values of `SOB_METRICS`). The baseline is the run labelled `local`, else the first.
    /// A normalized value whose baseline is 0 or missing is NaN (shown as –, JSON null).
    fn sob_figure(&self) -> (usize, bool, Vec<[f64; 5]>) {
        let local = self.results.iter().position(|r| r.label == "local");
        let base = local.unwrap_or(0);
        let values = self
            .results
            .iter()
            .map(|r| {
                let mut row = [f64::NAN; 5];
                for (k, &(key, _, normalized)) in SOB_METRICS.iter().enumerate() {
                    let v = metric(r, key);
                    row[k] = if normalized {
                        let b = self.results.get(base).map(|b| metric(b, key));
                        match b {
                            Some(b) if b != 0.0 && b.is_finite() => v / b,
                            _ => f64::NAN,
                        }
                    } else {
                        v
                    };
                }
                row
            })
            .collect();
        (base, local.is_some(), values)
    }

    fn spawn_worker(&mut self, ctx: &Context<Self>) {
        self.generation += 1;
        let gen = self.generation;
        self.ready = false;
        self.worker = None;
        let link = ctx.link().clone();
        let spawned = engine_worker::spawn(move |m| match m {
            Ok(m) => link.send_message(Msg::Worker(gen, m)),
            Err(e) => link.send_message(Msg::WorkerError(gen, e)),
        });
        match spawned {
            Ok(w) => self.worker = Some(w),
            Err(e) => {
                self.errors.push(e);
                return;
            }
        }
        // A new worker knows no file: hand the loaded ones over again.
        let reload: Vec<(String, web_sys::File)> = self
            .files
            .iter()
            .filter(|f| !matches!(f.status, FileStatus::Failed(_)))
            .map(|f| (f.name.clone(), f.file.clone()))
            .collect();
        self.queue.retain(|(t, _)| !t.contains("\"cmd\":\"load\""));
        let mut q = std::mem::take(&mut self.queue);
        for (name, file) in reload {
            self.queue.push((
                serde_json::to_string(&ToWorker::Load { name }).unwrap_or_default(),
                Some(file),
            ));
        }
        self.queue.append(&mut q);
    }

    fn send(&mut self, msg: &ToWorker, file: Option<web_sys::File>) {
        let text = serde_json::to_string(msg).unwrap_or_default();
        if !self.ready {
            self.queue.push((text, file));
            return;
        }
        self.post(text, file);
    }

    fn post(&mut self, text: String, file: Option<web_sys::File>) {
        let Some(w) = &self.worker else { return };
        let res = match file {
            Some(f) => w
                .worker
                .post_message(&js_sys::Array::of2(&JsValue::from_str(&text), &f)),
            None => w.worker.post_message(&JsValue::from_str(&text)),
        };
        if let Err(e) = res {
            self.errors
                .push(format!("cannot reach the engine worker: {e:?}"));
        }
    }

    fn start_run(&mut self, ctx: &Context<Self>) {
        if self.run.running {
            // One run at a time: stop the current one at once.
            self.spawn_worker(ctx);
        }
        self.results.clear();
        self.report_json = None;
        self.elapsed_ms = None;
        self.gantt = None;
        self.window = None;
        self.platform = None;
        self.hover = Default::default();
        self.geoms = Default::default();
        self.run = RunState {
            running: true,
            algorithms: self.scenario.algorithms.len(),
            ..Default::default()
        };
        self.dirty = true;
        let msg = ToWorker::Run {
            scenario: self.scenario.clone(),
        };
        self.send(&msg, None);
    }

    fn load_from_hash(&mut self) -> bool {
        let hash = window().location().hash().unwrap_or_default();
        match share::decode(&hash) {
            Ok(None) => false,
            Ok(Some(shared)) => {
                self.scenario = shared.scenario;
                self.preset = if SCENARIO_PRESETS.iter().any(|p| p.0 == self.scenario.name) {
                    self.scenario.name.clone()
                } else {
                    String::new()
                };
                self.needed = shared.files;
                // Files already dropped that match are reused.
                let have: Vec<FileInfo> = self
                    .files
                    .iter()
                    .filter_map(|f| match &f.status {
                        FileStatus::Loaded { info, .. } => Some(info.clone()),
                        _ => None,
                    })
                    .collect();
                self.needed.retain(|n| !have.contains(n));
                self.notice = Some(if self.needed.is_empty() {
                    "Opened a shared scenario.".into()
                } else {
                    "Opened a shared scenario: it needs the workload file(s) below.".into()
                });
                true
            }
            Err(e) => {
                self.errors
                    .push(format!("{e}. The default scenario was loaded instead."));
                self.scenario = Scenario::demo();
                // Drop the broken fragment so a reload does not show the same error again.
                if let Ok(h) = window().history() {
                    let loc = window().location();
                    let url = format!(
                        "{}{}",
                        loc.pathname().unwrap_or_default(),
                        loc.search().unwrap_or_default()
                    );
                    let _ = h.replace_state_with_url(&JsValue::NULL, "", Some(&url));
                }
                true
            }
        }
    }

    fn add_files(&mut self, files: Vec<web_sys::File>) {
        for file in files {
            let mut name = file.name();
            if !self.needed.is_empty() && !self.needed.iter().any(|n| n.name == name) {
                // A shared scenario is waiting for a file: take this one as the first missing
                // one (its hash decides).
                name = self.needed[0].name.clone();
            }
            self.files.retain(|f| f.name != name);
            self.files.push(FileEntry {
                name: name.clone(),
                file: file.clone(),
                status: FileStatus::Loading,
            });
            self.send(&ToWorker::Load { name }, Some(file));
        }
    }

    fn on_loaded(&mut self, ctx: &Context<Self>, info: FileInfo, jobs: u64, summary: String) {
        let name = info.name.clone();
        let reloaded = self
            .files
            .iter()
            .any(|f| f.name == name && matches!(f.status, FileStatus::Loaded { .. }));
        if reloaded {
            // A fresh worker (after a cancel) got the file again: nothing to decide.
            return;
        }
        if let Some(pos) = self.needed.iter().position(|n| n.name == name) {
            let want = &self.needed[pos];
            if want.sha256 != info.sha256 {
                self.errors.push(format!(
                    "{name} is not the file the shared scenario was made with: its SHA-256 is {} ({} bytes) but the scenario needs {} ({} bytes). The file was not used.",
                    info.sha256, info.size, want.sha256, want.size
                ));
                self.files.retain(|f| f.name != name);
                self.send(&ToWorker::Forget { name }, None);
                return;
            }
            self.needed.remove(pos);
            self.set_status(
                &name,
                FileStatus::Loaded {
                    info,
                    jobs,
                    summary,
                },
            );
            if self.needed.is_empty() {
                self.notice = Some("All files of the shared scenario are here; running it.".into());
                self.start_run(ctx);
            }
            return;
        }
        self.set_status(
            &name,
            FileStatus::Loaded {
                info,
                jobs,
                summary,
            },
        );
        if !matches!(self.scenario.workload, WorkloadSpec::Swf { .. })
            && workload_files(&self.scenario.workload).contains(&name)
        {
            // A file the scenario (a multi-site preset) reads by name: run when all are here.
            if self.files.iter().any(|f| f.status == FileStatus::Loading) {
                return;
            }
            let missing = self.missing_files();
            if missing.is_empty() {
                self.notice = Some("All files of this scenario are here; running it.".into());
                self.start_run(ctx);
            } else {
                self.notice = Some(format!(
                    "This scenario still needs: {}.",
                    missing.join(", ")
                ));
            }
            return;
        }
        if self.files.iter().any(|f| f.status == FileStatus::Loading) {
            // Several files were dropped at once: run when the last one is read.
            return;
        }
        let loaded: Vec<String> = self
            .files
            .iter()
            .filter(|f| matches!(f.status, FileStatus::Loaded { .. }))
            .map(|f| f.name.clone())
            .collect();
        if loaded.len() > 1 {
            self.notice = Some(format!(
                "{} files are loaded; a run uses one workload file for now (several files as several sites come later). Running {name}; choose another under Workload.",
                loaded.len()
            ));
        }
        if !matches!(self.scenario.workload, WorkloadSpec::Swf { .. })
            || !matches!(self.scenario.platform, PlatformSpec::Sites { .. })
        {
            self.scenario.platform = PlatformSpec::FromTrace { procs: None };
        }
        self.scenario.workload = WorkloadSpec::Swf {
            file: name.clone(),
            strict: false,
        };
        self.scenario.name = format!("{name}, one site sized from the trace");
        self.start_run(ctx);
    }

    /// Files the scenario reads that are neither loaded (or loading) nor pinned by hash in
    /// `needed`: the page asks for them by name.
    fn missing_files(&self) -> Vec<String> {
        workload_files(&self.scenario.workload)
            .into_iter()
            .filter(|n| {
                !self
                    .files
                    .iter()
                    .any(|f| &f.name == n && !matches!(f.status, FileStatus::Failed(_)))
                    && !self.needed.iter().any(|x| &x.name == n)
            })
            .collect()
    }

    fn set_status(&mut self, name: &str, status: FileStatus) {
        if let Some(f) = self.files.iter_mut().find(|f| f.name == name) {
            f.status = status;
        }
    }

    fn request_gantt(&mut self) {
        let Some(p) = &self.platform else { return };
        if self.sel_run >= self.results.len()
            || self.sel_site >= p.sites.len()
            || self.report_json.is_none()
        {
            return;
        }
        let makespan = self
            .results
            .get(self.sel_run)
            .map(|r| metric(r, "makespan_s"))
            .unwrap_or(0.0);
        let window = self.window.unwrap_or_else(|| {
            // Large runs open on their first 5 % (about the first few hundred jobs).
            let frac = if self.jobs > 5000 { 0.05 } else { 1.0 };
            (0.0, (makespan * frac).max(1.0))
        });
        self.window = Some(window);
        let msg = ToWorker::Gantt {
            run: self.sel_run,
            site: self.sel_site,
            from_s: window.0,
            to_s: window.1,
        };
        self.send(&msg, None);
    }

    fn download(&mut self, filename: &str, mime: &str, text: &str) {
        let res = (|| -> Result<(), JsValue> {
            let parts = js_sys::Array::of1(&JsValue::from_str(text));
            let opts = web_sys::BlobPropertyBag::new();
            opts.set_type(mime);
            let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts)?;
            let url = web_sys::Url::create_object_url_with_blob(&blob)?;
            let a: web_sys::HtmlAnchorElement = gloo::utils::document()
                .create_element("a")?
                .unchecked_into();
            a.set_href(&url);
            a.set_download(filename);
            a.click();
            web_sys::Url::revoke_object_url(&url)?;
            Ok(())
        })();
        if let Err(e) = res {
            self.errors.push(format!("cannot save {filename}: {e:?}"));
        }
    }

    fn draw(&mut self) {
        let canvas = |i: usize| self.canvases[i].cast::<HtmlCanvasElement>();
        let mut drawn: Vec<(usize, Result<plots::Geom, String>)> = vec![];
        if !self.results.is_empty() {
            let labels: Vec<String> = self.results.iter().map(|r| r.label.clone()).collect();
            let (key, title, _) = BAR_METRICS[self.bar_metric.min(BAR_METRICS.len() - 1)];
            let values: Vec<f64> = self.results.iter().map(|r| metric(r, key)).collect();
            let base = self.baseline.min(self.results.len() - 1);
            if let Some(c) = canvas(0) {
                let t = format!("{title} relative to {}", labels[base]);
                drawn.push((0, plots::bars(&c, &t, &labels, &values, base)));
            }
            if let Some(c) = canvas(1) {
                let lines: Vec<(String, &[(f64, f64)])> = self
                    .results
                    .iter()
                    .map(|r| (r.label.clone(), r.wait_cdf.as_slice()))
                    .collect();
                drawn.push((1, plots::cdf(&c, &lines)));
            }
            let sites = self.site_names();
            if let (true, Some(c)) = (sites.len() > 1, canvas(5)) {
                let values: Vec<Vec<f64>> = (0..sites.len())
                    .map(|k| self.results.iter().map(|r| site_util(r, k)).collect())
                    .collect();
                drawn.push((
                    5,
                    plots::grouped_bars(
                        &c,
                        "Utilization per site and run (each site's own span)",
                        "busy CPUs / CPUs",
                        &labels,
                        &sites,
                        &values,
                    ),
                ));
            }
            if let Some(r) = self.results.get(self.sel_run) {
                for (i, queue, what) in [(2, false, "Utilization"), (3, true, "Queue length")] {
                    if let Some(c) = canvas(i) {
                        let t = format!("{what} per site ({})", r.label);
                        drawn.push((i, plots::series(&c, &t, &r.series, queue)));
                    }
                }
            }
        }
        if let (true, Some(c)) = (self.results.len() >= 2, canvas(SOB_FIG)) {
            let (base, _, values) = self.sob_figure();
            let labels: Vec<String> = self.results.iter().map(|r| r.label.clone()).collect();
            let col = |k: usize, scale: f64| -> Vec<f64> {
                values.iter().map(|row| row[k] * scale).collect()
            };
            let dev = col(2, 1.0);
            let (unit, scale) = secs_unit(dev.iter().cloned().fold(0.0, f64::max));
            let cols = [
                col(0, 1.0),
                col(1, 1.0),
                col(2, 1.0 / scale),
                col(3, 100.0),
                col(4, 100.0),
            ];
            let titles = [
                format!("avg wait ÷ {}", labels[base]),
                format!("avg response ÷ {}", labels[base]),
                format!("wait deviation ({unit})"),
                "grid efficiency (%)".to_string(),
                "jobs transferred (%)".to_string(),
            ];
            let panels: Vec<plots::Panel> = (0..5)
                .map(|k| plots::Panel {
                    title: &titles[k],
                    values: &cols[k],
                    decimals: if k < 2 { 2 } else { 0 },
                    unit_line: k < 2,
                })
                .collect();
            drawn.push((SOB_FIG, plots::panels(&c, &labels, &panels)));
        }
        if let Some(cmp) = self.fit.as_ref().and_then(|f| f.compare.as_deref()) {
            let lines = |pick: CdfPick| {
                let mut v: Vec<(String, &[(f64, f64)])> = vec![(
                    format!("trace ({} jobs)", fmt_num(cmp.original.jobs as f64, 0)),
                    pick(&cmp.original),
                )];
                if cmp.error.is_none() {
                    v.push((
                        format!(
                            "fitted model ({} jobs)",
                            fmt_num(cmp.synthetic.jobs as f64, 0)
                        ),
                        pick(&cmp.synthetic),
                    ));
                }
                v
            };
            let picks: [CdfPick; 3] = [|c| &c.interarrival_s, |c| &c.runtime_s, |c| &c.procs];
            for ((i, title, x_desc, _), pick) in FIT_CDFS.iter().zip(picks) {
                if let Some(c) = canvas(*i) {
                    drawn.push((*i, plots::step_cdfs(&c, title, x_desc, &lines(pick), true)));
                }
            }
        }
        if let (Some(g), Some(c)) = (&self.gantt, canvas(4)) {
            let label = self
                .results
                .get(g.run)
                .map(|r| r.label.clone())
                .unwrap_or_default();
            let site = self
                .platform
                .as_ref()
                .and_then(|p| p.sites.get(g.site))
                .map(|s| s.name.clone())
                .unwrap_or_default();
            let more = if g.truncated {
                " (first jobs only: zoom in)"
            } else {
                ""
            };
            drawn.push((
                4,
                plots::gantt(&c, &format!("Gantt chart: {site}, {label}{more}"), g),
            ));
        }
        for (i, res) in drawn {
            match res {
                Ok(g) => self.geoms[i] = Some(g),
                Err(p) => {
                    self.geoms[i] = None;
                    web_sys::console::warn_1(&JsValue::from_str(&format!("chart: {p}")));
                }
            }
        }
    }

    fn site_names(&self) -> Vec<String> {
        self.platform
            .as_ref()
            .map(|p| p.sites.iter().map(|s| s.name.clone()).collect())
            .unwrap_or_default()
    }

    /// What the pointer is over in chart `i`, in words.
    fn describe(&self, i: usize, x: f64, y: f64) -> String {
        let secs = |s: f64| plots::format_secs(s);
        match i {
            0 => {
                let n = self.results.len();
                let k =
                    ((x / n.max(1) as f64 * n as f64).floor() as usize).min(n.saturating_sub(1));
                let (key, title, d) = BAR_METRICS[self.bar_metric.min(BAR_METRICS.len() - 1)];
                let (Some(r), Some(b)) = (self.results.get(k), self.results.get(self.baseline))
                else {
                    return String::new();
                };
                let (v, bv) = (metric(r, key), metric(b, key));
                format!(
                    "{}: {title} {} = {:.3} × {}",
                    r.label,
                    fmt_num(v, d),
                    if bv != 0.0 { v / bv } else { 0.0 },
                    b.label
                )
            }
            1 => {
                let parts: Vec<String> = self
                    .results
                    .iter()
                    .map(|r| {
                        let k = r.wait_cdf.partition_point(|p| p.0.max(1.0) <= x);
                        let f = if k == 0 { 0.0 } else { r.wait_cdf[k - 1].1 };
                        format!("{} {:.1} %", r.label, f * 100.0)
                    })
                    .collect();
                format!("waiting at most {}: {}", secs(x), parts.join(", "))
            }
            2 | 3 => {
                let Some(r) = self.results.get(self.sel_run) else {
                    return String::new();
                };
                let k = (x * 86400.0 / r.series.bucket_s.max(1e-9)).floor().max(0.0) as usize;
                let parts: Vec<String> = r
                    .series
                    .sites
                    .iter()
                    .filter_map(|s| {
                        let v = if i == 2 {
                            s.utilization.get(k)
                        } else {
                            s.queue_length.get(k)
                        }?;
                        Some(if i == 2 {
                            format!("{} {:.1} %", s.name, v * 100.0)
                        } else {
                            format!("{} {:.1} jobs", s.name, v)
                        })
                    })
                    .collect();
                format!("day {:.2}: {}", x, parts.join(", "))
            }
            SOB_FIG => {
                let (base, _, values) = self.sob_figure();
                let k = (x.floor().max(0.0) as usize).min(SOB_METRICS.len() - 1);
                let base = self
                    .results
                    .get(base)
                    .map(|r| r.label.as_str())
                    .unwrap_or("");
                let name = match k {
                    0 => format!("avg wait ÷ {base}"),
                    1 => format!("avg response ÷ {base}"),
                    2 => "wait deviation".into(),
                    3 => "grid efficiency".into(),
                    _ => "jobs transferred".into(),
                };
                let parts: Vec<String> = self
                    .results
                    .iter()
                    .zip(&values)
                    .map(|(r, row)| {
                        let v = row[k];
                        let t = match k {
                            0 | 1 => format!("{v:.3}"),
                            2 => secs(v),
                            _ => format!("{:.1} %", v * 100.0),
                        };
                        format!("{} {t}", r.label)
                    })
                    .collect();
                format!("{name}: {}", parts.join(", "))
            }
            7..=9 => {
                let Some(cmp) = self.fit.as_ref().and_then(|f| f.compare.as_deref()) else {
                    return String::new();
                };
                let pick = |c: &'_ crate::metrics::WorkloadCdfs| -> Vec<(f64, f64)> {
                    match i {
                        7 => c.interarrival_s.clone(),
                        8 => c.runtime_s.clone(),
                        _ => c.procs.clone(),
                    }
                };
                // Points below 1 are drawn at 1 on the log axis.
                let share = |pts: &[(f64, f64)]| {
                    let k = pts.partition_point(|p| p.0.max(1.0) <= x);
                    if k == 0 {
                        0.0
                    } else {
                        pts[k - 1].1 * 100.0
                    }
                };
                let at = if i == 9 {
                    format!("{x:.0} processors")
                } else {
                    secs(x)
                };
                let mut text = format!("at most {at}: trace {:.1} %", share(&pick(&cmp.original)));
                if cmp.error.is_none() {
                    text.push_str(&format!(
                        ", fitted model {:.1} %",
                        share(&pick(&cmp.synthetic))
                    ));
                }
                text
            }
            5 => {
                let k = (x + 0.5).floor().max(0.0) as usize;
                let Some(r) = self.results.get(k) else {
                    return String::new();
                };
                let parts: Vec<String> = self
                    .site_names()
                    .iter()
                    .enumerate()
                    .map(|(s, n)| format!("{n} {:.1} %", site_util(r, s) * 100.0))
                    .collect();
                format!("{}: {}", r.label, parts.join(", "))
            }
            _ => {
                let Some(g) = &self.gantt else {
                    return String::new();
                };
                let t = x * 3600.0;
                let u = y.floor().max(0.0) as u32;
                match g
                    .rects
                    .iter()
                    .find(|r| r.1 <= t && t < r.2 && r.3 <= u && u < r.3 + r.4)
                {
                    Some(r) => format!(
                        "job {}: start {:.2} h, end {:.2} h (ran {}), {} {}–{}",
                        r.0,
                        r.1 / 3600.0,
                        r.2 / 3600.0,
                        secs(r.2 - r.1),
                        g.unit,
                        r.3,
                        r.3 + r.4 - 1
                    ),
                    None => format!("{:.2} h, {} {u}: idle", x, g.unit.trim_end_matches('s')),
                }
            }
        }
    }
}

/// Metrics offered for the normalized bar chart.
const BAR_METRICS: &[(&str, &str, usize)] = &[
    ("avg_wait_s", "Average wait", 1),
    ("avg_response_s", "Average response", 1),
    ("avg_bounded_slowdown", "Bounded slowdown", 2),
    ("avg_expansion_factor", "Expansion factor", 3),
    ("utilization", "Utilization", 3),
    ("makespan_s", "Makespan", 0),
    ("max_wait_s", "Maximum wait", 0),
];

impl Component for App {
    type Message = Msg;
    type Properties = ();

    fn create(ctx: &Context<Self>) -> Self {
        let mut app = App {
            worker: None,
            generation: 0,
            ready: false,
            queue: vec![],
            scenario: Scenario::demo(),
            files: vec![],
            needed: vec![],
            run: RunState::default(),
            platform_note: String::new(),
            import_summary: String::new(),
            jobs: 0,
            platform: None,
            results: vec![],
            report_json: None,
            elapsed_ms: None,
            errors: vec![],
            notice: None,
            sort: ("", false),
            baseline: 0,
            bar_metric: 0,
            sel_run: 1,
            sel_transfers: None,
            fit_cpn: 1,
            fitting: false,
            fit: None,
            fit_error: None,
            sel_site: 0,
            window: None,
            gantt: None,
            share_url: None,
            dirty: false,
            dragging: false,
            canvases: Default::default(),
            geoms: Default::default(),
            hover: Default::default(),
            preset: "demo".into(),
            _listeners: vec![],
        };
        app.spawn_worker(ctx);
        app.load_from_hash();
        if app.needed.is_empty() {
            app.start_run(ctx);
        }
        // Drop files anywhere on the page; follow fragment changes.
        let mut listen = |event: &str, f: Box<dyn FnMut(web_sys::Event)>| {
            let c = Closure::<dyn FnMut(web_sys::Event)>::new(f);
            let _ = window().add_event_listener_with_callback(event, c.as_ref().unchecked_ref());
            app._listeners.push((event.to_string(), c));
        };
        let link = ctx.link().clone();
        listen(
            "dragover",
            Box::new(move |e: web_sys::Event| {
                e.prevent_default();
                link.send_message(Msg::Dragging(true));
            }),
        );
        let link = ctx.link().clone();
        listen(
            "dragleave",
            Box::new(move |_| link.send_message(Msg::Dragging(false))),
        );
        let link = ctx.link().clone();
        listen(
            "drop",
            Box::new(move |e: web_sys::Event| {
                e.prevent_default();
                link.send_message(Msg::Dragging(false));
                let files = e
                    .dyn_ref::<web_sys::DragEvent>()
                    .and_then(|d| d.data_transfer())
                    .and_then(|dt| dt.files())
                    .map(|list| {
                        (0..list.length())
                            .filter_map(|i| list.get(i))
                            .collect::<Vec<_>>()
                    })
                    .unwrap_or_default();
                if !files.is_empty() {
                    link.send_message(Msg::Files(files));
                }
            }),
        );
        let link = ctx.link().clone();
        listen(
            "hashchange",
            Box::new(move |_| link.send_message(Msg::HashChanged)),
        );
        app
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Worker(gen, _) | Msg::WorkerError(gen, _) if gen != self.generation => {
                return false
            }
            Msg::Worker(_, ev) => match ev {
                FromWorker::Ready => {
                    self.ready = true;
                    for (text, file) in std::mem::take(&mut self.queue) {
                        self.post(text, file);
                    }
                    return false;
                }
                FromWorker::Loaded {
                    file,
                    jobs,
                    summary,
                    ..
                } => self.on_loaded(ctx, file, jobs, summary),
                FromWorker::LoadFailed { name, error } => {
                    self.set_status(&name, FileStatus::Failed(error.clone()));
                    self.errors.push(format!(
                        "Cannot use {name}: {}",
                        error.lines().next().unwrap_or("")
                    ));
                }
                FromWorker::Started {
                    platform,
                    platform_note,
                    import_summary,
                    jobs,
                    algorithms,
                } => {
                    if self.sel_site >= platform.sites.len() {
                        self.sel_site = 0;
                    }
                    self.platform = Some(platform);
                    self.platform_note = platform_note;
                    self.import_summary = import_summary;
                    self.jobs = jobs;
                    self.run.algorithms = algorithms;
                }
                FromWorker::Progress { run, done, total } => {
                    self.run.run = run;
                    self.run.done = done;
                    self.run.total = total;
                }
                FromWorker::RunResult(r) => {
                    self.results.push(*r);
                    self.run.run = self.results.len();
                    self.run.done = 0;
                    self.dirty = true;
                }
                FromWorker::Done {
                    report_json,
                    elapsed_ms,
                } => {
                    self.run.running = false;
                    self.report_json = Some(report_json);
                    self.elapsed_ms = Some(elapsed_ms);
                    if self.sel_run >= self.results.len() {
                        self.sel_run = 0;
                    }
                    if self.baseline >= self.results.len() {
                        self.baseline = 0;
                    }
                    self.dirty = true;
                    self.request_gantt();
                }
                FromWorker::Failed { message } => {
                    self.run.running = false;
                    self.errors.push(message);
                }
                FromWorker::Gantt(g) => {
                    self.gantt = Some(*g);
                    self.dirty = true;
                }
                FromWorker::Export {
                    filename,
                    mime,
                    text,
                } => self.download(&filename, &mime, &text),
                // Sweeps run in the SF panel's own worker.
                FromWorker::Fitted {
                    name,
                    cpus_per_node,
                    classes,
                    compare,
                } => {
                    self.fitting = false;
                    self.fit = Some(FitState {
                        name,
                        cpus_per_node,
                        classes,
                        compare,
                    });
                    self.geoms[7..].fill(None);
                    self.dirty = true;
                }
                FromWorker::FitFailed { name, error } => {
                    self.fitting = false;
                    self.fit_error = Some(format!("cannot fit {name}: {error}"));
                }
                FromWorker::SweepProgress { .. }
                | FromWorker::SweepDone(_)
                | FromWorker::SweepFailed { .. } => return false,
            },
            Msg::WorkerError(_, m) => {
                self.errors.push(m);
                self.run.running = false;
                self.spawn_worker(ctx);
            }
            Msg::Files(files) => self.add_files(files),
            Msg::RemoveFile(name) => {
                self.files.retain(|f| f.name != name);
                self.send(&ToWorker::Forget { name }, None);
            }
            Msg::Edit(apply, value) => {
                let mut s = self.scenario.clone();
                match apply(&mut s, &value) {
                    Ok(()) => {
                        self.scenario = s;
                        self.share_url = None;
                    }
                    Err(e) => self.errors.push(e),
                }
            }
            Msg::Run => {
                self.errors.clear();
                self.start_run(ctx)
            }
            Msg::Cancel => {
                if self.run.running {
                    self.spawn_worker(ctx);
                    self.run.running = false;
                    self.notice = Some(format!(
                        "Run cancelled after {} of {} algorithms.",
                        self.results.len(),
                        self.run.algorithms
                    ));
                }
            }
            Msg::Share => {
                let mut files: Vec<FileInfo> = vec![];
                for file in workload_files(&self.scenario.workload) {
                    files.extend(
                        self.files
                            .iter()
                            .filter_map(|f| match &f.status {
                                FileStatus::Loaded { info, .. } if info.name == file => {
                                    Some(info.clone())
                                }
                                _ => None,
                            })
                            .chain(self.needed.iter().filter(|n| n.name == file).cloned()),
                    );
                }
                let frag = share::encode(&Shared {
                    scenario: self.scenario.clone(),
                    files,
                });
                let url = share::link(&frag);
                if let Ok(h) = window().history() {
                    let _ = h.replace_state_with_url(&JsValue::NULL, "", Some(&url));
                }
                self.share_url = Some(url);
            }
            Msg::Sort(key) => {
                self.sort = if self.sort.0 == key {
                    (key, !self.sort.1)
                } else {
                    (key, false)
                };
            }
            Msg::Baseline(i) => {
                self.baseline = i;
                self.dirty = true;
            }
            Msg::BarMetric(i) => {
                self.bar_metric = i;
                self.dirty = true;
            }
            Msg::SelectRun(i) => {
                self.sel_run = i;
                self.dirty = true;
                self.request_gantt();
            }
            Msg::SelectTransfers(i) => {
                self.sel_transfers = Some(i);
            }
            Msg::FitCpn(v) => match v.trim().parse::<u32>() {
                Ok(n) if n >= 1 => {
                    self.fit_cpn = n;
                    self.fit_error = None;
                }
                _ => {
                    self.fit_error = Some(format!(
                        "CPUs per node must be a whole number ≥ 1, not {v:?}"
                    ))
                }
            },
            Msg::Fit => {
                if let WorkloadSpec::Swf { file, .. } = &self.scenario.workload {
                    let msg = ToWorker::Fit {
                        name: file.clone(),
                        cpus_per_node: self.fit_cpn,
                    };
                    self.fitting = true;
                    self.fit_error = None;
                    self.send(&msg, None);
                }
            }
            Msg::SelectSite(i) => {
                self.sel_site = i;
                self.request_gantt();
            }
            Msg::Zoom(f) => {
                if let Some((a, b)) = self.window {
                    let mid = (a + b) / 2.0;
                    let half = ((b - a) / 2.0 * f).max(30.0);
                    self.window = Some(((mid - half).max(0.0), mid + half));
                    self.request_gantt();
                }
            }
            Msg::Pan(f) => {
                if let Some((a, b)) = self.window {
                    let d = (b - a) * f;
                    let d = if a + d < 0.0 { -a } else { d };
                    self.window = Some((a + d, b + d));
                    self.request_gantt();
                }
            }
            Msg::ZoomReset => {
                let makespan = self
                    .results
                    .get(self.sel_run)
                    .map(|r| metric(r, "makespan_s"))
                    .unwrap_or(1.0);
                self.window = Some((0.0, makespan.max(1.0)));
                self.request_gantt();
            }
            Msg::Export(ExportKind::SyntheticSwf) => {
                // Needs a fit, not a run; the worker keeps the last draw.
                self.send(
                    &ToWorker::Export {
                        what: ExportKind::SyntheticSwf,
                        run: 0,
                    },
                    None,
                );
            }
            Msg::Export(what) => {
                if self.report_json.is_none() {
                    self.errors.push("Exports need a finished run.".into());
                } else {
                    self.send(
                        &ToWorker::Export {
                            what,
                            run: self.sel_run,
                        },
                        None,
                    );
                }
            }
            Msg::ExportJson => {
                if let Some(j) = self.report_json.clone() {
                    self.download("metrics.json", "application/json", &j);
                }
            }
            Msg::HashChanged => {
                let hash = window().location().hash().unwrap_or_default();
                let ours = self
                    .share_url
                    .as_deref()
                    .and_then(|u| u.split_once('#'))
                    .map(|(_, f)| format!("#{f}"));
                if Some(hash) != ours && self.load_from_hash() && self.needed.is_empty() {
                    self.start_run(ctx);
                }
            }
            Msg::Dragging(d) => {
                if self.dragging == d {
                    return false;
                }
                self.dragging = d;
            }
            Msg::DismissError => self.errors.clear(),
            Msg::Preset(name) => {
                let Some(sc) = Scenario::preset(&name) else {
                    self.errors
                        .push(format!("unknown scenario preset '{name}'"));
                    return true;
                };
                self.scenario = sc;
                self.preset = name.clone();
                self.share_url = None;
                self.needed.clear();
                let missing = self.missing_files();
                self.notice = Some(if missing.is_empty() {
                    format!("Loaded the scenario preset {name}: press Run.")
                } else {
                    format!(
                        "The scenario preset {name} reads {} trace file(s) by name: drop or pick them (listed under Workload); it runs when they are all here.",
                        missing.len()
                    )
                });
            }
            Msg::Hover(i, px, py) => {
                let text = self.geoms[i]
                    .and_then(|g| g.at(px, py))
                    .map(|(x, y)| self.describe(i, x, y))
                    .unwrap_or_default();
                if self.hover[i] == text {
                    return false;
                }
                self.hover[i] = text;
            }
        }
        true
    }

    fn rendered(&mut self, _ctx: &Context<Self>, _first: bool) {
        if self.dirty {
            self.dirty = false;
            self.draw();
        }
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let on_pick = link.batch_callback(|e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            let files = input
                .files()
                .map(|l| (0..l.length()).filter_map(|i| l.get(i)).collect::<Vec<_>>())
                .unwrap_or_default();
            input.set_value("");
            (!files.is_empty()).then_some(Msg::Files(files))
        });
        html! {
            <div class={classes!("page", self.dragging.then_some("dragging"))}>
                <header>
                    <h1>{"Gridscope"}</h1>
                    <p class="tagline">{"Batch-job scheduling simulator. Everything runs in this page: no file leaves your computer."}</p>
                    <div class="share">
                        <button onclick={link.callback(|_| Msg::Share)} title="Put the whole scenario in the page address">{"Share"}</button>
                        if let Some(url) = &self.share_url {
                            <output data-testid="share-url" class="share-url">{url}</output>
                        }
                    </div>
                </header>
                { self.view_messages(ctx) }
                <main>
                    <section class="editor" aria-label="Scenario">
                        { self.view_presets(ctx) }
                        <h2>{"Workload"}</h2>
                        <div class="drop">
                            <p>{"Drop one or several "}<code>{".swf"}</code>{" / "}<code>{".swf.gz"}</code>{" files anywhere on the page, or "}</p>
                            <label>{"pick files: "}<input type="file" multiple=true accept=".swf,.gz,.swf.gz" data-testid="file-input" onchange={on_pick} /></label>
                        </div>
                        { self.view_needed() }
                        { self.view_files(ctx) }
                        { self.view_workload(ctx) }
                        <h2>{"Platform"}</h2>
                        { self.view_platform(ctx) }
                        <h2>{"Algorithms"}</h2>
                        { self.view_algorithms(ctx) }
                        <h2>{"Options"}</h2>
                        { self.view_options(ctx) }
                        { self.view_run(ctx) }
                    </section>
                    <section class="results" aria-label="Results">
                        { self.view_results(ctx) }
                        { self.view_charts(ctx) }
                        { self.view_metric_help() }
                    </section>
                </main>
                <sf::SfPanel />
                <div class="dropzone" aria-hidden="true">{"Drop SWF files to load them"}</div>
            </div>
        }
    }
}

fn edit(f: impl Fn(&mut Scenario, &str) -> Result<(), String> + 'static) -> Edit {
    Rc::new(f)
}

fn parse<T: std::str::FromStr>(what: &str, v: &str) -> Result<T, String> {
    v.trim()
        .parse::<T>()
        .map_err(|_| format!("{what}: '{v}' is not a valid number"))
}

impl App {
    fn view_messages(&self, ctx: &Context<Self>) -> Html {
        html! {
            <>
                if !self.errors.is_empty() {
                    <div class="error" role="alert" data-testid="error">
                        { for self.errors.iter().map(|e| html!{ <p>{e}</p> }) }
                        <button onclick={ctx.link().callback(|_| Msg::DismissError)}>{"Dismiss"}</button>
                    </div>
                }
                if let Some(n) = &self.notice {
                    <div class="notice" role="status" data-testid="notice">{n}</div>
                }
            </>
        }
    }

    fn view_presets(&self, ctx: &Context<Self>) -> Html {
        let choose = ctx.link().callback(|e: Event| {
            Msg::Preset(e.target_unchecked_into::<HtmlSelectElement>().value())
        });
        let desc = SCENARIO_PRESETS
            .iter()
            .find(|p| p.0 == self.preset)
            .map(|p| p.1)
            .unwrap_or("");
        html! {
            <div class="fields">
                <h2>{"Scenario"}</h2>
                <label>{"Scenario preset "}
                    <select data-testid="scenario-preset" onchange={choose}>
                        if !SCENARIO_PRESETS.iter().any(|p| p.0 == self.preset) {
                            <option value="" selected=true disabled=true>{"(shared or custom scenario)"}</option>
                        }
                        { for SCENARIO_PRESETS.iter().map(|(n, _)| html!{
                            <option value={n.to_string()} selected={*n == self.preset}>{*n}</option>
                        }) }
                    </select>
                </label>
                <p class="help" data-testid="preset-description">{desc}</p>
            </div>
        }
    }

    fn view_needed(&self) -> Html {
        let missing = self.missing_files();
        if self.needed.is_empty() && missing.is_empty() {
            return html! {};
        }
        html! {
            <div class="needed" data-testid="needed-files">
                if !self.needed.is_empty() {
                    <p><strong>{"This shared scenario needs its workload file(s). Drop or pick:"}</strong></p>
                    <ul>
                        { for self.needed.iter().map(|n| html!{
                            <li><code>{&n.name}</code>{format!(" — {} bytes, SHA-256 {}", fmt_num(n.size as f64, 0), n.sha256)}</li>
                        }) }
                    </ul>
                    <p class="help">{"A file with different content (another SHA-256) is refused, so the numbers match the shared ones."}</p>
                }
                if !missing.is_empty() {
                    <p><strong>{"This scenario reads these workload files by name. Drop or pick them:"}</strong></p>
                    <ul>
                        { for missing.iter().map(|n| html!{ <li><code>{n}</code></li> }) }
                    </ul>
                    <p class="help">{"Cleaned logs of the Parallel Workloads Archive (the same files the CLI reads with --traces DIR). They stay on this computer; the run starts when the last one is read."}</p>
                }
            </div>
        }
    }

    fn view_files(&self, ctx: &Context<Self>) -> Html {
        if self.files.is_empty() {
            return html! {};
        }
        html! {
            <ul class="files" data-testid="files">
                { for self.files.iter().map(|f| {
                    let name = f.name.clone();
                    let remove = ctx.link().callback(move |_| Msg::RemoveFile(name.clone()));
                    let (cls, body) = match &f.status {
                        FileStatus::Loading => ("loading", html!{ <p>{"reading…"}</p> }),
                        FileStatus::Loaded { info, jobs, summary } => ("ok", html!{
                            <>
                                <p>{format!("{} jobs; {} bytes; SHA-256 {}…", fmt_num(*jobs as f64, 0), fmt_num(info.size as f64, 0), &info.sha256[..16])}</p>
                                <details open=true><summary>{"Import report"}</summary><pre data-testid="import-report">{summary}</pre></details>
                            </>
                        }),
                        FileStatus::Failed(e) => ("failed", html!{ <pre class="file-error" data-testid="file-error">{e}</pre> }),
                    };
                    html!{
                        <li class={cls}>
                            <strong>{&f.name}</strong>{" "}
                            <button class="small" onclick={remove} aria-label={format!("remove {}", f.name)}>{"remove"}</button>
                            {body}
                        </li>
                    }
                }) }
            </ul>
        }
    }

    fn view_workload(&self, ctx: &Context<Self>) -> Html {
        let loaded: Vec<String> = self
            .files
            .iter()
            .filter(|f| matches!(f.status, FileStatus::Loaded { .. }))
            .map(|f| f.name.clone())
            .chain(self.needed.iter().map(|n| n.name.clone()))
            .collect();
        let current = match &self.scenario.workload {
            WorkloadSpec::Swf { file, .. } => format!("file:{file}"),
            WorkloadSpec::SesPoisson(_) => "ses".into(),
            // Multi-site and hyper-Erlang workloads come from presets and share URLs.
            _ => "preset".into(),
        };
        let choose = ctx.link().callback(|e: Event| {
            let v = e.target_unchecked_into::<HtmlSelectElement>().value();
            Msg::Edit(
                edit(|s, v| {
                    if v == "ses" {
                        s.workload = WorkloadSpec::SesPoisson(SesPoisson {
                            estimate_factor: 2.0,
                            ..SesPoisson::default()
                        });
                        if matches!(s.platform, PlatformSpec::FromTrace { .. }) {
                            s.platform = PlatformSpec::Preset {
                                name: "demo".into(),
                            };
                        }
                    } else if let Some(f) = v.strip_prefix("file:") {
                        s.workload = WorkloadSpec::Swf {
                            file: f.to_string(),
                            strict: false,
                        };
                    }
                    Ok(())
                }),
                v,
            )
        });
        let body = match &self.scenario.workload {
            WorkloadSpec::SesPoisson(g) => html! {
                <>
                    { Self::num(ctx, "jobs", "Jobs", "Number of jobs to generate.", g.jobs.to_string(), "1",
                        edit(|s, v| { let n = parse::<u32>("jobs", v)?; if let WorkloadSpec::SesPoisson(g) = &mut s.workload { g.jobs = n; } Ok(()) })) }
                    { Self::num(ctx, "arrivals", "Arrivals per 30 min", "Mean Poisson arrivals per 30 minutes (SES §3.2: 3.125).", g.arrivals_per_30min.to_string(), "any",
                        edit(|s, v| { let n = parse::<f64>("arrivals", v)?; if let WorkloadSpec::SesPoisson(g) = &mut s.workload { g.arrivals_per_30min = n; } Ok(()) })) }
                    { Self::num(ctx, "runtime", "Mean runtime (min)", "Mean of the exponential runtimes (SES: 496.3 min).", g.mean_runtime_min.to_string(), "any",
                        edit(|s, v| { let n = parse::<f64>("mean runtime", v)?; if let WorkloadSpec::SesPoisson(g) = &mut s.workload { g.mean_runtime_min = n; } Ok(()) })) }
                    { Self::num(ctx, "load", "Load factor", "Multiplies the arrival rate: above 1 is a heavier load on the same platform.", g.load_factor.to_string(), "any",
                        edit(|s, v| { let n = parse::<f64>("load factor", v)?; if let WorkloadSpec::SesPoisson(g) = &mut s.workload { g.load_factor = n; } Ok(()) })) }
                    { Self::num(ctx, "estf", "Estimate factor", "User estimates are the runtime times this factor (≥ 1; 1 = exact). SES gives no estimates.", g.estimate_factor.to_string(), "any",
                        edit(|s, v| { let n = parse::<f64>("estimate factor", v)?; if let WorkloadSpec::SesPoisson(g) = &mut s.workload { g.estimate_factor = n; } Ok(()) })) }
                    { Self::num(ctx, "seed", "Seed", "The generator's seed: the same seed gives the same jobs everywhere.", self.scenario.seed.to_string(), "1",
                        edit(|s, v| { s.seed = parse::<u64>("seed", v)?; Ok(()) })) }
                </>
            },
            WorkloadSpec::Swf { strict, .. } => {
                let strict = *strict;
                let toggle = ctx.link().callback(move |_| {
                    Msg::Edit(
                        edit(move |s, _| {
                            if let WorkloadSpec::Swf { strict, .. } = &mut s.workload {
                                *strict = !*strict;
                            }
                            Ok(())
                        }),
                        String::new(),
                    )
                });
                html! {
                    <>
                        <label class="check"><input type="checkbox" checked={strict} onchange={toggle} />
                            {" strict import"}<span class="help">{" — stop at the first malformed line instead of counting and skipping it."}</span></label>
                        { self.view_fit(ctx) }
                    </>
                }
            }
            WorkloadSpec::SwfSites { files, window, .. } => html! {
                <p class="help" data-testid="workload-detail">{format!(
                    "One SWF log per site, in platform order: {}; aligned by their UnixStartTime{}. Choose another source to edit a single workload.",
                    files.join(", "),
                    if window.is_some() { ", cut to a time window" } else { "" }
                )}</p>
            },
            WorkloadSpec::SwfPartitions { file, .. } => html! {
                <p class="help" data-testid="workload-detail">{format!("{file}, split into one site per partition (SWF field 16), partitions in increasing order.")}</p>
            },
            WorkloadSpec::HyperErlang { sites } => html! {
                <p class="help" data-testid="workload-detail">{format!(
                    "One hyper-Erlang generator of common order per site ({} sites, SOB §4.2, Tables 2–4): arrivals, run times and processor counts from the paper's fitted models, each site with its own stream seeded from the scenario seed.",
                    sites.len()
                )}</p>
            },
        };
        html! {
            <div class="fields">
                <label>{"Source "}
                    <select onchange={choose} data-testid="workload-source">
                        if current == "preset" {
                            <option value="preset" selected=true>{"multi-site workload of the scenario preset"}</option>
                        }
                        <option value="ses" selected={current == "ses"}>{"SES Poisson generator (Sessini)"}</option>
                        { for loaded.iter().map(|n| { let v = format!("file:{n}"); html!{ <option selected={current == v} value={v.clone()}>{format!("file {n}")}</option> } }) }
                    </select>
                </label>
                if current == "preset" {
                } else if current == "ses" {
                    <p class="help">{"The generator draws Poisson arrivals, exponential runtimes and processor counts from SES Table A3."}</p>
                } else {
                    <p class="help">{"An SWF trace, plain or gzip, read with the import rules of the CLI (see its report)."}</p>
                }
                {body}
            </div>
        }
    }

    fn num(
        ctx: &Context<Self>,
        id: &str,
        label: &str,
        help: &str,
        value: String,
        step: &str,
        apply: Edit,
    ) -> Html {
        let cb = ctx.link().callback(move |e: Event| {
            let v = e.target_unchecked_into::<HtmlInputElement>().value();
            Msg::Edit(apply.clone(), v)
        });
        let id = format!("f-{id}");
        html! {
            <div class="field">
                <label for={id.clone()}>{label}</label>
                <input id={id} type="number" step={step.to_string()} value={value} onchange={cb} />
                <span class="help">{help}</span>
            </div>
        }
    }

    fn view_platform(&self, ctx: &Context<Self>) -> Html {
        let current = match &self.scenario.platform {
            PlatformSpec::Preset { name } => format!("preset:{name}"),
            PlatformSpec::Sites { .. } => "sites".into(),
            PlatformSpec::FromTrace { .. } => "trace".into(),
        };
        let choose = ctx.link().callback(|e: Event| {
            let v = e.target_unchecked_into::<HtmlSelectElement>().value();
            Msg::Edit(
                edit(|s, v| {
                    s.platform = if let Some(n) = v.strip_prefix("preset:") {
                        PlatformSpec::Preset { name: n.into() }
                    } else if v == "trace" {
                        PlatformSpec::FromTrace { procs: None }
                    } else {
                        let sites = match &s.platform {
                            PlatformSpec::Preset { name } => {
                                platform_preset(name).map(|p| p.sites).unwrap_or_default()
                            }
                            PlatformSpec::Sites { sites, .. } => sites.clone(),
                            PlatformSpec::FromTrace { procs } => {
                                vec![Site::flat("site", procs.unwrap_or(128))]
                            }
                        };
                        PlatformSpec::Sites {
                            name: "custom".into(),
                            sites,
                        }
                    };
                    Ok(())
                }),
                v,
            )
        });
        let preset_help = PLATFORM_PRESETS
            .iter()
            .find(|p| current == format!("preset:{}", p.0))
            .map(|p| p.1)
            .unwrap_or("");
        let body = match &self.scenario.platform {
            PlatformSpec::Preset { .. } => html! { <p class="help">{preset_help}</p> },
            PlatformSpec::FromTrace { procs } => html! {
                { Self::num(ctx, "procs", "Processors (empty = from the trace)", "One processor-granular site; empty takes the header's MaxProcs, else MaxNodes, else the widest job.",
                    procs.map(|p| p.to_string()).unwrap_or_default(), "1",
                    edit(|s, v| { let p = if v.trim().is_empty() { None } else { Some(parse::<u32>("processors", v)?) }; s.platform = PlatformSpec::FromTrace { procs: p }; Ok(()) })) }
            },
            PlatformSpec::Sites { sites, .. } => self.view_sites(ctx, sites),
        };
        html! {
            <div class="fields">
                <label>{"Platform "}
                    <select onchange={choose} data-testid="platform">
                        { for PLATFORM_PRESETS.iter().map(|(n, _)| { let v = format!("preset:{n}"); html!{ <option selected={current == v} value={v.clone()}>{format!("preset {n}")}</option> } }) }
                        <option value="trace" selected={current == "trace"}>{"one site sized from the trace"}</option>
                        <option value="sites" selected={current == "sites"}>{"custom sites"}</option>
                    </select>
                </label>
                {body}
            </div>
        }
    }

    fn view_sites(&self, ctx: &Context<Self>, sites: &[Site]) -> Html {
        fn site_edit(i: usize, f: fn(&mut Site, &str) -> Result<(), String>) -> Edit {
            edit(move |s, v| {
                if let PlatformSpec::Sites { sites, .. } = &mut s.platform {
                    if let Some(site) = sites.get_mut(i) {
                        f(site, v)?;
                    }
                }
                Ok(())
            })
        }
        let input = |i: usize,
                     label: &str,
                     value: String,
                     f: fn(&mut Site, &str) -> Result<(), String>,
                     kind: &str| {
            let apply = site_edit(i, f);
            let cb = ctx.link().callback(move |e: Event| {
                Msg::Edit(
                    apply.clone(),
                    e.target_unchecked_into::<HtmlInputElement>().value(),
                )
            });
            html! { <td><input type={kind.to_string()} aria-label={label.to_string()} value={value} onchange={cb} /></td> }
        };
        let add = ctx.link().callback(|_| {
            Msg::Edit(
                edit(|s, _| {
                    if let PlatformSpec::Sites { sites, .. } = &mut s.platform {
                        let n = sites.len() + 1;
                        sites.push(Site::flat(format!("site{n}"), 64));
                    }
                    Ok(())
                }),
                String::new(),
            )
        });
        html! {
            <>
                <table class="sites">
                    <thead><tr>
                        <th title="Shown in outputs">{"name"}</th>
                        <th title="Nodes of the site">{"nodes"}</th>
                        <th title="CPUs on each node">{"CPUs/node"}</th>
                        <th title="Relative speed (SOB Table 1 uses MHz): runtime on m = runtime at home × speed(home) / speed(m)">{"speed"}</th>
                        <th title="processor: any CPU to any job; node: a node runs at most one job, so a job takes ceil(p / CPUs per node) whole nodes (SOB §3)">{"allocation"}</th>
                        <th></th>
                    </tr></thead>
                    <tbody>
                    { for sites.iter().enumerate().map(|(i, s)| {
                        let alloc = ctx.link().callback(move |e: Event| {
                            let v = e.target_unchecked_into::<HtmlSelectElement>().value();
                            Msg::Edit(site_edit(i, |s, v| { s.allocation = if v == "node" { Allocation::Node } else { Allocation::Processor }; Ok(()) }), v)
                        });
                        let remove = ctx.link().callback(move |_| Msg::Edit(edit(move |s, _| {
                            if let PlatformSpec::Sites { sites, .. } = &mut s.platform { if sites.len() > 1 { sites.remove(i); } else { return Err("a platform needs at least one site".into()); } }
                            Ok(())
                        }), String::new()));
                        html!{ <tr>
                            { input(i, "site name", s.name.clone(), |s, v| { s.name = v.trim().to_string(); Ok(()) }, "text") }
                            { input(i, "nodes", s.nodes.to_string(), |s, v| { s.nodes = parse("nodes", v)?; Ok(()) }, "number") }
                            { input(i, "CPUs per node", s.cpus_per_node.to_string(), |s, v| { s.cpus_per_node = parse("CPUs per node", v)?; Ok(()) }, "number") }
                            { input(i, "speed", s.speed.to_string(), |s, v| { s.speed = parse("speed", v)?; Ok(()) }, "number") }
                            <td><select aria-label="allocation" onchange={alloc}>
                                <option value="processor" selected={s.allocation == Allocation::Processor}>{"processor"}</option>
                                <option value="node" selected={s.allocation == Allocation::Node}>{"node"}</option>
                            </select></td>
                            <td><button class="small" onclick={remove}>{"remove"}</button></td>
                        </tr> }
                    }) }
                    </tbody>
                </table>
                <button class="small" onclick={add}>{"add site"}</button>
                <p class="help">{"With one site every job runs there; with several, each job goes to its home site (grid policies come later)."}</p>
            </>
        }
    }

    fn view_algorithms(&self, ctx: &Context<Self>) -> Html {
        html! {
            <div class="fields algos">
                <p class="help">{"Local policies (one run each, no grid scheme):"}</p>
                { for LocalPolicyKind::ALL.iter().map(|&k| {
                    let on = self.scenario.algorithms.iter().any(|a| a.local == k && a.grid == GridScheme::Local);
                    let cb = ctx.link().callback(move |_| Msg::Edit(edit(move |s, _| {
                        let is = |a: &AlgorithmSpec| a.local == k && a.grid == GridScheme::Local;
                        if s.algorithms.iter().any(is) {
                            s.algorithms.retain(|a| !is(a));
                        } else {
                            let sort = s.algorithms.iter().all(|a| a.grid == GridScheme::Local);
                            s.algorithms.push(AlgorithmSpec::local(k));
                            if sort {
                                s.algorithms.sort_by_key(|a| LocalPolicyKind::ALL.iter().position(|&x| x == a.local));
                            }
                        }
                        Ok(())
                    }), String::new()));
                    html!{
                        <label class="check"><input type="checkbox" checked={on} onchange={cb} data-testid={format!("alg-{}", k.name())} />
                            <strong>{format!(" {}", k.name())}</strong><span class="help">{format!(" — {}", k.describe())}</span></label>
                    }
                }) }
                { self.view_algorithm_rows(ctx) }
            </div>
        }
    }

    /// Every run of the scenario: label, local policy, grid scheme (SOB) and its parameters.
    fn view_algorithm_rows(&self, ctx: &Context<Self>) -> Html {
        fn row_edit(i: usize, f: fn(&mut AlgorithmSpec, &str) -> Result<(), String>) -> Edit {
            edit(move |s, v| {
                let a = s
                    .algorithms
                    .get_mut(i)
                    .ok_or("that algorithm row is gone")?;
                let mut b = a.clone();
                f(&mut b, v)?;
                b.grid_params.validate()?;
                *a = b;
                Ok(())
            })
        }
        /// A label that only named the scheme or the algorithm follows a change of either.
        fn relabel(a: &mut AlgorithmSpec, old_grid: GridScheme, old_alg: String) {
            if let Some(l) = &a.label {
                if *l == old_grid.name() {
                    a.label = Some(a.grid.name().to_string());
                } else if *l == old_alg {
                    a.label = None;
                }
            }
        }
        let link = ctx.link();
        let add = link.callback(|_| {
            Msg::Edit(
                edit(|s, _| {
                    s.algorithms.push(AlgorithmSpec::grid(
                        GridScheme::Sender,
                        LocalPolicyKind::Easy,
                    ));
                    Ok(())
                }),
                String::new(),
            )
        });
        let param = |i: usize,
                     name: &'static str,
                     title: &'static str,
                     value: f64,
                     f: fn(&mut AlgorithmSpec, &str) -> Result<(), String>| {
            let apply = row_edit(i, f);
            let cb = link.callback(move |e: Event| {
                Msg::Edit(
                    apply.clone(),
                    e.target_unchecked_into::<HtmlInputElement>().value(),
                )
            });
            html! { <label class="param" title={title}>{name}
            <input type="number" step="any" aria-label={format!("{name} of run {}", i + 1)} data-testid={format!("param-{i}-{name}")} value={value.to_string()} onchange={cb} /></label> }
        };
        html! {
            <>
                if !self.scenario.algorithms.is_empty() {
                    <p class="help">{"Runs, in order (a grid scheme decides which site runs each job; the local policy orders each site's queue):"}</p>
                }
                <table class="algorows" data-testid="algorithm-rows">
                    <thead><tr>
                        <th title="Shown in the results; empty = scheme+policy">{"label"}</th>
                        <th title="The local scheduler of every site">{"local policy"}</th>
                        <th title="SOB grid scheme above the local schedulers">{"grid scheme"}</th>
                        <th></th>
                    </tr></thead>
                    <tbody>
                    { for self.scenario.algorithms.iter().enumerate().map(|(i, a)| {
                        let label_cb = {
                            let apply = row_edit(i, |a, v| { let v = v.trim(); a.label = (!v.is_empty()).then(|| v.to_string()); Ok(()) });
                            link.callback(move |e: Event| Msg::Edit(apply.clone(), e.target_unchecked_into::<HtmlInputElement>().value()))
                        };
                        let local_cb = {
                            let apply = row_edit(i, |a, v| {
                                let (g, alg) = (a.grid, a.algorithm());
                                a.local = LocalPolicyKind::ALL.iter().copied().find(|k| k.name() == v).ok_or_else(|| format!("unknown local policy '{v}'"))?;
                                relabel(a, g, alg);
                                Ok(())
                            });
                            link.callback(move |e: Event| Msg::Edit(apply.clone(), e.target_unchecked_into::<HtmlSelectElement>().value()))
                        };
                        let grid_cb = {
                            let apply = row_edit(i, |a, v| {
                                let (g, alg) = (a.grid, a.algorithm());
                                a.grid = GridScheme::parse(v)?;
                                relabel(a, g, alg);
                                Ok(())
                            });
                            link.callback(move |e: Event| Msg::Edit(apply.clone(), e.target_unchecked_into::<HtmlSelectElement>().value()))
                        };
                        let remove = link.callback(move |_| Msg::Edit(edit(move |s, _| {
                            if i < s.algorithms.len() { s.algorithms.remove(i); }
                            Ok(())
                        }), String::new()));
                        let p = a.grid_params;
                        let uses_params = !matches!(a.grid, GridScheme::Local | GridScheme::Ideal);
                        html!{ <>
                            <tr data-row={i.to_string()}>
                                <td><input type="text" aria-label={format!("label of run {}", i + 1)} placeholder={a.algorithm()} value={a.label.clone().unwrap_or_default()} onchange={label_cb} /></td>
                                <td><select aria-label={format!("local policy of run {}", i + 1)} onchange={local_cb}>
                                    { for LocalPolicyKind::ALL.iter().map(|k| html!{ <option value={k.name()} selected={*k == a.local}>{k.name()}</option> }) }
                                </select></td>
                                <td><select aria-label={format!("grid scheme of run {}", i + 1)} data-testid={format!("grid-{i}")} title={a.grid.describe()} onchange={grid_cb}>
                                    { for GridScheme::ALL.iter().map(|g| html!{ <option value={g.name()} selected={*g == a.grid} title={g.describe()}>{g.name()}</option> }) }
                                </select></td>
                                <td><button class="small" onclick={remove}>{"remove"}</button></td>
                            </tr>
                            if uses_params {
                                <tr class="params"><td colspan="4">
                                    { param(i, "φ", "φ (s): a job whose home AWT is below φ stays home without asking (SOB: 60 s)", p.phi_s, |a, v| { a.grid_params.phi_s = parse("φ", v)?; Ok(()) }) }
                                    { param(i, "δ", "δ: a site volunteers (receiver-initiated) when its utilization RUS is below δ (SOB: 0.7)", p.delta, |a, v| { a.grid_params.delta = parse("δ", v)?; Ok(()) }) }
                                    { param(i, "σ", "σ (s): period of the RUS checks and of waiting jobs' AWT re-checks (SOB: 300 s)", p.sigma_s, |a, v| { a.grid_params.sigma_s = parse("σ", v)?; Ok(()) }) }
                                    { param(i, "ε", "ε (s): sites whose ATT is within ε of the minimum tie; the lowest RUS wins (ours: 10 s)", p.epsilon_s, |a, v| { a.grid_params.epsilon_s = parse("ε", v)?; Ok(()) }) }
                                    { param(i, "latency", "one-way message latency (s): a query's answers arrive two latencies later (ours: 0)", p.latency_s, |a, v| { a.grid_params.latency_s = parse("latency", v)?; Ok(()) }) }
                                </td></tr>
                            }
                        </> }
                    }) }
                    </tbody>
                </table>
                <button class="small" data-testid="add-algorithm" onclick={add}>{"add a grid run"}</button>
                <details class="scheme-help">
                    <summary>{"Grid schemes and their parameters (SOB)"}</summary>
                    <dl>
                        { for GridScheme::ALL.iter().map(|g| html!{ <><dt><code>{g.name()}</code></dt><dd>{g.describe()}</dd></> }) }
                    </dl>
                    <p class="help">{format!(
                        "AWT: a site's approximate wait time for the job; ERT: its estimated run time there (speed-scaled); ATT = AWT + ERT; RUS: resource utilization status. Parameters: φ = {} s, δ = {}, σ = {} s are the paper's defaults; ε = {} s and latency {} s are ours. Central ignores φ; the idealized machine ignores all of them.",
                        GridParams::default().phi_s, GridParams::default().delta, GridParams::default().sigma_s, GridParams::default().epsilon_s, GridParams::default().latency_s
                    )}</p>
                </details>
            </>
        }
    }

    fn view_options(&self, ctx: &Context<Self>) -> Html {
        let o = self.scenario.options;
        let est = ctx.link().callback(|e: Event| {
            let v = e.target_unchecked_into::<HtmlSelectElement>().value();
            Msg::Edit(
                edit(|s, v| {
                    s.options.estimates = if v == "exact" {
                        EstimateSource::Exact
                    } else {
                        EstimateSource::Trace
                    };
                    Ok(())
                }),
                v,
            )
        });
        let kill = ctx.link().callback(|_| {
            Msg::Edit(
                edit(|s, _| {
                    s.options.kill_at_estimate = !s.options.kill_at_estimate;
                    Ok(())
                }),
                String::new(),
            )
        });
        html! {
            <div class="fields">
                <label>{"Runtime estimates "}
                    <select onchange={est} data-testid="estimates">
                        <option value="trace" selected={o.estimates == EstimateSource::Trace}>{"the trace's (user estimates)"}</option>
                        <option value="exact" selected={o.estimates == EstimateSource::Exact}>{"exact (the real runtime)"}</option>
                    </select>
                </label>
                <p class="help">{"What backfilling and SJF plan with: the user's estimate (SWF field 9; the runtime when missing) or a perfectly informed scheduler."}</p>
                <label class="check"><input type="checkbox" checked={o.kill_at_estimate} onchange={kill} />
                    {" kill jobs at their estimate"}<span class="help">{" — as real batch systems do; off, a job runs to its end and plans are rebuilt when its estimate expires."}</span></label>
                if !matches!(self.scenario.workload, WorkloadSpec::SesPoisson(_)) {
                    { Self::num(ctx, "seed2", "Seed", "Only generators use the seed.", self.scenario.seed.to_string(), "1",
                        edit(|s, v| { s.seed = parse::<u64>("seed", v)?; Ok(()) })) }
                }
            </div>
        }
    }

    fn view_run(&self, ctx: &Context<Self>) -> Html {
        let r = &self.run;
        let frac = if r.algorithms > 0 {
            let inner = if r.total > 0 {
                r.done as f64 / r.total as f64
            } else {
                0.0
            };
            ((self.results.len() as f64 + inner.min(1.0)) / r.algorithms as f64).min(1.0)
        } else {
            0.0
        };
        html! {
            <div class="run">
                <button class="primary" data-testid="run" onclick={ctx.link().callback(|_| Msg::Run)}>{"Run"}</button>
                <button data-testid="cancel" disabled={!r.running} onclick={ctx.link().callback(|_| Msg::Cancel)}>{"Cancel"}</button>
                <progress data-testid="progress" max="1" value={frac.to_string()} aria-label="run progress"></progress>
                <span class="status" data-testid="status">{
                    if r.running {
                        format!("running {} of {} ({}/{} events)…", (self.results.len() + 1).min(r.algorithms.max(1)), r.algorithms, r.done, r.total)
                    } else if let Some(ms) = self.elapsed_ms {
                        format!("done in {:.2} s", ms / 1000.0)
                    } else { String::new() }
                }</span>
            </div>
        }
    }

    fn view_results(&self, ctx: &Context<Self>) -> Html {
        let cols = self.columns();
        if self.results.is_empty() && !self.run.running {
            return html! {};
        }
        let mut rows: Vec<&RunResult> = self.results.iter().collect();
        let (key, desc) = self.sort;
        if !key.is_empty() {
            if key == "label" {
                rows.sort_by(|a, b| a.label.cmp(&b.label));
            } else {
                rows.sort_by(|a, b| metric(a, key).total_cmp(&metric(b, key)));
            }
            if desc {
                rows.reverse();
            }
        }
        let th = |k: &'static str, title: &str, help: String| {
            let (arrow, aria) = match (self.sort.0 == k, self.sort.1) {
                (true, true) => (" ▼", "descending"),
                (true, false) => (" ▲", "ascending"),
                (false, _) => ("", "none"),
            };
            html! { <th aria-sort={aria} title={help}><button class="sort" onclick={ctx.link().callback(move |_| Msg::Sort(k))}>{format!("{title}{arrow}")}</button></th> }
        };
        html! {
            <>
                <h2>{"Results"}</h2>
                <p class="help" data-testid="run-info">{
                    if self.platform.is_some() {
                        format!("{} — {} jobs; platform: {}", self.scenario.name, fmt_num(self.jobs as f64, 0), self.platform_note)
                    } else {
                        format!("{} — preparing the workload…", self.scenario.name)
                    }
                }</p>
                <div class="table-wrap">
                <table data-testid="results" class="metrics">
                    <thead><tr>
                        { th("label", "algorithm", "Click a header to sort".into()) }
                        { for cols.iter().map(|&(k, t, _)| th(k, t, help_for(k))) }
                    </tr></thead>
                    <tbody>
                        { for rows.iter().map(|r| html!{
                            <tr data-label={r.label.clone()}>
                                <th scope="row">{&r.label}</th>
                                { for cols.iter().map(|&(k, _, d)| {
                                    let v = &r.run["metrics"][k];
                                    html!{ <td data-key={k} data-value={v.to_string()}>{fmt_num(v.as_f64().unwrap_or(f64::NAN), d)}</td> }
                                }) }
                            </tr>
                        }) }
                    </tbody>
                </table>
                </div>
                if !self.import_summary.is_empty() {
                    <details><summary>{"Workload import report"}</summary><pre>{&self.import_summary}</pre></details>
                }
                if let Some(j) = &self.report_json {
                    <details><summary>{"Metrics JSON (the CLI's --json output)"}</summary><pre data-testid="report-json">{j}</pre></details>
                }
                <div class="exports">
                    <button onclick={ctx.link().callback(|_| Msg::ExportJson)} disabled={self.report_json.is_none()}>{"Export metrics JSON"}</button>
                    <button onclick={ctx.link().callback(|_| Msg::Export(ExportKind::JobsCsv))} disabled={self.report_json.is_none()}>{format!("Export per-job CSV ({})", self.results.get(self.sel_run).map(|r| r.label.as_str()).unwrap_or(""))}</button>
                    <button onclick={ctx.link().callback(|_| Msg::Export(ExportKind::WorkloadSwf))} disabled={self.report_json.is_none()}>{"Export workload as SWF"}</button>
                </div>
            </>
        }
    }

    fn view_charts(&self, ctx: &Context<Self>) -> Html {
        if self.results.is_empty() {
            return html! {};
        }
        let select = |label: &str, items: Vec<String>, sel: usize, f: fn(usize) -> Msg| {
            let cb = ctx.link().callback(move |e: Event| {
                f(e.target_unchecked_into::<HtmlSelectElement>()
                    .value()
                    .parse()
                    .unwrap_or(0))
            });
            html! {
                <label>{format!("{label} ")}
                    <select onchange={cb}>
                        { for items.iter().enumerate().map(|(i, t)| html!{ <option value={i.to_string()} selected={i == sel}>{t}</option> }) }
                    </select>
                </label>
            }
        };
        let labels: Vec<String> = self.results.iter().map(|r| r.label.clone()).collect();
        let sites: Vec<String> = self
            .platform
            .as_ref()
            .map(|p| p.sites.iter().map(|s| s.name.clone()).collect())
            .unwrap_or_default();
        let mut ids = HashMap::new();
        ids.insert(0, "chart-bars");
        html! {
            <div class="charts">
                <h2>{"Charts"}</h2>
                <div class="controls">
                    { select("metric", BAR_METRICS.iter().map(|m| m.1.to_string()).collect(), self.bar_metric, Msg::BarMetric) }
                    { select("baseline", labels.clone(), self.baseline, Msg::Baseline) }
                </div>
                { self.canvas(ctx, 0, 640, 300, "chart-bars") }
                { self.view_sob_figure(ctx) }
                if sites.len() > 1 {
                    { self.canvas(ctx, 5, 640, 280, "chart-sites") }
                    { self.view_transfers(ctx, &sites) }
                }
                { self.canvas(ctx, 1, 640, 300, "chart-cdf") }
                <div class="controls">
                    { select("algorithm", labels, self.sel_run, Msg::SelectRun) }
                    { select("site", sites, self.sel_site, Msg::SelectSite) }
                </div>
                { self.canvas(ctx, 2, 640, 260, "chart-util") }
                { self.canvas(ctx, 3, 640, 260, "chart-queue") }
                <div class="controls">
                    <button class="small" onclick={ctx.link().callback(|_| Msg::Pan(-0.5))}>{"◀ earlier"}</button>
                    <button class="small" onclick={ctx.link().callback(|_| Msg::Zoom(0.5))}>{"zoom in"}</button>
                    <button class="small" onclick={ctx.link().callback(|_| Msg::Zoom(2.0))}>{"zoom out"}</button>
                    <button class="small" onclick={ctx.link().callback(|_| Msg::Pan(0.5))}>{"later ▶"}</button>
                    <button class="small" onclick={ctx.link().callback(|_| Msg::ZoomReset)}>{"whole run"}</button>
                    if let Some((a, b)) = self.window { <span class="help">{format!(" {:.1} h – {:.1} h", a / 3600.0, b / 3600.0)}</span> }
                </div>
                if self.results.get(self.sel_run).is_some_and(|r| r.run["algorithm"] == "ideal") {
                    <p class="help" data-testid="gantt-ideal">{"The idealized scheme has no processors to draw: its jobs share one virtual machine of Σ CPUs × MHz, each from its submit time (processor sharing), so this chart shows nothing for it."}</p>
                }
                { self.canvas(ctx, 4, 960, 360, "chart-gantt") }
                <p class="help">{"The engine counts processors; the Gantt chart places each job on the lowest free ones for drawing."}</p>
            </div>
        }
    }

    /// SOB Figures 3 and 4 for the runs on the page: five panels and the same numbers in a
    /// table (raw values in `data-value`, for tests and copying).
    fn view_sob_figure(&self, ctx: &Context<Self>) -> Html {
        if self.results.len() < 2 {
            return html! {};
        }
        let (base, is_local, values) = self.sob_figure();
        let base_label = self.results[base].label.clone();
        let json = |v: f64| serde_json::to_string(&v).unwrap_or_else(|_| "null".into());
        let shown = |k: usize, v: f64| match k {
            0 | 1 => fmt_num(v, 3),
            2 => fmt_num(v, 0),
            _ => fmt_num(v, 3),
        };
        let heads = [
            format!("avg wait ÷ {base_label}"),
            format!("avg response ÷ {base_label}"),
            "wait deviation (s)".to_string(),
            "grid efficiency".to_string(),
            "fraction transferred".to_string(),
        ];
        let baseline_note = if is_local {
            "wait and response are normalized to the run labelled local, so local is 1".to_string()
        } else {
            format!("no run is labelled local, so wait and response are normalized to the first run, {base_label} (it is 1)")
        };
        html! {
            <div class="sob-figure">
                { self.canvas(ctx, SOB_FIG, 960, 320, "chart-sob") }
                <div class="table-wrap">
                <table class="metrics" data-testid="sob-figure" data-baseline={base_label.clone()}>
                    <caption>{format!("SOB §3.2, Fig. 3/4: the five metrics per run; {baseline_note}.")}</caption>
                    <thead><tr>
                        <th>{"run"}</th>
                        { for SOB_METRICS.iter().zip(&heads).map(|((key, _, _), h)| html!{ <th title={help_for(key)}>{h}</th> }) }
                    </tr></thead>
                    <tbody>
                        { for self.results.iter().zip(&values).map(|(r, row)| html!{
                            <tr data-run={r.label.clone()}>
                                <th scope="row">{&r.label}</th>
                                { for SOB_METRICS.iter().enumerate().map(|(k, (key, fig_key, normalized))| {
                                    // Raw metrics carry the engine's own JSON number, as the results table.
                                    let raw = if *normalized { json(row[k]) } else { r.run["metrics"][*key].to_string() };
                                    html!{ <td data-run={r.label.clone()} data-key={*fig_key} data-value={raw}>{shown(k, row[k])}</td> }
                                }) }
                            </tr>
                        }) }
                    </tbody>
                </table>
                </div>
                <p class="help" data-testid="sob-figure-help">{format!(
                    "SOB §3.2, Fig. 3/4 (local, sender, receiver, symmetric, central, ideal in the paper). Normalized wait = avg wait (mean of start − submit) ÷ {base_label}'s; normalized response = avg response (mean of end − submit) ÷ {base_label}'s; wait deviation = sqrt(Σ(w − w̄)²/N), the population standard deviation of the waits (SOB prints (1/N)·sqrt(Σw² − (Σw/N)²), not a standard deviation); grid efficiency = Σ run time × CPUs × CPU speed ÷ ((last end − first submit) × Σ CPUs × speed); fraction transferred = jobs run away from their home site ÷ jobs run. The chart shows efficiency and transferred in %."
                )}</p>
            </div>
        }
    }

    /// The SOB §3.1 hyper-Erlang fit of the loaded SWF file: per size class, the sample and
    /// fitted raw moments of inter-arrival and service times.
    fn view_fit(&self, ctx: &Context<Self>) -> Html {
        let WorkloadSpec::Swf { file, .. } = &self.scenario.workload else {
            return html! {};
        };
        let loaded = self
            .files
            .iter()
            .any(|f| &f.name == file && matches!(f.status, FileStatus::Loaded { .. }));
        let cpn = ctx.link().callback(|e: Event| {
            Msg::FitCpn(e.target_unchecked_into::<HtmlInputElement>().value())
        });
        let m = |v: f64| format!("{v:.4e}");
        let moments = |fm: &FittedMoments, what: &'static str| {
            html! {
                <>
                    { for (0..3).map(|k| html!{ <td data-key={format!("{what}-sample-{}", k + 1)} data-value={fm.sample[k].to_string()}>{m(fm.sample[k])}</td> }) }
                    { for (0..3).map(|k| html!{ <td data-key={format!("{what}-fitted-{}", k + 1)} data-value={fm.fitted[k].to_string()} title={fm.note.clone()}>{m(fm.fitted[k])}{ if fm.exact { "" } else { " *" } }</td> }) }
                </>
            }
        };
        html! {
            <div class="fit">
                <div class="controls">
                    <label for="fit-cpn">{"CPUs per node "}</label>
                    <input id="fit-cpn" data-testid="fit-cpn" type="number" min="1" step="1" value={self.fit_cpn.to_string()} onchange={cpn} />
                    <button class="small" data-testid="fit-run" disabled={!loaded || self.fitting} onclick={ctx.link().callback(|_| Msg::Fit)}>{"Fit hyper-Erlang model"}</button>
                    if self.fitting { <span class="help">{" fitting…"}</span> }
                </div>
                <p class="help">{"SOB §3.1: jobs are split into size classes by nodes (processors ÷ CPUs per node); each class's inter-arrival and service times get a hyper-Erlang matching their first three moments (* = not matched exactly)."}</p>
                if let Some(e) = &self.fit_error { <p class="error" data-testid="fit-error">{e}</p> }
                if let Some(FitState { name, cpus_per_node: c, classes, compare }) = &self.fit {
                    <div class="table-wrap">
                    <table class="metrics" data-testid="fit" data-file={name.clone()} data-cpn={c.to_string()}>
                        <caption>{format!("{name}, {c} CPU(s) per node: moments μ1 (s), μ2 (s²), μ3 (s³)")}</caption>
                        <thead>
                            <tr><th rowspan="2">{"nodes"}</th><th rowspan="2">{"jobs"}</th><th colspan="3">{"inter-arrival, sample"}</th><th colspan="3">{"inter-arrival, fitted"}</th><th colspan="3">{"service, sample"}</th><th colspan="3">{"service, fitted"}</th></tr>
                            <tr>{ for (0..4).map(|_| html!{ <><th>{"μ1"}</th><th>{"μ2"}</th><th>{"μ3"}</th></> }) }</tr>
                        </thead>
                        <tbody>
                            { for classes.iter().map(|f| html!{
                                <tr data-nmin={f.class.nmin.to_string()} data-nmax={f.class.nmax.to_string()} data-jobs={f.jobs.to_string()}>
                                    <th scope="row">{ if f.class.nmin == f.class.nmax { f.class.nmin.to_string() } else { format!("{}–{}", f.class.nmin, f.class.nmax) } }</th>
                                    <td>{fmt_num(f.jobs as f64, 0)}</td>
                                    { moments(&f.interarrival, "ia") }
                                    { moments(&f.service, "svc") }
                                </tr>
                            }) }
                        </tbody>
                    </table>
                    </div>
                    if let Some(cmp) = compare { { self.view_fit_compare(ctx, cmp) } }
                }
            </div>
        }
    }

    /// The trace beside a synthetic workload drawn from its fit: job counts, three CDFs and
    /// the synthetic SWF.
    fn view_fit_compare(&self, ctx: &Context<Self>, cmp: &FitCompare) -> Html {
        let (o, n) = (cmp.original.jobs, cmp.synthetic.jobs);
        let diff = if o > 0 {
            format!(" ({:+.1} %)", (n as f64 / o as f64 - 1.0) * 100.0)
        } else {
            String::new()
        };
        html! {
            <div class="charts fit-charts">
                <p class="help" data-testid="fit-counts" data-original={o.to_string()} data-synthetic={n.to_string()} data-seed={cmp.seed.to_string()} data-horizon={cmp.horizon_s.to_string()}>{
                    if cmp.error.is_none() {
                        format!("Trace: {} jobs. Synthetic workload drawn from the fitted classes (seed {}, arrivals over the trace's first {}, as gridscope fit draws it): {} jobs{diff}.",
                            fmt_num(o as f64, 0), cmp.seed, plots::format_secs(cmp.horizon_s), fmt_num(n as f64, 0))
                    } else {
                        format!("Trace: {} jobs.", fmt_num(o as f64, 0))
                    }
                }</p>
                if let Some(e) = &cmp.error { <p class="error" data-testid="fit-synthetic-error">{e}</p> }
                { for FIT_CDFS.iter().map(|(i, _, _, id)| self.canvas(ctx, *i, 420, 250, id)) }
                <p class="help">{"What was fitted (SOB §3.1): jobs grouped into classes by nodes (processors ÷ CPUs per node), a class under 2 % of the jobs merged into its smaller neighbour; per class, the first three moments μ1, μ2, μ3 of its inter-arrival times (between its own submits) and of its run times matched by a hyper-Erlang of common order. The synthetic workload draws each class as its own stream with processors uniform inside the class; these CDFs pool all classes, so they check the model as a whole, beyond the matched moments."}</p>
                <button class="small" data-testid="fit-download" disabled={cmp.error.is_some()} onclick={ctx.link().callback(|_| Msg::Export(ExportKind::SyntheticSwf))}>{"Download synthetic SWF"}</button>
            </div>
        }
    }

    /// The transfer matrix of one run: `transfers[home][site]` job counts, off-diagonal
    /// cells shaded by their share of the row's jobs.
    fn view_transfers(&self, ctx: &Context<Self>, sites: &[String]) -> Html {
        let runs: Vec<(usize, &RunResult, Vec<Vec<u64>>)> = self
            .results
            .iter()
            .enumerate()
            .filter_map(|(i, r)| {
                let m = transfer_matrix(r);
                (!m.is_empty()).then_some((i, r, m))
            })
            .collect();
        if runs.is_empty() {
            return html! {};
        }
        let chosen = self
            .sel_transfers
            .and_then(|s| runs.iter().position(|(i, _, _)| *i == s))
            .or_else(|| runs.iter().position(|(i, _, _)| *i == self.sel_run))
            .unwrap_or(0);
        let (_, run, m) = &runs[chosen];
        let onchange = ctx.link().callback(|e: Event| {
            Msg::SelectTransfers(
                e.target_unchecked_into::<HtmlSelectElement>()
                    .value()
                    .parse()
                    .unwrap_or(0),
            )
        });
        let name = |k: usize| sites.get(k).cloned().unwrap_or_else(|| format!("site {k}"));
        html! {
            <div class="transfers">
                <div class="controls">
                    <label>{"transfers of "}
                        <select {onchange} data-testid="transfers-run">
                            { for runs.iter().enumerate().map(|(j, (i, r, _))| html!{ <option value={i.to_string()} selected={j == chosen}>{&r.label}</option> }) }
                        </select>
                    </label>
                </div>
                <div class="table-wrap">
                <table class="metrics transfers" data-testid="transfers" data-label={run.label.clone()}>
                    <caption>{"Jobs by home site (rows) and the site they ran at (columns)"}</caption>
                    <thead><tr>
                        <th>{"home \\ ran at"}</th>
                        { for (0..m.len()).map(|k| html!{ <th scope="col">{name(k)}</th> }) }
                    </tr></thead>
                    <tbody>
                        { for m.iter().enumerate().map(|(h, row)| {
                            let total: u64 = row.iter().sum();
                            html!{
                                <tr data-home={h.to_string()}>
                                    <th scope="row">{name(h)}</th>
                                    { for row.iter().enumerate().map(|(k, &c)| {
                                        let share = if total > 0 { c as f64 / total as f64 } else { 0.0 };
                                        // Ten shades (CSS classes: the page's CSP forbids inline styles); a quarter of
                                        // the row or more is the darkest.
                                        let heat = (h != k && c > 0).then(|| format!("heat-{}", ((share * 4.0).min(1.0) * 9.0).round() as u32 + 1));
                                        let title = format!("{} → {}: {} jobs ({:.1} % of {})", name(h), name(k), c, share * 100.0, name(h));
                                        html!{ <td data-value={c.to_string()} class={classes!((h == k).then_some("diag"), heat)} {title}>{fmt_num(c as f64, 0)}</td> }
                                    }) }
                                </tr>
                            }
                        }) }
                    </tbody>
                </table>
                </div>
                <p class="help">{"Off-diagonal cells are jobs that ran away from their home site, shaded by their share of the home site's jobs."}</p>
            </div>
        }
    }

    /// A chart's canvas with the value under the pointer written below it.
    fn canvas(&self, ctx: &Context<Self>, i: usize, w: u32, h: u32, testid: &'static str) -> Html {
        let node = self.canvases[i].clone();
        let onmousemove = ctx.link().callback(move |e: MouseEvent| {
            let (mut x, mut y) = (e.offset_x() as f64, e.offset_y() as f64);
            if let Some(c) = node.cast::<HtmlCanvasElement>() {
                let (cw, ch) = (
                    c.client_width().max(1) as f64,
                    c.client_height().max(1) as f64,
                );
                x *= c.width() as f64 / cw;
                y *= c.height() as f64 / ch;
            }
            Msg::Hover(i, x, y)
        });
        let onmouseleave = ctx.link().callback(move |_| Msg::Hover(i, -1.0, -1.0));
        html! {
            <figure class={classes!("chart", (i == 4 || i == SOB_FIG).then_some("wide"))}>
                <canvas ref={self.canvases[i].clone()} width={w.to_string()} height={h.to_string()} data-testid={testid} {onmousemove} {onmouseleave}></canvas>
                <output class="hover" data-testid={format!("{testid}-hover")}>{ if self.hover[i].is_empty() { "\u{a0}".to_string() } else { self.hover[i].clone() } }</output>
            </figure>
        }
    }

    /// The table's columns: the known ones in their order, then any other number the engine's
    /// metrics carry (newer engines add metrics; they show up without a page change).
    fn columns(&self) -> Vec<(&'static str, &'static str, usize)> {
        let mut cols: Vec<(&'static str, &'static str, usize)> = COLUMNS.to_vec();
        if let Some(m) = self
            .results
            .first()
            .and_then(|r| r.run["metrics"].as_object())
        {
            for h in METRIC_HELP {
                let known = cols.iter().any(|c| c.0 == h.key);
                if !known && m.get(h.key).is_some_and(|v| v.is_number()) {
                    cols.insert(cols.len() - 4, (h.key, h.key, 3));
                }
            }
        }
        cols
    }

    fn view_metric_help(&self) -> Html {
        html! {
            <details class="metric-help">
                <summary>{"What the metrics mean"}</summary>
                <dl>
                    { for METRIC_HELP.iter().map(|m| html!{
                        <>
                            <dt><code>{m.key}</code></dt>
                            <dd>{m.formula}{ if m.source.is_empty() { String::new() } else { format!(" — {}", m.source) } }</dd>
                        </>
                    }) }
                </dl>
            </details>
        }
    }
}

/// `metrics.transfers` of a run (empty when the run has none, e.g. `ideal`).
fn transfer_matrix(r: &RunResult) -> Vec<Vec<u64>> {
    r.run["metrics"]["transfers"]
        .as_array()
        .map(|rows| {
            rows.iter()
                .map(|row| {
                    row.as_array()
                        .map(|c| c.iter().map(|v| v.as_u64().unwrap_or(0)).collect())
                        .unwrap_or_default()
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Files a workload reads, by name (empty for generators).
fn workload_files(w: &WorkloadSpec) -> Vec<String> {
    match w {
        WorkloadSpec::Swf { file, .. } | WorkloadSpec::SwfPartitions { file, .. } => {
            vec![file.clone()]
        }
        WorkloadSpec::SwfSites { files, .. } => files.clone(),
        _ => vec![],
    }
}
