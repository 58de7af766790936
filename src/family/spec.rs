//! The one serializable request of a family run: a preset and what differs from its
//! defaults. Claim files, cluster manifests' `{"run": …}` bases (whose case ids hash its
//! canonical JSON) and the report card store it, so fields are only ever added, each
//! skipped when unset.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

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
pub fn merged<T: Serialize + serde::de::DeserializeOwned>(
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
        super::find(&self.preset).map_or_else(Vec::new, |f| f.traces(self))
    }
}

/// Reads a trace file by name (the CLI: from `--traces`; the page: a dropped file).
pub type Load<'a> = dyn FnMut(&str) -> Result<Vec<u8>, String> + 'a;
