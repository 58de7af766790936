//! The "Paper vs Gridscope" view (issue #28): the report card of `gridscope reproduce`, run
//! in a worker of its own, one row per claim of each paper — the paper's value, ours at the
//! presets' defaults and under the documented reading, each with its verdict and the
//! tolerance it was judged by — and a link to the docs paragraph that explains the gap.
//! The runs that read a trace run when the file is chosen (SDSC-SP2 for SCJG); the SOB
//! real-log runs read three logs and say so (the CLI runs them).

use std::rc::Rc;

use web_sys::HtmlInputElement;
use yew::prelude::*;

use super::claims::claim_line;
use super::family::{linked_request, FamilyTask};
use super::family_export_after;
use super::family_view::{FamilyPanel, Linked, Opening, Then};
use super::form::select_index;
use crate::reproduce::{show, Card, Reading, Row, Verdict, PAPERS};
use crate::scjg::presets::DEFAULT_TRACE;
use crate::web::format::json_num;
use crate::web::protocol::{FamilyRequest, FamilyResult};
use crate::web::share;

const ABOUT: &str = "Each paper's headline claims — every table value and every figure trend its text states — beside Gridscope's number, run live in this tab. The verdict follows the tolerance written beside each claim: reproduced (within it, or the stated direction holds), same direction but larger or smaller by ×k (outside it but on the paper's side; k = ours ÷ the paper's value), not reproduced, not modelled, or not run (a trace is missing). Under each row a line says it in words: what the paper claimed, what Gridscope found, the verdict and why. Where the paper leaves a parameter open, a second column runs the documented reading of it (docs say which and why); the defaults are never retuned. The claims are data (src/reproduce/claims/<paper>.json); `gridscope reproduce --json` prints the same card (docs/reproduce.md).";
const TRACE_HELP: &str = "Optional: SDSC-SP2-1998-4.2-cln.swf.gz from the Parallel Workloads Archive, which the SCJG runs read (as `gridscope run --preset scjg-*`). Without it those rows say \"not run\". The SOB real-log rows read three logs (SDSC-BLUE, Sandia Ross, HPC2N) and run in the CLI: `gridscope reproduce sob`. The file never leaves this machine.";
const SENSITIVITY_HELP: &str = "Each parameter a paper leaves open (ε and latency for SOB, c_k, S and L for KKOR, the reading of SF's \"load 0.05\" and of how a batch is split, SCJG's local policy and window, SES's arrival rate), tried at a few values on the claim it bears on: a tornado of how far our value moves, widest first, so a reader sees which conclusions are robust. About 40 more runs (`gridscope reproduce --sensitivity`).";
const VERDICT_HELP: &str = "reproduced: |ours − paper| within the tolerance (±% of the paper's value or ± an absolute amount), or, for a claim stated only as a direction, the direction holds. same direction, larger/smaller by ×k: outside the tolerance but on the paper's side (e.g. a gain above 1 where the paper's is larger), k = ours ÷ the paper's value — a gap, sized. not reproduced: neither. not modelled: Gridscope has no run for it. not run: the run failed or needs a trace that is not loaded (the line under the row says which).";

/// Which rows a filter keeps, by the verdict at the defaults.
type Keep = fn(Verdict) -> bool;

/// The filter's choices: its words and which rows it keeps.
const FILTERS: [(&str, Keep); 4] = [
    ("every claim", |_| true),
    ("the claims not reproduced (at the defaults)", |v| {
        v == Verdict::NotReproduced
    }),
    (
        "the claims with a gap: same direction or not reproduced",
        |v| matches!(v, Verdict::Trend | Verdict::NotReproduced),
    ),
    ("the claims not run or not modelled", |v| {
        matches!(v, Verdict::NotRun | Verdict::NotModelled)
    }),
];

/// A change of the report card's fields.
pub enum PaperField {
    Paper(usize),
    Filter(usize),
    Sensitivity(bool),
    File(Option<web_sys::File>),
}

pub struct Paper {
    /// 0: all papers; i: PAPERS[i − 1].
    paper: usize,
    /// An index of [`FILTERS`].
    filter: usize,
    /// Also the sensitivity sweeps (more runs).
    sensitivity: bool,
    file: Option<web_sys::File>,
    wanted_trace: Option<String>,
    card: Option<Rc<Card>>,
}

impl FamilyPanel for Paper {
    const ID: &'static str = "paper";
    const CLASS: &'static str = "sf paper";
    const LABEL: &'static str = "Paper vs Gridscope";
    const HEADING: &'static str = "Paper vs Gridscope: the report card";
    type Field = PaperField;
    type Task = FamilyTask;
    type Link = FamilyRequest;

    fn new() -> Self {
        Paper {
            paper: 0,
            filter: 0,
            sensitivity: false,
            file: None,
            wanted_trace: None,
            card: None,
        }
    }

    fn intro(&self) -> Html {
        html! { <p class="help">{ super::with_doc_links(ABOUT) }</p> }
    }

    fn link(&self) -> Result<FamilyRequest, String> {
        let papers = match self.paper {
            0 => vec![],
            i => PAPERS
                .get(i - 1)
                .map(|p| vec![p.0.to_string()])
                .unwrap_or_default(),
        };
        Ok(FamilyRequest::Card {
            papers,
            sensitivity: self.sensitivity,
            trace: self
                .file
                .as_ref()
                .map(|f| f.name())
                .or_else(|| self.wanted_trace.clone()),
        })
    }

    fn encode(link: &FamilyRequest) -> Result<String, String> {
        share::encode_family(link)
    }

    /// Runs with the chosen trace, or without one (the rows that read it say "not run").
    fn task(&self, mut request: FamilyRequest) -> Result<FamilyTask, String> {
        if self.file.is_none() {
            if let FamilyRequest::Card { trace, .. } = &mut request {
                *trace = None;
            }
        }
        Ok(FamilyTask {
            request,
            file: self.file.clone(),
        })
    }

    fn linked(fragment: &str) -> Option<Linked> {
        match share::decode_family(fragment).ok()?? {
            FamilyRequest::Card { papers, trace, .. } => Some(Linked {
                what: if papers.is_empty() {
                    "the report card of the five papers".into()
                } else {
                    format!("the report card of {}", papers.join(", "))
                },
                needs: trace,
            }),
            _ => None,
        }
    }

    fn open_link(&mut self) -> Opening {
        let Ok(Some(FamilyRequest::Card {
            papers,
            trace,
            sensitivity,
        })) = linked_request()
        else {
            return Opening::Nothing;
        };
        self.sensitivity = sensitivity;
        self.paper = papers
            .first()
            .and_then(|p| PAPERS.iter().position(|q| q.0 == p))
            .map_or(0, |i| i + 1);
        let notice = match &trace {
            Some(t) => format!("This link runs the report card with {t}: choose that file below (or press Run without it)."),
            None => "This link runs the report card: press Run (it takes a few seconds).".into(),
        };
        self.wanted_trace = trace;
        Opening::Wait(notice)
    }

    fn set(&mut self, field: PaperField) -> Result<Then, String> {
        match field {
            PaperField::Paper(i) => self.paper = i.min(PAPERS.len()),
            PaperField::Filter(i) => self.filter = i.min(FILTERS.len() - 1),
            PaperField::Sensitivity(on) => self.sensitivity = on,
            PaperField::File(f) => {
                self.file = f;
                return Ok(
                    if self.wanted_trace.take().is_some() && self.file.is_some() {
                        Then::Run
                    } else {
                        Then::Show
                    },
                );
            }
        }
        Ok(Then::Show)
    }

    fn show(&mut self, result: FamilyResult) -> Result<(), String> {
        match result {
            FamilyResult::Card(card) => self.card = Some(Rc::new(*card)),
            _ => return Err("the worker answered with another family's result".into()),
        }
        Ok(())
    }

    fn unit(&self) -> &'static str {
        "runs"
    }

    fn form(&self, on: &Callback<PaperField>) -> Html {
        let on_file = on.reform(|e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            PaperField::File(input.files().and_then(|f| f.get(0)))
        });
        html! {
            <>
                <label>{"Paper "}
                    <select data-testid="paper-select" onkeydown={super::form::hold_preset_keys} onchange={on.reform(|e: Event| PaperField::Paper(select_index(&e)))}>
                        <option value="0" selected={self.paper == 0}>{"all five"}</option>
                        { for PAPERS.iter().enumerate().map(|(i, p)| html!{
                            <option value={(i + 1).to_string()} selected={self.paper == i + 1}>{p.0}</option>
                        }) }
                    </select>
                </label>
                <div class="field">
                    <label for="paper-trace">{format!("Trace for the SCJG rows ({DEFAULT_TRACE})")}</label>
                    <input id="paper-trace" type="file" data-testid="paper-trace" accept=".swf,.gz" onchange={on_file} />
                    <span class="help">{TRACE_HELP}</span>
                </div>
                <div class="field">
                    <label><input type="checkbox" data-testid="paper-sensitivity" checked={self.sensitivity}
                        onchange={on.reform(|e: Event| PaperField::Sensitivity(e.target_unchecked_into::<HtmlInputElement>().checked()))} />
                        {" With the sensitivity sweeps"}</label>
                    <span class="help">{SENSITIVITY_HELP}</span>
                </div>
                <label>{"Show "}
                    <select data-testid="paper-filter" onchange={on.reform(|e: Event| PaperField::Filter(select_index(&e)))}>
                        { for FILTERS.iter().enumerate().map(|(i, (words, _))| html! {
                            <option value={i.to_string()} selected={self.filter == i}>{*words}</option>
                        }) }
                    </select>
                </label>
            </>
        }
    }

    fn results(&self, _on: &Callback<PaperField>) -> Html {
        match &self.card {
            Some(card) => view_card(card, FILTERS[self.filter.min(FILTERS.len() - 1)].1),
            None => html! {},
        }
    }

    fn export(&self, running: bool, ran: Option<&FamilyRequest>) -> Html {
        family_export_after(Self::ID, running, ran)
    }
}

fn view_card(card: &Card, keep: Keep) -> Html {
    let summary: Vec<String> = card
        .summary
        .iter()
        .map(|(v, n)| {
            // The JSON's keys; a trend is told as "same direction" (reproduce/words.rs).
            let v = if v == "trend" { "same direction" } else { v };
            format!("{v}: {} → {}", n.at_defaults, n.best)
        })
        .collect();
    let rows: Vec<&Row> = card
        .rows
        .iter()
        .filter(|r| keep(r.default.verdict))
        .collect();
    html! {
        <>
            <p class="help" data-testid="paper-summary">{format!("Verdicts at the defaults → with the documented readings: {}.", summary.join("; "))}</p>
            <p class="help">{VERDICT_HELP}</p>
            <p class="help" data-testid="paper-shown">{format!("{} of {} claims shown.", rows.len(), card.rows.len())}</p>
            <div class="table-wrap">
            <table class="metrics card" data-testid="paper-table">
                <thead><tr>
                    <th>{"claim"}</th><th>{"paper says"}</th>
                    <th title="measured at the presets' defaults">{"ours"}</th><th>{"verdict"}</th>
                    <th title="under the documented reading of the parameters the paper leaves open">{"ours (reading)"}</th><th>{"verdict"}</th>
                </tr></thead>
                { for rows.into_iter().map(view_row) }
            </table>
            </div>
            if !card.sensitivity.is_empty() {
                { view_tornado(card) }
            }
        </>
    }
}

const BAR_W: f64 = 240.0;

/// The tornado: per claim and parameter, a bar from the lowest to the highest value over
/// the values tried, as a change relative to the value at the default (one scale for all
/// rows, the centre line = the default), widest first; the values in words beside it.
fn view_tornado(card: &Card) -> Html {
    let rel = |v: Option<f64>, d: Option<f64>| match (v, d) {
        (Some(v), Some(d)) if d != 0.0 => Some(v / d - 1.0),
        _ => None,
    };
    let reach = card
        .sensitivity
        .iter()
        .flat_map(|t| [rel(t.low, t.default), rel(t.high, t.default)])
        .flatten()
        .fold(0.1_f64, |m, r| m.max(r.abs()));
    let x = |r: f64| BAR_W / 2.0 + (r / reach).clamp(-1.0, 1.0) * BAR_W / 2.0;
    html! {
        <>
            <h3>{"Sensitivity to the parameters the papers leave open"}</h3>
            <p class="help">{format!("Bars: how far each claim's value moves over the values tried, as a change from its value at the default (centre line); the scale runs from −{0:.0} % to +{0:.0} %. Widest first.", reach * 100.0)}</p>
            <div class="table-wrap">
            <table class="metrics card" data-testid="paper-tornado">
                <thead><tr><th>{"claim"}</th><th>{"parameter (default)"}</th><th>{"range"}</th><th>{"at the default"}</th><th>{"at each value"}</th></tr></thead>
                <tbody>
                { for card.sensitivity.iter().map(|t| {
                    let lo = rel(t.low, t.default);
                    let hi = rel(t.high, t.default);
                    html! {
                        <tr data-id={format!("{}.{}", t.paper, t.claim)} data-parameter={t.parameter.clone()}
                            data-low={t.low.map(json_num).unwrap_or_default()} data-high={t.high.map(json_num).unwrap_or_default()}>
                            <th scope="row">{format!("{} ({})", t.claim_text, t.paper)}</th>
                            <td>{format!("{} ({})", t.parameter, t.default_label)}</td>
                            <td>
                                <svg class="tornado" width={BAR_W.to_string()} height="14" role="img"
                                    aria-label={format!("from {} to {}", show(t.low, &t.unit), show(t.high, &t.unit))}>
                                    if let (Some(lo), Some(hi)) = (lo, hi) {
                                        <rect class="bar" x={format!("{:.1}", x(lo))} y="2" width={format!("{:.1}", (x(hi) - x(lo)).max(1.0))} height="10" />
                                    }
                                    <line class="axis" x1={(BAR_W / 2.0).to_string()} x2={(BAR_W / 2.0).to_string()} y1="0" y2="14" />
                                </svg>
                            </td>
                            <td>{show(t.default, &t.unit)}</td>
                            <td class="values">{t.values_text("; ")}</td>
                        </tr>
                    }
                }) }
                </tbody>
            </table>
            </div>
        </>
    }
}

fn cell(r: &Row, x: &Reading, key: &'static str) -> Html {
    let title = if x.error.is_empty() {
        format!("{} — {}", r.measure, x.command)
    } else {
        x.error.clone()
    };
    html! {
        <>
            <td data-key={key} data-value={x.ours.map(json_num).unwrap_or_default()} title={title}>{show(x.ours, &r.unit)}</td>
            <td data-key={format!("{key}-verdict")} data-verdict={x.verdict.label()} class={classes!("verdict", x.verdict.css_class())}>{&x.verdict_text}</td>
        </>
    }
}

/// A claim's row and the line in words under it, one `tbody` (they stay together).
fn view_row(r: &Row) -> Html {
    html! {
        <tbody>
        <tr data-id={format!("{}.{}", r.paper, r.id)}>
            <th scope="row">{&r.claim}<br /><span class="help">{format!("{} · {} {}", r.paper.to_uppercase(), r.figure, r.section)}</span></th>
            <td>{&r.paper_text}</td>
            { cell(r, &r.default, "ours") }
            { match &r.reading {
                Some(x) if !r.reading_text.is_empty() => cell(r, &Reading { command: format!("{} — {}", r.reading_text, x.command), ..x.clone() }, "reading"),
                Some(x) => cell(r, x, "reading"),
                None => html! { <><td></td><td></td></> },
            } }
        </tr>
        <tr class="claim-row"><td colspan="6">{ claim_line(r, "Gridscope") }</td></tr>
        </tbody>
    }
}
