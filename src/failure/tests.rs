use super::checkpoint::{
    daly_interval, exact_waste, first_order_waste, simulate_waste, young_interval, WasteRun,
};
use super::*;
use crate::rng::SimRng;

fn one_site(nodes: u32) -> Vec<(&'static str, u32)> {
    vec![("cluster", nodes)]
}

#[test]
fn each_distribution_draws_its_mean() {
    let dists = [
        Dist::Exponential { mean: 5.92 },
        Dist::Weibull {
            shape: 0.58,
            scale: 2.18,
        },
        Dist::LogNormal {
            mu: 0.05,
            sigma: 0.5,
        },
        Dist::Gamma {
            shape: 0.38,
            scale: 15.44,
        },
        Dist::Gamma {
            shape: 2.5,
            scale: 3.0,
        },
    ];
    for d in dists {
        d.check("up").expect("valid");
        let mut rng = SimRng::new(7);
        let n = 200_000;
        let (mut sum, mut sum_sq) = (0.0, 0.0);
        for _ in 0..n {
            let x = d.sample(&mut rng);
            assert!(x >= 0.0 && x.is_finite(), "{d:?} drew {x}");
            sum += x;
            sum_sq += x * x;
        }
        let mean = sum / n as f64;
        let se = ((sum_sq / n as f64 - mean * mean) / n as f64).sqrt();
        assert!(
            (mean - d.mean()).abs() < 4.0 * se,
            "{d:?}: drawn mean {mean}, expected {} (se {se})",
            d.mean()
        );
    }
}

#[test]
fn a_bad_parameter_names_its_field() {
    let e = Dist::Weibull {
        shape: -1.0,
        scale: 2.0,
    }
    .check("down")
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "failure model: down.shape must be a positive number, not -1"
    );
    let mut m = FailureModel::preset("lanl05-exp").expect("preset");
    m.unit_s = 0.0;
    assert!(m.check().unwrap_err().to_string().contains("unit_s"));
}

#[test]
fn presets_are_valid_and_in_hours() {
    let names: Vec<&str> = FailureModel::presets().map(|p| p.0).collect();
    assert_eq!(
        names,
        ["lanl05-exp", "lanl05-wbl", "lanl05-logn", "lanl05-gam"]
    );
    for name in names {
        let m = FailureModel::preset(name).expect("preset");
        m.check().expect("valid");
        // LANL nodes: weeks to months between failures, hours to repair.
        assert!(m.mtbf_s() > 86_400.0 && m.mtbf_s() < 1e8, "{name}");
        assert!(m.mttr_s() > 600.0 && m.mttr_s() < 86_400.0 * 10.0, "{name}");
    }
    let exp = FailureModel::preset("lanl05-exp").expect("preset");
    assert!((exp.mtbf_s() - 1779.99 * 3600.0).abs() < 1e-6);
}

#[test]
fn node_streams_are_fixed_and_apart() {
    let m = FailureModel::preset("lanl05-wbl").expect("preset");
    let draw = |site, node| m.draw_up(&mut node_rng(3, site, node));
    assert_eq!(draw(0, 5), draw(0, 5));
    assert_ne!(draw(0, 5), draw(0, 6));
    assert_ne!(draw(0, 5), draw(1, 5));
}

#[test]
fn the_csv_reads_outages_and_names_bad_lines() {
    let sites = one_site(4);
    let nodes = NodeCounts { sites: &sites };
    let text = b"# a comment\nnode,start,end,kind\n2,100,200.5,failure\n0:1,50,60,Maintenance\n\n";
    let (out, report) = read_outages_csv("o.csv", text, &nodes).expect("reads");
    assert_eq!(out.len(), 2);
    assert_eq!(out[0].node, 1);
    assert_eq!(out[0].kind, OutageKind::Maintenance);
    assert_eq!(out[1].end, SimTime::from_secs_f64(200.5));
    assert_eq!(report.summary(), "2 outages (1 failure, 1 maintenance)");
    let cases: &[(&[u8], &str)] = &[
        (b"", "o.csv:1: the file is empty"),
        (b"a,b\n", "o.csv:1: the first line must be the header"),
        (
            b"node,start,end,kind\n9,1,2,failure\n",
            "o.csv:2: node 9 does not exist (site 'cluster' has nodes 0 to 3)",
        ),
        (
            b"node,start,end,kind\n1,5,5,failure\n",
            "o.csv:2: the outage ends at 5 s, not after it starts at 5 s",
        ),
        (
            b"node,start,end,kind\n1,x,5,failure\n",
            "o.csv:2: start 'x' is not a number",
        ),
        (
            b"node,start,end,kind\n1,1,5,broken\n",
            "o.csv:2: kind must be 'failure' or 'maintenance', not 'broken'",
        ),
        (
            b"node,start,end,kind\n1,1,5\n",
            "o.csv:2: expected 4 fields",
        ),
        (
            b"node,start,end,kind\n3:1,1,5,failure\n",
            "o.csv:2: site 3 does not exist",
        ),
    ];
    for (bytes, want) in cases {
        let e = read_outages_csv("o.csv", bytes, &nodes)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with(want), "{e:?} should start with {want:?}");
    }
}

#[test]
fn alea_lines_read_as_alea_reads_them() {
    let sites = vec![("zewura", 8), ("other", 2)];
    let nodes = NodeCounts { sites: &sites };
    let text = b"1000100\tzewura\t3600\t\"1 2 3\"\n1000200\tzewura\t30\t\"4\"\n1000300\tzewura\t7200\n1000400\tother\t600\t1\n";
    let (out, report) = read_alea_failures("m.failures", text, &nodes, 1_000_000).expect("reads");
    assert_eq!(out.len(), 4);
    assert_eq!(out[0].start, SimTime::from_secs(100));
    assert_eq!(out[0].end, SimTime::from_secs(3700));
    assert_eq!(out[3].site, 1);
    assert_eq!(report.skipped_short, 1);
    assert_eq!(report.skipped_info, 1);
    let e = read_alea_failures("m.failures", b"1\tnope\t100\t1\n", &nodes, 0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "m.failures:1: cluster 'nope' is not a site of the platform"
    );
}

/// Batsim's events, as v3/v4 wrote them (`test_events_4hosts.txt`, on two sites of two
/// nodes: machines 0–1 are the first site's, 2–3 the second's) and as Batsim 5's generic
/// events; other generic events are counted and skipped; each bad line is named.
#[test]
fn batsim_events_read_as_batsim_writes_them() {
    let sites = vec![("a", 2), ("b", 2)];
    let nodes = NodeCounts { sites: &sites };
    let text = br#"{"type": "machine_unavailable", "resources": "0", "timestamp" : 0}
{"type": "machine_available", "resources": "0", "timestamp" : 10}
{"type": "machine_unavailable", "resources": "0-1 3", "timestamp" : 20}
{"type": "machine_available", "resources": "0 1", "timestamp" : 250}

{"type": "machine_available", "resources": "3", "timestamp" : 300}
{"type": "generic", "timestamp": 5.5, "data": "some data 5.5"}
{"type": "generic", "timestamp": 400, "data": "{\"type\": \"machine_unavailable\", \"resources\": \"2\", \"kind\": \"maintenance\"}"}
{"type": "generic", "timestamp": 500, "data": "{\"type\": \"machine_available\", \"resources\": \"2\"}"}
"#;
    let (out, report) = read_batsim_events("e.json", text, &nodes).expect("reads");
    let spans: Vec<(u32, u32, i64, i64, OutageKind)> = out
        .iter()
        .map(|o| (o.site, o.node, o.start.0 / 1000, o.end.0 / 1000, o.kind))
        .collect();
    assert_eq!(
        spans,
        [
            (0, 0, 0, 10, OutageKind::Failure),
            (0, 0, 20, 250, OutageKind::Failure),
            (0, 1, 20, 250, OutageKind::Failure),
            (1, 1, 20, 300, OutageKind::Failure),
            (1, 0, 400, 500, OutageKind::Maintenance),
        ]
    );
    assert_eq!(
        report.summary(),
        "5 outages (4 failures, 1 maintenance); 1 other event skipped (not machine availability)"
    );
    let cases: &[(&[u8], &str)] = &[
        (b"{\"type\": 1", "e.json:1: not a JSON object"),
        (
            br#"{"type": "machine_unavailable", "resources": "7", "timestamp": 1}"#,
            "e.json:1: machine 7 does not exist (the platform's nodes are machines 0 to 3)",
        ),
        (
            br#"{"type": "machine_unavailable", "resources": "1", "timestamp": 1}"#,
            "e.json:1: machine 1 is made unavailable here and never available again",
        ),
        (
            br#"{"type": "machine_available", "resources": "1", "timestamp": 1}"#,
            "e.json:1: machine 1 is made available but was not unavailable",
        ),
        (
            b"{\"type\": \"machine_unavailable\", \"resources\": \"1\", \"timestamp\": 1}\n{\"type\": \"machine_unavailable\", \"resources\": \"0-1\", \"timestamp\": 2}\n",
            "e.json:2: machine 1 is made unavailable again; it has been since line 1",
        ),
        (
            br#"{"type": "machine_unavailable", "resources": "3-1", "timestamp": 1}"#,
            "e.json:1: the range '3-1' ends before it starts",
        ),
        (
            br#"{"type": "machine_unavailable", "resources": "1"}"#,
            "e.json:1: the event has no numeric 'timestamp'",
        ),
        (
            br#"{"type": "reboot", "resources": "1", "timestamp": 1}"#,
            "e.json:1: type 'reboot' is not machine_unavailable, machine_available or generic",
        ),
    ];
    for (bytes, want) in cases {
        let e = read_batsim_events("e.json", bytes, &nodes)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with(want), "{e:?} should start with {want:?}");
    }
}

#[test]
fn daly_refines_young() {
    let (c, m) = (60.0, 86_400.0);
    let young = young_interval(c, m);
    assert!((young - (2.0f64 * 60.0 * 86_400.0).sqrt()).abs() < 1e-9);
    let daly = daly_interval(c, m);
    // Daly's interval is Young's, corrected by less than C.
    assert!((daly - young).abs() < c, "young {young}, daly {daly}");
    assert_eq!(daly_interval(300.0, 100.0), 100.0);
}

/// The drawn overhead of a checkpointing job matches Young's first-order waste
/// `C/τ + τ/(2M)` within the draw's 99.7 % confidence interval, where the first-order
/// formula holds (C ≪ τ ≪ M), and the exact expectation everywhere.
#[test]
fn drawn_waste_matches_the_first_order_formula() {
    for (tau, mtbf, cost) in [
        (4_472.0, 1e6, 10.0),
        (2_000.0, 1e6, 5.0),
        (10_000.0, 4e6, 20.0),
    ] {
        let run = WasteRun {
            interval_s: tau,
            cost_s: cost,
            restart_s: 0.0,
            mtbf_s: mtbf,
            segments: 100,
            jobs: 4_000,
            seed: 11,
        };
        let w = simulate_waste(&run);
        let first = first_order_waste(tau, cost, mtbf);
        let exact = exact_waste(tau, cost, mtbf);
        assert!(w.failures > 100, "too few failures drawn: {}", w.failures);
        assert!(
            (w.mean - first).abs() < 3.0 * w.std_err,
            "τ {tau}, M {mtbf}: drawn {} ± {}, first order {first}",
            w.mean,
            w.std_err
        );
        assert!((w.mean - exact).abs() < 3.0 * w.std_err, "exact {exact}");
    }
}

#[test]
fn youngs_interval_wastes_least_of_those_tried() {
    let (cost, mtbf) = (10.0, 1e6);
    let young = young_interval(cost, mtbf);
    let waste = |tau: f64| {
        simulate_waste(&WasteRun {
            interval_s: tau,
            cost_s: cost,
            restart_s: 0.0,
            mtbf_s: mtbf,
            segments: (400.0 * young / tau) as u32,
            jobs: 2_000,
            seed: 5,
        })
        .mean
    };
    let at_young = waste(young);
    for factor in [0.25, 0.5, 2.0, 4.0] {
        let other = waste(young * factor);
        assert!(
            at_young < other,
            "τ = {factor}·Young wastes {other}, Young's {at_young}"
        );
    }
}
