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

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Scenario, WorkloadSpec};

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

/// The base scenario, its workload file names made relative to the manifest: a file's names
/// are relative to that file's folder, a preset's and a link's to `traces`. `read(path)`
/// returns the text of a file named relative to the manifest.
pub fn base_scenario(
    m: &Manifest,
    read: &mut dyn FnMut(&str) -> Result<String, String>,
) -> Result<Scenario, ManifestError> {
    let (mut s, dir) = match &m.base {
        Base::File(f) => {
            let text = read(f).map_err(|e| err("base.file", e).near(f))?;
            let s = Scenario::from_json(&text)
                .map_err(|e| err("base.file", format!("{f}: {e}")).near(f))?;
            let dir = match f.rfind('/') {
                Some(i) => f[..i].to_string(),
                None => String::new(),
            };
            (s, Some(dir))
        }
        Base::Preset(p) => {
            let s = Scenario::preset(p).ok_or_else(|| {
                err(
                    "base.preset",
                    format!("'{p}' is not a scenario preset (`gridscope help presets`; the sf-, ses-, kkor- and scjg- presets are not scenarios)"),
                )
                .near(p)
            })?;
            (s, m.traces.clone())
        }
        Base::Link(l) => (from_link(l)?, m.traces.clone()),
        Base::Scenario(s) => ((**s).clone().upgrade(), m.traces.clone()),
        Base::Run(_) => {
            return Err(err(
                "base.run",
                "a family run is not a scenario: its cases are expanded by the family runner (`gridscope sweep plan`)",
            ))
        }
    };
    let files = workload_files(&s);
    match dir {
        Some(dir) => rebase_files(&mut s, &dir),
        None if !files.is_empty() && !matches!(m.base, Base::Scenario(_)) => {
            return Err(err(
                "traces",
                format!(
                    "the base scenario reads {}: set \"traces\" to the folder holding it (relative to the manifest)",
                    files.join(", ")
                ),
            ))
        }
        None => {}
    }
    Ok(s)
}

fn from_link(link: &str) -> Result<Scenario, ManifestError> {
    #[derive(Deserialize)]
    struct Payload {
        scenario: Scenario,
    }
    let fragment = link.rsplit_once('#').map_or(link, |(_, f)| f);
    match super::link::unpack::<Payload>("s1=", fragment, "scenario") {
        Ok(Some(p)) => Ok(p.scenario.upgrade()),
        Ok(None) => Err(err("base.link", "not a scenario link (#s1=…)")),
        Err(e) => Err(err("base.link", e)),
    }
}

/// The workload files a scenario reads, in its order.
pub fn workload_files(s: &Scenario) -> Vec<String> {
    match &s.workload {
        WorkloadSpec::Swf { file, .. }
        | WorkloadSpec::SwfPartitions { file, .. }
        | WorkloadSpec::OriginSites { file, .. } => {
            vec![file.clone()]
        }
        WorkloadSpec::SwfSites { files, .. } => files.clone(),
        _ => Vec::new(),
    }
}

/// Puts `dir/` before every relative workload file name.
fn rebase_files(s: &mut Scenario, dir: &str) {
    if dir.is_empty() {
        return;
    }
    let rebase = |f: &mut String| {
        if !f.starts_with('/') {
            *f = format!("{}/{f}", dir.trim_end_matches('/'));
        }
    };
    match &mut s.workload {
        WorkloadSpec::Swf { file, .. }
        | WorkloadSpec::SwfPartitions { file, .. }
        | WorkloadSpec::OriginSites { file, .. } => rebase(file),
        WorkloadSpec::SwfSites { files, .. } => files.iter_mut().for_each(rebase),
        _ => {}
    }
}

/// An axis's values: its list, its range or its glob's files (`glob(pattern)` lists them).
fn axis_values(
    i: usize,
    a: &Axis,
    max_values: usize,
    glob: &mut dyn FnMut(&str) -> Result<Vec<String>, String>,
) -> Result<Vec<Value>, ManifestError> {
    let field = |f: &str| format!("axes[{i}].{f}");
    let values = match (&a.values, &a.range, &a.glob) {
        (Some(v), None, None) => v.clone(),
        (None, Some(r), None) => range_values(r, max_values).map_err(|m| err(field("range"), m))?,
        (None, None, Some(g)) => glob(g)
            .map_err(|m| err(field("glob"), m).near(g))?
            .into_iter()
            .map(Value::String)
            .collect(),
        _ => {
            return Err(err(
                format!("axes[{i}]"),
                "give exactly one of \"values\", \"range\" or \"glob\"",
            )
            .near(&a.path))
        }
    };
    if values.is_empty() {
        let what = if a.glob.is_some() {
            "the glob matches no file"
        } else {
            "the axis has no value"
        };
        return Err(err(field("values"), what).near(&a.path));
    }
    Ok(values)
}

/// A range's values, whole numbers when `from` and `step` are (so `seed` takes them).
fn range_values(r: &Range, max_values: usize) -> Result<Vec<Value>, String> {
    if !(r.from.is_finite() && r.to.is_finite() && r.step.is_finite() && r.step != 0.0) {
        return Err("from, to and step must be finite numbers, step not 0".into());
    }
    let span = (r.to - r.from) / r.step;
    if span < -1e-9 {
        return Err(format!(
            "a step of {} never goes from {} to {}",
            r.step, r.from, r.to
        ));
    }
    let n = (span + 1e-9).floor() + 1.0;
    if n > max_values as f64 {
        let count = if n < 1e15 {
            format!("{n:.0}")
        } else {
            format!("{n:.1e}")
        };
        return Err(format!(
            "{count} values, more than --max-cases ({max_values})"
        ));
    }
    let whole = |x: f64| x.fract() == 0.0 && x.abs() < 9.0e15;
    let integers = whole(r.from) && whole(r.step);
    Ok((0..n as usize)
        .map(|k| {
            // from + k·step, not repeated additions: no drift over a long range.
            let x = r.from + k as f64 * r.step;
            if integers && x >= 0.0 {
                Value::from(x as u64)
            } else if integers {
                Value::from(x as i64)
            } else {
                Value::from(x)
            }
        })
        .collect())
}

/// Sets the field at `path` (`a.b[2].c`) of `root` to `v`. Every step but the last must
/// exist; the last may be a field the base leaves out (a default), which the scenario's own
/// checks then accept or refuse.
pub fn set_path(root: &mut Value, path: &str, v: Value) -> Result<(), String> {
    let steps = parse_path(path)?;
    let mut cur = root;
    let last = steps.len() - 1;
    for (k, step) in steps.iter().enumerate() {
        let here = || path_prefix(&steps[..=k]);
        cur = match step {
            Step::Key(key) => {
                let Value::Object(map) = cur else {
                    return Err(format!("{} is not an object", path_prefix(&steps[..k])));
                };
                if k == last {
                    map.insert(key.clone(), v);
                    return Ok(());
                }
                if !map.contains_key(key.as_str()) {
                    let known: Vec<&str> = map.keys().map(String::as_str).collect();
                    return Err(format!(
                        "{} does not exist (there: {})",
                        here(),
                        known.join(", ")
                    ));
                }
                map.get_mut(key.as_str()).ok_or_else(here)?
            }
            Step::Index(i) => {
                let Value::Array(items) = cur else {
                    return Err(format!("{} is not a list", path_prefix(&steps[..k])));
                };
                let len = items.len();
                let item = items
                    .get_mut(*i)
                    .ok_or_else(|| format!("{} does not exist (the list has {len})", here()))?;
                if k == last {
                    *item = v;
                    return Ok(());
                }
                item
            }
        };
    }
    Ok(())
}

enum Step {
    Key(String),
    Index(usize),
}

fn path_prefix(steps: &[Step]) -> String {
    let mut s = String::new();
    for step in steps {
        match step {
            Step::Key(k) if s.is_empty() => s.push_str(k),
            Step::Key(k) => {
                s.push('.');
                s.push_str(k);
            }
            Step::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    if s.is_empty() {
        "the scenario".into()
    } else {
        s
    }
}

fn parse_path(path: &str) -> Result<Vec<Step>, String> {
    let bad = || format!("'{path}' is not a field path (like platform.sites[0].nodes)");
    let mut steps = Vec::new();
    for part in path.split('.') {
        let (key, mut rest) = part.split_once('[').map_or((part, ""), |(k, r)| (k, r));
        if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(bad());
        }
        steps.push(Step::Key(key.to_string()));
        while !rest.is_empty() {
            let (index, after) = rest.split_once(']').ok_or_else(bad)?;
            steps.push(Step::Index(index.parse().map_err(|_| bad())?));
            rest = match after.strip_prefix('[') {
                Some(r) => r,
                None if after.is_empty() => "",
                None => return Err(bad()),
            };
        }
    }
    Ok(steps)
}

/// An axis value as a table cell: a string as it is, anything else as compact JSON.
pub fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Expands the manifest over `base` into its cases (at most `max_cases`; more is an error
/// before any is built). `glob(pattern)` lists the files of a glob axis.
pub fn expand(
    m: &Manifest,
    base: &Scenario,
    max_cases: usize,
    glob: &mut dyn FnMut(&str) -> Result<Vec<String>, String>,
) -> Result<Expansion, ManifestError> {
    let base_json = serde_json::to_value(base).map_err(|e| err("base", e.to_string()))?;
    let values = expand_values(m, &base_json, max_cases, glob)?;
    let mut cases = Vec::with_capacity(values.cases.len());
    for c in values.cases {
        cases.push(scenario_case(m, &values.names, &base_json, c)?);
    }
    Ok(Expansion {
        axes: values.axes,
        seed_axis: values.seed_axis,
        cases,
    })
}

/// A manifest expanded over a base given as JSON: each case the base with the axes' values
/// set, not yet read as anything (a scenario, a family run).
#[derive(Clone, Debug)]
pub struct ValueExpansion {
    pub axes: Vec<AxisInfo>,
    pub seed_axis: Option<usize>,
    /// The axes' names (`name`, else the path), in manifest order.
    pub names: Vec<String>,
    pub cases: Vec<ValueCase>,
}

/// One case as JSON: its place, each axis's value (as given and as text) and the base with
/// them set.
#[derive(Clone, Debug)]
pub struct ValueCase {
    pub index: usize,
    pub values: Vec<Value>,
    pub point: Vec<String>,
    pub json: Value,
}

/// [`expand`] over any JSON base: the axes' values set by path into copies of `base_json`
/// (a path that does not exist is an error naming the axis).
pub fn expand_values(
    m: &Manifest,
    base_json: &Value,
    max_cases: usize,
    glob: &mut dyn FnMut(&str) -> Result<Vec<String>, String>,
) -> Result<ValueExpansion, ManifestError> {
    if m.axes.is_empty() {
        return Err(err("axes", "a sweep needs at least one axis"));
    }
    let names: Vec<String> = m
        .axes
        .iter()
        .map(|a| a.name.clone().unwrap_or_else(|| a.path.clone()))
        .collect();
    for (i, n) in names.iter().enumerate() {
        if names[..i].contains(n) {
            return Err(err(
                format!("axes[{i}].name"),
                format!("two axes are named '{n}'"),
            )
            .near(n));
        }
        parse_path(&m.axes[i].path).map_err(|e| err(format!("axes[{i}].path"), e).near(n))?;
    }
    let values = m
        .axes
        .iter()
        .enumerate()
        .map(|(i, a)| axis_values(i, a, max_cases, glob))
        .collect::<Result<Vec<_>, _>>()?;
    let groups = zip_groups(m, &names, &values)?;
    let count = groups.iter().try_fold(1usize, |acc, g| {
        acc.checked_mul(values[g[0]].len())
            .filter(|&n| n <= max_cases)
    });
    let Some(count) = count else {
        return Err(err(
            "axes",
            format!(
                "more than --max-cases ({max_cases}) cases: {} (raise --max-cases to plan them)",
                groups
                    .iter()
                    .map(|g| format!(
                        "{} {}",
                        values[g[0]].len(),
                        g.iter()
                            .map(|&a| names[a].as_str())
                            .collect::<Vec<_>>()
                            .join("+")
                    ))
                    .collect::<Vec<_>>()
                    .join(" × ")
            ),
        ));
    };
    let seed_axis = seed_axis(m, &names)?;
    let mut cases = Vec::with_capacity(count);
    for index in 0..count {
        // The mixed-radix digits of `index` over the groups, first group outermost.
        let mut pick = vec![0usize; m.axes.len()];
        let mut rest = index;
        for g in groups.iter().rev() {
            let len = values[g[0]].len();
            for &a in g {
                pick[a] = rest % len;
            }
            rest /= len;
        }
        let chosen: Vec<Value> = (0..m.axes.len())
            .map(|a| values[a][pick[a]].clone())
            .collect();
        let mut json = base_json.clone();
        for (a, axis) in m.axes.iter().enumerate() {
            set_path(&mut json, &axis.path, chosen[a].clone())
                .map_err(|e| err(format!("axes[{a}].path"), e).near(&names[a]))?;
        }
        cases.push(ValueCase {
            index,
            point: chosen.iter().map(value_text).collect(),
            values: chosen,
            json,
        });
    }
    let axes = m
        .axes
        .iter()
        .zip(&names)
        .zip(&values)
        .map(|((a, n), v)| AxisInfo {
            name: n.clone(),
            path: a.path.clone(),
            values: v.len(),
        })
        .collect();
    Ok(ValueExpansion {
        axes,
        seed_axis,
        names,
        cases,
    })
}

/// The error for a case `read` refuses (`e`): the first axis whose value alone breaks the
/// base, else the case by its point.
pub fn blame_case(
    m: &Manifest,
    names: &[String],
    base_json: &Value,
    c: &ValueCase,
    read: &dyn Fn(&Value) -> Result<(), String>,
    what: &str,
    e: &str,
) -> ManifestError {
    let alone = (0..m.axes.len()).find(|&a| {
        let mut j = base_json.clone();
        set_path(&mut j, &m.axes[a].path, c.values[a].clone()).is_err() || read(&j).is_err()
    });
    match alone {
        Some(a) => err(
            format!("axes[{a}]"),
            format!(
                "{} = {} does not make a valid {what}: {e}",
                m.axes[a].path, c.point[a]
            ),
        )
        .near(&names[a]),
        None => {
            let at: Vec<String> = names
                .iter()
                .zip(&c.point)
                .map(|(n, v)| format!("{n}={v}"))
                .collect();
            err(
                "axes",
                format!("the case {} is not a valid {what}: {e}", at.join(", ")),
            )
            .near(&names[0])
        }
    }
}

/// The axes in groups: each zip group together, every other axis alone, ordered by their
/// first axis.
fn zip_groups(
    m: &Manifest,
    names: &[String],
    values: &[Vec<Value>],
) -> Result<Vec<Vec<usize>>, ManifestError> {
    let mut group_of: Vec<Option<usize>> = vec![None; names.len()];
    for (z, group) in m.zip.iter().enumerate() {
        if group.len() < 2 {
            return Err(err(
                format!("zip[{z}]"),
                "a zip group pairs two axes or more",
            ));
        }
        for n in group {
            let a = names.iter().position(|x| x == n).ok_or_else(|| {
                err(
                    format!("zip[{z}]"),
                    format!("no axis is named '{n}' (axes: {})", names.join(", ")),
                )
                .near(n)
            })?;
            if group_of[a].is_some() {
                return Err(
                    err(format!("zip[{z}]"), format!("axis '{n}' is zipped twice")).near(n),
                );
            }
            group_of[a] = Some(z);
            let first = &m.zip[z][0];
            let len0 = names
                .iter()
                .position(|x| x == first)
                .map_or(0, |f| values[f].len());
            if values[a].len() != len0 {
                return Err(err(
                    format!("zip[{z}]"),
                    format!(
                        "zipped axes need as many values each: '{first}' has {len0}, '{n}' {}",
                        values[a].len()
                    ),
                )
                .near(n));
            }
        }
    }
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut seen_zip: Vec<Option<usize>> = vec![None; m.zip.len()];
    for (a, group) in group_of.iter().enumerate() {
        match *group {
            None => groups.push(vec![a]),
            Some(z) => match seen_zip[z] {
                Some(g) => groups[g].push(a),
                None => {
                    seen_zip[z] = Some(groups.len());
                    groups.push(vec![a]);
                }
            },
        }
    }
    Ok(groups)
}

fn seed_axis(m: &Manifest, names: &[String]) -> Result<Option<usize>, ManifestError> {
    match &m.seed_axis {
        Some(n) => names.iter().position(|x| x == n).map(Some).ok_or_else(|| {
            err(
                "seed_axis",
                format!("no axis is named '{n}' (axes: {})", names.join(", ")),
            )
            .near(n)
        }),
        None => Ok(m.axes.iter().position(|a| a.path == "seed")),
    }
}

fn scenario_case(
    m: &Manifest,
    names: &[String],
    base_json: &Value,
    c: ValueCase,
) -> Result<Case, ManifestError> {
    let read = |j: &Value| {
        Scenario::from_json(&j.to_string())
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    let scenario = Scenario::from_json(&c.json.to_string())
        .map_err(|e| blame_case(m, names, base_json, &c, &read, "scenario", &e.to_string()))?;
    let canonical = serde_json::to_string(&scenario).map_err(|e| err("axes", e.to_string()))?;
    Ok(Case {
        index: c.index,
        point: c.point,
        scenario,
        canonical,
    })
}

/// The share-link prefix of a manifest (`#m1=` + base64url(deflate(JSON)), the encoding of
/// every share link, `link.rs`); the digit is the link format's version.
pub const LINK_PREFIX: &str = "m1=";

/// The fragment (without `#`) that carries `m`.
pub fn to_link(m: &Manifest) -> Result<String, String> {
    super::link::pack(LINK_PREFIX, m)
}

/// Reads a manifest link's fragment (with or without `#`): `Ok(None)` when it is not one.
pub fn from_link_fragment(fragment: &str) -> Result<Option<Manifest>, String> {
    let f = fragment.strip_prefix('#').unwrap_or(fragment);
    super::link::unpack(LINK_PREFIX, f, "sweep manifest")
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_count_without_drift_and_stay_whole() {
        let r = Range {
            from: 0.0,
            to: 1.0,
            step: 0.1,
        };
        let v = range_values(&r, 100).unwrap_or_default();
        assert_eq!(v.len(), 11);
        assert_eq!(v[10], Value::from(1.0));
        let seeds = Range {
            from: 1.0,
            to: 3.0,
            step: 1.0,
        };
        assert_eq!(
            range_values(&seeds, 100).unwrap_or_default(),
            [Value::from(1u64), Value::from(2u64), Value::from(3u64)]
        );
        assert!(range_values(&seeds, 2).is_err());
    }

    #[test]
    fn paths_set_fields_or_say_what_is_missing() {
        let mut v = serde_json::json!({"a": {"b": [1, {"c": 2}]}});
        assert!(set_path(&mut v, "a.b[1].c", Value::from(3)).is_ok());
        assert!(set_path(&mut v, "a.b[1].new", Value::from(4)).is_ok());
        assert_eq!(v, serde_json::json!({"a": {"b": [1, {"c": 3, "new": 4}]}}));
        let e = set_path(&mut v, "a.x.c", Value::Null).unwrap_err();
        assert_eq!(e, "a.x does not exist (there: b)");
        let e = set_path(&mut v, "a.b[5]", Value::Null).unwrap_err();
        assert_eq!(e, "a.b[5] does not exist (the list has 2)");
        assert!(set_path(&mut v, "a..b", Value::Null).is_err());
        assert!(set_path(&mut v, "a.b[x]", Value::Null).is_err());
    }

    #[test]
    fn a_scenario_exports_as_one_case_and_travels_as_a_link() {
        let mut s = Scenario::demo();
        s.seed = 7;
        let m = for_scenario(&s);
        let link = to_link(&m).unwrap();
        assert!(link.starts_with(LINK_PREFIX));
        let back = from_link_fragment(&format!("#{link}"));
        assert_eq!(back, Ok(Some(m.clone())));
        // Text of the manifest reads back as the same manifest.
        let text = serde_json::to_string_pretty(&m).unwrap_or_default();
        assert_eq!(Manifest::from_json(&text), Ok(m.clone()));
        let o = overview(&m, 100, 1 << 20).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(o.expansion.cases.len(), 1);
        assert_eq!(o.expansion.cases[0].scenario, s);
        assert_eq!(o.expansion.seed_axis, Some(0));
        assert_eq!(o.job_runs, s.expected_job_runs());
        assert!(o.files.is_empty());
        // Other links are not manifests; a damaged one says so.
        assert_eq!(from_link_fragment("#s1=abc"), Ok(None));
        assert!(from_link_fragment("#m1=!!").is_err());
    }

    #[test]
    fn the_page_overview_refuses_what_needs_files() {
        let m = Manifest::from_json(
            r#"{"base": {"file": "base.json"}, "axes": [{"path": "seed", "values": [1]}]}"#,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let e = overview(&m, 10, 1 << 20)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            e.starts_with("base.file: the page cannot read base.json"),
            "{e}"
        );
        let m = Manifest::from_json(
            r#"{"base": {"preset": "demo"}, "axes": [{"path": "workload.file", "glob": "t/*.swf"}]}"#,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let e = overview(&m, 10, 1 << 20)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("cannot list t/*.swf"), "{e}");
        // Copies of the base are bounded by bytes as well as by count.
        let m = Manifest::from_json(
            r#"{"base": {"preset": "demo"}, "axes": [{"path": "seed", "range": {"from": 1, "to": 1000}}]}"#,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(overview(&m, 10_000, 1 << 20).is_ok());
        let e = overview(&m, 10_000, 100_000)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            e.starts_with("axes[0].range: 1000 values, more than"),
            "{e}"
        );
    }
}
