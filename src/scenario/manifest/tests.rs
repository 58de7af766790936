//! The manifest's ranges, paths, export and the page's overview.

use super::expand::range_values;
use super::*;

#[test]
fn ranges_count_without_drift_and_stay_whole() {
    let r = Range {
        from: 0.0,
        to: 1.0,
        step: 0.1,
    };
    let v = range_values(&r, 100).unwrap_or_default();
    assert_eq!(v.len(), 11);
    assert_eq!(v[10], Value::from(1.0));
    let seeds = Range {
        from: 1.0,
        to: 3.0,
        step: 1.0,
    };
    assert_eq!(
        range_values(&seeds, 100).unwrap_or_default(),
        [Value::from(1u64), Value::from(2u64), Value::from(3u64)]
    );
    assert!(range_values(&seeds, 2).is_err());
}

#[test]
fn paths_set_fields_or_say_what_is_missing() {
    let mut v = serde_json::json!({"a": {"b": [1, {"c": 2}]}});
    assert!(set_path(&mut v, "a.b[1].c", Value::from(3)).is_ok());
    assert!(set_path(&mut v, "a.b[1].new", Value::from(4)).is_ok());
    assert_eq!(v, serde_json::json!({"a": {"b": [1, {"c": 3, "new": 4}]}}));
    let e = set_path(&mut v, "a.x.c", Value::Null).unwrap_err();
    assert_eq!(e, "a.x does not exist (there: b)");
    let e = set_path(&mut v, "a.b[5]", Value::Null).unwrap_err();
    assert_eq!(e, "a.b[5] does not exist (the list has 2)");
    assert!(set_path(&mut v, "a..b", Value::Null).is_err());
    assert!(set_path(&mut v, "a.b[x]", Value::Null).is_err());
}

#[test]
fn a_scenario_exports_as_one_case_and_travels_as_a_link() {
    let mut s = Scenario::demo();
    s.seed = 7;
    let m = for_scenario(&s);
    let link = to_link(&m).unwrap();
    assert!(link.starts_with(LINK_PREFIX));
    let back = from_link_fragment(&format!("#{link}"));
    assert_eq!(back, Ok(Some(m.clone())));
    // Text of the manifest reads back as the same manifest.
    let text = serde_json::to_string_pretty(&m).unwrap_or_default();
    assert_eq!(Manifest::from_json(&text), Ok(m.clone()));
    let o = overview(&m, 100, 1 << 20).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(o.expansion.cases.len(), 1);
    assert_eq!(o.expansion.cases[0].scenario, s);
    assert_eq!(o.expansion.seed_axis, Some(0));
    assert_eq!(o.job_runs, s.expected_job_runs());
    assert!(o.files.is_empty());
    // Other links are not manifests; a damaged one says so.
    assert_eq!(from_link_fragment("#s1=abc"), Ok(None));
    assert!(from_link_fragment("#m1=!!").is_err());
}

#[test]
fn the_page_overview_refuses_what_needs_files() {
    let m = Manifest::from_json(
        r#"{"base": {"file": "base.json"}, "axes": [{"path": "seed", "values": [1]}]}"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let e = overview(&m, 10, 1 << 20)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        e.starts_with("base.file: the page cannot read base.json"),
        "{e}"
    );
    let m = Manifest::from_json(
        r#"{"base": {"preset": "demo"}, "axes": [{"path": "workload.file", "glob": "t/*.swf"}]}"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let e = overview(&m, 10, 1 << 20)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(e.contains("cannot list t/*.swf"), "{e}");
    // Copies of the base are bounded by bytes as well as by count.
    let m = Manifest::from_json(
        r#"{"base": {"preset": "demo"}, "axes": [{"path": "seed", "range": {"from": 1, "to": 1000}}]}"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(overview(&m, 10_000, 1 << 20).is_ok());
    let e = overview(&m, 10_000, 100_000)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        e.starts_with("axes[0].range: 1000 values, more than"),
        "{e}"
    );
}
