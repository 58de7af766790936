//! Bar drawings: one bar per run against a baseline, and grouped bars (one group per x
//! label, one bar per series in it), with a band on each bar for the family panels.

use plotters::prelude::*;
use web_sys::HtmlCanvasElement;

use super::kit::{area, color, e, finish, fit_y_desc, font, titled, y_ticks, Key, Legend, Res};

/// Bars of `values[i] / values[baseline]`.
pub fn bars(
    canvas: &HtmlCanvasElement,
    title: &str,
    labels: &[String],
    values: &[f64],
    baseline: usize,
) -> Res {
    let root = area(canvas)?;
    let n = labels.len();
    if n == 0 {
        return Err("nothing to draw".into());
    }
    let base = values.get(baseline).copied().unwrap_or(0.0);
    let norm: Vec<f64> = values
        .iter()
        .map(|v| if base != 0.0 { v / base } else { 0.0 })
        .collect();
    let ymax = norm.iter().cloned().fold(1.0f64, f64::max) * 1.2;
    // The runs' names under their bars where they fit side by side, else in a legend.
    let per_bar = (f64::from(root.dim_in_pixel().0) - 72.0) / n as f64;
    let crowded = labels
        .iter()
        .filter_map(|l| root.estimate_text_size(l, &font(12)).ok())
        .any(|(w, _)| f64::from(w) + 8.0 > per_bar);
    let keys = labels.iter().enumerate();
    let keys = keys.map(|(i, l)| (l.clone(), Key::Swatch(color(i))));
    let legend = Legend::plan(&root, if crowded { keys.collect() } else { vec![] });
    let body = titled(&root, title)?;
    let mut chart = legend
        .builder(&body)
        .x_label_area_size(28)
        .y_label_area_size(48)
        .build_cartesian_2d((0..n - 1).into_segmented(), 0f64..ymax)
        .map_err(e)?;
    chart
        .configure_mesh()
        .y_labels(y_ticks(&root))
        .disable_x_mesh()
        .y_desc(fit_y_desc(&root, "relative to baseline"))
        .x_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) if !crowded => labels.get(*i).cloned().unwrap_or_default(),
            _ => String::new(),
        })
        .draw()
        .map_err(e)?;
    chart
        .draw_series(
            Histogram::vertical(&chart)
                .margin(12)
                .style_func(|x, _| match x {
                    SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => color(*i).filled(),
                    SegmentValue::Last => BLACK.filled(),
                })
                .data(norm.iter().enumerate().map(|(i, v)| (i, *v))),
        )
        .map_err(e)?;
    // Each bar's value over it, where the values fit side by side (else they would print
    // over each other; the tooltip and the table give them).
    let slot = f64::from(chart.plotting_area().dim_in_pixel().0) / n as f64;
    let fits = norm
        .iter()
        .filter_map(|v| root.estimate_text_size(&format!("{v:.3}"), &font(12)).ok())
        .all(|(w, _)| f64::from(w) + 4.0 <= slot);
    if fits {
        chart
            .draw_series(norm.iter().enumerate().map(|(i, v)| {
                Text::new(
                    format!("{v:.3}"),
                    (SegmentValue::CenterOf(i), *v + ymax * 0.04),
                    font(12),
                )
            }))
            .map_err(e)?;
    }
    let y = (0.0, ymax);
    finish(&root, &mut chart, Some(&legend), (0.0, n as f64), y, false)
}

/// (median, lo, hi) of one bar.
pub type Banded = (f64, f64, f64);

/// The values of grouped bars, `[series][group]`.
#[derive(Clone, Copy)]
pub enum GroupValues<'a> {
    /// One number per bar (the scheduling runs' charts and the SF calculator).
    Plain(&'a [Vec<f64>]),
    /// A median and its band per bar, drawn as a whisker from lo to hi (none where lo or hi
    /// is NaN): the SES and KKOR panels' charts.
    Banded(&'a [Vec<Banded>]),
}

fn finite(v: f64) -> f64 {
    if v.is_finite() {
        v
    } else {
        0.0
    }
}

/// Left edge of bar `si` of `m` in group `g` (bars of width 0.8 / m), as the banded charts
/// place them and their tooltips find them.
pub fn bar_x0(g: usize, si: usize, m: usize) -> f64 {
    g as f64 - 0.4 + si as f64 * 0.8 / m.max(1) as f64
}

impl GroupValues<'_> {
    /// Every number drawn (bands included), which the y axis must reach.
    fn all(&self) -> Vec<f64> {
        match self {
            GroupValues::Plain(v) => v.iter().flatten().cloned().collect(),
            GroupValues::Banded(v) => v
                .iter()
                .flatten()
                .flat_map(|&(v, lo, hi)| [v, lo, hi])
                .collect(),
        }
    }

    /// Series `si`'s bars as (value, lo, hi), NaN bands for plain values.
    fn series(&self, si: usize) -> Vec<Banded> {
        match self {
            GroupValues::Plain(v) => v.get(si).map_or_else(Vec::new, |s| {
                s.iter().map(|&x| (x, f64::NAN, f64::NAN)).collect()
            }),
            GroupValues::Banded(v) => v.get(si).cloned().unwrap_or_default(),
        }
    }

    /// Left edge of bar `si` of `m` (width `w` = 0.8 / m) in group `g`. The banded charts
    /// compute it as `bar_x0`, in another order than the plain ones: the last bit of the
    /// result can differ, which moves a bar edge by a pixel at some canvas widths, so each
    /// keeps its own order and no chart changes.
    fn x0(&self, g: usize, si: usize, m: usize, w: f64) -> f64 {
        match self {
            GroupValues::Plain(_) => g as f64 - 0.4 + si as f64 * w,
            GroupValues::Banded(_) => bar_x0(g, si, m),
        }
    }
}

/// Grouped bars: one group per `groups` entry, one bar per `series` entry inside it, with a
/// legend beside or under the plot. Banded values get a whisker on each bar and y labels
/// 56 px wide (48 for plain ones). Only the 12 px and 15 px fonts the page's CSP allows are
/// used.
pub fn grouped_bars(
    canvas: &HtmlCanvasElement,
    title: &str,
    y_desc: &str,
    groups: &[String],
    series: &[String],
    values: GroupValues<'_>,
) -> Res {
    let root = area(canvas)?;
    let (n, m) = (groups.len(), series.len());
    if n == 0 || m == 0 {
        return Err("nothing to draw".into());
    }
    let banded = matches!(values, GroupValues::Banded(_));
    let ymax = values
        .all()
        .into_iter()
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max);
    let ymax = super::non_zero_top(ymax) * 1.15;
    let x = (-0.5, n as f64 - 0.5);
    let keys = series.iter().enumerate();
    let keys = keys.map(|(i, s)| (s.clone(), Key::Swatch(color(i))));
    let legend = Legend::plan(&root, if m > 1 { keys.collect() } else { vec![] });
    let body = titled(&root, title)?;
    let mut chart = legend
        .builder(&body)
        .x_label_area_size(28)
        // Wider for banded values, and for labels of two digits and more ("30.0").
        .y_label_area_size(if banded || ymax >= 10.0 { 56 } else { 48 })
        .build_cartesian_2d(x.0..x.1, 0f64..ymax)
        .map_err(e)?;
    // Every group's name where they fit side by side, else every second, third, … one.
    let (px, _) = chart.plotting_area().get_pixel_range();
    let per_group = f64::from(px.end - px.start) / n as f64;
    let widest = groups
        .iter()
        .filter_map(|g| root.estimate_text_size(g, &font(12)).ok())
        .map(|(w, _)| f64::from(w) + 8.0)
        .fold(0.0, f64::max);
    let every = ((widest / per_group.max(1.0)).ceil() as usize).max(1);
    chart
        .configure_mesh()
        .y_labels(y_ticks(&root))
        .disable_x_mesh()
        .x_labels(n.min(24))
        .y_desc(fit_y_desc(&root, y_desc))
        .x_label_formatter(&|v| {
            let r = v.round();
            if (v - r).abs() < 1e-6 && r >= 0.0 && (r as usize).is_multiple_of(every) {
                groups.get(r as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .draw()
        .map_err(e)?;
    let w = 0.8 / m as f64;
    for si in 0..m {
        let c = color(si);
        let vals = values.series(si);
        chart
            .draw_series(vals.iter().enumerate().map(|(g, &(v, _, _))| {
                let x0 = values.x0(g, si, m, w);
                Rectangle::new([(x0, 0.0), (x0 + w * 0.92, finite(v))], c.filled())
            }))
            .map_err(e)?;
        if banded {
            chart
                .draw_series(vals.iter().enumerate().flat_map(|(g, &(_, lo, hi))| {
                    let x0 = values.x0(g, si, m, w);
                    let (xc, cap) = (x0 + w * 0.46, w * 0.2);
                    // No band (NaN), no whisker.
                    let band = lo.is_finite() && hi.is_finite();
                    let (lo, hi) = (finite(lo), finite(hi));
                    let stroke = BLACK.stroke_width(1);
                    band.then_some([
                        PathElement::new(vec![(xc, lo), (xc, hi)], stroke),
                        PathElement::new(vec![(xc - cap, lo), (xc + cap, lo)], stroke),
                        PathElement::new(vec![(xc - cap, hi), (xc + cap, hi)], stroke),
                    ])
                    .into_iter()
                    .flatten()
                }))
                .map_err(e)?;
        }
    }
    finish(&root, &mut chart, Some(&legend), x, (0.0, ymax), false)
}
