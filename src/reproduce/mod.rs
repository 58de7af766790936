//! The reproduction report card (issue #28): every headline claim of the five papers beside
//! Gridscope's number, run live, with a verdict computed by a tolerance written beside the
//! claim. The claims are data — `claims/<paper>.json`, one entry per claim — and each names
//! the run it reads (a family preset, `runs.rs`) and what it measures there (a path or
//! arithmetic over paths into the run's JSON report, `select.rs`).
//!
//! Verdicts: **reproduced** when our value is within the tolerance of the paper's (or, for a
//! claim the paper states only as a direction, when the direction holds); **same direction,
//! larger/smaller by ×k** (`trend` in the JSON) when the value is outside the tolerance but
//! on the paper's side (`trend`), k printed (`words.rs`); **not reproduced**
//! otherwise; **not modelled** when Gridscope has no run for it; **not run** when a run
//! failed or needs a trace that is not there (the card says which).
//!
//! A claim may name a second run, `reading`: the same measure under a documented choice of
//! the parameters the paper leaves open (docs/<paper>.md says which and why). The card shows
//! both, so the defaults are never silently retuned.

pub mod case;
pub mod runs;
pub mod select;
pub mod words;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use runs::RunSpec;
use select::{describe, Expr};

/// The papers, in the order of the card, with their claim files.
pub const PAPERS: [(&str, &str); 5] = [
    ("sob", include_str!("claims/sob.json")),
    ("sf", include_str!("claims/sf.json")),
    ("scjg", include_str!("claims/scjg.json")),
    ("ses", include_str!("claims/ses.json")),
    ("kkor", include_str!("claims/kkor.json")),
];

/// One paper's claims and the runs they read.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimFile {
    pub paper: String,
    pub title: String,
    /// The family's doc (docs/<file>), where each claim's `doc` anchor lives.
    pub doc: String,
    pub runs: BTreeMap<String, RunSpec>,
    pub claims: Vec<Claim>,
    /// For parameters the paper leaves open: how a claim's value moves with each.
    #[serde(default)]
    pub sensitivity: Vec<SensitivitySpec>,
}

/// One parameter the paper does not state, tried at a few values on one claim.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SensitivitySpec {
    /// The claim's id (its measure and its default run are the baseline).
    pub claim: String,
    /// The parameter in words, with its unit.
    pub parameter: String,
    /// The preset's value of it, as shown.
    pub default: String,
    pub values: Vec<SensitivityValue>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SensitivityValue {
    pub label: String,
    pub run: RunSpec,
}

/// The claim's value at one value of the parameter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SensitivityPoint {
    pub label: String,
    pub ours: Option<f64>,
    pub verdict: Verdict,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub error: String,
}

impl Sensitivity {
    /// "label: value (verdict)" for each value tried, joined by `sep` (the CLI, the docs'
    /// Markdown and the page print the same words).
    pub fn values_text(&self, sep: &str) -> String {
        self.points
            .iter()
            .map(|p| {
                format!(
                    "{}: {} ({})",
                    p.label,
                    show(p.ours, &self.unit),
                    words::verdict_text(
                        p.verdict,
                        p.ours,
                        self.paper_value,
                        &Tolerance::default(),
                        &self.unit
                    )
                )
            })
            .collect::<Vec<_>>()
            .join(sep)
    }
}

/// A bar of the tornado: how far a claim's value moves over a parameter's values.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sensitivity {
    pub paper: String,
    pub claim: String,
    pub claim_text: String,
    pub parameter: String,
    pub default_label: String,
    pub default: Option<f64>,
    pub paper_value: Option<f64>,
    pub unit: String,
    pub points: Vec<SensitivityPoint>,
    /// The lowest and highest value over the default and the points.
    pub low: Option<f64>,
    pub high: Option<f64>,
}

/// A condition on a number: every bound given must hold.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bounds {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub above: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub below: Option<f64>,
}

impl Bounds {
    fn holds(&self, v: f64) -> bool {
        self.above.is_none_or(|a| v > a) && self.below.is_none_or(|b| v < b)
    }

    fn describe(&self, unit: &str) -> String {
        let v = |x: f64| {
            if unit == "%" {
                format!("{} %", x * 100.0)
            } else {
                format!("{x}")
            }
        };
        match (self.above, self.below) {
            (Some(a), Some(b)) => format!("between {} and {}", v(a), v(b)),
            (Some(a), None) => format!("above {}", v(a)),
            (None, Some(b)) => format!("below {}", v(b)),
            (None, None) => "any".into(),
        }
    }
}

/// How close is close enough.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tolerance {
    /// Reproduced when |ours − paper| ≤ rel·|paper|.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rel: Option<f64>,
    /// Reproduced when |ours − paper| ≤ abs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abs: Option<f64>,
    /// A claim stated only as a direction: reproduced when ours is within these bounds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Bounds>,
    /// Outside the tolerance but within these bounds: the trend is right.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trend: Option<Bounds>,
}

impl Tolerance {
    /// The rule as the card prints it.
    /// `unit` "%" (a share): absolute amounts and bounds read as percentage points.
    pub fn describe(&self, paper: Option<f64>, unit: &str) -> String {
        let mut parts = Vec::new();
        if let (Some(r), Some(_)) = (self.rel, paper) {
            parts.push(format!("±{} % of the paper's", r * 100.0));
        }
        if let Some(a) = self.abs {
            parts.push(if unit == "%" {
                format!("±{} points", a * 100.0)
            } else {
                format!("±{a}")
            });
        }
        if let Some(e) = &self.expect {
            parts.push(e.describe(unit));
        }
        let mut s = parts.join(", ");
        if let Some(t) = &self.trend {
            s += &format!("; same direction if {}", t.describe(unit));
        }
        s
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    pub id: String,
    /// Table or figure ("Table 6", "Fig. 8").
    pub figure: String,
    pub section: String,
    /// The claim in words, as the paper makes it.
    pub claim: String,
    /// The paper's number, when it gives one.
    #[serde(default)]
    pub paper: Option<f64>,
    /// The paper's statement of the value ("÷ 5.9", "rises", "> 40 %").
    pub paper_text: String,
    /// What ours is, in words ("local wait / S-I wait").
    #[serde(default)]
    pub measure_text: String,
    /// The run (a key of `runs`); absent: not modelled.
    #[serde(default)]
    pub run: Option<String>,
    /// A second run under a documented reading of the parameters the paper leaves open.
    #[serde(default)]
    pub reading: Option<String>,
    #[serde(default)]
    pub ours: Option<Expr>,
    /// The measure under the reading, when the reading changes what is measured (the paper's
    /// own way of computing it) rather than the run; `ours` otherwise.
    #[serde(default)]
    pub reading_ours: Option<Expr>,
    /// What the reading is, in words, when `reading_ours` is given.
    #[serde(default)]
    pub reading_text: String,
    #[serde(default)]
    pub tolerance: Tolerance,
    /// "×", "%", "s" or "" — how values print (a share prints as a percentage with "%").
    #[serde(default)]
    pub unit: String,
    /// Anchor in the family's doc that explains the gap (or the match).
    pub doc: String,
    #[serde(default)]
    pub note: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Reproduced,
    Trend,
    NotReproduced,
    NotModelled,
    NotRun,
}

impl Verdict {
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Reproduced => "reproduced",
            Verdict::Trend => "trend",
            Verdict::NotReproduced => "not reproduced",
            Verdict::NotModelled => "not modelled",
            Verdict::NotRun => "not run",
        }
    }
}

/// Our value under one run, and its verdict.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reading {
    /// The run's key in the claim file.
    pub run: String,
    /// The CLI command that gives the run's report.
    pub command: String,
    pub ours: Option<f64>,
    /// The verdict's name (`trend` kept for a value outside the tolerance on the paper's
    /// side; `verdict_text` says it to a reader).
    pub verdict: Verdict,
    /// The verdict in words, with the size of a gap: "same direction, larger by ×3.08".
    #[serde(default)]
    pub verdict_text: String,
    /// Why: the tolerance it was judged by, the claim's note, or the run's error.
    #[serde(default)]
    pub because: String,
    /// Why there is no value (a missing trace, a failed run).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub error: String,
}

/// One row of the card.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub paper: String,
    pub id: String,
    pub figure: String,
    pub section: String,
    pub claim: String,
    pub paper_value: Option<f64>,
    pub paper_text: String,
    pub measure: String,
    pub unit: String,
    pub tolerance: String,
    /// At the preset's defaults.
    pub default: Reading,
    /// Under the documented reading, when the claim has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reading: Option<Reading>,
    /// What the reading measures differently, when it does (else its run says it).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reading_text: String,
    /// docs/<file>#<anchor>.
    pub doc: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
}

impl Row {
    /// The better of the two verdicts (the card's summary counts it).
    pub fn best(&self) -> Verdict {
        self.reading.as_ref().map_or(self.default.verdict, |r| {
            r.verdict.min(self.default.verdict)
        })
    }
}

/// The whole card.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Card {
    pub papers: Vec<String>,
    pub rows: Vec<Row>,
    /// Verdict → rows, at the defaults and at the best of defaults and reading.
    pub summary: BTreeMap<String, Summary>,
    /// The sensitivity sweeps, when asked for (`--sensitivity`), widest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sensitivity: Vec<Sensitivity>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub at_defaults: u32,
    pub best: u32,
}

/// The claim files of `papers` (all when empty); `Err` names a bad file or unknown paper.
pub fn claim_files(papers: &[String]) -> Result<Vec<ClaimFile>, String> {
    for p in papers {
        if !PAPERS.iter().any(|(name, _)| name == p) {
            let known: Vec<_> = PAPERS.iter().map(|p| p.0).collect();
            return Err(format!(
                "unknown paper '{p}'; known: {}, or all",
                known.join(", ")
            ));
        }
    }
    PAPERS
        .iter()
        .filter(|(name, _)| papers.is_empty() || papers.iter().any(|p| p == name))
        .map(|(name, text)| {
            let file: ClaimFile =
                serde_json::from_str(text).map_err(|e| format!("claims/{name}.json: {e}"))?;
            check(&file)?;
            Ok(file)
        })
        .collect()
}

/// Every claim names runs that exist, a measure when it has a run, and a tolerance.
fn check(file: &ClaimFile) -> Result<(), String> {
    for c in &file.claims {
        let at = format!("claims/{}.json, claim {}", file.paper, c.id);
        for run in c.run.iter().chain(&c.reading) {
            if !file.runs.contains_key(run) {
                return Err(format!("{at}: no run named '{run}'"));
            }
        }
        if c.run.is_some() && c.ours.is_none() {
            return Err(format!("{at}: a run but no 'ours'"));
        }
        let t = &c.tolerance;
        if c.run.is_some()
            && t.expect.is_none()
            && (c.paper.is_none() || (t.rel.is_none() && t.abs.is_none()))
        {
            return Err(format!("{at}: needs a paper value with rel/abs, or expect"));
        }
    }
    for t in &file.sensitivity {
        match file.claims.iter().find(|c| c.id == t.claim) {
            Some(c) if c.run.is_some() => {}
            _ => {
                return Err(format!(
                    "claims/{}.json: sensitivity of '{}' names no claim with a run",
                    file.paper, t.claim
                ))
            }
        }
    }
    Ok(())
}

/// The verdict of value `v` for claim `c`.
pub fn verdict(c: &Claim, v: f64) -> Verdict {
    let t = &c.tolerance;
    let close = c.paper.is_some_and(|p| {
        let d = (v - p).abs();
        t.rel.is_some_and(|r| d <= r * p.abs()) || t.abs.is_some_and(|a| d <= a)
    });
    let expected = t.expect.as_ref().map(|e| e.holds(v));
    if close || expected == Some(true) {
        Verdict::Reproduced
    } else if t.trend.as_ref().is_some_and(|b| b.holds(v)) {
        Verdict::Trend
    } else {
        Verdict::NotReproduced
    }
}

/// Runs the claims of `files` and fills the card. `reports(key)` gives a run's JSON report
/// (or why there is none); the caller runs each distinct run once.
pub fn card(
    files: &[ClaimFile],
    reports: &mut dyn FnMut(&ClaimFile, &str) -> Result<Value, String>,
) -> Card {
    let mut rows = Vec::new();
    for file in files {
        for c in &file.claims {
            let mut read = |key: &Option<String>, e: Option<&Expr>| {
                key.as_ref().map(|k| reading(file, c, k, e, reports))
            };
            let default = read(&c.run, c.ours.as_ref())
                .unwrap_or_else(|| judged(c, String::new(), String::new(), Err(String::new())));
            let reading = read(&c.reading, c.reading_ours.as_ref().or(c.ours.as_ref()));
            rows.push(row(file, c, default, reading));
        }
    }
    let mut summary: BTreeMap<String, Summary> = BTreeMap::new();
    for r in &rows {
        summary
            .entry(r.default.verdict.label().into())
            .or_default()
            .at_defaults += 1;
        summary.entry(r.best().label().into()).or_default().best += 1;
    }
    Card {
        papers: files.iter().map(|f| f.paper.clone()).collect(),
        rows,
        summary,
        sensitivity: vec![],
    }
}

/// Claim `c`'s row of the card, with its readings.
pub fn row(file: &ClaimFile, c: &Claim, default: Reading, reading: Option<Reading>) -> Row {
    Row {
        paper: file.paper.clone(),
        id: c.id.clone(),
        figure: c.figure.clone(),
        section: c.section.clone(),
        claim: c.claim.clone(),
        paper_value: c.paper,
        paper_text: c.paper_text.clone(),
        measure: if c.measure_text.is_empty() {
            c.ours.as_ref().map(describe).unwrap_or_default()
        } else {
            c.measure_text.clone()
        },
        unit: c.unit.clone(),
        tolerance: c.tolerance.describe(c.paper, &c.unit),
        default,
        reading,
        reading_text: c.reading_text.clone(),
        doc: format!("{}#{}", file.doc, c.doc),
        note: c.note.clone(),
    }
}

/// The rows of `file`'s claims read from run `report` of preset `preset` (a family view's
/// run, whatever its seeds and options): each claim whose run is of that preset, measured on
/// this report by its `ours` (issue #38: a view says what its own run found).
pub fn rows_of_run(file: &ClaimFile, preset: &str, report: &Value) -> Vec<Row> {
    file.claims
        .iter()
        .filter(|c| {
            c.run
                .as_ref()
                .and_then(|k| file.runs.get(k))
                .is_some_and(|spec| spec.preset == preset)
        })
        .map(|c| {
            let value = c
                .ours
                .as_ref()
                .ok_or_else(|| "no measure".to_string())
                .and_then(|e| e.eval(report));
            let default = judged(c, preset.into(), String::new(), value);
            row(file, c, default, None)
        })
        .collect()
}

fn reading(
    file: &ClaimFile,
    c: &Claim,
    key: &str,
    measure: Option<&Expr>,
    reports: &mut dyn FnMut(&ClaimFile, &str) -> Result<Value, String>,
) -> Reading {
    let command = file.runs.get(key).map(RunSpec::command).unwrap_or_default();
    let value = reports(file, key).and_then(|report| match measure {
        Some(e) => e.eval(&report),
        None => Err("no measure".into()),
    });
    judged(c, key.into(), command, value)
}

/// The reading of claim `c` from run `run` (empty: the claim has no run, not modelled) whose
/// measure gave `value`, with its verdict, the verdict's words and why.
pub fn judged(c: &Claim, run: String, command: String, value: Result<f64, String>) -> Reading {
    let (ours, verdict, error) = match value {
        Ok(v) => (Some(v), verdict(c, v), String::new()),
        Err(_) if run.is_empty() => (None, Verdict::NotModelled, String::new()),
        Err(e) => (None, Verdict::NotRun, e),
    };
    Reading {
        run,
        command,
        ours,
        verdict,
        verdict_text: words::verdict_text(verdict, ours, c.paper, &c.tolerance, &c.unit),
        because: words::because(verdict, c.paper, &c.tolerance, &c.unit, &error),
        error,
    }
}

/// Runs every distinct run the claims of `files` read, once each, then the card; with
/// `sensitivity`, also every run of the files' sensitivity sweeps. `progress(done, total)`
/// counts runs; returning false cancels (the remaining rows are "not run: cancelled").
pub fn run_card(
    files: &[ClaimFile],
    sensitivity: bool,
    threads: usize,
    load: &mut runs::Load,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Card {
    let mut wanted: Vec<RunSpec> = Vec::new();
    let mut want = |spec: &RunSpec| {
        if !wanted.contains(spec) {
            wanted.push(spec.clone());
        }
    };
    for f in files {
        for c in &f.claims {
            for k in c.run.iter().chain(&c.reading) {
                if let Some(spec) = f.runs.get(k) {
                    want(spec);
                }
            }
        }
        for t in f.sensitivity.iter().filter(|_| sensitivity) {
            t.values.iter().for_each(|v| want(&v.run));
        }
    }
    let total = wanted.len();
    let mut going = progress(0, total);
    let mut done: Vec<Result<Value, String>> = Vec::with_capacity(total);
    for (i, spec) in wanted.iter().enumerate() {
        done.push(if going {
            runs::run(spec, threads, load, &mut |_, _| true)
        } else {
            Err("cancelled".into())
        });
        going = going && progress(i + 1, total);
    }
    let mut report = |spec: Option<&RunSpec>| -> Result<Value, String> {
        let i = spec
            .and_then(|s| wanted.iter().position(|w| w == s))
            .ok_or("no such run")?;
        done[i].clone()
    };
    let mut card = card(files, &mut |f, k| report(f.runs.get(k)));
    if sensitivity {
        for f in files {
            for t in &f.sensitivity {
                card.sensitivity.push(sweep(f, t, &card.rows, &mut report));
            }
        }
        let span = |s: &Sensitivity| match (s.low, s.high, s.default) {
            (Some(l), Some(h), Some(d)) if d != 0.0 => (h - l) / d.abs(),
            _ => 0.0,
        };
        card.sensitivity
            .sort_by(|a, b| span(b).total_cmp(&span(a)).then(a.claim.cmp(&b.claim)));
    }
    card
}

fn sweep(
    file: &ClaimFile,
    t: &SensitivitySpec,
    rows: &[Row],
    report: &mut dyn FnMut(Option<&RunSpec>) -> Result<Value, String>,
) -> Sensitivity {
    let claim = file.claims.iter().find(|c| c.id == t.claim);
    let row = rows
        .iter()
        .find(|r| r.paper == file.paper && r.id == t.claim);
    let points: Vec<SensitivityPoint> = t
        .values
        .iter()
        .map(|v| {
            let value =
                report(Some(&v.run)).and_then(|r| match claim.and_then(|c| c.ours.as_ref()) {
                    Some(e) => e.eval(&r),
                    None => Err("no measure".into()),
                });
            match value {
                Ok(x) => SensitivityPoint {
                    label: v.label.clone(),
                    ours: Some(x),
                    verdict: claim.map_or(Verdict::NotRun, |c| verdict(c, x)),
                    error: String::new(),
                },
                Err(error) => SensitivityPoint {
                    label: v.label.clone(),
                    ours: None,
                    verdict: Verdict::NotRun,
                    error,
                },
            }
        })
        .collect();
    let default = row.and_then(|r| r.default.ours);
    let all = || points.iter().filter_map(|p| p.ours).chain(default);
    Sensitivity {
        paper: file.paper.clone(),
        claim: t.claim.clone(),
        claim_text: row.map(|r| r.claim.clone()).unwrap_or_default(),
        parameter: t.parameter.clone(),
        default_label: t.default.clone(),
        default,
        paper_value: claim.and_then(|c| c.paper),
        unit: claim.map(|c| c.unit.clone()).unwrap_or_default(),
        low: all().reduce(f64::min),
        high: all().reduce(f64::max),
        points,
    }
}

/// The sensitivity sweeps as a Markdown table (`--sensitivity --markdown`).
pub fn sensitivity_markdown(card: &Card) -> String {
    let mut s = String::from(
        "| claim | parameter (default) | ours at the default | at each value | range |\n|---|---|---|---|---|\n",
    );
    for t in &card.sensitivity {
        s += &format!(
            "| {} ({}) | {} ({}) | {} | {} | {} – {} |\n",
            t.claim_text,
            t.paper,
            t.parameter,
            t.default_label,
            show(t.default, &t.unit),
            t.values_text("; "),
            show(t.low, &t.unit),
            show(t.high, &t.unit)
        );
    }
    s
}

/// The anchor GitHub (and `docs-html`) gives a Markdown heading: lower case, letters,
/// digits, `-` and `_` kept, spaces to `-`, everything else dropped. Claims link to them.
pub fn heading_slug(text: &str) -> String {
    text.chars()
        .flat_map(char::to_lowercase)
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// A value as the card prints it: shares (unit "%") as percentages, ratios with "×".
pub fn show(v: Option<f64>, unit: &str) -> String {
    match (v, unit) {
        (None, _) => "—".into(),
        (Some(v), "%") => format!("{:.1} %", v * 100.0),
        (Some(v), "×") => format!("{}×", sig(v)),
        (Some(v), "s") => format!("{v:.0} s"),
        (Some(v), u) => format!("{}{}{u}", sig(v), if u.is_empty() { "" } else { " " }),
    }
}

/// Three significant digits, no exponent.
fn sig(v: f64) -> String {
    let a = v.abs();
    if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// The card as a Markdown table (per paper, for docs/<paper>.md and `--markdown`).
pub fn markdown(card: &Card, paper: &str) -> String {
    let mut s = String::from(
        "| claim | where | paper | ours (defaults) | verdict | ours (reading) | verdict | tolerance |\n|---|---|---|---|---|---|---|---|\n",
    );
    for r in card.rows.iter().filter(|r| r.paper == paper) {
        let (rv, rverdict) = match &r.reading {
            Some(x) => (show(x.ours, &r.unit), x.verdict_text.as_str()),
            None => ("".into(), ""),
        };
        s += &format!(
            "| {} | {} {} | {} | {} | {} | {} | {} | {} |\n",
            r.claim,
            r.figure,
            r.section,
            r.paper_text,
            show(r.default.ours, &r.unit),
            r.default.verdict_text,
            rv,
            rverdict,
            r.tolerance
        );
    }
    s
}

#[cfg(test)]
mod tests;
