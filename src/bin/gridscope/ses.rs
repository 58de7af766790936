//! `run --preset ses-*`: SES's node-group experiments (docs/ses.md), over N seeds.

use std::fmt::Write;

use gridscope::scenario::ses::{
    run_crossover, run_selection_with, SesCrossover, SesSelection, CROSSOVER_SHARES, SES_DAYS,
};
use gridscope::workload::SesPoisson;

use crate::cli::SweepArgs;
use crate::progress::Progress;
use crate::{output, report, CliError};

/// The flags an SES preset takes: `--seeds`, `--load` (a factor on SES's arrival rate) and,
/// for the crossover, `--x` (the shares of ≥ 4-CPU jobs).
fn check_flags(name: &str, a: &SweepArgs) -> Result<(), CliError> {
    let other = [
        (a.batches.is_some(), "--batches"),
        (a.vary.is_some(), "--vary"),
        (a.x.is_some() && name == "ses-selection", "--x"),
        (a.rates.is_some(), "--rates"),
        (a.lambda.is_some(), "--lambda"),
        (a.batch_size.is_some(), "--batch-size"),
        (a.cv.is_some(), "--cv"),
        (a.policies.is_some(), "--policies"),
        (a.dispatch.is_some(), "--dispatch"),
        (a.site_queue && name != "ses-selection", "--site-queue"),
        (a.coefficients.is_some(), "--coefficients"),
        (a.batch_jobs.is_some(), "--batch-jobs"),
        (a.batch_length.is_some(), "--batch-length"),
    ]
    .into_iter()
    .find_map(|(given, flag)| given.then_some(flag));
    match other {
        Some(flag) => Err(CliError::Usage(format!(
            "{flag} does not apply to {name} (it takes --seeds, --load{})",
            if name == "ses-selection" {
                ""
            } else {
                " and --x"
            }
        ))),
        None => Ok(()),
    }
}

pub fn run_ses_preset(name: &str, a: &SweepArgs, json: bool) -> Result<(), CliError> {
    check_flags(name, a)?;
    let gen = SesPoisson {
        load_factor: a.load.unwrap_or(1.0),
        ..SesPoisson::default()
    };
    gen.validate().map_err(CliError::Failed)?;
    let seeds = a.seeds.unwrap_or(10);
    let mut progress = Progress::new();
    let text = match name {
        "ses-selection" => {
            let r = run_selection_with(&gen, SES_DAYS, seeds, a.site_queue, &mut |d, t| {
                progress.sweep(d, t)
            })
            .map_err(CliError::failed)?;
            if json {
                report::json(&r)
            } else {
                selection_table(&r)
            }
        }
        "ses-restriction-crossover" => {
            let shares =
                a.x.as_ref()
                    .map_or(CROSSOVER_SHARES.to_vec(), |x| x.0.clone());
            let r = run_crossover(&gen, &shares, SES_DAYS, seeds, &mut |d, t| {
                progress.sweep(d, t)
            })
            .map_err(CliError::failed)?;
            if json {
                report::json(&r)
            } else {
                crossover_table(&r)
            }
        }
        _ => return Err(CliError::Failed(format!("unknown preset '{name}'"))),
    };
    drop(progress);
    output::stdout(&format!("{}\n", text.trim_end()))
}

fn selection_table(r: &SesSelection) -> String {
    let mut s = format!(
        "{}: {}\n{} seeds, {} days of arrivals; medians with a {:.1} % band; minutes\n",
        r.preset,
        r.description,
        r.seeds,
        r.days,
        r.confidence * 100.0
    );
    for run in &r.runs {
        let m = &run.metrics;
        let _ = writeln!(
            s,
            "\n{:<18} response {:.1} [{:.1}, {:.1}]  wait {:.1}  utilization {:.3}",
            run.label,
            m.avg_response_s / 60.0,
            m.avg_response_lo / 60.0,
            m.avg_response_hi / 60.0,
            m.avg_wait_s / 60.0,
            m.utilization
        );
        for g in &m.groups {
            let (lo, hi) = (g.lo.as_deref(), g.hi.as_deref());
            let _ = writeln!(
                s,
                "  group {:<4} utilization {:.3} [{:.3}, {:.3}]  queueing delay {:>8.1} [{:.1}, {:.1}]  jobs {:.0}",
                g.name,
                g.utilization,
                lo.map_or(0.0, |l| l.utilization),
                hi.map_or(0.0, |h| h.utilization),
                g.avg_queue_delay_s / 60.0,
                lo.map_or(0.0, |l| l.avg_queue_delay_s / 60.0),
                hi.map_or(0.0, |h| h.avg_queue_delay_s / 60.0),
                g.jobs
            );
        }
    }
    s
}

fn crossover_table(r: &SesCrossover) -> String {
    let mut s = format!(
        "{}: {}\n{} seeds, {} days; median mean response (minutes) with a {:.1} % band\n{:>8}",
        r.preset,
        r.description,
        r.seeds,
        r.days,
        r.confidence * 100.0,
        "share"
    );
    for p in &r.series {
        let _ = write!(s, "{:>26}", p.policy);
    }
    s.push('\n');
    for (i, x) in r.x.iter().enumerate() {
        let _ = write!(s, "{x:>8}");
        for p in &r.series {
            let _ = write!(
                s,
                "{:>10.1} [{:.0}, {:.0}]",
                p.median[i] / 60.0,
                p.lo[i] / 60.0,
                p.hi[i] / 60.0
            );
        }
        s.push('\n');
    }
    for (strategy, at) in &r.crossover {
        let _ = writeln!(
            s,
            "{strategy}: restriction {}",
            at.map_or(
                "never gives a lower median response".to_string(),
                |x| format!("pays from a share of {x}")
            )
        );
    }
    s
}
