//! Where a chart is on its canvas and what fits in it: [`Geom`] maps canvas pixels to data
//! (the tooltip, a click on a job), [`fit_title`] and [`x_ticks`] keep a narrow chart's
//! title and axis labels from running off or into each other.

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
pub(super) fn fit_title(root: &DrawingArea<Sharp, Shift>, title: impl AsRef<str>) -> String {
    let title = title.as_ref();
    let fits = (root.dim_in_pixel().0.saturating_sub(24) / 8).max(12) as usize;
    if title.chars().count() <= fits {
        return title.to_string();
    }
    let cut: String = title.chars().take(fits - 1).collect();
    format!("{}…", cut.trim_end())
}

/// How many x-axis labels fit the chart's width without running into each other: about
/// one per 70 px, from 3 to 10 (plotters' default).
pub(super) fn x_ticks(root: &DrawingArea<Sharp, Shift>) -> usize {
    (root.dim_in_pixel().0 as usize / 70).clamp(3, 10)
}

/// Room at the right of the plot for a legend of these labels when the chart is wide enough
/// (480 px) to keep the legend off the data; 0 on a narrow chart, whose legend stays in a
/// corner of the plot.
pub(super) fn legend_room<'a>(
    root: &DrawingArea<Sharp, Shift>,
    labels: impl IntoIterator<Item = &'a str>,
) -> u32 {
    let widest = labels
        .into_iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0) as u32;
    if widest == 0 || root.dim_in_pixel().0 < 480 {
        0
    } else {
        // About 7 px a character at 12 px, the key and the box's padding.
        (widest * 7 + 44).min(root.dim_in_pixel().0 / 3)
    }
}

/// Draws a legend (a line key and a label per entry) in the room kept at the right of the
/// plot — on the whole canvas, since plotters clips what a chart draws to its plotting area.
/// `false` when there is no room (the caller puts plotters' legend in a corner instead).
pub(super) fn side_legend<CT: CoordTranslate>(
    root: &DrawingArea<Sharp, Shift>,
    chart: &ChartContext<'_, Sharp, CT>,
    room: u32,
    entries: &[(String, RGBColor)],
) -> Result<bool, String> {
    if room == 0 {
        return Ok(false);
    }
    let (rx, ry) = chart.plotting_area().get_pixel_range();
    let x = rx.end + 12;
    for (k, (label, c)) in entries.iter().enumerate() {
        let y = ry.start + 8 + 18 * k as i32;
        root.draw(&PathElement::new(
            vec![(x, y), (x + 16, y)],
            c.stroke_width(2),
        ))
        .map_err(|e| e.to_string())?;
        root.draw(&Text::new(
            label.clone(),
            (x + 22, y - 7),
            ("sans-serif", 12).into_font(),
        ))
        .map_err(|e| e.to_string())?;
    }
    Ok(true)
}
