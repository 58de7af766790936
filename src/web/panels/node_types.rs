//! The node types of a custom site (issue #37, docs/nodes.md "Platforms: node types"): a
//! row per type (count × cores, memory, GPUs), added and removed in the sites table. A site
//! with node types is the sum of them: its nodes are the types' counts, its processors their
//! cores; its allocation says whether jobs share nodes (processor) or each runs alone on
//! whole nodes (node), and a type marked exclusive runs one job per node on a site that
//! shares the others (an exclusive GPU partition beside shared CPU nodes).

use std::rc::Rc;

use yew::prelude::*;

use super::form::{input_value, on_value, parse, Apply, DraftInput};
use crate::model::{NodeType, Site};
use crate::scenario::PlatformSpec;
use crate::web::state::{edit, AppContext};

/// KB in a GiB: memory is typed in GB (GiB, as AccaSim's and Slurm's configurations count)
/// and kept in KB.
const KB_PER_GB: f64 = 1_048_576.0;

/// What a change of site `i`'s node types leaves the site: its node count the types'
/// total, one type's cores its cores per node (docs/nodes.md). The allocation is kept:
/// `node` makes the typed nodes exclusive.
pub fn sync_site(site: &mut Site) {
    if site.node_types.is_empty() {
        return;
    }
    site.nodes = site.node_types.iter().map(|t| t.count).sum();
    if let [t] = site.node_types.as_slice() {
        site.cpus_per_node = t.cores;
    }
}

/// Applies `f` to node type `k` of site `i`.
fn type_edit(i: usize, k: usize, f: fn(&mut NodeType, &str) -> Result<(), String>) -> Apply {
    Rc::new(move |s, v| {
        if let PlatformSpec::Sites { sites, .. } = &mut s.platform {
            if let Some(site) = sites.get_mut(i) {
                if let Some(t) = site.node_types.get_mut(k) {
                    f(t, v)?;
                }
                sync_site(site);
            }
        }
        Ok(())
    })
}

/// The caption's word on a node-exclusive site (allocation node: each node runs one job)
/// or on one whose types are exclusive one by one.
fn exclusive_note(s: &Site) -> &'static str {
    match s.allocation {
        crate::model::Allocation::Node => "; node-exclusive: each node runs one job",
        crate::model::Allocation::Processor if s.has_exclusive_nodes() => {
            "; the nodes of the types marked exclusive run one job each"
        }
        crate::model::Allocation::Processor => "",
    }
}

/// Memory per node in GB, as typed; 0 means memory is not modelled (on every type).
fn gb(mem_kb: u64) -> String {
    let v = mem_kb as f64 / KB_PER_GB;
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn set_gb(t: &mut NodeType, v: &str) -> Result<(), String> {
    let g: f64 = parse("memory (GB)", v)?;
    if !(0.0..=1e9).contains(&g) {
        return Err(format!("memory (GB): '{v}' is not a size ≥ 0"));
    }
    t.mem_kb = (g * KB_PER_GB).round() as u64;
    Ok(())
}

fn positive(what: &str, v: &str) -> Result<u32, String> {
    let n: u32 = parse(what, v)?;
    if n == 0 {
        return Err(format!("{what} must be at least 1"));
    }
    Ok(n)
}

/// Site `i`'s button that lists its nodes as node types (one type of its nodes and cores),
/// or nothing when it has them.
pub fn add_types_button(app: &AppContext, i: usize, s: &Site) -> Html {
    if !s.node_types.is_empty() {
        return html! {};
    }
    let onclick = app.callback(move |_: MouseEvent| {
        edit(move |s| {
            if let PlatformSpec::Sites { sites, .. } = &mut s.platform {
                if let Some(site) = sites.get_mut(i) {
                    site.node_types = vec![NodeType {
                        name: String::new(),
                        count: site.nodes,
                        cores: site.cpus_per_node,
                        mem_kb: 0,
                        gpus: 0,
                        power: None,
                        exclusive: false,
                    }];
                    sync_site(site);
                }
            }
            Ok(())
        })
    });
    html! {
        <button class="small" {onclick} data-testid={format!("node-types-add-{i}")}
            title="Give the site node types (cores, memory and GPUs per node): jobs are then placed on particular nodes and ask for memory and GPUs (docs/nodes.md)">
            {"node types"}
        </button>
    }
}

/// Site `i`'s node types under its row of the sites table: a row per type and a button to
/// add one; removing the last gives the site back its processors.
pub fn node_types_row(app: &AppContext, i: usize, s: &Site) -> Html {
    if s.node_types.is_empty() {
        return html! {};
    }
    let input = |k: usize,
                 label: &str,
                 value: String,
                 f: fn(&mut NodeType, &str) -> Result<(), String>,
                 kind: &str| {
        let onchange = on_value(app, type_edit(i, k, f), input_value);
        html! { <td><DraftInput kind={kind.to_string()} label={label.to_string()} {value} {onchange} /></td> }
    };
    let add = app.callback(move |_: MouseEvent| {
        edit(move |s| {
            if let PlatformSpec::Sites { sites, .. } = &mut s.platform {
                if let Some(site) = sites.get_mut(i) {
                    if let Some(last) = site.node_types.last().cloned() {
                        site.node_types.push(NodeType {
                            name: String::new(),
                            count: 1,
                            ..last
                        });
                    }
                    sync_site(site);
                }
            }
            Ok(())
        })
    });
    let remove = |k: usize| {
        app.callback(move |_: MouseEvent| {
            edit(move |s| {
                if let PlatformSpec::Sites { sites, .. } = &mut s.platform {
                    if let Some(site) = sites.get_mut(i) {
                        if k < site.node_types.len() {
                            site.node_types.remove(k);
                        }
                        sync_site(site);
                    }
                }
                Ok(())
            })
        })
    };
    // The site's allocation node makes every type exclusive: the boxes then say so, fixed.
    let all_exclusive = s.allocation == crate::model::Allocation::Node;
    let exclusive = |k: usize, t: &NodeType| {
        let onchange = on_value(
            app,
            type_edit(i, k, |t, _| {
                t.exclusive = !t.exclusive;
                Ok(())
            }),
            |_: &Event| String::new(),
        );
        html! { <td><input type="checkbox" checked={t.exclusive || all_exclusive} disabled={all_exclusive}
        aria-label="node-exclusive: each node of this type runs one job"
        data-testid={format!("node-type-exclusive-{i}-{k}")} {onchange} /></td> }
    };
    let rows = s.node_types.iter().enumerate().map(|(k, t)| {
        html! { <tr data-testid={format!("node-type-{i}-{k}")}>
            { input(k, "node type name", t.name.clone(), |t, v| { t.name = v.trim().to_string(); Ok(()) }, "text") }
            { input(k, "node count", t.count.to_string(), |t, v| { t.count = positive("node count", v)?; Ok(()) }, "number") }
            { input(k, "cores per node", t.cores.to_string(), |t, v| { t.cores = positive("cores per node", v)?; Ok(()) }, "number") }
            { input(k, "memory per node (GB)", gb(t.mem_kb), set_gb, "number") }
            { input(k, "GPUs per node", t.gpus.to_string(), |t, v| { t.gpus = parse("GPUs per node", v)?; Ok(()) }, "number") }
            { exclusive(k, t) }
            <td><button class="small" onclick={remove(k)}>{"remove"}</button></td>
        </tr> }
    });
    html! {
        <tr class="node-types">
            <td colspan="6">
                <table class="node-types" data-testid={format!("node-types-{i}")}>
                    <caption>{format!("{}'s node types ({} nodes, {} cores{})", s.name, s.nodes, s.node_types.iter().map(|t| u64::from(t.count) * u64::from(t.cores)).sum::<u64>(), exclusive_note(s))}</caption>
                    <thead><tr>
                        <th title="Shown in reports (optional)">{"type"}</th>
                        <th title="Nodes of this type; the site's nodes are the types' total, numbered in the order listed">{"nodes"}</th>
                        <th title="Cores per node: a job's processors are cores, on one node or several">{"cores"}</th>
                        <th title="Memory per node in GB (1 GB = 1,048,576 KB). A job asks memory per processor (SWF field 10, KB) or per node (sacct's ReqMem); 0 on every type: memory is not checked">{"memory (GB)"}</th>
                        <th title="GPUs per node: a GPU job is placed where its GPUs are (sacct's gres/gpu; the Lublin model's GPU share)">{"GPUs"}</th>
                        <th title="Node-exclusive: each node of this type runs at most one job, which holds all of it (its cores count as busy in utilization; Slurm's OverSubscribe=EXCLUSIVE on a partition). The site's allocation 'node' makes every type so. docs/nodes.md, 'Node-exclusive node types'">{"exclusive"}</th>
                        <th></th>
                    </tr></thead>
                    <tbody>{ for rows }</tbody>
                </table>
                <button class="small" onclick={add} data-testid={format!("node-type-add-{i}")}>{"add node type"}</button>
                <p class="help">{"Jobs are placed on particular nodes by the runs' placement rule (first fit in node order, or best fit). Removing the last type gives the site back its processors."}</p>
            </td>
        </tr>
    }
}
