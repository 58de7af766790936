//! Family sweeps as cluster cases (issue #26, docs/cluster.md): a sweep manifest whose base is
//! a family preset run (`{"run": RunSpec}`) expands into one case per (x, seed) point, each a
//! `RunSpec` with `seed` set and one x value. A case runs that one seed of that one point,
//! through the same per-seed functions the family's own sweep takes its samples from, so the
//! merge's median over seeds is the family's median to the last bit.
//!
//! The manifest layer (`scenario::manifest`, below this one) expands the base as plain JSON;
//! the run spec and the families' runners live here, above every family.

use serde_json::Value;

use super::runs::{Load, RunSpec};
pub use crate::family::CaseRun;
use crate::family::{find, Family};
use crate::scenario::manifest::{
    blame_case, expand_values, AxisInfo, Manifest, ManifestError, ValueCase,
};

/// The presets a family manifest may name, for messages.
pub const SPLITTABLE: &str =
    "sf-*, kkor-load, ses-selection, scjg-fraction, scjg-ar-vs-lockdown, scjg-sites";

/// The family of a preset whose sweep splits into seeds, or why it cannot be split.
pub fn family(preset: &str) -> Result<&'static dyn Family, String> {
    match find(preset) {
        Some(f) if f.splits(preset) => Ok(f),
        Some(_) => Err(format!(
            "'{preset}' has no seed sweep a manifest can split into cases (these do: {SPLITTABLE}; a scenario preset is a scenario manifest's base.preset)"
        )),
        None => Err(format!(
            "'{preset}' is not a preset (`gridscope help presets`; a family manifest runs {SPLITTABLE})"
        )),
    }
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
    fam.check_case(spec).map_err(|e| e.to_string())
}

/// The trace files a case reads, by name (SCJG's presets: the default trace).
pub fn traces(spec: &RunSpec) -> Vec<String> {
    family(&spec.preset).map_or_else(|_| Vec::new(), |f| f.traces(spec))
}

/// About the jobs × runs a case simulates (how shards are balanced; plan's estimate).
pub fn work(spec: &RunSpec) -> f64 {
    family(&spec.preset).map_or(1.0, |f| f.case_work(spec))
}

/// Runs a case's one seed. `load(name)` reads a trace (SCJG).
pub fn run_case(spec: &RunSpec, load: &mut Load) -> Result<Vec<CaseRun>, String> {
    check(spec)?;
    let seed = spec.seed.unwrap_or(1);
    family(&spec.preset)?
        .run_case(spec, seed, load)
        .map_err(|e| e.to_string())
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
