//! House rules checked on the source tree, as rust-analyzer's `tidy` does.
//!
//! **The layer rule.** Modules form layers; a module may use (`crate::…`) only modules of a
//! lower layer (and itself):
//!
//! | layer | modules | may use |
//! |---|---|---|
//! | 0 | `time`, `rng`, `par`, `limits` | nothing of the crate |
//! | 1 | `model` | time, rng |
//! | 2 | `policy`, `workload`, `allocation` | model and below |
//! | 3 | `engine`, `kkor` | policy, workload, allocation and below |
//! | 4 | `metrics`, `scjg` | the engine and below |
//! | 5 | `scenario` | metrics and below |
//! | 6 | `reproduce` | scenario and below (the report card runs every family) |
//! | 7 | `web` | everything (wasm32 only) |
//!
//! and everything below `web` is free of the browser (`web_sys`, `js_sys`, `yew`,
//! `wasm_bindgen`, `gloo`) and of I/O (`std::fs`); the engine is also free of `serde`.
//! The check runs on `src/` and, to show that it bites, on a fixture tree that breaks it.

use std::path::{Path, PathBuf};

const LAYERS: &[(&str, u8)] = &[
    ("time", 0),
    ("rng", 0),
    ("par", 0),
    ("limits", 0),
    ("json_path", 0),
    ("model", 1),
    ("policy", 2),
    ("workload", 2),
    ("allocation", 2),
    ("engine", 3),
    ("kkor", 3),
    ("metrics", 4),
    ("scjg", 4),
    ("scenario", 5),
    ("reproduce", 6),
    ("web", 7),
];

const BROWSER_AND_IO: &[&str] = &[
    "web_sys",
    "js_sys",
    "yew",
    "wasm_bindgen",
    "gloo",
    "std::fs",
];

fn layer(module: &str) -> Option<u8> {
    LAYERS.iter().find(|(m, _)| *m == module).map(|&(_, l)| l)
}

/// Every `.rs` file under `dir`, sorted (so the report is stable).
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The top-level crate modules a line names: `crate::a::…` and `crate::{a::…, b}`.
fn crate_refs(line: &str) -> Vec<String> {
    let mut refs = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let mut start = true;
            for (k, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 1 => start = true,
                    c if start && depth == 1 && (c.is_alphanumeric() || c == '_') => {
                        let name: String = group[k..]
                            .chars()
                            .take_while(|c| c.is_alphanumeric() || *c == '_')
                            .collect();
                        refs.push(name);
                        start = false;
                    }
                    _ => {}
                }
                if depth == 0 {
                    break;
                }
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            refs.push(name);
        }
    }
    refs
}

/// Violations of the layer rule under `src` (a crate's `src/` folder), one line each.
fn layer_violations(src: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for file in rust_files(src) {
        let rel = file.strip_prefix(src).unwrap_or(&file);
        let first = rel
            .components()
            .next()
            .map(|c| c.as_os_str().to_string_lossy().into_owned());
        let module = first
            .unwrap_or_default()
            .trim_end_matches(".rs")
            .to_string();
        let Some(own) = layer(&module) else { continue };
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            let at = format!("{}:{}", rel.display(), n + 1);
            for used in crate_refs(code) {
                match layer(&used) {
                    Some(l) if used != module && l >= own => found.push(format!(
                        "{at}: `{module}` (layer {own}) uses `{used}` (layer {l})"
                    )),
                    _ => {}
                }
            }
            if own < 6 {
                for banned in BROWSER_AND_IO {
                    if code.contains(&format!("{banned}::")) {
                        found.push(format!("{at}: `{module}` uses `{banned}`"));
                    }
                }
            }
            if module == "engine" && code.contains("serde") {
                found.push(format!("{at}: `engine` uses serde"));
            }
        }
    }
    found
}

#[test]
fn the_source_tree_keeps_the_layer_rule() {
    let v = layer_violations(&crate::root().join("src"));
    assert!(
        v.is_empty(),
        "layer rule broken (see tests/integration/tidy.rs):\n{}",
        v.join("\n")
    );
}

/// Every module of the crate has a layer: a new module must be placed before it is checked.
#[test]
fn every_module_has_a_layer() {
    let src = crate::root().join("src");
    let mut unplaced = Vec::new();
    for entry in std::fs::read_dir(&src).unwrap().flatten() {
        let name = entry
            .file_name()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        if !["lib", "bin"].contains(&name.as_str()) && layer(&name).is_none() {
            unplaced.push(name);
        }
    }
    unplaced.sort();
    assert!(
        unplaced.is_empty(),
        "modules with no layer in tidy.rs's LAYERS: {unplaced:?}"
    );
}

#[test]
fn the_layer_check_catches_a_broken_tree() {
    let v = layer_violations(&crate::root().join("tests/fixtures/layers/src"));
    assert_eq!(
        v,
        vec![
            "engine/bad.rs:4: `engine` (layer 3) uses `web` (layer 7)".to_string(),
            "engine/bad.rs:5: `engine` uses `web_sys`".to_string(),
            "engine/bad.rs:7: `engine` uses `std::fs`".to_string(),
        ]
    );
}

/// No file in `src/web` runs over 800 lines: a panel that grows that much is two panels.
#[test]
fn no_web_file_is_longer_than_800_lines() {
    let long: Vec<String> = rust_files(&crate::root().join("src/web"))
        .into_iter()
        .filter_map(|f| {
            let n = std::fs::read_to_string(&f)
                .unwrap_or_default()
                .lines()
                .count();
            (n > 800).then(|| format!("{}: {n} lines", f.display()))
        })
        .collect();
    assert!(long.is_empty(), "{long:?}");
}

/// No function in `src/` runs over 120 lines (counted from its `fn` line to the closing
/// brace at the same indentation): long functions hide their steps.
#[test]
fn no_function_is_longer_than_120_lines() {
    let mut long = Vec::new();
    for file in rust_files(&crate::root().join("src")) {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let trimmed = line.trim_start();
            let is_fn = [
                "fn ",
                "pub fn ",
                "pub(crate) fn ",
                "async fn ",
                "pub async fn ",
            ]
            .iter()
            .any(|p| trimmed.starts_with(p));
            if !is_fn || trimmed.ends_with(';') {
                continue;
            }
            let indent = line.len() - trimmed.len();
            let close = format!("{}}}", " ".repeat(indent));
            if let Some(len) = lines[i + 1..]
                .iter()
                .position(|l| l.starts_with(&close) && l.trim() == "}")
            {
                if len + 2 > 120 {
                    let rel = file.strip_prefix(crate::root()).unwrap_or(&file);
                    long.push(format!("{}:{}: {} lines", rel.display(), i + 1, len + 2));
                }
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions over 120 lines:\n{}",
        long.join("\n")
    );
}
