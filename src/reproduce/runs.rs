//! The runs a report card reads its numbers from: a family preset with the few options a
//! claim file may set, run through the same library calls the CLI's `run --preset` makes,
//! and returned as the JSON report the CLI prints (so a claim's path can be tried on
//! `gridscope run --preset NAME --json` by hand).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::select;
use crate::allocation::sweep::{run_sweep_on, sweep_preset};
use crate::kkor::presets::{run_preset_with as run_kkor, KkorOptions};
use crate::limits::Limits;
use crate::scenario::manifest::{set_path, workload_files};
use crate::scenario::ses::{run_crossover, run_selection_with, CROSSOVER_SHARES, SES_DAYS};
use crate::scenario::{load_workload, run_loaded_on, Scenario};
use crate::scjg::presets::{run_preset as run_scjg, PresetOptions, DEFAULT_TRACE};
use crate::workload::{read_swf, SesPoisson, SwfOptions};

/// One run of a claim file: a preset and what differs from its defaults.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSpec {
    pub preset: String,
    /// Seeds of a family sweep (SF, KKOR, SCJG, SES); the preset's default when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seeds: Option<u64>,
    /// SF: batches per run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batches: Option<u64>,
    /// The swept x values (SF's axis, KKOR's loads, SCJG's metajob percentages, SES's shares).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<Vec<f64>>,
    /// KKOR: c_k per organization.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coefficients: Option<Vec<f64>>,
    /// KKOR: S, the jobs that close a batch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_jobs: Option<u32>,
    /// KKOR: L, the time that closes a batch (time units).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_length: Option<f64>,
    /// SOB scenario presets: receiver-initiated jobs wait in their home queue (`--hold-at-home`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hold_at_home: bool,
    /// SOB scenario presets: fields of every algorithm's `grid_params` replaced
    /// (`{"epsilon_s": 0}`, `{"latency_s": 30}`; `gridscope help schemes`).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub grid_params: Map<String, Value>,
    /// SOB scenario presets: fields set by path (`options.event_order`,
    /// `algorithms[*].grid_params.epsilon_s` — `[*]` is every element).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub set: BTreeMap<String, Value>,
    /// SF: fields of the sweep's spec replaced (`{"dispatch": "rounded"}`,
    /// `{"arrivals": {"load": 0.1}}`).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub sweep: Map<String, Value>,
    /// SCJG: fields of the preset's options replaced (`{"policy": "conservative"}`).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub scjg: Map<String, Value>,
    /// SES: the factor on SES's arrival rate (`--load`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_factor: Option<f64>,
    /// SES `ses-selection`: one FCFS queue for the whole site (the page's option).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub site_queue: bool,
    /// One seed of the sweep alone (1-based, as the family numbers its seeds): a case of a
    /// cluster sweep manifest (`reproduce::case`, docs/cluster.md); `seeds` is then unused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

/// `base` with the fields of `changes` replaced, read back as `T`; the error names the field.
pub(crate) fn merged<T: Serialize + serde::de::DeserializeOwned>(
    base: &T,
    changes: &Map<String, Value>,
    what: &str,
) -> Result<T, String> {
    let mut v = serde_json::to_value(base).map_err(|e| format!("{what}: {e}"))?;
    if let Value::Object(map) = &mut v {
        for (k, x) in changes {
            if !map.contains_key(k) {
                return Err(format!("{what} has no field '{k}'"));
            }
            map.insert(k.clone(), x.clone());
        }
    }
    serde_json::from_value(v).map_err(|e| format!("{what}: {e}"))
}

/// The scenario preset with `set`'s fields replaced (`[*]`: every element of that list).
fn scenario_with(
    mut scenario: Scenario,
    set: &BTreeMap<String, Value>,
) -> Result<Scenario, String> {
    if set.is_empty() {
        return Ok(scenario);
    }
    let mut v = serde_json::to_value(&scenario).map_err(|e| e.to_string())?;
    for (path, x) in set {
        let paths: Vec<String> = match path.split_once("[*]") {
            Some((list, rest)) => {
                let n = select::select(&v, list)?.as_array().map_or(0, Vec::len);
                (0..n).map(|i| format!("{list}[{i}]{rest}")).collect()
            }
            None => vec![path.clone()],
        };
        for p in paths {
            set_path(&mut v, &p, x.clone())?;
        }
    }
    scenario = serde_json::from_value(v).map_err(|e| format!("set: {e}"))?;
    Ok(scenario)
}

impl RunSpec {
    /// The CLI command that gives the same report, for the card's "re-run it" column.
    pub fn command(&self) -> String {
        let mut c = format!("gridscope run --preset {}", self.preset);
        let list = |v: &[f64]| {
            v.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(",")
        };
        if let Some(s) = self.seeds {
            c += &format!(" --seeds {s}");
        }
        if let Some(b) = self.batches {
            c += &format!(" --batches {b}");
        }
        if let Some(x) = &self.x {
            c += &format!(" --x {}", list(x));
        }
        if let Some(k) = &self.coefficients {
            c += &format!(" --coefficients {}", list(k));
        }
        if let Some(s) = self.batch_jobs {
            c += &format!(" --batch-jobs {s}");
        }
        if let Some(l) = self.batch_length {
            c += &format!(" --batch-length {l}");
        }
        if self.hold_at_home {
            c += " --hold-at-home";
        }
        if let Some(l) = self.load_factor {
            c += &format!(" --load {l}");
        }
        c += " --json";
        // What has no flag of its own is said beside the command.
        let mut extra: Vec<String> = Vec::new();
        extra.extend(
            self.grid_params
                .iter()
                .map(|(k, v)| format!("grid_params.{k} = {v}")),
        );
        extra.extend(self.set.iter().map(|(k, v)| format!("{k} = {v}")));
        extra.extend(self.sweep.iter().map(|(k, v)| format!("{k} = {v}")));
        extra.extend(self.scjg.iter().map(|(k, v)| format!("{k} = {v}")));
        if !extra.is_empty() {
            c += &format!(" (with {})", extra.join(", "));
        }
        c
    }

    /// The trace files the run reads (by name), before it runs: the page says which to drop.
    pub fn traces(&self) -> Vec<String> {
        if self.preset.starts_with("scjg-") {
            return vec![DEFAULT_TRACE.to_string()];
        }
        Scenario::preset(&self.preset)
            .map(|s| workload_files(&s))
            .unwrap_or_default()
    }
}

/// Reads a trace file by name (the CLI: from `--traces`; the page: a dropped file).
pub type Load<'a> = dyn FnMut(&str) -> Result<Vec<u8>, String> + 'a;

/// Runs `spec` and returns its JSON report. `progress(done, total)` may return false to cancel.
pub fn run(
    spec: &RunSpec,
    threads: usize,
    load: &mut Load,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<Value, String> {
    let p = spec.preset.as_str();
    if spec.seed.is_some() {
        return Err(format!(
            "{p}: `seed` runs one seed of a sweep: a case of a cluster sweep (`gridscope sweep`), not a whole run"
        ));
    }
    let value = if let Some(preset) = sweep_preset(p) {
        let mut sweep = merged(&(preset.spec)(), &spec.sweep, "the sweep")?;
        if let Some(x) = &spec.x {
            sweep.x = x.clone();
        }
        let r = run_sweep_on(
            &sweep,
            spec.seeds.unwrap_or(10),
            spec.batches.unwrap_or(20_000),
            threads,
            progress,
        )?;
        serde_json::to_value(r)
    } else if p.starts_with("kkor-") && p != "kkor-real" {
        let options = KkorOptions {
            loads: spec.x.clone().unwrap_or_default(),
            coefficients: spec.coefficients.clone().unwrap_or_default(),
            batch_jobs: spec.batch_jobs,
            batch_length: spec.batch_length,
        };
        serde_json::to_value(run_kkor(p, spec.seeds.unwrap_or(0), &options, progress)?)
    } else if p.starts_with("scjg-") {
        let bytes = load(DEFAULT_TRACE)?;
        let trace =
            read_swf(DEFAULT_TRACE, &bytes, &SwfOptions::default()).map_err(|e| e.to_string())?;
        let mut options = merged(&PresetOptions::default(), &spec.scjg, "the SCJG options")?;
        options.seeds = spec.seeds.unwrap_or(0);
        if let Some(x) = &spec.x {
            options.percents = x.clone();
        }
        serde_json::to_value(run_scjg(p, &trace.jobs, &options, threads, progress)?)
    } else if p.starts_with("ses-") {
        let gen = SesPoisson {
            load_factor: spec.load_factor.unwrap_or(1.0),
            ..SesPoisson::default()
        };
        gen.validate()?;
        let seeds = spec.seeds.unwrap_or(10);
        let r = match p {
            "ses-selection" => run_selection_with(&gen, SES_DAYS, seeds, spec.site_queue, progress)
                .map(serde_json::to_value),
            "ses-restriction-crossover" => {
                let shares = spec.x.clone().unwrap_or(CROSSOVER_SHARES.to_vec());
                run_crossover(&gen, &shares, SES_DAYS, seeds, progress).map(serde_json::to_value)
            }
            _ => {
                return Err(format!(
                    "unknown preset '{p}' (see `gridscope help presets`)"
                ))
            }
        };
        r.map_err(|e| e.to_string())?
    } else if let Some(scenario) = Scenario::preset(p) {
        let mut scenario = scenario_with(scenario, &spec.set)?;
        for alg in &mut scenario.algorithms {
            alg.grid_params = merged(&alg.grid_params, &spec.grid_params, "grid_params")?;
        }
        if spec.hold_at_home {
            for alg in &mut scenario.algorithms {
                alg.grid_params.hold_at_home = true;
            }
        }
        let limits = Limits::default();
        let workload = load_workload(&scenario, &limits, load).map_err(|e| e.to_string())?;
        let mut each = |_run: usize, done: u64, total: u64| progress(done, total);
        let report = run_loaded_on(&scenario, workload, threads, &limits, &mut each)
            .map_err(|e| e.to_string())?;
        serde_json::to_value(report)
    } else {
        return Err(format!(
            "unknown preset '{p}' (see `gridscope help presets`)"
        ));
    };
    value.map_err(|e| format!("{p}: report not serializable: {e}"))
}
