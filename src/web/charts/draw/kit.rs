//! The pieces every drawing shares: the palette, the canvas's drawing area, fonts, legend
//! keys, the common ending (legend, present, geometry) and the duration labels.

use plotters::coord::Shift;
use plotters::prelude::*;
use web_sys::HtmlCanvasElement;

use crate::web::charts::backend::Sharp;

/// Colour-blind-safe palette (Okabe–Ito), one colour per algorithm or site.
pub const COLORS: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(213, 94, 0),
    RGBColor(240, 228, 66),
    RGBColor(60, 60, 60),
];

pub fn color(i: usize) -> RGBColor {
    COLORS[i % COLORS.len()]
}

pub use crate::web::charts::geom::Geom;

/// What every drawing returns: the plotting area's geometry, or why nothing was drawn.
pub(in crate::web::charts) type Res = Result<Geom, String>;

pub(in crate::web::charts) fn area(
    canvas: &HtmlCanvasElement,
) -> Result<DrawingArea<Sharp, Shift>, String> {
    let backend = Sharp::new(canvas).ok_or("no 2D canvas context")?;
    let root = backend.into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    Ok(root)
}

pub(in crate::web::charts) use crate::web::charts::geom::{fit_y_desc, titled, x_ticks, y_ticks};
pub(in crate::web::charts) use crate::web::charts::legend::{Key, Legend};

pub(in crate::web::charts) fn e<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

pub(in crate::web::charts) fn font(size: u32) -> TextStyle<'static> {
    ("sans-serif", size).into_font().into()
}

/// Every chart ends alike: its legend (if it has one) where it was planned, the canvas
/// presented, and the plotting area's geometry for the page's pointer read-outs.
pub(in crate::web::charts) fn finish<CT: CoordTranslate>(
    root: &DrawingArea<Sharp, Shift>,
    chart: &mut ChartContext<'_, Sharp, CT>,
    legend: Option<&Legend>,
    x: (f64, f64),
    y: (f64, f64),
    log_x: bool,
) -> Res {
    let geom = Geom::of(chart, x, y, log_x);
    if let Some(legend) = legend {
        legend.draw(root, chart)?;
    }
    root.present().map_err(e)?;
    Ok(geom)
}

/// A duration as the axes label it: 30s, 5m, 2h, 3d.
pub fn format_secs(s: f64) -> String {
    if s >= 86400.0 {
        format!("{:.0}d", s / 86400.0)
    } else if s >= 3600.0 {
        format!("{:.0}h", s / 3600.0)
    } else if s >= 60.0 {
        format!("{:.0}m", s / 60.0)
    } else {
        format!("{s:.0}s")
    }
}
