//! The family metrics as the page names and prints them: the engine's keys (the CLI's JSON
//! keys, kept as `data-metric`/`data-key` on the cells) become the words of the family
//! registry's `MetricInfo`, durations read in the unit that suits them, counts print as
//! whole numbers. One entry per key, so a table and its chart agree on a quantity's name
//! and unit.

use super::format::{fmt_duration, fmt_num};

pub use crate::family::Quantity;

/// The metric's name and quantity (the family registry's); an unknown key is shown as it
/// is, as a ratio.
pub fn describe(key: &str) -> (&str, Quantity) {
    crate::family::metric(key).map_or((key, Quantity::Ratio), |m| (m.name, m.quantity))
}

/// What family `family`'s metric `key` measures, for the help under its chart (the family
/// registry's: a key two families share, such as `utilization`, may be measured apart).
pub fn help(family: &str, key: &str) -> &'static str {
    crate::family::by_id(family)
        .and_then(|f| f.info().metrics.iter().find(|m| m.key == key))
        .map_or("", |m| m.help)
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
        // Names and units are the registry's; each family's help is its own.
        assert!(help("kkor", "utilization").starts_with("Utilization R̄"));
        assert!(help("scjg", "utilization").starts_with("Work of local jobs"));
        assert_eq!(help("sf", "utilization"), "");
    }
}
