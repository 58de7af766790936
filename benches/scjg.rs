//! SCJG's cost: the whole SDSC-SP2 trace (≈ 60,000 jobs, 128 nodes) under each local policy,
//! in the engine (no reservations), in SCJG's simulation with no metajobs, and with 1 % and
//! 5 % of the jobs as advance-reservation metajobs. The bound: reservations must not
//! make the run more than 2× slower than without them (median of 3).

use std::path::PathBuf;
use std::time::Instant;

use gridscope::engine::{simulate, RunConfig};
use gridscope::model::{Platform, Site};
use gridscope::policy::local::LocalPolicyKind;
use gridscope::scjg::workload::{split_metajobs, Shape};
use gridscope::scjg::{simulate as scjg_simulate, ScjgInput, ScjgParams, SiteSpec};
use gridscope::workload::{read_swf, SwfOptions};

const TRACE: &str = "SDSC-SP2-1998-4.2-cln.swf.gz";

fn median_of_3(mut f: impl FnMut()) -> f64 {
    let mut t: Vec<f64> = (0..3)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[1]
}

fn main() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/traces");
    let bytes = std::fs::read(dir.join(TRACE)).expect("the shared traces beside the checkout");
    let w = read_swf(TRACE, &bytes, &SwfOptions::default()).unwrap();
    let platform = Platform::single(Site::flat("sdsc", 128));
    println!("# {TRACE}: {} jobs, median of 3 runs", w.jobs.len());
    println!(
        "{:<13} {:>9} {:>11} {:>11} {:>11} {:>8}",
        "policy", "engine s", "scjg 0% s", "scjg 1% s", "scjg 5% s", "5%/0%"
    );
    // `SCJG_BENCH_POLICY=fcfs` runs one policy (for profiling).
    let only = std::env::var("SCJG_BENCH_POLICY").ok();
    for kind in LocalPolicyKind::ALL {
        if only.as_deref().is_some_and(|p| p != kind.name()) {
            continue;
        }
        let engine = median_of_3(|| {
            simulate(
                &platform,
                &w.jobs,
                kind,
                &RunConfig::default(),
                &mut |_, _| true,
            )
            .unwrap();
        });
        let sites = [SiteSpec {
            name: "sdsc".into(),
            units: 128,
            policy: kind,
        }];
        let mut times = Vec::new();
        for percent in [0.0, 1.0, 5.0] {
            let (local, meta) = split_metajobs(&w.jobs, percent, 1, Shape::Single, 1);
            let slices: [&[_]; 1] = [&local];
            times.push(median_of_3(|| {
                scjg_simulate(
                    ScjgInput {
                        sites: &sites,
                        local: &slices,
                        metajobs: &meta,
                    },
                    &ScjgParams::default(),
                )
                .unwrap();
            }));
        }
        println!(
            "{:<13} {engine:>9.3} {:>11.3} {:>11.3} {:>11.3} {:>8.2}",
            kind.name(),
            times[0],
            times[1],
            times[2],
            times[2] / times[0]
        );
    }
}
