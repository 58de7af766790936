//! Unit tests of `pool.rs` and `fit.rs`: placement by first fit and best fit, and the free
//! nodes' bookkeeping.

use super::*;

fn pool(count: u32, cores: u32, mem_kb: u64, gpus: u32) -> NodePool {
    NodePool::new(&types(&[(count, cores, mem_kb, gpus)]))
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

/// Node `node`'s share of `cores` cores and `mem_kb` KB (no GPUs).
fn held(node: u32, cores: u32, mem_kb: u64) -> Share {
    Share {
        node,
        cores,
        mem_kb,
        gpus: 0,
    }
}

/// Node types of (count, cores, KB, GPUs), in order.
fn types(list: &[(u32, u32, u64, u32)]) -> Vec<NodeType> {
    list.iter()
        .map(|&(count, cores, mem_kb, gpus)| NodeType {
            name: String::new(),
            count,
            cores,
            mem_kb,
            gpus,
            power: None,
            exclusive: false,
        })
        .collect()
}

/// (node, cores) of each share.
fn cores_of(out: &[Share]) -> Vec<(u32, u32)> {
    out.iter().map(|s| (s.node, s.cores)).collect()
}

#[test]
fn best_fit_takes_the_nodes_with_the_least_free_first() {
    let mut p = pool(4, 4, 0, 0).with_rule(PlacementRule::BestFit);
    let mut out = Vec::new();
    // Node 1 keeps 1 core free, node 2 keeps 2, nodes 0 and 3 all 4.
    p.take(&[held(1, 3, 0), held(2, 2, 0)]);
    assert!(p.place(1, &Demand::default(), &mut out));
    assert_eq!(cores_of(&out), [(1, 1)]);
    // Three cores: node 1's one, then node 2's two; the shares in node order.
    assert!(p.place(3, &Demand::default(), &mut out));
    assert_eq!(cores_of(&out), [(1, 1), (2, 2)]);
    // Six: then the whole nodes, the lower number first (ties in node order).
    assert!(p.place(6, &Demand::default(), &mut out));
    assert_eq!(cores_of(&out), [(0, 3), (1, 1), (2, 2)]);
    // First fit walks in node order.
    let first = pool(4, 4, 0, 0);
    let mut q = first.clone();
    q.take(&[held(1, 3, 0)]);
    assert!(q.place(1, &Demand::default(), &mut out));
    assert_eq!(cores_of(&out), [(0, 1)]);
}

#[test]
fn best_fit_ranks_by_the_sum_of_what_is_free_so_memory_outweighs_cores() {
    // AccaSim's BestFit rank: free cores + free KB + free GPUs.
    let mut p = pool(2, 4, 100, 0).with_rule(PlacementRule::BestFit);
    let mut out = Vec::new();
    // Node 0: 1 core and 90 KB free (rank 91); node 1: 3 cores and 10 KB (rank 13).
    p.take(&[held(0, 3, 10), held(1, 1, 90)]);
    let d = Demand {
        mem_kb: 5,
        ..Demand::default()
    };
    assert!(p.place(1, &d, &mut out));
    assert_eq!(cores_of(&out), [(1, 1)]);
}

#[test]
fn best_fit_places_a_job_exactly_when_first_fit_does_for_units_only() {
    // A job of units only fits when the nodes hold its units in all, whatever the order.
    let mut rng = crate::rng::SimRng::new(7);
    for _ in 0..500 {
        let first = pool(6, 4, 100, 0);
        let mut f = first.clone();
        let mut b = first.with_rule(PlacementRule::BestFit);
        for n in 0..6 {
            let cores = rng.range_u64(0, 4) as u32;
            let mem_kb = rng.range_u64(0, 100);
            let share = Share {
                node: n,
                cores,
                mem_kb,
                gpus: 0,
            };
            assert!(f.take(&[share]) && b.take(&[share]));
        }
        let procs = rng.range_u64(1, 12) as u32;
        let d = Demand {
            mem_kb: rng.range_u64(0, 39),
            ..Demand::default()
        };
        let (mut of, mut ob) = (Vec::new(), Vec::new());
        assert_eq!(f.place(procs, &d, &mut of), b.place(procs, &d, &mut ob));
        let total = |o: &[Share]| o.iter().map(|s| s.cores).sum::<u32>();
        if !ob.is_empty() {
            assert_eq!(total(&ob), procs);
            assert!(ob.windows(2).all(|w| w[0].node < w[1].node));
            assert!(b.clone().take(&ob));
        }
    }
}

#[test]
fn best_fit_with_a_node_count_takes_the_fullest_nodes_that_hold_a_share() {
    let mut p = pool(4, 4, 0, 0).with_rule(PlacementRule::BestFit);
    let mut out = Vec::new();
    p.take(&[held(0, 1, 0), held(2, 2, 0), held(3, 3, 0)]);
    // Two nodes of 2 cores each: node 3 (1 free) cannot, node 2 (2) and node 0 (3) can.
    let d = Demand {
        nodes: 2,
        ..Demand::default()
    };
    assert!(p.place(4, &d, &mut out));
    assert_eq!(cores_of(&out), [(0, 2), (2, 2)]);
}

#[test]
fn whether_a_gpu_job_can_ever_run_is_asked_of_the_rule_it_runs_under() {
    // Node 0: 2 cores and 1 GPU; nodes 1 and 2: 1 core and 1 GPU each. A job of 2 cores
    // and 2 GPUs: first fit gives node 0 both cores and finds no core left for a second
    // GPU; best fit takes nodes 1 and 2 (the least free) first.
    let types = types(&[(1, 2, 0, 1), (2, 1, 0, 1)]);
    let d = Demand {
        gpus: 2,
        ..Demand::default()
    };
    let first = NodePool::new(&types);
    assert_eq!(first.never_fits(2, &d).map(|r| r.0), Some(Resource::Gpus));
    let best = first.with_rule(PlacementRule::BestFit);
    assert_eq!(best.never_fits(2, &d), None);
    let mut out = Vec::new();
    assert!(best.place(2, &d, &mut out));
    assert_eq!(
        out.iter()
            .map(|s| (s.node, s.cores, s.gpus))
            .collect::<Vec<_>>(),
        [(1, 1, 1), (2, 1, 1)]
    );
}

#[test]
fn best_fits_kept_order_follows_every_take_and_give_back() {
    // Random starts and ends on 40 nodes of three types, some jobs wider than the shares
    // kept one by one: after each, the kept order is the one ranked afresh, and a copy
    // whose order was dropped places alike.
    let types = types(&[(16, 4, 100, 0), (16, 8, 300, 1), (8, 2, 50, 2)]);
    let mut p = NodePool::new(&types).with_rule(PlacementRule::BestFit);
    let mut rng = crate::rng::SimRng::new(11);
    let mut running: Vec<Vec<Share>> = Vec::new();
    let mut out = Vec::new();
    for _ in 0..2_000 {
        if !running.is_empty() && rng.range_u64(0, 2) == 0 {
            let i = rng.range_u64(0, running.len() as u64 - 1) as usize;
            p.give_back(&running.swap_remove(i));
        } else {
            let procs = rng.range_u64(1, 60) as u32;
            let d = Demand {
                mem_kb: rng.range_u64(0, 30),
                gpus: u32::from(rng.range_u64(0, 5) == 0),
                ..Demand::default()
            };
            if p.place(procs, &d, &mut out) {
                // The same placement from a copy that ranks the nodes afresh.
                let mut dropped = p.free().clone();
                let wide: Vec<Share> = (0..40)
                    .map(|node| Share {
                        node,
                        cores: 0,
                        mem_kb: 0,
                        gpus: 0,
                    })
                    .collect();
                dropped.take(&wide);
                let mut again = Vec::new();
                assert!(
                    first_fit_within(&dropped, p.tracks_memory, procs, &d, None, &mut again)
                        .is_ok()
                );
                assert_eq!(again, out);
                assert!(p.take(&out));
                running.push(out.clone());
            }
        }
        assert!(p.free().kept_order_is_fresh());
    }
}
