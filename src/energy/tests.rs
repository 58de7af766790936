use super::*;
use crate::time::SimTime;

fn s(secs: i64) -> SimTime {
    SimTime::from_secs(secs)
}

const ON: fn(u32) -> NodeState = |busy| NodeState::On { busy };

/// SimGrid's `energy-exec` example (examples/cpp/energy-exec with
/// examples/platforms/energy_platform.xml): MyHost1 (4 cores) idles 10 s at pstate 0, runs
/// 1e8 flop on one core at 100 Mf/s (1 s at 120 W), switches to pstate 2 and runs 1e8 flop
/// at 20 Mf/s (5 s at 105 W), then idles to 30 s at 90 W; MyHost2 idles 20 s and is off
/// 10 s; MyHost3 idles 30 s. SimGrid prints 2905 J, 2100 J, 3000 J: 8005 J in all.
#[test]
fn simgrids_energy_exec_example_to_the_joule() {
    let p0 = PowerModel::SIMGRID_EXAMPLE;
    // Pstate 2 of the same hosts: `90.0:90.0:150.0`.
    let p2 = PowerModel {
        idle_w: 90.0,
        epsilon_w: 90.0,
        all_cores_w: 150.0,
        ..p0
    };
    let host1_pstate0 = NodeTimeline {
        cores: 4,
        breakpoints: vec![(s(0), ON(0)), (s(10), ON(1))],
        end: s(11),
    };
    let host1_pstate2 = NodeTimeline {
        cores: 4,
        breakpoints: vec![(s(11), ON(1)), (s(16), ON(0))],
        end: s(30),
    };
    let host2 = NodeTimeline {
        cores: 4,
        breakpoints: vec![(s(0), ON(0)), (s(20), NodeState::Off)],
        end: s(30),
    };
    let host3 = NodeTimeline {
        cores: 4,
        breakpoints: vec![(s(0), ON(0))],
        end: s(30),
    };
    let at_p0 = account(&[host1_pstate0, host2, host3], &|_| p0).unwrap();
    let at_p2 = account(&[host1_pstate2], &|_| p2).unwrap();
    let host1 = at_p0.nodes[0].total_j() + at_p2.nodes[0].total_j();
    assert!((host1 - 2905.0).abs() < 1e-9, "{host1}");
    assert_eq!(at_p0.nodes[1].total_j(), 2100.0);
    assert_eq!(at_p0.nodes[1].off_j, 100.0);
    assert_eq!(at_p0.nodes[2].total_j(), 3000.0);
    assert!((at_p0.total_j + at_p2.total_j - 8005.0).abs() < 1e-9);
}

#[test]
fn power_is_epsilon_plus_the_busy_share() {
    let m = PowerModel::SIMGRID_EXAMPLE;
    assert_eq!(m.watts(0, 4), 100.0);
    assert!((m.watts(1, 4) - 120.0).abs() < 1e-12);
    assert_eq!(m.watts(4, 4), 200.0);
    // Batsim's host: one core, idle or full.
    let b = PowerModel::BATSIM_CLUSTER_ENERGY_128;
    assert_eq!((b.watts(0, 1), b.watts(1, 1)), (95.0, 190.738));
}

#[test]
fn bad_power_models_name_the_field() {
    let mut m = PowerModel::SIMGRID_EXAMPLE;
    m.idle_w = -1.0;
    let e = m.validate("node type 'gpu'").unwrap_err().0;
    assert!(e.contains("node type 'gpu': idle_w is -1"), "{e}");
    let mut m = PowerModel::BATSIM_CLUSTER_ENERGY_128;
    m.switch_on = Some(Transition {
        seconds: 0.0001,
        watts: 125.0,
    });
    let e = m.validate("x").unwrap_err().0;
    assert!(e.contains("switch_on takes 0.0001 s"), "{e}");
    m.switch_on = Some(Transition {
        seconds: f64::NAN,
        watts: 1.0,
    });
    assert!(m.validate("x").is_err());
    assert!(PowerModel::BATSIM_CLUSTER_ENERGY_128.validate("x").is_ok());
    let mut m = PowerModel::SIMGRID_EXAMPLE;
    m.all_cores_w = 1e308;
    let e = m.validate("x").unwrap_err().0;
    assert!(e.contains("all_cores_w is 1e308"), "{e}");
}

#[test]
fn switching_and_off_pieces_are_counted_apart() {
    // Batsim's host: idle 30 s, switching off 6.1 s, asleep to 100 s, booting 151.52 s.
    let b = PowerModel::BATSIM_CLUSTER_ENERGY_128;
    let t = NodeTimeline {
        cores: 1,
        breakpoints: vec![
            (s(0), ON(0)),
            (s(30), NodeState::SwitchingOff),
            (SimTime(36_100), NodeState::Off),
            (s(100), NodeState::SwitchingOn),
        ],
        end: SimTime(251_520),
    };
    let r = account(&[t], &|_| b).unwrap();
    let e = r.nodes[0];
    assert!((e.idle_j - 30.0 * 95.0).abs() < 1e-9);
    assert!((e.switching_j - (6.1 * 100.9967 + 151.52 * 125.1744)).abs() < 1e-6);
    assert!((e.off_j - 63.9 * 9.75).abs() < 1e-9);
    assert!((r.peak_w - 125.1744).abs() < 1e-9);
}

#[test]
fn busy_spans_become_pieces_and_the_peak_sums_nodes() {
    let spans = [
        BusySpan {
            node: 0,
            cores: 2,
            start: s(0),
            end: s(10),
        },
        BusySpan {
            node: 0,
            cores: 2,
            start: s(10),
            end: s(20),
        },
        BusySpan {
            node: 1,
            cores: 4,
            start: s(5),
            end: s(15),
        },
    ];
    let t = busy_timelines(&|_| 4, 2, &spans, s(0), s(30)).unwrap();
    // A job ending as another starts on the same cores: one piece, no blip.
    assert_eq!(t[0].breakpoints, vec![(s(0), ON(2)), (s(20), ON(0))]);
    assert_eq!(
        t[1].breakpoints,
        vec![(s(0), ON(0)), (s(5), ON(4)), (s(15), ON(0))]
    );
    let r = account(&t, &|_| PowerModel::SIMGRID_EXAMPLE).unwrap();
    // Node 0: 20 s at 2 of 4 cores (146.67 W) + 10 s idle; node 1: 10 s full + 20 s idle.
    let half = 93.333_333_333_333_33 + (200.0 - 93.333_333_333_333_33) / 2.0;
    assert!((r.nodes[0].total_j() - (20.0 * half + 1000.0)).abs() < 1e-9);
    assert_eq!(r.nodes[1].total_j(), 2000.0 + 2000.0);
    assert!((r.peak_w - (half + 200.0)).abs() < 1e-9);
    assert!((r.average_w - r.total_j / 30.0).abs() < 1e-9);
}

#[test]
fn impossible_timelines_are_errors() {
    let too_many = [BusySpan {
        node: 0,
        cores: 5,
        start: s(0),
        end: s(1),
    }];
    let e = busy_timelines(&|_| 4, 1, &too_many, s(0), s(2))
        .unwrap_err()
        .0;
    assert!(e.contains("5 cores busy"), "{e}");
    let outside = [BusySpan {
        node: 3,
        cores: 1,
        start: s(0),
        end: s(1),
    }];
    assert!(busy_timelines(&|_| 4, 1, &outside, s(0), s(2)).is_err());
    let late = [BusySpan {
        node: 0,
        cores: 1,
        start: s(0),
        end: s(3),
    }];
    assert!(busy_timelines(&|_| 4, 1, &late, s(0), s(2)).is_err());
    let unordered = NodeTimeline {
        cores: 1,
        breakpoints: vec![(s(2), ON(0)), (s(1), ON(1))],
        end: s(3),
    };
    assert!(account(&[unordered], &|_| PowerModel::SIMGRID_EXAMPLE).is_err());
}

#[test]
fn the_simgrid_replay_reads_what_the_timelines_say() {
    let t = vec![
        NodeTimeline {
            cores: 4,
            breakpoints: vec![
                (s(0), ON(0)),
                (SimTime(10_250), ON(3)),
                (s(12), NodeState::Off),
            ],
            end: s(30),
        },
        NodeTimeline {
            cores: 1,
            breakpoints: vec![(s(0), ON(1))],
            end: s(30),
        },
    ];
    let a = simgrid::actions(&t).unwrap();
    assert_eq!(
        a,
        "hosts 2\nbusy n0 10.250 12.000 3\noff n0 12.000 30.000\nbusy n1 0.000 30.000 1\nend 30.000\n"
    );
    let x = simgrid::platform_xml(&t, &|_| PowerModel::SIMGRID_EXAMPLE);
    assert!(x.contains("core=\"4\""));
    // Power state 0 computes; 1 switches off, 2 boots (with no transition: off, idle).
    assert!(
        x.contains("value=\"100.0:93.33333333333333:200.0, 10.0:10.0:10.0, 100.0:100.0:100.0\""),
        "{x}"
    );
    let mut switching = t.clone();
    switching[0].breakpoints[2] = (s(12), NodeState::SwitchingOff);
    switching[0].breakpoints.push((s(20), NodeState::Off));
    switching[0]
        .breakpoints
        .push((s(25), NodeState::SwitchingOn));
    assert_eq!(
        simgrid::actions(&switching).unwrap(),
        "hosts 2\nbusy n0 10.250 12.000 3\npstate n0 12.000 20.000 1\noff n0 20.000 25.000\npstate n0 25.000 30.000 2\nbusy n1 0.000 30.000 1\nend 30.000\n"
    );
    assert_eq!(
        simgrid::parse_joules("n1 2.5\nn0 1e3\n", 2).unwrap(),
        vec![1000.0, 2.5]
    );
    assert!(simgrid::parse_joules("n0 1\n", 2).is_err());
    assert!(simgrid::parse_joules("n7 1\n", 2).is_err());
}

/// Batsim's minimal switching case (`workloads/test_energy_minimal_load100.json` on
/// `platforms/cluster_energy_128.xml`, 2 hosts): a job computing 1e9 flop on each host at
/// 100 Mf/s from 0 to 10 s; idle to 30 s; switched off 30 → 36.1 s; asleep to 100 s;
/// booting 100 → 251.52 s; the second job from 251.52 to 261.52 s. Worked by hand in
/// docs/energy.md: 25,920.289958 J a host.
#[test]
fn batsims_minimal_switching_case_by_hand() {
    let ms = SimTime;
    let host = NodeTimeline {
        cores: 1,
        breakpoints: vec![
            (ms(0), ON(1)),
            (ms(10_000), ON(0)),
            (ms(30_000), NodeState::SwitchingOff),
            (ms(36_100), NodeState::Off),
            (ms(100_000), NodeState::SwitchingOn),
            (ms(251_520), ON(1)),
        ],
        end: ms(261_520),
    };
    let r = account(&[host.clone(), host], &|_| {
        PowerModel::BATSIM_CLUSTER_ENERGY_128
    })
    .unwrap();
    let e = r.nodes[0];
    assert!((e.computing_j - 2.0 * 1907.38).abs() < 1e-9, "{e:?}");
    assert!((e.idle_j - 1900.0).abs() < 1e-9);
    assert!((e.switching_j - (616.07987 + 18966.425088)).abs() < 1e-9);
    assert!((e.off_j - 623.025).abs() < 1e-9);
    assert!((e.total_j() - 25_920.289958).abs() < 1e-6);
    assert!((r.total_j - 51_840.579916).abs() < 1e-6);
    assert!((r.peak_w - 2.0 * 190.738).abs() < 1e-9);
}

#[test]
fn emissions_are_power_times_intensity() {
    let csv =
        b"start_s,end_s,g_per_kwh\n# a clean hour after a dirty one\n0,3600,300\n3600,7200,100\n";
    let series = CarbonSeries::parse("grid.csv", csv).unwrap();
    assert_eq!(series.pieces.len(), 2);
    // One node: idle (100 W) the first hour, every core busy (200 W) the second.
    let t = NodeTimeline {
        cores: 4,
        breakpoints: vec![(s(0), ON(0)), (s(3600), ON(4))],
        end: s(7200),
    };
    let g = emissions_g(
        std::slice::from_ref(&t),
        &|_| PowerModel::SIMGRID_EXAMPLE,
        &series,
    )
    .unwrap();
    // 0.1 kWh × 300 g + 0.2 kWh × 100 g.
    assert!((g - 50.0).abs() < 1e-9, "{g}");
    let short = CarbonSeries::parse("g.csv", b"0,3600,1\n").unwrap();
    let e = emissions_g(&[t], &|_| PowerModel::SIMGRID_EXAMPLE, &short)
        .unwrap_err()
        .0;
    assert!(
        e.contains("covers 0 s to 3600 s; the run spans 0 s to 7200 s"),
        "{e}"
    );
}

#[test]
fn bad_intensity_series_name_the_line() {
    let err = |csv: &[u8]| CarbonSeries::parse("grid.csv", csv).unwrap_err().0;
    assert!(err(b"0,10,5\n20,30,5\n").contains("grid.csv line 2: the piece from 20 s leaves a gap"));
    assert!(err(b"0,10,5\n5,30,5\n").contains("line 2: the piece from 5 s overlaps"));
    assert!(err(b"0,10,x\n").contains("line 1: g_per_kwh 'x' is not a number"));
    assert!(err(b"0,10,-1\n").contains("below 0"));
    assert!(err(b"0,10\n").contains("2 fields"));
    assert!(err(b"10,0,1\n").contains("ends (0 s) before it starts (10 s)"));
    assert!(err(b"# nothing\n").contains("no intensity"));
    assert!(err(&[0xff, 0xfe]).contains("not text"));
}

/// 500 g/kWh for the first hour, 100 for the second, 300 from then on.
fn three_hours() -> CarbonSeries {
    CarbonSeries::parse("g.csv", b"0,3600,500\n3600,7200,100\n7200,100000,300\n").unwrap()
}

#[test]
fn the_greenest_start_is_where_a_runs_mean_intensity_is_least() {
    let g = three_hours();
    // Half an hour within two hours of 0: the clean hour, from its start.
    assert_eq!(g.greenest_start(s(0), s(7200), s(1800)), s(3600));
    // An hour: exactly the clean hour.
    assert_eq!(g.greenest_start(s(0), s(7200), s(3600)), s(3600));
    // Two hours: from 3600 (100 then 300) beats 0 (500 then 100) and 7200 (300, 300).
    assert_eq!(g.greenest_start(s(0), s(7200), s(7200)), s(3600));
    // Half an hour submitted at 1000 with 20 min of slack: the latest start, 2200, puts
    // the run's last 400 s in the clean hour.
    assert_eq!(g.greenest_start(s(1000), s(1200), s(1800)), s(2200));
    // Within the dirty hour for any start in reach: no delay.
    assert_eq!(g.greenest_start(s(100), s(1000), s(600)), s(100));
    // Submitted at 3000 for an hour with an hour of slack: the window ending at the clean
    // hour's end (3600) is best.
    assert_eq!(g.greenest_start(s(3000), s(3600), s(3600)), s(3600));
    // Already in the clean hour, or no slack: no delay.
    assert_eq!(g.greenest_start(s(4000), s(5000), s(600)), s(4000));
    assert_eq!(g.greenest_start(s(0), s(0), s(600)), s(0));
    // A zero-length job starts at the cleanest instant; past the series' end the last
    // value holds.
    assert_eq!(g.greenest_start(s(0), s(5000), s(0)), s(3600));
    assert_eq!(g.greenest_start(s(200_000), s(5000), s(600)), s(200_000));
}

#[test]
fn a_flat_series_cut_in_many_pieces_never_delays_a_job() {
    let mut csv = String::new();
    for h in 0..500 {
        csv.push_str(&format!("{},{},{}\n", h * 37, (h + 1) * 37, 123.456));
    }
    let g = CarbonSeries::parse("flat.csv", csv.as_bytes()).unwrap();
    for (from, len) in [(0, 1000), (5, 999), (100, 17), (3000, 7)] {
        assert_eq!(g.greenest_start(s(from), s(10_000), s(len)), s(from));
    }
}

/// Batsim's minimal switching timeline on two hosts counted by state: both compute to 10 s,
/// idle to 30 s, switch off to 36.1 s, sleep to 100 s, boot to 251.52 s and compute again;
/// the counts change only where a state does, and end at zero.
#[test]
fn node_states_count_each_node_once_per_instant() {
    let ms = SimTime;
    let t = NodeTimeline {
        cores: 1,
        breakpoints: vec![
            (s(0), ON(1)),
            (s(10), ON(0)),
            (s(30), NodeState::SwitchingOff),
            (ms(36_100), NodeState::Off),
            (s(100), NodeState::SwitchingOn),
            (ms(251_520), ON(1)),
        ],
        end: ms(261_520),
    };
    let got = state_series(&[t.clone(), t]).unwrap();
    assert_eq!(
        got,
        vec![
            (s(0), [2, 0, 0, 0]),
            (s(10), [0, 2, 0, 0]),
            (s(30), [0, 0, 2, 0]),
            (ms(36_100), [0, 0, 0, 2]),
            (s(100), [0, 0, 2, 0]),
            (ms(251_520), [2, 0, 0, 0]),
            (ms(261_520), [0, 0, 0, 0]),
        ]
    );
    // Two busy counts in a row are one state (computing): no change is reported.
    let busy = NodeTimeline {
        cores: 4,
        breakpoints: vec![(s(0), ON(1)), (s(5), ON(3))],
        end: s(10),
    };
    assert_eq!(
        state_series(&[busy]).unwrap(),
        vec![(s(0), [1, 0, 0, 0]), (s(10), [0, 0, 0, 0])]
    );
}

/// A random run for [`the_sweep_accounts_as_the_timelines_do`]: per node, busy blocks of
/// up to three jobs and idle gaps, some gaps holding a switch-off (phases of zero length
/// too), the last one sometimes never woken from; instants on a coarse grid, so that
/// nodes change together. Returns (cores, models, spans, switch-offs, end).
#[allow(clippy::type_complexity)]
fn random_run(
    r: &mut crate::rng::SimRng,
) -> (
    Vec<u32>,
    Vec<PowerModel>,
    Vec<BusySpan>,
    Vec<OffSpan>,
    SimTime,
) {
    let nodes = r.range_u64(1, 6) as usize;
    let unit = |k: u64| SimTime(k as i64 * 1000);
    let (mut cores, mut models, mut spans, mut offs) = (vec![], vec![], vec![], vec![]);
    for n in 0..nodes as u32 {
        let c = r.range_u64(1, 8) as u32;
        cores.push(c);
        let idle = 40.0 + r.uniform() * 100.0;
        let transition = |r: &mut crate::rng::SimRng| {
            (r.uniform() < 0.7).then(|| Transition {
                seconds: 1.0,
                watts: 10.0 + r.uniform() * 200.0,
            })
        };
        models.push(PowerModel {
            idle_w: idle,
            epsilon_w: idle + r.uniform() * 30.0,
            all_cores_w: idle + 30.0 + r.uniform() * 150.0,
            off_w: r.uniform() * 12.0,
            switch_off: transition(r),
            switch_on: transition(r),
        });
        let mut t = 0u64;
        while t < 40 {
            let gap = r.range_u64(0, 6);
            if gap > 0 && r.uniform() < 0.6 {
                // Off before the next block starts; on again by then.
                let mut phase = t + r.range_u64(0, gap - 1);
                let mut at = || {
                    let p = phase;
                    phase = (phase + r.range_u64(0, 2)).min(t + gap);
                    unit(p)
                };
                let (off_at, asleep_at, boot_at, on_at) = (at(), at(), at(), at());
                offs.push(OffSpan {
                    node: n,
                    off_at,
                    asleep_at,
                    boot_at,
                    on_at,
                });
            }
            t += gap;
            let len = r.range_u64(1, 5);
            let mut left = c;
            for _ in 0..r.range_u64(1, 3) {
                let want = r.range_u64(1, u64::from(c)) as u32;
                if want > left {
                    break;
                }
                left -= want;
                let start = t + r.range_u64(0, len - 1);
                let end = start + r.range_u64(1, t + len - start);
                spans.push(BusySpan {
                    node: n,
                    cores: want,
                    start: unit(start),
                    end: unit(end),
                });
            }
            t += len;
        }
        if r.uniform() < 0.3 {
            let off_at = unit(t + r.range_u64(0, 3));
            offs.push(OffSpan {
                node: n,
                off_at,
                asleep_at: off_at + SimTime(1000),
                boot_at: SimTime::NEVER,
                on_at: SimTime::NEVER,
            });
        }
    }
    let end = spans.iter().map(|s| s.end).max().unwrap_or(SimTime(1000));
    // As the run keeps them: switch-offs from before the end, spans in start order.
    offs.retain(|s| s.off_at < end);
    spans.sort_by_key(|s| s.start);
    (cores, models, spans, offs, end)
}

#[test]
fn the_sweep_accounts_as_the_timelines_do() {
    let mut r = crate::rng::SimRng::new(40);
    let mut compared = 0;
    for case in 0..3000 {
        let (cores, models, spans, offs, end) = random_run(&mut r);
        let from = SimTime::ZERO;
        let old =
            busy_timelines(&|n| cores[n], cores.len(), &spans, from, end).and_then(|mut t| {
                with_off_spans(&mut t, &offs)?;
                account(&t, &|n| models[n])
            });
        // Each span a job of one share.
        let shares: Vec<crate::model::Share> = spans
            .iter()
            .map(|s| crate::model::Share {
                node: s.node,
                cores: s.cores,
                mem_kb: 0,
                gpus: 0,
            })
            .collect();
        let runs: Vec<JobRun> = (0..spans.len() as u32)
            .map(|job| JobRun {
                start: spans[job as usize].start,
                end: spans[job as usize].end,
                job,
            })
            .collect();
        let new = account_runs(
            &|n| cores[n],
            cores.len(),
            (&runs, &|job| &shares[job as usize..job as usize + 1]),
            &offs,
            (from, end),
            &|n| models[n],
        );
        match (old, new) {
            (Ok(a), Ok(b)) => {
                compared += 1;
                let bits = |e: &EnergyReport| {
                    let mut v = vec![e.total_j, e.computing_j, e.idle_j, e.switching_j];
                    v.extend([e.off_j, e.average_w, e.peak_w]);
                    for n in &e.nodes {
                        v.extend([n.computing_j, n.idle_j, n.switching_j, n.off_j]);
                    }
                    v.into_iter().map(f64::to_bits).collect::<Vec<u64>>()
                };
                assert_eq!(bits(&a), bits(&b), "case {case}: {a:?}\n{b:?}");
            }
            // Both refuse (which of two faults each names first may differ).
            (Err(_), Err(_)) => {}
            (a, b) => panic!("case {case}: {a:?}\n{b:?}\n{spans:?}\n{offs:?}"),
        }
    }
    // Most random runs are runs: the comparison is not of errors alone.
    assert!(compared > 2000, "{compared} of 3000 compared");
}
