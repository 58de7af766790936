//! The worker side of a family view's run (docs/reproduce.md and each family's page): runs a
//! [`FamilyRequest`] — a registry family's preset through `crate::family::run`, as
//! `gridscope run --preset` (one thread), or the report card — with progress, and posts its
//! [`FamilyResult`]. Each family view starts its own worker (`panels::family::Runner`), so
//! cancelling one is dropping it.

use super::post;
use crate::family::{Ctx, RunSpec};
use crate::limits::Limits;
use crate::web::protocol::{FamilyRequest, FamilyResult, FromWorker};

/// Seeds a page's run may ask for (the fields say 1..1000).
const MAX_SEEDS: u64 = 1000;

/// Runs `spec` through the registry: its report as JSON and the family's detail. `file` is
/// the attached file's bytes, which stand in for the trace the run reads (the page attaches
/// one at most).
fn run_family(
    spec: &RunSpec,
    file: Option<&[u8]>,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<FamilyResult, String> {
    if spec.seeds.is_some_and(|s| s == 0 || s > MAX_SEEDS) {
        return Err(format!("seeds must be 1..{MAX_SEEDS}"));
    }
    let family = crate::family::family_of(&spec.preset).map_err(|e| e.to_string())?;
    let mut load = |name: &str| {
        file.map(<[u8]>::to_vec)
            .ok_or_else(|| format!("needs the trace {name}: choose its file above"))
    };
    let mut ctx = Ctx {
        threads: 1,
        limits: Limits::default(),
        load: &mut load,
        progress,
    };
    let report = crate::family::run(spec, &mut ctx).map_err(|e| e.to_string())?;
    let report = report.value().map_err(|e| e.to_string())?;
    let detail = family.detail(spec, &mut ctx).map_err(|e| e.to_string())?;
    Ok(FamilyResult::Run {
        preset: spec.preset.clone(),
        report,
        detail,
    })
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
    Ok(FamilyResult::Card(Box::new(card)))
}

/// The worker side: runs the request (on the attached file's bytes, if any), posting
/// progress at most every 50 ms, then the result.
pub fn run(request: &FamilyRequest, file: Result<Option<Vec<u8>>, String>) {
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
    let result = file.and_then(|bytes| match request {
        FamilyRequest::Run { spec, .. } => run_family(spec, bytes.as_deref(), &mut progress),
        FamilyRequest::Card {
            papers,
            sensitivity,
            trace,
        } => {
            let trace = trace.as_deref().zip(bytes.as_deref());
            reproduce(papers, *sensitivity, trace, &mut progress)
        }
    });
    post(&match result {
        Ok(r) => FromWorker::FamilyDone {
            result: Box::new(r),
            elapsed_ms: js_sys::Date::now() - t0,
        },
        Err(message) => FromWorker::FamilyFailed { message },
    });
}
