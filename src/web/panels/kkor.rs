//! The "Centralized vs decentralized (KKOR)" panel (docs/kkor.md): `kkor-load` (Figs. 2–3)
//! and `kkor-fairness` (Fig. 4) run in a worker of their own, to the CLI's numbers for the
//! same `--seeds`; the load sweep as lines with bands (one chart per metric), the fairness
//! preset as each organization's mean flow time per run and a run's migration matrix.
//! `kkor-real` needs three trace files and stays in the CLI.

use std::rc::Rc;

use yew::prelude::*;

use super::band_table::metric_band_table;
use super::family::{
    intro, opt_field, opt_text, parse_seeds, preset_select, read_report, FamilyTask,
};
use super::family_export_after;
use super::family_view::{FamilyPanel, Linked, Opening, Then};
use super::form::{input_value, select_index};
use super::linked::{linked_family, not_on_page, opened_run};
use crate::allocation::sweep::parse_numbers;
use crate::family::{Opt, RunSpec};
use crate::kkor::presets::{
    KkorOptions, KkorPresetResult, KkorRunsResult, KkorSweepResult, DEFAULT_SEEDS, KKOR_PRESETS,
};
use crate::web::charts::{plot, ChartView, KkorGantt, KkorLines, KkorOrgs, KKOR_CHART_METRICS};
use crate::web::family_metric;
use crate::web::format::{fmt_num, json_num};
use crate::web::protocol::{FamilyRequest, FamilyResult};
use crate::web::share;

/// The presets the page runs (`kkor-real` reads trace files: CLI only).
const PAGE_PRESETS: [&str; 2] = ["kkor-load", "kkor-fairness"];

const FAIRNESS_HELP: &str = "Each organization's mean flow time F̄ (over the jobs it produced) under every run, beside its value under local (no migration, the selfish baseline); the tooltip and table give the ratio to local. distr1..3 are the decentralized algorithm with cooperation coefficients c = (.25,.25,.25), (.2,.2,.3), (.1,.1,.5): an organization accepts foreign work up to c_k of its batch surface L_k (KKOR §2.3.2, Fig. 4).";

/// A change of the KKOR view's fields.
pub enum KkorField {
    Preset(usize),
    Seeds(String),
    Loads(String),
    /// (organization, c_k) from a slider.
    Coefficient(usize, String),
    BatchJobs(String),
    BatchLength(String),
    /// The run whose migration matrix shows.
    MigrationRun(usize),
}

#[derive(Clone)]
enum KkorResult {
    Sweep(Rc<KkorSweepResult>),
    Runs(Rc<KkorRunsResult>),
}

pub struct Kkor {
    preset: usize,
    seeds: String,
    loads: String,
    coefficients: [String; 3],
    batch_jobs: String,
    batch_length: String,
    result: Option<KkorResult>,
    /// The paper's claims this run measures, in words (issue #38), and its preset.
    claims: (String, Vec<crate::reproduce::Row>),
    migration_run: usize,
}

impl Kkor {
    fn preset_name(&self) -> &'static str {
        PAGE_PRESETS[self.preset.min(PAGE_PRESETS.len() - 1)]
    }
}

impl FamilyPanel for Kkor {
    const ID: &'static str = "kkor";
    const CLASS: &'static str = "sf kkor";
    const LABEL: &'static str = "Centralized vs decentralized (KKOR)";
    const HEADING: &'static str = "Centralized vs decentralized grid scheduling (KKOR)";
    type Field = KkorField;
    type Task = FamilyTask;
    type Link = FamilyRequest;

    fn new() -> Self {
        Kkor {
            preset: 0,
            seeds: "10".into(),
            loads: String::new(),
            coefficients: ["0.25".into(), "0.25".into(), "0.25".into()],
            batch_jobs: "20".into(),
            batch_length: "10".into(),
            result: None,
            claims: (String::new(), Vec::new()),
            migration_run: 1,
        }
    }

    fn intro(&self) -> Html {
        intro(Self::ID, " The third preset, kkor-real, reads three trace files and runs in the CLI: gridscope run --preset kkor-real --traces DIR.")
    }

    fn link(&self) -> Result<FamilyRequest, String> {
        let loads = if self.loads.trim().is_empty() {
            Vec::new()
        } else {
            parse_numbers("loads", &self.loads)?
        };
        let coefficients = self
            .coefficients
            .iter()
            .map(|c| {
                c.trim()
                    .parse::<f64>()
                    .map_err(|_| format!("c_k: '{c}' is not a number"))
            })
            .collect::<Result<Vec<f64>, String>>()?;
        let default_c = coefficients.iter().all(|&c| c == 0.25);
        let number = |what: &str, v: &str| {
            v.trim()
                .parse::<f64>()
                .map_err(|_| format!("{what}: '{}' is not a number", v.trim()))
        };
        let options = KkorOptions {
            loads,
            coefficients: if default_c { Vec::new() } else { coefficients },
            batch_jobs: match number("S", &self.batch_jobs)? {
                20.0 => None,
                s if s.fract() == 0.0 && s >= 1.0 => Some(s as u32),
                s => return Err(format!("S: {s} is not a whole number of jobs ≥ 1")),
            },
            batch_length: Some(number("L", &self.batch_length)?).filter(|&l| l != 10.0),
        };
        options.params(3)?;
        let given = |v: Vec<f64>| (!v.is_empty()).then_some(v);
        let spec = RunSpec {
            preset: self.preset_name().to_string(),
            seeds: Some(parse_seeds(&self.seeds)?),
            x: given(options.loads),
            coefficients: given(options.coefficients),
            batch_jobs: options.batch_jobs,
            batch_length: options.batch_length,
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

    /// A KKOR link fills the fields and runs, unless it asks for more than a link starts by
    /// itself.
    fn open_link(&mut self) -> Opening {
        let Some(run) = opened_run(Self::ID) else {
            return Opening::Nothing;
        };
        let spec = run.spec;
        let Some(preset) = PAGE_PRESETS.iter().position(|p| *p == spec.preset) else {
            return not_on_page(Self::ID, &spec.preset);
        };
        self.preset = preset;
        self.seeds = spec.seeds.unwrap_or(DEFAULT_SEEDS).to_string();
        self.loads = spec
            .x
            .unwrap_or_default()
            .iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(",");
        for (k, c) in spec
            .coefficients
            .unwrap_or_default()
            .iter()
            .take(3)
            .enumerate()
        {
            self.coefficients[k] = c.to_string();
        }
        if let Some(s) = spec.batch_jobs {
            self.batch_jobs = s.to_string();
        }
        if let Some(l) = spec.batch_length {
            self.batch_length = l.to_string();
        }
        run.asks_first.map_or(Opening::Run, Opening::Wait)
    }

    fn set(&mut self, field: KkorField) -> Result<Then, String> {
        match field {
            KkorField::Preset(i) => self.preset = i.min(PAGE_PRESETS.len() - 1),
            KkorField::Seeds(v) => self.seeds = v,
            KkorField::Loads(v) => self.loads = v,
            KkorField::Coefficient(k, v) => {
                if let Some(c) = self.coefficients.get_mut(k) {
                    *c = v;
                }
            }
            KkorField::BatchJobs(v) => self.batch_jobs = v,
            KkorField::BatchLength(v) => self.batch_length = v,
            KkorField::MigrationRun(i) => self.migration_run = i,
        }
        Ok(Then::Show)
    }

    fn show(&mut self, result: FamilyResult) -> Result<(), String> {
        let FamilyResult::Run { preset, report, .. } = result else {
            return Err("the worker answered with the report card".into());
        };
        let claims = super::claims::read_claims(Self::ID, &preset, &report);
        self.claims = (preset, claims);
        match read_report(report)? {
            KkorPresetResult::Sweep(r) => self.result = Some(KkorResult::Sweep(Rc::new(r))),
            KkorPresetResult::Runs(r) => {
                self.migration_run = self.migration_run.min(r.runs.len().saturating_sub(1));
                self.result = Some(KkorResult::Runs(Rc::new(r)))
            }
        }
        Ok(())
    }

    fn unit(&self) -> &'static str {
        if self.preset_name() == "kkor-load" {
            "loads"
        } else {
            "seeds"
        }
    }

    fn cancelled(&self, done: u64, total: u64) -> String {
        format!("Cancelled after {done} of {total} steps.")
    }

    fn form(&self, on: &Callback<KkorField>) -> Html {
        let description = KKOR_PRESETS
            .iter()
            .find(|p| p.0 == self.preset_name())
            .map_or("", |p| p.1);
        let text = |f: fn(String) -> KkorField| on.reform(move |e: Event| f(input_value(&e)));
        let coefficients = opt_text(Self::ID, Opt::Coefficients);
        html! {
            <>
                { preset_select("kkor", &PAGE_PRESETS, self.preset, description, on.reform(|e: Event| KkorField::Preset(select_index(&e)))) }
                { opt_field(Self::ID, Opt::Seeds, "kkor-seeds", &self.seeds, text(KkorField::Seeds)) }
                { opt_field(Self::ID, Opt::X, "kkor-loads", &self.loads, text(KkorField::Loads)) }
                <div class="field">
                    <span>{coefficients.0}</span>
                    { for (0..3).map(|k| {
                        let v = self.coefficients[k].clone();
                        html! {
                            <label>{format!("O{} ", k + 1)}
                                <input type="range" min="0" max="1" step="0.05" value={v.clone()} data-testid={format!("kkor-c{}", k + 1)}
                                    oninput={on.reform(move |e: InputEvent| KkorField::Coefficient(k, e.target_unchecked_into::<web_sys::HtmlInputElement>().value()))} />
                                <output>{v}</output>
                            </label>
                        }
                    }) }
                    <span class="help">{coefficients.1}</span>
                </div>
                { opt_field(Self::ID, Opt::BatchJobs, "kkor-s", &self.batch_jobs, text(KkorField::BatchJobs)) }
                { opt_field(Self::ID, Opt::BatchLength, "kkor-l", &self.batch_length, text(KkorField::BatchLength)) }
            </>
        }
    }

    fn results(&self, on: &Callback<KkorField>) -> Html {
        html! {
            <>
                { super::claims::view_run_claims(Self::ID, &self.claims.0, &self.claims.1) }
                { match &self.result {
                    Some(KkorResult::Sweep(r)) => view_sweep(r),
                    Some(KkorResult::Runs(r)) => self.view_runs(on, r),
                    None => html! {},
                } }
            </>
        }
    }

    fn export(&self, running: bool, ran: Option<&FamilyRequest>) -> Html {
        family_export_after(Self::ID, running, ran)
    }
}

fn view_sweep(r: &Rc<KkorSweepResult>) -> Html {
    html! {
        <>
            <div class="charts">
            { for KKOR_CHART_METRICS.iter().enumerate().map(|(i, (key, _))| html! {
                <div>
                    <ChartView chart={Some(plot(KkorLines(r.clone(), i)))} testid={format!("chart-kkor-{key}")} width={560} height={300} />
                    <p class="help">{family_metric::help(Kkor::ID, key)}</p>
                </div>
            }) }
            </div>
            <p class="help">{format!("x: {}. {} seeds per point; band coverage {:.1} %. Each cell is the median over the seeds (hover for its band); time in KKOR's time units.", r.x_label, r.seeds, r.confidence * 100.0)}</p>
            { metric_band_table("kkor-table", "policy", r.x.iter().map(|x| format!("ρ = {x}")).collect(), &r.series) }
        </>
    }
}

impl Kkor {
    fn view_runs(&self, on: &Callback<KkorField>, r: &Rc<KkorRunsResult>) -> Html {
        let on_run = on.reform(|e: Event| KkorField::MigrationRun(select_index(&e)));
        let chosen = r.runs.get(self.migration_run);
        html! {
            <>
                <ChartView chart={Some(plot(KkorOrgs(r.clone())))} testid="chart-kkor-orgs" width={640} height={320} />
                <p class="help">{FAIRNESS_HELP}</p>
                <p class="help">{format!("λ per organization (jobs per time unit): {}; {} seeds.", r.rates.iter().map(|v| fmt_num(*v, 4)).collect::<Vec<_>>().join(", "), r.seeds)}</p>
                <div class="table-wrap">
                <table class="metrics" data-testid="kkor-orgs-table">
                    <thead><tr>
                        <th>{"run"}</th><th>{family_metric::heading("mean_flow_time")}</th>
                        { for r.clusters.iter().enumerate().map(|(k, c)| html!{ <th>{format!("O{} ({} CPUs)", k + 1, c.procs)}</th> }) }
                    </tr></thead>
                    <tbody>
                    { for r.runs.iter().map(|run| html!{
                        <tr data-run={run.label.clone()}>
                            <th scope="row" title={format!("{} c = {:?}", run.policy, run.coefficients)}>{&run.label}</th>
                            <td data-key="mean_flow_time" data-value={json_num(run.metrics.mean_flow_time)}>{fmt_num(run.metrics.mean_flow_time, 2)}</td>
                            { for run.metrics.organizations.iter().enumerate().map(|(k, o)| {
                                let rel = o.relative_to_local.as_ref().and_then(|v| v.mean_flow_time);
                                html!{
                                    <td data-org={k.to_string()} data-value={json_num(o.mean_flow_time)}
                                        data-relative={rel.map_or_else(|| "null".into(), json_num)}>
                                        {format!("{}{}", fmt_num(o.mean_flow_time, 2), rel.map_or(String::new(), |v| format!(" (×{})", fmt_num(v, 3))))}
                                    </td>
                                }
                            }) }
                        </tr>
                    }) }
                    </tbody>
                </table>
                </div>
                <label>{"Migrations of "}
                    <select data-testid="kkor-migration-run" onchange={on_run}>
                        { for r.runs.iter().enumerate().map(|(i, run)| html!{
                            <option value={i.to_string()} selected={i == self.migration_run}>{&run.label}</option>
                        }) }
                    </select>
                </label>
                <p class="help">{"Jobs produced by the organization of the row and run on the cluster of the column, median over the seeds (all jobs, not trimmed)."}</p>
                if let Some(run) = chosen { { migration_table(r, run) } }
                if chosen.is_some_and(|c| c.schedule.is_some()) {
                    <div class="charts">
                    { for (0..r.clusters.len()).map(|k| html! {
                        <ChartView chart={Some(plot(KkorGantt(r.clone(), self.migration_run, k)))} testid={format!("chart-kkor-gantt-o{}", k + 1)} width={480} height={240} />
                    }) }
                    </div>
                    <p class="help">{"The chosen run's schedule on each cluster for the first seed: jobs over (time units, processors), each in its producing organization's colour, migrated jobs dark; vertical lines mark batch boundaries — the grid scheduler's batches for centralized (closed at S jobs or L time units, KKOR §2.2), each cluster's local batches (computed at t0) for decentralized and local (§2.3)."}</p>
                }
            </>
        }
    }
}

fn migration_table(r: &KkorRunsResult, run: &crate::kkor::presets::KkorRunSummary) -> Html {
    html! {
        <div class="table-wrap">
        <table class="metrics" data-testid="kkor-migrations" data-label={run.label.clone()}>
            <thead><tr>
                <th>{"from \\ to"}</th>
                { for (0..r.clusters.len()).map(|k| html!{ <th>{format!("O{}", k + 1)}</th> }) }
            </tr></thead>
            <tbody>
            { for run.migrations.iter().enumerate().map(|(from, row)| html!{
                <tr data-from={from.to_string()}>
                    <th scope="row">{format!("O{}", from + 1)}</th>
                    { for row.iter().map(|v| {
                        let (text, exact) = family_metric::cell("migrations", *v);
                        html!{ <td data-value={json_num(*v)} title={exact}>{text}</td> }
                    }) }
                </tr>
            }) }
            </tbody>
        </table>
        </div>
    }
}
