//! Every real trace in ../shared/traces: read with the job counts of its README, simulated
//! under EASY (invariants checked by every run) or diagnosed clearly when it is not SWF.

use gridscope::policy::local::LocalPolicyKind;
use gridscope::scenario::{run_loaded, AlgorithmSpec, PlatformSpec, Scenario, WorkloadSpec};
use gridscope::workload::{read_swf, SwfOptions, Workload};

use crate::trace;

/// (file, job lines per the traces' README).
const TRACES: &[(&str, u64)] = &[
    ("RICC-2010-2.swf.gz", 447_794),
    ("CEA-Curie-2011-2.1-cln.swf.gz", 312_826),
    ("SDSC-BLUE-2000-4.2-cln.swf.gz", 243_306),
    ("LPC-EGEE-2004-1.2-cln.swf.gz", 234_889),
    ("HPC2N-2002-2.2-cln.swf.gz", 202_871),
    ("LCG.swf.gz", 188_041),
    ("LANL-CM5-1994-4.1-cln.swf.gz", 122_060),
    ("LLNL-Thunder-2007-1.1-cln.swf.gz", 121_039),
    ("METACENTRUM-2009-2.swf.gz", 103_656),
    ("SDSC-DS-2004-2.1-cln.swf.gz", 96_069),
    ("CTC-SP2-1996-3.1-cln.swf.gz", 77_222),
    ("SDSC-SP2-1998-4.2-cln.swf.gz", 59_715),
    ("Sandia-Ross-2001-1.1-cln.swf.gz", 57_882),
    ("LLNL-Atlas-2006-2.1-cln.swf.gz", 43_778),
    ("DAS2-fs1-2003-1.swf.gz", 40_315),
    ("OSC-Clust-2000-3.1-cln.swf.gz", 36_097),
    ("SDSC-Par-1996-3.1-cln.swf.gz", 32_135),
    ("KTH-SP2-1996-2.1-cln.swf.gz", 28_476),
    ("NASA-iPSC-1993-3.1-cln.swf.gz", 18_239),
    ("alea-wagap-2013.swf.gz", 17_900),
    ("lublin-aaroh.swf.gz", 10_000),
    ("lublin_256.swf.gz", 10_000),
    ("lublin_256_new2.swf.gz", 10_000),
    ("alea-hpc2n.swf.gz", 3_170),
    ("NASA-iPSC-1993-3.swf.gz", 228),
];

fn load(name: &str) -> Workload {
    let bytes = std::fs::read(trace(name)).unwrap();
    read_swf(name, &bytes, &SwfOptions::default()).unwrap()
}

fn scenario(name: &str, policies: &[LocalPolicyKind]) -> Scenario {
    Scenario {
        failures: None,
        carbon: None,
        version: gridscope::scenario::SCENARIO_VERSION,
        name: name.into(),
        seed: 0,
        platform: PlatformSpec::FromTrace { procs: None },
        workload: WorkloadSpec::Swf {
            file: name.into(),
            strict: false,
            format: Default::default(),
            utc_offset_min: 0,
        },
        algorithms: policies.iter().map(|&k| AlgorithmSpec::local(k)).collect(),
        options: Default::default(),
    }
}

#[test]
fn every_trace_is_read_and_accounted_for() {
    for &(name, lines) in TRACES {
        let w = load(name);
        let r = &w.report;
        assert_eq!(r.records + r.malformed, lines, "{name}: job lines");
        assert_eq!(
            r.records,
            r.jobs + r.skipped_total,
            "{name}: records = jobs + skipped"
        );
        assert_eq!(r.jobs as usize, w.jobs.len(), "{name}");
        assert!(
            w.jobs.windows(2).all(|p| p[0].submit <= p[1].submit),
            "{name}: jobs sorted"
        );
    }
}

#[test]
fn every_swf_trace_simulates_under_easy_with_invariants() {
    for &(name, _) in TRACES {
        let w = load(name);
        if w.jobs.is_empty() {
            continue;
        }
        let records = w.report.records;
        let report = run_loaded(
            &scenario(name, &[LocalPolicyKind::Easy]),
            w,
            &mut |_, _, _| true,
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        let m = &report.runs[0].metrics;
        assert_eq!(
            m.jobs_finished + m.jobs_rejected + m.jobs_skipped,
            records,
            "{name}"
        );
        assert!(
            m.utilization > 0.0 && m.utilization <= 1.0,
            "{name}: utilization {}",
            m.utilization
        );
    }
}

#[test]
fn non_swf_file_is_diagnosed_not_simulated() {
    let w = load("alea-wagap-2013.swf.gz");
    assert_eq!(w.jobs.len(), 0);
    assert_eq!(w.report.malformed, 17_900);
    assert!(
        w.report.warnings[0].contains("21 fields"),
        "{:?}",
        w.report.warnings
    );
    let err = run_loaded(
        &scenario("alea-wagap-2013.swf.gz", &[LocalPolicyKind::Easy]),
        w,
        &mut |_, _, _| true,
    )
    .unwrap_err();
    assert!(err.to_string().contains("no runnable job"), "{err}");
}

#[test]
fn truncated_files_are_flagged() {
    for name in ["alea-hpc2n.swf.gz", "NASA-iPSC-1993-3.swf.gz"] {
        let w = load(name);
        assert!(
            w.report.warnings.iter().any(|m| m.contains("truncated")),
            "{name}: {:?}",
            w.report.warnings
        );
    }
    // A cleaned log whose header lists the removed jobs is not truncated.
    let w = load("LLNL-Thunder-2007-1.1-cln.swf.gz");
    assert!(!w.report.warnings.iter().any(|m| m.contains("truncated")));
    assert_eq!(w.report.skipped.submit_unknown, 1_190);
}

#[test]
fn known_trace_quirks_are_counted() {
    let ctc = load("CTC-SP2-1996-3.1-cln.swf.gz");
    assert_eq!(ctc.report.procs_from_requested, 0, "CTC uses field 5");
    let meta = load("METACENTRUM-2009-2.swf.gz");
    assert_eq!(meta.report.header_lines, 0);
    assert_eq!(meta.report.estimate_missing, meta.report.jobs);
}

#[test]
fn all_policies_on_mid_size_traces() {
    for name in [
        "SDSC-SP2-1998-4.2-cln.swf.gz",
        "KTH-SP2-1996-2.1-cln.swf.gz",
    ] {
        let w = load(name);
        let report = run_loaded(&scenario(name, &LocalPolicyKind::ALL), w, &mut |_, _, _| {
            true
        })
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        let by = |k: &str| {
            report
                .runs
                .iter()
                .find(|r| r.algorithm == k)
                .unwrap()
                .metrics
                .avg_wait_s
        };
        // Backfilling beats strict FCFS on real traces by a wide margin.
        assert!(by("easy") < by("fcfs") / 2.0, "{name}");
        assert!(by("conservative") < by("fcfs") / 2.0, "{name}");
    }
}

#[test]
fn gzip_and_plain_read_the_same() {
    let gz = std::fs::read(trace("KTH-SP2-1996-2.1-cln.swf.gz")).unwrap();
    let mut plain = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gz[..]), &mut plain).unwrap();
    let a = read_swf("kth", &gz, &SwfOptions::default()).unwrap();
    let b = read_swf("kth", &plain, &SwfOptions::default()).unwrap();
    assert_eq!(a.jobs, b.jobs);
    assert_eq!(a.report.records, b.report.records);
}

#[test]
fn writer_round_trips_what_the_reader_accepts() {
    let w = load("SDSC-SP2-1998-4.2-cln.swf.gz");
    let text = gridscope::workload::write_swf(&w, &w.report.header);
    let back = read_swf(
        "again",
        text.as_bytes(),
        &SwfOptions {
            strict: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(back.jobs, w.jobs);
    assert_eq!(back.origin, w.origin);
    assert_eq!(back.report.skipped_total, 0);
}

#[test]
fn cut_gzip_keeps_the_jobs_before_the_cut_and_says_so() {
    let gz = std::fs::read(trace("KTH-SP2-1996-2.1-cln.swf.gz")).unwrap();
    let cut = &gz[..300_000];
    let w = read_swf("cut.gz", cut, &SwfOptions::default()).unwrap();
    assert!(w.jobs.len() > 10_000, "{}", w.jobs.len());
    assert!(
        w.report
            .warnings
            .iter()
            .any(|m| m.contains("gzip data is damaged or truncated")),
        "{:?}",
        w.report.warnings
    );
    let strict = read_swf(
        "cut.gz",
        cut,
        &SwfOptions {
            strict: true,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(
        strict
            .to_string()
            .contains("cut.gz: gzip data is damaged or truncated"),
        "{strict}"
    );
}
