//! The paper families' presets (`sf-*`, `ses-*`, `kkor-*`, `scjg-*`): the library's own
//! functions the CLI's `run --preset` calls, with the CLI's defaults, so the JSON is the
//! CLI's `--json` output. GIL released; Ctrl-C checked in their progress callbacks.

use pyo3::prelude::*;

use gridscope::allocation::sweep::{run_sweep_within, sweep_preset};
use gridscope::kkor::presets as kkor;
use gridscope::limits::Limits;
use gridscope::scenario::ses::{run_crossover, run_selection_with, CROSSOVER_SHARES, SES_DAYS};
use gridscope::scjg::presets as scjg;
use gridscope::workload::{read_swf, SesPoisson, SwfOptions};

use crate::engine_err;

fn json<T: serde::Serialize>(v: &T) -> Result<String, String> {
    serde_json::to_string_pretty(v).map_err(|e| e.to_string())
}

/// Runs family preset `name` with `seeds` (None: the CLI's default) and, for the SF sweeps,
/// `batches`; the SCJG and KKOR real-trace presets read their traces from `traces`.
/// Returns the CLI's JSON (without the final newline).
#[pyfunction]
#[pyo3(signature = (name, seeds = None, batches = None, traces = crate::DEFAULT_TRACES.to_string(), threads = 1))]
pub fn run_family_preset(
    py: Python<'_>,
    name: &str,
    seeds: Option<u64>,
    batches: Option<u64>,
    traces: String,
    threads: usize,
) -> PyResult<String> {
    let mut interrupt: Option<PyErr> = None;
    let out = py.detach(|| {
        let mut progress = |_: u64, _: u64| match Python::attach(|py| py.check_signals()) {
            Ok(()) => true,
            Err(e) => {
                interrupt = Some(e);
                false
            }
        };
        run(name, seeds, batches, &traces, threads.max(1), &mut progress)
    });
    if let Some(e) = interrupt {
        return Err(e);
    }
    out.map_err(engine_err)
}

fn read_trace(traces: &str, file: &str) -> Result<Vec<gridscope::model::Job>, String> {
    let path = std::path::Path::new(traces).join(file);
    let bytes = crate::run::read_file(&path)?;
    Ok(read_swf(file, &bytes, &SwfOptions::default())
        .map_err(|e| e.to_string())?
        .jobs)
}

fn run(
    name: &str,
    seeds: Option<u64>,
    batches: Option<u64>,
    traces: &str,
    threads: usize,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<String, String> {
    if let Some(p) = sweep_preset(name) {
        let spec = (p.spec)();
        let r = run_sweep_within(
            &spec,
            seeds.unwrap_or(10),
            batches.unwrap_or(20_000),
            threads,
            &Limits::default(),
            progress,
        )?;
        return json(&r);
    }
    if batches.is_some() {
        return Err(format!(
            "batches applies only to the SF sweeps (sf-*), not to {name}"
        ));
    }
    match name {
        "ses-selection" | "ses-restriction-crossover" => {
            let gen = SesPoisson::default();
            let seeds = seeds.unwrap_or(10);
            if name == "ses-selection" {
                json(
                    &run_selection_with(&gen, SES_DAYS, seeds, false, progress)
                        .map_err(|e| e.to_string())?,
                )
            } else {
                json(
                    &run_crossover(&gen, &CROSSOVER_SHARES, SES_DAYS, seeds, progress)
                        .map_err(|e| e.to_string())?,
                )
            }
        }
        n if n.starts_with("scjg-") => {
            let jobs = read_trace(traces, scjg::DEFAULT_TRACE)?;
            let options = scjg::PresetOptions {
                seeds: seeds.unwrap_or(0),
                ..scjg::PresetOptions::default()
            };
            json(&scjg::run_preset(name, &jobs, &options, threads, progress)?)
        }
        "kkor-real" => Err(
            "kkor-real is not offered from Python yet: run `gridscope run --preset kkor-real`"
                .into(),
        ),
        n if n.starts_with("kkor-") => json(&kkor::run_preset_with(
            name,
            seeds.unwrap_or(0),
            &kkor::KkorOptions::default(),
            progress,
        )?),
        _ => Err(format!(
            "unknown family preset '{name}'; known: {}",
            family_names().join(", ")
        )),
    }
}

/// Every family preset's name.
#[pyfunction]
pub fn family_names() -> Vec<String> {
    let mut names: Vec<String> = gridscope::allocation::sweep::SWEEP_PRESETS
        .iter()
        .map(|p| p.name.to_string())
        .collect();
    names.extend(
        gridscope::scenario::ses::SES_PRESETS
            .iter()
            .map(|p| p.0.to_string()),
    );
    names.extend(
        kkor::KKOR_PRESETS
            .iter()
            .map(|p| p.0.to_string())
            .filter(|n| n != "kkor-real"),
    );
    names.extend(scjg::SCJG_PRESETS.iter().map(|p| p.0.to_string()));
    names
}
