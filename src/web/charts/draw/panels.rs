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

/// SOB Figures 3 and 4: one panel per metric side by side, one bar per run in each, the runs'
/// colours in a legend strip on top. The geometry maps x to the panel index (0..panels) over
/// the whole canvas, so the page can say which panel the pointer is over.
pub fn panels(canvas: &HtmlCanvasElement, runs: &[String], panels: &[Panel<'_>]) -> Res {
    let root = area(canvas)?;
    let n = runs.len();
    if n == 0 || panels.is_empty() {
        return Err("nothing to draw".into());
    }
    let (w, h) = root.dim_in_pixel();
    let (legend, body) = root.split_vertically(30);
    let slot = (w as i32 - 16) / n as i32;
    for (i, label) in runs.iter().enumerate() {
        let x = 8 + i as i32 * slot;
        legend
            .draw(&Rectangle::new([(x, 10), (x + 12, 22)], color(i).filled()))
            .map_err(e)?;
        legend
            .draw(&Text::new(label.clone(), (x + 16, 9), font(12)))
            .map_err(e)?;
    }
    let areas = body.split_evenly((1, panels.len()));
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
    Ok(Geom {
        px: (0, w as i32),
        py: (0, h as i32),
        x: (0.0, panels.len() as f64),
        y: (0.0, 1.0),
        log_x: false,
    })
}
