//! The run metrics the page shows, as typed accessors of [`Metrics`]: a metric renamed in
//! the engine is a compile error here, not a blank column. `key()` is only the name the
//! page prints (`data-key`, the CLI's JSON key) and looks the help text up by; a wasm test
//! checks it against serde's field names.

use crate::metrics::{Metrics, METRIC_HELP};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    AvgWait,
    AvgResponse,
    WaitStddev,
    MaxWait,
    BoundedSlowdown,
    ExpansionFactor,
    Utilization,
    GridEfficiency,
    Occupancy,
    FractionTransferred,
    Makespan,
    Finished,
    Killed,
    Rejected,
    Skipped,
}

/// A metric's value: counts stay integers so they print as the CLI prints them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    Real(f64),
    Count(u64),
}

impl Value {
    pub fn as_f64(self) -> f64 {
        match self {
            Value::Real(v) => v,
            Value::Count(n) => n as f64,
        }
    }

    /// The number as the engine's JSON writes it (the CLI's `--json` text).
    pub fn json(self) -> String {
        match self {
            Value::Real(v) => super::format::json_num(v),
            Value::Count(n) => n.to_string(),
        }
    }
}

impl Metric {
    /// The results table's columns, in order.
    pub const COLUMNS: [Metric; 15] = [
        Metric::AvgWait,
        Metric::AvgResponse,
        Metric::WaitStddev,
        Metric::MaxWait,
        Metric::BoundedSlowdown,
        Metric::ExpansionFactor,
        Metric::Utilization,
        Metric::GridEfficiency,
        Metric::Occupancy,
        Metric::FractionTransferred,
        Metric::Makespan,
        Metric::Finished,
        Metric::Killed,
        Metric::Rejected,
        Metric::Skipped,
    ];

    /// Metrics offered for the normalized bar chart.
    pub const BARS: [Metric; 7] = [
        Metric::AvgWait,
        Metric::AvgResponse,
        Metric::BoundedSlowdown,
        Metric::ExpansionFactor,
        Metric::Utilization,
        Metric::Makespan,
        Metric::MaxWait,
    ];

    pub fn value(self, m: &Metrics) -> Value {
        use Value::{Count, Real};
        match self {
            Metric::AvgWait => Real(m.avg_wait_s),
            Metric::AvgResponse => Real(m.avg_response_s),
            Metric::WaitStddev => Real(m.wait_stddev_s),
            Metric::MaxWait => Real(m.max_wait_s),
            Metric::BoundedSlowdown => Real(m.avg_bounded_slowdown),
            Metric::ExpansionFactor => Real(m.avg_expansion_factor),
            Metric::Utilization => Real(m.utilization),
            Metric::GridEfficiency => Real(m.grid_efficiency),
            Metric::Occupancy => Real(m.occupancy),
            Metric::FractionTransferred => Real(m.fraction_transferred),
            Metric::Makespan => Real(m.makespan_s),
            Metric::Finished => Count(m.jobs_finished),
            Metric::Killed => Count(m.jobs_killed),
            Metric::Rejected => Count(m.jobs_rejected),
            Metric::Skipped => Count(m.jobs_skipped),
        }
    }

    pub fn get(self, m: &Metrics) -> f64 {
        self.value(m).as_f64()
    }

    /// The CLI's JSON key (the field's serde name).
    pub fn key(self) -> &'static str {
        match self {
            Metric::AvgWait => "avg_wait_s",
            Metric::AvgResponse => "avg_response_s",
            Metric::WaitStddev => "wait_stddev_s",
            Metric::MaxWait => "max_wait_s",
            Metric::BoundedSlowdown => "avg_bounded_slowdown",
            Metric::ExpansionFactor => "avg_expansion_factor",
            Metric::Utilization => "utilization",
            Metric::GridEfficiency => "grid_efficiency",
            Metric::Occupancy => "occupancy",
            Metric::FractionTransferred => "fraction_transferred",
            Metric::Makespan => "makespan_s",
            Metric::Finished => "jobs_finished",
            Metric::Killed => "jobs_killed",
            Metric::Rejected => "jobs_rejected",
            Metric::Skipped => "jobs_skipped",
        }
    }

    /// The results table's header.
    pub fn header(self) -> &'static str {
        match self {
            Metric::AvgWait => "avg wait (s)",
            Metric::AvgResponse => "avg response (s)",
            Metric::WaitStddev => "wait sd (s)",
            Metric::MaxWait => "max wait (s)",
            Metric::BoundedSlowdown => "bounded slowdown",
            Metric::ExpansionFactor => "expansion factor",
            Metric::Utilization => "utilization",
            Metric::GridEfficiency => "grid efficiency",
            Metric::Occupancy => "occupancy",
            Metric::FractionTransferred => "transferred",
            Metric::Makespan => "makespan (s)",
            Metric::Finished => "finished",
            Metric::Killed => "killed",
            Metric::Rejected => "rejected",
            Metric::Skipped => "skipped",
        }
    }

    /// The bar chart's name for it.
    pub fn title(self) -> &'static str {
        match self {
            Metric::AvgWait => "Average wait",
            Metric::AvgResponse => "Average response",
            Metric::BoundedSlowdown => "Bounded slowdown",
            Metric::ExpansionFactor => "Expansion factor",
            Metric::Utilization => "Utilization",
            Metric::Makespan => "Makespan",
            Metric::MaxWait => "Maximum wait",
            other => other.header(),
        }
    }

    /// True for the metrics in seconds: the table shows them in the unit that reads best
    /// (`format::fmt_duration`), with the exact seconds on hover.
    pub fn is_duration(self) -> bool {
        matches!(
            self,
            Metric::AvgWait
                | Metric::AvgResponse
                | Metric::WaitStddev
                | Metric::MaxWait
                | Metric::Makespan
        )
    }

    /// Decimals shown in the table.
    pub fn decimals(self) -> usize {
        match self {
            Metric::AvgWait | Metric::AvgResponse | Metric::WaitStddev => 1,
            Metric::BoundedSlowdown => 2,
            Metric::ExpansionFactor
            | Metric::Utilization
            | Metric::GridEfficiency
            | Metric::Occupancy
            | Metric::FractionTransferred => 3,
            _ => 0,
        }
    }

    /// The formula and its source (`gridscope help metrics`).
    pub fn help(self) -> String {
        METRIC_HELP
            .iter()
            .find(|m| m.key == self.key())
            .map(|m| {
                if m.source.is_empty() {
                    m.formula.to_string()
                } else {
                    format!("{} [{}]", m.formula, m.source)
                }
            })
            .unwrap_or_default()
    }
}
