//! KKOR's schedule of one cluster (the first seed of one run of `kkor-fairness`): jobs over
//! (time units, processors), migrated jobs dark, the others in their organization's colour,
//! batch boundaries as vertical lines (KKOR §2.2–2.3: the grid scheduler's batches for
//! centralized, the cluster's local batches t0 → t1 for decentralized and local).

use plotters::prelude::*;
use web_sys::HtmlCanvasElement;

use super::draw::{area, color, e, finish, fit_y_desc, titled, x_ticks, y_ticks};
use super::Geom;
use crate::kkor::presets::KkorRunsResult;
use crate::model::packing::{pack_units, Interval};
use crate::time::SimTime;

const UNIT: f64 = 1000.0;

/// `(job id, start, end, first processor, processors, origin, migrated)` on `cluster`.
type Rect = (i64, f64, f64, u32, u32, usize, bool);

fn rects(r: &KkorRunsResult, run: usize, cluster: usize) -> Option<(Vec<Rect>, f64, f64)> {
    let s = r.runs.get(run)?.schedule.as_ref()?;
    let cap = r.clusters.get(cluster)?.procs;
    let on: Vec<usize> = (0..s.placements.len())
        .filter(|&i| s.placements[i].cluster == cluster)
        .collect();
    let items: Vec<Interval> = on
        .iter()
        .map(|&i| {
            let p = &s.placements[i];
            (s.jobs[i].0, SimTime(p.start), SimTime(p.end), s.jobs[i].1)
        })
        .collect();
    let lo = items.iter().map(|x| x.1 .0).min().unwrap_or(0) as f64 / UNIT;
    let hi = items.iter().map(|x| x.2 .0).max().unwrap_or(1) as f64 / UNIT;
    let (placed, _) = pack_units(
        &items,
        cap,
        SimTime(i64::MIN / 4),
        SimTime(i64::MAX / 4),
        20_000,
    );
    let out = placed
        .into_iter()
        .map(|(k, first, n)| {
            let i = on[k];
            let p = &s.placements[i];
            (
                items[k].0,
                p.start as f64 / UNIT,
                p.end as f64 / UNIT,
                first,
                n,
                s.jobs[i].2,
                p.migrated,
            )
        })
        .collect();
    Some((out, lo, hi.max(lo + 1.0)))
}

pub fn draw(
    canvas: &HtmlCanvasElement,
    r: &KkorRunsResult,
    run: usize,
    cluster: usize,
) -> Result<Geom, String> {
    let (rects, x0, x1) = rects(r, run, cluster).ok_or("no schedule to draw")?;
    let cap = r.clusters[cluster].procs as f64;
    let label = &r.runs[run].label;
    let root = area(canvas)?;
    let body = titled(&root, format!("O{} ({} CPUs), {label}", cluster + 1, cap))?;
    let mut chart = ChartBuilder::on(&body)
        .margin(8)
        .x_label_area_size(38)
        .y_label_area_size(48)
        .build_cartesian_2d(x0..x1, 0f64..cap)
        .map_err(e)?;
    chart
        .configure_mesh()
        .y_labels(y_ticks(&root))
        .x_labels(x_ticks(&root))
        .disable_mesh()
        .x_desc("time units (migrated jobs dark; lines: batches)")
        .x_labels(6)
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_desc(fit_y_desc(&root, "processors"))
        .draw()
        .map_err(e)?;
    let plot = chart.plotting_area();
    for &(_, st, en, lo, n, org, migrated) in &rects {
        let fill = if migrated {
            BLACK.mix(0.8).filled()
        } else {
            color(org).mix(0.45).filled()
        };
        plot.draw(&Rectangle::new(
            [(st, lo as f64), (en, (lo + n) as f64)],
            fill,
        ))
        .map_err(e)?;
    }
    let s = r.runs[run].schedule.as_ref().ok_or("no schedule")?;
    let centralized = r.runs[run].policy == "centralized";
    for b in s
        .batches
        .iter()
        .filter(|b| centralized || b.cluster == cluster)
    {
        let t = b.t0 as f64 / UNIT;
        if (x0..=x1).contains(&t) {
            plot.draw(&PathElement::new(
                vec![(t, 0.0), (t, cap)],
                RGBColor(213, 94, 0).mix(0.6).stroke_width(1),
            ))
            .map_err(e)?;
        }
    }
    finish(&root, &mut chart, None, (x0, x1), (0.0, cap), false)
}

pub fn describe(r: &KkorRunsResult, run: usize, cluster: usize, x: f64, y: f64) -> String {
    let Some((rects, _, _)) = rects(r, run, cluster) else {
        return String::new();
    };
    let u = y.floor().max(0.0) as u32;
    match rects
        .iter()
        .find(|q| q.1 <= x && x < q.2 && q.3 <= u && u < q.3 + q.4)
    {
        Some(q) => format!(
            "job {} of O{}{}: {:.1}–{:.1} time units, {} processors",
            q.0,
            q.5 + 1,
            if q.6 { " (migrated here)" } else { "" },
            q.1,
            q.2,
            q.4
        ),
        None => format!("{x:.1} time units, processor {u}: idle"),
    }
}
