//! wasm unit tests, run in Chromium: `CHROMEDRIVER=/usr/bin/chromedriver cargo test --target
//! wasm32-unknown-unknown --lib` (runner and browser flags in .cargo/config.toml and
//! webdriver.json).

use wasm_bindgen_test::*;

use super::metric::Metric;
use super::protocol::{FamilyRequest, FileInfo, FromWorker};
use super::share::{self, b64url_decode, b64url_encode, Shared};
use super::worker;
use crate::scenario::{load_workload, run_loaded, PlatformSpec, Scenario, WorkloadSpec};

wasm_bindgen_test_configure!(run_in_browser);

#[path = "tests_worker.rs"]
mod worker_runs;

/// `gridscope run --preset demo --json`, native build: each run's label, metrics, events and
/// max_queue. The wasm engine must give the same numbers to the last bit.
const DEMO_NATIVE: &str = r#"[{"label":"fcfs","metrics":{"avg_wait_s":257.616,"avg_response_s":31273.7725,"wait_stddev_s":1223.4672302697772,"max_wait_s":13531.0,"avg_bounded_slowdown":1.0495085126786092,"avg_expansion_factor":0.5247542563393046,"utilization":0.6355170054300253,"makespan_s":1301191.0,"jobs_finished":2000,"jobs_killed":0,"jobs_rejected":0,"jobs_skipped":0,"sites":[{"name":"cluster","utilization":0.6355170054300253,"jobs":2000,"avg_wait_s":257.616}]},"events":4000,"max_queue":16},{"label":"easy","metrics":{"avg_wait_s":164.7085,"avg_response_s":31180.865,"wait_stddev_s":946.2581299665277,"max_wait_s":14285.0,"avg_bounded_slowdown":1.009807980620819,"avg_expansion_factor":0.5049039903104094,"utilization":0.6355170054300253,"makespan_s":1301191.0,"jobs_finished":2000,"jobs_killed":0,"jobs_rejected":0,"jobs_skipped":0,"sites":[{"name":"cluster","utilization":0.6355170054300253,"jobs":2000,"avg_wait_s":164.7085}]},"events":4000,"max_queue":14},{"label":"conservative","metrics":{"avg_wait_s":177.2245,"avg_response_s":31193.381,"wait_stddev_s":967.0914548788807,"max_wait_s":14285.0,"avg_bounded_slowdown":1.010406208705222,"avg_expansion_factor":0.505203104352611,"utilization":0.6355170054300253,"makespan_s":1301191.0,"jobs_finished":2000,"jobs_killed":0,"jobs_rejected":0,"jobs_skipped":0,"sites":[{"name":"cluster","utilization":0.6355170054300253,"jobs":2000,"avg_wait_s":177.2245}]},"events":4000,"max_queue":14},{"label":"sjf","metrics":{"avg_wait_s":186.012,"avg_response_s":31202.1685,"wait_stddev_s":1464.6638296400988,"max_wait_s":30804.0,"avg_bounded_slowdown":1.0069010230111248,"avg_expansion_factor":0.5034505115055624,"utilization":0.6355170054300253,"makespan_s":1301191.0,"jobs_finished":2000,"jobs_killed":0,"jobs_rejected":0,"jobs_skipped":0,"sites":[{"name":"cluster","utilization":0.6355170054300253,"jobs":2000,"avg_wait_s":186.012}]},"events":4000,"max_queue":14},{"label":"firstfit","metrics":{"avg_wait_s":87.518,"avg_response_s":31103.6745,"wait_stddev_s":783.2584245802914,"max_wait_s":17156.0,"avg_bounded_slowdown":1.0108435005426992,"avg_expansion_factor":0.5054217502713496,"utilization":0.6355170054300253,"makespan_s":1301191.0,"jobs_finished":2000,"jobs_killed":0,"jobs_rejected":0,"jobs_skipped":0,"sites":[{"name":"cluster","utilization":0.6355170054300253,"jobs":2000,"avg_wait_s":87.518}]},"events":4000,"max_queue":9}]"#;

fn demo_report() -> crate::scenario::Report {
    let s = Scenario::demo();
    let w = load_workload(&s, &Default::default(), &mut |_| Err("no files".into())).unwrap();
    run_loaded(&s, w, &mut |_, _, _| true).unwrap()
}

/// Every key of `want` is in `got` with the same value (metrics may gain keys later).
fn assert_contains(got: &serde_json::Value, want: &serde_json::Value, at: &str) {
    match (got, want) {
        (serde_json::Value::Object(g), serde_json::Value::Object(w)) => {
            for (k, v) in w {
                let sub = g.get(k).unwrap_or_else(|| panic!("{at}.{k} is missing"));
                assert_contains(sub, v, &format!("{at}.{k}"));
            }
        }
        (serde_json::Value::Array(g), serde_json::Value::Array(w)) => {
            assert_eq!(g.len(), w.len(), "{at}: length");
            for (i, (a, b)) in g.iter().zip(w).enumerate() {
                assert_contains(a, b, &format!("{at}[{i}]"));
            }
        }
        _ => assert_eq!(got, want, "{at}"),
    }
}

#[wasm_bindgen_test]
fn durations_read_in_the_unit_that_fits() {
    use super::format::fmt_duration;
    let cases = [
        (0.0, "0.0 s"),
        (57.34, "57.3 s"),
        (59.96, "1 min 0 s"),
        (257.616, "4 min 18 s"),
        (3599.4, "59 min 59 s"),
        (3599.6, "1 h 0 min"),
        (15_360.0, "4 h 16 min"),
        (172_000.0, "47 h 47 min"),
        (172_799.0, "2.0 d"),
        (1_536_403.1, "17.8 d"),
        (68_412_579.0, "791.8 d"),
        (-90.0, "-1 min 30 s"),
        (f64::NAN, "–"),
    ];
    for (secs, want) in cases {
        assert_eq!(fmt_duration(secs), want, "{secs} s");
    }
}

#[wasm_bindgen_test]
fn demo_metrics_match_the_native_cli() {
    let r = demo_report();
    let got = serde_json::json!({ "runs": r.runs });
    let want: serde_json::Value = serde_json::from_str(DEMO_NATIVE).unwrap();
    assert_contains(&got["runs"], &want, "runs");
}

#[wasm_bindgen_test]
fn share_fragment_round_trips() {
    let mut s = Scenario::demo();
    s.seed = 42;
    s.workload = WorkloadSpec::Swf {
        file: "SDSC-SP2-1998-4.2-cln.swf.gz".into(),
        strict: false,
        format: Default::default(),
        utc_offset_min: 0,
    };
    s.platform = PlatformSpec::FromTrace { procs: Some(96) };
    let shared = Shared {
        scenario: s,
        files: vec![FileInfo {
            name: "SDSC-SP2-1998-4.2-cln.swf.gz".into(),
            size: 123,
            sha256: "ab".repeat(32),
        }],
    };
    let frag = share::encode(&shared).unwrap();
    assert!(frag.starts_with(share::PREFIX));
    assert!(frag.len() < 1200, "fragment too long: {}", frag.len());
    assert!(frag
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"-_=".contains(&b)));
    assert_eq!(
        share::decode(&format!("#{frag}")).unwrap(),
        Some(shared.clone())
    );
    assert_eq!(share::decode(&frag).unwrap(), Some(shared));
    let demo = Shared {
        scenario: Scenario::demo(),
        files: vec![],
    };
    assert_eq!(
        share::decode(&share::encode(&demo).unwrap()).unwrap(),
        Some(demo)
    );
}

#[wasm_bindgen_test]
fn bad_fragments_give_messages_not_panics() {
    assert_eq!(share::decode("").unwrap(), None);
    assert_eq!(share::decode("#").unwrap(), None);
    assert_eq!(share::decode("#results").unwrap(), None);
    // A sweep link is not a scenario link, and round-trips on its own.
    let sweep = share::SharedSweep {
        spec: (crate::allocation::sweep::sweep_preset("sf-cv")
            .unwrap()
            .spec)(),
        seeds: 3,
        batches: 1234,
    };
    let frag = share::encode_sweep(&sweep).unwrap();
    assert!(frag.starts_with(share::SWEEP_PREFIX));
    assert_eq!(share::decode(&frag).unwrap(), None);
    assert_eq!(
        share::decode_sweep(&format!("#{frag}")).unwrap(),
        Some(sweep)
    );
    assert_eq!(share::decode_sweep("#s1=abc").unwrap(), None);
    assert!(share::decode_sweep("#w1=%%%").is_err());
    for bad in ["#s1=!!!!", "#s1=AAAA", "#s1=", "#s9=abc"] {
        assert!(share::decode(bad).is_err(), "{bad} should be refused");
    }
    let huge = format!("#s1={}", "A".repeat(share::MAX_FRAGMENT + 10));
    assert!(share::decode(&huge).unwrap_err().contains("too large"));
    // Valid deflate, but not a scenario.
    let not_scenario = {
        use std::io::Write;
        let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(b"{\"hello\": 1}").unwrap();
        format!("s1={}", b64url_encode(&e.finish().unwrap()))
    };
    assert!(share::decode(&not_scenario)
        .unwrap_err()
        .contains("scenario"));
    // A deflate bomb stops at the size limit.
    let bomb = {
        use std::io::Write;
        let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
        e.write_all(&vec![b' '; 4 << 20]).unwrap();
        format!("s1={}", b64url_encode(&e.finish().unwrap()))
    };
    assert!(share::decode(&bomb).unwrap_err().contains("too large"));
    // A link made before scenario version 2 runs as it ran then: its `conservative` is the
    // rebuild, under the same label.
    let mut old = Scenario::demo();
    old.version = 1;
    let old_link = crate::scenario::link::pack(
        share::PREFIX,
        &Shared {
            scenario: old,
            files: Vec::new(),
        },
    )
    .unwrap();
    let opened = share::decode(&old_link).unwrap().unwrap().scenario;
    assert_eq!(opened.version, crate::scenario::SCENARIO_VERSION);
    let cbf = opened
        .algorithms
        .iter()
        .find(|a| a.label() == "conservative")
        .unwrap();
    assert_eq!(
        cbf.local,
        crate::policy::local::LocalPolicyKind::ConservativeRebuild
    );
    // A newer scenario version is refused by name.
    let mut s = Scenario::demo();
    s.version = 99;
    let f = share::encode(&Shared {
        scenario: s,
        files: vec![],
    })
    .unwrap();
    assert!(share::decode(&f).unwrap_err().contains("version 99"));
}

#[wasm_bindgen_test]
fn base64url_matches_rfc4648_vectors() {
    for (raw, enc) in [
        ("", ""),
        ("f", "Zg"),
        ("fo", "Zm8"),
        ("foo", "Zm9v"),
        ("foob", "Zm9vYg"),
        ("fooba", "Zm9vYmE"),
        ("foobar", "Zm9vYmFy"),
    ] {
        assert_eq!(b64url_encode(raw.as_bytes()), enc);
        assert_eq!(b64url_decode(enc).unwrap(), raw.as_bytes());
    }
    assert_eq!(b64url_encode(&[0xfb, 0xff]), "-_8");
    assert_eq!(b64url_decode("-_8").unwrap(), vec![0xfb, 0xff]);
    assert!(b64url_decode("a+b/").is_none());
    assert!(b64url_decode("Z").is_none());
}

#[wasm_bindgen_test]
fn series_average_is_the_utilization() {
    let r = demo_report();
    for run in &r.runs {
        let s = worker::series(run, &r.platform, &r.workload.jobs, &run.outcomes, 240);
        let u = &s.sites[0].utilization;
        let mean = u.iter().sum::<f64>() / u.len() as f64;
        assert!(
            (mean - run.metrics.utilization).abs() < 1e-9,
            "{}: {mean} vs {}",
            run.label,
            run.metrics.utilization
        );
        assert!(u.iter().all(|&x| (0.0..=1.0 + 1e-9).contains(&x)));
    }
}

#[wasm_bindgen_test]
fn gantt_never_puts_two_jobs_on_one_processor() {
    let r = demo_report();
    for run in 0..r.runs.len() {
        let g = worker::gantt(&r, &r.platform, run, 0, 0.0, f64::MAX);
        assert!(!g.truncated);
        assert!(g.rects.len() >= 2000);
        let mut rects = g.rects.clone();
        rects.sort_by(|a, b| a.1.total_cmp(&b.1));
        for (i, a) in rects.iter().enumerate() {
            assert!(a.3 + a.4 <= g.capacity);
            for b in &rects[i + 1..] {
                if b.1 >= a.2 {
                    break;
                }
                let disjoint = a.3 + a.4 <= b.3 || b.3 + b.4 <= a.3;
                assert!(
                    disjoint || a.0 == b.0,
                    "jobs {} and {} share processors",
                    a.0,
                    b.0
                );
            }
        }
    }
}

#[wasm_bindgen_test]
fn a_file_without_jobs_is_refused_with_its_report() {
    let err = worker::import("notes.swf", b"hello world\nthis is not swf\n".to_vec())
        .err()
        .unwrap();
    assert!(err.contains("no job"), "{err}");
    assert!(err.contains("malformed"), "{err}");
    let ok = worker::import(
        "t.swf",
        b"; MaxProcs: 4\n1 0 -1 10 2 -1 -1 2 20 -1 1 1 -1 -1 -1 -1 -1 -1\n".to_vec(),
    );
    let (info, _) = ok.unwrap();
    assert_eq!(info.size, 62);
    assert_eq!(info.sha256.len(), 64);
}

#[wasm_bindgen_test]
fn allocation_calculator_and_sweep_data() {
    let a = super::panels::allocate_fields("1,1,1,1,1,1,1,1,1,16", "0.1", "10").unwrap();
    assert_eq!(format!("{:.3}", a.owa[9]), "0.888");
    assert_eq!(a.ww[9], 16.0 / 25.0);
    assert!(super::panels::allocate_fields("1,-2", "0.1", "10")
        .unwrap_err()
        .contains("positive"));
    // A sweep split over two workers crosses to the page as JSON (a NaN included) and
    // assembles to the one-worker result.
    let p = crate::allocation::sweep::sweep_preset("sf-hybrid").unwrap();
    let r = crate::allocation::sweep::run_preset(p, 1, 300, &mut |_, _| true).unwrap();
    let plan =
        crate::allocation::sweep::SweepPlan::new(&(p.spec)(), 1, 300, &Default::default()).unwrap();
    let mut shares = Vec::new();
    for worker in 0..2 {
        let samples: Vec<_> = plan.share(worker, 2).map(|k| plan.run_task(k)).collect();
        let text = serde_json::to_string(&FromWorker::SweepPartDone { worker, samples }).unwrap();
        match serde_json::from_str::<FromWorker>(&text).unwrap() {
            FromWorker::SweepPartDone { samples, .. } => shares.push(samples),
            other => panic!("{other:?}"),
        }
    }
    let assembled = crate::allocation::sweep::assemble_shares(&plan, shares).unwrap();
    assert_eq!(assembled, r);
    let nan = crate::allocation::sweep::SweepSample {
        mean_response_s: f64::NAN,
        fraction_history: vec![],
    };
    let text = serde_json::to_string(&FromWorker::SweepPartDone {
        worker: 0,
        samples: vec![Ok(nan)],
    })
    .unwrap();
    assert!(serde_json::from_str::<FromWorker>(&text).is_ok(), "{text}");
}

#[wasm_bindgen_test]
fn fit_compare_sends_small_cdfs_of_the_clis_draw() {
    use crate::workload::hyper_erlang::{fit_classes, synthesize, HyperErlangWorkload};
    let w = HyperErlangWorkload::preset("M3").generate(3).unwrap();
    let classes = fit_classes(&w.jobs, 8);
    let (cmp, synth) = worker::fit_compare(&w.jobs, &classes);
    assert_eq!(cmp.error, None);
    assert_eq!(cmp.original.jobs, w.jobs.len() as u64);
    // The same draw as `gridscope fit` (seed 1, the trace's span).
    let cli = synthesize(&w.jobs, &classes, 1).unwrap();
    assert_eq!(synth.unwrap().workload.jobs, cli.workload.jobs);
    assert_eq!(cmp.synthetic.jobs, cli.workload.jobs.len() as u64);
    for c in [&cmp.original, &cmp.synthetic] {
        for pts in [&c.interarrival_s, &c.runtime_s, &c.procs] {
            assert!(!pts.is_empty() && pts.len() <= 200);
            assert_eq!(pts.last().map(|p| p.1), Some(1.0));
        }
    }
    // Nothing to draw from: the trace's (empty) CDFs and a reason, no panic.
    let (empty, none) = worker::fit_compare(&[], &[]);
    assert!(none.is_none() && empty.error.is_some() && empty.original.jobs == 0);
}

/// A run's result crosses to the page as a typed value, every number to the bit (the
/// worker's `post` and `EngineWorker`'s decoding are this JSON round trip).
#[wasm_bindgen_test]
fn run_results_cross_typed_and_bit_identical() {
    let mut r = demo_report();
    let mut runs = std::mem::take(&mut r.runs);
    for (i, rr) in runs.iter_mut().enumerate() {
        let sent = worker::run_result(i, rr, &r.platform, &r.workload.jobs, 1.5);
        assert!(
            sent.report.outcomes.is_empty(),
            "outcomes stay in the worker"
        );
        assert!(!rr.outcomes.is_empty(), "the worker keeps its outcomes");
        let text = serde_json::to_string(&FromWorker::RunResult(Box::new(sent.clone()))).unwrap();
        let FromWorker::RunResult(got) = serde_json::from_str::<FromWorker>(&text).unwrap() else {
            panic!("not a run result");
        };
        assert_eq!(*got, sent);
        let (a, b) = (&got.report.metrics, &rr.metrics);
        for m in Metric::COLUMNS {
            assert_eq!(m.get(a).to_bits(), m.get(b).to_bits(), "{}", m.key());
        }
        let bits = |v: &[(f64, f64)]| -> Vec<(u64, u64)> {
            v.iter().map(|p| (p.0.to_bits(), p.1.to_bits())).collect()
        };
        assert_eq!(bits(&got.wait_cdf), bits(&sent.wait_cdf));
        assert_eq!(got.label(), rr.label);
    }
}

/// The page's typed columns print the engine's JSON: each `key()` is the serde field name
/// and each value's text is the number `--json` writes; every number of the metrics with a
/// help entry has a column.
#[wasm_bindgen_test]
fn metric_columns_are_the_engines_json_fields() {
    let r = demo_report();
    let m = &r.runs[0].metrics;
    let json = serde_json::to_value(m).unwrap();
    for c in Metric::COLUMNS {
        assert_eq!(json[c.key()].to_string(), c.value(m).json(), "{}", c.key());
        assert!(!c.help().is_empty(), "{} has no help", c.key());
    }
    let numbers: Vec<&String> = json
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, v)| v.is_number())
        .map(|(k, _)| k)
        .collect();
    for k in numbers {
        let has_help = crate::metrics::METRIC_HELP.iter().any(|h| h.key == k);
        let shown = Metric::COLUMNS.iter().any(|c| c.key() == k);
        assert!(!has_help || shown, "metric {k} has help but no column");
    }
}

/// The import report of a dropped file crosses typed too.
#[wasm_bindgen_test]
fn loaded_files_carry_their_typed_import_report() {
    let bytes = b"; MaxProcs: 4\n1 0 -1 10 2 -1 -1 2 20 -1 1 1 -1 -1 -1 -1 -1 -1\n".to_vec();
    let (info, _) = worker::import("t.swf", bytes.clone()).unwrap();
    let report = crate::workload::read_swf("t.swf", &bytes, &Default::default())
        .unwrap()
        .report;
    let msg = FromWorker::Loaded {
        file: info,
        jobs: 1,
        summary: report.summary(),
        report: Box::new(report.clone()),
        site: Some(crate::model::Site::flat("t", 4)),
    };
    let text = serde_json::to_string(&msg).unwrap();
    assert_eq!(serde_json::from_str::<FromWorker>(&text).unwrap(), msg);
}

#[wasm_bindgen_test]
fn every_view_has_its_own_row_and_route() {
    use crate::web::panels::View;
    let routes: Vec<String> = View::all().iter().map(|v| v.route()).collect();
    assert_eq!(routes[0], "#/scheduling");
    assert_eq!(
        routes,
        [
            "#/scheduling",
            "#/sf",
            "#/scjg",
            "#/ses",
            "#/kkor",
            "#/paper",
            "#/cluster"
        ]
    );
    for v in View::all() {
        // Each view finds its own row (the table is in the enum's order) and its route
        // opens it again.
        assert_eq!(View::of_fragment(&v.route()), Some(v));
        assert_eq!(
            v.id(),
            format!("view-{}", v.route().trim_start_matches("#/"))
        );
        assert!(!v.title().is_empty() && !v.about().is_empty() && !v.doc().is_empty());
    }
}

#[wasm_bindgen_test]
fn manifest_links_round_trip_and_open_the_cluster_view() {
    use crate::scenario::manifest::for_scenario;
    use crate::web::panels::View;
    let m = for_scenario(&Scenario::demo());
    let f = share::encode_manifest(&m).unwrap();
    assert!(f.starts_with("m1="));
    assert_eq!(share::decode_manifest(&format!("#{f}")), Ok(Some(m)));
    assert_eq!(View::of_fragment(&format!("#{f}")), Some(View::Cluster));
    assert_eq!(View::of_fragment("#/cluster"), Some(View::Cluster));
    // The older kinds still open where they did; a manifest decoder leaves them alone.
    let s = share::encode(&share::Shared {
        scenario: Scenario::demo(),
        files: vec![],
    })
    .unwrap();
    assert_eq!(View::of_fragment(&format!("#{s}")), Some(View::Scheduling));
    assert_eq!(share::decode_manifest(&s), Ok(None));
}

/// A family view's run as its panel asks for it: the preset and what differs.
fn page_run(
    preset: &str,
    seeds: u64,
    change: impl FnOnce(&mut crate::family::RunSpec),
) -> FamilyRequest {
    let mut spec = crate::family::RunSpec {
        preset: preset.into(),
        seeds: Some(seeds),
        ..Default::default()
    };
    change(&mut spec);
    FamilyRequest::Run { spec, trace: None }
}

#[wasm_bindgen_test]
fn family_views_export_their_sweep_as_a_manifest() {
    use crate::family::RunSpec;
    use crate::reproduce::case;
    use crate::web::panels::family_manifest;
    let kkor = page_run("kkor-load", 4, |s| s.x = Some(vec![0.5, 0.75]));
    let m = family_manifest(&kkor).unwrap();
    let e = case::expand(&m, 100, &mut |_| Err("no glob".into())).unwrap();
    assert_eq!(e.cases.len(), 8);
    assert_eq!(e.cases[7].spec.x, Some(vec![0.75]));
    assert_eq!(e.cases[7].spec.seed, Some(4));
    // The same manifest as the one each family's own request made before the registry
    // (case ids hash its base).
    let base = |preset: &str| RunSpec {
        preset: preset.into(),
        ..RunSpec::default()
    };
    assert_eq!(
        m,
        case::manifest(
            "kkor-load exported from the page",
            base("kkor-load"),
            Some(vec![0.5, 0.75]),
            4
        )
    );
    let changed = page_run("kkor-load", 3, |s| {
        s.coefficients = Some(vec![0.1, 0.2, 0.3]);
        s.batch_jobs = Some(7);
    });
    assert_eq!(
        family_manifest(&changed).unwrap(),
        case::manifest(
            "kkor-load exported from the page",
            RunSpec {
                coefficients: Some(vec![0.1, 0.2, 0.3]),
                batch_jobs: Some(7),
                ..base("kkor-load")
            },
            Some(crate::kkor::presets::LOAD_POINTS.to_vec()),
            3
        )
    );
    // The manifest travels as a link like any other.
    let f = share::encode_manifest(&m).unwrap();
    assert_eq!(share::decode_manifest(&format!("#{f}")), Ok(Some(m)));
    let ses = page_run("ses-selection", 3, |s| {
        s.load_factor = Some(1.5);
        s.site_queue = true;
    });
    let m = family_manifest(&ses).unwrap();
    let e = case::expand(&m, 100, &mut |_| Err("no".into())).unwrap();
    assert_eq!(e.cases.len(), 3);
    assert_eq!(e.cases[0].spec.load_factor, Some(1.5));
    assert!(e.cases[0].spec.site_queue);
    let old = RunSpec {
        load_factor: Some(1.5),
        site_queue: true,
        ..base("ses-selection")
    };
    assert_eq!(
        m,
        case::manifest("ses-selection exported from the page", old, None, 3)
    );
    // SCJG's cases read the presets' trace: a run on another file has no manifest.
    let scjg = |preset: &str, trace: &str| FamilyRequest::Run {
        spec: base(preset),
        trace: Some(trace.into()),
    };
    let trace = crate::scjg::presets::DEFAULT_TRACE;
    let m = family_manifest(&scjg("scjg-fraction", trace)).unwrap();
    assert_eq!(m.traces.as_deref(), Some("traces"));
    assert_eq!(m.axes[0].values.as_ref().map(Vec::len), Some(11));
    let percents = crate::scjg::presets::PresetOptions::default().percents;
    let old = case::manifest(
        "scjg-fraction exported from the page",
        base("scjg-fraction"),
        Some(percents),
        crate::scjg::presets::DEFAULT_SEEDS,
    );
    assert_eq!(m, old);
    let sites = family_manifest(&scjg("scjg-sites", trace)).unwrap();
    assert_eq!(sites.axes[0].values.as_ref().map(Vec::len), Some(4));
    assert!(family_manifest(&scjg("scjg-fraction", "mine.swf"))
        .unwrap_err()
        .contains("and this run read mine.swf"));
    let fairness = page_run("kkor-fairness", 2, |_| {});
    assert!(family_manifest(&fairness)
        .unwrap_err()
        .contains("not a seed sweep over x"));
}

/// `#f1=` links (one request per family, before the registry) open as the same runs:
/// each field becomes the `RunSpec` field of its CLI flag; new links are `#f2=`.
#[wasm_bindgen_test]
fn old_family_links_read_as_registry_runs() {
    use crate::family::RunSpec;
    use crate::scenario::link::pack;
    use serde_json::json;
    let old =
        |v: serde_json::Value| share::decode_family(&format!("#{}", pack("f1=", &v).unwrap()));
    let kkor = old(json!({"family": "kkor", "preset": "kkor-load", "seeds": 4,
        "options": {"loads": [0.5, 0.75], "coefficients": [0.1, 0.2, 0.3], "batch_length": 12.0}}));
    let want = page_run("kkor-load", 4, |s| {
        s.x = Some(vec![0.5, 0.75]);
        s.coefficients = Some(vec![0.1, 0.2, 0.3]);
        s.batch_length = Some(12.0);
    });
    assert_eq!(kkor, Ok(Some(want.clone())));
    // A link made before the options existed.
    let bare = old(json!({"family": "kkor", "preset": "kkor-fairness", "seeds": 2}));
    assert_eq!(bare, Ok(Some(page_run("kkor-fairness", 2, |_| {}))));
    let ses = old(
        json!({"family": "ses", "preset": "ses-restriction-crossover", "seeds": 2,
        "load_factor": 1.5, "shares": [0.2, 0.6]}),
    );
    let want_ses = page_run("ses-restriction-crossover", 2, |s| {
        s.load_factor = Some(1.5);
        s.x = Some(vec![0.2, 0.6]);
    });
    assert_eq!(ses, Ok(Some(want_ses)));
    let scjg =
        old(json!({"family": "scjg", "preset": "scjg-livelock", "seeds": 2, "trace": "t.swf"}));
    assert_eq!(
        scjg,
        Ok(Some(FamilyRequest::Run {
            spec: RunSpec {
                preset: "scjg-livelock".into(),
                seeds: Some(2),
                ..RunSpec::default()
            },
            trace: Some("t.swf".into())
        }))
    );
    let card = old(json!({"family": "reproduce", "papers": ["kkor"], "sensitivity": true}));
    assert_eq!(
        card,
        Ok(Some(FamilyRequest::Card {
            papers: vec!["kkor".into()],
            sensitivity: true,
            trace: None
        }))
    );
    // What the page writes now, and reads back.
    let f = share::encode_family(&want).unwrap();
    assert!(f.starts_with("f2="), "{f}");
    assert_eq!(share::decode_family(&f), Ok(Some(want)));
    assert_eq!(share::decode_family("#/kkor"), Ok(None));
    assert_eq!(share::decode_family("#s1=abc"), Ok(None));
}

/// A family link that cannot open says why, in an alert over the page.
#[wasm_bindgen_test]
fn damaged_family_links_say_what_is_wrong() {
    use crate::scenario::link::pack;
    use crate::web::panels::link_error;
    use serde_json::json;
    for (fragment, want) in [
        ("#f1=not*base64!".to_string(), "damaged"),
        ("#f2=AAAAAAAA".to_string(), "This family link cannot open"),
        ("#f9=abc".to_string(), "family link format 'f9'"),
        (
            format!(
                "#{}",
                pack("f1=", &json!({"family": "nope", "preset": "x"})).unwrap()
            ),
            "does not hold a preset run",
        ),
        (
            format!(
                "#{}",
                pack("f2=", &json!({"run": {"spec": {"preset": "nope"}}})).unwrap()
            ),
            "the preset 'nope', which this version does not know",
        ),
        (
            format!(
                "#{}",
                pack(
                    "f2=",
                    &json!({"run": {"spec": {"preset": "sob-synthetic-light"}}})
                )
                .unwrap()
            ),
            "no family view of this page runs",
        ),
    ] {
        let e = link_error(&fragment).unwrap_or_else(|| panic!("{fragment}: no error"));
        assert!(e.contains(want), "{fragment}: {e}");
    }
    let fine = share::encode_family(&page_run("ses-selection", 2, |_| {})).unwrap();
    assert_eq!(link_error(&fine), None);
    assert_eq!(link_error("#/ses"), None);
}

/// A family view's id is its family's id in the registry (its words, docs page and runs come
/// from there), and every family whose presets are not scenarios has a view: the report
/// card is the one view of its own, SOB's scenario presets run in the scheduling view.
#[wasm_bindgen_test]
fn every_family_tab_is_a_registry_family_and_every_family_has_a_view() {
    use crate::family::FAMILIES;
    use crate::web::panels::FAMILY_TABS;
    for tab in FAMILY_TABS {
        match crate::family::by_id(tab.id) {
            Some(f) => {
                assert_eq!(f.id(), tab.id);
                assert_eq!(tab.title(), f.info().label);
                assert_eq!(tab.about(), f.info().about);
                assert_eq!(format!("docs/{}.md", tab.doc()), f.doc());
            }
            None => assert_eq!(tab.id, "paper", "the tab {} is no registry family", tab.id),
        }
    }
    for f in FAMILIES {
        let tabs = FAMILY_TABS.iter().filter(|t| t.id == f.id()).count();
        let want = usize::from(!f.scenario_presets());
        assert_eq!(tabs, want, "family {} has {tabs} views", f.id());
    }
}
