//! The SF view's sweep fields: each parameter as the inputs show it, and the
//! [`SweepSpec`] they describe (the error names the field).

use crate::allocation::sweep::{
    parse_numbers, parse_policies, Arrivals, SweepSpec, Vary, SWEEP_PARAM_HELP,
};
use crate::allocation::Dispatch;

/// The sweep's editable parameters, each kept as typed until Run parses them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SweepField {
    Vary,
    X,
    Rates,
    ArrivalKind,
    Arrivals,
    BatchSize,
    Cv,
    Policies,
    Dispatch,
}

/// The fields' text, as the inputs show it.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepFields {
    pub vary: Vary,
    pub x: String,
    pub rates: String,
    /// "lambda" or "load".
    pub arrival_kind: String,
    pub arrivals: String,
    pub batch_size: String,
    pub cv: String,
    pub policies: String,
    pub dispatch: Dispatch,
    /// DLL's load-report interval (from a link or the CLI's spec; the x axis `dll_report`
    /// varies it in the page).
    pub dll_report_s: f64,
}

fn join(v: &[f64]) -> String {
    v.iter().map(f64::to_string).collect::<Vec<_>>().join(",")
}

impl SweepFields {
    pub fn of(spec: &SweepSpec) -> SweepFields {
        let (kind, value) = match spec.arrivals {
            Arrivals::Lambda(l) => ("lambda", l),
            Arrivals::Load(l) => ("load", l),
        };
        SweepFields {
            vary: spec.vary,
            x: join(&spec.x),
            rates: join(&spec.rates),
            arrival_kind: kind.into(),
            arrivals: value.to_string(),
            batch_size: spec.batch_size.to_string(),
            cv: spec.arrival_cv.to_string(),
            policies: spec
                .policies
                .iter()
                .map(|p| p.name())
                .collect::<Vec<_>>()
                .join(","),
            dispatch: spec.dispatch,
            dll_report_s: spec.dll_report_s,
        }
    }

    /// The spec the fields describe; the error names the field.
    pub fn spec(&self) -> Result<SweepSpec, String> {
        let number = |what: &str, v: &str| {
            v.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| format!("{what}: '{}' is not a number", v.trim()))
        };
        let value = number(&self.arrival_kind, &self.arrivals)?;
        Ok(SweepSpec {
            vary: self.vary,
            x: parse_numbers("x values", &self.x)?,
            rates: parse_numbers("rates", &self.rates)?,
            arrivals: if self.arrival_kind == "load" {
                Arrivals::Load(value)
            } else {
                Arrivals::Lambda(value)
            },
            batch_size: self
                .batch_size
                .trim()
                .parse()
                .map_err(|_| format!("k: '{}' is not a whole number", self.batch_size.trim()))?,
            arrival_cv: number("CV", &self.cv)?,
            policies: parse_policies(&self.policies)?,
            dispatch: self.dispatch,
            dll_report_s: self.dll_report_s,
        })
    }

    /// Puts `v`, as typed, in field `f`; an x axis the sweep does not know is refused.
    pub fn set(&mut self, f: SweepField, v: String) -> Result<(), String> {
        match f {
            SweepField::Vary => self.vary = Vary::parse(&v)?,
            SweepField::X => self.x = v,
            SweepField::Rates => self.rates = v,
            SweepField::ArrivalKind => self.arrival_kind = v,
            SweepField::Arrivals => self.arrivals = v,
            SweepField::BatchSize => self.batch_size = v,
            SweepField::Cv => self.cv = v,
            SweepField::Policies => self.policies = v,
            SweepField::Dispatch => {
                self.dispatch = if v == "rounded" {
                    Dispatch::Rounded
                } else {
                    Dispatch::Random
                }
            }
        }
        Ok(())
    }
}

/// The CLI's help text of sweep parameter `key` (empty when it has none).
pub fn param_help(key: &str) -> &'static str {
    SWEEP_PARAM_HELP
        .iter()
        .find(|(k, _)| *k == key)
        .map_or("", |(_, h)| h)
}
