//! Tests of the hyper-Erlang model: the distribution, SOB's presets, the generator, both
//! fits and the synthetic workload.

use super::*;
use crate::model::Job;
use crate::rng::SimRng;
use crate::time::SimTime;
use crate::workload::Workload;

/// The rule as first written: every class built, the smallest found by a scan.
fn merge_classes_naive(jobs: &[Job], c: u32) -> Vec<(u32, u32, u64)> {
    let widest = jobs.iter().map(|j| j.procs.max(1)).max().unwrap_or(1);
    let mut classes: Vec<(u32, u32, u64)> = (0..widest.div_ceil(c) as usize)
        .map(|k| (k as u32 * c + 1, (k as u32 + 1).saturating_mul(c), 0))
        .collect();
    for j in jobs {
        classes[((j.procs.max(1) - 1) / c) as usize].2 += 1;
    }
    let total = jobs.len() as f64;
    while classes.len() > 1 {
        let small = classes
            .iter()
            .enumerate()
            .filter(|(_, cl)| (cl.2 as f64) * 100.0 < MERGE_THRESHOLD_PCT * total)
            .min_by_key(|(i, cl)| (cl.2, *i))
            .map(|(i, _)| i);
        let Some(i) = small else { break };
        let target = if i == 0 {
            1
        } else if i + 1 == classes.len() || classes[i - 1].2 <= classes[i + 1].2 {
            i - 1
        } else {
            i + 1
        };
        let (a, b) = (i.min(target), i.max(target));
        classes[a] = (classes[a].0, classes[b].1, classes[a].2 + classes[b].2);
        classes.remove(b);
    }
    classes
}

#[test]
fn merge_classes_equals_the_rule_as_first_written() {
    let mut rng = crate::rng::SimRng::new(30);
    for case in 0..3000 {
        let c = rng.range_u64(1, 8) as u32;
        let widest = [4, 16, 64, 300][rng.range_u64(0, 3) as usize];
        let n = rng.range_u64(1, 200);
        let jobs: Vec<Job> = (0..n)
            .map(|i| {
                let p = if rng.uniform() < 0.5 {
                    rng.range_u64(0, 4) as u32
                } else {
                    rng.range_u64(0, widest) as u32
                };
                job(i as i64, i as i64, 10, p)
            })
            .collect();
        assert_eq!(
            merge_classes(&jobs, c),
            merge_classes_naive(&jobs, c),
            "case {case}, c {c}"
        );
    }
    // A job 2^32 - 1 CPUs wide: two classes' worth of work, not 2^31 classes (the empty
    // ones between join the lower, as wide in jobs).
    let jobs = vec![job(1, 0, 10, 1), job(2, 1, 10, u32::MAX)];
    assert_eq!(
        merge_classes(&jobs, 2),
        vec![(1, u32::MAX - 1, 1), (u32::MAX, u32::MAX, 1)]
    );
}

/// The processor factor scales only the widths: the same seed gives the same jobs,
/// submits and run times, each width × 3 rounded and clamped to `max_procs`; a factor
/// that is not a positive number is refused, and 1 stays out of the JSON.
#[test]
fn procs_factor_scales_widths_only() {
    let base = HyperErlangWorkload {
        max_procs: Some(1000),
        ..HyperErlangWorkload::preset("M2")
    };
    let wide = HyperErlangWorkload {
        procs_factor: 3.0,
        ..base.clone()
    };
    let (a, b) = (base.generate(7).unwrap(), wide.generate(7).unwrap());
    assert_eq!(a.jobs.len(), b.jobs.len());
    for (x, y) in a.jobs.iter().zip(&b.jobs) {
        assert_eq!(
            (x.submit, x.runtime, x.estimate),
            (y.submit, y.runtime, y.estimate)
        );
        assert_eq!(y.procs, (x.procs * 3).min(1000));
    }
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY, 2e6] {
        let w = HyperErlangWorkload {
            procs_factor: bad,
            ..base.clone()
        };
        assert!(w.validate().unwrap_err().contains("procs_factor"), "{bad}");
    }
    assert!(!serde_json::to_string(&base)
        .unwrap()
        .contains("procs_factor"));
    assert!(serde_json::to_string(&wide)
        .unwrap()
        .contains("\"procs_factor\":3.0"));
}

#[test]
fn maximum_likelihood_recovers_a_known_hyper_erlang() {
    // Order 2, a short branch (mean 20 s, 70 %) and a long one (mean 2,000 s).
    let truth = HyperErlang::new(2, 0.1, 0.001, 0.7);
    let mut rng = SimRng::new(5);
    let xs: Vec<f64> = (0..40_000).map(|_| truth.sample(&mut rng)).collect();
    let (he, fm) = fit_samples_ml(&xs, 1.0);
    assert_eq!(he.n, 2, "{he:?}");
    let (fast, slow, p_fast) = if he.lambda1 > he.lambda2 {
        (he.lambda1, he.lambda2, he.rho)
    } else {
        (he.lambda2, he.lambda1, 1.0 - he.rho)
    };
    assert!((fast - 0.1).abs() < 0.005, "{he:?}");
    assert!((slow - 0.001).abs() < 0.00005, "{he:?}");
    assert!((p_fast - 0.7).abs() < 0.01, "{he:?}");
    assert!(!fm.exact && fm.note.contains("maximum likelihood"));
    // Too few samples: the moment fit's fallback.
    assert_eq!(fit_samples_ml(&[5.0], 3.0).0, fit_samples(&[5.0], 3.0).0);
}

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs()
}

#[test]
fn presets_have_the_papers_shape() {
    assert_eq!(sob_classes("M1").unwrap().len(), 6);
    assert_eq!(sob_classes("M2").unwrap().len(), 13);
    assert_eq!(sob_classes("M3").unwrap().len(), 7);
    assert_eq!(sob_classes("m4"), sob_classes("M1"));
    assert_eq!(sob_classes("M5"), sob_classes("M2"));
    assert_eq!(sob_classes("M6"), sob_classes("M3"));
    assert!(sob_classes("M7").is_none());
    for m in ["M1", "M2", "M3"] {
        let cl = sob_classes(m).unwrap();
        let share: f64 = cl.iter().map(|c| c.share_pct).sum();
        assert!((share - 100.0).abs() < 0.5, "{m}: shares sum to {share}");
        for (a, b) in cl.iter().zip(cl.iter().skip(1)) {
            assert_eq!(a.nmax + 1, b.nmin, "{m}: classes must tile");
        }
        for c in &cl {
            c.validate().unwrap();
        }
    }
    assert_eq!(sob_classes("M1").unwrap()[5].nmax, 3072);
    assert_eq!(sob_classes("M2").unwrap()[12].nmax, 1220);
    assert_eq!(sob_classes("M3").unwrap()[6].nmax, 1152);
}

#[test]
fn m1_service_samples_match_analytic_moments() {
    let mut rng = SimRng::new(2024);
    for c in sob_classes("M1").unwrap() {
        let xs: Vec<f64> = (0..200_000).map(|_| c.service.sample(&mut rng)).collect();
        let m = raw_moments(&xs);
        let (a1, a2) = (c.service.moment(1), c.service.moment(2));
        assert!(
            rel(m[0], a1) < 0.03,
            "[{}, {}] mean {} vs {a1}",
            c.nmin,
            c.nmax,
            m[0]
        );
        assert!(
            rel(m[1], a2) < 0.15,
            "[{}, {}] m2 {} vs {a2}",
            c.nmin,
            c.nmax,
            m[1]
        );
    }
}

#[test]
fn analytic_moments_by_hand() {
    // HE(2, 1, 0.5, 0.25): Erlang(2,1): 2, 6, 24; Erlang(2,0.5): 4, 24, 192.
    let he = HyperErlang::new(2, 1.0, 0.5, 0.25);
    assert!(rel(he.moment(1), 0.25 * 2.0 + 0.75 * 4.0) < 1e-15);
    assert!(rel(he.moment(2), 0.25 * 6.0 + 0.75 * 24.0) < 1e-15);
    assert!(rel(he.moment(3), 0.25 * 24.0 + 0.75 * 192.0) < 1e-15);
    // Exponential of mean 10: 10, 200, 6000.
    let e = HyperErlang::exponential(10.0);
    assert!(rel(e.moment(1), 10.0) < 1e-12);
    assert!(rel(e.moment(2), 200.0) < 1e-12);
    assert!(rel(e.moment(3), 6000.0) < 1e-12);
    assert!(rel(e.scv(), 1.0) < 1e-12);
}

#[test]
fn presets_give_papers_job_counts_and_loads() {
    // SOB Table 1 CPUs.
    for (m, cpus) in [("M1", 192 * 16), ("M2", 305 * 4), ("M3", 144 * 8)] {
        let w = HyperErlangWorkload::preset(m).generate(1).unwrap();
        let load = offered_load(&w.jobs, TWO_WEEKS_S, cpus);
        let mut pw2 = HyperErlangWorkload::preset(m);
        pw2.procs_in_class = ProcsInClass::PowersOfTwo;
        let w2 = pw2.generate(1).unwrap();
        let mut plu = HyperErlangWorkload::preset(m);
        plu.procs_in_class = ProcsInClass::LogUniform;
        let w3 = plu.generate(1).unwrap();
        println!(
            "{m}: {} jobs (expected {:.0}), offered load uniform {:.3}, log-uniform {:.3}, powers of two {:.3}",
            w.jobs.len(),
            HyperErlangWorkload::preset(m).expected_jobs().unwrap(),
            load,
            offered_load(&w3.jobs, TWO_WEEKS_S, cpus),
            offered_load(&w2.jobs, TWO_WEEKS_S, cpus),
        );
        if m == "M1" {
            assert!((8_000..=12_500).contains(&w.jobs.len()), "{}", w.jobs.len());
        }
    }
}

#[test]
fn workload_is_well_formed() {
    let mut p = HyperErlangWorkload::preset("M2");
    p.estimate_factor = 1.5;
    p.procs_in_class = ProcsInClass::LogUniform;
    let w = p.generate(7).unwrap();
    assert_eq!(w.origin, SimTime::ZERO);
    assert_eq!(w.report.jobs, w.jobs.len() as u64);
    assert!(!w.jobs.is_empty());
    for (i, j) in w.jobs.iter().enumerate() {
        assert_eq!(j.id, i as i64 + 1);
        assert!(j.runtime >= SimTime::from_secs(1));
        assert!(j.estimate >= j.runtime);
        assert!(j.submit < SimTime::from_secs(TWO_WEEKS_S as i64));
        assert!((1..=1220).contains(&j.procs));
    }
    assert!(w.jobs.windows(2).all(|p| p[0].submit <= p[1].submit));
}

#[test]
fn procs_draws_stay_in_class() {
    let mut rng = SimRng::new(3);
    for _ in 0..10_000 {
        let u = ProcsInClass::Uniform.draw(&mut rng, 49, 112);
        assert!((49..=112).contains(&u));
        let l = ProcsInClass::LogUniform.draw(&mut rng, 241, 3072);
        assert!((241..=3072).contains(&l));
        let p = ProcsInClass::PowersOfTwo.draw(&mut rng, 49, 112);
        assert_eq!(p, 64);
        let p = ProcsInClass::PowersOfTwo.draw(&mut rng, 17, 300);
        assert!([32, 64, 128, 256].contains(&p));
        // 25..=28 holds no power of two: nearest to the draw is 32 (25 is 9 from 16, 7 from 32).
        assert_eq!(ProcsInClass::PowersOfTwo.draw(&mut rng, 25, 28), 32);
        let q = ProcsInClass::PowersOfTwo.draw(&mut rng, 5, 7);
        assert!(q == 4 || q == 8);
    }
    assert_eq!(ProcsInClass::PowersOfTwo.draw(&mut rng, 1, 1), 1);
    assert_eq!(ProcsInClass::PowersOfTwo.draw(&mut rng, 3, 3), 2); // tie: lower
    assert_eq!(ProcsInClass::PowersOfTwo.draw(&mut rng, 6, 6), 4);
}

#[test]
fn max_procs_clamps_and_reports() {
    let mut p = HyperErlangWorkload::preset("M4");
    p.max_procs = Some(128);
    let w = p.generate(5).unwrap();
    assert!(w.jobs.iter().all(|j| j.procs <= 128));
    assert!(w.report.warnings.iter().any(|s| s.contains("clamped")));
    let mut p = HyperErlangWorkload::preset("M2");
    p.procs_in_class = ProcsInClass::PowersOfTwo;
    let w = p.generate(5).unwrap();
    assert!(w.report.warnings.iter().any(|s| s.contains("power of two")));
}

#[test]
fn fit_recovers_known_distribution() {
    // Means 1000 s and 400 s; SCV < 1 so no hyper-exponential (n = 1) can match.
    let truth = HyperErlang::new(2, 1.0 / 500.0, 1.0 / 200.0, 0.5);
    let mut rng = SimRng::new(11);
    let xs: Vec<f64> = (0..200_000).map(|_| truth.sample(&mut rng)).collect();
    let (he, fm) = fit_samples(&xs, 1.0);
    assert!(fm.exact, "{}", fm.note);
    assert_eq!(he.n, 2, "{he:?}");
    for k in 0..3 {
        assert!(rel(fm.fitted[k], fm.sample[k]) < 1e-9, "moment {}", k + 1);
        assert!(
            rel(fm.sample[k], truth.moments()[k]) < 0.03,
            "moment {}",
            k + 1
        );
    }
    assert!(rel(he.lambda1, truth.lambda1) < 0.15, "{he:?}");
    assert!(rel(he.lambda2, truth.lambda2) < 0.15, "{he:?}");
    assert!((he.rho - truth.rho).abs() < 0.15, "{he:?}");
    // Exact analytic moments give back the parameters themselves.
    let back = HyperErlang::fit_three_moments(truth.moments(), MAX_FIT_ORDER).unwrap();
    assert_eq!(back.n, 2);
    assert!(rel(back.lambda1, truth.lambda1) < 1e-9);
    assert!(rel(back.lambda2, truth.lambda2) < 1e-9);
    assert!((back.rho - truth.rho).abs() < 1e-9);
}

#[test]
fn fit_round_trips_every_preset_distribution() {
    for m in ["M1", "M2", "M3"] {
        for c in sob_classes(m).unwrap() {
            for he in [c.interarrival, c.service] {
                let f = HyperErlang::fit_three_moments(he.moments(), MAX_FIT_ORDER)
                    .unwrap_or_else(|| panic!("{m} {he:?}"));
                assert!(f.n <= he.n);
                for k in 1..=3 {
                    assert!(rel(f.moment(k), he.moment(k)) < 1e-6, "{m} {he:?} {f:?}");
                }
            }
        }
    }
}

#[test]
fn fallbacks_when_no_exact_match() {
    // Constant samples: SCV 0, no hyper-Erlang matches; an Erlang with the mean remains.
    let (he, fm) = fit_samples(&[5.0; 10], 1.0);
    assert!(!fm.exact);
    assert_eq!(he.n, MAX_FIT_ORDER);
    assert!(rel(he.mean(), 5.0) < 1e-12);
    let (he, fm) = fit_samples(&[], 42.0);
    assert!(!fm.exact && fm.note.contains("no samples"));
    assert!(rel(he.mean(), 42.0) < 1e-12);
    let (he, fm) = fit_samples(&[0.0, 0.0], 3.0);
    assert!(!fm.exact);
    assert!(rel(he.mean(), 3.0) < 1e-12);
}

fn job(id: i64, submit_s: i64, runtime_s: i64, procs: u32) -> Job {
    Job {
        id,
        submit: SimTime::from_secs(submit_s),
        runtime: SimTime::from_secs(runtime_s),
        estimate: SimTime::from_secs(runtime_s),
        procs,
        home: 0,
        user: -1,
        partition: -1,
    }
}

#[test]
fn two_percent_merge_rule() {
    // c = 4: [1,4] 50 jobs, [5,8] 1, [9,12] 30, [13,16] 0, [17,20] 19 (100 in all).
    let mut jobs = Vec::new();
    let mut add = |n: usize, procs: u32| {
        for _ in 0..n {
            let id = jobs.len() as i64 + 1;
            jobs.push(job(id, id * 60 + (id * id % 7), 100 + id, procs));
        }
    };
    add(50, 3);
    add(1, 6);
    add(30, 12);
    add(19, 17);
    // [13,16] (0 jobs) goes first, into [17,20] (19 < 30); then [5,8] into [9,12] (30 < 50).
    assert_eq!(
        merge_classes(&jobs, 4),
        vec![(1, 4, 50), (5, 12, 31), (13, 20, 19)]
    );
    let fitted = fit_classes(&jobs, 4);
    assert_eq!(fitted.len(), 3);
    assert_eq!(fitted[1].jobs, 31);
    assert!(rel(fitted[0].class.share_pct, 50.0) < 1e-12);
    assert_eq!(fitted[2].service.samples, 19);
    assert_eq!(fitted[2].interarrival.samples, 18);
    for f in &fitted {
        f.class.validate().unwrap();
        assert_eq!(f.class.service.moments(), f.service.fitted);
    }
    // Tie: a 1-job class between two 49-job classes merges into the lower one.
    let mut jobs = Vec::new();
    for i in 0..49 {
        jobs.push(job(i, i, 10, 1));
        jobs.push(job(100 + i, i, 10, 9));
    }
    jobs.push(job(999, 5, 10, 5));
    assert_eq!(merge_classes(&jobs, 4), vec![(1, 8, 50), (9, 12, 49)]);
    // Everything below 2 % collapses to one class in the end.
    let jobs: Vec<Job> = (0..60).map(|i| job(i, i, 10, i as u32 + 1)).collect();
    let m = merge_classes(&jobs, 1);
    assert!(m.iter().all(|c| c.2 as f64 >= 0.02 * 60.0));
    assert_eq!(m.iter().map(|c| c.2).sum::<u64>(), 60);
    assert!(merge_classes(&[], 4).is_empty());
}

#[test]
fn fitted_model_regenerates_similar_workload() {
    let w = HyperErlangWorkload::preset("M3").generate(9).unwrap();
    let fitted = fit_classes(&w.jobs, 8);
    assert!(!fitted.is_empty());
    let total: u64 = fitted.iter().map(|f| f.jobs).sum();
    assert_eq!(total, w.jobs.len() as u64);
    let p = HyperErlangWorkload {
        classes: Some(fitted.iter().map(|f| f.class.clone()).collect()),
        ..Default::default()
    };
    let again = p.generate(9).unwrap();
    let ratio = again.jobs.len() as f64 / w.jobs.len() as f64;
    assert!(
        (0.8..1.25).contains(&ratio),
        "{} vs {}",
        again.jobs.len(),
        w.jobs.len()
    );
}

#[test]
fn synthesize_draws_over_the_traces_span_and_is_reproducible() {
    let w = HyperErlangWorkload::preset("M3").generate(5).unwrap();
    let fitted = fit_classes(&w.jobs, 8);
    let a = synthesize(&w.jobs, &fitted, SYNTHETIC_SEED).unwrap();
    let last = w.jobs.last().unwrap().submit.as_secs_f64();
    assert_eq!(a.horizon_s, last);
    assert!(a
        .workload
        .jobs
        .iter()
        .all(|j| j.submit.as_secs_f64() < last));
    let ratio = a.workload.jobs.len() as f64 / w.jobs.len() as f64;
    assert!((0.7..1.3).contains(&ratio), "ratio {ratio}");
    let b = synthesize(&w.jobs, &fitted, SYNTHETIC_SEED).unwrap();
    assert_eq!(a.workload.jobs, b.workload.jobs);
    assert!(synthesize(&[], &[], 1).is_err());
}

#[test]
fn same_seed_same_jobs() {
    let p = HyperErlangWorkload::preset("M3");
    let a = p.generate(42).unwrap();
    let b = p.generate(42).unwrap();
    let c = p.generate(43).unwrap();
    assert_eq!(a.jobs, b.jobs);
    assert_ne!(a.jobs, c.jobs);
    assert_eq!(a.name, b.name);
}

#[test]
fn factors_scale_the_workload() {
    let base = HyperErlangWorkload::preset("M1").generate(3).unwrap();
    let mut p = HyperErlangWorkload::preset("M1");
    p.arrival_rate_factor = 2.0;
    p.service_time_factor = 3.0;
    let heavy = p.generate(3).unwrap();
    let ratio = heavy.jobs.len() as f64 / base.jobs.len() as f64;
    assert!((1.8..2.2).contains(&ratio), "{ratio}");
    let mean = |w: &Workload| {
        w.jobs.iter().map(|j| j.runtime.as_secs_f64()).sum::<f64>() / w.jobs.len() as f64
    };
    let r = mean(&heavy) / mean(&base);
    assert!((2.5..3.5).contains(&r), "{r}");
}

#[test]
fn invalid_parameters_are_rejected() {
    let bad = |f: &dyn Fn(&mut HyperErlangWorkload)| {
        let mut p = HyperErlangWorkload::default();
        f(&mut p);
        p.generate(1).unwrap_err()
    };
    assert!(bad(&|p| p.horizon_s = 0.0).contains("horizon"));
    assert!(bad(&|p| p.horizon_s = f64::NAN).contains("horizon"));
    assert!(bad(&|p| p.arrival_rate_factor = -1.0).contains("arrival_rate_factor"));
    assert!(bad(&|p| p.estimate_factor = 0.5).contains("estimate_factor"));
    assert!(bad(&|p| p.machine = "X9".into()).contains("preset"));
    assert!(bad(&|p| p.max_procs = Some(0)).contains("max_procs"));
    assert!(bad(&|p| p.classes = Some(vec![])).contains("class"));
    assert!(bad(&|p| p.horizon_s = 1e15).contains("jobs"));
    let mut cl = sob_classes("M1").unwrap();
    cl[0].interarrival.lambda1 = -2.75e-4;
    assert!(bad(&|p| p.classes = Some(cl.clone())).contains("lambda1"));
    let mut cl = sob_classes("M1").unwrap();
    cl[1].service.rho = 1.5;
    assert!(bad(&|p| p.classes = Some(cl.clone())).contains("rho"));
    let mut cl = sob_classes("M1").unwrap();
    cl[2].service.n = 0;
    assert!(bad(&|p| p.classes = Some(cl.clone())).contains("order"));
    let mut cl = sob_classes("M1").unwrap();
    cl[2].nmin = 50;
    assert!(bad(&|p| p.classes = Some(cl.clone())).contains("nmin"));
    assert!(HyperErlang::new(1, 1.0, 1.0, -0.1).validate().is_err());
    assert!(HyperErlang::new(1, 0.0, 1.0, 0.5).validate().is_err());
}

#[test]
fn parameters_round_trip_through_json() {
    let p = HyperErlangWorkload {
        procs_in_class: ProcsInClass::PowersOfTwo,
        max_procs: Some(3072),
        ..Default::default()
    };
    let s = serde_json::to_string(&p).unwrap();
    assert!(s.contains("powers_of_two"));
    let back: HyperErlangWorkload = serde_json::from_str(&s).unwrap();
    assert_eq!(back, p);
    let partial: HyperErlangWorkload = serde_json::from_str(r#"{"machine":"M2"}"#).unwrap();
    assert_eq!(partial, HyperErlangWorkload::preset("M2"));
}
