//! Simulated time: an integer count of milliseconds.
//!
//! Integer time keeps every run exactly reproducible (no float drift when events are ordered),
//! and a millisecond is fine enough for speed-scaled runtimes: a 1 s job moved to a machine
//! 3.7× faster still runs a distinct, exactly comparable 270 ms.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// Ticks of [`SimTime`] per simulated second.
pub const TICKS_PER_SEC: i64 = 1000;

/// A point in (or span of) simulated time, in milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub i64);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    /// Later than any event of any run; used for "never".
    pub const NEVER: SimTime = SimTime(i64::MAX);

    /// Whole seconds to time.
    pub const fn from_secs(secs: i64) -> SimTime {
        SimTime(secs.saturating_mul(TICKS_PER_SEC))
    }

    /// Seconds (possibly fractional) to time, rounded to the nearest millisecond.
    pub fn from_secs_f64(secs: f64) -> SimTime {
        SimTime((secs * TICKS_PER_SEC as f64).round() as i64)
    }

    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / TICKS_PER_SEC as f64
    }

    pub const fn ticks(self) -> i64 {
        self.0
    }
}

impl Add for SimTime {
    type Output = SimTime;
    fn add(self, rhs: SimTime) -> SimTime {
        SimTime(self.0.saturating_add(rhs.0))
    }
}

impl AddAssign for SimTime {
    fn add_assign(&mut self, rhs: SimTime) {
        *self = *self + rhs;
    }
}

impl Sub for SimTime {
    type Output = SimTime;
    fn sub(self, rhs: SimTime) -> SimTime {
        SimTime(self.0.saturating_sub(rhs.0))
    }
}

/// Seconds, printed as an integer when exact and with up to three decimals otherwise
/// (the per-job CSV convention: `12`, `12.5`, `12.345`).
impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = self.0;
        let sign = if t < 0 { "-" } else { "" };
        let abs = t.unsigned_abs();
        let secs = abs / TICKS_PER_SEC as u64;
        let frac = abs % TICKS_PER_SEC as u64;
        if frac == 0 {
            write!(f, "{sign}{secs}")
        } else {
            let mut digits = format!("{frac:03}");
            while digits.ends_with('0') {
                digits.pop();
            }
            write!(f, "{sign}{secs}.{digits}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_is_integer_when_exact() {
        assert_eq!(SimTime::from_secs(12).to_string(), "12");
        assert_eq!(SimTime(12_500).to_string(), "12.5");
        assert_eq!(SimTime(12_345).to_string(), "12.345");
        assert_eq!(SimTime(-1_050).to_string(), "-1.05");
        assert_eq!(SimTime::from_secs_f64(0.0004).to_string(), "0");
    }
}
