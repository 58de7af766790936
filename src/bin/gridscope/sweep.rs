//! `run --preset sf-*`: an SF parameter sweep, as the paper defined it or changed by flags.

use std::fmt::Write;

use gridscope::allocation::sweep::{
    run_sweep_within, sweep_preset, Arrivals, SweepResult, SweepSpec,
};

use crate::cli::SweepArgs;
use crate::progress::Progress;
use crate::{output, report, CliError};

impl SweepArgs {
    /// The first sweep flag given, if any.
    pub fn first_given(&self) -> Option<&'static str> {
        [
            (self.seeds.is_some(), "--seeds"),
            (self.batches.is_some(), "--batches"),
            (self.vary.is_some(), "--vary"),
            (self.x.is_some(), "--x"),
            (self.rates.is_some(), "--rates"),
            (self.lambda.is_some(), "--lambda"),
            (self.load.is_some(), "--load"),
            (self.batch_size.is_some(), "--batch-size"),
            (self.cv.is_some(), "--cv"),
            (self.policies.is_some(), "--policies"),
            (self.dispatch.is_some(), "--dispatch"),
            (self.dll_report.is_some(), "--dll-report"),
            (self.site_queue, "--site-queue"),
            (self.coefficients.is_some(), "--coefficients"),
            (self.batch_jobs.is_some(), "--batch-jobs"),
            (self.batch_length.is_some(), "--batch-length"),
        ]
        .into_iter()
        .find_map(|(given, flag)| given.then_some(flag))
    }

    /// The first flag given that belongs to the SES or KKOR presets, not to the SF sweeps.
    pub fn family_flag(&self) -> Option<&'static str> {
        [
            (self.site_queue, "--site-queue"),
            (self.coefficients.is_some(), "--coefficients"),
            (self.batch_jobs.is_some(), "--batch-jobs"),
            (self.batch_length.is_some(), "--batch-length"),
        ]
        .into_iter()
        .find_map(|(given, flag)| given.then_some(flag))
    }

    /// The preset's spec with every flag given applied (the result is then labelled "custom").
    fn apply(&self, mut spec: SweepSpec) -> Result<SweepSpec, CliError> {
        if let Some(v) = self.vary {
            spec.vary = v;
        }
        if let Some(x) = &self.x {
            spec.x = x.0.clone();
        }
        if let Some(r) = &self.rates {
            spec.rates = r.0.clone();
        }
        match (self.lambda, self.load) {
            (Some(_), Some(_)) => {
                return Err(CliError::Usage("give --lambda or --load, not both".into()))
            }
            (Some(l), None) => spec.arrivals = Arrivals::Lambda(l),
            (None, Some(l)) => spec.arrivals = Arrivals::Load(l),
            (None, None) => {}
        }
        if let Some(k) = self.batch_size {
            spec.batch_size = k;
        }
        if let Some(cv) = self.cv {
            spec.arrival_cv = cv;
        }
        if let Some(p) = &self.policies {
            spec.policies = p.0.clone();
        }
        if let Some(d) = self.dispatch {
            spec.dispatch = d;
        }
        if let Some(r) = self.dll_report {
            spec.dll_report_s = r;
        }
        Ok(spec)
    }
}

pub fn run_sweep_preset(
    name: &str,
    a: &SweepArgs,
    json: bool,
    threads: usize,
    limits: &gridscope::limits::Limits,
) -> Result<(), CliError> {
    let preset =
        sweep_preset(name).ok_or_else(|| CliError::Failed(format!("unknown preset '{name}'")))?;
    let spec = a.apply((preset.spec)())?;
    let seeds = a.seeds.unwrap_or(10);
    let batches = a.batches.unwrap_or(20_000);
    let mut progress = Progress::new();
    let r = run_sweep_within(
        &spec,
        seeds,
        batches,
        threads,
        limits,
        &mut |done, total| progress.sweep(done, total),
    )
    .map_err(CliError::Failed)?;
    drop(progress);
    if json {
        output::stdout(&format!("{}\n", report::json(&r)))
    } else {
        output::stdout(&table(&r))
    }
}

/// The medians with their band per x and policy, and the gap.
fn table(r: &SweepResult) -> String {
    let mut s = format!(
        "{}: {}\n{} seeds × {} batches ({} discarded); median mean response (s) with a {:.1} % band\n{}\n{:>8}",
        r.preset,
        r.description,
        r.seeds,
        r.batches,
        r.warmup,
        r.confidence * 100.0,
        if r.paper.is_empty() { String::new() } else { format!("paper: {}\n", r.paper) },
        "x"
    );
    for p in &r.series {
        let _ = write!(s, "{:>28}", p.policy);
    }
    let _ = writeln!(s, "{:>10}", "gap");
    for (i, x) in r.x.iter().enumerate() {
        let _ = write!(s, "{x:>8}");
        for p in &r.series {
            let _ = write!(s, "{:>12.4} [{:.4}, {:.4}]", p.median[i], p.lo[i], p.hi[i]);
        }
        let _ = writeln!(s, "{:>9.1}%", r.gap[i] * 100.0);
    }
    let _ = writeln!(s, "gap = {}", r.gap_label);
    s
}
