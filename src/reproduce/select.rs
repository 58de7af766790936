//! What a claim measures, read out of a preset's JSON report: paths (the language of
//! [`crate::json_path`], shared with the sweep manifests) and arithmetic over them, so that a
//! claim is data (one entry in `claims/*.json`), not code.
//!
//! A path is dot-separated keys, each followed by any number of brackets:
//! `runs[label=sender].metrics.avg_wait_s`, `series[policy=owa].median[-1]`, `gap[8]`.
//! `[N]` indexes an array (negative from the end); `[k=v,k2=v2]` picks the first element
//! whose fields `k`, `k2` read as `v`, `v2` (strings as they are, numbers as JSON prints
//! them). Anything that is not found is an error naming the path and the step.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A number computed from a report: a path, a constant, or arithmetic over them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Expr {
    Number(f64),
    Path(String),
    /// `{"div": [a, b]}` = a / b.
    Div {
        div: Box<(Expr, Expr)>,
    },
    /// `{"sub": [a, b]}` = a − b.
    Sub {
        sub: Box<(Expr, Expr)>,
    },
    /// `{"max": [a, b, …]}`.
    Max {
        max: Vec<Expr>,
    },
    /// `{"min": [a, b, …]}`.
    Min {
        min: Vec<Expr>,
    },
    /// `{"mean": "path to an array of numbers"}`.
    Mean {
        mean: String,
    },
}

impl Expr {
    /// The value of the expression on `report`; `Err` names what is missing.
    pub fn eval(&self, report: &Value) -> Result<f64, String> {
        let v = match self {
            Expr::Number(x) => *x,
            Expr::Path(p) => number(select(report, p)?, p)?,
            Expr::Div { div } => {
                let (a, b) = (div.0.eval(report)?, div.1.eval(report)?);
                if b == 0.0 {
                    return Err(format!("division by zero in {}", describe(self)));
                }
                a / b
            }
            Expr::Sub { sub } => sub.0.eval(report)? - sub.1.eval(report)?,
            Expr::Max { max } => fold(max, report, f64::max)?,
            Expr::Min { min } => fold(min, report, f64::min)?,
            Expr::Mean { mean } => {
                let xs = select(report, mean)?
                    .as_array()
                    .ok_or_else(|| format!("{mean}: not an array"))?;
                let sum: Result<f64, String> = xs.iter().map(|x| number(x, mean)).sum();
                if xs.is_empty() {
                    return Err(format!("{mean}: empty array"));
                }
                sum? / xs.len() as f64
            }
        };
        if v.is_finite() {
            Ok(v)
        } else {
            Err(format!("{} is not a finite number", describe(self)))
        }
    }
}

fn fold(items: &[Expr], report: &Value, f: fn(f64, f64) -> f64) -> Result<f64, String> {
    let mut values = items.iter().map(|e| e.eval(report));
    let first = values.next().ok_or("max/min of nothing")??;
    values.try_fold(first, |acc, v| v.map(|v| f(acc, v)))
}

/// The expression as one line of text, for messages and the report card's "how" column.
pub fn describe(e: &Expr) -> String {
    match e {
        Expr::Number(x) => format!("{x}"),
        Expr::Path(p) => p.clone(),
        Expr::Div { div } => format!("({}) / ({})", describe(&div.0), describe(&div.1)),
        Expr::Sub { sub } => format!("({}) − ({})", describe(&sub.0), describe(&sub.1)),
        Expr::Max { max } => format!("max({})", list(max)),
        Expr::Min { min } => format!("min({})", list(min)),
        Expr::Mean { mean } => format!("mean({mean})"),
    }
}

fn list(items: &[Expr]) -> String {
    items.iter().map(describe).collect::<Vec<_>>().join(", ")
}

fn number(v: &Value, path: &str) -> Result<f64, String> {
    v.as_f64()
        .ok_or_else(|| format!("{path}: not a number ({v})"))
}

/// The value at `path` in `report` (the path language is [`crate::json_path`]'s).
pub fn select<'a>(report: &'a Value, path: &str) -> Result<&'a Value, String> {
    crate::json_path::get(report, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn report() -> Value {
        json!({"runs": [{"label": "local", "m": {"w": 10.0}}, {"label": "sender", "m": {"w": 2.5}}],
               "series": [{"policy": "ar", "metric": "u", "median": [0.8, 0.7, 0.6]}],
               "x": [1, 2]})
    }

    #[test]
    fn paths_pick_by_key_value_and_by_index_from_either_end() {
        let r = report();
        assert_eq!(select(&r, "runs[label=sender].m.w").unwrap(), &json!(2.5));
        assert_eq!(
            select(&r, "series[policy=ar,metric=u].median[-1]").unwrap(),
            &json!(0.6)
        );
        assert_eq!(select(&r, "series[0].median[1]").unwrap(), &json!(0.7));
        assert_eq!(select(&r, "x[1]").unwrap(), &json!(2));
    }

    #[test]
    fn a_missing_step_is_named() {
        let r = report();
        let e = select(&r, "runs[label=central].m.w").unwrap_err();
        assert!(e.contains("no element with label=central"), "{e}");
        let e = select(&r, "runs[label=local].m.x").unwrap_err();
        assert!(e.contains("no field 'x'"), "{e}");
        let e = select(&r, "x[5]").unwrap_err();
        assert!(e.contains("index 5 out of 2"), "{e}");
    }

    #[test]
    fn expressions_compute_ratios_differences_and_extremes() {
        let r = report();
        let e: Expr = serde_json::from_value(
            json!({"div": ["runs[label=local].m.w", "runs[label=sender].m.w"]}),
        )
        .unwrap();
        assert_eq!(e.eval(&r).unwrap(), 4.0);
        let e: Expr = serde_json::from_value(
            json!({"sub": [1, {"div": ["series[0].median[-1]", "series[0].median[0]"]}]}),
        )
        .unwrap();
        assert!((e.eval(&r).unwrap() - 0.25).abs() < 1e-12);
        let e: Expr = serde_json::from_value(json!({"max": ["x[0]", "x[1]"]})).unwrap();
        assert_eq!(e.eval(&r).unwrap(), 2.0);
        let e: Expr = serde_json::from_value(json!({"mean": "series[0].median"})).unwrap();
        assert!((e.eval(&r).unwrap() - 0.7).abs() < 1e-12);
        let e: Expr = serde_json::from_value(json!({"div": [1, "series[0].median[9]"]})).unwrap();
        assert!(e.eval(&r).is_err());
    }
}
