//! `fit`: SOB §3.1's workload model fitted to a trace (size classes with the 2 % merge rule,
//! a hyper-Erlang per class by moment matching), and a synthetic workload drawn from it.

use std::fmt::Write;
use std::path::Path;

use gridscope::workload::fit_quality::{fit_quality, FitQuality};
use gridscope::workload::hyper_erlang::{
    fit_classes_with, synthesize, FittedClass, SYNTHETIC_SEED,
};

use crate::cli::FitArgs;
use crate::io::read_trace;
use crate::output::Inputs;
use crate::{output, report, CliError};

pub fn fit(a: &FitArgs) -> Result<(), CliError> {
    let path = &a.trace;
    let cpn = a.cpus_per_node;
    if let Some(out) = &a.out {
        let mut inputs = Inputs::default();
        inputs.add(Path::new(path));
        inputs.check(out, "--out")?;
    }
    let w = read_trace(path, a.strict, &a.limits.limits(), &a.format)?;
    if w.jobs.is_empty() {
        return Err(CliError::Failed(format!("{path}: no runnable job to fit")));
    }
    let method = a.method.unwrap_or_default();
    let fitted = fit_classes_with(&w.jobs, cpn, method);
    let quality = fit_quality(&w.jobs, &fitted);
    let seed = a.seed.unwrap_or(SYNTHETIC_SEED);
    // The same draw as the app's worker (`hyper_erlang::synthesize`).
    let synth = synthesize(&w.jobs, &fitted, seed).map_err(CliError::Failed)?;
    let (synthetic, span_s) = (synth.workload, synth.horizon_s);
    if let Some(out) = &a.out {
        let text = gridscope::workload::write_swf(&synthetic, &Default::default());
        output::write_file(out, text.as_bytes())?;
    }
    if a.json {
        let v = serde_json::json!({
            "method": method,
            "classes": fitted,
            "quality": quality,
            "trace_jobs": w.jobs.len(),
            "synthetic_jobs": synthetic.jobs.len(),
            "horizon_s": span_s,
        });
        return output::stdout(&format!("{}\n", report::json(&v)));
    }
    let mut s = format!(
        "{path}: {} jobs over {:.0} s; classes of {cpn} CPUs, merged below 2 %; fitted by {}\n",
        w.jobs.len(),
        span_s,
        method.label()
    );
    moments_table(&fitted, &mut s);
    quality_table(&quality, &mut s);
    let _ = writeln!(
        s,
        "synthetic workload from the fit (seed {seed}): {} jobs over the same span{}",
        synthetic.jobs.len(),
        a.out
            .as_ref()
            .map(|p| format!(", written to {}", p.display()))
            .unwrap_or_default()
    );
    output::stdout(&s)
}

/// The Kolmogorov–Smirnov distances, per class and pooled.
fn quality_table(q: &FitQuality, s: &mut String) {
    s.push_str("goodness of fit: Kolmogorov–Smirnov distance D = sup |trace CDF − model CDF| (0 perfect, 1 worst)\n");
    s.push_str("class        jobs   D service  D inter-arrival\n");
    for c in &q.classes {
        let _ = writeln!(
            s,
            "{:<12} {:>5}   {:>9.3}  {:>15.3}",
            format!("{}-{}", c.nmin, c.nmax),
            c.jobs,
            c.service_ks,
            c.interarrival_ks
        );
    }
    let _ = writeln!(
        s,
        "pooled run times against the mixture of the classes: D = {:.3}",
        q.pooled_service_ks
    );
}

/// The sample and fitted moments side by side, per class and distribution.
fn moments_table(fitted: &[FittedClass], s: &mut String) {
    s.push_str("class        jobs   what          sample mean  fitted mean   sample m2    fitted m2    exact\n");
    for f in fitted {
        for (what, m) in [("inter-arrival", &f.interarrival), ("service", &f.service)] {
            let _ = writeln!(
                s,
                "{:<12} {:>5}   {:<13} {:>11.1}  {:>11.1}  {:>11.4e}  {:>11.4e}  {}",
                format!("{}-{}", f.class.nmin, f.class.nmax),
                f.jobs,
                what,
                m.sample[0],
                m.fitted[0],
                m.sample[1],
                m.fitted[1],
                if m.exact { "yes" } else { m.note.as_str() }
            );
        }
    }
}
