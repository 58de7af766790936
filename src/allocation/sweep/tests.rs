//! The sweep's tests: samples through JSON, presets, plans and assembly.

use super::*;
use crate::limits::Limits;

#[test]
fn samples_cross_json_whatever_their_value() {
    for v in [1.5, 0.1 + 0.2, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let s = SweepSample {
            mean_response_s: v,
            fraction_history: vec![(3, vec![0.25, 0.75])],
        };
        let back: SweepSample = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(back.mean_response_s.to_bits(), v.to_bits(), "{v}");
        assert_eq!(back.fraction_history, s.fraction_history);
    }
}

#[test]
fn a_sweep_split_over_workers_is_the_sweep() {
    // Tasks run in any order and any grouping give the sequential result, byte for byte.
    let spec = (SWEEP_PRESETS[0].spec)();
    let plan = SweepPlan::new(&spec, 3, 300, &Limits::default()).unwrap();
    let whole = run_sweep(&spec, 3, 300, &mut |_, _| true).unwrap();
    let n = plan.tasks();
    let mut samples: Vec<Option<Result<SweepSample, String>>> = vec![None; n as usize];
    for worker in (0..3).rev() {
        for k in (worker..n).step_by(3) {
            samples[k as usize] = Some(plan.run_task(k));
        }
    }
    let split = assemble_sweep(&plan, samples.into_iter().map(Option::unwrap).collect()).unwrap();
    assert_eq!(
        serde_json::to_string(&split).unwrap(),
        serde_json::to_string(&whole).unwrap()
    );
    // The page's way: each worker runs its `share`, the shares assemble in order.
    for of in [1, 2, 5] {
        let shares = (0..of)
            .map(|w| plan.share(w, of).map(|k| plan.run_task(k)).collect())
            .collect();
        assert_eq!(
            assemble_shares(&plan, shares).unwrap(),
            whole,
            "{of} workers"
        );
    }
}

#[test]
fn median_band_of_ten_is_second_and_ninth() {
    let (lo, cov) = median_band(10);
    assert_eq!(lo, 1);
    assert!((cov - (1.0 - 2.0 * 11.0 / 1024.0)).abs() < 1e-12);
    assert_eq!(median_band(1).0, 0);
}

#[test]
fn every_preset_is_valid() {
    for p in SWEEP_PRESETS {
        (p.spec)()
            .validate(1000)
            .unwrap_or_else(|e| panic!("{}: {e}", p.name));
    }
}

#[test]
fn presets_build_the_papers_systems() {
    let spec = |n: &str| (sweep_preset(n).unwrap().spec)();
    let s = spec("sf-size").system(6.0, 1000).unwrap();
    assert_eq!(s.rates, vec![1.0, 1.0, 1.0, 10.0, 10.0, 10.0]);
    let s = spec("sf-heterogeneity").system(7.0, 1000).unwrap();
    assert_eq!(s.rates[9], 7.0);
    assert_eq!(s.rates[..9], [1.0; 9]);
    let s = spec("sf-cv").system(2.5, 1000).unwrap();
    assert!((s.lambda * 10.0 / 30.0 - 0.05).abs() < 1e-12);
    assert_eq!(s.arrival_cv, 2.5);
    let s = spec("sf-hybrid").system(2.0, 1000).unwrap();
    assert_eq!(s.rate_changes.len(), 1);
    assert_eq!(s.rate_changes[0].resource, 9);
    assert_eq!(s.rate_changes[0].rate, 2.0);
    assert!((s.rate_changes[0].at_s * s.lambda - 500.0).abs() < 1e-9);
}

/// DLL with stale load reports: Δ = 0 is exactly today's DLL; longer intervals make it
/// worse (it keeps sending to servers whose jobs it does not see leave), never OWA or WW.
#[test]
fn stale_load_reports_slow_dll_down_and_zero_changes_nothing() {
    let mut s = (sweep_preset("sf-cv").unwrap().spec)();
    s.x = vec![3.0];
    let exact = run_sweep(&s, 3, 3000, &mut |_, _| true).unwrap();
    s.dll_report_s = 0.0;
    assert_eq!(
        run_sweep(&s, 3, 3000, &mut |_, _| true).unwrap().series,
        exact.series
    );
    s.vary = Vary::DllReport;
    s.x = vec![0.0, 5.0, 50.0];
    s.arrival_cv = 3.0;
    let r = run_sweep(&s, 3, 3000, &mut |_, _| true).unwrap();
    let dll = &r.series[2].median;
    assert_eq!(r.series[2].policy, "dll");
    assert_eq!(dll[0], exact.series[2].median[0]);
    assert!(dll[0] < dll[1] && dll[1] < dll[2], "{dll:?}");
    assert!(
        r.series[1].median.windows(2).all(|w| w[0] == w[1]),
        "OWA moved"
    );
}

#[test]
fn every_preset_at_its_defaults_runs_from_a_link_unasked() {
    for p in SWEEP_PRESETS {
        let jobs = sweep_jobs(&(p.spec)(), 10, 20_000).unwrap();
        assert!(jobs < CONFIRM_ABOVE_SWEEP_JOBS, "{}: {jobs:e}", p.name);
    }
}

#[test]
fn bad_specs_say_which_point_and_why() {
    let mut s = (sweep_preset("sf-batch").unwrap().spec)();
    s.x = vec![10.0, 400.0];
    let e = s.validate(1000).unwrap_err();
    assert!(e.contains("x = 400") && e.contains("saturated"), "{e}");
    s.x = vec![2.5];
    assert!(s.validate(1000).unwrap_err().contains("whole number"));
    s.x = vec![];
    assert!(s.validate(1000).unwrap_err().contains("x values"));
    let mut s = (sweep_preset("sf-cv").unwrap().spec)();
    s.x = vec![0.5];
    assert!(s.validate(1000).unwrap_err().contains("at least 1"));
    s.arrivals = Arrivals::Load(1.5);
    assert!(s.validate(1000).unwrap_err().contains("(0, 1)"));
    s.arrivals = Arrivals::Load(0.05);
    s.x = vec![3.0];
    s.batch_size = 50_000;
    let e = run_sweep(&s, 1000, 10_000_000, &mut |_, _| true).unwrap_err();
    assert!(e.contains("would simulate"), "{e}");
    s.policies.truncate(1);
    assert!(s.validate(1000).unwrap_err().contains("two policies"));
}

#[test]
fn a_changed_spec_is_custom_and_described() {
    let mut s = (sweep_preset("sf-heterogeneity").unwrap().spec)();
    s.x = vec![2.0, 4.0];
    let r = run_sweep(&s, 1, 300, &mut |_, _| true).unwrap();
    assert_eq!(r.preset, "custom");
    assert!(r.description.contains("rates [1, 1"), "{}", r.description);
    assert!(r.paper.is_empty());
    let r = run_preset(sweep_preset("sf-hybrid").unwrap(), 1, 400, &mut |_, _| true).unwrap();
    assert_eq!(r.preset, "sf-hybrid");
    let h = r.history.expect("hybrid history");
    assert_eq!(h.x, 0.5);
    assert_eq!(h.resource, 9);
    assert_eq!(h.batch.len(), h.hybrid.len());
    assert!(!h.hybrid.is_empty());
}
