//! The KKOR and SCJG metrics as the page names and prints them: the engine's keys (the
//! CLI's JSON keys, kept as `data-metric`/`data-key` on the cells) become words, durations
//! read in the unit that suits them, counts print as whole numbers. One entry per key, so a
//! table and its chart agree on a quantity's name and unit.

use super::format::{fmt_duration, fmt_num};

/// What kind of quantity a metric is, which decides how it prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantity {
    /// Seconds of simulated time (SCJG's traces): printed as a duration.
    Seconds,
    /// KKOR's abstract time units (job lengths drawn around 20 of them).
    TimeUnits,
    /// A number of jobs, retries, migrations: whole; a median of an even number of seeds
    /// may end in .5, printed with one decimal.
    Count,
    /// A ratio, share or mean of counts.
    Ratio,
}

/// The family metrics: (key, name, quantity).
const METRICS: [(&str, &str, Quantity); 16] = [
    ("mean_flow_time", "mean flow time F̄", Quantity::TimeUnits),
    ("mean_tardiness", "mean tardiness L̄", Quantity::TimeUnits),
    ("late_jobs", "late jobs U", Quantity::Count),
    ("migrations", "migrations", Quantity::Count),
    ("utilization", "utilization", Quantity::Ratio),
    (
        "avg_expansion_factor",
        "expansion factor (Maui)",
        Quantity::Ratio,
    ),
    (
        "local_expansion_factor",
        "local jobs' expansion factor",
        Quantity::Ratio,
    ),
    (
        "metajob_expansion_factor",
        "metajobs' expansion factor",
        Quantity::Ratio,
    ),
    ("metajob_queue_s", "metajob queue time", Quantity::Seconds),
    ("local_wait_s", "local wait", Quantity::Seconds),
    ("retries", "retries per metajob", Quantity::Ratio),
    (
        "lockdown_utilization",
        "lock-down block utilization",
        Quantity::Ratio,
    ),
    (
        "max_retries_seen",
        "most retries of one metajob",
        Quantity::Count,
    ),
    ("metajobs_failed", "metajobs failed", Quantity::Count),
    ("metajobs_rejected", "metajobs rejected", Quantity::Count),
    ("lock_wait_s", "lock-down wait", Quantity::Seconds),
];

/// The metric's name and quantity; an unknown key is shown as it is, as a ratio.
pub fn describe(key: &str) -> (&str, Quantity) {
    METRICS
        .iter()
        .find(|m| m.0 == key)
        .map_or((key, Quantity::Ratio), |m| (m.1, m.2))
}

/// The metric's column or row heading, with its unit where the number does not carry it.
pub fn heading(key: &str) -> String {
    match describe(key) {
        (name, Quantity::TimeUnits) => format!("{name} (time units)"),
        (name, _) => name.to_string(),
    }
}

/// A value as a table cell prints it, and the exact number for its tooltip.
pub fn cell(key: &str, v: f64) -> (String, String) {
    let exact = super::format::json_num(v);
    match describe(key).1 {
        Quantity::Seconds => (fmt_duration(v), format!("{exact} s")),
        Quantity::TimeUnits => (fmt_num(v, 2), exact),
        Quantity::Count if v.fract() == 0.0 => (fmt_num(v, 0), exact),
        Quantity::Count => (
            fmt_num(v, 1),
            format!("{exact} (a median between two seeds)"),
        ),
        Quantity::Ratio => (fmt_num(v, 3), exact),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::*;

    #[wasm_bindgen_test]
    fn every_metric_prints_in_its_own_unit() {
        assert_eq!(cell("metajob_queue_s", 15_420.0).0, "4 h 17 min");
        assert_eq!(cell("migrations", 312.0).0, "312");
        assert_eq!(cell("migrations", 312.5).0, "312.5");
        assert_eq!(cell("utilization", 0.61234).0, "0.612");
        assert_eq!(heading("mean_flow_time"), "mean flow time F̄ (time units)");
        assert_eq!(heading("avg_expansion_factor"), "expansion factor (Maui)");
        assert_eq!(heading("unknown_key"), "unknown_key");
    }
}
