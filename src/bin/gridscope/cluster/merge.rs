//! `gridscope sweep merge DIR`: every case's metrics in one table, and per point of the
//! non-seed axes the median and an order-statistic confidence interval across seeds. The
//! output depends only on the plan and the results (cases in plan order, metrics in name
//! order, no clock, no host), so it is the same bytes however the cases were sharded.

use std::collections::BTreeMap;
use std::fmt::Write;

use gridscope::allocation::sweep::{median_and_band, median_band};

use super::store::{read_result, write_atomic, Bad, CaseLine, CaseResult, Dir, Lock, Plan};
use super::store::{FORMAT, VERSION};
use crate::cli::MergeArgs;
use crate::progress::Progress;
use crate::{output, CliError};

/// What merged tables say about their intervals.
pub const CI_METHOD: &str = "order statistics: the interval [x(i), x(n+1-i)] of the n sorted seed values, i the largest keeping P(x(i) < median < x(n+1-i)) >= 95 % under Bin(n, 1/2) (min..max when n is too small; `coverage` gives the exact level); no resampling, so no seed";

/// Names at most this many cases in an error.
const NAMED: usize = 20;

pub fn merge(a: &MergeArgs) -> Result<(), CliError> {
    let dir = Dir::new(&a.dir);
    let plan = dir.plan()?;
    let cases = dir.cases()?;
    let lock = dir.lock()?;
    let results = read_all(&dir, &cases)?;
    check(&lock, &cases, &results)?;
    let metrics = metric_names(&results);
    let cases_csv = cases_csv(&plan, &cases, &results, &metrics);
    let points = points(&plan, &cases, &results, &metrics);
    let points_csv = points_csv(&plan, &points);
    let json = serde_json::json!({
        "name": plan.name,
        "gridscope": VERSION,
        "axes": plan.axes,
        "seed_axis": plan.seed_axis.and_then(|i| plan.axes.get(i)).map(|a| a.name.clone()),
        "ci": CI_METHOD,
        "traces": lock.traces,
        "cases": cases.iter().zip(&results).map(|(c, r)| serde_json::json!({
            "index": c.index, "id": c.id, "point": c.point,
            "offered_load": r.offered_load, "runs": r.runs,
        })).collect::<Vec<_>>(),
        "points": points,
    });
    dir.mkdirs(&["merged"])?;
    let out = dir.file("merged");
    write_atomic(&out.join("cases.csv"), cases_csv.as_bytes())?;
    write_atomic(&out.join("points.csv"), points_csv.as_bytes())?;
    let json = serde_json::to_string_pretty(&json).unwrap_or_default() + "\n";
    write_atomic(&out.join("merged.json"), json.as_bytes())?;
    output::stdout(&format!(
        "merged {} cases ({} runs) into {}: cases.csv, points.csv ({} rows: median and CI over {}), merged.json\n",
        cases.len(),
        results.iter().map(|r| r.runs.len()).sum::<usize>(),
        out.display(),
        points.len(),
        plan.seed_axis.and_then(|i| plan.axes.get(i)).map_or("no seed axis: one value each".into(), |a| format!("'{}'", a.name)),
    ))
}

/// Every case's result; the missing and the corrupt named.
fn read_all(dir: &Dir, cases: &[CaseLine]) -> Result<Vec<CaseResult>, CliError> {
    let mut progress = Progress::new();
    let mut results = Vec::with_capacity(cases.len());
    let mut missing = Vec::new();
    let mut corrupt = Vec::new();
    for (k, c) in cases.iter().enumerate() {
        progress.show(
            &format!("merge: case {}/{}", k + 1, cases.len()),
            k as f64 / cases.len() as f64,
        );
        match read_result(&dir.result_path(&c.id), &c.id) {
            Ok(r) => results.push(r),
            Err(Bad::Missing) => {
                // A case whose run failed says why (its first line), the others were not run.
                let failed = std::fs::read_to_string(dir.failed_path(&c.id))
                    .ok()
                    .and_then(|t| t.lines().next().map(|l| format!(" — failed: {l}")))
                    .unwrap_or_default();
                missing.push(format!(
                    "{} ({}: {}){failed}",
                    c.index,
                    c.id,
                    c.point.join(", ")
                ))
            }
            Err(Bad::Corrupt(why)) => {
                corrupt.push(format!("{}: {why}", dir.result_path(&c.id).display()))
            }
        }
    }
    let list = |v: &[String]| {
        let mut s: String = v.iter().take(NAMED).map(|x| format!("\n  {x}")).collect();
        if v.len() > NAMED {
            let _ = write!(s, "\n  … and {} more", v.len() - NAMED);
        }
        s
    };
    if !corrupt.is_empty() {
        return Err(CliError::Failed(format!(
            "{} results are corrupt (rerun their shards: `gridscope sweep run` reruns them):{}",
            corrupt.len(),
            list(&corrupt)
        )));
    }
    if !missing.is_empty() {
        return Err(CliError::Failed(format!(
            "{} of {} cases have no result (see `gridscope sweep status {}`):{}",
            missing.len(),
            cases.len(),
            dir.path.display(),
            list(&missing)
        )));
    }
    Ok(results)
}

/// Results of another gridscope version, or run on other trace bytes, are refused by name.
fn check(lock: &Lock, cases: &[CaseLine], results: &[CaseResult]) -> Result<(), CliError> {
    let mut other = Vec::new();
    for (c, r) in cases.iter().zip(results) {
        if r.gridscope != VERSION || r.format != FORMAT {
            other.push(format!(
                "case {} ({}): gridscope {}, format {}",
                c.index, c.id, r.gridscope, r.format
            ));
        }
        for (file, sum) in &r.traces {
            let locked = lock.traces.iter().find(|t| &t.file == file);
            if locked.is_none_or(|t| &t.sha256 != sum) {
                other.push(format!(
                    "case {} ({}): trace {file} had SHA-256 {sum}, the lock says {}",
                    c.index,
                    c.id,
                    locked.map_or("nothing (not locked)", |t| t.sha256.as_str())
                ));
            }
        }
    }
    if other.is_empty() {
        return Ok(());
    }
    let n = other.len();
    other.truncate(NAMED);
    Err(CliError::Failed(format!(
        "{n} results do not belong to this plan run by this gridscope ({VERSION}, the traces in lock.json); rerun them (remove their result files, then `gridscope sweep run`):\n  {}",
        other.join("\n  ")
    )))
}

/// The numeric top-level metrics, in name order (nested lists stay in merged.json).
fn metric_names(results: &[CaseResult]) -> Vec<String> {
    let mut names = std::collections::BTreeSet::new();
    for r in results {
        for run in &r.runs {
            if let Some(m) = run.metrics.as_object() {
                names.extend(
                    m.iter()
                        .filter(|(_, v)| v.is_number())
                        .map(|(k, _)| k.clone()),
                );
            }
        }
    }
    names.into_iter().collect()
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn number(v: Option<&serde_json::Value>) -> String {
    v.filter(|v| v.is_number())
        .map_or_else(String::new, ToString::to_string)
}

fn cases_csv(
    plan: &Plan,
    cases: &[CaseLine],
    results: &[CaseResult],
    metrics: &[String],
) -> String {
    let mut out = String::from("case,case_id");
    for a in &plan.axes {
        out.push(',');
        out.push_str(&csv_field(&a.name));
    }
    out.push_str(",label,algorithm,events,max_queue");
    for m in metrics {
        out.push(',');
        out.push_str(m);
    }
    out.push('\n');
    for (c, r) in cases.iter().zip(results) {
        for run in &r.runs {
            let _ = write!(out, "{},{}", c.index, c.id);
            for v in &c.point {
                out.push(',');
                out.push_str(&csv_field(v));
            }
            let _ = write!(
                out,
                ",{},{},{},{}",
                csv_field(&run.label),
                csv_field(&run.algorithm),
                run.events,
                run.max_queue
            );
            for m in metrics {
                out.push(',');
                out.push_str(&number(run.metrics.get(m)));
            }
            out.push('\n');
        }
    }
    out
}

/// One row of points.csv: a point of the non-seed axes, a run label and a metric.
#[derive(serde::Serialize)]
struct Point {
    point: Vec<String>,
    label: String,
    metric: String,
    n: usize,
    median: f64,
    ci_low: f64,
    ci_high: f64,
    coverage: f64,
}

/// Median and interval per (point, label, metric), points in the order of their first case.
fn points(
    plan: &Plan,
    cases: &[CaseLine],
    results: &[CaseResult],
    metrics: &[String],
) -> Vec<Point> {
    let keep = |c: &CaseLine| -> Vec<String> {
        c.point
            .iter()
            .enumerate()
            .filter(|(i, _)| Some(*i) != plan.seed_axis)
            .map(|(_, v)| v.clone())
            .collect()
    };
    // (point, label) → samples per metric; first seen order kept by a separate list.
    let mut order: Vec<(Vec<String>, String)> = Vec::new();
    let mut samples: BTreeMap<(Vec<String>, String), Vec<Vec<f64>>> = BTreeMap::new();
    for (c, r) in cases.iter().zip(results) {
        for run in &r.runs {
            let key = (keep(c), run.label.clone());
            let entry = samples.entry(key.clone()).or_insert_with(|| {
                order.push(key);
                vec![Vec::new(); metrics.len()]
            });
            for (k, m) in metrics.iter().enumerate() {
                if let Some(x) = run.metrics.get(m).and_then(serde_json::Value::as_f64) {
                    entry[k].push(x);
                }
            }
        }
    }
    let mut out = Vec::new();
    for key in order {
        let Some(per_metric) = samples.get_mut(&key) else {
            continue;
        };
        for (k, m) in metrics.iter().enumerate() {
            let xs = &mut per_metric[k];
            // A metric this label's runs do not have (SCJG's ar scheme has no lock-down
            // block) is no row, rather than a median of 0 from no values.
            if xs.is_empty() {
                continue;
            }
            let (lo_index, coverage) = median_band(xs.len());
            let (median, ci_low, ci_high) = median_and_band(xs, lo_index);
            out.push(Point {
                point: key.0.clone(),
                label: key.1.clone(),
                metric: m.clone(),
                n: xs.len(),
                median,
                ci_low,
                ci_high,
                coverage,
            });
        }
    }
    out
}

fn points_csv(plan: &Plan, points: &[Point]) -> String {
    let mut out = String::new();
    for (i, a) in plan.axes.iter().enumerate() {
        if Some(i) != plan.seed_axis {
            out.push_str(&csv_field(&a.name));
            out.push(',');
        }
    }
    out.push_str("label,metric,n,median,ci_low,ci_high,coverage\n");
    for p in points {
        for v in &p.point {
            out.push_str(&csv_field(v));
            out.push(',');
        }
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{}",
            csv_field(&p.label),
            p.metric,
            p.n,
            p.median,
            p.ci_low,
            p.ci_high,
            p.coverage
        );
    }
    out
}
