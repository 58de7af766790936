//! `run --preset NAME` of a paper family's sweep (SF, SES, KKOR, SCJG): the flags become the
//! family's options, the family registry runs it (`gridscope::family`), and its report is
//! printed as JSON or as the family's table. Which flags a preset takes, and what it says of
//! one it does not, is the family's to say.

use std::path::Path;

use gridscope::family::{Ctx, Family, PresetArgs, DEFAULT_TRACES};
use gridscope::limits::Limits;

use crate::cli::{RunArgs, SweepArgs};
use crate::io::load_file;
use crate::progress::Progress;
use crate::{output, CliError};

impl SweepArgs {
    /// The family options given (`traces`: whether `--traces` was).
    pub fn preset_args(&self, traces: bool) -> PresetArgs {
        PresetArgs {
            seeds: self.seeds,
            batches: self.batches,
            vary: self.vary,
            x: self.x.as_ref().map(|x| x.0.clone()),
            rates: self.rates.as_ref().map(|x| x.0.clone()),
            lambda: self.lambda,
            load: self.load,
            batch_size: self.batch_size,
            cv: self.cv,
            policies: self.policies.as_ref().map(|p| p.0.clone()),
            dispatch: self.dispatch,
            dll_report: self.dll_report,
            site_queue: self.site_queue,
            coefficients: self.coefficients.as_ref().map(|x| x.0.clone()),
            batch_jobs: self.batch_jobs,
            batch_length: self.batch_length,
            traces,
        }
    }

    /// The first family flag given, if any (a scenario run takes none).
    pub fn first_given(&self) -> Option<&'static str> {
        self.preset_args(false).given().first().map(|o| o.flag())
    }
}

/// Runs `preset` of `family` with the command line's flags; `scenario_flag` is the first
/// flag given that only a scenario run takes (other than `--traces`).
pub fn run_preset(
    family: &dyn Family,
    preset: &str,
    a: &RunArgs,
    scenario_flag: Option<&'static str>,
) -> Result<(), CliError> {
    if let Some(flag) = scenario_flag {
        return Err(CliError::Usage(family.not_taken(flag, preset)));
    }
    let args = a.sweep.preset_args(a.traces.is_some());
    let traces = a.traces.clone().unwrap_or(DEFAULT_TRACES.into());
    let mut load = |name: &str| load_file(&Path::new(&traces).join(name), &Limits::default());
    let mut progress = Progress::new();
    let mut on_progress = |done, total| progress.sweep(done, total);
    let result = gridscope::family::run_preset(
        family,
        preset,
        &args,
        &mut Ctx {
            threads: a.report.thread_count(),
            limits: a.limits.limits(),
            load: &mut load,
            progress: &mut on_progress,
        },
    );
    drop(progress);
    let report = result?;
    if a.report.json {
        output::stdout(&format!("{}\n", report.json()))
    } else {
        output::stdout(&report.text())
    }
}
