//! A job with a node count on the free nodes ([`super::NodeFree`]): one share per node,
//! its processors and GPUs split evenly (the first walk of [`super::first_fit_within`]).

use super::{in_rule_order, Demand, NodeFree, Share};

/// A job with a node count: the first `d.nodes` nodes (in the rule's order) that each hold their share (those
/// on before those asleep, as [`super::place_units`] walks them).
pub(super) fn place_on_n_nodes(
    f: &NodeFree,
    memory: bool,
    procs: u32,
    d: &Demand,
    allowed: Option<&[u64]>,
    out: &mut Vec<Share>,
) -> bool {
    match f.split_by_sleep(allowed) {
        None => take_n_nodes(f, memory, procs, d, allowed, out),
        Some((on, off)) => {
            take_n_nodes(f, memory, procs, d, Some(&on), out);
            take_n_nodes(f, memory, procs, d, Some(&off), out);
            out.sort_unstable_by_key(|s| s.node);
        }
    }
    out.len() as u32 == d.nodes
}

/// [`place_on_n_nodes`]' walk over the `allowed` nodes, adding to the shares in `out`
/// until it holds `d.nodes` (each node's share is by its position in the job's nodes).
fn take_n_nodes(
    f: &NodeFree,
    memory: bool,
    procs: u32,
    d: &Demand,
    allowed: Option<&[u64]>,
    out: &mut Vec<Share>,
) {
    let n = d.nodes;
    let within = (0..f.cores.len())
        .filter(|&node| allowed.is_none_or(|a| a[node / 64] & (1u64 << (node % 64)) != 0));
    for node in in_rule_order(f, within) {
        let i = out.len() as u32;
        if i == n {
            break;
        }
        let free_cores = f.cores[node];
        let cores = procs / n + u32::from(i < procs % n);
        let gpus = d.gpus / n + u32::from(i < d.gpus % n);
        let mem_kb = match (memory, d.mem_per_node) {
            (false, _) => 0,
            (true, true) => d.mem_kb,
            (true, false) => d.mem_kb.saturating_mul(u64::from(cores)),
        };
        // A node-exclusive node with no core free is held (a share of no cores, for a
        // job of fewer processors than nodes, would land on it).
        let held = free_cores == 0 && f.is_exclusive_node(node);
        if !held && free_cores >= cores && f.mem_kb[node] >= mem_kb && f.gpus[node] >= gpus {
            out.push(Share {
                node: node as u32,
                cores,
                mem_kb,
                gpus,
            });
        }
    }
}
