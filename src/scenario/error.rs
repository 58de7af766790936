//! [`ScenarioError`]: what can go wrong reading or running a scenario, worded for the CLI and
//! the page alike, and the "did you mean" a misspelt field name gets.

use crate::engine::SimError;
use crate::limits::LimitExceeded;
use crate::workload::SwfError;

/// What can go wrong running a scenario, each variant with what to do about it. The CLI and
/// the page both print it through `Display`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ScenarioError {
    /// The scenario JSON does not parse (serde's message names the line and column).
    Json { detail: String },
    /// A scenario file of another format version.
    UnsupportedVersion { found: u32, supported: u32 },
    /// The scenario lists no algorithm.
    NoAlgorithms,
    /// `platform.kind = preset` names no preset.
    UnknownPlatformPreset { name: String, known: Vec<String> },
    /// The platform cannot be simulated (no site, a site with no units, a bad speed).
    InvalidPlatform { reason: String },
    /// An algorithm's grid parameters are out of range.
    InvalidGridParams { label: String, reason: String },
    /// The workload names more sites than the platform has.
    TooFewSites {
        workload_sites: usize,
        platform: String,
        platform_sites: usize,
    },
    /// A workload generator's parameters are out of range.
    InvalidGenerator { reason: String },
    /// Per-site workloads could not be merged (alignment, window).
    Merge { reason: String },
    /// A workload file could not be had (the loader's reason: missing, not dropped, unreadable).
    Load { file: String, reason: String },
    /// A workload file is not valid SWF (strict mode, or a broken gzip stream).
    Swf(SwfError),
    /// The scenario passed one of the [`Limits`](crate::limits::Limits) (sites, generated jobs).
    Limit(LimitExceeded),
    /// Nothing runnable was left after the import.
    EmptyWorkload { name: String, summary: String },
    /// The engine refused the input or the run failed (see [`SimError`]).
    Sim(SimError),
    /// Anything else wrong with the scenario (presets and parameters of the edges).
    Invalid(String),
}

impl std::fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let invalid = |f: &mut std::fmt::Formatter<'_>, m: &dyn std::fmt::Display| {
            write!(f, "invalid scenario: {m}")
        };
        match self {
            ScenarioError::Json { detail } => invalid(f, &format_args!("scenario JSON: {detail}")),
            ScenarioError::UnsupportedVersion { found, supported } => invalid(
                f,
                &format_args!("scenario version {found} is not supported (this build reads version {supported})"),
            ),
            ScenarioError::NoAlgorithms => invalid(f, &"no algorithm to run"),
            ScenarioError::UnknownPlatformPreset { name, known } => invalid(
                f,
                &format_args!("unknown platform preset '{name}'; known: {}", known.join(", ")),
            ),
            ScenarioError::InvalidPlatform { reason }
            | ScenarioError::InvalidGenerator { reason }
            | ScenarioError::Merge { reason } => invalid(f, reason),
            ScenarioError::InvalidGridParams { label, reason } => {
                invalid(f, &format_args!("{label}: {reason}"))
            }
            ScenarioError::TooFewSites {
                workload_sites,
                platform,
                platform_sites,
            } => invalid(
                f,
                &format_args!("the workload has {workload_sites} sites but the platform '{platform}' only {platform_sites}"),
            ),
            ScenarioError::Load { reason, .. } => f.write_str(reason),
            ScenarioError::Swf(e) => e.fmt(f),
            ScenarioError::Limit(e) => e.fmt(f),
            ScenarioError::EmptyWorkload { name, summary } => {
                write!(f, "{name}: no runnable job to simulate\n{summary}")
            }
            ScenarioError::Sim(e) => e.fmt(f),
            ScenarioError::Invalid(m) => invalid(f, m),
        }
    }
}

impl std::error::Error for ScenarioError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ScenarioError::Swf(e) => Some(e),
            ScenarioError::Sim(e) => Some(e),
            _ => None,
        }
    }
}

/// serde says "unknown field `option`, expected one of `version`, …": add the nearest valid
/// name ("did you mean `options`?") when one is close (edit distance ≤ 3).
pub(super) fn with_suggestion(message: String) -> String {
    let Some(rest) = message.strip_prefix("unknown field `") else {
        return message;
    };
    let Some((unknown, expected)) = rest.split_once('`') else {
        return message;
    };
    let nearest = expected
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|name| (edit_distance(unknown, name), name))
        .min();
    match nearest {
        Some((d, name)) if d <= 3 && d < unknown.len() => {
            format!("{message} — did you mean `{name}`?")
        }
        _ => message,
    }
}

/// Levenshtein distance (small strings: field names).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}
