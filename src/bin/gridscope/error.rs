//! [`CliError`]: why a command failed, typed by where it failed. The variant decides the exit
//! code ([`CliError::exit_code`]: 2 for a bad command line, 1 for everything else) and
//! `Display` gives the message printed after `error:`; the library's error stays the
//! [`source`](std::error::Error::source), so nothing is flattened to a string on the way.

use std::fmt;
use std::path::PathBuf;

use gridscope::energy::{CarbonError, PowerError};
use gridscope::failure::FailureError;
use gridscope::family::FamilyError;
use gridscope::limits::{LimitExceeded, ReadError};
use gridscope::scenario::manifest::ManifestError;
use gridscope::scenario::ScenarioError;
use gridscope::workload::SwfError;

/// Why a command failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum CliError {
    /// A bad command line found after parsing (a flag that does not apply, two that exclude
    /// each other): exit 2 with the subcommand's usage.
    Usage(String),
    /// An input file could not be read, or is larger than `--max-file-bytes`.
    Read(ReadError),
    /// An input file that must be text is not UTF-8.
    NotUtf8 { file: String },
    /// A result file could not be written (a missing folder, a full disk).
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A folder for results could not be made.
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The results could not be written to stdout (other than a closed pipe).
    Stdout(std::io::Error),
    /// A trace does not parse (the message names the file and line).
    Trace(SwfError),
    /// A scenario is invalid or its run failed.
    Scenario(ScenarioError),
    /// A sweep manifest is invalid (the field it is about in the message).
    Manifest(ManifestError),
    /// A paper family's run failed; its `Usage` variant is a bad command line (exit 2).
    Family(FamilyError),
    /// An input passed one of the `--max-…` limits.
    Limit(LimitExceeded),
    /// A carbon-intensity file does not parse.
    Carbon(CarbonError),
    /// A power model is out of range.
    Power(PowerError),
    /// An outage file or a failure model is bad (the message names the line or field).
    Failure(FailureError),
    /// A result could not be put into JSON.
    Json(serde_json::Error),
    /// Another error, said of a file or a place (`FILE: …`, `FILE:LINE: …`).
    At {
        place: String,
        source: Box<CliError>,
    },
    /// The command's own finding, with no error beneath it (a case that failed, a plan that
    /// does not match its folder, a value out of range): exit 1.
    Failed(String),
}

impl CliError {
    /// The error said of `place` (a file, `file:line`), unless it is a usage error (which is
    /// about the command line, not the file).
    pub fn at(self, place: impl Into<String>) -> CliError {
        if self.is_usage() {
            return self;
        }
        CliError::At {
            place: place.into(),
            source: Box::new(self),
        }
    }

    /// Whether it is a bad command line (printed with the subcommand's usage).
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            CliError::Usage(_) | CliError::Family(FamilyError::Usage { .. })
        )
    }

    /// The process's exit code: 2 for a bad command line, 1 for bad input, a failed run or
    /// results that could not be written.
    pub fn exit_code(&self) -> u8 {
        if self.is_usage() {
            2
        } else {
            1
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Usage(m) | CliError::Failed(m) => f.write_str(m),
            CliError::Read(e) => e.fmt(f),
            CliError::NotUtf8 { file } => write!(f, "{file} is not UTF-8 text"),
            CliError::Write { path, source } => {
                write!(f, "cannot write {}: {source}", path.display())
            }
            CliError::CreateDir { path, source } => {
                write!(f, "cannot create the folder {}: {source}", path.display())
            }
            CliError::Stdout(e) => write!(f, "cannot write the results to stdout: {e}"),
            CliError::Trace(e) => e.fmt(f),
            CliError::Scenario(e) => e.fmt(f),
            CliError::Manifest(e) => e.fmt(f),
            CliError::Family(e) => e.fmt(f),
            CliError::Limit(e) => e.fmt(f),
            CliError::Carbon(e) => e.fmt(f),
            CliError::Power(e) => e.fmt(f),
            CliError::Failure(e) => e.fmt(f),
            CliError::Json(e) => e.fmt(f),
            CliError::At { place, source } => write!(f, "{place}: {source}"),
        }
    }
}

impl std::error::Error for CliError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CliError::Usage(_) | CliError::Failed(_) | CliError::NotUtf8 { .. } => None,
            CliError::Read(e) => Some(e),
            CliError::Write { source, .. }
            | CliError::CreateDir { source, .. }
            | CliError::Stdout(source) => Some(source),
            CliError::Trace(e) => Some(e),
            CliError::Scenario(e) => Some(e),
            CliError::Manifest(e) => Some(e),
            CliError::Family(e) => Some(e),
            CliError::Limit(e) => Some(e),
            CliError::Carbon(e) => Some(e),
            CliError::Power(e) => Some(e),
            CliError::Failure(e) => Some(e),
            CliError::Json(e) => Some(e),
            CliError::At { source, .. } => Some(source.as_ref()),
        }
    }
}

macro_rules! from {
    ($($ty:ty => $variant:ident),* $(,)?) => {
        $(impl From<$ty> for CliError {
            fn from(e: $ty) -> Self {
                CliError::$variant(e)
            }
        })*
    };
}

from! {
    ReadError => Read,
    SwfError => Trace,
    ScenarioError => Scenario,
    ManifestError => Manifest,
    FamilyError => Family,
    LimitExceeded => Limit,
    CarbonError => Carbon,
    PowerError => Power,
    FailureError => Failure,
    serde_json::Error => Json,
}
