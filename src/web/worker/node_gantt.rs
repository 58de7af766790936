//! The Gantt chart of a node-typed site (issues #37, #41), from where the engine placed
//! each job: node n's cores are the rows from its first core on, each job's share of a node
//! is drawn in that node's rows (cores inside one node are interchangeable, so the rows
//! within a node are packed for drawing), the runs a failure killed end where the node's
//! down time begins, and the down time covers the node's rows.

use crate::model::packing::{pack_units, Interval};
use crate::model::{Platform, Share};
use crate::scenario::Report;
use crate::time::SimTime;
use crate::web::protocol::GanttData;

/// The layout of `site` of run `run` in `[from_s, to_s]`, or `None` when the run kept no
/// placements there (a site without node types, or an ideal run).
pub fn node_gantt(
    r: &Report,
    platform: &Platform,
    (run, site): (usize, usize),
    (from_s, to_s): (f64, f64),
    max_rects: usize,
) -> Option<GanttData> {
    let s = platform.sites.get(site)?;
    let rr = r.runs.get(run)?;
    if !s.has_nodes() || rr.placements.is_empty() {
        return None;
    }
    let cores: Vec<u32> = s
        .node_types
        .iter()
        .flat_map(|t| std::iter::repeat_n(t.cores, t.count as usize))
        .collect();
    let mut first = Vec::with_capacity(cores.len());
    let mut next = 0u32;
    for &c in &cores {
        first.push(next);
        next = next.saturating_add(c);
    }
    // Per node: the shares held on it, each with whether a failure killed that run.
    let mut on: Vec<Vec<(Interval, bool)>> = vec![Vec::new(); cores.len()];
    let mut put = |id: i64, start: SimTime, end: SimTime, shares: &[Share], killed: bool| {
        for sh in shares.iter().filter(|sh| sh.cores > 0) {
            if let Some(node) = on.get_mut(sh.node as usize) {
                node.push(((id, start, end, sh.cores), killed));
            }
        }
    };
    for (i, o) in rr.outcomes.iter().enumerate() {
        // A lost job's last run is one of the failure log's killed runs, drawn from there.
        if o.ran() && o.site as usize == site && o.status != crate::engine::JobOutcome::Lost {
            put(
                r.workload.jobs[i].id,
                o.start,
                o.end,
                rr.placements.of(i),
                false,
            );
        }
    }
    let log = rr.failure_log.as_ref();
    for k in log.map_or(&[][..], |l| &l.killed) {
        if k.site as usize == site {
            let id = r.workload.jobs[k.job as usize].id;
            put(
                id,
                k.start,
                k.end,
                log.map_or(&[][..], |l| l.shares_of(k)),
                true,
            );
        }
    }
    let (from, to) = (SimTime::from_secs_f64(from_s), SimTime::from_secs_f64(to_s));
    let mut g = GanttData {
        run,
        site,
        from_s,
        to_s,
        capacity: next,
        unit: "cores (by node)".into(),
        rects: Vec::new(),
        killed: Vec::new(),
        down: Vec::new(),
        truncated: false,
    };
    for (n, held) in on.iter().enumerate() {
        let intervals: Vec<Interval> = held.iter().map(|h| h.0).collect();
        let room = max_rects.saturating_sub(g.rects.len() + g.killed.len());
        let (placed, cut) = pack_units(&intervals, cores[n], from, to, room);
        g.truncated |= cut;
        for (k, lo, units) in placed {
            let ((id, st, en, _), killed) = held[k];
            let rect = (id, st.as_secs_f64(), en.as_secs_f64(), first[n] + lo, units);
            match killed {
                true => g.killed.push(rect),
                false => g.rects.push(rect),
            }
        }
    }
    for d in log.map_or(&[][..], |l| &l.downtimes) {
        let n = d.node as usize;
        if d.site as usize == site && d.start <= to && d.end >= from && n < cores.len() {
            g.down.push((
                d.start.as_secs_f64(),
                d.end.as_secs_f64(),
                first[n],
                cores[n],
            ));
        }
    }
    Some(g)
}
