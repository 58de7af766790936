//! Cluster sweeps in the page (issue #26, docs/cluster.md): the scheduling view's "Export
//! for a cluster" (the manifest `gridscope sweep plan` takes, reproducing the results on
//! screen), a manifest opened from a `#m1=` link (what it expands to, its download, each
//! case opened in the scheduling view), and a merged table of `gridscope sweep merge`
//! dropped or picked here, drawn like a local sweep with its Data table.
//!
//! The page's drop code stays the scheduling view's: it only leaves out files named as
//! `sweep merge` names them ([`is_merged_table_name`]), which this view's own window
//! listener takes; anything dropped on this view's drop zone is read as a merged table.

use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::form::select_value;
use super::Alert;
use crate::scenario::manifest::{self, Manifest, Overview};
use crate::scenario::merged::{self, MergedTable};
use crate::scenario::Scenario;
use crate::web::charts::{plot, ChartView, MergedChart};
use crate::web::format::{download_text, fmt_num, location_hash};
use crate::web::share;

/// The files `gridscope sweep merge` writes into `DIR/merged/`: dropped anywhere on the
/// page, they open here instead of being read as workloads.
pub fn is_merged_table_name(name: &str) -> bool {
    matches!(name, "merged.json" | "points.csv" | "cases.csv")
}

/// Cases a shared manifest may expand to in the page (its summary lists them), and the
/// bytes of their scenarios in all: a link's manifest is a few KB, its cases are copies.
const MAX_PAGE_CASES: usize = 100_000;
const MAX_PAGE_CASE_BYTES: usize = 64 << 20;
/// Cases listed with an "open" link.
const LISTED_CASES: usize = 20;

/// The manifest's file name: its name made safe, `.manifest.json`.
pub(super) fn manifest_file(m: &Manifest) -> String {
    let stem: String = m
        .name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect::<String>()
        .split('-')
        .filter(|s| !s.is_empty())
        .take(6)
        .collect::<Vec<_>>()
        .join("-");
    let stem = if stem.is_empty() {
        "sweep".into()
    } else {
        stem
    };
    format!("{stem}.manifest.json")
}

pub(super) fn manifest_text(m: &Manifest) -> String {
    serde_json::to_string_pretty(m).unwrap_or_default() + "\n"
}

#[derive(Properties, PartialEq)]
pub struct ExportProps {
    /// The scenario the results on screen came from.
    pub scenario: Rc<Scenario>,
}

/// "Export for a cluster" under the scheduling view's results: the manifest of the
/// scenario as run (download) and its `#m1=` link.
#[function_component]
pub fn ExportForCluster(props: &ExportProps) -> Html {
    let files = manifest::workload_files(&props.scenario);
    let where_files = if files.is_empty() {
        String::from("Its workload is generated from the seed: no file to bring.")
    } else {
        format!(
            "It reads {} by name beside the manifest: put the manifest next to the trace(s), or add \"traces\": \"FOLDER\".",
            files.join(", ")
        )
    };
    let help = format!(
        "The manifest reproduces these results: the scenario as run as its base and one axis, seed = {}; each run above is a row of the merged table (`gridscope sweep plan M --out DIR`, `sweep run DIR --shard 0/1` or `sweep slurm DIR --tasks N`, `sweep merge DIR`; docs/cluster.md). Add axes (seeds, policies, sizes, traces) in the file to widen it. {where_files}",
        props.scenario.seed
    );
    html! {
        <super::ManifestExport manifest={Rc::new(manifest::for_scenario(&props.scenario))} help={help}
            title="The sweep manifest of the scenario these results came from (gridscope sweep plan takes it; docs/cluster.md)" />
    }
}

pub enum ClusterMsg {
    /// The address changed: a `#m1=` link opens its manifest.
    Hash,
    /// Files dropped on the page under merged-table names, or on this view's drop zone.
    Files(Vec<web_sys::File>),
    Read(String, Result<Vec<u8>, String>),
    Metric(String),
    XAxis(String),
    DownloadManifest,
    Dragging(bool),
}

/// A manifest from a link: the manifest, and its overview or why the page cannot expand it.
struct Shared {
    manifest: Manifest,
    overview: Result<Expanded, String>,
}

/// What a shared manifest expands to: scheduling scenarios, or seeds of a family run.
enum Expanded {
    Scenarios(Overview),
    Family(crate::reproduce::case::FamilyExpansion),
}

pub struct ClusterPanel {
    shared: Option<Result<Shared, String>>,
    table: Option<(String, Rc<MergedTable>)>,
    error: Option<String>,
    metric: String,
    x_axis: Option<usize>,
    dragging: bool,
    _reader: Option<gloo::file::callbacks::FileReader>,
    _listeners: Vec<WindowListener>,
}

/// A window event listener, removed with the view.
struct WindowListener {
    event: &'static str,
    closure: Closure<dyn FnMut(web_sys::Event)>,
}

impl WindowListener {
    fn new(event: &'static str, f: impl FnMut(web_sys::Event) + 'static) -> WindowListener {
        let closure = Closure::<dyn FnMut(web_sys::Event)>::new(f);
        if let Some(w) = web_sys::window() {
            let _ = w.add_event_listener_with_callback(event, closure.as_ref().unchecked_ref());
        }
        WindowListener { event, closure }
    }
}

impl Drop for WindowListener {
    fn drop(&mut self) {
        if let Some(w) = web_sys::window() {
            let _ = w.remove_event_listener_with_callback(
                self.event,
                self.closure.as_ref().unchecked_ref(),
            );
        }
    }
}

fn files_of(list: Option<web_sys::FileList>) -> Vec<web_sys::File> {
    list.map(|l| (0..l.length()).filter_map(|i| l.get(i)).collect())
        .unwrap_or_default()
}

fn read_shared() -> Option<Result<Shared, String>> {
    let hash = location_hash();
    let m = match share::decode_manifest(&hash) {
        Ok(Some(m)) => m,
        Ok(None) => return None,
        Err(e) => return Some(Err(e)),
    };
    let overview = if m.family_run().is_some() {
        crate::reproduce::case::expand(&m, MAX_PAGE_CASES, &mut |g| {
            Err(format!(
                "the page cannot list {g}: plan this manifest with `gridscope sweep plan`"
            ))
        })
        .map(Expanded::Family)
    } else {
        manifest::overview(&m, MAX_PAGE_CASES, MAX_PAGE_CASE_BYTES).map(Expanded::Scenarios)
    }
    .map_err(|e| e.to_string());
    Some(Ok(Shared {
        manifest: m,
        overview,
    }))
}

/// The example sweep's merged table, shipped with the page: `examples/cluster/points.csv`
/// is what `sweep plan`, `run` and `merge` give for `examples/cluster/manifest.json` (a
/// native test holds the two to each other).
const EXAMPLE_POINTS: &[u8] = include_bytes!("../../../examples/cluster/points.csv");
const EXAMPLE_NAME: &str = "examples/cluster/points.csv";

impl Component for ClusterPanel {
    type Message = ClusterMsg;
    type Properties = ();

    fn create(ctx: &Context<Self>) -> Self {
        let (hash, drop) = (ctx.link().clone(), ctx.link().clone());
        let listeners = vec![
            WindowListener::new("hashchange", move |_| hash.send_message(ClusterMsg::Hash)),
            WindowListener::new("drop", move |e| {
                let files: Vec<web_sys::File> = files_of(
                    e.dyn_ref::<web_sys::DragEvent>()
                        .and_then(|d| d.data_transfer())
                        .and_then(|dt| dt.files()),
                )
                .into_iter()
                .filter(|f| is_merged_table_name(&f.name()))
                .collect();
                if !files.is_empty() {
                    drop.send_message(ClusterMsg::Files(files));
                }
            }),
        ];
        ClusterPanel {
            shared: read_shared(),
            table: None,
            error: None,
            metric: String::new(),
            x_axis: None,
            dragging: false,
            _reader: None,
            _listeners: listeners,
        }
    }

    fn update(&mut self, ctx: &Context<Self>, msg: ClusterMsg) -> bool {
        match msg {
            ClusterMsg::Hash => match read_shared() {
                Some(s) => self.shared = Some(s),
                None => return false,
            },
            ClusterMsg::Files(files) => self.read(ctx, files),
            ClusterMsg::Read(name, bytes) => {
                self._reader = None;
                match bytes.and_then(|b| merged::parse(&name, &b)) {
                    Ok(t) => {
                        self.x_axis = t.default_x_axis();
                        let metrics = t.metrics();
                        if !metrics.contains(&self.metric) {
                            self.metric = [
                                "avg_wait_s",
                                "mean_response_s",
                                "avg_response_s",
                                "mean_flow_time",
                                "utilization",
                            ]
                            .into_iter()
                            .find(|m| metrics.iter().any(|x| x == m))
                            .map(str::to_string)
                            .or_else(|| metrics.first().cloned())
                            .unwrap_or_default();
                        }
                        self.table = Some((name, Rc::new(t)));
                        self.error = None;
                    }
                    Err(e) => self.error = Some(e),
                }
            }
            ClusterMsg::Metric(m) => self.metric = m,
            ClusterMsg::XAxis(a) => self.x_axis = a.parse().ok(),
            ClusterMsg::DownloadManifest => {
                if let Some(Ok(s)) = &self.shared {
                    let m = &s.manifest;
                    if let Err(e) =
                        download_text(&manifest_file(m), "application/json", &manifest_text(m))
                    {
                        self.error = Some(e);
                    }
                }
            }
            ClusterMsg::Dragging(d) => return std::mem::replace(&mut self.dragging, d) != d,
        }
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let pick = link.callback(|e: Event| {
            let input: Option<web_sys::HtmlInputElement> = e.target_dyn_into();
            ClusterMsg::Files(files_of(input.and_then(|i| i.files())))
        });
        let ondrop = link.callback(|e: DragEvent| {
            e.prevent_default();
            // This zone's files are merged tables, whatever their names: the page's own
            // drop handling (workloads) must not see them.
            e.stop_propagation();
            ClusterMsg::Files(files_of(e.data_transfer().and_then(|d| d.files())))
        });
        let ondragover = link.callback(|e: DragEvent| {
            e.prevent_default();
            ClusterMsg::Dragging(true)
        });
        let ondragleave = link.callback(|_: DragEvent| ClusterMsg::Dragging(false));
        html! {
            <section class="panel cluster" aria-label="Cluster sweeps">
                <h2>{"Cluster sweeps"}</h2>
                <p class="help">{ super::with_doc_links("A study that outgrows one machine runs as a sweep manifest on a cluster: `gridscope sweep plan` expands it into cases, `sweep run --shard I/N` (or a Slurm array from `sweep slurm`) runs them, `sweep merge` writes the medians and confidence intervals across seeds. The scheduling view's Export for a cluster writes the manifest of its results; a manifest link opens here; the merged table comes back here. See docs/cluster.md.") }</p>
                { self.view_shared(ctx) }
                <h3>{"Merged table"}</h3>
                <div class={classes!("drop", "cluster-drop", self.dragging.then_some("dragging"))} data-testid="cluster-drop"
                     {ondrop} {ondragover} {ondragleave}>
                    <p>{"Drop "}<code>{"merged/merged.json"}</code>{" or "}<code>{"merged/points.csv"}</code>{" of "}<code>{"gridscope sweep merge DIR"}</code>{" here (files of those names dropped anywhere on the page come here too), or "}
                    <input type="file" accept=".json,.csv" data-testid="cluster-file" aria-label="Pick a merged table" onchange={pick} /></p>
                    <p>{"Nothing to drop yet? "}
                    <button class="small" data-testid="cluster-example" onclick={link.callback(|_: MouseEvent| ClusterMsg::Read(EXAMPLE_NAME.into(), Ok(EXAMPLE_POINTS.to_vec())))}>{"open the example"}</button>
                    <span class="help">{ super::with_doc_links(" — examples/cluster/manifest.json (the demo's policies over 500 to 4,000 jobs, 5 seeds) as the CLI merged it: examples/cluster/README.md.") }</span></p>
                    <p class="help">{"Each line is a run label (and value of the other axes) over the chosen axis: the median across the seed axis, the band its order-statistic confidence interval, [x(i), x(n+1−i)] of the n sorted seed values with i the largest keeping P(x(i) < median < x(n+1−i)) ≥ 95 % under Bin(n, ½) (min..max when n ≤ 5; the title gives the lowest coverage). The file never leaves your computer."}</p>
                </div>
                if let Some(e) = &self.error {
                    <Alert testid="cluster-error" text={e.clone()} />
                }
                { self.view_table(ctx) }
            </section>
        }
    }
}

impl ClusterPanel {
    fn read(&mut self, ctx: &Context<Self>, files: Vec<web_sys::File>) {
        // One table at a time: points.csv or merged.json before cases.csv when several come.
        let Some(file) = files
            .iter()
            .find(|f| f.name() != "cases.csv")
            .or(files.first())
            .cloned()
        else {
            return;
        };
        let max = crate::limits::Limits::default().file_bytes;
        let name = file.name();
        if file.size() > max as f64 {
            self.error = Some(format!(
                "{name}: {} bytes, more than the page reads from one file ({})",
                fmt_num(file.size(), 0),
                fmt_num(max as f64, 0)
            ));
            return;
        }
        if !location_hash().starts_with("#/cluster") {
            if let Some(w) = web_sys::window() {
                let _ = w.location().set_hash("/cluster");
            }
        }
        let link = ctx.link().clone();
        let file = gloo::file::File::from(file);
        self._reader = Some(gloo::file::callbacks::read_as_bytes(&file, move |r| {
            link.send_message(ClusterMsg::Read(
                name.clone(),
                r.map_err(|e| format!("{name}: cannot read the file: {e}")),
            ))
        }));
    }

    /// A shared manifest: what it expands to and what to do with it.
    fn view_shared(&self, ctx: &Context<Self>) -> Html {
        let Some(shared) = &self.shared else {
            return html! {};
        };
        let s = match shared {
            Ok(s) => s,
            Err(e) => return html! { <Alert testid="cluster-manifest-error" text={e.clone()} /> },
        };
        let m = &s.manifest;
        let download = ctx
            .link()
            .callback(|_: MouseEvent| ClusterMsg::DownloadManifest);
        html! {
            <div class="cluster-manifest" data-testid="cluster-manifest">
                <h3>{format!("Shared sweep manifest: {}", if m.name.is_empty() { "(no name)" } else { &m.name })}</h3>
                <button data-testid="cluster-manifest-download" onclick={download}>{"Download the manifest"}</button>
                <span class="help">{format!(" {} — then `gridscope sweep plan {} --out DIR` (docs/cluster.md)", manifest_file(m), manifest_file(m))}</span>
                { match &s.overview {
                    Ok(Expanded::Scenarios(o)) => view_overview(m, o),
                    Ok(Expanded::Family(e)) => view_family(e),
                    Err(e) => html! { <p class="help" data-testid="cluster-manifest-summary">{format!("The page cannot expand it: {e}. `gridscope sweep plan` can.")}</p> },
                } }
            </div>
        }
    }

    fn view_table(&self, ctx: &Context<Self>) -> Html {
        let Some((file, t)) = &self.table else {
            return html! {};
        };
        let lines = Rc::new(t.lines(&self.metric, self.x_axis));
        let chart = plot(MergedChart {
            file: file.clone(),
            metric: self.metric.clone(),
            lines: lines.clone(),
        });
        let on_metric = ctx
            .link()
            .callback(|e: Event| ClusterMsg::Metric(select_value(&e)));
        let on_axis = ctx
            .link()
            .callback(|e: Event| ClusterMsg::XAxis(select_value(&e)));
        let x = self.x_axis.map(|a| a.to_string()).unwrap_or_default();
        html! {
            <div class="cluster-table" data-testid="cluster-table">
                <p class="help" data-testid="cluster-table-summary">{format!(
                    "{file}{}: {} points of {} metrics; axes {}{}.",
                    if t.name.is_empty() { String::new() } else { format!(" ({})", t.name) },
                    t.points.len(), t.metrics().len(),
                    if t.axes.is_empty() { "none but the seeds".to_string() } else { t.axes.join(", ") },
                    t.seed_axis.as_ref().map_or(String::new(), |s| format!("; medians over '{s}'")))}</p>
                <div class="field">
                    <label for="cluster-metric">{"metric"}</label>
                    <select id="cluster-metric" data-testid="cluster-metric" onchange={on_metric}>
                        { for t.metrics().into_iter().map(|m| html! { <option selected={m == self.metric} value={m.clone()}>{m.clone()}</option> }) }
                    </select>
                    <span class="help" data-testid="cluster-metric-help">{metric_help(&self.metric)}</span>
                </div>
                if !t.axes.is_empty() {
                    <div class="field">
                        <label for="cluster-x">{"x axis"}</label>
                        <select id="cluster-x" data-testid="cluster-x" onchange={on_axis}>
                            { for t.axes.iter().enumerate().map(|(i, a)| html! { <option selected={i.to_string() == x} value={i.to_string()}>{a.clone()}</option> }) }
                        </select>
                        <span class="help">{"the axis along x; the other axes' values make separate lines (an axis of words is drawn at 0, 1, … in the file's order)"}</span>
                    </div>
                }
                <ChartView chart={Some(chart)} testid="chart-merged" width={640} height={320} />
            </div>
        }
    }
}

/// The metric's formula and source (`gridscope help metrics`), as the Results table says.
fn metric_help(key: &str) -> Html {
    match crate::metrics::METRIC_HELP.iter().find(|m| m.key == key) {
        Some(m) if m.source.is_empty() => html! { {m.formula} },
        Some(m) => html! { <>{m.formula}{" — "}{ super::with_doc_links(m.source) }</> },
        None => family_metric_help(key),
    }
}

/// A family sweep's metric (a family manifest's merged table): its name and where it is
/// defined.
fn family_metric_help(key: &str) -> Html {
    let (group, what) = match key.split_once('.') {
        // SES's per-group figures: "A.utilization".
        Some((g, w)) => (Some(g), w),
        None => (None, key),
    };
    let text = match (group, what) {
        (None, "mean_response_s") => "SF: mean response time of a run's jobs (arrival of its batch → completion), seconds; the median over seeds is the SF sweep's line — docs/sf.md".to_string(),
        (Some(g), "avg_queue_delay_s") => format!("SES: mean wait (submit → start) of the jobs group {g} ran, seconds — docs/ses.md"),
        (Some(g), "jobs") => format!("SES: jobs group {g} ran — docs/ses.md"),
        (Some(g), "utilization") => format!("SES: group {g}'s CPU-time held over its CPUs × makespan — docs/ses.md"),
        _ => match crate::web::family_metric::describe(what) {
            (name, _) if name != what => format!("{}: a KKOR or SCJG sweep metric — docs/kkor.md, docs/scjg.md", crate::web::family_metric::heading(what)),
            _ => "a metric of the merged table (gridscope help metrics lists them)".to_string(),
        },
    };
    html! { { super::with_doc_links(&text) } }
}

/// The axes as the summaries list them: name (values, and which the medians are over).
fn axes_text(axes: &[manifest::AxisInfo], seed_axis: Option<usize>) -> String {
    axes.iter()
        .enumerate()
        .map(|(i, a)| {
            let seed = if seed_axis == Some(i) {
                ", medians over it"
            } else {
                ""
            };
            format!(
                "{} ({}{seed})",
                a.name,
                crate::web::format::count(a.values as u64, "value")
            )
        })
        .collect::<Vec<_>>()
        .join(" × ")
}

/// A family manifest: its cases are seeds of a family run, which the family's own view runs
/// whole on this page.
fn view_family(e: &crate::reproduce::case::FamilyExpansion) -> Html {
    let preset = e.cases.first().map_or("", |c| c.spec.preset.as_str());
    html! {
        <>
            <p class="help" data-testid="cluster-manifest-summary">{format!(
                "{}; axes: {}; each case one seed of {preset} at one point.",
                crate::web::format::count(e.cases.len() as u64, "case"), axes_text(&e.axes, e.seed_axis))}</p>
            <p class="help">{format!("The page runs the whole sweep in the {} view; gridscope sweep runs these cases on one machine or a cluster, and the merged table drops back here.", preset.split('-').next().unwrap_or("").to_uppercase())}</p>
        </>
    }
}

fn view_overview(m: &Manifest, o: &Overview) -> Html {
    let e = &o.expansion;
    let axes = axes_text(&e.axes, e.seed_axis);
    let work = o.job_runs.map_or_else(
        || {
            format!(
                "its jobs come from {} — `gridscope sweep plan` counts them",
                o.files.join(", ")
            )
        },
        |w| format!("≈ {} job-runs", fmt_num(w, 0)),
    );
    html! {
        <>
            <p class="help" data-testid="cluster-manifest-summary">{format!(
                "{}; axes: {}{}; work: {work}.",
                crate::web::format::count(e.cases.len() as u64, "case"), axes,
                if m.zip.is_empty() { String::new() } else { format!(" (zipped: {})", m.zip.iter().map(|z| z.join("+")).collect::<Vec<_>>().join(", ")) })}</p>
            <p class="help">{"The page runs one case at a time: open a case in the scheduling view (it asks for its trace files by name); the whole sweep runs with gridscope sweep on one machine or a cluster."}</p>
            <ol class="cluster-cases" data-testid="cluster-cases">
                { for e.cases.iter().take(LISTED_CASES).map(|c| {
                    let point: Vec<String> = e.axes.iter().zip(&c.point).map(|(a, v)| format!("{}={v}", a.name)).collect();
                    // A case that cannot be packed says why instead of linking nowhere.
                    match share::encode(&share::Shared { scenario: c.scenario.clone(), files: vec![] }) {
                        Ok(fragment) => html! { <li><a href={format!("#{fragment}")} data-testid="cluster-case">{"open"}</a>{format!(" {}", point.join(", "))}</li> },
                        Err(err) => html! { <li>{format!("{} — cannot make its link: {err}", point.join(", "))}</li> },
                    }
                }) }
            </ol>
            if e.cases.len() > LISTED_CASES {
                <p class="help">{format!("… and {} more cases.", e.cases.len() - LISTED_CASES)}</p>
            }
        </>
    }
}
