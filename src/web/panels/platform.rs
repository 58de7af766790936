//! The platform: a preset, one site sized from the trace, or custom sites edited in a table.

use std::rc::Rc;

use yew::prelude::*;

use super::form::{input_value, num_field, on_value, parse, select_value, Apply, DraftInput};
use super::node_types;
use crate::model::{Allocation, Site};
use crate::scenario::{platform_preset, PlatformSpec, Scenario, PLATFORM_PRESETS};
use crate::web::state::{edit, use_app, AppContext};

#[function_component]
pub fn PlatformPanel() -> Html {
    let app = use_app();
    let current = match &app.scenario.platform {
        PlatformSpec::Preset { name } => format!("preset:{name}"),
        PlatformSpec::Sites { .. } => "sites".into(),
        PlatformSpec::FromTrace { .. } => "trace".into(),
    };
    let choose = app.callback(|e: Event| {
        let v = select_value(&e);
        edit(move |s| {
            s.platform = chosen(s, &v);
            Ok(())
        })
    });
    let body = match &app.scenario.platform {
        PlatformSpec::Preset { .. } => {
            let help = PLATFORM_PRESETS
                .iter()
                .find(|p| current == format!("preset:{}", p.0))
                .map_or("", |p| p.1);
            html! { <p class="help">{help}</p> }
        }
        PlatformSpec::FromTrace { procs } => num_field(
            &app,
            "procs",
            "Processors (empty = from the trace)",
            "One processor-granular site; empty takes the header's MaxProcs, else MaxNodes, else the widest job.",
            procs.map(|p| p.to_string()).unwrap_or_default(),
            "1",
            |s, v| {
                let procs = if v.trim().is_empty() { None } else { Some(parse::<u32>("processors", v)?) };
                s.platform = PlatformSpec::FromTrace { procs };
                Ok(())
            },
        ),
        PlatformSpec::Sites { sites, .. } => sites_table(&app, sites),
    };
    html! {
        <>
            <h2>{"Platform"}</h2>
            <div class="fields">
                <label>{"Platform "}
                    <select onchange={choose} data-testid="platform">
                        { for PLATFORM_PRESETS.iter().map(|(n, _)| { let v = format!("preset:{n}"); html!{ <option selected={current == v} value={v.clone()}>{format!("preset {n}")}</option> } }) }
                        <option value="trace" selected={current == "trace"}>{"one site sized from the trace"}</option>
                        <option value="sites" selected={current == "sites"}>{"custom sites"}</option>
                    </select>
                </label>
                {body}
            </div>
        </>
    }
}

/// The platform the select's value (`preset:NAME`, `trace`, `sites`) names; custom sites
/// start from the current platform's.
fn chosen(s: &Scenario, v: &str) -> PlatformSpec {
    if let Some(n) = v.strip_prefix("preset:") {
        return PlatformSpec::Preset { name: n.into() };
    }
    if v == "trace" {
        return PlatformSpec::FromTrace { procs: None };
    }
    let sites = match &s.platform {
        PlatformSpec::Preset { name } => platform_preset(name).map(|p| p.sites).unwrap_or_default(),
        PlatformSpec::Sites { sites, .. } => sites.clone(),
        PlatformSpec::FromTrace { procs } => vec![Site::flat("site", procs.unwrap_or(128))],
    };
    PlatformSpec::Sites {
        name: "custom".into(),
        sites,
    }
}

/// Applies `f` to site `i` of a custom platform.
fn site_edit(i: usize, f: fn(&mut Site, &str) -> Result<(), String>) -> Apply {
    Rc::new(move |s, v| {
        if let PlatformSpec::Sites { sites, .. } = &mut s.platform {
            if let Some(site) = sites.get_mut(i) {
                f(site, v)?;
                // A site placed on nodes of one type (the Failures panel's) keeps that type
                // the size the table says: nodes and cores per node.
                if let [t] = site.node_types.as_mut_slice() {
                    t.count = site.nodes;
                    t.cores = site.cpus_per_node;
                }
            }
        }
        Ok(())
    })
}

fn sites_table(app: &AppContext, sites: &[Site]) -> Html {
    let add = app.callback(|_: MouseEvent| {
        edit(|s| {
            if let PlatformSpec::Sites { sites, .. } = &mut s.platform {
                let n = sites.len() + 1;
                sites.push(Site::flat(format!("site{n}"), 64));
            }
            Ok(())
        })
    });
    html! {
        <>
            <table class="sites">
                <thead><tr>
                    <th title="Shown in outputs">{"name"}</th>
                    <th title="Nodes of the site">{"nodes"}</th>
                    <th title="CPUs on each node">{"CPUs/node"}</th>
                    <th title="Relative speed (SOB Table 1 uses MHz): runtime on m = runtime at home × speed(home) / speed(m)">{"speed"}</th>
                    <th title="processor: any CPU to any job (on node types: jobs share nodes); node: a node runs at most one job, so a job takes ceil(p / CPUs per node) whole nodes (SOB §3) — on node types, the placement's nodes whole, each holding all its cores, memory and GPUs while the job runs (docs/nodes.md)">{"allocation"}</th>
                    <th></th>
                </tr></thead>
                <tbody>
                    { for sites.iter().enumerate().map(|(i, s)| html! { <>
                        { site_row(app, i, s) }
                        { node_types::node_types_row(app, i, s) }
                    </> }) }
                </tbody>
            </table>
            <button class="small" onclick={add}>{"add site"}</button>
            <p class="help">{"With one site every job runs there; with several, each job is submitted at its home site, and the run's grid scheme (the runs table) keeps it there or moves it."}</p>
        </>
    }
}

fn site_row(app: &AppContext, i: usize, s: &Site) -> Html {
    let input = |label: &str,
                 value: String,
                 f: fn(&mut Site, &str) -> Result<(), String>,
                 kind: &str| {
        let onchange = on_value(app, site_edit(i, f), input_value);
        html! { <td><DraftInput kind={kind.to_string()} label={label.to_string()} {value} {onchange} /></td> }
    };
    let alloc = on_value(
        app,
        site_edit(i, |s, v| {
            s.allocation = if v == "node" {
                Allocation::Node
            } else {
                Allocation::Processor
            };
            Ok(())
        }),
        select_value,
    );
    let remove = app.callback(move |_: MouseEvent| {
        edit(move |s| {
            if let PlatformSpec::Sites { sites, .. } = &mut s.platform {
                if sites.len() <= 1 {
                    return Err("a platform needs at least one site".into());
                }
                if i < sites.len() {
                    sites.remove(i);
                }
            }
            Ok(())
        })
    });
    // Several node types: the site's nodes and cores are theirs, edited below it.
    let size = match s.node_types.len() > 1 {
        true => html! { <>
            <td title="The node types' total (edit them below)">{s.nodes}</td>
            <td title="Several node types (below)">{"mixed"}</td>
        </> },
        false => html! { <>
            { input("nodes", s.nodes.to_string(), |s, v| { s.nodes = parse("nodes", v)?; Ok(()) }, "number") }
            { input("CPUs per node", s.cpus_per_node.to_string(), |s, v| { s.cpus_per_node = parse("CPUs per node", v)?; Ok(()) }, "number") }
        </> },
    };
    html! { <tr>
        { input("site name", s.name.clone(), |s, v| { s.name = v.trim().to_string(); Ok(()) }, "text") }
        {size}
        { input("speed", s.speed.to_string(), |s, v| { s.speed = parse("speed", v)?; Ok(()) }, "number") }
        <td><select aria-label="allocation" onchange={alloc}>
            <option value="processor" selected={s.allocation == Allocation::Processor}>{"processor"}</option>
            <option value="node" selected={s.allocation == Allocation::Node}>{"node"}</option>
        </select></td>
        <td>
            <button class="small" onclick={remove}>{"remove"}</button>
            { node_types::add_types_button(app, i, s) }
        </td>
    </tr> }
}
