//! The scenario's known outages, one by one (issue #41, docs/failures.md): each listed with
//! a button that drops it, and a row that adds one (a node, its start and end in seconds
//! from the workload's start, failure or maintenance). A file read in the Failures panel
//! replaces them all; this edits them.

use yew::prelude::*;

use super::form::input_value;
use crate::failure::OutageKind;
use crate::scenario::failures::OutageSpec;
use crate::web::state::{edit, use_app};

/// The outages the table lists at most (a file may hold thousands: the rest are counted).
const MAX_LISTED: usize = 100;

/// What the add row holds as typed.
#[derive(Clone, Default, PartialEq)]
struct Draft {
    node: String,
    start: String,
    end: String,
    maintenance: bool,
}

#[function_component]
pub fn OutageTable() -> Html {
    let app = use_app();
    let outages = app
        .scenario
        .failures
        .as_ref()
        .map(|f| f.outages.clone())
        .unwrap_or_default();
    let draft = use_state(Draft::default);
    let set = |apply: fn(&mut Draft, String)| {
        let draft = draft.clone();
        Callback::from(move |e: InputEvent| {
            let mut d = (*draft).clone();
            apply(&mut d, input_value(&e));
            draft.set(d);
        })
    };
    let kind = {
        let draft = draft.clone();
        Callback::from(move |e: Event| {
            let mut d = (*draft).clone();
            d.maintenance = super::form::select_value(&e) == "maintenance";
            draft.set(d);
        })
    };
    let add = {
        let draft = draft.clone();
        app.callback(move |_: MouseEvent| {
            let d = (*draft).clone();
            edit(move |s| {
                let outage = parse(&d)?;
                let f = s
                    .failures
                    .as_mut()
                    .ok_or("choose a failure model or read an outage file first")?;
                f.outages.push(outage);
                Ok(())
            })
        })
    };
    let remove = |i: usize| {
        app.callback(move |_: MouseEvent| {
            edit(move |s| {
                if let Some(f) = s.failures.as_mut() {
                    if i < f.outages.len() {
                        f.outages.remove(i);
                    }
                }
                Ok(())
            })
        })
    };
    let row = |(i, o): (usize, &OutageSpec)| {
        let node = match &o.site {
            Some(site) => format!("{site}:{}", o.node),
            None => o.node.to_string(),
        };
        html! { <tr>
            <td class="num">{node}</td>
            <td class="num">{o.start_s}</td>
            <td class="num">{o.end_s}</td>
            <td>{o.kind.name()}</td>
            <td><button class="small" onclick={remove(i)} aria-label={format!("drop outage {}", i + 1)}
                data-testid={format!("drop-outage-{i}")}>{"drop"}</button></td>
        </tr> }
    };
    let more = outages.len().saturating_sub(MAX_LISTED);
    html! {
        <details class="outages" data-testid="outage-table" open={!outages.is_empty() && outages.len() <= 10}>
            <summary>{format!("Known outages ({})", outages.len())}</summary>
            <table class="metrics">
                <thead><tr><th>{"node"}</th><th>{"start (s)"}</th><th>{"end (s)"}</th><th>{"kind"}</th><th></th></tr></thead>
                <tbody>
                    { for outages.iter().enumerate().take(MAX_LISTED).map(row) }
                    <tr>
                        <td><input aria-label="outage node" data-testid="outage-node" placeholder="0" value={draft.node.clone()} oninput={set(|d, v| d.node = v)} /></td>
                        <td><input type="number" aria-label="outage start" data-testid="outage-start" value={draft.start.clone()} oninput={set(|d, v| d.start = v)} /></td>
                        <td><input type="number" aria-label="outage end" data-testid="outage-end" value={draft.end.clone()} oninput={set(|d, v| d.end = v)} /></td>
                        <td><select aria-label="outage kind" data-testid="outage-kind" onchange={kind}>
                            <option value="failure" selected={!draft.maintenance}>{"failure"}</option>
                            <option value="maintenance" selected={draft.maintenance}>{"maintenance"}</option>
                        </select></td>
                        <td><button class="small" onclick={add} data-testid="add-outage">{"add"}</button></td>
                    </tr>
                </tbody>
            </table>
            if more > 0 {
                <p class="help">{format!("and {more} more, not listed")}</p>
            }
            <p class="help">{"A node is a number of the first site, or site:node (a site's name); start and end are whole seconds from the workload's first submission. A failure kills the jobs on the node; maintenance is known in advance and planned around (docs/failures.md)."}</p>
        </details>
    }
}

/// The outage the add row describes, or what is wrong with it.
fn parse(d: &Draft) -> Result<OutageSpec, String> {
    let (site, node) = match d.node.trim().rsplit_once(':') {
        Some((site, node)) => (Some(site.trim().to_string()), node),
        None => (None, d.node.trim()),
    };
    let node: u32 = node
        .trim()
        .parse()
        .map_err(|_| format!("outage node '{}' is not a node number", d.node.trim()))?;
    let secs = |what: &str, v: &str| {
        v.trim().parse::<i64>().map_err(|_| {
            format!(
                "outage {what} '{}' is not a whole number of seconds",
                v.trim()
            )
        })
    };
    let (start_s, end_s) = (secs("start", &d.start)?, secs("end", &d.end)?);
    if end_s <= start_s {
        return Err(format!(
            "the outage ends at {end_s} s, not after its start at {start_s} s"
        ));
    }
    Ok(OutageSpec {
        site,
        node,
        start_s,
        end_s,
        kind: match d.maintenance {
            true => OutageKind::Maintenance,
            false => OutageKind::Failure,
        },
    })
}
