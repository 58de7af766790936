//! `run --preset kkor-*`: KKOR's centralized vs decentralized experiments (docs/kkor.md).
//! `kkor-real` reads its three traces here, at the edge, from `--traces`.

use std::fmt::Write;
use std::path::Path;

use gridscope::kkor::presets::{
    self, KkorPresetResult, KkorRunsResult, KkorSweepResult, RealSite, REAL_JOBS_PER_SITE,
    REAL_SLACK, REAL_TIME_UNIT_S, REAL_TRACES,
};
use gridscope::kkor::KkorParams;
use gridscope::workload::{read_swf, SwfOptions};

use crate::io::read_file;
use crate::progress::Progress;
use crate::{output, report, CliError};

/// `options`: `--x` (the offered loads of `kkor-load` or each organization's of
/// `kkor-fairness`), `--coefficients`, `--batch-jobs`, `--batch-length`; empty: the preset's.
pub fn run_kkor_preset(
    name: &str,
    seeds: Option<u64>,
    options: &presets::KkorOptions,
    traces: &Path,
    json: bool,
) -> Result<(), CliError> {
    if name == "kkor-real" && *options != presets::KkorOptions::default() {
        return Err(CliError::Usage(
            "kkor-real takes only --seeds and --traces (its loads are the traces')".into(),
        ));
    }
    let mut progress = Progress::new();
    let result = if name == "kkor-real" {
        KkorPresetResult::Runs(real(traces, &mut progress)?)
    } else {
        presets::run_preset_with(name, seeds.unwrap_or(0), options, &mut |d, t| {
            progress.sweep(d, t)
        })
        .map_err(CliError::Failed)?
    };
    drop(progress);
    let text = match (&result, json) {
        (_, true) => report::json(&result),
        (KkorPresetResult::Sweep(s), false) => sweep_table(s),
        (KkorPresetResult::Runs(r), false) => runs_table(r),
    };
    output::stdout(&format!("{}\n", text.trim_end()))
}

/// `kkor-real` on the shared traces (DAS2-fs1, KTH-SP2, SDSC-SP2 by default).
fn real(traces: &Path, progress: &mut Progress) -> Result<KkorRunsResult, CliError> {
    let mut workloads = Vec::new();
    for &(file, procs) in &REAL_TRACES {
        let bytes = read_file(&traces.join(file), &Default::default()).map_err(CliError::Failed)?;
        let w = read_swf(file, &bytes, &SwfOptions::default()).map_err(CliError::failed)?;
        let name = file.split('-').take(2).collect::<Vec<_>>().join("-");
        workloads.push((name, procs, w.jobs));
    }
    let sites: Vec<RealSite> = workloads
        .iter()
        .map(|(name, procs, jobs)| RealSite {
            name,
            procs: *procs,
            jobs,
        })
        .collect();
    presets::real_traces(
        &sites,
        REAL_JOBS_PER_SITE,
        REAL_SLACK,
        REAL_TIME_UNIT_S,
        &KkorParams::default(),
        &mut |d, t| progress.sweep(d, t),
    )
    .map_err(CliError::Failed)
}

fn sweep_table(r: &KkorSweepResult) -> String {
    let header = format!(
        "{}: {}\n{} seeds; medians with a {:.1} % band; x = {}\n",
        r.preset,
        r.description,
        r.seeds,
        r.confidence * 100.0,
        r.x_label
    );
    report::band_table(header, &r.x, &r.series, 2)
}

fn runs_table(r: &KkorRunsResult) -> String {
    let mut s = format!(
        "{}: {}\n{} seeds (medians)\n\n{:<14} {:>10} {:>10} {:>8} {:>8} {:>10}  per organization: flow time (× its local value)\n",
        r.preset, r.description, r.seeds, "run", "flow time", "tardiness", "late", "util", "migrations"
    );
    for run in &r.runs {
        let m = &run.metrics;
        let _ = write!(
            s,
            "{:<14} {:>10.2} {:>10.2} {:>8.1} {:>8.3} {:>10.1} ",
            run.label, m.mean_flow_time, m.mean_tardiness, m.late_jobs, m.utilization, m.migrations
        );
        for o in &m.organizations {
            let rel = o
                .relative_to_local
                .as_ref()
                .and_then(|r| r.mean_flow_time)
                .map_or(String::new(), |x| format!(" ({x:.2})"));
            let _ = write!(s, " {} {:.1}{rel}", o.name, o.mean_flow_time);
        }
        s.push('\n');
    }
    s
}
