//! `run --preset scjg-*`: SCJG's advance-reservation experiments (docs/scjg.md). The trace
//! (SDSC-SP2 by default) is read here, at the edge, from `--traces`.

use std::fmt::Write;
use std::path::Path;

use gridscope::scjg::presets::{
    run_preset, PresetOptions, ScjgPresetResult, ScjgRunsResult, ScjgSweepResult, DEFAULT_TRACE,
};
use gridscope::workload::{read_swf, SwfOptions};

use crate::cli::SweepArgs;
use crate::io::read_file;
use crate::progress::Progress;
use crate::{output, report, CliError};

/// The flags an SCJG preset takes: `--seeds`, `--x` (metajob percentages of the share
/// sweeps) and `--traces`.
fn check_flags(name: &str, a: &SweepArgs) -> Result<(), CliError> {
    let other = [
        (a.batches.is_some(), "--batches"),
        (a.vary.is_some(), "--vary"),
        (
            a.x.is_some() && !matches!(name, "scjg-fraction" | "scjg-ar-vs-lockdown"),
            "--x",
        ),
        (a.rates.is_some(), "--rates"),
        (a.lambda.is_some(), "--lambda"),
        (a.load.is_some(), "--load"),
        (a.batch_size.is_some(), "--batch-size"),
        (a.cv.is_some(), "--cv"),
        (a.policies.is_some(), "--policies"),
        (a.dispatch.is_some(), "--dispatch"),
        (a.site_queue, "--site-queue"),
        (a.coefficients.is_some(), "--coefficients"),
        (a.batch_jobs.is_some(), "--batch-jobs"),
        (a.batch_length.is_some(), "--batch-length"),
    ]
    .into_iter()
    .find_map(|(given, flag)| given.then_some(flag));
    match other {
        Some(flag) => Err(CliError::Usage(format!(
            "{flag} does not apply to {name} (SCJG presets take --seeds, --traces and, for the share sweeps, --x = metajob percentages)"
        ))),
        None => Ok(()),
    }
}

pub fn run_scjg_preset(
    name: &str,
    a: &SweepArgs,
    traces: &Path,
    json: bool,
    threads: usize,
) -> Result<(), CliError> {
    check_flags(name, a)?;
    let mut options = PresetOptions {
        seeds: a.seeds.unwrap_or(0),
        ..PresetOptions::default()
    };
    if let Some(x) = &a.x {
        options.percents = x.0.clone();
    }
    let bytes =
        read_file(&traces.join(DEFAULT_TRACE), &Default::default()).map_err(CliError::Failed)?;
    let trace =
        read_swf(DEFAULT_TRACE, &bytes, &SwfOptions::default()).map_err(CliError::failed)?;
    let mut progress = Progress::new();
    let result = run_preset(name, &trace.jobs, &options, threads, &mut |d, t| {
        progress.sweep(d, t)
    })
    .map_err(CliError::Failed)?;
    drop(progress);
    let text = match (&result, json) {
        (_, true) => report::json(&result),
        (ScjgPresetResult::Sweep(s), false) => sweep_table(s),
        (ScjgPresetResult::Runs(r), false) => runs_table(r),
    };
    output::stdout(&format!("{}\n", text.trim_end()))
}

fn sweep_table(r: &ScjgSweepResult) -> String {
    let header = format!(
        "{}: {}\n{} seeds; medians with a {:.1} % band; x = {}\n",
        r.preset,
        r.description,
        r.seeds,
        r.confidence * 100.0,
        r.x_label
    );
    report::band_table(header, &r.x, &r.series, 3)
}

fn runs_table(r: &ScjgRunsResult) -> String {
    let mut s = format!(
        "{}: {}\n{} seeds (medians)\n\n{:<18} {:>8} {:>9} {:>9} {:>8} {:>12} {:>12} {:>10}\n",
        r.preset,
        r.description,
        r.seeds,
        "run",
        "util",
        "retries",
        "max",
        "failed",
        "meta queue s",
        "backoff s",
        "lock wait"
    );
    for run in &r.runs {
        let m = &run.metrics;
        let _ = writeln!(
            s,
            "{:<18} {:>8.3} {:>9.2} {:>9} {:>8} {:>12.0} {:>12.0} {:>10.0}",
            run.label,
            m.utilization,
            m.retries,
            m.max_retries_seen,
            m.metajobs_failed,
            m.metajob_queue_s,
            m.backoff_s,
            m.lock_wait_s
        );
    }
    s
}
