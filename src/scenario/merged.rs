//! Reading back what `gridscope sweep merge` writes (docs/cluster.md), so a cluster's results
//! can be plotted where a local sweep is: `merged.json` or `points.csv`, bytes in, a table of
//! points out (per point of the non-seed axes, run label and metric: n, median, interval).
//! No I/O here; the page hands the dropped file's bytes. Anything that is not one of those
//! two files is refused with what is wrong and where (a line of the CSV, a field of the JSON).

use serde::Deserialize;

use crate::allocation::sweep::PolicySeries;

/// One row of `points.csv` / one entry of `merged.json`'s `points`.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct MergedPoint {
    /// Each non-seed axis's value, in the axes' order.
    pub point: Vec<String>,
    pub label: String,
    pub metric: String,
    pub n: usize,
    pub median: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    pub coverage: f64,
}

/// A merged table: the non-seed axes' names, the seed axis (when `merged.json` says) and
/// the points in the file's order.
#[derive(Clone, Debug, PartialEq)]
pub struct MergedTable {
    pub name: String,
    pub axes: Vec<String>,
    pub seed_axis: Option<String>,
    pub points: Vec<MergedPoint>,
}

/// The last columns of `points.csv`, after one column per non-seed axis.
const POINT_COLUMNS: [&str; 7] = [
    "label", "metric", "n", "median", "ci_low", "ci_high", "coverage",
];

/// Reads `merged.json` or `points.csv` (told apart by their first byte); `file` names the
/// file in errors.
pub fn parse(file: &str, bytes: &[u8]) -> Result<MergedTable, String> {
    let text = std::str::from_utf8(bytes)
        .map_err(|e| format!("{file}: not a merged table: not UTF-8 text ({e})"))?;
    let table = match text.trim_start().as_bytes().first() {
        None => return Err(format!("{file}: not a merged table: the file is empty")),
        Some(b'{') => parse_json(text).map_err(|e| format!("{file}: {e}"))?,
        Some(_) => parse_csv(text).map_err(|e| format!("{file}: {e}"))?,
    };
    if table.points.is_empty() {
        return Err(format!("{file}: the merged table has no points"));
    }
    Ok(table)
}

fn parse_json(text: &str) -> Result<MergedTable, String> {
    #[derive(Deserialize)]
    struct Axis {
        name: String,
    }
    #[derive(Deserialize)]
    struct Merged {
        #[serde(default)]
        name: String,
        axes: Vec<Axis>,
        seed_axis: Option<String>,
        points: Vec<MergedPoint>,
    }
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("not a merged table: not JSON ({e})"))?;
    for key in ["axes", "points"] {
        if value.get(key).is_none() {
            let what = if value.get("base").is_some() {
                " (this is a sweep manifest: plan, run and merge it with `gridscope sweep`, then drop merged/merged.json)"
            } else {
                ""
            };
            return Err(format!(
                "not a merged table: no \"{key}\" field (gridscope sweep merge writes merged/merged.json with axes, cases and points){what}"
            ));
        }
    }
    let m: Merged =
        serde_json::from_value(value).map_err(|e| format!("not a merged table: {e}"))?;
    let axes: Vec<String> = m
        .axes
        .into_iter()
        .map(|a| a.name)
        .filter(|n| Some(n) != m.seed_axis.as_ref())
        .collect();
    for (i, p) in m.points.iter().enumerate() {
        if p.point.len() != axes.len() {
            return Err(format!(
                "points[{i}]: {} axis values for {} non-seed axes ({})",
                p.point.len(),
                axes.len(),
                axes.join(", ")
            ));
        }
    }
    Ok(MergedTable {
        name: m.name,
        axes,
        seed_axis: m.seed_axis,
        points: m.points,
    })
}

/// One CSV record's fields (RFC 4180 quoting, as `sweep merge` writes it).
fn csv_fields(line: &str) -> Result<Vec<String>, String> {
    let mut fields = Vec::new();
    let mut cur = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                cur.push('"');
            }
            (true, '"') => quoted = false,
            (false, '"') if cur.is_empty() => quoted = true,
            (false, ',') => fields.push(std::mem::take(&mut cur)),
            (_, c) => cur.push(c),
        }
    }
    if quoted {
        return Err("a quoted field is not closed".into());
    }
    fields.push(cur);
    Ok(fields)
}

fn parse_csv(text: &str) -> Result<MergedTable, String> {
    let mut lines = text.lines().enumerate();
    let header = lines.next().map(|(_, l)| l).unwrap_or_default();
    let head = csv_fields(header).map_err(|e| format!("line 1: {e}"))?;
    if head.len() < POINT_COLUMNS.len() || head[head.len() - POINT_COLUMNS.len()..] != POINT_COLUMNS
    {
        let hint = if head.first().is_some_and(|h| h == "case") {
            "this is cases.csv (one row per case and run); drop points.csv or merged.json from the same merged/ folder"
        } else {
            "gridscope sweep merge's points.csv has one column per non-seed axis, then label,metric,n,median,ci_low,ci_high,coverage"
        };
        return Err(format!(
            "line 1: not a merged table's header ('{}'): {hint}",
            header.chars().take(80).collect::<String>()
        ));
    }
    let n_axes = head.len() - POINT_COLUMNS.len();
    let mut points = Vec::new();
    for (i, line) in lines {
        if line.is_empty() {
            continue;
        }
        let at = |e: String| format!("line {}: {e}", i + 1);
        let f = csv_fields(line).map_err(at)?;
        if f.len() != head.len() {
            return Err(at(format!(
                "{} fields, the header has {}",
                f.len(),
                head.len()
            )));
        }
        let num = |k: usize| -> Result<f64, String> {
            f[k].parse::<f64>()
                .map_err(|_| at(format!("{} '{}' is not a number", head[k], f[k])))
        };
        points.push(MergedPoint {
            point: f[..n_axes].to_vec(),
            label: f[n_axes].clone(),
            metric: f[n_axes + 1].clone(),
            n: f[n_axes + 2]
                .parse()
                .map_err(|_| at(format!("n '{}' is not a whole number", f[n_axes + 2])))?,
            median: num(n_axes + 3)?,
            ci_low: num(n_axes + 4)?,
            ci_high: num(n_axes + 5)?,
            coverage: num(n_axes + 6)?,
        });
    }
    Ok(MergedTable {
        name: String::new(),
        axes: head[..n_axes].to_vec(),
        seed_axis: None,
        points,
    })
}

/// One metric of a merged table as lines over an x axis, the way a local sweep is drawn.
#[derive(Clone, Debug, PartialEq)]
pub struct MergedLines {
    pub x_label: String,
    /// The x positions: the axis's values when all are numbers, else 0, 1, … in order.
    pub x: Vec<f64>,
    /// The x axis's values as the file has them (the categories when not numbers).
    pub x_text: Vec<String>,
    /// One line per run label and value of the other non-seed axes.
    pub lines: Vec<PolicySeries>,
    /// Seeds per point (the smallest and largest n).
    pub n: (usize, usize),
    /// The interval's coverage (the smallest).
    pub coverage: f64,
}

impl MergedTable {
    /// The metrics the table has, in the file's order.
    pub fn metrics(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for p in &self.points {
            if !out.contains(&p.metric) {
                out.push(p.metric.clone());
            }
        }
        out
    }

    /// `metric` over the x axis `x_axis` (an index into `axes`; `None` when there is no
    /// non-seed axis: one point per line). Missing points are NaN (the chart skips them).
    pub fn lines(&self, metric: &str, x_axis: Option<usize>) -> MergedLines {
        let rows: Vec<&MergedPoint> = self.points.iter().filter(|p| p.metric == metric).collect();
        let x_of = |p: &MergedPoint| {
            x_axis
                .and_then(|a| p.point.get(a).cloned())
                .unwrap_or_default()
        };
        let mut x_text: Vec<String> = Vec::new();
        let mut names: Vec<String> = Vec::new();
        for p in &rows {
            let x = x_of(p);
            if !x_text.contains(&x) {
                x_text.push(x);
            }
            let name = self.line_name(p, x_axis);
            if !names.contains(&name) {
                names.push(name);
            }
        }
        let numeric: Option<Vec<f64>> = x_text.iter().map(|t| t.parse::<f64>().ok()).collect();
        let x = match numeric {
            Some(v) if x_axis.is_some() => v,
            _ => (0..x_text.len()).map(|i| i as f64).collect(),
        };
        let mut lines: Vec<PolicySeries> = names
            .iter()
            .map(|n| PolicySeries {
                policy: n.clone(),
                median: vec![f64::NAN; x.len()],
                lo: vec![f64::NAN; x.len()],
                hi: vec![f64::NAN; x.len()],
            })
            .collect();
        let (mut n_min, mut n_max, mut coverage) = (usize::MAX, 0, 1.0f64);
        for p in &rows {
            let (Some(l), Some(i)) = (
                names.iter().position(|n| *n == self.line_name(p, x_axis)),
                x_text.iter().position(|t| *t == x_of(p)),
            ) else {
                continue;
            };
            lines[l].median[i] = p.median;
            lines[l].lo[i] = p.ci_low;
            lines[l].hi[i] = p.ci_high;
            n_min = n_min.min(p.n);
            n_max = n_max.max(p.n);
            coverage = coverage.min(p.coverage);
        }
        MergedLines {
            x_label: x_axis
                .and_then(|a| self.axes.get(a).cloned())
                .unwrap_or_else(|| "point".into()),
            x,
            x_text,
            lines,
            n: (n_min.min(n_max), n_max),
            coverage,
        }
    }

    /// A line's name: the run label, then the other non-seed axes' values.
    fn line_name(&self, p: &MergedPoint, x_axis: Option<usize>) -> String {
        let mut name = p.label.clone();
        for (a, v) in p.point.iter().enumerate() {
            if Some(a) != x_axis {
                let axis = self.axes.get(a).map_or("", String::as_str);
                name.push_str(&format!(" · {axis}={v}"));
            }
        }
        name
    }

    /// The x axis a plot starts with: the first non-seed axis whose values are all numbers
    /// with more than one value, else the first non-seed axis, else none.
    pub fn default_x_axis(&self) -> Option<usize> {
        let values = |a: usize| {
            let mut v: Vec<&str> = self.points.iter().map(|p| p.point[a].as_str()).collect();
            v.dedup();
            v
        };
        (0..self.axes.len())
            .find(|&a| {
                let v = values(a);
                v.len() > 1 && v.iter().all(|t| t.parse::<f64>().is_ok())
            })
            .or((!self.axes.is_empty()).then_some(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CSV: &str = "policy,label,metric,n,median,ci_low,ci_high,coverage\n\
        easy,\"a,b\",avg_wait_s,3,10,5,20,0.75\n\
        fcfs,\"a,b\",avg_wait_s,3,30,25,40,0.75\n";

    #[test]
    fn points_csv_reads_with_quoted_labels() {
        let t = parse("points.csv", CSV.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(t.axes, ["policy"]);
        assert_eq!(t.points[0].label, "a,b");
        assert_eq!(t.points[1].median, 30.0);
        let l = t.lines("avg_wait_s", Some(0));
        assert_eq!(l.x_text, ["easy", "fcfs"]);
        assert_eq!(l.x, [0.0, 1.0]);
        assert_eq!(l.lines.len(), 1);
        assert_eq!(l.lines[0].median, [10.0, 30.0]);
        assert_eq!(l.n, (3, 3));
    }

    #[test]
    fn other_files_say_what_is_wrong() {
        let e = parse("x.csv", b"case,case_id,seed,label\n1,2,3,4\n").unwrap_err();
        assert!(e.contains("cases.csv"), "{e}");
        let e = parse("x.json", b"{\"base\": {}, \"axes\": []}").unwrap_err();
        assert!(e.contains("sweep manifest"), "{e}");
        let e = parse("x.swf", b"; SWF\n1 2 3\n").unwrap_err();
        assert!(e.starts_with("x.swf: line 1: not a merged table"), "{e}");
        let bad = CSV.replace("30,25", "thirty,25");
        let e = parse("p.csv", bad.as_bytes()).unwrap_err();
        assert_eq!(e, "p.csv: line 3: median 'thirty' is not a number");
        assert!(parse("e.csv", b"").is_err());
        assert!(parse("b.bin", &[0xff, 0xfe]).is_err());
    }
}
