//! The SES panel's drawing that `draw` has no shape for: its node groups as boxes sized by
//! their nodes and filled to their utilization.

use super::backend::Sharp;
use plotters::element::{DynElement, IntoDynElement};
use plotters::prelude::*;
use web_sys::HtmlCanvasElement;

use super::draw::{area, color, e, finish, font, titled, Geom};

type Res = Result<Geom, String>;

fn finite(v: f64) -> f64 {
    if v.is_finite() {
        v
    } else {
        0.0
    }
}

/// A node group as the picture draws it.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupBox {
    pub name: String,
    pub nodes: u32,
    pub cpus_per_node: u32,
}

/// Narrowest box (a one-node group stays readable), and the gap between boxes, in nodes.
pub const MIN_BOX: f64 = 8.0;
const GAP: f64 = 2.0;

/// (left, right) of each group's box, in node units: width = nodes (at least [`MIN_BOX`]).
pub fn group_layout(groups: &[GroupBox]) -> Vec<(f64, f64)> {
    let mut x = 0.0;
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

/// One row of boxes per variant (`util[row][group]`, 0..1), top to bottom: the groups'
/// names (with their shape where it fits) once over the first row, each variant's name over
/// its boxes, a box's utilization inside it where it fits (the tooltip has every number).
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
    let n = rows.len() as f64;
    let (x, y) = ((0.0, right + 1.0), (0.0, n + 0.45));
    let body = titled(&root, title)?;
    let mut chart = ChartBuilder::on(&body)
        .margin(8)
        .build_cartesian_2d(x.0..x.1, y.0..y.1)
        .map_err(e)?;
    // Pixels per node, to keep each label to the room it has.
    let (rx, _) = chart.plotting_area().get_pixel_range();
    let px = f64::from(rx.end - rx.start) / (x.1 - x.0);
    let style = font(12);
    let fits = |text: &str, room: f64| {
        root.estimate_text_size(text, &style)
            .is_ok_and(|(w, _)| f64::from(w) + 4.0 <= room * px)
    };
    let mut shapes: Vec<DynElement<'_, Sharp, (f64, f64)>> = vec![];
    for (g, &(x0, x1)) in groups.iter().zip(&layout) {
        let full = format!("{} {}×{}", g.name, g.nodes, g.cpus_per_node);
        let label = if fits(&full, x1 - x0 + GAP) {
            full
        } else {
            g.name.clone()
        };
        shapes.push(Text::new(label, (x0, n + 0.4), font(12)).into_dyn());
    }
    for (r, name) in rows.iter().enumerate() {
        let base = n - 1.0 - r as f64;
        let (y0, y1) = (base + 0.06, base + 0.62);
        let c = color(r);
        shapes.push(Text::new(name.clone(), (0.0, base + 0.95), font(12)).into_dyn());
        for (k, &(x0, x1)) in layout.iter().enumerate() {
            let u = finite(util.get(r).and_then(|v| v.get(k)).copied().unwrap_or(0.0));
            let top = y0 + u.clamp(0.0, 1.0) * (y1 - y0);
            shapes.push(Rectangle::new([(x0, y0), (x1, top)], c.mix(0.75).filled()).into_dyn());
            shapes.push(Rectangle::new([(x0, y0), (x1, y1)], BLACK.stroke_width(1)).into_dyn());
            let pct = format!("{:.0} %", u * 100.0);
            if fits(&pct, x1 - x0) {
                let at = (x0 + 0.5, (y0 + y1) / 2.0 + 0.1);
                shapes.push(Text::new(pct, at, font(12)).into_dyn());
            }
        }
    }
    chart.draw_series(shapes).map_err(e)?;
    finish(&root, &mut chart, None, x, y, false)
}
