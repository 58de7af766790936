//! SOB: grid scheduling schemes (local, central, sender- and receiver-initiated, symmetric,
//! the idealized grid) over local schedulers on several sites — the scenario presets
//! (`sob-*`, and the `demo`), run by the scenario runner (docs/sob.md). Unlike the other
//! families a run is one scenario, not a seed sweep: the CLI runs these presets with its
//! scenario flags (`--series`, `--jobs`, …); the report card changes them through
//! [`RunSpec`]'s `set`, `grid_params` and `hold_at_home`.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{merged, Ctx, Family, FamilyError, FamilyInfo, FamilyReport, Opt, PresetArgs, RunSpec};
use crate::json_path;
use crate::scenario::manifest::{set_path, workload_files};
use crate::scenario::{load_workload, run_loaded_on, Report, Scenario, SCENARIO_PRESETS};

/// The SOB family: the scenario presets.
pub struct Sob;

/// What the registry and the edges say of the family.
const INFO: FamilyInfo = FamilyInfo {
    id: "sob",
    title: "SOB: grid schemes over local schedulers on several sites",
    doc: "docs/sob.md",
    default_seeds: 1,
    metrics: &[],
    label: "SOB grid schemes",
    about: "SOB: grid schemes (local, central, sender- and receiver-initiated, symmetric, idealized) over local schedulers on several sites",
    intro: "Jobs of several sites, each with its own local scheduler (FCFS, EASY, conservative, …), and a grid scheme above them that sends each arriving job to a site: local, central, sender- or receiver-initiated, symmetric, or the idealized grid. Source: the SOB paper on grid scheduling over local schedulers (docs/sob.md).",
    options: &[],
};

impl Family for Sob {
    fn info(&self) -> &'static FamilyInfo {
        &INFO
    }
    fn presets(&self) -> Vec<(&'static str, &'static str)> {
        SCENARIO_PRESETS.to_vec()
    }
    fn takes(&self, _preset: &str) -> Vec<Opt> {
        vec![Opt::Traces]
    }
    fn not_taken(&self, flag: &str, _preset: &str) -> String {
        format!("{flag} applies only to the sweep presets (sf-*)")
    }
    fn spec(&self, preset: &str, _a: &PresetArgs) -> Result<RunSpec, FamilyError> {
        Ok(RunSpec {
            preset: preset.to_string(),
            ..RunSpec::default()
        })
    }
    fn scenario_presets(&self) -> bool {
        true
    }

    fn run(&self, spec: &RunSpec, ctx: &mut Ctx) -> Result<Box<dyn FamilyReport>, FamilyError> {
        let scenario = scenario(spec)?;
        let workload = load_workload(&scenario, &ctx.limits, ctx.load)?;
        let progress = &mut *ctx.progress;
        let mut each = |_run: usize, done: u64, total: u64| progress(done, total);
        let report = run_loaded_on(&scenario, workload, ctx.threads, &ctx.limits, &mut each)?;
        Ok(Box::new(report))
    }

    fn traces(&self, spec: &RunSpec) -> Vec<String> {
        Scenario::preset(&spec.preset)
            .map(|s| workload_files(&s))
            .unwrap_or_default()
    }
}

/// The preset with the spec's changes: `set`'s paths, `grid_params`' fields and
/// `hold_at_home` on every algorithm.
fn scenario(spec: &RunSpec) -> Result<Scenario, FamilyError> {
    let scenario = Scenario::preset(&spec.preset).ok_or_else(|| FamilyError::UnknownPreset {
        name: spec.preset.clone(),
    })?;
    let mut scenario = scenario_with(scenario, &spec.set)?;
    for alg in &mut scenario.algorithms {
        alg.grid_params = merged(&alg.grid_params, &spec.grid_params, "grid_params")?;
    }
    if spec.hold_at_home {
        for alg in &mut scenario.algorithms {
            alg.grid_params.hold_at_home = true;
        }
    }
    Ok(scenario)
}

/// The scenario with `set`'s fields replaced (`[*]`: every element of that list).
fn scenario_with(
    scenario: Scenario,
    set: &BTreeMap<String, Value>,
) -> Result<Scenario, FamilyError> {
    if set.is_empty() {
        return Ok(scenario);
    }
    let mut v = serde_json::to_value(&scenario).map_err(|e| FamilyError::Run(e.to_string()))?;
    for (path, x) in set {
        let paths: Vec<String> = match path.split_once("[*]") {
            Some((list, rest)) => {
                let n = json_path::get(&v, list)
                    .map_err(|e| FamilyError::invalid(path, e))?
                    .as_array()
                    .map_or(0, Vec::len);
                (0..n).map(|i| format!("{list}[{i}]{rest}")).collect()
            }
            None => vec![path.clone()],
        };
        for p in paths {
            set_path(&mut v, &p, x.clone()).map_err(|e| FamilyError::invalid(&p, e))?;
        }
    }
    serde_json::from_value(v).map_err(|e| FamilyError::invalid("set", format!("set: {e}")))
}

fn table(r: &Report) -> String {
    format!("{}\n", super::to_json(r))
}

super::report!(Report, table);
