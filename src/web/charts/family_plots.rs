//! Drawings of the SES and KKOR panels that `plots` has no shape for: grouped bars with a
//! band on each bar, and SES's node groups as boxes sized by their nodes and filled to their
//! utilization.

use super::backend::Sharp;
use plotters::element::{DynElement, IntoDynElement};
use plotters::prelude::*;
use web_sys::HtmlCanvasElement;

use super::plots::{area, color, e, finish, fit_title, font, x_ticks, Geom};

type Res = Result<Geom, String>;

/// (median, lo, hi) of one bar.
pub type Banded = (f64, f64, f64);

fn finite(v: f64) -> f64 {
    if v.is_finite() {
        v
    } else {
        0.0
    }
}

/// Left edge of bar `si` of `m` in group `g` (bars of width 0.8 / m).
pub fn bar_x0(g: usize, si: usize, m: usize) -> f64 {
    g as f64 - 0.4 + si as f64 * 0.8 / m.max(1) as f64
}

/// Grouped bars (`values[series][group]`) with a whisker from lo to hi on each bar (none
/// where lo or hi is NaN); the legend sits upper left.
pub fn band_bars(
    canvas: &HtmlCanvasElement,
    title: &str,
    y_desc: &str,
    groups: &[String],
    series: &[String],
    values: &[Vec<Banded>],
) -> Res {
    let root = area(canvas)?;
    let (n, m) = (groups.len(), series.len());
    if n == 0 || m == 0 {
        return Err("nothing to draw".into());
    }
    let ymax = values
        .iter()
        .flatten()
        .flat_map(|&(v, lo, hi)| [v, lo, hi])
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max)
        .max(1e-9)
        * 1.15;
    let x = (-0.5, n as f64 - 0.5);
    let mut chart = ChartBuilder::on(&root)
        .caption(fit_title(&root, title), font(15))
        .margin(8)
        .x_label_area_size(28)
        .y_label_area_size(56)
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
            .draw_series(vals.iter().enumerate().map(move |(g, &(v, _, _))| {
                let x0 = bar_x0(g, si, m);
                Rectangle::new([(x0, 0.0), (x0 + w * 0.92, finite(v))], c.filled())
            }))
            .map_err(e)?
            .label(name.clone())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], c.filled()));
        chart
            .draw_series(vals.iter().enumerate().flat_map(move |(g, &(_, lo, hi))| {
                let x0 = bar_x0(g, si, m);
                let (xc, cap) = (x0 + w * 0.46, w * 0.2);
                // No band (NaN), no whisker.
                let band = lo.is_finite() && hi.is_finite();
                let (lo, hi) = (finite(lo), finite(hi));
                band.then_some([
                    PathElement::new(vec![(xc, lo), (xc, hi)], BLACK.stroke_width(1)),
                    PathElement::new(vec![(xc - cap, lo), (xc + cap, lo)], BLACK.stroke_width(1)),
                    PathElement::new(vec![(xc - cap, hi), (xc + cap, hi)], BLACK.stroke_width(1)),
                ])
                .into_iter()
                .flatten()
            }))
            .map_err(e)?;
    }
    let legend = (m > 1).then_some(SeriesLabelPosition::UpperLeft);
    finish(&root, &mut chart, legend, x, (0.0, ymax), false)
}

/// A node group as the picture draws it.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupBox {
    pub name: String,
    pub nodes: u32,
    pub cpus_per_node: u32,
}

/// Width of the row labels, in node units.
const LABEL_W: f64 = 32.0;
/// Narrowest box (a one-node group stays readable), and the gap between boxes, in nodes.
pub const MIN_BOX: f64 = 8.0;
const GAP: f64 = 2.0;

/// (left, right) of each group's box, in node units: width = nodes (at least [`MIN_BOX`]).
pub fn group_layout(groups: &[GroupBox]) -> Vec<(f64, f64)> {
    let mut x = LABEL_W;
    groups
        .iter()
        .map(|g| {
            let x0 = x;
            x += f64::from(g.nodes).max(MIN_BOX);
            let span = (x0, x);
            x += GAP;
            span
        })
        .collect()
}

/// One row of boxes per variant (`util[row][group]`, 0..1), top to bottom.
pub fn node_groups(
    canvas: &HtmlCanvasElement,
    title: &str,
    rows: &[String],
    groups: &[GroupBox],
    util: &[Vec<f64>],
) -> Res {
    let root = area(canvas)?;
    let layout = group_layout(groups);
    let (Some(&(_, right)), false) = (layout.last(), rows.is_empty()) else {
        return Err("nothing to draw".into());
    };
    let (x, y) = ((0.0, right + 1.0), (0.0, rows.len() as f64));
    let mut chart = ChartBuilder::on(&root)
        .caption(fit_title(&root, title), font(15))
        .margin(8)
        .build_cartesian_2d(x.0..x.1, y.0..y.1)
        .map_err(e)?;
    let n = rows.len() as f64;
    for (r, name) in rows.iter().enumerate() {
        let (y0, y1) = (n - 1.0 - r as f64 + 0.08, n - r as f64 - 0.34);
        let c = color(r);
        let mut shapes: Vec<DynElement<'_, Sharp, (f64, f64)>> =
            vec![Text::new(name.clone(), (0.5, (y0 + y1) / 2.0 + 0.12), font(12)).into_dyn()];
        for (k, (g, &(x0, x1))) in groups.iter().zip(&layout).enumerate() {
            let u = finite(util.get(r).and_then(|v| v.get(k)).copied().unwrap_or(0.0));
            let top = y0 + u.clamp(0.0, 1.0) * (y1 - y0);
            shapes.push(Rectangle::new([(x0, y0), (x1, top)], c.mix(0.75).filled()).into_dyn());
            shapes.push(Rectangle::new([(x0, y0), (x1, y1)], BLACK.stroke_width(1)).into_dyn());
            shapes.push(
                Text::new(
                    format!("{} {}×{}", g.name, g.nodes, g.cpus_per_node),
                    (x0, y1 + 0.26),
                    font(12),
                )
                .into_dyn(),
            );
            shapes.push(
                Text::new(
                    format!("{:.0} %", u * 100.0),
                    (x0 + 0.5, (y0 + y1) / 2.0 + 0.1),
                    font(12),
                )
                .into_dyn(),
            );
        }
        chart.draw_series(shapes).map_err(e)?;
    }
    finish(&root, &mut chart, None, x, y, false)
}
