//! Batsim's external events (`--events`): one JSON object a line, machines made unavailable
//! and available again, read into outages. Batsim v3/v4 wrote them as their own types
//! (`events/test_events_4hosts.txt`):
//!
//! ```text
//! {"type": "machine_unavailable", "resources": "0-1 3", "timestamp": 20}
//! {"type": "machine_available", "resources": "0 1", "timestamp": 250}
//! ```
//!
//! and Batsim 5 as `generic` events whose `data` string holds the same object
//! (`docs/input-external-events.rst`). Other generic events mean nothing to a scheduler
//! here: they are counted and skipped. `resources` is Batsim's interval set of machine ids,
//! numbered over the whole platform (the first site's nodes first). Each machine's
//! unavailable event pairs with its next available one; a machine never made available
//! again, or made unavailable twice, is an error naming the line. Batsim does not say why
//! a machine is down: every outage is a failure unless its line says `"kind":
//! "maintenance"` (Gridscope's addition; Batsim ignores the field).

use serde_json::Value;

use super::read::{at_line, finish, text_of, NodeCounts, OutageReport};
use super::{FailureError, Outage, OutageKind};
use crate::time::SimTime;

/// One availability change read from a line.
struct Change {
    line: usize,
    at: SimTime,
    available: bool,
    kind: OutageKind,
    machines: Vec<u32>,
}

/// Reads Batsim's external events file into outages (module header).
pub fn read_batsim_events(
    file: &str,
    bytes: &[u8],
    nodes: &NodeCounts,
) -> Result<(Vec<Outage>, OutageReport), FailureError> {
    let text = text_of(file, bytes)?;
    let mut report = OutageReport::default();
    let mut changes = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let bad = at_line(file, i + 1);
        let line = raw.trim();
        if line.is_empty() {
            report.blank += 1;
            continue;
        }
        match change_of(line, i + 1).map_err(bad)? {
            Some(c) => changes.push(c),
            None => report.skipped_events += 1,
        }
    }
    // Batsim sorts the events by time; at one instant the file's order holds.
    changes.sort_by_key(|c| (c.at, c.line));
    let machines: u32 = nodes.sites.iter().map(|s| s.1).sum();
    // Per machine: the line and time it went down, and why.
    let mut down: Vec<Option<(usize, SimTime, OutageKind)>> = vec![None; machines as usize];
    let mut out = Vec::new();
    for c in &changes {
        let bad = at_line(file, c.line);
        for &m in &c.machines {
            let (site, node) = machine(nodes, m).map_err(bad)?;
            let slot = &mut down[m as usize];
            match (c.available, *slot) {
                (false, None) => *slot = Some((c.line, c.at, c.kind)),
                (false, Some((line, _, _))) => {
                    return Err(bad(format!(
                        "machine {m} is made unavailable again; it has been since line {line}"
                    )))
                }
                (true, None) => {
                    return Err(bad(format!(
                        "machine {m} is made available but was not unavailable"
                    )))
                }
                (true, Some((_, start, kind))) => {
                    *slot = None;
                    if c.at > start {
                        out.push(Outage {
                            site,
                            node,
                            start,
                            end: c.at,
                            kind,
                        });
                    }
                }
            }
        }
    }
    if let Some((m, &(line, _, _))) = down
        .iter()
        .enumerate()
        .find_map(|(m, d)| d.as_ref().map(|d| (m, d)))
    {
        return Err(at_line(file, line)(format!(
            "machine {m} is made unavailable here and never available again: add a \
             machine_available event for it (Gridscope needs each outage's end)"
        )));
    }
    finish(out, report)
}

/// The availability change a line holds, or `None` for another generic event.
fn change_of(line: &str, number: usize) -> Result<Option<Change>, String> {
    let event: Value = serde_json::from_str(line).map_err(|e| format!("not a JSON object: {e}"))?;
    let timestamp = match event.get("timestamp").and_then(Value::as_f64) {
        Some(t) if (0.0..1e15).contains(&t) => SimTime::from_secs_f64(t),
        Some(t) => return Err(format!("timestamp {t} is not 0 or more seconds")),
        None => return Err("the event has no numeric 'timestamp'".into()),
    };
    let typ = event.get("type").and_then(Value::as_str).unwrap_or("");
    // A generic event carries the change as JSON text in `data`; other data is skipped.
    let body = match typ {
        "generic" => match event.get("data").and_then(Value::as_str) {
            Some(data) => match serde_json::from_str::<Value>(data) {
                Ok(inner) if is_change(&inner) => inner,
                _ => return Ok(None),
            },
            None => return Err("a generic event without a 'data' string".into()),
        },
        _ if is_change(&event) => event,
        other => {
            return Err(format!(
                "type '{other}' is not machine_unavailable, machine_available or generic"
            ))
        }
    };
    let resources = body
        .get("resources")
        .and_then(Value::as_str)
        .ok_or("the event has no 'resources' string (machine ids such as \"0-4 6\")")?;
    let kind = match body.get("kind").and_then(Value::as_str) {
        None => OutageKind::Failure,
        Some(named) => OutageKind::parse(named)?,
    };
    Ok(Some(Change {
        line: number,
        at: timestamp,
        available: body.get("type").and_then(Value::as_str) == Some("machine_available"),
        kind,
        machines: interval_set(resources)?,
    }))
}

fn is_change(v: &Value) -> bool {
    matches!(
        v.get("type").and_then(Value::as_str),
        Some("machine_unavailable" | "machine_available")
    )
}

/// Batsim's interval set: ids and ranges `a-b` separated by spaces.
fn interval_set(text: &str) -> Result<Vec<u32>, String> {
    let id = |s: &str| {
        s.parse::<u32>()
            .map_err(|_| format!("machine id '{s}' in '{text}' is not a number (0, 1, …)"))
    };
    let mut out = Vec::new();
    for part in text.split_whitespace() {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (id(a)?, id(b)?);
                if b < a {
                    return Err(format!("the range '{part}' ends before it starts"));
                }
                if b - a > 1 << 20 {
                    return Err(format!("the range '{part}' is too long"));
                }
                out.extend(a..=b);
            }
            None => out.push(id(part)?),
        }
    }
    if out.is_empty() {
        return Err("'resources' names no machine".into());
    }
    Ok(out)
}

/// The site and node of Batsim's machine `m` (numbered over every site's nodes in order).
fn machine(nodes: &NodeCounts, m: u32) -> Result<(u32, u32), String> {
    let mut first = 0u32;
    for (s, &(_, count)) in nodes.sites.iter().enumerate() {
        if m < first + count {
            return Ok((s as u32, m - first));
        }
        first += count;
    }
    match first {
        0 => Err("the platform lists no node types, so no machine can be unavailable".into()),
        _ => Err(format!(
            "machine {m} does not exist (the platform's nodes are machines 0 to {})",
            first - 1
        )),
    }
}
