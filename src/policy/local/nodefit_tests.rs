//! The shortcuts of [`NodeFit`] and [`NodeShadow`] answer exactly as plain first-fit walks,
//! on random node types, random free nodes and random requests.

use super::*;
use crate::model::fit::place_first_fit;
use crate::model::NodeType;
use crate::rng::SimRng;

/// A pool of 1–3 random node types (memory on some draws, GPUs on some), with random
/// jobs already holding part of it.
fn random_pool(rng: &mut SimRng) -> NodePool {
    let memory = rng.range_u64(0, 3) > 0;
    let types: Vec<NodeType> = (0..rng.range_u64(1, 3))
        .map(|_| NodeType {
            name: String::new(),
            count: rng.range_u64(1, 6) as u32,
            cores: rng.range_u64(1, 8) as u32,
            mem_kb: if memory { 100 * rng.range_u64(1, 4) } else { 0 },
            gpus: rng.range_u64(0, 2) as u32,
            power: None,
            exclusive: false,
        })
        .collect();
    let mut pool = NodePool::new(&types);
    let mut shares = Vec::new();
    for _ in 0..rng.range_u64(0, 6) {
        let demand = random_demand(rng);
        if pool.place(rng.range_u64(1, 6) as u32, &demand, &mut shares) {
            assert!(pool.take(&shares));
        }
    }
    pool
}

/// Mostly units with memory; some GPUs, some node counts, some memory per node.
fn random_demand(rng: &mut SimRng) -> Demand {
    Demand {
        mem_kb: 10 * rng.range_u64(0, 12),
        mem_per_node: rng.range_u64(0, 5) == 0,
        gpus: u32::from(rng.range_u64(0, 5) == 0) * rng.range_u64(1, 2) as u32,
        nodes: u32::from(rng.range_u64(0, 5) == 0) * rng.range_u64(1, 2) as u32,
    }
}

/// A pass's answers (with what failed walks taught it) are first-fit's on the nodes free
/// then, through runs of requests that do not fit and starts that take nodes; a third of
/// the requests may use only some nodes (as a maintenance window allows them).
#[test]
fn node_fit_answers_as_first_fit() {
    let mut rng = SimRng::new(37);
    for case in 0..400 {
        let pool = random_pool(&mut rng);
        let requests: Vec<(u32, Demand)> = (0..rng.range_u64(1, 60))
            .map(|_| (rng.range_u64(1, 12) as u32, random_demand(&mut rng)))
            .collect();
        let demands: Vec<Demand> = requests.iter().map(|r| r.1).collect();
        let placements = Placements::default();
        let view = NodesView {
            pool: &pool,
            demands: &demands,
            placements: &placements,
        };
        let mut fit = NodeFit::default();
        let mut free = pool.free().clone();
        let mut want = Vec::new();
        for (i, &(procs, demand)) in requests.iter().enumerate() {
            let mask = (rng.range_u64(0, 2) == 0).then(|| vec![rng.range_u64(0, (1 << 20) - 1)]);
            let allowed = mask.as_deref();
            let memory = pool.tracks_memory;
            let expected =
                first_fit_within(&free, memory, procs, &demand, allowed, &mut want).is_ok();
            let got = fit.fits_within(&view, i as JobIdx, procs, allowed);
            assert_eq!(got, expected, "case {case}, request {i}");
            if got {
                assert_eq!(fit.last(), &want[..], "case {case}, request {i}");
                if rng.range_u64(0, 2) == 0 {
                    fit.take(&view);
                    free.take(&want);
                    assert_eq!(fit.free(&view), &free);
                }
            }
        }
    }
}

/// The shadow (a head of units tested by its room) and the backfill test after it are
/// those of first-fit walks at every instant.
#[test]
fn node_shadow_and_keeps_head_answer_as_first_fit() {
    let mut rng = SimRng::new(41);
    for case in 0..400 {
        let mut pool = random_pool(&mut rng);
        // Running jobs, each with a predicted end, in that order.
        let mut running: Vec<(SimTime, u32, Vec<Share>)> = Vec::new();
        let mut shares = Vec::new();
        for _ in 0..rng.range_u64(0, 8) {
            let procs = rng.range_u64(1, 6) as u32;
            if pool.place(procs, &random_demand(&mut rng), &mut shares) {
                assert!(pool.take(&shares));
                let end = SimTime(rng.range_u64(0, 5) as i64 * 10);
                running.push((end, procs, shares.clone()));
            }
        }
        running.sort_by_key(|r| r.0);
        let head = (rng.range_u64(1, 10) as u32, random_demand(&mut rng));
        let demands = vec![Demand::default()];
        let placements = Placements::default();
        let view = NodesView {
            pool: &pool,
            demands: &demands,
            placements: &placements,
        };
        let free_units: u32 = pool.free().cores.iter().sum();
        let releases = running.iter().map(|(e, u, s)| (*e, *u, &s[..]) as Release);
        let mut got = node_shadow(
            &view,
            pool.free(),
            free_units,
            releases,
            (SimTime(5), SimTime(5)),
            (head.0, head.1, SimTime(1)),
        );
        // The plain rule: release an instant at a time, walk first-fit after each.
        let memory = pool.tracks_memory;
        let (mut at, mut probe) = (pool.free().clone(), Vec::new());
        let mut shadow = SimTime::NEVER;
        for (i, (end, _, s)) in running.iter().enumerate() {
            at.give_back(s);
            let last_at_instant = running.get(i + 1).is_none_or(|next| next.0 != *end);
            if last_at_instant && place_first_fit(&at, memory, head.0, &head.1, &mut probe) {
                shadow = (*end).max(SimTime(5));
                break;
            }
        }
        assert_eq!(got.shadow, shadow, "case {case}");
        assert_eq!(got.at_shadow, at, "case {case}");
        // Backfills that fit now, each tested against the head at the shadow, from a few
        // shapes (so that refusals are remembered and asked again).
        let shapes: Vec<(u32, Demand)> = (0..rng.range_u64(1, 4))
            .map(|_| (rng.range_u64(1, 6) as u32, random_demand(&mut rng)))
            .collect();
        let mut now = pool.free().clone();
        for k in 0..rng.range_u64(0, 16) {
            let asks = shapes[rng.range_u64(0, shapes.len() as u64 - 1) as usize];
            let asks = (asks.0 + rng.range_u64(0, 1) as u32, asks.1);
            if !place_first_fit(&now, memory, asks.0, &asks.1, &mut shares) {
                continue;
            }
            at.take(&shares);
            let keeps = place_first_fit(&at, memory, head.0, &head.1, &mut probe);
            if !keeps {
                at.give_back(&shares);
            }
            if got.delays_head(&view, asks.0, &asks.1) {
                assert!(!keeps, "case {case}, backfill {k}: remembered wrongly");
                continue;
            }
            let kept = got.keeps_head_for(&view, head, asks, &shares, &mut probe);
            assert_eq!(kept, keeps, "case {case}, backfill {k}");
            assert_eq!(got.at_shadow, at, "case {case}, backfill {k}");
            if kept {
                now.take(&shares);
                got.nodes_taken();
            }
        }
    }
}

/// A request that fails leaves a cap the queue skips identical (and larger) requests by,
/// without a walk; a start (or a new pass, on nodes that may have grown) drops it.
#[test]
fn a_failed_shape_is_skipped_until_nodes_change() {
    use crate::policy::local::width_queue::{mem_lane, Known, MemCap, WidthQueue};
    let pool = NodePool::new(&[NodeType {
        name: String::new(),
        count: 2,
        cores: 4,
        mem_kb: 100,
        gpus: 0,
        power: None,
        exclusive: false,
    }]);
    let mem = |kb| Demand {
        mem_kb: kb,
        ..Demand::default()
    };
    // Jobs 0 and 1: 9 × 10 KB (the nodes hold 8 such units); job 2: 8 × 10 KB.
    let demands = vec![mem(10), mem(10), mem(10)];
    let placements = Placements::default();
    let view = NodesView {
        pool: &pool,
        demands: &demands,
        placements: &placements,
    };
    let mut queue = WidthQueue::default();
    for (idx, units) in [(0, 9), (1, 9), (2, 8)] {
        queue.push(crate::policy::local::QueuedJob {
            idx,
            units,
            estimate: SimTime(1),
            queued_at: SimTime::ZERO,
        });
    }
    queue.fill_mems(|j| unit_mem(true, j.units, &demands[j.idx as usize]));
    let mut fit = NodeFit::default();
    assert_eq!(fit.cap(), MemCap::NO_CAPS);
    assert!(!fit.fits_within(&view, 0, 9, None));
    assert_eq!(
        fit.cap()[0],
        MemCap {
            mem: mem_lane(10),
            units: 8
        }
    );
    let known = Known {
        short: fit.cap(),
        delays: MemCap::NO_CAPS,
    };
    let next = |known| queue.next_backfill_known(1, 16, 16, SimTime::NEVER, known);
    // Without the cap job 1 is visited (and refused by the walk's memo); with it, skipped.
    assert_eq!(next(Known::NONE), Some(1));
    assert!(!fit.fits_within(&view, 1, 9, None));
    assert_eq!(next(known), Some(2), "the identical shape is skipped");
    assert!(fit.fits_within(&view, 2, 8, None));
    // Taking nodes, or a new pass, forgets what was learnt.
    fit.take(&view);
    assert_eq!(fit.cap(), MemCap::NO_CAPS);
    assert_eq!(NodeFit::default().cap(), MemCap::NO_CAPS);
}

/// A reservation found again from the kept one ([`NodeShadow::again`]) after jobs ended
/// (those predicted to end past its instant giving their nodes back there) is the one
/// [`node_shadow`] finds from scratch, for another head of units (NEVER included: a head
/// no release lets in).
#[test]
fn node_shadow_again_answers_as_afresh() {
    let mut rng = SimRng::new(43);
    let units_only = |rng: &mut SimRng| Demand {
        gpus: 0,
        nodes: 0,
        ..random_demand(rng)
    };
    let now = SimTime(5);
    let mut found_again = 0;
    for case in 0..600 {
        let mut pool = random_pool(&mut rng);
        let mut running: Vec<(SimTime, u32, Vec<Share>)> = Vec::new();
        let mut shares = Vec::new();
        for _ in 0..rng.range_u64(0, 10) {
            let procs = rng.range_u64(1, 6) as u32;
            if pool.place(procs, &units_only(&mut rng), &mut shares) {
                assert!(pool.take(&shares));
                let end = SimTime(rng.range_u64(0, 6) as i64 * 10);
                running.push((end, procs, shares.clone()));
            }
        }
        running.sort_by_key(|r| r.0);
        let demands = vec![Demand::default()];
        let placements = Placements::default();
        let shadow_of = |pool: &NodePool, running: &[(SimTime, u32, Vec<Share>)], head| {
            let view = NodesView {
                pool,
                demands: &demands,
                placements: &placements,
            };
            let releases = running.iter().map(|(e, u, s)| (*e, *u, &s[..]) as Release);
            let units: u32 = pool.free().cores.iter().sum();
            let (procs, demand) = head;
            let w = (procs, demand, SimTime(1));
            node_shadow(&view, pool.free(), units, releases, (now, now), w)
        };
        let head_a = (rng.range_u64(1, 10) as u32, units_only(&mut rng));
        let mut kept = shadow_of(&pool, &running, head_a);
        let e = kept.release;
        if e < now {
            continue;
        }
        // Some jobs end; those predicted past `e` give their nodes back there.
        let mut left = Vec::new();
        for r in running {
            if rng.range_u64(0, 2) == 0 {
                pool.give_back(&r.2);
                if r.0 > e {
                    kept.give_back(&r.2);
                }
            } else {
                left.push(r);
            }
        }
        let head_b = (rng.range_u64(1, 10) as u32, units_only(&mut rng));
        let afresh = shadow_of(&pool, &left, head_b);
        let view = NodesView {
            pool: &pool,
            demands: &demands,
            placements: &placements,
        };
        fn rel(r: &(SimTime, u32, Vec<Share>)) -> Release<'_> {
            (r.0, r.1, &r.2[..])
        }
        let before = left.iter().rev().filter(|r| r.0 <= e).map(rel);
        let after = left.iter().filter(|r| r.0 > e).map(rel);
        let fresh = std::iter::empty();
        let Some(again) = kept.again(&view, head_b, now, fresh, before, after) else {
            continue;
        };
        found_again += 1;
        assert_eq!(again.shadow, afresh.shadow, "case {case}");
        assert_eq!(again.release, afresh.release, "case {case}");
        assert_eq!(again.at_shadow, afresh.at_shadow, "case {case}");
        let (room, fresh_room) = (again.room.as_ref(), afresh.room.as_ref());
        assert_eq!(
            room.map(|r| r.total),
            fresh_room.map(|r| r.total),
            "case {case}"
        );
        assert_eq!(room.map(|r| &r.per_node), fresh_room.map(|r| &r.per_node));
    }
    assert!(found_again > 100, "only {found_again} cases found again");
}
