//! SOB Figures 3 and 4: small panels side by side, one bar per run in each.

use plotters::prelude::*;
use web_sys::HtmlCanvasElement;

use super::kit::{area, color, e, font, x_ticks, Geom, Res};

/// One small panel of the SOB figure: a title and one bar per run.
pub struct Panel<'a> {
    pub title: &'a str,
    pub values: &'a [f64],
    /// Decimals of the y labels.
    pub decimals: usize,
    /// Draw a line at y = 1 (the panels normalized to the baseline run).
    pub unit_line: bool,
}

/// SOB Figures 3 and 4: one panel per metric, one bar per run in each, the runs' colours in
/// a legend strip on top. The panels stand side by side, or two to a row on a canvas under
/// 480 px (a phone, where the page draws the figure taller). The geometry maps x to the
/// grid of panels: x over the columns (0..columns), y over the rows (0..rows, the first row
/// at the top), so the page can say which panel the pointer is over ([`panel_at`]).
pub fn panels(canvas: &HtmlCanvasElement, runs: &[String], panels: &[Panel<'_>]) -> Res {
    let root = area(canvas)?;
    let n = runs.len();
    if n == 0 || panels.is_empty() {
        return Err("nothing to draw".into());
    }
    let (w, h) = root.dim_in_pixel();
    // The runs' colours, as many to a row as fit (a phone's strip wraps), clear of the
    // page's PNG button at the top right.
    let style = font(12);
    let widths = runs.iter().map(|label| {
        let tw = root.estimate_text_size(label, &style).map_or(80, |s| s.0);
        16 + tw as i32
    });
    let keys = crate::web::charts::legend::flow(widths, (8, w as i32 - 56), 18);
    let rows = keys.iter().map(|k| k.1).max().unwrap_or(0);
    let (legend, body) = root.split_vertically(30 + 18 * rows as u32);
    let legend_texts = crate::web::charts::backend::LegendText::begin();
    for (i, (label, &(x, row))) in runs.iter().zip(&keys).enumerate() {
        let y = 10 + 18 * row;
        legend
            .draw(&Rectangle::new(
                [(x, y), (x + 12, y + 12)],
                color(i).filled(),
            ))
            .map_err(e)?;
        legend
            .draw(&Text::new(label.clone(), (x + 16, y), font(12)))
            .map_err(e)?;
    }
    drop(legend_texts);
    // Small multiples: side by side on a wide canvas, two to a row on a narrow one.
    let cols = if w < crate::web::charts::backend::NARROW {
        panels.len().min(2)
    } else {
        panels.len()
    };
    let grid = (panels.len().div_ceil(cols), cols);
    let areas = body.split_evenly(grid);
    for (p, a) in panels.iter().zip(areas.iter()) {
        let finite = p.values.iter().cloned().filter(|v| v.is_finite());
        let top = finite.fold(if p.unit_line { 1.0 } else { 0.0 }, f64::max);
        let ymax = super::non_zero_top(top) * 1.15;
        let mut chart = ChartBuilder::on(a)
            .caption(p.title, font(12))
            .margin(6)
            .x_label_area_size(6)
            .y_label_area_size(44)
            .build_cartesian_2d(-0.5f64..n as f64 - 0.5, 0f64..ymax)
            .map_err(e)?;
        let (rx, ry) = chart.plotting_area().get_pixel_range();
        crate::web::charts::backend::plot_area((rx.start, rx.end), (ry.start, ry.end));
        let d = p.decimals;
        chart
            .configure_mesh()
            .x_labels(x_ticks(&root))
            .disable_x_mesh()
            .disable_x_axis()
            .light_line_style(TRANSPARENT)
            .y_labels(6)
            .y_label_formatter(&|v| format!("{v:.d$}"))
            .draw()
            .map_err(e)?;
        chart
            .draw_series(
                p.values
                    .iter()
                    .enumerate()
                    .filter(|(_, v)| v.is_finite())
                    .map(|(i, &v)| {
                        Rectangle::new(
                            [(i as f64 - 0.4, 0.0), (i as f64 + 0.4, v)],
                            color(i).filled(),
                        )
                    }),
            )
            .map_err(e)?;
        if p.unit_line {
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(-0.5, 1.0), (n as f64 - 0.5, 1.0)],
                    BLACK.stroke_width(1),
                )))
                .map_err(e)?;
        }
    }
    root.present().map_err(e)?;
    let top = body.get_base_pixel().1;
    Ok(Geom {
        px: (0, w as i32),
        py: (top, h as i32),
        x: (0.0, grid.1 as f64),
        y: (0.0, grid.0 as f64),
        log_x: false,
    })
}

/// The panel (its index, row by row) at data point (x, y) of the geometry [`panels`]
/// returns, which spans `columns` × `rows` panels.
pub fn panel_at(x: f64, y: f64, columns: usize, rows: usize) -> usize {
    let col = (x.floor().max(0.0) as usize).min(columns.saturating_sub(1));
    let row = ((rows as f64 - y).floor().max(0.0) as usize).min(rows.saturating_sub(1));
    row * columns + col
}
