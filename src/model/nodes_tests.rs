//! Unit tests of `nodes.rs`: placement and the free nodes' bookkeeping.

use super::*;

fn pool(count: u32, cores: u32, mem_kb: u64, gpus: u32) -> NodePool {
    NodePool::new(&[NodeType {
        name: String::new(),
        count,
        cores,
        mem_kb,
        gpus,
        power: None,
    }])
}

#[test]
fn first_fit_puts_as_many_units_on_each_node_as_fit() {
    let mut p = pool(3, 4, 100, 0);
    let mut out = Vec::new();
    // 6 units of 30 KB: node 0 holds 3 by memory, node 1 three more.
    let d = Demand {
        mem_kb: 30,
        ..Demand::default()
    };
    assert!(p.place(6, &d, &mut out));
    assert_eq!(
        out.iter().map(|s| (s.node, s.cores)).collect::<Vec<_>>(),
        [(0, 3), (1, 3)]
    );
    assert!(p.take(&out));
    // 1 core left on nodes 0 and 1, 10 KB each: a 20 KB unit goes to node 2.
    let d2 = Demand {
        mem_kb: 20,
        ..Demand::default()
    };
    assert!(p.place(1, &d2, &mut out));
    assert_eq!(out[0].node, 2);
    // 5 units of 20 KB: node 2 holds 5 by memory but has 4 cores: no.
    assert!(!p.place(6, &d2, &mut out));
    assert!(out.is_empty());
}

#[test]
fn a_node_count_takes_that_many_nodes_with_their_share() {
    let p = pool(4, 4, 100, 2);
    let mut out = Vec::new();
    let d = Demand {
        mem_kb: 50,
        mem_per_node: true,
        gpus: 3,
        nodes: 2,
    };
    assert!(p.place(5, &d, &mut out));
    assert_eq!(
        out.iter()
            .map(|s| (s.node, s.cores, s.mem_kb, s.gpus))
            .collect::<Vec<_>>(),
        [(0, 3, 50, 2), (1, 2, 50, 1)]
    );
}

#[test]
fn never_fits_names_the_resource() {
    let p = pool(2, 4, 100, 1);
    let mem = |kb| Demand {
        mem_kb: kb,
        ..Demand::default()
    };
    assert_eq!(p.never_fits(8, &mem(25)), None);
    assert_eq!(p.never_fits(9, &mem(0)), Some((Resource::Cores, 9, 8)));
    assert_eq!(
        p.never_fits(1, &mem(101)),
        Some((Resource::Memory, 101, 100))
    );
    let gpus = Demand {
        gpus: 3,
        ..Demand::default()
    };
    assert_eq!(p.never_fits(2, &gpus), Some((Resource::Gpus, 3, 2)));
    let nodes = Demand {
        nodes: 3,
        ..Demand::default()
    };
    assert_eq!(p.never_fits(3, &nodes), Some((Resource::Nodes, 3, 2)));
    // Without memory on the nodes, memory is not checked.
    assert_eq!(pool(2, 4, 0, 0).never_fits(1, &mem(1 << 40)), None);
}

/// A GPU job walks the nodes with a free GPU first: node 0's GPUs are taken (its cores are
/// not), so a job of 1 core and 1 GPU goes to node 1, and a job of 6 cores and 1 GPU takes
/// node 1's 4 cores and GPU, then 2 of node 0's cores.
#[test]
fn a_gpu_job_takes_the_nodes_with_free_gpus_first() {
    let mut p = pool(2, 4, 0, 2);
    let busy = Share {
        node: 0,
        cores: 1,
        mem_kb: 0,
        gpus: 2,
    };
    assert!(p.take(&[busy]));
    let gpu = |gpus| Demand {
        gpus,
        ..Demand::default()
    };
    let mut out = Vec::new();
    assert!(p.place(1, &gpu(1), &mut out));
    assert_eq!(
        out,
        [Share {
            node: 1,
            cores: 1,
            mem_kb: 0,
            gpus: 1
        }]
    );
    assert!(p.place(6, &gpu(1), &mut out));
    let shares: Vec<(u32, u32, u32)> = out.iter().map(|s| (s.node, s.cores, s.gpus)).collect();
    assert_eq!(shares, [(0, 2, 0), (1, 4, 1)]);
    // Three GPUs: only node 1's two are free, so the job does not fit.
    assert!(!p.place(1, &gpu(3), &mut out));
    assert!(out.is_empty());
}
