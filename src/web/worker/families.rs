//! The worker side of a paper family's run (docs/ses.md, docs/kkor.md, docs/scjg.md,
//! docs/reproduce.md): runs a [`FamilyRequest`] — an SES, KKOR or SCJG preset, or the
//! report card — with progress, and posts its [`FamilyResult`]. Each family view
//! starts its own worker (`panels::family::Runner`), so cancelling one is dropping it.

use super::post;
use crate::kkor::presets::run_preset_with;
use crate::scenario::ses::{run_crossover, run_selection_with, SES_DAYS};
use crate::scjg::inspect::inspect;
use crate::scjg::presets::PresetOptions;
use crate::web::protocol::{FamilyRequest, FamilyResult, FromWorker, ScjgPage};
use crate::workload::SesPoisson;
use crate::workload::{read_trace, SwfOptions, TraceOptions};

/// Runs an SCJG preset on the trace `bytes`, as `gridscope run --preset` (one thread), and
/// inspects one of its runs.
fn compute_scjg(
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
fn compute(
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
fn reproduce(
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
