//! The "Node-group selection (SES)" panel (docs/ses.md): `ses-selection` (SES Figs. 1–3) and
//! `ses-restriction-crossover` run in a worker of their own, to the CLI's numbers for the
//! same flags (`--seeds`, `--load`, `--x`); the node groups filled to their utilization,
//! per-group bars with bands, the crossover's lines; a `#f2=` link (or an older `#f1=`)
//! re-runs them.

use std::rc::Rc;

use yew::prelude::*;

use super::band_table::{band_table, BandRow};
use super::family::{
    intro, opt_field, opt_text, parse_seeds, preset_select, read_report, FamilyTask,
};
use super::family_export_after;
use super::family_view::{FamilyPanel, Linked, Opening, Then};
use super::form::{input_value, select_index};
use super::linked::{linked_family, not_on_page, opened_run};
use crate::allocation::sweep::parse_numbers;
use crate::family::ses::DEFAULT_SEEDS;
use crate::family::{Opt, RunSpec};
use crate::scenario::ses::{SesCrossover, SesSelection, CROSSOVER_SHARES, SES_PRESETS};
use crate::web::charts::{
    plot, ChartView, Plot, SesBars, SesCrossoverLines, SesFigure, SesGroups, SesQueue,
};
use crate::web::format::{fmt_duration, fmt_num, json_num};
use crate::web::protocol::{FamilyRequest, FamilyResult};
use crate::web::share;

/// The preset of node-group figures; the other is the crossover of shares.
const SELECTION: &str = "ses-selection";
const METRICS_HELP: &str = "Group utilization: time-average of busy units / units of the group (a 1-CPU job on a 4-CPU node holds the node; SES Fig. 1, GPSS storage utilization). Group queueing delay: mean of start − arrival over the jobs routed to the group, zero waits included (SES Fig. 2). Response (SYS): mean of completion − arrival over all jobs (SES Fig. 3). Bars and boxes are medians over the seeds; whiskers the order-statistic band.";

const QUEUE_HELP: &str = "Queue length over time per group, one chart per variant: the time-averaged number of jobs waiting for each group in each of 84 equal slices of the first seed's run (SES §4: GPSS-H reports each storage's queue; a restricted variant's single-CPU group D builds the long queues). Time in days from the first submission.";

/// A change of the SES view's fields.
pub enum SesField {
    Preset(usize),
    Seeds(String),
    Load(String),
    Shares(String),
    SiteQueue(bool),
}

#[derive(Clone)]
enum SesResult {
    Selection(Rc<SesSelection>),
    Crossover(Rc<SesCrossover>),
}

pub struct Ses {
    preset: usize,
    seeds: String,
    load: String,
    shares: String,
    site_queue: bool,
    result: Option<SesResult>,
    /// The paper's claims this run measures, in words (issue #38), and its preset.
    claims: (String, Vec<crate::reproduce::Row>),
}

fn join(v: &[f64]) -> String {
    v.iter().map(f64::to_string).collect::<Vec<_>>().join(",")
}

impl Ses {
    fn is_crossover(&self) -> bool {
        SES_PRESETS.get(self.preset).map(|p| p.0) != Some(SELECTION)
    }
}

impl FamilyPanel for Ses {
    const ID: &'static str = "ses";
    const CLASS: &'static str = "sf ses";
    const LABEL: &'static str = "Node-group selection (SES)";
    const HEADING: &'static str = "Node-group selection (SES)";
    type Field = SesField;
    type Task = FamilyTask;
    type Link = FamilyRequest;

    fn new() -> Self {
        Ses {
            preset: 0,
            seeds: "10".into(),
            load: "1".into(),
            shares: join(&CROSSOVER_SHARES),
            site_queue: false,
            result: None,
            claims: (String::new(), Vec::new()),
        }
    }

    fn intro(&self) -> Html {
        intro(Self::ID, "")
    }

    /// The run the fields describe; the error names the field.
    fn link(&self) -> Result<FamilyRequest, String> {
        let load_factor = self
            .load
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v > 0.0)
            .ok_or_else(|| {
                format!(
                    "load factor: '{}' is not a positive number",
                    self.load.trim()
                )
            })?;
        let shares = if self.is_crossover() {
            let s = parse_numbers("shares", &self.shares)?;
            if let Some(bad) = s.iter().find(|v| !(0.0..=1.0).contains(*v)) {
                return Err(format!("shares: {bad} is not in [0, 1]"));
            }
            if s.is_empty() || s.len() > 100 {
                return Err("give 1 to 100 shares of ≥ 4-CPU jobs".into());
            }
            Some(s)
        } else {
            None
        };
        let spec = RunSpec {
            preset: SES_PRESETS.get(self.preset).map_or("", |p| p.0).to_string(),
            seeds: Some(parse_seeds(&self.seeds)?),
            load_factor: Some(load_factor).filter(|&l| l != 1.0),
            x: shares,
            site_queue: self.site_queue,
            ..RunSpec::default()
        };
        Ok(FamilyRequest::Run { spec, trace: None })
    }

    fn encode(link: &FamilyRequest) -> Result<String, String> {
        share::encode_family(link)
    }

    fn task(&self, request: FamilyRequest) -> Result<FamilyTask, String> {
        Ok(FamilyTask {
            request,
            file: None,
        })
    }

    fn linked(fragment: &str) -> Option<Linked> {
        linked_family(fragment, Self::ID)
    }

    /// An SES link fills the fields and runs, unless it asks for more than a link starts by
    /// itself.
    fn open_link(&mut self) -> Opening {
        let Some(run) = opened_run(Self::ID) else {
            return Opening::Nothing;
        };
        let spec = run.spec;
        let Some(preset) = SES_PRESETS.iter().position(|p| p.0 == spec.preset) else {
            return not_on_page(Self::ID, &spec.preset);
        };
        self.preset = preset;
        self.site_queue = spec.site_queue;
        self.seeds = spec.seeds.unwrap_or(DEFAULT_SEEDS).to_string();
        self.load = spec.load_factor.unwrap_or(1.0).to_string();
        if let Some(shares) = spec.x.filter(|x| !x.is_empty()) {
            self.shares = join(&shares);
        }
        run.asks_first.map_or(Opening::Run, Opening::Wait)
    }

    fn set(&mut self, field: SesField) -> Result<Then, String> {
        match field {
            SesField::Preset(i) => self.preset = i.min(SES_PRESETS.len() - 1),
            SesField::Seeds(v) => self.seeds = v,
            SesField::Load(v) => self.load = v,
            SesField::Shares(v) => self.shares = v,
            SesField::SiteQueue(v) => self.site_queue = v,
        }
        Ok(Then::Show)
    }

    fn show(&mut self, result: FamilyResult) -> Result<(), String> {
        let FamilyResult::Run { preset, report, .. } = result else {
            return Err("the worker answered with the report card".into());
        };
        let claims = super::claims::read_claims(Self::ID, &preset, &report);
        self.result = Some(if preset == SELECTION {
            SesResult::Selection(Rc::new(read_report(report)?))
        } else {
            SesResult::Crossover(Rc::new(read_report(report)?))
        });
        self.claims = (preset, claims);
        Ok(())
    }

    fn unit(&self) -> &'static str {
        if self.is_crossover() {
            "shares"
        } else {
            "seeds"
        }
    }

    fn cancelled(&self, done: u64, total: u64) -> String {
        format!("Cancelled after {done} of {total} steps.")
    }

    fn form(&self, on: &Callback<SesField>) -> Html {
        let text = |f: fn(String) -> SesField| on.reform(move |e: Event| f(input_value(&e)));
        let names: Vec<&str> = SES_PRESETS.iter().map(|p| p.0).collect();
        let description = SES_PRESETS.get(self.preset).map_or("", |p| p.1);
        let site_queue = opt_text(Self::ID, Opt::SiteQueue);
        html! {
            <>
                { preset_select("ses", &names, self.preset, description, on.reform(|e: Event| SesField::Preset(select_index(&e)))) }
                { opt_field(Self::ID, Opt::Seeds, "ses-seeds", &self.seeds, text(SesField::Seeds)) }
                { opt_field(Self::ID, Opt::Load, "ses-load", &self.load, text(SesField::Load)) }
                <div class="field">
                    <label><input type="checkbox" data-testid="ses-site-queue" checked={self.site_queue}
                        onchange={on.reform(|e: Event| SesField::SiteQueue(e.target_unchecked_into::<web_sys::HtmlInputElement>().checked()))} />
                        {format!(" {}", site_queue.0)}</label>
                    <span class="help">{site_queue.1}</span>
                </div>
                if self.is_crossover() {
                    { opt_field(Self::ID, Opt::X, "ses-shares", &self.shares, text(SesField::Shares)) }
                }
            </>
        }
    }

    fn results(&self, _on: &Callback<SesField>) -> Html {
        html! {
            <>
                { super::claims::view_run_claims(Self::ID, &self.claims.0, &self.claims.1) }
                { match &self.result {
                    Some(SesResult::Selection(r)) => view_selection(r),
                    Some(SesResult::Crossover(r)) => view_crossover(r),
                    None => html! {},
                } }
            </>
        }
    }

    fn export(&self, running: bool, ran: Option<&FamilyRequest>) -> Html {
        family_export_after(Self::ID, running, ran)
    }
}

fn chart(c: impl Plot + 'static, testid: &'static str, height: u32) -> Html {
    html! { <ChartView chart={Some(plot(c))} {testid} width={640} {height} /> }
}

fn banded(v: f64, lo: Option<f64>, hi: Option<f64>, d: usize) -> Html {
    let band = |b: Option<f64>| b.map_or_else(|| "–".into(), |b| fmt_num(b, d));
    html! { <span title={format!("median {}, band {} – {}", json_num(v), band(lo), band(hi))}>{fmt_num(v, d)}</span> }
}

/// A duration in seconds with its band, printed in the unit that reads best (the exact
/// seconds and the band on hover).
fn banded_duration(v: f64, lo: Option<f64>, hi: Option<f64>) -> Html {
    let band = |b: Option<f64>| b.map_or_else(|| "–".into(), fmt_duration);
    html! { <span title={format!("median {} s, band {} – {}", json_num(v), band(lo), band(hi))}>{fmt_duration(v)}</span> }
}

fn view_selection(r: &Rc<SesSelection>) -> Html {
    html! {
        <>
            { chart(SesGroups(r.clone()), "chart-ses-groups", 300) }
            { chart(SesBars(r.clone(), SesFigure::Utilization), "chart-ses-util", 300) }
            { chart(SesBars(r.clone(), SesFigure::QueueDelay), "chart-ses-delay", 300) }
            <p class="help">{METRICS_HELP}</p>
            <div class="charts">
            { for r.runs.iter().enumerate().filter(|(_, run)| run.queue_series.is_some()).map(|(i, run)| html! {
                <ChartView chart={Some(plot(SesQueue(r.clone(), i)))} testid={format!("chart-ses-queue-{}", run.label)} width={440} height={240} />
            }) }
            </div>
            <p class="help">{QUEUE_HELP}</p>
            <div class="table-wrap">
            <table class="metrics" data-testid="ses-table">
                <thead><tr>
                    <th>{"variant"}</th><th>{"group"}</th><th>{"utilization"}</th>
                    <th>{"queueing delay"}</th><th>{"jobs (median)"}</th><th>{"mean response"}</th>
                </tr></thead>
                <tbody>
                { for r.runs.iter().map(|run| {
                    let m = &run.metrics;
                    html! {
                        <>
                        { for m.groups.iter().map(|g| html! {
                            <tr data-run={run.label.clone()} data-group={g.name.clone()}>
                                <th scope="row">{&run.label}</th><td>{&g.name}</td>
                                <td data-key="utilization" data-value={json_num(g.utilization)}>{banded(g.utilization, g.lo.as_ref().map(|b| b.utilization), g.hi.as_ref().map(|b| b.utilization), 3)}</td>
                                <td data-key="avg_queue_delay_s" data-value={json_num(g.avg_queue_delay_s)}>{banded_duration(g.avg_queue_delay_s, g.lo.as_ref().map(|b| b.avg_queue_delay_s), g.hi.as_ref().map(|b| b.avg_queue_delay_s))}</td>
                                <td data-key="jobs" data-value={json_num(g.jobs)}>{banded(g.jobs, g.lo.as_ref().map(|b| b.jobs), g.hi.as_ref().map(|b| b.jobs), usize::from(g.jobs.fract() != 0.0))}</td>
                                <td></td>
                            </tr>
                        }) }
                        <tr data-run={run.label.clone()} data-group="all" class="gap">
                            <th scope="row">{&run.label}</th><td>{"all"}</td>
                            <td data-key="utilization" data-value={json_num(m.utilization)}>{fmt_num(m.utilization, 3)}</td>
                            <td data-key="avg_wait_s" data-value={json_num(m.avg_wait_s)} title={format!("{} s", json_num(m.avg_wait_s))}>{fmt_duration(m.avg_wait_s)}</td>
                            <td></td>
                            <td data-key="avg_response_s" data-value={json_num(m.avg_response_s)}>{banded_duration(m.avg_response_s, Some(m.avg_response_lo), Some(m.avg_response_hi))}</td>
                        </tr>
                        </>
                    }
                }) }
                </tbody>
            </table>
            </div>
            <p class="help">{format!("{} seeds of {} days each; band coverage {:.1} %.", r.seeds, r.days, r.confidence * 100.0)}</p>
        </>
    }
}

fn view_crossover(r: &Rc<SesCrossover>) -> Html {
    let found: Vec<String> = r
        .crossover
        .iter()
        .map(|(s, at)| match at {
            Some(x) => format!("{s}: restriction pays from a share of {x}"),
            None => format!("{s}: restriction never pays on these shares"),
        })
        .collect();
    html! {
        <>
            { chart(SesCrossoverLines(r.clone()), "chart-ses-crossover", 320) }
            <p class="help" data-testid="ses-crossover-found">{format!("{}. Each point: {} seeds of {} days; band coverage {:.1} %.", found.join("; "), r.seeds, r.days, r.confidence * 100.0)}</p>
            { crossover_table(r) }
        </>
    }
}

/// The crossover's medians per share, each with its band (durations in the unit that reads
/// best, the exact seconds on hover).
fn crossover_table(r: &SesCrossover) -> Html {
    let rows = r
        .series
        .iter()
        .map(|s| BandRow {
            policy: &s.policy,
            metric: None,
            head: html! { <th scope="row" title="median of the mean response time">{&s.policy}</th> },
            median: &s.median,
            lo: &s.lo,
            hi: &s.hi,
        })
        .collect();
    let cell = |row: &BandRow, i: usize, v: f64| {
        (
            None,
            banded_duration(v, row.lo.get(i).copied(), row.hi.get(i).copied()),
        )
    };
    band_table(
        "ses-crossover-table",
        html! { <th>{&r.x_label}</th> },
        r.x.iter().map(|x| x.to_string()).collect(),
        rows,
        &cell,
        html! {},
    )
}
