//! What the families' tables and case results share: the "median [lo, hi]" band table of
//! KKOR's and SCJG's sweeps, a case line's label and its metrics by name.

use std::fmt::Write;

use serde_json::{Map, Value};

use crate::kkor::presets::KkorSeries;

/// Per metric, a table of x against each line's "median [lo, hi]".
pub fn band_table(header: String, x: &[f64], series: &[KkorSeries], decimals: usize) -> String {
    let mut s = header;
    let mut metrics: Vec<&str> = Vec::new();
    for l in series {
        if !metrics.contains(&l.metric.as_str()) {
            metrics.push(&l.metric);
        }
    }
    // A cell is "median [lo, hi]": the policy names sit right-aligned above it.
    let width = 20 + 4 * decimals;
    for metric in metrics {
        let lines: Vec<_> = series.iter().filter(|l| l.metric == metric).collect();
        let _ = write!(s, "\n{metric}\n{:>8}", "x");
        for l in &lines {
            let _ = write!(s, "{:>width$}", l.policy);
        }
        s.push('\n');
        for (i, x) in x.iter().enumerate() {
            let _ = write!(s, "{x:>8}");
            for l in &lines {
                let (m, lo, hi) = (l.median[i], l.lo[i], l.hi[i]);
                let _ = write!(s, "{m:>12.decimals$} [{lo:.decimals$}, {hi:.decimals$}]");
            }
            s.push('\n');
        }
    }
    s
}

/// A seed sweep's header: the preset and what it shows, the seeds and band, the x axis.
pub fn sweep_header(
    preset: &str,
    description: &str,
    seeds: u64,
    confidence: f64,
    x_label: &str,
) -> String {
    format!(
        "{preset}: {description}\n{seeds} seeds; medians with a {:.1} % band; x = {x_label}\n",
        confidence * 100.0
    )
}

/// `s` with its trailing whitespace replaced by one newline (how the CLI prints a table).
pub fn one_newline(s: String) -> String {
    format!("{}\n", s.trim_end())
}

/// A case line's label: the policy alone when the case holds one x, else with its x.
pub fn case_label(name: &str, x: f64, xs: usize) -> String {
    if xs == 1 {
        name.to_string()
    } else {
        format!("{name} x={x}")
    }
}

/// Metrics by name.
pub fn numbers<'a>(pairs: impl IntoIterator<Item = (&'a str, f64)>) -> Map<String, Value> {
    pairs
        .into_iter()
        .map(|(k, v)| (k.to_string(), Value::from(v)))
        .collect()
}
