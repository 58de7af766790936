//! [`KkorError`]: why a KKOR run gave no result, by what the caller can do about it. The
//! texts are the CLI's and the page's messages; [`FamilyError`](crate::family::FamilyError)
//! takes it with `From`.

use std::fmt;

/// A KKOR run's failure.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum KkorError {
    /// An option or input out of range; `what` names it (`coefficients`, `x`, `jobs`…).
    Invalid { what: &'static str, reason: String },
    /// The caller's progress callback asked to stop.
    Cancelled { what: &'static str },
    /// The schedule could not be completed or broke one of its invariants (a bug).
    Run(String),
}

impl KkorError {
    /// `what` is out of range.
    pub fn invalid(what: &'static str, reason: impl Into<String>) -> KkorError {
        KkorError::Invalid {
            what,
            reason: reason.into(),
        }
    }
}

impl fmt::Display for KkorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KkorError::Invalid { reason, .. } => f.write_str(reason),
            KkorError::Cancelled { what } => write!(f, "KKOR {what} cancelled"),
            KkorError::Run(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for KkorError {}

/// The page's KKOR panels take the sentence.
impl From<KkorError> for String {
    fn from(e: KkorError) -> Self {
        e.to_string()
    }
}
