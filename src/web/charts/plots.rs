//! Canvas charts drawn with plotters-canvas. Each function draws one whole chart into a
//! `<canvas>`; errors are returned as text for the page to show, never panics.

use super::backend::Sharp;
use plotters::coord::Shift;
use plotters::prelude::*;
use web_sys::HtmlCanvasElement;

use crate::allocation::sweep::{FractionHistory, PolicySeries};
use crate::web::protocol::{GanttData, SeriesData, SiteSeriesData};

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

pub use super::geom::Geom;

type Res = Result<Geom, String>;

pub(super) fn area(canvas: &HtmlCanvasElement) -> Result<DrawingArea<Sharp, Shift>, String> {
    let backend = Sharp::new(canvas).ok_or("no 2D canvas context")?;
    let root = backend.into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    Ok(root)
}

pub(super) use super::geom::{fit_title, legend_room, side_legend, x_ticks};

pub(super) fn e<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

pub(super) fn font(size: u32) -> TextStyle<'static> {
    ("sans-serif", size).into_font().into()
}

/// A legend key for a line series of colour `c`.
pub(super) fn line_key(c: RGBColor) -> impl Fn((i32, i32)) -> PathElement<(i32, i32)> {
    move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(2))
}

/// Every chart ends alike: the legend (if any series has a label) at `legend`, the canvas
/// presented, and the plotting area's geometry for the page's pointer read-outs.
pub(super) fn finish<CT: CoordTranslate>(
    root: &DrawingArea<Sharp, Shift>,
    chart: &mut ChartContext<'_, Sharp, CT>,
    legend: Option<SeriesLabelPosition>,
    x: (f64, f64),
    y: (f64, f64),
    log_x: bool,
) -> Res {
    if let Some(position) = legend {
        chart
            .configure_series_labels()
            .position(position)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(e)?;
    }
    root.present().map_err(e)?;
    Ok(Geom::of(chart, x, y, log_x))
}

/// The legend entries of band lines: each policy in its colour.
fn line_keys(lines: &[PolicySeries]) -> Vec<(String, RGBColor)> {
    let key = |(i, l): (usize, &PolicySeries)| (l.policy.clone(), color(i));
    lines.iter().enumerate().map(key).collect()
}

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
    let mut chart = ChartBuilder::on(&root)
        .caption(fit_title(&root, title), font(15))
        .margin(8)
        .x_label_area_size(28)
        .y_label_area_size(48)
        .build_cartesian_2d((0..n - 1).into_segmented(), 0f64..ymax)
        .map_err(e)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .y_desc("relative to baseline")
        .x_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) => labels.get(*i).cloned().unwrap_or_default(),
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
    chart
        .draw_series(norm.iter().enumerate().map(|(i, v)| {
            Text::new(
                format!("{v:.3}"),
                (SegmentValue::CenterOf(i), *v + ymax * 0.04),
                font(12),
            )
        }))
        .map_err(e)?;
    finish(&root, &mut chart, None, (0.0, n as f64), (0.0, ymax), false)
}

/// Wait-time CDFs, one line per algorithm, log time axis.
pub fn cdf(canvas: &HtmlCanvasElement, lines: &[(String, &[(f64, f64)])]) -> Res {
    let root = area(canvas)?;
    let xmax = lines
        .iter()
        .flat_map(|(_, pts)| pts.iter().map(|p| p.0))
        .fold(10.0f64, f64::max)
        * 1.1;
    // Most jobs often wait 0 s: start the y axis just below the smallest share shown.
    let ymin = lines
        .iter()
        .map(|(_, pts)| {
            // The share of jobs that waited at most 1 s (where the log axis starts).
            pts.iter()
                .take_while(|p| p.0 <= 1.0)
                .last()
                .map(|p| p.1)
                .unwrap_or(0.0)
        })
        .fold(1.0f64, f64::min);
    let ymin = ((ymin - 0.05) * 10.0).floor().max(0.0) / 10.0;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            fit_title(&root, "Wait time CDF (share of jobs waiting at most x)"),
            font(15),
        )
        .margin(8)
        .x_label_area_size(32)
        .y_label_area_size(44)
        .build_cartesian_2d((1f64..xmax).log_scale(), ymin..1.0)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_labels(x_ticks(&root))
        .x_desc("wait (s, log; 0 s drawn at 1 s)")
        .x_label_formatter(&|x| format_secs(*x))
        .draw()
        .map_err(e)?;
    for (i, (label, pts)) in lines.iter().enumerate() {
        let c = color(i);
        chart
            .draw_series(LineSeries::new(
                pts.iter().map(|&(w, f)| (w.max(1.0), f)),
                c.stroke_width(2),
            ))
            .map_err(e)?
            .label(label.clone())
            .legend(line_key(c));
    }
    finish(
        &root,
        &mut chart,
        Some(SeriesLabelPosition::LowerRight),
        (1.0, xmax),
        (ymin, 1.0),
        true,
    )
}

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

/// Utilization (`queue == false`) or queue length over time, one line per site.
pub fn series(canvas: &HtmlCanvasElement, title: &str, s: &SeriesData, queue: bool) -> Res {
    let root = area(canvas)?;
    let days = s.bucket_s / 86400.0;
    let len = s.sites.first().map(|x| x.utilization.len()).unwrap_or(0);
    let xmax = (len as f64 * days).max(1e-9);
    let vals = |x: &SiteSeriesData| -> Vec<f64> {
        if queue {
            x.queue_length.clone()
        } else {
            x.utilization.clone()
        }
    };
    let ymax = if queue {
        s.sites.iter().flat_map(vals).fold(1.0f64, f64::max) * 1.1
    } else {
        1.05
    };
    let mut chart = ChartBuilder::on(&root)
        .caption(fit_title(&root, title), font(15))
        .margin(8)
        .x_label_area_size(32)
        .y_label_area_size(48)
        .build_cartesian_2d(0f64..xmax, 0f64..ymax)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_labels(x_ticks(&root))
        .x_desc("days from first submit")
        .y_desc(if queue {
            "jobs waiting"
        } else {
            "busy CPUs / CPUs"
        })
        .draw()
        .map_err(e)?;
    for (i, site) in s.sites.iter().enumerate() {
        let c = color(i);
        let v = vals(site);
        chart
            .draw_series(LineSeries::new(
                v.iter()
                    .enumerate()
                    .map(|(k, y)| ((k as f64 + 0.5) * days, *y)),
                c.stroke_width(2),
            ))
            .map_err(e)?
            .label(site.name.clone())
            .legend(line_key(c));
    }
    finish(
        &root,
        &mut chart,
        Some(SeriesLabelPosition::UpperRight),
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
    let mut chart = ChartBuilder::on(&root)
        .caption(fit_title(&root, title), font(15))
        .margin(8)
        .x_label_area_size(32)
        .y_label_area_size(48)
        .build_cartesian_2d(x0..x1, 0f64..g.capacity.max(1) as f64)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_labels(x_ticks(&root))
        .disable_mesh()
        .x_desc("hours from first submit")
        .y_desc(g.unit.as_str())
        .draw()
        .map_err(e)?;
    let plot = chart.plotting_area();
    for &(id, st, en, lo, n) in &g.rects {
        let c = color((id as usize).wrapping_mul(2654435761) >> 7);
        let r = Rectangle::new(
            [
                ((st / h).max(x0), lo as f64),
                ((en / h).min(x1), (lo + n) as f64),
            ],
            c.mix(0.85).filled(),
        );
        plot.draw(&r).map_err(e)?;
    }
    let y = (0.0, g.capacity.max(1) as f64);
    finish(&root, &mut chart, None, (x0, x1), y, false)
}

/// Grouped bars: one group per `groups` entry, one bar per `series` entry inside it
/// (`values[series][group]`), with a legend. Only the 12 px and 15 px fonts the page's CSP
/// allows are used.
pub fn grouped_bars(
    canvas: &HtmlCanvasElement,
    title: &str,
    y_desc: &str,
    groups: &[String],
    series: &[String],
    values: &[Vec<f64>],
) -> Res {
    let root = area(canvas)?;
    let n = groups.len();
    let m = series.len();
    if n == 0 || m == 0 {
        return Err("nothing to draw".into());
    }
    let ymax = values
        .iter()
        .flatten()
        .cloned()
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max)
        .max(1e-9)
        * 1.15;
    let x = (-0.5, n as f64 - 0.5);
    let mut chart = ChartBuilder::on(&root)
        .caption(fit_title(&root, title), font(15))
        .margin(8)
        .x_label_area_size(28)
        .y_label_area_size(48)
        .build_cartesian_2d(x.0..x.1, 0f64..ymax)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_labels(x_ticks(&root))
        .disable_x_mesh()
        .x_labels(n.min(24))
        .y_desc(y_desc)
        .x_label_formatter(&|v| {
            let r = v.round();
            if (v - r).abs() < 1e-6 && r >= 0.0 {
                groups.get(r as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .draw()
        .map_err(e)?;
    let w = 0.8 / m as f64;
    for (si, name) in series.iter().enumerate() {
        let c = color(si);
        let vals = values.get(si).cloned().unwrap_or_default();
        chart
            .draw_series(vals.iter().enumerate().map(move |(g, &v)| {
                let x0 = g as f64 - 0.4 + si as f64 * w;
                Rectangle::new(
                    [
                        (x0, 0.0),
                        (x0 + w * 0.92, if v.is_finite() { v } else { 0.0 }),
                    ],
                    c.filled(),
                )
            }))
            .map_err(e)?
            .label(name.clone())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], c.filled()));
    }
    let legend = (m > 1).then_some(SeriesLabelPosition::UpperRight);
    finish(&root, &mut chart, legend, (x.0, x.1), (0.0, ymax), false)
}

/// One line per policy (the median) over a shaded band (lo..hi), as the SF sweeps; the y
/// axis goes logarithmic when the values span more than 30×.
pub fn band_lines(
    canvas: &HtmlCanvasElement,
    title: &str,
    (x_desc, y_desc): (&str, &str),
    x: &[f64],
    lines: &[PolicySeries],
) -> Res {
    let root = area(canvas)?;
    if x.is_empty() || lines.is_empty() {
        return Err("nothing to draw".into());
    }
    let fin = |v: &&f64| v.is_finite();
    let xmin = x.iter().filter(fin).cloned().fold(f64::INFINITY, f64::min);
    let xmax = x
        .iter()
        .filter(fin)
        .cloned()
        .fold(f64::NEG_INFINITY, f64::max);
    let (xmin, xmax) = if xmax > xmin {
        (xmin, xmax)
    } else {
        (xmin - 0.5, xmin + 0.5)
    };
    let positive: Vec<f64> = lines
        .iter()
        .flat_map(|l| l.median.iter().chain(&l.lo).chain(&l.hi))
        .filter(|v| v.is_finite() && **v > 0.0)
        .cloned()
        .collect();
    let top = positive.iter().cloned().fold(1e-9, f64::max);
    let bottom = positive.iter().cloned().fold(f64::INFINITY, f64::min);
    // A saturating policy can be a thousand times slower than the others: then the y axis
    // is logarithmic (values drawn as log10, labels as seconds) so every line stays visible.
    let log_y = top / bottom > 30.0;
    let ty = move |v: f64| if log_y { libm::log10(v.max(1e-12)) } else { v };
    let (ylo, yhi) = if log_y {
        (ty(bottom) - 0.1, ty(top) + 0.1)
    } else {
        (0.0, top * 1.08)
    };
    let room = legend_room(&root, lines.iter().map(|l| l.policy.as_str()));
    let mut chart = ChartBuilder::on(&root)
        .caption(fit_title(&root, title), font(15))
        .margin(8)
        .margin_right(8 + room)
        .x_label_area_size(36)
        .y_label_area_size(64)
        .build_cartesian_2d(xmin..xmax, ylo..yhi)
        .map_err(e)?;
    let y_label = |v: &f64| {
        let s = if log_y { libm::pow(10.0, *v) } else { *v };
        let decimals = if s >= 100.0 {
            0
        } else if s >= 10.0 {
            1
        } else if s >= 1.0 {
            2
        } else {
            3
        };
        format!("{s:.decimals$}")
    };
    chart
        .configure_mesh()
        .x_labels(x_ticks(&root))
        .x_desc(x_desc)
        .y_desc(if log_y {
            format!("{y_desc}, log scale")
        } else {
            y_desc.to_string()
        })
        .y_label_formatter(&y_label)
        .draw()
        .map_err(e)?;
    for (i, l) in lines.iter().enumerate() {
        let scaled = |v: &Vec<f64>| v.iter().map(|&y| ty(y)).collect::<Vec<_>>();
        let (name, median, lo, hi) = (
            &l.policy,
            &scaled(&l.median),
            &scaled(&l.lo),
            &scaled(&l.hi),
        );
        let c = color(i);
        let mut band: Vec<(f64, f64)> = x.iter().cloned().zip(hi.iter().cloned()).collect();
        band.extend(x.iter().cloned().zip(lo.iter().cloned()).rev());
        if band.iter().all(|p| p.0.is_finite() && p.1.is_finite()) {
            chart
                .draw_series(std::iter::once(Polygon::new(band, c.mix(0.2).filled())))
                .map_err(e)?;
        }
        chart
            .draw_series(LineSeries::new(
                x.iter().cloned().zip(median.iter().cloned()),
                c.stroke_width(2),
            ))
            .map_err(e)?
            .label(name.clone())
            .legend(line_key(c));
        chart
            .draw_series(
                x.iter()
                    .cloned()
                    .zip(median.iter().cloned())
                    .map(move |p| Circle::new(p, 3, c.filled())),
            )
            .map_err(e)?;
    }
    let beside = side_legend(&root, &chart, room, &line_keys(lines))?;
    finish(
        &root,
        &mut chart,
        (!beside).then_some(SeriesLabelPosition::UpperRight),
        (xmin, xmax),
        (ylo, yhi),
        false,
    )
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
        .fold(0.0f64, |a, &b| a.max(b))
        .max(1e-6)
        * 1.1;
    let mut chart = ChartBuilder::on(&root)
        .caption(fit_title(&root, title), font(15))
        .margin(8)
        .x_label_area_size(36)
        .y_label_area_size(52)
        .build_cartesian_2d(0f64..xmax, 0f64..ymax)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_labels(x_ticks(&root))
        .x_desc("batch")
        .y_desc(format!("share α of resource {}", h.resource + 1))
        .draw()
        .map_err(e)?;
    let change = h.change_batch as f64;
    chart
        .draw_series(std::iter::once(PathElement::new(
            vec![(change, 0.0), (change, ymax)],
            BLACK.mix(0.4).stroke_width(1),
        )))
        .map_err(e)?
        .label(format!("rate changes (batch ≈ {})", h.change_batch))
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], BLACK.mix(0.4)));
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
    for (name, c, pts) in lines {
        chart
            .draw_series(LineSeries::new(pts, c.stroke_width(2)))
            .map_err(e)?
            .label(name)
            .legend(line_key(c));
    }
    finish(
        &root,
        &mut chart,
        Some(SeriesLabelPosition::UpperRight),
        (0.0, xmax),
        (0.0, ymax),
        false,
    )
}

/// What an x axis counts, for its labels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XUnit {
    /// Durations, labelled 30s, 5m, 2h, 3d.
    Seconds,
    /// Plain numbers.
    Count,
}

/// Empirical CDFs drawn as right-continuous steps, one line per entry (the trace and the
/// fitted model's synthetic workload). With `log_x`, values below 1 are drawn at 1 (zero
/// inter-arrival gaps are common: jobs submitted together).
pub fn step_cdfs(
    canvas: &HtmlCanvasElement,
    title: &str,
    (x_desc, x_unit): (&str, XUnit),
    lines: &[(String, &[(f64, f64)])],
    log_x: bool,
) -> Res {
    let root = area(canvas)?;
    if lines.iter().all(|(_, p)| p.is_empty()) {
        return Err("nothing to draw".into());
    }
    let lo = if log_x { 1.0 } else { 0.0 };
    let fin = |v: &f64| v.is_finite();
    let xmax = lines
        .iter()
        .flat_map(|(_, pts)| pts.iter().map(|p| p.0))
        .filter(fin)
        .fold(lo + 1.0, f64::max);
    let xmax = if log_x { xmax * 1.5 } else { xmax * 1.05 };
    let xmin = if log_x {
        lo
    } else {
        lines
            .iter()
            .flat_map(|(_, pts)| pts.iter().map(|p| p.0))
            .filter(fin)
            .fold(0.0f64, f64::min)
    };
    let at = |x: f64| if log_x { x.max(lo) } else { x };
    let steps = |pts: &[(f64, f64)]| -> Vec<(f64, f64)> {
        let mut v = Vec::with_capacity(pts.len() * 2 + 2);
        let mut prev = 0.0;
        for &(x, f) in pts {
            v.push((at(x), prev));
            v.push((at(x), f));
            prev = f;
        }
        v.push((xmax, prev));
        v
    };
    // The linear and log axes are different coordinate types: one body, two expansions.
    macro_rules! draw {
        ($x_range:expr) => {{
            let mut chart = ChartBuilder::on(&root)
                .caption(fit_title(&root, title), font(15))
                .margin(8)
                .x_label_area_size(40)
                .y_label_area_size(44)
                .build_cartesian_2d($x_range, 0f64..1.0)
                .map_err(e)?;
            chart
                .configure_mesh()
                .x_labels(x_ticks(&root))
                .x_desc(x_desc)
                .y_desc("share ≤ x")
                // Log axes get a light line per minor tick: too busy at this size.
                .light_line_style(TRANSPARENT)
                .x_label_formatter(&|x| match x_unit {
                    XUnit::Seconds => format_secs(*x),
                    XUnit::Count => format!("{x:.0}"),
                })
                .draw()
                .map_err(e)?;
            for (i, (label, pts)) in lines.iter().enumerate() {
                let c = color(i);
                chart
                    .draw_series(LineSeries::new(steps(pts), c.stroke_width(2)))
                    .map_err(e)?
                    .label(label.clone())
                    .legend(line_key(c));
            }
            // CDFs rise from the lower left: the upper left is the emptiest corner.
            let legend = Some(SeriesLabelPosition::UpperLeft);
            finish(&root, &mut chart, legend, (xmin, xmax), (0.0, 1.0), log_x)?
        }};
    }
    let geom = if log_x {
        draw!((xmin..xmax).log_scale())
    } else {
        draw!(xmin..xmax)
    };
    Ok(geom)
}

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
        let ymax = (top * 1.15).max(1e-9);
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
