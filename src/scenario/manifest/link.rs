//! The page's side of a manifest: its share link (`#m1=…`), the manifest that re-runs one
//! scenario, and what a manifest holds without reading a file.

use serde_json::Value;

use super::{base_scenario, expand, workload_files};
use super::{err, Axis, Base, Expansion, Manifest, ManifestError};
use crate::scenario::Scenario;

/// The share-link prefix of a manifest (`#m1=` + base64url(deflate(JSON)), the encoding of
/// every share link, `link.rs`); the digit is the link format's version.
pub const LINK_PREFIX: &str = "m1=";

/// The fragment (without `#`) that carries `m`.
pub fn to_link(m: &Manifest) -> Result<String, String> {
    crate::scenario::link::pack(LINK_PREFIX, m)
}

/// Reads a manifest link's fragment (with or without `#`): `Ok(None)` when it is not one.
pub fn from_link_fragment(fragment: &str) -> Result<Option<Manifest>, String> {
    let f = fragment.strip_prefix('#').unwrap_or(fragment);
    crate::scenario::link::unpack(LINK_PREFIX, f, "sweep manifest")
}

/// The manifest that re-runs `s` as it is: the scenario inline as the base and one axis,
/// its seed, with its one value (a manifest needs an axis; the seed is the field every
/// scenario has). Its workload files are named as in the scenario, so they are looked up
/// beside the manifest (or under a `traces` folder set afterwards).
pub fn for_scenario(s: &Scenario) -> Manifest {
    Manifest {
        name: if s.name.is_empty() {
            "exported from the page".into()
        } else {
            s.name.clone()
        },
        base: Base::Scenario(Box::new(s.clone())),
        traces: None,
        axes: vec![Axis {
            name: None,
            path: "seed".into(),
            values: Some(vec![Value::from(s.seed)]),
            range: None,
            glob: None,
        }],
        zip: Vec::new(),
        seed_axis: None,
    }
}

/// What a manifest holds without reading a file (the page's view of a shared manifest):
/// its expansion and the job-runs, when every case's jobs are known before reading a trace.
pub struct Overview {
    pub expansion: Expansion,
    pub job_runs: Option<f64>,
    /// The workload files the cases read (each once, in first-use order).
    pub files: Vec<String>,
}

/// Expands `m` with no file system: a `base.file` or a glob axis is an error saying so.
/// At most `max_cases` cases and about `max_bytes` of scenarios in all (each case is a copy
/// of the base: a 500 KB base scenario from a link may not be copied 10,000 times); the base
/// is checked against the default limits first.
pub fn overview(
    m: &Manifest,
    max_cases: usize,
    max_bytes: usize,
) -> Result<Overview, ManifestError> {
    let base = base_scenario(m, &mut |f| {
        Err(format!(
            "the page cannot read {f}: plan this manifest with `gridscope sweep plan` (or give the base as a scenario or a link)"
        ))
    })?;
    base.check_limits(&crate::limits::Limits::default())
        .map_err(|e| err("base", e.to_string()))?;
    let size = serde_json::to_string(&base).map_or(usize::MAX, |t| t.len().max(1));
    let max_cases = max_cases.min((max_bytes / size).max(1));
    let expansion = expand(m, &base, max_cases, &mut |g| {
        Err(format!(
            "the page cannot list {g}: plan this manifest with `gridscope sweep plan`"
        ))
    })?;
    let mut files: Vec<String> = Vec::new();
    let mut job_runs = Some(0.0);
    for c in &expansion.cases {
        for f in workload_files(&c.scenario) {
            if !files.contains(&f) {
                files.push(f);
            }
        }
        job_runs = match (job_runs, c.scenario.expected_job_runs()) {
            (Some(a), Some(b)) => Some(a + b),
            _ => None,
        };
    }
    Ok(Overview {
        expansion,
        job_runs,
        files,
    })
}
