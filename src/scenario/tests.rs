//! The scenario format's strictness (unknown fields are refused) and the cost estimate
//! that decides when the page asks before a run.

mod unknown_fields {
    use super::super::*;
    use crate::engine::EventOrder;

    fn scenario_with(key: &str, value: &str) -> String {
        let mut doc: serde_json::Value = serde_json::from_str(
            r#"{"version":1,"platform":{"kind":"from_trace"},"workload":{"kind":"ses_poisson"},"algorithms":[{"local":"easy"}]}"#,
        )
        .unwrap();
        doc[key] = serde_json::from_str(value).unwrap();
        doc.to_string()
    }

    #[test]
    fn a_misspelt_field_is_refused_with_the_nearest_name() {
        for (key, value, near) in [
            (
                "option",
                r#"{"estimates":"exact","kill_at_estimate":true}"#,
                "options",
            ),
            (
                "platform",
                r#"{"kind":"sites","name":"g","sites":[{"name":"a","nodes":4,"cpus_per_nod":1}]}"#,
                "cpus_per_node",
            ),
            ("workload", r#"{"kind":"ses_poisson","job":10}"#, "jobs"),
            (
                "algorithms",
                r#"[{"local":"easy","grid_params":{"phi":60}}]"#,
                "phi_s",
            ),
        ] {
            let e = Scenario::from_json(&scenario_with(key, value))
                .unwrap_err()
                .to_string();
            assert!(e.contains("unknown field"), "{e}");
            assert!(e.contains(&format!("did you mean `{near}`?")), "{e}");
        }
        // Every scenario the project ships still reads.
        for (name, _) in SCENARIO_PRESETS {
            let s = Scenario::preset(name).unwrap();
            assert_eq!(Scenario::from_json(&s.to_json()).unwrap(), s);
        }
    }

    /// `options.event_order`: absent reads as gridscope and gridscope is left out of the
    /// JSON (older files and links keep their bytes); the others round-trip; a bad name is
    /// refused with the valid ones.
    #[test]
    fn event_order_is_an_option_older_files_lack() {
        let plain = Scenario::from_json(&scenario_with(
            "options",
            r#"{"estimates":"trace","kill_at_estimate":true}"#,
        ))
        .unwrap();
        assert_eq!(plain.options.event_order, EventOrder::Gridscope);
        assert!(!plain.to_json().contains("event_order"));
        for order in [EventOrder::Pyss, EventOrder::Cqsim] {
            let text = scenario_with(
                "options",
                &format!(
                    r#"{{"estimates":"trace","kill_at_estimate":true,"event_order":"{}"}}"#,
                    order.name()
                ),
            );
            let s = Scenario::from_json(&text).unwrap();
            assert_eq!(s.options.event_order, order);
            assert_eq!(Scenario::from_json(&s.to_json()).unwrap(), s);
        }
        let e = Scenario::from_json(&scenario_with(
            "options",
            r#"{"estimates":"trace","kill_at_estimate":true,"event_order":"slurm"}"#,
        ))
        .unwrap_err()
        .to_string();
        assert!(e.contains("pyss") && e.contains("cqsim"), "{e}");
    }

    /// An `options` object that names only some fields gives the others their defaults
    /// (it once had to name `estimates` and `kill_at_estimate` to set `event_order`).
    #[test]
    fn options_fields_left_out_take_their_defaults() {
        let empty = Scenario::from_json(&scenario_with("options", "{}")).unwrap();
        assert_eq!(empty.options, RunConfig::default());
        let pyss =
            Scenario::from_json(&scenario_with("options", r#"{"event_order":"pyss"}"#)).unwrap();
        assert_eq!(pyss.options.event_order, EventOrder::Pyss);
        assert_eq!(pyss.options.estimates, RunConfig::default().estimates);
        assert!(pyss.options.kill_at_estimate);
        let exact =
            Scenario::from_json(&scenario_with("options", r#"{"estimates":"exact"}"#)).unwrap();
        assert!(exact.options.kill_at_estimate);
        assert_ne!(exact.options.estimates, RunConfig::default().estimates);
    }
}

mod cost_tests {
    use super::super::*;

    #[test]
    fn every_bundled_preset_runs_unasked_and_a_big_generator_asks() {
        for (n, _) in SCENARIO_PRESETS {
            let s = Scenario::preset(n).unwrap();
            let cost = s.expected_job_runs().unwrap_or(0.0);
            assert!(cost < CONFIRM_ABOVE_JOB_RUNS / 10.0, "{n}: {cost}");
        }
        let mut s = Scenario::demo();
        if let WorkloadSpec::SesPoisson(g) = &mut s.workload {
            g.jobs = 5_000_000;
        }
        assert_eq!(s.expected_job_runs(), Some(25_000_000.0));
    }
}

/// Scenario version 2 made `conservative` mean compression; files and links of version 1
/// keep their schedules (and their run names).
mod versions {
    use super::super::*;

    fn v(version: u32, algorithms: &str) -> String {
        format!(
            r#"{{"version":{version},"platform":{{"kind":"from_trace"}},"workload":{{"kind":"ses_poisson"}},"algorithms":{algorithms}}}"#
        )
    }

    #[test]
    fn a_version_1_conservative_runs_the_rebuild_under_its_old_name() {
        let s = Scenario::from_json(&v(
            1,
            r#"[{"local":"conservative"},{"label":"cbf","local":"cbf"},{"local":"conservative","grid":"sender"},{"local":"easy"}]"#,
        ))
        .unwrap();
        assert_eq!(s.version, SCENARIO_VERSION);
        let got: Vec<(LocalPolicyKind, String)> =
            s.algorithms.iter().map(|a| (a.local, a.label())).collect();
        assert_eq!(
            got,
            [
                (LocalPolicyKind::ConservativeRebuild, "conservative".into()),
                (LocalPolicyKind::ConservativeRebuild, "cbf".into()),
                (
                    LocalPolicyKind::ConservativeRebuild,
                    "sender+conservative".into()
                ),
                (LocalPolicyKind::Easy, "easy".into()),
            ]
        );
        // Written again, it says what it runs, so it reads back the same.
        assert_eq!(Scenario::from_json(&s.to_json()).unwrap(), s);
    }

    #[test]
    fn version_2_conservative_is_compression_and_newer_versions_are_refused() {
        let s = Scenario::from_json(&v(2, r#"[{"local":"conservative"}]"#)).unwrap();
        assert_eq!(s.algorithms[0].local, LocalPolicyKind::Conservative);
        assert_eq!(s.algorithms[0].label, None);
        let s = Scenario::from_json(&v(2, r#"[{"local":"conservative-rebuild"}]"#)).unwrap();
        assert_eq!(s.algorithms[0].local, LocalPolicyKind::ConservativeRebuild);
        for bad in [0, NEWEST_SCENARIO_VERSION + 1] {
            let e = Scenario::from_json(&v(bad, r#"[{"local":"easy"}]"#)).unwrap_err();
            assert!(
                matches!(e, ScenarioError::UnsupportedVersion { found, .. } if found == bad),
                "{e}"
            );
        }
    }

    /// A Lublin workload drawing GPU or memory jobs is version 7, written only when it
    /// does: the presets that do read back the same, a plain Lublin keeps version 2 and its
    /// bytes, and a file saying an older version with the fields is refused naming 7.
    #[test]
    fn generated_gpu_and_memory_jobs_make_version_7() {
        let gpu = Scenario::preset("gpu-cluster").unwrap();
        assert_eq!(gpu.version, crate::scenario::DEMANDS_VERSION);
        let text = gpu.to_json();
        assert!(text.contains("\"gpu_share\": 0.5"), "{text}");
        assert_eq!(Scenario::from_json(&text).unwrap(), gpu);
        let older = text.replace("\"version\": 7", "\"version\": 6");
        let e = Scenario::from_json(&older).unwrap_err().to_string();
        assert!(e.contains("came in scenario version 7"), "{e}");
        let mut plain = gpu.clone();
        if let WorkloadSpec::Lublin(g) = &mut plain.workload {
            g.gpu_share = 0.0;
        }
        assert_eq!(
            plain.clone().upgrade().version,
            7,
            "gpus_per_job 2 is still written"
        );
        if let WorkloadSpec::Lublin(g) = &mut plain.workload {
            g.gpus_per_job = 1;
        }
        plain.platform = PlatformSpec::Preset {
            name: "demo".into(),
        };
        let plain = plain.upgrade();
        assert_eq!(plain.version, SCENARIO_VERSION);
        assert!(!plain.to_json().contains("gpus_"), "{}", plain.to_json());
    }

    /// The grid's carbon is version 6, written only when there: a scenario with it reads
    /// back the same, and the synthetic curve holds each hour's value (the sines of
    /// `libm`, the same bits natively and in wasm).
    #[test]
    fn a_carbon_intensity_makes_version_6() {
        use crate::scenario::carbon::{CarbonSpec, DailyCurve};
        let mut s = Scenario::from_json(&v(2, r#"[{"local":"easy"}]"#)).unwrap();
        assert_eq!(s.version, 2);
        s.carbon = Some(CarbonSpec::Daily(DailyCurve::DEFAULT));
        let s = s.upgrade();
        assert_eq!(s.version, crate::scenario::CARBON_VERSION);
        assert_eq!(Scenario::from_json(&s.to_json()).unwrap(), s);
        let c = DailyCurve::DEFAULT;
        assert_eq!(c.at_hour(0), 300.0);
        assert!(
            (c.at_hour(6) - (450.0 + 50.0 * (std::f64::consts::TAU * 6.0 / 168.0).sin())).abs()
                < 1e-9
        );
        let series = c.series(crate::time::SimTime::from_secs(7200 + 1));
        assert_eq!(series.pieces.len(), 3);
        assert_eq!(
            series.pieces[2].end,
            crate::time::SimTime::from_secs(3 * 3600)
        );
    }
}

mod limits {
    use super::super::*;

    fn scenario(platform: &str, workload: &str) -> Scenario {
        serde_json::from_str(&format!(
            r#"{{"version":2,"platform":{platform},"workload":{workload},"algorithms":[{{"local":"easy"}}]}}"#
        ))
        .unwrap()
    }

    fn sites(n: usize) -> String {
        let one = r#"{"name":"s","nodes":4,"cpus_per_node":1}"#;
        format!(
            r#"{{"kind":"sites","name":"wide","sites":[{}]}}"#,
            vec![one; n].join(",")
        )
    }

    #[test]
    fn a_description_past_a_limit_is_refused_before_anything_is_built_from_it() {
        let l = Limits::default();
        let ok = scenario(&sites(4096), r#"{"kind":"ses_poisson"}"#);
        assert_eq!(ok.check_limits(&l), Ok(()));
        let wide = scenario(&sites(12_000), r#"{"kind":"ses_poisson"}"#);
        let e = wide.check_limits(&l).unwrap_err();
        assert_eq!(
            (e.limit, e.context.as_str()),
            (Limit::Sites, "platform 'wide'")
        );
        let files = format!(
            r#"{{"kind":"swf_sites","files":[{}]}}"#,
            vec![r#""a.swf""#; 5000].join(",")
        );
        let e = scenario(r#"{"kind":"from_trace"}"#, &files)
            .check_limits(&l)
            .unwrap_err();
        assert_eq!(e.limit, Limit::Sites);
        let many = scenario(
            r#"{"kind":"from_trace"}"#,
            r#"{"kind":"lublin","jobs":4000000000}"#,
        );
        assert_eq!(many.check_limits(&l).unwrap_err().limit, Limit::Jobs);
        let mut tight = l;
        tight.jobs = 1999;
        let demo = Scenario::demo();
        assert_eq!(demo.check_limits(&tight).unwrap_err().limit, Limit::Jobs);
        assert_eq!(demo.check_limits(&l), Ok(()));
    }
}
