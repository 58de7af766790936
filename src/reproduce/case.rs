//! Family sweeps as cluster cases (issue #26, docs/cluster.md): a sweep manifest whose base is
//! a family preset run (`{"run": RunSpec}`) expands into one case per (x, seed) point, each a
//! `RunSpec` with `seed` set and one x value. A case runs that one seed of that one point,
//! through the same per-seed functions the family's own sweep takes its samples from, so the
//! merge's median over seeds is the family's median to the last bit.
//!
//! The manifest layer (`scenario::manifest`, below this one) expands the base as plain JSON;
//! the run spec and the families' runners live here, above every family.

use serde_json::{Map, Value};

use super::runs::{merged, Load, RunSpec};
use crate::allocation::sweep::{sweep_preset, SweepPlan};
use crate::kkor::presets::{
    load_point_seed, KkorOptions, KKOR_PRESETS, LOAD_POINTS, SWEEP_METRICS,
};
use crate::kkor::{paper_clusters, KkorPolicy};
use crate::limits::Limits;
use crate::scenario::manifest::{
    blame_case, expand_values, AxisInfo, Manifest, ManifestError, ValueCase,
};
use crate::scenario::ses::{selection_seed, SES_DAYS, SES_PRESETS};
use crate::scjg::presets::{sweep_point_seed, PresetOptions, DEFAULT_TRACE, SCJG_PRESETS};
use crate::workload::{read_swf, SesPoisson, SwfOptions};

/// The family sweeps a manifest can split into single seeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Every `sf-*` preset: per x, per policy, `mean_response_s`.
    Sf,
    /// `kkor-load`: per load, per policy, KKOR's sweep metrics.
    KkorLoad,
    /// `ses-selection`: per variant, the overall and per-group figures (no x).
    SesSelection,
    /// `scjg-fraction`, `scjg-ar-vs-lockdown`, `scjg-sites`: per x, per scheme.
    ScjgSweep,
}

/// The presets a family manifest may name, for messages.
pub const SPLITTABLE: &str =
    "sf-*, kkor-load, ses-selection, scjg-fraction, scjg-ar-vs-lockdown, scjg-sites";

/// The family of a preset, or why it cannot be split into seeds.
pub fn family(preset: &str) -> Result<Family, String> {
    match preset {
        p if sweep_preset(p).is_some() => Ok(Family::Sf),
        "kkor-load" => Ok(Family::KkorLoad),
        "ses-selection" => Ok(Family::SesSelection),
        "scjg-fraction" | "scjg-ar-vs-lockdown" | "scjg-sites" => Ok(Family::ScjgSweep),
        p if [KKOR_PRESETS, SES_PRESETS, SCJG_PRESETS]
            .iter()
            .any(|list| list.iter().any(|(name, _)| *name == p))
            || crate::scenario::Scenario::preset(p).is_some() =>
        {
            Err(format!(
                "'{p}' has no seed sweep a manifest can split into cases (these do: {SPLITTABLE}; a scenario preset is a scenario manifest's base.preset)"
            ))
        }
        p => Err(format!(
            "'{p}' is not a preset (`gridscope help presets`; a family manifest runs {SPLITTABLE})"
        )),
    }
}

/// What one case gives, per line of the family's chart (a policy, a scheme, a variant; with
/// its x when the case holds more than one): the metrics by name.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseRun {
    pub label: String,
    pub algorithm: String,
    pub metrics: Map<String, Value>,
}

/// One case of a family manifest.
#[derive(Clone, Debug)]
pub struct FamilyCase {
    pub index: usize,
    pub point: Vec<String>,
    pub spec: RunSpec,
    /// The spec's canonical JSON (compact, field order fixed by the type): what its id hashes.
    pub canonical: String,
}

/// A family manifest expanded.
#[derive(Clone, Debug)]
pub struct FamilyExpansion {
    pub axes: Vec<AxisInfo>,
    pub seed_axis: Option<usize>,
    pub cases: Vec<FamilyCase>,
}

fn merr(field: &str, message: String, near: Option<&str>) -> ManifestError {
    ManifestError {
        field: field.into(),
        message,
        near: near.map(str::to_string),
    }
}

/// Expands a manifest with a `{"run": …}` base: the base must read as a run spec of a
/// preset that splits ([`family`]); each case is checked ([`check`]), an error naming the
/// axis whose value breaks it.
pub fn expand(
    m: &Manifest,
    max_cases: usize,
    glob: &mut dyn FnMut(&str) -> Result<Vec<String>, String>,
) -> Result<FamilyExpansion, ManifestError> {
    let Some(base) = m.family_run() else {
        return Err(merr("base", "not a family run (base.run)".into(), None));
    };
    let spec: RunSpec = serde_json::from_value(base.clone())
        .map_err(|e| merr("base.run", format!("not a family run: {e}"), None))?;
    family(&spec.preset).map_err(|e| merr("base.run.preset", e, Some(&spec.preset)))?;
    let values = expand_values(m, base, max_cases, glob)?;
    let read = |j: &Value| -> Result<RunSpec, String> {
        let spec: RunSpec = serde_json::from_value(j.clone()).map_err(|e| e.to_string())?;
        check(&spec)?;
        Ok(spec)
    };
    let mut cases = Vec::with_capacity(values.cases.len());
    for c in values.cases {
        let ValueCase {
            index, point, json, ..
        } = &c;
        let spec = read(json).map_err(|e| {
            blame_case(
                m,
                &values.names,
                base,
                &c,
                &|j| read(j).map(|_| ()),
                "family run",
                &e,
            )
        })?;
        let canonical =
            serde_json::to_string(&spec).map_err(|e| merr("axes", e.to_string(), None))?;
        cases.push(FamilyCase {
            index: *index,
            point: point.clone(),
            spec,
            canonical,
        });
    }
    Ok(FamilyExpansion {
        axes: values.axes,
        seed_axis: values.seed_axis,
        cases,
    })
}

/// A case's spec is runnable: a preset that splits, one seed in 1..=1000, the family's own
/// checks of its options (without running anything).
pub fn check(spec: &RunSpec) -> Result<(), String> {
    let fam = family(&spec.preset)?;
    let seed = spec
        .seed
        .ok_or("no `seed`: each case runs one seed (give it in the base or as an axis)")?;
    if !(1..=1000).contains(&seed) {
        return Err(format!("seed must be 1..1000 (got {seed})"));
    }
    if spec.x.as_ref().is_some_and(Vec::is_empty) {
        return Err("x is empty".into());
    }
    match fam {
        Family::Sf => sf_plan(spec).map(|_| ()),
        Family::KkorLoad => kkor_options(spec)
            .params(paper_clusters().len())
            .map(|_| ()),
        Family::SesSelection => ses_generator(spec).map(|_| ()),
        Family::ScjgSweep => {
            merged(&PresetOptions::default(), &spec.scjg, "the SCJG options").map(|_| ())
        }
    }
}

/// The trace files a case reads, by name (SCJG's presets: the default trace).
pub fn traces(spec: &RunSpec) -> Vec<String> {
    match family(&spec.preset) {
        Ok(Family::ScjgSweep) => vec![DEFAULT_TRACE.to_string()],
        _ => Vec::new(),
    }
}

/// About the jobs × runs a case simulates (how shards are balanced; plan's estimate): SF
/// batches × mean batch size is not known before the systems are built, so batches; KKOR
/// 500 jobs; SES ≈ 10,000 jobs a week; SCJG ≈ 2,000 jobs a window — each × runs.
pub fn work(spec: &RunSpec) -> f64 {
    let xs = spec.x.as_ref().map_or(1, Vec::len) as f64;
    match family(&spec.preset) {
        Ok(Family::Sf) => {
            let policies = sf_plan(spec).map_or(2, |p| p.spec().policies.len()) as f64;
            let xs = sf_plan(spec).map_or(xs, |p| p.spec().x.len() as f64);
            spec.batches.unwrap_or(20_000) as f64 * xs * policies
        }
        Ok(Family::KkorLoad) => {
            500.0 * 3.0 * spec.x.as_ref().map_or(LOAD_POINTS.len(), Vec::len) as f64
        }
        Ok(Family::SesSelection) => 10_000.0 * 4.0,
        Ok(Family::ScjgSweep) => 2_000.0 * 2.0 * xs,
        Err(_) => 1.0,
    }
}

/// Runs a case's one seed. `load(name)` reads a trace (SCJG).
pub fn run_case(spec: &RunSpec, load: &mut Load) -> Result<Vec<CaseRun>, String> {
    check(spec)?;
    let seed = spec.seed.unwrap_or(1);
    match family(&spec.preset)? {
        Family::Sf => run_sf(spec, seed),
        Family::KkorLoad => run_kkor(spec, seed),
        Family::SesSelection => run_ses(spec, seed),
        Family::ScjgSweep => run_scjg(spec, seed, load),
    }
}

/// A line's label: the policy alone when the case holds one x, else with its x.
fn label(name: &str, x: f64, xs: usize) -> String {
    if xs == 1 {
        name.to_string()
    } else {
        format!("{name} x={x}")
    }
}

fn numbers<'a>(pairs: impl IntoIterator<Item = (&'a str, f64)>) -> Map<String, Value> {
    pairs
        .into_iter()
        .map(|(k, v)| (k.to_string(), Value::from(v)))
        .collect()
}

/// The SF sweep's plan for seeds 1..=seed (task numbering is point, policy, seed).
fn sf_plan(spec: &RunSpec) -> Result<SweepPlan, String> {
    let preset = sweep_preset(&spec.preset).ok_or("not an SF preset")?;
    let mut sweep = merged(&(preset.spec)(), &spec.sweep, "the sweep")?;
    if let Some(x) = &spec.x {
        sweep.x = x.clone();
    }
    SweepPlan::new(
        &sweep,
        spec.seed.unwrap_or(1),
        spec.batches.unwrap_or(20_000),
        &Limits::default(),
    )
}

fn run_sf(spec: &RunSpec, seed: u64) -> Result<Vec<CaseRun>, String> {
    let plan = sf_plan(spec)?;
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
                label: label(policy.name(), x, sweep.x.len()),
                algorithm: policy.name().to_string(),
                metrics: numbers([("mean_response_s", sample.mean_response_s)]),
            });
        }
    }
    Ok(out)
}

fn kkor_options(spec: &RunSpec) -> KkorOptions {
    KkorOptions {
        loads: Vec::new(),
        coefficients: spec.coefficients.clone().unwrap_or_default(),
        batch_jobs: spec.batch_jobs,
        batch_length: spec.batch_length,
    }
}

fn run_kkor(spec: &RunSpec, seed: u64) -> Result<Vec<CaseRun>, String> {
    let clusters = paper_clusters();
    let params = kkor_options(spec).params(clusters.len())?;
    let loads = spec.x.clone().unwrap_or(LOAD_POINTS.to_vec());
    let mut out = Vec::new();
    for &load in &loads {
        // 500 jobs a run: `kkor-load`'s own (run_preset_with).
        let per_policy = load_point_seed(&clusters, load, &params, 500, seed, &mut || true)?;
        for (policy, values) in KkorPolicy::ALL.iter().zip(per_policy) {
            out.push(CaseRun {
                label: label(policy.name(), load, loads.len()),
                algorithm: policy.name().to_string(),
                metrics: numbers(SWEEP_METRICS.iter().map(|(n, _)| *n).zip(values)),
            });
        }
    }
    Ok(out)
}

fn ses_generator(spec: &RunSpec) -> Result<SesPoisson, String> {
    let gen = SesPoisson {
        load_factor: spec.load_factor.unwrap_or(1.0),
        ..SesPoisson::default()
    };
    gen.validate()?;
    Ok(gen)
}

fn run_ses(spec: &RunSpec, seed: u64) -> Result<Vec<CaseRun>, String> {
    let gen = ses_generator(spec)?;
    let report =
        selection_seed(&gen, SES_DAYS, seed, spec.site_queue).map_err(|e| e.to_string())?;
    Ok(report
        .runs
        .iter()
        .map(|run| {
            let m = &run.metrics;
            // The figures `ses-selection` takes medians of: overall, then per group.
            let mut metrics = numbers([
                ("avg_response_s", m.avg_response_s),
                ("avg_wait_s", m.avg_wait_s),
                ("utilization", m.utilization),
            ]);
            for s in &m.sites {
                let key = |what: &str| format!("{}.{what}", s.name);
                metrics.insert(key("utilization"), Value::from(s.utilization));
                metrics.insert(key("avg_queue_delay_s"), Value::from(s.avg_wait_s));
                metrics.insert(key("jobs"), Value::from(s.jobs as f64));
            }
            CaseRun {
                label: run.label.clone(),
                algorithm: run.algorithm.clone(),
                metrics,
            }
        })
        .collect())
}

fn run_scjg(spec: &RunSpec, seed: u64, load: &mut Load) -> Result<Vec<CaseRun>, String> {
    let bytes = load(DEFAULT_TRACE)?;
    let trace =
        read_swf(DEFAULT_TRACE, &bytes, &SwfOptions::default()).map_err(|e| e.to_string())?;
    let mut options = merged(&PresetOptions::default(), &spec.scjg, "the SCJG options")?;
    if let Some(x) = &spec.x {
        options.percents = x.clone();
    }
    let xs = match (&spec.x, spec.preset.as_str()) {
        (Some(x), _) => x.clone(),
        (None, "scjg-sites") => vec![1.0, 2.0, 3.0, 4.0],
        (None, _) => options.percents.clone(),
    };
    let mut out = Vec::new();
    for &x in &xs {
        for (scheme, values) in sweep_point_seed(&spec.preset, &trace.jobs, &options, x, seed)? {
            out.push(CaseRun {
                label: label(&scheme, x, xs.len()),
                algorithm: scheme.clone(),
                metrics: numbers(values.iter().map(|(n, v)| (n.as_str(), *v))),
            });
        }
    }
    Ok(out)
}

/// The manifest that re-runs a family sweep as cluster cases (the page's "Export for a
/// cluster" of a family view): `spec` as the base (with the first x and seed 1), an axis
/// `x` over `xs` (path `x[0]`) when the sweep has an x, and an axis `seed` over 1..=seeds.
pub fn manifest(name: &str, mut spec: RunSpec, xs: Option<Vec<f64>>, seeds: u64) -> Manifest {
    use crate::scenario::manifest::{Axis, Base, Range};
    spec.seeds = None;
    spec.seed = Some(1);
    let mut axes = Vec::new();
    if let Some(xs) = xs.filter(|x| !x.is_empty()) {
        spec.x = Some(vec![xs[0]]);
        axes.push(Axis {
            name: Some("x".into()),
            path: "x[0]".into(),
            // Whole numbers as integers: the merged table's x column reads "4", not "4.0".
            values: Some(
                xs.into_iter()
                    .map(|x| {
                        if x.fract() == 0.0 && x.abs() < 9.0e15 {
                            Value::from(x as i64)
                        } else {
                            Value::from(x)
                        }
                    })
                    .collect(),
            ),
            range: None,
            glob: None,
        });
    }
    axes.push(Axis {
        name: None,
        path: "seed".into(),
        values: None,
        range: Some(Range {
            from: 1.0,
            to: seeds.max(1) as f64,
            step: 1.0,
        }),
        glob: None,
    });
    let traces = traces(&spec);
    Manifest {
        name: name.to_string(),
        base: Base::Run(serde_json::to_value(&spec).unwrap_or(Value::Null)),
        // SCJG reads its trace from a folder beside the manifest.
        traces: (!traces.is_empty()).then(|| "traces".to_string()),
        axes,
        zip: Vec::new(),
        seed_axis: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exported_sweep_expands_to_its_points_and_seeds() {
        let spec = RunSpec {
            preset: "sf-heterogeneity".into(),
            batches: Some(500),
            ..RunSpec::default()
        };
        let m = manifest("sf", spec, Some(vec![1.0, 4.0]), 3);
        let text = serde_json::to_string_pretty(&m).unwrap_or_default();
        let back = Manifest::from_json(&text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back, m);
        let e = expand(&m, 100, &mut |_| Err("no glob".into())).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(e.cases.len(), 6);
        assert_eq!(e.seed_axis, Some(1));
        assert_eq!(e.cases[5].point, ["4", "3"]);
        assert_eq!(e.cases[5].spec.x, Some(vec![4.0]));
        assert_eq!(e.cases[5].spec.seed, Some(3));
        // A case's run is the sweep's own sample: seed 2 of x = 1 alone.
        let runs = run_case(&e.cases[1].spec, &mut |_| Err("no file".into()))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(runs.len(), 3);
        assert_eq!(runs[0].label, "ww");
    }
}
