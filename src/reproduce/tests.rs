use super::*;
use serde_json::json;

#[test]
fn every_claim_file_parses_and_names_runs_that_exist() {
    let files = claim_files(&[]).unwrap();
    assert_eq!(files.len(), 5);
    let claims: usize = files.iter().map(|f| f.claims.len()).sum();
    assert!(claims >= 40, "{claims} claims");
    for f in &files {
        for run in f.runs.values() {
            // Every run names a preset the library knows.
            let known = crate::allocation::sweep::sweep_preset(&run.preset).is_some()
                || crate::kkor::presets::KKOR_PRESETS
                    .iter()
                    .any(|p| p.0 == run.preset)
                || crate::scjg::presets::SCJG_PRESETS
                    .iter()
                    .any(|p| p.0 == run.preset)
                || run.preset.starts_with("ses-")
                || crate::scenario::Scenario::preset(&run.preset).is_some();
            assert!(known, "{}: unknown preset {}", f.paper, run.preset);
        }
    }
}

#[test]
fn an_unknown_paper_is_refused_by_name() {
    let e = claim_files(&["sbo".into()]).unwrap_err();
    assert!(
        e.contains("unknown paper 'sbo'") && e.contains("sob"),
        "{e}"
    );
}

fn claim(paper: Option<f64>, tolerance: serde_json::Value) -> Claim {
    serde_json::from_value(json!({
        "id": "x", "figure": "Fig. 1", "section": "§1", "claim": "c", "paper": paper,
        "paper_text": "p", "run": "r", "ours": "v", "tolerance": tolerance, "doc": "d"
    }))
    .unwrap()
}

#[test]
fn verdicts_follow_the_tolerance_written_beside_the_claim() {
    let c = claim(Some(5.9), json!({"rel": 0.2, "trend": {"above": 1}}));
    assert_eq!(verdict(&c, 5.0), Verdict::Reproduced); // 15 % off
    assert_eq!(verdict(&c, 4.5), Verdict::Trend); // 24 % off, right side of 1
    assert_eq!(verdict(&c, 0.9), Verdict::NotReproduced);
    let c = claim(Some(0.41), json!({"abs": 0.05}));
    assert_eq!(verdict(&c, 0.37), Verdict::Reproduced);
    assert_eq!(verdict(&c, 0.35), Verdict::NotReproduced);
    let c = claim(None, json!({"expect": {"below": 0.1}}));
    assert_eq!(verdict(&c, 0.04), Verdict::Reproduced);
    assert_eq!(verdict(&c, 0.1), Verdict::NotReproduced);
}

#[test]
fn the_card_reads_each_claim_from_its_run_and_says_why_a_run_is_missing() {
    let file: ClaimFile = serde_json::from_value(json!({
        "paper": "t", "title": "T", "doc": "t.md",
        "runs": {"a": {"preset": "demo"}, "b": {"preset": "demo", "seeds": 2}},
        "claims": [
            {"id": "one", "figure": "F", "section": "§", "claim": "c", "paper": 2.0, "paper_text": "2",
             "run": "a", "reading": "b", "ours": {"div": ["x", "y"]}, "tolerance": {"rel": 0.1}, "doc": "d"},
            {"id": "two", "figure": "F", "section": "§", "claim": "c", "paper_text": "-", "doc": "d"}
        ]
    }))
    .unwrap();
    check(&file).unwrap();
    let card = card(&[file], &mut |_, key| match key {
        "a" => Ok(json!({"x": 4.0, "y": 2.0})),
        _ => Err("needs trace T.swf".into()),
    });
    let one = &card.rows[0];
    assert_eq!(one.default.ours, Some(2.0));
    assert_eq!(one.default.verdict, Verdict::Reproduced);
    let reading = one.reading.as_ref().unwrap();
    assert_eq!(
        (reading.verdict, reading.error.as_str()),
        (Verdict::NotRun, "needs trace T.swf")
    );
    assert_eq!(card.rows[1].default.verdict, Verdict::NotModelled);
    assert_eq!(card.summary["reproduced"].best, 1);
    assert!(markdown(&card, "t").contains("| c | F § | 2 | 2.00 | reproduced |"));
}

#[test]
fn a_claim_with_a_run_but_no_tolerance_is_refused() {
    let file: ClaimFile = serde_json::from_value(json!({
        "paper": "t", "title": "T", "doc": "t.md", "runs": {"a": {"preset": "demo"}},
        "claims": [{"id": "one", "figure": "F", "section": "§", "claim": "c", "paper_text": "2",
                    "run": "a", "ours": "x", "doc": "d"}]
    }))
    .unwrap();
    let e = check(&file).unwrap_err();
    assert!(e.contains("claim one") && e.contains("expect"), "{e}");
}

#[test]
fn a_run_spec_sets_fields_of_every_algorithm_and_names_a_field_that_is_not_there() {
    let spec: RunSpec = serde_json::from_value(json!({
        "preset": "demo", "set": {"algorithms[*].local": "fcfs"}, "grid_params": {"epsilon_s": 0}
    }))
    .unwrap();
    let mut no_trace = |name: &str| Err(format!("no {name}"));
    let report = runs::run(&spec, 1, &mut no_trace, &mut |_, _| true).unwrap();
    let algorithms: Vec<&str> = report["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["algorithm"].as_str().unwrap())
        .collect();
    assert!(
        algorithms.len() > 1 && algorithms.iter().all(|a| *a == "fcfs"),
        "{algorithms:?}"
    );
    assert!(
        spec.command()
            .contains("(with grid_params.epsilon_s = 0, algorithms[*].local = \"fcfs\")"),
        "{}",
        spec.command()
    );
    let bad: RunSpec =
        serde_json::from_value(json!({"preset": "sf-cv", "sweep": {"dispatchh": "rounded"}}))
            .unwrap();
    let e = runs::run(&bad, 1, &mut no_trace, &mut |_, _| true).unwrap_err();
    assert!(e.contains("no field 'dispatchh'"), "{e}");
}

/// Issue #38: a value outside the tolerance on the paper's side is told with its size, so a
/// 3× gap never reads as a mere "trend"; the JSON keeps `trend` as the verdict's name.
#[test]
fn a_gap_on_the_papers_side_is_told_with_its_size() {
    let c = claim(Some(1.1), json!({"rel": 0.1, "trend": {"above": 1}}));
    let r = judged(&c, "r".into(), String::new(), Ok(3.08));
    assert_eq!(r.verdict, Verdict::Trend);
    assert_eq!(r.verdict_text, "same direction, larger by ×2.80");
    assert_eq!(
        r.because,
        "outside ±10 % of the paper's, but above 1 (the paper's side)"
    );
    assert_eq!(serde_json::to_value(&r).unwrap()["verdict"], "trend");
    let c = claim(Some(5.9), json!({"rel": 0.2, "trend": {"above": 1}}));
    let r = judged(&c, "r".into(), String::new(), Ok(3.27));
    assert_eq!(r.verdict_text, "same direction, smaller by ×1.80");
    let r = judged(&c, "r".into(), String::new(), Ok(5.0));
    assert_eq!(
        (r.verdict_text.as_str(), r.because.as_str()),
        ("reproduced", "within ±20 % of the paper's")
    );
    let r = judged(&c, "r".into(), String::new(), Ok(0.5));
    assert_eq!(
        (r.verdict_text.as_str(), r.because.as_str()),
        (
            "not reproduced",
            "outside ±20 % of the paper's, not even above 1"
        )
    );
    // A direction claim with no paper value: the bound it fell short of.
    let c = claim(
        None,
        json!({"expect": {"above": 1.1}, "trend": {"above": 1}}),
    );
    let r = judged(&c, "r".into(), String::new(), Ok(1.05));
    assert_eq!(r.verdict_text, "same direction, short of above 1.1");
    assert_eq!(r.because, "not above 1.1, but above 1 (the paper's side)");
    let r = judged(&c, "r".into(), String::new(), Ok(1.2));
    assert_eq!(r.because, "the stated direction holds (above 1.1)");
    let r = judged(
        &c,
        "r".into(),
        String::new(),
        Err("needs the trace X".into()),
    );
    assert_eq!(
        (r.verdict_text.as_str(), r.because.as_str()),
        ("not run", "needs the trace X")
    );
    let r = judged(&c, String::new(), String::new(), Err(String::new()));
    assert_eq!(r.verdict, Verdict::NotModelled);
}
