//! The SES and KKOR presets in an engine worker (docs/ses.md, docs/kkor.md): the request a
//! panel sends, the result it gets back, and the worker side that runs them with progress.
//! The page's panels are `panels::ses` and `panels::kkor`; each starts its own worker, as the
//! SF panel does, so cancelling one is dropping it.

use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::protocol::FromWorker;
use crate::kkor::presets::{run_preset_with, KkorOptions, KkorPresetResult};
use crate::scenario::ses::{
    run_crossover, run_selection_with, SesCrossover, SesSelection, SES_DAYS,
};
use crate::scjg::inspect::{inspect, Inspection};
use crate::scjg::presets::{PresetOptions, ScjgPresetResult};
use crate::workload::SesPoisson;
use crate::workload::{read_trace, SwfOptions, TraceOptions};

/// What to run: the same flags as `gridscope run --preset …` (`--seeds`, and for SES
/// `--load`, and for the crossover `--x`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "family", rename_all = "snake_case")]
pub enum FamilyRequest {
    Ses {
        preset: String,
        seeds: u64,
        load_factor: f64,
        /// Shares of jobs needing ≥ 4 CPUs (`ses-restriction-crossover` only).
        #[serde(default)]
        shares: Vec<f64>,
        /// One FCFS queue for the whole site (`ses-selection`; absent in older links).
        #[serde(default)]
        site_queue: bool,
    },
    Kkor {
        preset: String,
        seeds: u64,
        /// Changes to the preset (loads, c_k, S, L); absent in links made before them.
        #[serde(default)]
        options: KkorOptions,
    },
    /// An SCJG preset on a trace file the page attaches (named here; the link records the
    /// name, the user picks the file again).
    Scjg {
        preset: String,
        seeds: u64,
        /// Metajob percentages (`scjg-fraction`, `scjg-ar-vs-lockdown`; the CLI's --x).
        #[serde(default)]
        percents: Vec<f64>,
        trace: String,
    },
    /// The papers' report card (`gridscope reproduce`): `papers` empty for all. The runs that
    /// read a trace get it when its file is attached (named `trace`); the others say which
    /// trace they need.
    Reproduce {
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
        let (seeds, points) = match self {
            FamilyRequest::Ses { seeds, shares, .. } => (*seeds, shares.len()),
            FamilyRequest::Kkor { seeds, options, .. } => (*seeds, options.loads.len()),
            FamilyRequest::Scjg {
                seeds, percents, ..
            } => (*seeds, percents.len()),
            FamilyRequest::Reproduce { .. } => (1, 1),
        };
        seeds.saturating_mul(points.max(1) as u64)
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

/// An SCJG preset's result and one of its runs inspected (`scjg::inspect`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScjgPage {
    pub result: ScjgPresetResult,
    pub inspection: Inspection,
}

/// A finished preset, in the CLI's JSON shapes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "result", rename_all = "snake_case")]
pub enum FamilyResult {
    SesSelection(SesSelection),
    SesCrossover(SesCrossover),
    Kkor(KkorPresetResult),
    Scjg(Box<ScjgPage>),
    Reproduce(Box<crate::reproduce::Card>),
}

/// Runs an SCJG preset on the trace `bytes`, as `gridscope run --preset` (one thread), and
/// inspects one of its runs.
pub fn compute_scjg(
    request: &FamilyRequest,
    bytes: &[u8],
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<FamilyResult, String> {
    let FamilyRequest::Scjg {
        preset,
        seeds,
        percents,
        trace,
    } = request
    else {
        return Err("not an SCJG request".into());
    };
    if *seeds == 0 || *seeds > 1000 {
        return Err("seeds must be 1..1000".into());
    }
    let w = read_trace(
        trace,
        bytes,
        &SwfOptions::default(),
        &TraceOptions::default(),
    )
    .map_err(|e| e.to_string())?;
    let mut options = PresetOptions {
        seeds: *seeds,
        ..PresetOptions::default()
    };
    if !percents.is_empty() {
        options.percents = percents.clone();
    }
    let result = crate::scjg::presets::run_preset(preset, &w.jobs, &options, 1, progress)?;
    let inspection = inspect(preset, &w.jobs, &options)?;
    Ok(FamilyResult::Scjg(Box::new(ScjgPage {
        result,
        inspection,
    })))
}

/// Runs `request`; `progress(done, total)` returns false to stop.
pub fn compute(
    request: &FamilyRequest,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<FamilyResult, String> {
    match request {
        FamilyRequest::Scjg { .. } => Err("an SCJG preset needs its trace file".into()),
        FamilyRequest::Reproduce {
            papers,
            sensitivity,
            ..
        } => reproduce(papers, *sensitivity, None, progress),
        FamilyRequest::Ses {
            preset,
            seeds,
            load_factor,
            shares,
            site_queue,
        } => {
            let gen = SesPoisson {
                load_factor: *load_factor,
                ..SesPoisson::default()
            };
            gen.validate()?;
            match preset.as_str() {
                "ses-selection" => {
                    run_selection_with(&gen, SES_DAYS, *seeds, *site_queue, progress)
                        .map(FamilyResult::SesSelection)
                        .map_err(|e| e.to_string())
                }
                "ses-restriction-crossover" => {
                    if shares.is_empty() || shares.len() > 100 {
                        return Err("give 1 to 100 shares of ≥ 4-CPU jobs".into());
                    }
                    run_crossover(&gen, shares, SES_DAYS, *seeds, progress)
                        .map(FamilyResult::SesCrossover)
                        .map_err(|e| e.to_string())
                }
                other => Err(format!("unknown SES preset '{other}'")),
            }
        }
        FamilyRequest::Kkor {
            preset,
            seeds,
            options,
        } => {
            if *seeds == 0 {
                return Err("seeds must be 1..1000".into());
            }
            run_preset_with(preset, *seeds, options, progress).map(FamilyResult::Kkor)
        }
    }
}

/// The report card, one run at a time (the page has one thread per worker); `trace` is the
/// attached file's name and bytes. A run that reads another trace is "not run", naming it.
pub fn reproduce(
    papers: &[String],
    sensitivity: bool,
    trace: Option<(&str, &[u8])>,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<FamilyResult, String> {
    let files = crate::reproduce::claim_files(papers)?;
    let mut load = |name: &str| match trace {
        Some((t, bytes)) if t == name => Ok(bytes.to_vec()),
        _ => Err(format!(
            "needs the trace {name}: choose it above, or run `gridscope reproduce` in a terminal"
        )),
    };
    let card = crate::reproduce::run_card(&files, sensitivity, 1, &mut load, &mut |d, t| {
        progress(d as u64, t as u64)
    });
    Ok(FamilyResult::Reproduce(Box::new(card)))
}

fn post(msg: &FromWorker) {
    let text = serde_json::to_string(msg).unwrap_or_else(|e| {
        format!("{{\"ev\":\"family_failed\",\"message\":\"cannot encode a message: {e}\"}}")
    });
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let _ = scope.post_message(&JsValue::from_str(&text));
}

/// The worker side: runs the preset (on the attached trace's bytes for SCJG), posting
/// progress at most every 50 ms, then the result.
pub fn run(request: &FamilyRequest, trace: Result<Option<Vec<u8>>, String>) {
    let t0 = js_sys::Date::now();
    let mut last_post = f64::NEG_INFINITY;
    let mut progress = |done, total| {
        let t = js_sys::Date::now();
        if t - last_post > 50.0 || done == total {
            last_post = t;
            post(&FromWorker::FamilyProgress { done, total });
        }
        true
    };
    let result = match (request, trace) {
        (FamilyRequest::Scjg { .. }, Ok(Some(bytes))) => {
            compute_scjg(request, &bytes, &mut progress)
        }
        (
            FamilyRequest::Reproduce {
                papers,
                sensitivity,
                trace: Some(name),
            },
            Ok(Some(bytes)),
        ) => reproduce(papers, *sensitivity, Some((name, &bytes)), &mut progress),
        (_, Err(e)) => Err(e),
        _ => compute(request, &mut progress),
    };
    post(&match result {
        Ok(r) => FromWorker::FamilyDone {
            result: Box::new(r),
            elapsed_ms: js_sys::Date::now() - t0,
        },
        Err(message) => FromWorker::FamilyFailed { message },
    });
}
