//! The "Advance reservations (SCJG)" panel (docs/scjg.md): the four SCJG presets on a trace
//! file the user picks (SDSC-SP2 by default on the CLI), run in a worker of their own to the
//! CLI's numbers for the same `--seeds` and `--x`; the sweeps as lines with bands, the
//! livelock runs with their retry timeline, and one run inspected — each site's Gantt chart
//! with the metajobs' reservations outlined, and SCJG Fig. 2's answers to one query.

use std::rc::Rc;

use web_sys::HtmlInputElement;
use yew::prelude::*;

use super::band_table::metric_band_table;
use super::family::{
    intro, opt_field, opt_text, parse_seeds, preset_select, read_report, FamilyTask,
};
use super::family_export_after;
use super::family_view::{FamilyPanel, Linked, Opening, Then};
use super::form::{input_value, select_index};
use super::linked::{linked_family, opened_run};
use crate::allocation::sweep::parse_numbers;
use crate::family::{Opt, RunSpec};
use crate::scjg::inspect::Inspection;
use crate::scjg::presets::{
    ScjgPresetResult, ScjgRunsResult, ScjgSweepResult, DEFAULT_SEEDS, DEFAULT_TRACE, SCJG_PRESETS,
};
use crate::web::charts::{
    plot, ChartView, ScjgGantt, ScjgLines, ScjgQuery, ScjgTimeline, SCJG_CHART_METRICS,
};
use crate::web::family_metric;
use crate::web::format::json_num;
use crate::web::protocol::{FamilyRequest, FamilyResult};
use crate::web::share;

const RUNS_HELP: &str = "retries: failed reservation rounds per metajob (a round fails when a site no longer accepts the start it answered — another metascheduler or a local job took it; all of the round's reservations are then released and the metajob backs off U(0,1) × min(1 h, 60 s × 2^(n−1)) before querying again: SCJG §3.3 step 5). lock wait: time spent waiting for another metascheduler's courtesy lock (SCJG §4). Medians over the seeds.";
const GANTT_HELP: &str = "Jobs over (hours, nodes) for 48 hours around the inspected metajob: local jobs in colour, metajob components dark grey, each reservation outlined in orange from its start to start + wallclock limit (SCJG §2 rules 1–5: a component never starts early; when it ends early the rest of its reservation is free for local jobs). Lock-down windows shaded (the block's nodes). Nodes are placed first fit for drawing; the simulation only counts them.";
const QUERY_HELP: &str = "SCJG Fig. 2 for one metajob (the first that had to retry, else the one that waited longest), at its first query: per site the yes/no answer at the first start asked for (dot: green yes, red no), the single range (the first bar) and the whole range list (all bars) of start times at which a reservation of its units × wallclock limit would delay no running job, reservation or what the local policy guarantees its queue (EASY: its head). The result row is the intersection of the lists for a metajob spanning sites; the vertical line is the start it got.";

/// A change of the SCJG view's fields, or of which run or site its results show.
pub enum ScjgField {
    Preset(usize),
    Seeds(String),
    Percents(String),
    File(Option<web_sys::File>),
    TimelineRun(usize),
    GanttSite(usize),
}

#[derive(Clone)]
enum Shown {
    Sweep(Rc<ScjgSweepResult>),
    Runs(Rc<ScjgRunsResult>),
}

pub struct Scjg {
    preset: usize,
    seeds: String,
    percents: String,
    file: Option<web_sys::File>,
    /// A linked trace name waiting for its file; the link runs once it is chosen.
    wanted_trace: Option<String>,
    result: Option<Shown>,
    /// The paper's claims this run measures, in words (issue #38), and its preset.
    claims: (String, Vec<crate::reproduce::Row>),
    inspection: Option<Rc<Inspection>>,
    timeline_run: usize,
    gantt_site: usize,
}

fn preset_name(i: usize) -> &'static str {
    SCJG_PRESETS[i.min(SCJG_PRESETS.len() - 1)].0
}

/// The presets that sweep the metajobs' share.
fn sweeps_percents(name: &str) -> bool {
    matches!(name, "scjg-fraction" | "scjg-ar-vs-lockdown")
}

impl FamilyPanel for Scjg {
    const ID: &'static str = "scjg";
    const CLASS: &'static str = "sf scjg";
    const LABEL: &'static str = "Advance reservations (SCJG)";
    const HEADING: &'static str = "Advance reservations and metajobs (SCJG)";
    type Field = ScjgField;
    type Task = FamilyTask;
    type Link = FamilyRequest;

    fn new() -> Self {
        Scjg {
            preset: 0,
            seeds: "5".into(),
            percents: "0,1,2,3,4,5,6,7,8,9,10".into(),
            file: None,
            wanted_trace: None,
            result: None,
            claims: (String::new(), Vec::new()),
            inspection: None,
            timeline_run: 0,
            gantt_site: 0,
        }
    }

    fn intro(&self) -> Html {
        intro(Self::ID, "")
    }

    fn link(&self) -> Result<FamilyRequest, String> {
        let name = preset_name(self.preset);
        let percents = if sweeps_percents(name) {
            let p = parse_numbers("metajob %", &self.percents)?;
            if p.is_empty() || p.len() > 101 || p.iter().any(|x| !(0.0..=100.0).contains(x)) {
                return Err("metajob %: give 1 to 101 numbers in 0..100".into());
            }
            p
        } else {
            Vec::new()
        };
        let trace = match (&self.file, &self.wanted_trace) {
            (Some(f), _) => f.name(),
            (None, Some(t)) => t.clone(),
            (None, None) => DEFAULT_TRACE.to_string(),
        };
        let spec = RunSpec {
            preset: name.to_string(),
            seeds: Some(parse_seeds(&self.seeds)?),
            x: (!percents.is_empty()).then_some(percents),
            ..RunSpec::default()
        };
        Ok(FamilyRequest::Run {
            spec,
            trace: Some(trace),
        })
    }

    fn encode(link: &FamilyRequest) -> Result<String, String> {
        share::encode_family(link)
    }

    fn ready(&self) -> Result<(), String> {
        match self.file {
            Some(_) => Ok(()),
            None => Err(format!(
                "Choose a trace file first (e.g. {DEFAULT_TRACE} from the Parallel Workloads Archive), here or on the Scheduling view."
            )),
        }
    }

    /// Without a file of its own, the view takes a trace loaded on the page: the one a
    /// link names, else SDSC-SP2 (SCJG's trace), else the first SWF.
    fn offer_files(&mut self, files: &[web_sys::File]) -> Option<String> {
        if self.file.is_some() {
            return None;
        }
        let swf = |f: &&web_sys::File| {
            let n = f.name().to_ascii_lowercase();
            n.ends_with(".swf") || n.ends_with(".swf.gz")
        };
        let named = |want: &str| files.iter().find(|f| f.name() == want);
        let chosen = match &self.wanted_trace {
            Some(t) => named(t),
            None => named(DEFAULT_TRACE)
                .or_else(|| {
                    files
                        .iter()
                        .filter(swf)
                        .find(|f| f.name().starts_with("SDSC-SP2"))
                })
                .or_else(|| files.iter().find(swf)),
        }?;
        self.file = Some(chosen.clone());
        self.wanted_trace = None;
        Some(format!(
            "Running on {}, the trace loaded on the Scheduling view (choose another file below to change it).",
            chosen.name()
        ))
    }

    fn task(&self, request: FamilyRequest) -> Result<FamilyTask, String> {
        Ok(FamilyTask {
            request,
            file: self.file.clone(),
        })
    }

    fn linked(fragment: &str) -> Option<Linked> {
        linked_family(fragment, Self::ID)
    }

    /// An SCJG link fills the fields and waits for its trace file.
    fn open_link(&mut self) -> Opening {
        let Some(run) = opened_run(Self::ID) else {
            return Opening::Nothing;
        };
        let (spec, trace) = (run.spec, run.trace.unwrap_or(DEFAULT_TRACE.to_string()));
        self.preset = SCJG_PRESETS
            .iter()
            .position(|p| p.0 == spec.preset)
            .unwrap_or(0);
        self.seeds = spec.seeds.unwrap_or(DEFAULT_SEEDS).to_string();
        if let Some(percents) = spec.x.filter(|x| !x.is_empty()) {
            self.percents = percents
                .iter()
                .map(|p| p.to_string())
                .collect::<Vec<_>>()
                .join(",");
        }
        let notice = format!(
            "This link runs {} on {trace}: choose that file below and it starts (the file never leaves this machine).",
            spec.preset
        );
        self.wanted_trace = Some(trace);
        Opening::Wait(notice)
    }

    fn set(&mut self, field: ScjgField) -> Result<Then, String> {
        match field {
            ScjgField::Preset(i) => self.preset = i.min(SCJG_PRESETS.len() - 1),
            ScjgField::Seeds(v) => self.seeds = v,
            ScjgField::Percents(v) => self.percents = v,
            ScjgField::File(f) => {
                self.file = f;
                return Ok(
                    if self.wanted_trace.take().is_some() && self.file.is_some() {
                        Then::Run
                    } else {
                        Then::Show
                    },
                );
            }
            ScjgField::TimelineRun(i) => self.timeline_run = i,
            ScjgField::GanttSite(i) => self.gantt_site = i,
        }
        Ok(Then::Show)
    }

    fn show(&mut self, result: FamilyResult) -> Result<(), String> {
        let FamilyResult::Run {
            preset,
            report,
            detail,
        } = result
        else {
            return Err("the worker answered with the report card".into());
        };
        let claims = super::claims::read_claims(Self::ID, &preset, &report);
        self.claims = (preset, claims);
        let inspection: Inspection =
            read_report(detail.ok_or("the worker sent no inspected run")?)?;
        self.result = Some(match read_report(report)? {
            ScjgPresetResult::Sweep(s) => Shown::Sweep(Rc::new(s)),
            ScjgPresetResult::Runs(r) => Shown::Runs(Rc::new(r)),
        });
        self.gantt_site = self
            .gantt_site
            .min(inspection.sites.len().saturating_sub(1));
        self.inspection = Some(Rc::new(inspection));
        Ok(())
    }

    fn unit(&self) -> &'static str {
        "runs"
    }

    fn form(&self, on: &Callback<ScjgField>) -> Html {
        let name = preset_name(self.preset);
        let description = SCJG_PRESETS
            .iter()
            .find(|p| p.0 == name)
            .map_or("", |p| p.1);
        let names: Vec<&str> = SCJG_PRESETS.iter().map(|p| p.0).collect();
        let on_file = on.reform(|e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            ScjgField::File(input.files().and_then(|f| f.get(0)))
        });
        let text = |f: fn(String) -> ScjgField| on.reform(move |e: Event| f(input_value(&e)));
        let trace = opt_text(Self::ID, Opt::Traces);
        html! {
            <>
                { preset_select("scjg", &names, self.preset, description, on.reform(|e: Event| ScjgField::Preset(select_index(&e)))) }
                <div class="field">
                    <label for="scjg-trace">{trace.0}</label>
                    <input id="scjg-trace" data-testid="scjg-trace" type="file" accept=".swf,.gz,.txt" onchange={on_file} />
                    <span class="help">{trace.1}</span>
                </div>
                { opt_field(Self::ID, Opt::Seeds, "scjg-seeds", &self.seeds, text(ScjgField::Seeds)) }
                if sweeps_percents(name) {
                    { opt_field(Self::ID, Opt::X, "scjg-percents", &self.percents, text(ScjgField::Percents)) }
                }
            </>
        }
    }

    fn results(&self, on: &Callback<ScjgField>) -> Html {
        html! {
            <>
                { super::claims::view_run_claims(Self::ID, &self.claims.0, &self.claims.1) }
                { match &self.result {
                    Some(Shown::Sweep(r)) => view_sweep(r),
                    Some(Shown::Runs(r)) => self.view_runs(on, r),
                    None => html! {},
                } }
                if let Some(i) = &self.inspection { { self.view_inspection(on, i) } }
            </>
        }
    }

    fn export(&self, running: bool, ran: Option<&FamilyRequest>) -> Html {
        family_export_after(Self::ID, running, ran)
    }
}

fn view_sweep(r: &Rc<ScjgSweepResult>) -> Html {
    let shown: Vec<usize> = (0..SCJG_CHART_METRICS.len())
        .filter(|&m| r.series.iter().any(|s| s.metric == SCJG_CHART_METRICS[m].0))
        .collect();
    html! {
        <>
            <div class="charts">
            { for shown.iter().map(|&m| html! {
                <div>
                    <ChartView chart={Some(plot(ScjgLines(r.clone(), m)))} testid={format!("chart-scjg-{}", SCJG_CHART_METRICS[m].0)} width={560} height={300} />
                    <p class="help">{family_metric::help(Scjg::ID, SCJG_CHART_METRICS[m].0)}</p>
                </div>
            }) }
            </div>
            <p class="help">{format!("x: {}. {} seeds per point; band coverage {:.1} %.", r.x_label, r.seeds, r.confidence * 100.0)}</p>
            { metric_band_table("scjg-table", "scheme", r.x.iter().map(|x| format!("{} = {x}", r.x_label)).collect(), &r.series) }
        </>
    }
}

impl Scjg {
    fn view_runs(&self, on: &Callback<ScjgField>, r: &Rc<ScjgRunsResult>) -> Html {
        let keys: [(&str, Pick); 6] = [
            ("utilization", |m| m.utilization),
            ("retries", |m| m.retries),
            ("max_retries_seen", |m| m.max_retries_seen as f64),
            ("metajobs_failed", |m| m.metajobs_failed as f64),
            ("metajob_queue_s", |m| m.metajob_queue_s),
            ("lock_wait_s", |m| m.lock_wait_s),
        ];
        let run = self.timeline_run.min(r.runs.len().saturating_sub(1));
        html! {
            <>
                <div class="table-wrap">
                <table class="metrics" data-testid="scjg-runs">
                    <thead><tr><th>{"run"}</th>{ for keys.iter().map(|k| html!{ <th title={k.0}>{family_metric::heading(k.0)}</th> }) }</tr></thead>
                    <tbody>
                    { for r.runs.iter().map(|x| html!{
                        <tr data-run={x.label.clone()}>
                            <th scope="row">{&x.label}</th>
                            { for keys.iter().map(|(k, f)| {
                                let (text, exact) = family_metric::cell(k, f(&x.metrics));
                                html!{ <td data-key={*k} data-value={json_num(f(&x.metrics))} title={exact}>{text}</td> }
                            }) }
                        </tr>
                    }) }
                    </tbody>
                </table>
                </div>
                <p class="help">{RUNS_HELP}</p>
                <label>{"Retry timeline of "}
                    <select data-testid="scjg-timeline-run" onchange={on.reform(|e: Event| ScjgField::TimelineRun(select_index(&e)))}>
                        { for r.runs.iter().enumerate().map(|(i, x)| html!{
                            <option value={i.to_string()} selected={i == run}>{&x.label}</option>
                        }) }
                    </select>
                </label>
                <ChartView chart={Some(plot(ScjgTimeline(r.clone(), run)))} testid="chart-scjg-timeline" width={640} height={320} />
                <p class="help">{"One row per metajob that collided (the first seed): a line from submission to its common start, a red cross at each failed round with the back-off drawn after it; colour = its metascheduler."}</p>
            </>
        }
    }

    fn view_inspection(&self, on: &Callback<ScjgField>, i: &Rc<Inspection>) -> Html {
        let site = self.gantt_site.min(i.sites.len().saturating_sub(1));
        html! {
            <>
                <h3>{format!("Inspected: {}", i.title)}</h3>
                <label>{"Gantt chart of "}
                    <select data-testid="scjg-gantt-site" onchange={on.reform(|e: Event| ScjgField::GanttSite(select_index(&e)))}>
                        { for i.sites.iter().enumerate().map(|(k, s)| html!{
                            <option value={k.to_string()} selected={k == site}>{&s.name}</option>
                        }) }
                    </select>
                </label>
                <ChartView chart={Some(plot(ScjgGantt(i.clone(), site)))} testid="chart-scjg-gantt" width={720} height={340} />
                <p class="help">{GANTT_HELP}</p>
                if i.query.is_some() {
                    <ChartView chart={Some(plot(ScjgQuery(i.clone())))} testid="chart-scjg-query" width={720} height={260} />
                    <p class="help">{QUERY_HELP}</p>
                    { query_table(i) }
                }
            </>
        }
    }
}

/// A number of a run's metrics.
type Pick = fn(&crate::scjg::metrics::ScjgMetrics) -> f64;

fn hours(r: &(f64, f64)) -> String {
    let hi = if r.1 > 1e12 {
        "∞".to_string()
    } else {
        format!("{:.2}", r.1 / 3600.0)
    };
    format!("[{:.2}, {hi}] h", r.0 / 3600.0)
}

fn query_table(i: &Inspection) -> Html {
    let Some(q) = &i.query else { return html! {} };
    html! {
        <div class="table-wrap">
        <table class="metrics" data-testid="scjg-query" data-metajob={q.metajob.to_string()}>
            <thead><tr><th>{"site"}</th><th>{"nodes"}</th><th>{"yes/no"}</th><th>{"range"}</th><th>{"range list"}</th></tr></thead>
            <tbody>
            { for q.sites.iter().map(|s| html!{
                <tr data-site={s.name.clone()} data-yes={s.yes.to_string()} data-ranges={s.ranges.len().to_string()}>
                    <th scope="row">{&s.name}</th>
                    <td>{s.units}</td>
                    <td>{if s.yes { "yes" } else { "no" }}</td>
                    <td>{s.first.as_ref().map_or("–".into(), hours)}</td>
                    <td>{s.ranges.iter().take(6).map(hours).collect::<Vec<_>>().join(", ") + if s.ranges.len() > 6 { ", …" } else { "" }}</td>
                </tr>
            }) }
            if !q.common.is_empty() {
                <tr data-site="result"><th scope="row">{"result (∩)"}</th><td></td><td></td>
                    <td>{hours(&q.common[0])}</td>
                    <td>{q.common.iter().take(6).map(hours).collect::<Vec<_>>().join(", ")}</td></tr>
            }
            </tbody>
        </table>
        <p class="help">{format!("Query at {:.2} h for starts from {:.2} h; the metajob started at {}.", q.at_s / 3600.0, q.from_s / 3600.0, q.start_s.map_or("—".into(), |s| format!("{:.2} h", s / 3600.0)))}</p>
        </div>
    }
}
