use super::*;

#[test]
fn every_preset_has_exactly_one_family() {
    let names = preset_names();
    for name in &names {
        let owners: Vec<&str> = FAMILIES
            .iter()
            .filter(|f| f.presets().iter().any(|(p, _)| p == name))
            .map(|f| f.id())
            .collect();
        assert_eq!(owners.len(), 1, "{name}: {owners:?}");
        assert_eq!(find(name).map(|f| f.id()), owners.first().copied());
    }
    assert!(names.len() >= 20, "{names:?}");
    assert!(find("nope").is_none());
    assert!(matches!(
        family_of("nope"),
        Err(FamilyError::UnknownPreset { .. })
    ));
}

#[test]
fn every_family_has_an_id_a_doc_and_seeds() {
    for f in FAMILIES {
        assert_eq!(f.doc(), format!("docs/{}.md", f.id()));
        assert!(f.default_seeds() >= 1);
        assert!(by_id(f.id()).is_some());
        assert!(!f.title().is_empty());
    }
}

#[test]
fn an_option_a_preset_does_not_take_is_named() {
    let ses = family_of("ses-selection").unwrap();
    let args = PresetArgs {
        batches: Some(5),
        ..PresetArgs::default()
    };
    let e = check_takes(ses, "ses-selection", &args.given()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "--batches does not apply to ses-selection (it takes --seeds, --load)"
    );
    let sf = family_of("sf-batch").unwrap();
    assert!(check_takes(sf, "sf-batch", &args.given()).is_ok());
    let both = PresetArgs {
        lambda: Some(0.1),
        load: Some(0.5),
        ..PresetArgs::default()
    };
    assert!(matches!(
        sf.spec("sf-batch", &both),
        Err(FamilyError::Usage { .. })
    ));
}

#[test]
fn a_seed_alone_is_not_a_whole_run() {
    let spec = RunSpec {
        preset: "kkor-load".into(),
        seed: Some(1),
        ..RunSpec::default()
    };
    let mut load = |_: &str| Err("no file".to_string());
    let mut progress = |_, _| true;
    let mut ctx = Ctx {
        threads: 1,
        limits: Limits::default(),
        load: &mut load,
        progress: &mut progress,
    };
    assert!(run(&spec, &mut ctx).is_err());
}

#[test]
fn an_sf_flag_is_the_same_sweep_as_the_changed_spec() {
    let sf = family_of("sf-batch").unwrap();
    let args = PresetArgs {
        dll_report: Some(2.0),
        cv: Some(1.5),
        ..PresetArgs::default()
    };
    let spec = sf.spec("sf-batch", &args).unwrap();
    let sweep = sf::sweep_spec_for_tests(&spec).unwrap();
    assert_eq!(sweep.dll_report_s, 2.0);
    assert_eq!(sweep.arrival_cv, 1.5);
}

/// The page names and prints a metric by its key alone: two families that report the same
/// key must name it and count it alike.
#[test]
fn a_metric_key_is_named_alike_in_every_family() {
    let all: Vec<&MetricInfo> = FAMILIES.iter().flat_map(|f| f.info().metrics).collect();
    for m in &all {
        let first = super::metric(m.key).map(|f| (f.name, f.quantity));
        assert_eq!(first, Some((m.name, m.quantity)), "{}", m.key);
    }
    assert!(all.iter().any(|m| m.key == "mean_flow_time"));
}

/// Every family says what it is in words (the page's tab, tooltip and introduction), and
/// each option it explains is one some preset of it takes, named and explained.
#[test]
fn every_family_has_its_words_and_each_option_it_explains_is_taken() {
    for f in FAMILIES {
        let info = f.info();
        assert!(
            !info.label.is_empty() && !info.about.is_empty() && !info.intro.is_empty(),
            "{}",
            info.id
        );
        for o in info.options {
            assert!(
                !o.name.is_empty() && !o.help.is_empty(),
                "{} {:?}",
                info.id,
                o.opt
            );
            assert!(
                f.presets().iter().any(|(p, _)| f.takes(p).contains(&o.opt)),
                "{} explains {:?}, which none of its presets takes",
                info.id,
                o.opt
            );
        }
    }
}
