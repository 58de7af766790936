//! Carbon: a grid's carbon intensity over time (grams of CO₂ per kWh) turns a run's power
//! into emissions. The series is a CSV of `start_s,end_s,g_per_kwh` rows — each value
//! holds from its start to its end, in seconds on the run's clock (0 = the workload's first
//! submission) — that must cover the run without a gap or an overlap.

use super::timeline::{power_series, NodeTimeline, TimelineError};
use crate::model::power::PowerModel;
use crate::time::SimTime;

/// One piece of the series: `g_per_kwh` from `start` to `end`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Intensity {
    pub start: SimTime,
    pub end: SimTime,
    pub g_per_kwh: f64,
}

/// A carbon-intensity series, its pieces back to back in time order.
#[derive(Clone, Debug, PartialEq)]
pub struct CarbonSeries {
    pub pieces: Vec<Intensity>,
}

/// A series that cannot be read: the file, its line, and what is wrong there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CarbonError(pub String);

impl std::fmt::Display for CarbonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CarbonError {}

fn number(file: &str, line: usize, field: &str, text: &str) -> Result<f64, CarbonError> {
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(CarbonError(format!(
            "{file} line {line}: {field} '{}' is not a number",
            text.trim()
        ))),
    }
}

impl CarbonSeries {
    /// Reads `bytes` (the CSV) of `file`. Blank lines, `#` comments and a first line that
    /// names the columns are skipped; every other line is one piece.
    pub fn parse(file: &str, bytes: &[u8]) -> Result<CarbonSeries, CarbonError> {
        let text = std::str::from_utf8(bytes)
            .map_err(|_| CarbonError(format!("{file}: not text (UTF-8)")))?;
        let mut pieces: Vec<Intensity> = Vec::new();
        for (k, raw) in text.lines().enumerate() {
            let line = k + 1;
            let l = raw.trim();
            if l.is_empty() || l.starts_with('#') {
                continue;
            }
            let f: Vec<&str> = l.split(',').collect();
            if pieces.is_empty() && f.first().is_some_and(|c| c.trim().parse::<f64>().is_err()) {
                continue; // the header
            }
            if f.len() != 3 {
                return Err(CarbonError(format!(
                    "{file} line {line}: {} fields; a line is start_s,end_s,g_per_kwh",
                    f.len()
                )));
            }
            let start = number(file, line, "start_s", f[0])?;
            let end = number(file, line, "end_s", f[1])?;
            let g = number(file, line, "g_per_kwh", f[2])?;
            if g < 0.0 {
                return Err(CarbonError(format!(
                    "{file} line {line}: g_per_kwh {g} is below 0"
                )));
            }
            let (start, end) = (SimTime::from_secs_f64(start), SimTime::from_secs_f64(end));
            if end <= start {
                return Err(CarbonError(format!(
                    "{file} line {line}: the piece ends ({} s) before it starts ({} s)",
                    end.as_secs_f64(),
                    start.as_secs_f64()
                )));
            }
            if let Some(prev) = pieces.last() {
                let what = if start > prev.end {
                    "leaves a gap after"
                } else {
                    "overlaps"
                };
                if start != prev.end {
                    return Err(CarbonError(format!(
                        "{file} line {line}: the piece from {} s {what} the one before, which ends at {} s",
                        start.as_secs_f64(),
                        prev.end.as_secs_f64()
                    )));
                }
            }
            pieces.push(Intensity {
                start,
                end,
                g_per_kwh: g,
            });
        }
        if pieces.is_empty() {
            return Err(CarbonError(format!("{file}: no intensity in it")));
        }
        Ok(CarbonSeries { pieces })
    }

    /// The grams per kWh at `at` (the first piece's before the series, the last one's
    /// after it).
    pub fn at(&self, at: SimTime) -> f64 {
        let k = self.pieces.partition_point(|p| p.end <= at);
        self.pieces[k.min(self.pieces.len() - 1)].g_per_kwh
    }

    /// ∫ intensity dt over `[from, to)` in g/kWh × ms, the series held at its first and
    /// last values outside its span.
    pub fn integral(&self, from: SimTime, to: SimTime) -> f64 {
        let mut sum = 0.0;
        let mut at = from;
        let mut k = self.pieces.partition_point(|p| p.end <= at);
        while at < to {
            let (value, stop) = match self.pieces.get(k) {
                Some(p) if at < p.start => (p.g_per_kwh, p.start.min(to)),
                Some(p) => (p.g_per_kwh, p.end.min(to)),
                None => (self.pieces[self.pieces.len() - 1].g_per_kwh, to),
            };
            sum += value * (stop.0 - at.0) as f64;
            at = stop;
            k += 1;
        }
        sum
    }

    /// The start in `[from, from + slack]` at which a job of `length` meets the lowest mean
    /// intensity over its run (for a length of zero, the lowest intensity at its start):
    /// of starts whose intensity differs by less than a part in 10⁹ (rounding), the
    /// earliest. The mean over a sliding window of a step function is least where the
    /// window's start or end is at a step, so only those starts are tried.
    pub fn greenest_start(&self, from: SimTime, slack: SimTime, length: SimTime) -> SimTime {
        let last = from + slack;
        let cost = |t: SimTime| match length.0 {
            0 => self.at(t),
            _ => self.integral(t, t + length),
        };
        let mut tries = vec![from, last];
        let lo = self.pieces.partition_point(|p| p.end < from - length);
        for p in &self.pieces[lo..] {
            if p.start > last + length {
                break;
            }
            tries.extend([p.start, p.start - length, p.end, p.end - length]);
        }
        tries.retain(|&t| t >= from && t <= last);
        tries.sort_unstable();
        tries.dedup();
        let mut best = (cost(from), from);
        for &t in &tries[1..] {
            let c = cost(t);
            if c < best.0 - 1e-9 * best.0.abs() {
                best = (c, t);
            }
        }
        best.1
    }

    /// The span the series covers.
    pub fn span(&self) -> (SimTime, SimTime) {
        let first = self.pieces.first().map_or(SimTime::ZERO, |p| p.start);
        let last = self.pieces.last().map_or(SimTime::ZERO, |p| p.end);
        (first, last)
    }
}

/// Grams of CO₂ the platform emits running `timelines` under `series`: the integral of
/// power × intensity (J × g/kWh / 3.6e6). The series must cover the timelines' span.
pub fn emissions_g(
    timelines: &[NodeTimeline],
    model: &dyn Fn(usize) -> PowerModel,
    series: &CarbonSeries,
) -> Result<f64, TimelineError> {
    let power = power_series(timelines, model)?;
    let (Some(first), Some(last)) = (power.first(), power.last()) else {
        return Ok(0.0);
    };
    let (from, to) = series.span();
    if first.0 < from || last.0 > to {
        return Err(TimelineError(format!(
            "the carbon series covers {} s to {} s; the run spans {} s to {} s",
            from.as_secs_f64(),
            to.as_secs_f64(),
            first.0.as_secs_f64(),
            last.0.as_secs_f64()
        )));
    }
    // Walk both step functions together, piece by piece.
    let mut grams = 0.0;
    let mut c = 0;
    for w in power.windows(2) {
        let (mut at, end, watts) = (w[0].0, w[1].0, w[0].1);
        while at < end {
            while series.pieces.get(c).is_some_and(|p| p.end <= at) {
                c += 1;
            }
            // Covered (checked above), so a piece holds `at`.
            let Some(&piece) = series.pieces.get(c) else {
                break;
            };
            let stop = end.min(piece.end);
            let joules = watts * (stop.0 - at.0) as f64 / 1000.0;
            grams += joules * piece.g_per_kwh / 3.6e6;
            at = stop;
        }
    }
    Ok(grams)
}
