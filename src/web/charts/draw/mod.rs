//! Canvas charts drawn with plotters-canvas. Each function draws one whole chart into a
//! `<canvas>` and returns its plotting area's geometry; errors are returned as text for the
//! page to show, never panics. `kit` holds what they share (palette, fonts, the common
//! ending); the drawings are grouped by shape: bars, lines, time, and SOB's panels.

mod bars;
mod kit;
mod lines;
mod panels;
mod time;

pub use bars::{bar_x0, bars, grouped_bars, Banded, GroupValues};
pub(super) use kit::{area, color, e, finish, fit_y_desc, font, titled, x_ticks, y_ticks};
pub use kit::{format_secs, Geom};
pub use lines::{band_lines, cdf, step_cdfs, XUnit};
pub use panels::{panel_at, panels, Panel};
pub use time::{fraction_history, gantt, lines_over_time, over_time, series};

/// The top of a y axis from the largest value: that value, or 1 when every value is 0 (or
/// none is finite), so an all-zero series reads as 0 on a 0..1 axis instead of ten "0.000"
/// ticks over a range of 1e-9.
pub fn non_zero_top(largest: f64) -> f64 {
    if largest > 0.0 && largest.is_finite() {
        largest
    } else {
        1.0
    }
}
