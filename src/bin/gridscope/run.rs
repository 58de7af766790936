//! `simulate`, `lint` and `run`: a trace or a scenario through the engine, with a progress
//! bar on a terminal, then the report.

use std::path::{Path, PathBuf};

use gridscope::engine::{EstimateSource, RunConfig};
use gridscope::scenario::{
    load_workload, run_loaded_on, AlgorithmSpec, PlatformSpec, Scenario, WorkloadSpec,
    SCENARIO_PRESETS, SCENARIO_VERSION,
};
use gridscope::workload::{read_swf, SwfOptions, Workload};

use crate::cli::{Estimates, LintArgs, ReportArgs, RunArgs, SimulateArgs};
use crate::output::Inputs;
use crate::progress::Progress;
use crate::{output, report, sweep, CliError};

/// Where the real-trace presets look for their traces unless `--traces` says otherwise.
const DEFAULT_TRACES: &str = "../shared/traces";

pub fn read_file(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// Reads the SWF file at `path`.
pub fn read_trace(path: &str, strict: bool) -> Result<Workload, CliError> {
    let bytes = read_file(Path::new(path)).map_err(CliError::Failed)?;
    read_swf(path, &bytes, &SwfOptions { strict }).map_err(CliError::failed)
}

pub fn lint(a: &LintArgs) -> Result<(), CliError> {
    let w = read_trace(&a.trace, a.strict)?;
    if a.json {
        output::stdout(&format!("{}\n", report::json(&w.report)))
    } else {
        output::stdout(&w.report.summary())
    }
}

pub fn simulate(a: &SimulateArgs) -> Result<(), CliError> {
    let scenario = Scenario {
        version: SCENARIO_VERSION,
        name: format!("simulate {}", a.trace),
        seed: 0,
        platform: PlatformSpec::FromTrace { procs: a.procs },
        workload: WorkloadSpec::Swf {
            file: a.trace.clone(),
            strict: a.strict,
        },
        algorithms: a
            .policy
            .0
            .iter()
            .copied()
            .map(AlgorithmSpec::local)
            .collect(),
        options: RunConfig {
            estimates: match a.estimates {
                Estimates::Trace => EstimateSource::Trace,
                Estimates::Exact => EstimateSource::Exact,
            },
            kill_at_estimate: !a.no_kill,
        },
    };
    let mut inputs = Inputs::default();
    inputs.add(Path::new(&a.trace));
    run_scenario(&scenario, Path::new(""), inputs, &a.report)
}

pub fn run(a: &RunArgs) -> Result<(), CliError> {
    if let Some(preset) = a.preset.as_deref().filter(|p| p.starts_with("sf-")) {
        if let Some(flag) = scenario_flag(a).or(a.sweep.family_flag()) {
            return Err(CliError::Usage(format!(
                "{flag} does not apply to a sweep preset ({preset})"
            )));
        }
        return sweep::run_sweep_preset(preset, &a.sweep, a.report.json, threads(&a.report));
    }
    if let Some(preset) = a.preset.as_deref().filter(|p| p.starts_with("kkor-")) {
        let allowed = [
            "--seeds",
            "--x",
            "--coefficients",
            "--batch-jobs",
            "--batch-length",
        ];
        if let Some(flag) = scenario_flag(a)
            .filter(|f| *f != "--traces")
            .or_else(|| a.sweep.first_given().filter(|f| !allowed.contains(f)))
        {
            return Err(CliError::Usage(format!(
                "{flag} does not apply to a KKOR preset ({preset}; it takes --seeds, --x = the loads, --coefficients, --batch-jobs, --batch-length and --traces)"
            )));
        }
        let traces = a.traces.clone().unwrap_or(DEFAULT_TRACES.into());
        let options = gridscope::kkor::presets::KkorOptions {
            loads: a.sweep.x.as_ref().map_or(Vec::new(), |x| x.0.clone()),
            coefficients: a
                .sweep
                .coefficients
                .as_ref()
                .map_or(Vec::new(), |x| x.0.clone()),
            batch_jobs: a.sweep.batch_jobs,
            batch_length: a.sweep.batch_length,
        };
        return crate::kkor::run_kkor_preset(
            preset,
            a.sweep.seeds,
            &options,
            &traces,
            a.report.json,
        );
    }
    if let Some(preset) = a.preset.as_deref().filter(|p| p.starts_with("scjg-")) {
        if let Some(flag) = scenario_flag(a).filter(|f| *f != "--traces") {
            return Err(CliError::Usage(format!(
                "{flag} does not apply to an SCJG preset ({preset})"
            )));
        }
        let traces = a.traces.clone().unwrap_or(DEFAULT_TRACES.into());
        return crate::scjg::run_scjg_preset(
            preset,
            &a.sweep,
            &traces,
            a.report.json,
            threads(&a.report),
        );
    }
    if let Some(preset) = a.preset.as_deref().filter(|p| p.starts_with("ses-")) {
        if let Some(flag) = scenario_flag(a) {
            return Err(CliError::Usage(format!(
                "{flag} does not apply to an SES preset ({preset})"
            )));
        }
        return crate::ses::run_ses_preset(preset, &a.sweep, a.report.json);
    }
    if let Some(flag) = a.sweep.first_given() {
        return Err(CliError::Usage(format!(
            "{flag} applies only to the sweep presets (sf-*)"
        )));
    }
    let mut inputs = Inputs::default();
    let (mut scenario, base) = match (&a.preset, &a.scenario) {
        (Some(p), _) => (
            preset(p)?,
            a.traces.clone().unwrap_or(DEFAULT_TRACES.into()),
        ),
        (None, Some(file)) => {
            inputs.add(Path::new(file));
            scenario_file(file)?
        }
        (None, None) => {
            return Err(CliError::Usage(
                "run needs SCENARIO.json or --preset NAME".into(),
            ))
        }
    };
    if let Some(s) = a.seed {
        scenario.seed = s;
    }
    run_scenario(&scenario, &base, inputs, &a.report)
}

/// `--threads`, or the available cores.
pub fn threads(args: &ReportArgs) -> usize {
    args.threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    })
}

/// The first flag given that only a scenario run takes.
fn scenario_flag(a: &RunArgs) -> Option<&'static str> {
    [
        (a.seed.is_some(), "--seed"),
        (a.report.series.is_some(), "--series"),
        (a.report.jobs.is_some(), "--jobs"),
        (a.traces.is_some(), "--traces"),
    ]
    .into_iter()
    .find_map(|(given, flag)| given.then_some(flag))
}

/// A named scenario preset. Presets name the shared traces by file name: they resolve in
/// `--traces`.
fn preset(name: &str) -> Result<Scenario, CliError> {
    Scenario::preset(name).ok_or_else(|| {
        let mut names: Vec<&str> = SCENARIO_PRESETS.iter().map(|p| p.0).collect();
        names.extend(
            gridscope::allocation::sweep::SWEEP_PRESETS
                .iter()
                .map(|p| p.name),
        );
        names.extend(gridscope::scenario::ses::SES_PRESETS.iter().map(|p| p.0));
        names.extend(gridscope::kkor::presets::KKOR_PRESETS.iter().map(|p| p.0));
        names.extend(gridscope::scjg::presets::SCJG_PRESETS.iter().map(|p| p.0));
        CliError::Failed(format!(
            "unknown scenario preset '{name}'; known: {}",
            names.join(", ")
        ))
    })
}

/// A scenario file and the folder its workload files are relative to.
fn scenario_file(file: &str) -> Result<(Scenario, PathBuf), CliError> {
    let path = Path::new(file);
    let text = String::from_utf8(read_file(path).map_err(CliError::Failed)?)
        .map_err(|_| CliError::Failed(format!("{file} is not UTF-8 text")))?;
    let s = Scenario::from_json(&text).map_err(|e| CliError::Failed(format!("{file}: {e}")))?;
    Ok((s, path.parent().map(Path::to_path_buf).unwrap_or_default()))
}

/// Loads the scenario's workload (files relative to `base`), checks that no per-run jobs
/// file would overwrite an input (`inputs` and the workload files), runs every algorithm
/// with a progress bar on a terminal and reports.
fn run_scenario(
    scenario: &Scenario,
    base: &Path,
    mut inputs: Inputs,
    args: &ReportArgs,
) -> Result<(), CliError> {
    let mut progress = Progress::new();
    let workload = load_workload(scenario, &mut |f| {
        let path = base.join(f);
        inputs.add(&path);
        read_file(&path)
    })
    .map_err(CliError::failed)?;
    let labels: Vec<String> = scenario
        .algorithms
        .iter()
        .map(AlgorithmSpec::label)
        .collect();
    let jobs_files = match &args.jobs {
        Some(out) => jobs_files(out, &labels, &inputs)?,
        None => vec![],
    };
    let threads = threads(args);
    let mut report = run_loaded_on(scenario, workload, threads, &mut |run, done, total| {
        progress.runs(&labels, run, done, total)
    })
    .map_err(CliError::failed)?;
    drop(progress);
    report::finish(args, &mut report, &jobs_files)
}

/// The per-run jobs files, after saying which were renamed and refusing any that is an input.
fn jobs_files(out: &Path, labels: &[String], inputs: &Inputs) -> Result<Vec<PathBuf>, CliError> {
    let (paths, notes) = output::per_run_paths(out, labels);
    for n in &notes {
        output::note(n);
    }
    for p in &paths {
        inputs.check(p, "--jobs")?;
    }
    Ok(paths)
}
