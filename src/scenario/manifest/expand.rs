//! A manifest's axes expanded into cases: each axis's values (a list, a range, a glob's
//! files), crossed or zipped in a fixed order, set by path into copies of the base; a case
//! that does not read is blamed on the axis whose value alone breaks the base.

use serde_json::Value;

use super::{err, parse_path, set_path, AxisInfo, Case, Expansion};
use super::{Axis, Manifest, ManifestError, Range};
use crate::scenario::Scenario;

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
pub(super) fn range_values(r: &Range, max_values: usize) -> Result<Vec<Value>, String> {
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
