//! Verdicts in words (issue #38): what a reader is told under each claim, on the page, in
//! the CLI's table and in the docs' Markdown. The JSON card keeps each verdict's name
//! (`verdict`: `reproduced`, `trend`, `not_reproduced`, …, and the summary's keys) and adds
//! the words beside it (`verdict_text`, `because`), so a script reading the old field reads
//! what it always read.
//!
//! A value outside the tolerance but on the paper's side used to be called a "trend", which
//! was too kind: it covered effects three to four times the paper's. It is now "same
//! direction, larger by ×k" (or "smaller by ×k"), with k = ours ÷ the paper's value printed,
//! so a 3× gap reads as one.

use super::{Bounds, Tolerance, Verdict};

impl Verdict {
    /// The verdict as a reader is told it when there is no size to print: "same direction"
    /// for a trend. [`Verdict::label`] stays the JSON summary's key.
    pub fn words(self) -> &'static str {
        match self {
            Verdict::Trend => "same direction",
            other => other.label(),
        }
    }

    /// The class the page colours a verdict by (one word, no spaces).
    pub fn css_class(self) -> &'static str {
        match self {
            Verdict::Reproduced => "reproduced",
            Verdict::Trend => "trend",
            Verdict::NotReproduced => "not-reproduced",
            Verdict::NotModelled => "not-modelled",
            Verdict::NotRun => "not-run",
        }
    }
}

/// How many times the paper's value ours is, as "larger by ×k" / "smaller by ×k" (k ≥ 1, two
/// decimals); `None` when the two differ in sign or one is zero (no ratio to state).
pub fn size_against(ours: f64, paper: f64) -> Option<String> {
    if ours == 0.0 || paper == 0.0 || ours.signum() != paper.signum() {
        return None;
    }
    let k = (ours / paper).abs();
    if !k.is_finite() {
        return None;
    }
    Some(if k >= 1.0 {
        format!("larger by ×{k:.2}")
    } else {
        format!("smaller by ×{:.2}", 1.0 / k)
    })
}

/// The verdict of `ours` in words: "reproduced", "same direction, larger by ×3.08",
/// "same direction, short of above 1.1" (a direction claim with no paper value), "not
/// reproduced", "not modelled", "not run".
pub fn verdict_text(
    verdict: Verdict,
    ours: Option<f64>,
    paper: Option<f64>,
    tolerance: &Tolerance,
    unit: &str,
) -> String {
    if verdict != Verdict::Trend {
        return verdict.words().into();
    }
    let size = match (ours, paper) {
        (Some(v), Some(p)) => size_against(v, p),
        _ => None,
    };
    match (size, &tolerance.expect) {
        (Some(size), _) => format!("same direction, {size}"),
        (None, Some(expect)) => format!("same direction, short of {}", expect.describe(unit)),
        (None, None) => verdict.words().into(),
    }
}

/// Why the verdict is what it is, from the tolerance written beside the claim (or the run's
/// error): "within ±10 % of the paper's", "outside ±5 points, but above 0 % (the paper's
/// side)", … The claim's note, when it has one, is the row's `note`.
pub fn because(
    verdict: Verdict,
    paper: Option<f64>,
    tolerance: &Tolerance,
    unit: &str,
    error: &str,
) -> String {
    let close = Tolerance {
        expect: None,
        trend: None,
        ..tolerance.clone()
    }
    .describe(paper, unit);
    let side = |b: &Option<Bounds>| b.as_ref().map(|b| b.describe(unit));
    match verdict {
        Verdict::Reproduced if !close.is_empty() => format!("within {close}"),
        Verdict::Reproduced => match side(&tolerance.expect) {
            Some(e) => format!("the stated direction holds ({e})"),
            None => "within the tolerance".into(),
        },
        Verdict::Trend => {
            let outside = if close.is_empty() {
                side(&tolerance.expect).map_or_else(String::new, |e| format!("not {e}"))
            } else {
                format!("outside {close}")
            };
            match side(&tolerance.trend) {
                Some(t) => format!("{outside}, but {t} (the paper's side)"),
                None => outside,
            }
        }
        Verdict::NotReproduced => {
            let mut parts = Vec::new();
            if !close.is_empty() {
                parts.push(format!("outside {close}"));
            }
            if let Some(e) = side(&tolerance.expect) {
                parts.push(format!("not {e}"));
            }
            if let Some(t) = side(&tolerance.trend) {
                parts.push(format!("not even {t}"));
            }
            parts.join(", ")
        }
        Verdict::NotModelled => "Gridscope has no run for it".into(),
        Verdict::NotRun => error.to_string(),
    }
}
