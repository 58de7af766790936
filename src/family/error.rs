//! Why a family run did not give a result. The texts are the ones the CLI prints after
//! `error:`; each variant says what the caller can do.

use std::fmt;

use crate::limits::LimitExceeded;

/// A family run's failure.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum FamilyError {
    /// No family has a preset of this name: see `gridscope help presets`.
    UnknownPreset { name: String },
    /// An option the preset does not take, or two that exclude each other (the CLI's flags
    /// in the message): a bad command line, not a bad run.
    Usage { message: String },
    /// An option's value is out of range or malformed; `what` names the option or field.
    Invalid { what: String, reason: String },
    /// A trace the run reads could not be read or parsed (`reason` names the file).
    Load { file: String, reason: String },
    /// A configured limit was reached: raise it (the CLI's `--max-…` flags) or ask less.
    Limit(LimitExceeded),
    /// The run failed in the family's own code; the message says why.
    Run(String),
}

impl FamilyError {
    /// An option's value is wrong.
    pub fn invalid(what: impl Into<String>, reason: impl Into<String>) -> FamilyError {
        FamilyError::Invalid {
            what: what.into(),
            reason: reason.into(),
        }
    }

    /// A trace could not be read.
    pub fn load(file: &str, reason: impl fmt::Display) -> FamilyError {
        FamilyError::Load {
            file: file.to_string(),
            reason: reason.to_string(),
        }
    }
}

impl fmt::Display for FamilyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FamilyError::UnknownPreset { name } => {
                write!(f, "unknown preset '{name}' (see `gridscope help presets`)")
            }
            FamilyError::Usage { message } => f.write_str(message),
            // The families' messages already name what is wrong.
            FamilyError::Invalid { reason, .. } => f.write_str(reason),
            FamilyError::Load { reason, .. } => f.write_str(reason),
            FamilyError::Limit(e) => write!(f, "{e}"),
            FamilyError::Run(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for FamilyError {}

impl From<LimitExceeded> for FamilyError {
    fn from(e: LimitExceeded) -> Self {
        FamilyError::Limit(e)
    }
}

/// The families' own functions say what went wrong in a sentence.
impl From<String> for FamilyError {
    fn from(m: String) -> Self {
        FamilyError::Run(m)
    }
}

/// An option out of range keeps the field it names; a cancel or a failed schedule is the run's.
impl From<crate::kkor::KkorError> for FamilyError {
    fn from(e: crate::kkor::KkorError) -> Self {
        match e {
            crate::kkor::KkorError::Invalid { what, reason } => FamilyError::invalid(what, reason),
            e => FamilyError::Run(e.to_string()),
        }
    }
}

impl From<crate::scenario::ScenarioError> for FamilyError {
    fn from(e: crate::scenario::ScenarioError) -> Self {
        match e {
            crate::scenario::ScenarioError::Limit(l) => FamilyError::Limit(l),
            e => FamilyError::Run(e.to_string()),
        }
    }
}
