//! Drawings over time: utilization or queue length per site, one site's Gantt chart, and the
//! SF hybrid scheduler's share over one run.

use plotters::prelude::*;
use web_sys::HtmlCanvasElement;

use super::kit::{
    area, color, e, finish, fit_y_desc, titled, x_ticks, y_ticks, Key, Legend, Res, COLORS,
};
use crate::allocation::sweep::FractionHistory;
use crate::web::charts::Quantity;
use crate::web::protocol::{GanttData, SeriesData, SiteSeriesData};

/// A quantity over time, one line per site: utilization, queue length, nodes up or power.
pub fn series(canvas: &HtmlCanvasElement, title: &str, s: &SeriesData, q: Quantity) -> Res {
    let lines: Vec<(String, Vec<f64>)> = s
        .sites
        .iter()
        // A site without this quantity (memory or GPUs on a site without them) has no line.
        .filter(|x: &&SiteSeriesData| !q.of(x).is_empty())
        .map(|x: &SiteSeriesData| {
            (
                x.name.clone(),
                q.of(x).iter().map(|v| v * q.scale()).collect(),
            )
        })
        .collect();
    let ymax = match q {
        Quantity::Queue | Quantity::Power => None,
        Quantity::Utilization
        | Quantity::NodesUp
        | Quantity::Memory
        | Quantity::Gpus
        | Quantity::Stranded
        | Quantity::MemoryStranded
        | Quantity::GpusStranded => Some(1.05),
    };
    over_time(canvas, title, q.axis(), s.bucket_s, &lines, ymax)
}

/// Named lines over time, each value the mean over a bucket of `bucket_s` seconds from the
/// first submission; the y axis up to `ymax`, else 10 % above the largest value.
pub fn over_time(
    canvas: &HtmlCanvasElement,
    title: &str,
    axis: &str,
    bucket_s: f64,
    lines: &[(String, Vec<f64>)],
    ymax: Option<f64>,
) -> Res {
    let days = bucket_s / 86400.0;
    let len = lines.iter().map(|l| l.1.len()).max().unwrap_or(0);
    let xmax = (len as f64 * days).max(1e-9);
    let points: Vec<(String, Vec<(f64, f64)>)> = lines
        .iter()
        .map(|(name, v)| {
            let at = |(k, y): (usize, &f64)| ((k as f64 + 0.5) * days, *y);
            (name.clone(), v.iter().enumerate().map(at).collect())
        })
        .collect();
    lines_over_time(canvas, title, axis, &points, xmax, ymax)
}

/// Named lines of (days from the first submission, value) points, the x axis up to `xmax`
/// days; the y axis up to `ymax`, else 10 % above the largest value.
pub fn lines_over_time(
    canvas: &HtmlCanvasElement,
    title: &str,
    axis: &str,
    lines: &[(String, Vec<(f64, f64)>)],
    xmax: f64,
    ymax: Option<f64>,
) -> Res {
    let root = area(canvas)?;
    let ymax = ymax.unwrap_or_else(|| {
        lines
            .iter()
            .flat_map(|l| l.1.iter().map(|p| p.1))
            .fold(1.0f64, f64::max)
            * 1.1
    });
    let keys = lines.iter().enumerate();
    let keys = keys.map(|(i, l)| (l.0.clone(), Key::Line(color(i))));
    let legend = Legend::plan(&root, keys.collect());
    let body = titled(&root, title)?;
    let mut chart = legend
        .builder(&body)
        .x_label_area_size(38)
        .y_label_area_size(48)
        .build_cartesian_2d(0f64..xmax, 0f64..ymax)
        .map_err(e)?;
    chart
        .configure_mesh()
        .y_labels(y_ticks(&root))
        .x_labels(x_ticks(&root))
        .x_desc("days from first submit")
        .y_desc(fit_y_desc(&root, axis))
        .draw()
        .map_err(e)?;
    for (i, (_, v)) in lines.iter().enumerate() {
        if v.is_empty() {
            continue;
        }
        chart
            .draw_series(LineSeries::new(v.iter().copied(), color(i).stroke_width(2)))
            .map_err(e)?;
    }
    finish(
        &root,
        &mut chart,
        Some(&legend),
        (0.0, xmax),
        (0.0, ymax),
        false,
    )
}

/// One site's jobs as rectangles over (time, allocation units).
pub fn gantt(canvas: &HtmlCanvasElement, title: &str, g: &GanttData) -> Res {
    let root = area(canvas)?;
    let h = 3600.0;
    let (x0, x1) = (g.from_s / h, (g.to_s / h).max(g.from_s / h + 1e-6));
    let body = titled(&root, title)?;
    let mut chart = ChartBuilder::on(&body)
        .margin(8)
        .margin_right(18)
        .x_label_area_size(38)
        .y_label_area_size(48)
        .build_cartesian_2d(x0..x1, 0f64..g.capacity.max(1) as f64)
        .map_err(e)?;
    chart
        .configure_mesh()
        .y_labels(y_ticks(&root))
        .x_labels(x_ticks(&root))
        .disable_mesh()
        // Units are whole: no "100.0", no half a processor.
        .y_label_formatter(&|v| {
            if (v - v.round()).abs() < 1e-9 {
                format!("{v:.0}")
            } else {
                String::new()
            }
        })
        .x_desc("hours from first submit")
        .y_desc(fit_y_desc(&root, g.unit.as_str()))
        .draw()
        .map_err(e)?;
    let plot = chart.plotting_area();
    // Grouped by colour, so the fill style changes once per colour, not per job (the
    // backend keeps it while it does not change): the same picture, as no two jobs'
    // rectangles overlap and the canvas fills them half-open, edge to edge.
    let hue = |id: i64| (id as usize).wrapping_mul(2654435761) >> 7;
    let mut order: Vec<usize> = (0..g.rects.len()).collect();
    order.sort_by_key(|&i| hue(g.rects[i].0) % COLORS.len());
    for &(id, st, en, lo, n) in order.iter().map(|&i| &g.rects[i]) {
        let c = color(hue(id));
        let r = Rectangle::new(
            [
                ((st / h).max(x0), lo as f64),
                ((en / h).min(x1), (lo + n) as f64),
            ],
            c.mix(0.85).filled(),
        );
        plot.draw(&r).map_err(e)?;
    }
    // Runs a failure killed: the job's colour, faded, in a red frame; nodes down: grey.
    let clip = |st: f64, en: f64| ((st / h).max(x0), (en / h).min(x1));
    for &(id, st, en, lo, n) in &g.killed {
        let c = color((id as usize).wrapping_mul(2654435761) >> 7);
        let (a, b) = clip(st, en);
        let corners = [(a, lo as f64), (b, (lo + n) as f64)];
        plot.draw(&Rectangle::new(corners, c.mix(0.35).filled()))
            .map_err(e)?;
        plot.draw(&Rectangle::new(corners, RED.stroke_width(1)))
            .map_err(e)?;
    }
    for &(st, en, lo, n) in &g.down {
        let (a, b) = clip(st, en);
        let r = Rectangle::new(
            [(a, lo as f64), (b, (lo + n) as f64)],
            RGBColor(90, 90, 90).mix(0.75).filled(),
        );
        plot.draw(&r).map_err(e)?;
    }
    let y = (0.0, g.capacity.max(1) as f64);
    finish(&root, &mut chart, None, (x0, x1), y, false)
}

/// The hybrid scheduler's share for the degrading resource over one run, against static
/// OWA's share (initial rates) and OWA's share for the true rates after the change.
pub fn fraction_history(canvas: &HtmlCanvasElement, title: &str, h: &FractionHistory) -> Res {
    let root = area(canvas)?;
    if h.batch.is_empty() {
        return Err("nothing to draw".into());
    }
    let xmax = h
        .batch
        .last()
        .copied()
        .unwrap_or(1)
        .max(h.change_batch)
        .max(1) as f64;
    let ymax = h
        .hybrid
        .iter()
        .chain([&h.static_owa])
        .chain(h.owa_after.as_ref())
        .filter(|v| v.is_finite())
        .fold(0.0f64, |a, &b| a.max(b));
    let ymax = super::non_zero_top(ymax) * 1.1;
    let change = h.change_batch as f64;
    type Line = (&'static str, RGBColor, Vec<(f64, f64)>);
    let lines: [Line; 3] = [
        (
            "hybrid (estimated rates)",
            color(1),
            h.batch
                .iter()
                .map(|&b| b as f64)
                .zip(h.hybrid.iter().cloned())
                .collect(),
        ),
        (
            "static OWA (initial rates)",
            color(0),
            vec![(0.0, h.static_owa), (xmax, h.static_owa)],
        ),
        (
            "OWA for the true rates",
            color(2),
            match h.owa_after {
                Some(a) => vec![
                    (0.0, h.static_owa),
                    (change, h.static_owa),
                    (change, a),
                    (xmax, a),
                ],
                None => vec![(0.0, h.static_owa), (change, h.static_owa)],
            },
        ),
    ];
    let mut keys = vec![(
        format!("rate changes (batch ≈ {})", h.change_batch),
        Key::Faint,
    )];
    keys.extend(lines.iter().map(|l| (l.0.to_string(), Key::Line(l.1))));
    let legend = Legend::plan(&root, keys);
    let body = titled(&root, title)?;
    let mut chart = legend
        .builder(&body)
        .x_label_area_size(40)
        .y_label_area_size(52)
        .build_cartesian_2d(0f64..xmax, 0f64..ymax)
        .map_err(e)?;
    chart
        .configure_mesh()
        .y_labels(y_ticks(&root))
        .x_labels(x_ticks(&root))
        .x_desc("batch")
        .y_desc(fit_y_desc(
            &root,
            format!("share α of resource {}", h.resource + 1),
        ))
        .draw()
        .map_err(e)?;
    chart
        .draw_series(std::iter::once(PathElement::new(
            vec![(change, 0.0), (change, ymax)],
            BLACK.mix(0.4).stroke_width(1),
        )))
        .map_err(e)?;
    for (_, c, pts) in lines {
        chart
            .draw_series(LineSeries::new(pts, c.stroke_width(2)))
            .map_err(e)?;
    }
    finish(
        &root,
        &mut chart,
        Some(&legend),
        (0.0, xmax),
        (0.0, ymax),
        false,
    )
}
