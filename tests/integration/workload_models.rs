//! The Lublin–Feitelson generator against the archive's own model output: `lublin_256`
//! (10,000 jobs of the reference generator, whole-sample parameters, 256 nodes). A seed of
//! ours cannot reproduce its jobs (another random stream), so the test compares
//! distributions: two-sample Kolmogorov–Smirnov distances and the shares the model fixes.

use gridscope::workload::{read_swf, Lublin, SwfOptions, Workload};

fn archive(name: &str) -> Workload {
    let bytes = std::fs::read(crate::trace(name)).unwrap();
    read_swf(name, &bytes, &SwfOptions::default()).unwrap()
}

/// Two-sample KS distance: the largest gap between the two empirical CDFs.
fn ks2(mut a: Vec<f64>, mut b: Vec<f64>) -> f64 {
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    let (mut i, mut j, mut d) = (0, 0, 0f64);
    while i < a.len() && j < b.len() {
        let x = a[i].min(b[j]);
        while i < a.len() && a[i] <= x {
            i += 1;
        }
        while j < b.len() && b[j] <= x {
            j += 1;
        }
        d = d.max((i as f64 / a.len() as f64 - j as f64 / b.len() as f64).abs());
    }
    d
}

struct Shape {
    serial: f64,
    pow2_of_parallel: f64,
    ln_runtime: Vec<f64>,
    log2_size: Vec<f64>,
    gaps: Vec<f64>,
    hour_of_day: Vec<f64>,
}

fn shape(w: &Workload) -> Shape {
    let n = w.jobs.len() as f64;
    let parallel: Vec<u32> = w.jobs.iter().map(|j| j.procs).filter(|&p| p > 1).collect();
    Shape {
        serial: w.jobs.iter().filter(|j| j.procs == 1).count() as f64 / n,
        pow2_of_parallel: parallel.iter().filter(|p| p.is_power_of_two()).count() as f64
            / parallel.len() as f64,
        ln_runtime: w
            .jobs
            .iter()
            .map(|j| j.runtime.as_secs_f64().max(1.0).ln())
            .collect(),
        log2_size: w.jobs.iter().map(|j| (j.procs as f64).log2()).collect(),
        gaps: w
            .jobs
            .windows(2)
            .map(|p| (p[1].submit - p[0].submit).as_secs_f64())
            .collect(),
        hour_of_day: w
            .jobs
            .iter()
            .map(|j| ((j.submit + w.origin).as_secs_f64() / 3600.0) % 24.0)
            .collect(),
    }
}

#[test]
fn lublin_generator_matches_the_reference_generators_output() {
    let ours = Lublin {
        jobs: 10_000,
        nodes: 256,
        // The archive's files are hour-of-day aligned as if the generator's clock started
        // at 01:00: at start hour 0 the daily cycles differ by KS 0.068, at 1 by 0.019.
        start_hour: 1,
        ..Lublin::default()
    }
    .generate(1)
    .unwrap();
    let (a, b) = (shape(&ours), shape(&archive("lublin_256.swf.gz")));
    // The archive's files come from different versions of the reference generator; their
    // daily cycles differ (lublin_256 peaks at noon, lublin-aaroh an hour later, as ours).
    let aaroh = shape(&archive("lublin-aaroh.swf.gz"));
    let d_hour_archive = ks2(aaroh.hour_of_day, b.hour_of_day.clone());
    let d_runtime = ks2(a.ln_runtime, b.ln_runtime);
    let d_size = ks2(a.log2_size, b.log2_size);
    let d_gap = ks2(a.gaps, b.gaps);
    let d_hour = ks2(a.hour_of_day, b.hour_of_day);
    eprintln!(
        "serial {:.4} vs {:.4}; pow2 {:.4} vs {:.4}; KS ln runtime {d_runtime:.4}, log2 size {d_size:.4}, gaps {d_gap:.4}, hour of day {d_hour:.4} (lublin-aaroh vs lublin_256: {d_hour_archive:.4})",
        a.serial, b.serial, a.pow2_of_parallel, b.pow2_of_parallel
    );
    // 10,000 against 10,000 jobs: the 1 % critical KS distance is 1.63·sqrt(2/10⁴) ≈ 0.023.
    assert!((a.serial - b.serial).abs() < 0.02);
    assert!((a.pow2_of_parallel - b.pow2_of_parallel).abs() < 0.03);
    for (what, d) in [
        ("ln runtime", d_runtime),
        ("log2 size", d_size),
        ("gaps", d_gap),
    ] {
        assert!(d < 0.03, "{what}: KS distance {d:.4}");
    }
    assert!(
        d_hour <= d_hour_archive + 0.01,
        "hour of day: KS distance {d_hour:.4}"
    );
}
