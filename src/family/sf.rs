//! SF: how to divide batches of independent jobs among heterogeneous resources — static
//! fractions (WW, OWA) against dynamic least-loaded allocation (DLL) and their hybrid, as
//! parameter sweeps of mean response time (docs/sf.md). The simulation and the sweep are
//! `crate::allocation`; this is the family's face to the edges.

use std::fmt::Write;

use serde_json::{Map, Value};

use super::{
    merged, CaseRun, Ctx, Family, FamilyError, FamilyInfo, FamilyReport, Opt, PresetArgs, RunSpec,
};
use crate::allocation::sweep::{
    run_sweep_within, sweep_preset, SweepPlan, SweepResult, SweepSpec, SWEEP_PRESETS,
};
use crate::limits::Limits;

/// Seeds per point when none is given (SF: 10 runs).
pub const DEFAULT_SEEDS: u64 = 10;
/// Batches per run when none is given (the first third warm-up).
pub const DEFAULT_BATCHES: u64 = 20_000;

/// The SF family.
pub struct Sf;

/// What the registry and the edges say of the family.
const INFO: FamilyInfo = FamilyInfo {
    id: "sf",
    title:
        "SF: static fractions vs dynamic allocation of batches of jobs on heterogeneous resources",
    doc: "docs/sf.md",
    default_seeds: DEFAULT_SEEDS,
    metrics: &[],
    label: "SF allocation",
    about: "SF: allocating a workload over heterogeneous resources (batches, OWA, DLL, hybrid)",
    intro: "How to split batches of jobs over resources of different speeds: the optimal static fractions for batch arrivals (OWA), fractions proportional to speed (WW), dynamic least load (DLL) and the hybrid adaptive scheduler. Each point runs every policy with the same seeds; the line is the median of the mean response times and the shaded band its order-statistic confidence band. Source: the SF paper (optimal workload allocation for batch arrivals on heterogeneous resources).",
    options: &[],
};

impl Family for Sf {
    fn info(&self) -> &'static FamilyInfo {
        &INFO
    }
    fn presets(&self) -> Vec<(&'static str, &'static str)> {
        SWEEP_PRESETS
            .iter()
            .map(|p| (p.name, p.description))
            .collect()
    }
    fn takes(&self, _preset: &str) -> Vec<Opt> {
        vec![
            Opt::Seeds,
            Opt::Batches,
            Opt::Vary,
            Opt::X,
            Opt::Rates,
            Opt::Lambda,
            Opt::Load,
            Opt::BatchSize,
            Opt::Cv,
            Opt::Policies,
            Opt::Dispatch,
            Opt::DllReport,
        ]
    }
    fn not_taken(&self, flag: &str, preset: &str) -> String {
        format!("{flag} does not apply to a sweep preset ({preset})")
    }

    /// The flags become changes to the preset's sweep (the result is then labelled
    /// "custom" when the sweep differs from every preset's).
    fn spec(&self, preset: &str, a: &PresetArgs) -> Result<RunSpec, FamilyError> {
        let mut sweep = Map::new();
        let mut put = |k: &str, v: Result<Value, serde_json::Error>| match v {
            Ok(v) => {
                sweep.insert(k.to_string(), v);
                Ok(())
            }
            Err(e) => Err(FamilyError::invalid(k, e.to_string())),
        };
        if let Some(v) = a.vary {
            put("vary", serde_json::to_value(v))?;
        }
        if let Some(r) = &a.rates {
            put("rates", serde_json::to_value(r))?;
        }
        match (a.lambda, a.load) {
            (Some(_), Some(_)) => {
                return Err(FamilyError::Usage {
                    message: "give --lambda or --load, not both".into(),
                })
            }
            (Some(l), None) => put("arrivals", Ok(serde_json::json!({ "lambda": l })))?,
            (None, Some(l)) => put("arrivals", Ok(serde_json::json!({ "load": l })))?,
            (None, None) => {}
        }
        if let Some(k) = a.batch_size {
            put("batch_size", Ok(Value::from(k)))?;
        }
        if let Some(cv) = a.cv {
            put("arrival_cv", Ok(Value::from(cv)))?;
        }
        if let Some(p) = &a.policies {
            put("policies", serde_json::to_value(p))?;
        }
        if let Some(d) = a.dispatch {
            put("dispatch", serde_json::to_value(d))?;
        }
        if let Some(r) = a.dll_report {
            put("dll_report_s", Ok(Value::from(r)))?;
        }
        Ok(RunSpec {
            preset: preset.to_string(),
            seeds: a.seeds,
            batches: a.batches,
            x: a.x.clone(),
            sweep,
            ..RunSpec::default()
        })
    }

    fn run(&self, spec: &RunSpec, ctx: &mut Ctx) -> Result<Box<dyn FamilyReport>, FamilyError> {
        let sweep = sweep_spec(spec)?;
        let r = run_sweep_within(
            &sweep,
            spec.seeds.unwrap_or(DEFAULT_SEEDS),
            spec.batches.unwrap_or(DEFAULT_BATCHES),
            ctx.threads,
            &ctx.limits,
            ctx.progress,
        )?;
        Ok(Box::new(r))
    }

    fn splits(&self, _preset: &str) -> bool {
        true
    }
    fn check_case(&self, spec: &RunSpec) -> Result<(), FamilyError> {
        plan(spec).map(|_| ())
    }
    /// Batches × points × policies (the mean batch size is not known before the systems
    /// are built).
    fn case_work(&self, spec: &RunSpec) -> f64 {
        let xs = spec.x.as_ref().map_or(1, Vec::len) as f64;
        let policies = plan(spec).map_or(2, |p| p.spec().policies.len()) as f64;
        let xs = plan(spec).map_or(xs, |p| p.spec().x.len() as f64);
        spec.batches.unwrap_or(DEFAULT_BATCHES) as f64 * xs * policies
    }
    fn run_case(
        &self,
        spec: &RunSpec,
        seed: u64,
        _load: &mut super::Load,
    ) -> Result<Vec<CaseRun>, FamilyError> {
        let plan = plan(spec)?;
        let sweep = plan.spec();
        let n_pol = sweep.policies.len() as u64;
        let mut out = Vec::new();
        for (xi, &x) in sweep.x.iter().enumerate() {
            for (pi, policy) in sweep.policies.iter().enumerate() {
                // Seed `seed` of (point xi, policy pi): what the whole sweep's task of that
                // number runs (seed index seed − 1, RNG seed `seed`).
                let k = (xi as u64 * n_pol + pi as u64) * seed + (seed - 1);
                let sample = plan.run_task(k)?;
                out.push(CaseRun {
                    label: super::text::case_label(policy.name(), x, sweep.x.len()),
                    algorithm: policy.name().to_string(),
                    metrics: super::text::numbers([("mean_response_s", sample.mean_response_s)]),
                });
            }
        }
        Ok(out)
    }
}

/// The preset's sweep with `spec`'s changes. `dll_report_s` is not in a serialized spec
/// whose Δ is 0, so it is set after the merge rather than refused as an unknown field.
fn sweep_spec(spec: &RunSpec) -> Result<SweepSpec, FamilyError> {
    let preset = sweep_preset(&spec.preset).ok_or_else(|| FamilyError::UnknownPreset {
        name: spec.preset.clone(),
    })?;
    let mut changes = spec.sweep.clone();
    let dll = changes.remove("dll_report_s");
    let mut sweep = merged(&(preset.spec)(), &changes, "the sweep")?;
    if let Some(v) = dll {
        sweep.dll_report_s = serde_json::from_value(v)
            .map_err(|e| FamilyError::invalid("dll_report_s", format!("the sweep: {e}")))?;
    }
    if let Some(x) = &spec.x {
        sweep.x = x.clone();
    }
    Ok(sweep)
}

/// The sweep's plan for seeds 1..=seed (task numbering is point, policy, seed).
fn plan(spec: &RunSpec) -> Result<SweepPlan, FamilyError> {
    Ok(SweepPlan::new(
        &sweep_spec(spec)?,
        spec.seed.unwrap_or(1),
        spec.batches.unwrap_or(DEFAULT_BATCHES),
        &Limits::default(),
    )?)
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

super::report!(SweepResult, table);

/// The sweep a spec runs (for the family's tests).
#[cfg(test)]
pub(super) fn sweep_spec_for_tests(spec: &RunSpec) -> Result<SweepSpec, FamilyError> {
    sweep_spec(spec)
}
