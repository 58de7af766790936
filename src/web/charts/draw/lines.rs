//! Line drawings: wait-time CDFs, the sweeps' median lines over their bands, and empirical
//! CDFs drawn as steps.

use plotters::prelude::*;
use web_sys::HtmlCanvasElement;

use super::kit::{
    area, color, e, finish, fit_y_desc, format_secs, titled, x_ticks, y_ticks, Key, Legend, Res,
};
use crate::allocation::sweep::PolicySeries;

/// The legend of `labels` drawn as lines, each in its colour.
fn line_keys<'a>(labels: impl Iterator<Item = &'a str>) -> Vec<(String, Key)> {
    let key = |(i, l): (usize, &str)| (l.to_string(), Key::Line(color(i)));
    labels.enumerate().map(key).collect()
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
    let legend = Legend::plan(&root, line_keys(lines.iter().map(|l| l.0.as_str())));
    let body = titled(&root, "Wait time CDF (share of jobs waiting at most x)")?;
    let mut chart = legend
        .builder(&body)
        .x_label_area_size(38)
        .y_label_area_size(44)
        .build_cartesian_2d((1f64..xmax).log_scale(), ymin..1.0)
        .map_err(e)?;
    chart
        .configure_mesh()
        .y_labels(y_ticks(&root))
        .x_labels(x_ticks(&root))
        .x_desc("wait (s, log; 0 s drawn at 1 s)")
        .x_label_formatter(&|x| format_secs(*x))
        .draw()
        .map_err(e)?;
    for (i, (_, pts)) in lines.iter().enumerate() {
        chart
            .draw_series(LineSeries::new(
                pts.iter().map(|&(w, f)| (w.max(1.0), f)),
                color(i).stroke_width(2),
            ))
            .map_err(e)?;
    }
    finish(
        &root,
        &mut chart,
        Some(&legend),
        (1.0, xmax),
        (ymin, 1.0),
        true,
    )
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
    // An all-zero chart gets a 0..1 axis, not ten "0.000" ticks over 0..1e-9 (issue #38).
    let top = super::non_zero_top(positive.iter().cloned().fold(0.0, f64::max));
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
    let legend = Legend::plan(&root, line_keys(lines.iter().map(|l| l.policy.as_str())));
    let body = titled(&root, title)?;
    let mut chart = legend
        .builder(&body)
        .x_label_area_size(40)
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
        .y_labels(y_ticks(&root))
        .x_labels(x_ticks(&root))
        .x_desc(x_desc)
        .y_desc(fit_y_desc(
            &root,
            if log_y {
                format!("{y_desc}, log scale")
            } else {
                y_desc.to_string()
            },
        ))
        .y_label_formatter(&y_label)
        .draw()
        .map_err(e)?;
    for (i, l) in lines.iter().enumerate() {
        let scaled = |v: &Vec<f64>| v.iter().map(|&y| ty(y)).collect::<Vec<_>>();
        let (median, lo, hi) = (&scaled(&l.median), &scaled(&l.lo), &scaled(&l.hi));
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
            .map_err(e)?;
        chart
            .draw_series(
                x.iter()
                    .cloned()
                    .zip(median.iter().cloned())
                    .map(move |p| Circle::new(p, 3, c.filled())),
            )
            .map_err(e)?;
    }
    finish(
        &root,
        &mut chart,
        Some(&legend),
        (xmin, xmax),
        (ylo, yhi),
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
    let legend = Legend::plan(&root, line_keys(lines.iter().map(|l| l.0.as_str())));
    macro_rules! draw {
        ($x_range:expr) => {{
            let body = titled(&root, title)?;
            let mut chart = legend
                .builder(&body)
                .x_label_area_size(40)
                .y_label_area_size(44)
                .build_cartesian_2d($x_range, 0f64..1.0)
                .map_err(e)?;
            chart
                .configure_mesh()
                .y_labels(y_ticks(&root))
                .x_labels(x_ticks(&root))
                .x_desc(x_desc)
                .y_desc(fit_y_desc(&root, "share ≤ x"))
                // Log axes get a light line per minor tick: too busy at this size.
                .light_line_style(TRANSPARENT)
                .x_label_formatter(&|x| match x_unit {
                    XUnit::Seconds => format_secs(*x),
                    XUnit::Count => format!("{x:.0}"),
                })
                .draw()
                .map_err(e)?;
            for (i, (_, pts)) in lines.iter().enumerate() {
                chart
                    .draw_series(LineSeries::new(steps(pts), color(i).stroke_width(2)))
                    .map_err(e)?;
            }
            let x = (xmin, xmax);
            finish(&root, &mut chart, Some(&legend), x, (0.0, 1.0), log_x)?
        }};
    }
    let geom = if log_x {
        draw!((xmin..xmax).log_scale())
    } else {
        draw!(xmin..xmax)
    };
    Ok(geom)
}
