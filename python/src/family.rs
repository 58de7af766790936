//! The paper families' presets (SF, SES, KKOR, SCJG) through the library's family registry,
//! as the CLI's `run --preset` runs them, so the JSON is the CLI's `--json` output. GIL
//! released; Ctrl-C checked in the progress callback.

use pyo3::prelude::*;
use serde::Deserialize;

use gridscope::allocation::sweep::Vary;
use gridscope::allocation::{AllocationPolicy, Dispatch};
use gridscope::family::{self, Ctx, FamilyError, PresetArgs};
use gridscope::limits::Limits;

use crate::engine_err;

/// The options beyond seeds and batches, as Python's keyword arguments (JSON): the CLI's
/// flags of the same names, `lambda_` for `--lambda`.
#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Options {
    vary: Option<Vary>,
    x: Option<Vec<f64>>,
    rates: Option<Vec<f64>>,
    #[serde(rename = "lambda_")]
    lambda: Option<f64>,
    load: Option<f64>,
    batch_size: Option<u32>,
    cv: Option<f64>,
    policies: Option<Vec<AllocationPolicy>>,
    dispatch: Option<Dispatch>,
    dll_report: Option<f64>,
    #[serde(default)]
    site_queue: bool,
    coefficients: Option<Vec<f64>>,
    batch_jobs: Option<u32>,
    batch_length: Option<f64>,
}

/// Runs family preset `name` with `seeds` (None: the family's default), `batches` (the SF
/// sweeps) and `options` (JSON of the other options by name); the presets that read traces
/// read them from `traces`. Returns the CLI's JSON (without the final newline).
#[pyfunction]
#[pyo3(signature = (name, seeds = None, batches = None, traces = crate::DEFAULT_TRACES.to_string(), threads = 1, options = None))]
pub fn run_family_preset(
    py: Python<'_>,
    name: &str,
    seeds: Option<u64>,
    batches: Option<u64>,
    traces: String,
    threads: usize,
    options: Option<String>,
) -> PyResult<String> {
    let o: Options = match options.as_deref() {
        Some(text) => serde_json::from_str(text).map_err(engine_err)?,
        None => Options::default(),
    };
    let args = PresetArgs {
        seeds,
        batches,
        vary: o.vary,
        x: o.x,
        rates: o.rates,
        lambda: o.lambda,
        load: o.load,
        batch_size: o.batch_size,
        cv: o.cv,
        policies: o.policies,
        dispatch: o.dispatch,
        dll_report: o.dll_report,
        site_queue: o.site_queue,
        coefficients: o.coefficients,
        batch_jobs: o.batch_jobs,
        batch_length: o.batch_length,
        traces: false,
    };
    let mut interrupt: Option<PyErr> = None;
    let out = py.detach(|| {
        let mut progress = |_: u64, _: u64| match Python::attach(|py| py.check_signals()) {
            Ok(()) => true,
            Err(e) => {
                interrupt = Some(e);
                false
            }
        };
        run(name, &args, &traces, threads.max(1), &mut progress)
    });
    if let Some(e) = interrupt {
        return Err(e);
    }
    out.map_err(engine_err)
}

fn run(
    name: &str,
    args: &PresetArgs,
    traces: &str,
    threads: usize,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<String, FamilyError> {
    let Some(family) = family::find(name).filter(|f| !f.scenario_presets()) else {
        return Err(FamilyError::invalid(
            "name",
            format!(
                "unknown family preset '{name}'; known: {}",
                family_names().join(", ")
            ),
        ));
    };
    let mut load = |file: &str| crate::run::read_file(&std::path::Path::new(traces).join(file));
    let report = family::run_preset(
        family,
        name,
        args,
        &mut Ctx {
            threads,
            limits: Limits::default(),
            load: &mut load,
            progress,
        },
    )?;
    Ok(report.json())
}

/// Every family preset's name (the scenario presets are `scenario_presets`).
#[pyfunction]
pub fn family_names() -> Vec<String> {
    family::FAMILIES
        .iter()
        .filter(|f| !f.scenario_presets())
        .flat_map(|f| f.presets())
        .map(|(name, _)| name.to_string())
        .collect()
}
