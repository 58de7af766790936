//! Sweep manifests for cluster runs (`gridscope sweep`, docs/cluster.md): a base scenario and
//! axes over any of its fields by path, expanded into cases — one scenario each — in a fixed
//! order. No I/O here: the edge reads the base scenario's file and lists a glob's files
//! through callbacks, so the page could build and expand the same manifest.
//!
//! ```json
//! { "name": "policies x traces",
//!   "base": { "file": "base.json" },            // or {"preset": "demo"}, {"link": "#s1=…"}, {"scenario": {…}},
//!                                               // or {"run": {"preset": "sf-heterogeneity", …}} (a family run)
//!   "traces": "../shared/traces",               // where a preset's or a link's file names are
//!   "axes": [
//!     { "name": "policy", "path": "algorithms[0].local", "values": ["fcfs", "easy"] },
//!     { "name": "trace",  "path": "workload.file", "glob": "../shared/traces/lublin*.swf.gz" },
//!     { "path": "seed", "range": { "from": 1, "to": 10 } } ],
//!   "zip": [["policy", "other"]],                // optional: axes advanced together
//!   "seed_axis": "seed" }                        // optional: the axis medians are taken over
//! ```
//!
//! This file holds the manifest's schema, its error and the reading of an axis's path;
//! `base.rs` resolves the base scenario, `expand.rs` expands the axes into cases, `link.rs`
//! is the page's side (share links, the overview of a manifest without files).

mod base;
mod expand;
mod link;

pub use base::{base_scenario, workload_files};
pub use expand::{blame_case, expand, expand_values, value_text, ValueCase, ValueExpansion};
pub use link::{for_scenario, from_link_fragment, overview, to_link, Overview, LINK_PREFIX};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Scenario;
use crate::json_path::{self, Step};

/// A sweep manifest as written (see the module docs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    #[serde(default)]
    pub name: String,
    pub base: Base,
    /// The folder (relative to the manifest) where a preset's or a link's trace names are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traces: Option<String>,
    pub axes: Vec<Axis>,
    /// Groups of axis names whose values are paired (equal lengths) instead of crossed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub zip: Vec<Vec<String>>,
    /// The axis the merge takes medians over [default: the axis of path `seed`, if any].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed_axis: Option<String>,
}

/// Where the base scenario comes from (exactly one key).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Base {
    /// A scenario file, relative to the manifest; its own workload files are relative to it.
    File(String),
    /// A scenario preset (`gridscope help presets`).
    Preset(String),
    /// A page's share link (`…#s1=…` or just `s1=…`).
    Link(String),
    /// The scenario itself, inline.
    Scenario(Box<Scenario>),
    /// A family preset run (SF, KKOR, SES, SCJG): the report card's run spec
    /// (`reproduce::runs::RunSpec`: `preset`, `seeds`, `x`, `seed`, …) as JSON. The axes set
    /// its fields by path (`seed`, `x[0]`), so each case is one (x, seed) point of the
    /// family's sweep; this layer expands it as plain JSON (the run spec lives above it).
    Run(Value),
}

/// One axis: a scenario field by path and its values (exactly one of `values`, `range`,
/// `glob`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Axis {
    /// The column name in merged tables [default: the path].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `seed`, `options.event_order`, `platform.sites[0].cpus_per_node`, `workload.file`, …
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<Range>,
    /// Files matching a pattern (`*` and `?` in the last component), relative to the
    /// manifest, in name order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub glob: Option<String>,
}

/// `from`, `from + step`, … up to `to` inclusive.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Range {
    pub from: f64,
    pub to: f64,
    #[serde(default = "one")]
    pub step: f64,
}

fn one() -> f64 {
    1.0
}

/// A manifest error: the manifest field it is about (`axes[1].path`) and what is wrong;
/// `near` is text to find its line by.
#[derive(Debug, Clone, PartialEq)]
pub struct ManifestError {
    pub field: String,
    pub message: String,
    pub near: Option<String>,
}

impl std::fmt::Display for ManifestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.field.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.field, self.message)
        }
    }
}

impl std::error::Error for ManifestError {}

fn err(field: impl Into<String>, message: impl Into<String>) -> ManifestError {
    ManifestError {
        field: field.into(),
        message: message.into(),
        near: None,
    }
}

impl ManifestError {
    fn near(mut self, text: &str) -> ManifestError {
        self.near = Some(text.to_string());
        self
    }

    /// The 1-based line of the manifest text this error is about, when it can be found.
    pub fn line(&self, text: &str) -> Option<usize> {
        let near = self.near.as_deref()?;
        let quoted = format!("\"{near}\"");
        text.lines()
            .position(|l| l.contains(&quoted))
            .map(|i| i + 1)
    }
}

/// The expanded sweep: its axes and its cases in manifest order (first axis outermost).
#[derive(Clone, Debug)]
pub struct Expansion {
    pub axes: Vec<AxisInfo>,
    /// Index into `axes` of the axis medians are taken over.
    pub seed_axis: Option<usize>,
    pub cases: Vec<Case>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AxisInfo {
    pub name: String,
    pub path: String,
    pub values: usize,
}

/// One case: its place in the sweep, each axis's value as text, and its scenario.
#[derive(Clone, Debug)]
pub struct Case {
    pub index: usize,
    pub point: Vec<String>,
    pub scenario: Scenario,
    /// The scenario's canonical JSON (compact, field order fixed by the types): what a
    /// case id hashes.
    pub canonical: String,
}

impl Manifest {
    /// Parses a manifest (serde's message names the line and column).
    pub fn from_json(text: &str) -> Result<Manifest, ManifestError> {
        serde_json::from_str(text).map_err(|e| err("", format!("not a sweep manifest: {e}")))
    }

    /// The family run a `{"run": …}` base holds, if it is one.
    pub fn family_run(&self) -> Option<&Value> {
        match &self.base {
            Base::Run(v) => Some(v),
            _ => None,
        }
    }
}

/// Sets the field at `path` (`a.b[2].c`) of `root` to `v`. Every step but the last must
/// exist; the last may be a field the base leaves out (a default), which the scenario's own
/// checks then accept or refuse.
pub fn set_path(root: &mut Value, path: &str, v: Value) -> Result<(), String> {
    json_path::set(root, &parse_path(path)?, v)
}

/// An axis's path in the manifest's grammar, narrower than [`json_path`]'s: every part a
/// key (letters, digits, `_`), then whole-number indexes (`platform.sites[0].nodes`).
fn parse_path(path: &str) -> Result<Vec<Step>, String> {
    let bad = || format!("'{path}' is not a field path (like platform.sites[0].nodes)");
    let mut steps = Vec::new();
    for part in path.split('.') {
        let key = part.split('[').next().unwrap_or_default();
        if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(bad());
        }
        // This reading has always let a part end in one `[` (`a[`, `a[1][`): kept, so that
        // no manifest that planned before is refused now.
        let part = part.strip_suffix('[').unwrap_or(part);
        for s in json_path::steps(part) {
            match s.map_err(|_| bad())? {
                (Step::Key(k), _) => steps.push(Step::Key(k)),
                (Step::Index(i), text) if text.parse::<usize>().is_ok() => {
                    steps.push(Step::Index(i))
                }
                _ => return Err(bad()),
            }
        }
    }
    Ok(steps)
}

#[cfg(test)]
mod tests;
