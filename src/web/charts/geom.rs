//! Where a chart is on its canvas and what fits in it: [`Geom`] maps canvas pixels to data
//! (the tooltip, a click on a job), [`fit_title`] and [`x_ticks`] keep a narrow chart's
//! title and axis labels from running off or into each other; legends are [`super::legend`]'s.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::backend::Sharp;

/// Where a chart's plotting area is on its canvas (pixels) and what it spans (data), so the
/// page can turn a pointer position into a value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Geom {
    pub px: (i32, i32),
    pub py: (i32, i32),
    pub x: (f64, f64),
    pub y: (f64, f64),
    pub log_x: bool,
}

impl Geom {
    pub(super) fn of<DB: DrawingBackend, C: CoordTranslate>(
        chart: &ChartContext<'_, DB, C>,
        x: (f64, f64),
        y: (f64, f64),
        log_x: bool,
    ) -> Geom {
        let (rx, ry) = chart.plotting_area().get_pixel_range();
        super::backend::plot_area((rx.start, rx.end), (ry.start, ry.end));
        Geom {
            px: (rx.start, rx.end),
            py: (ry.start, ry.end),
            x,
            y,
            log_x,
        }
    }

    /// Data coordinates of a canvas pixel, if it is inside the plotting area.
    pub fn at(&self, px: f64, py: f64) -> Option<(f64, f64)> {
        let fx = (px - self.px.0 as f64) / (self.px.1 - self.px.0).max(1) as f64;
        let fy = (self.py.1 as f64 - py) / (self.py.1 - self.py.0).max(1) as f64;
        if !(0.0..=1.0).contains(&fx) || !(0.0..=1.0).contains(&fy) {
            return None;
        }
        let x = if self.log_x {
            (self.x.0.ln() + fx * (self.x.1.ln() - self.x.0.ln())).exp()
        } else {
            self.x.0 + fx * (self.x.1 - self.x.0)
        };
        Some((x, self.y.0 + fy * (self.y.1 - self.y.0)))
    }
}

/// A title that fits the chart's width in 15 px text, cut with "…" (a phone's chart is
/// narrower, its text no smaller; the page's CSP allows only the 12 and 15 px sizes).
fn fit_title(root: &DrawingArea<Sharp, Shift>, title: impl AsRef<str>) -> String {
    let title = title.as_ref();
    // Clear of the page's PNG button (about 48 px) at the top right, on both sides since
    // the title is centred.
    let fits = (root.dim_in_pixel().0.saturating_sub(96) / 8).max(12) as usize;
    cut(title, fits)
}

/// `text` if it has at most `fits` characters, else its first `fits − 1` and "…".
fn cut(text: &str, fits: usize) -> String {
    if text.chars().count() <= fits {
        return text.to_string();
    }
    let kept: String = text.chars().take(fits - 1).collect();
    format!("{}…", kept.trim_end())
}

/// Draws the chart's title (fitted, 15 px) centred on the whole canvas and returns the area
/// under it, where the chart is built: a legend's room at the right does not push the title
/// off centre or off the canvas, as plotters' caption (centred between the margins) would.
pub(super) fn titled(
    root: &DrawingArea<Sharp, Shift>,
    title: impl AsRef<str>,
) -> Result<DrawingArea<Sharp, Shift>, String> {
    root.titled(&fit_title(root, title), ("sans-serif", 15))
        .map_err(|e| e.to_string())
}

/// A y-axis description that fits along the plot (12 px text, about 7 px a character, the
/// canvas's height less the title and the x labels), cut with "…": a long one would run past
/// the canvas's top into the title on a short chart.
pub(super) fn fit_y_desc(root: &DrawingArea<Sharp, Shift>, desc: impl AsRef<str>) -> String {
    let desc = desc.as_ref();
    let fits = (root.dim_in_pixel().1.saturating_sub(100) / 7).max(10) as usize;
    cut(desc, fits)
}

/// How many y-axis labels fit the chart's height a label apart: about one per 18 px of the
/// canvas's height less its title and x labels, from 3 to 10 (plotters' default).
pub(super) fn y_ticks(root: &DrawingArea<Sharp, Shift>) -> usize {
    (root.dim_in_pixel().1.saturating_sub(90) as usize / 18).clamp(3, 10)
}

/// How many x-axis labels fit the chart's width without running into each other: about
/// one per 70 px, from 3 to 10 (plotters' default).
pub(super) fn x_ticks(root: &DrawingArea<Sharp, Shift>) -> usize {
    (root.dim_in_pixel().0 as usize / 70).clamp(3, 10)
}
