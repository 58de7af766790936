//! House rules checked on the source tree, as rust-analyzer's `tidy` does.
//!
//! **The layer rule.** Modules form layers; a module may use (`crate::…`) only modules of a
//! lower layer (and itself):
//!
//! | layer | modules | may use |
//! |---|---|---|
//! | 0 | `time`, `rng`, `par`, `limits`, `stats`, `json_path` | nothing of the crate |
//! | 1 | `model` | time, rng |
//! | 2 | `policy`, `workload`, `allocation` | model and below |
//! | 3 | `engine`, `kkor` | policy, workload, allocation and below |
//! | 4 | `metrics`, `scjg` | the engine and below |
//! | 5 | `scenario` | metrics and below |
//! | 6 | `family` | scenario and below (the registry of the paper families) |
//! | 7 | `reproduce` | family and below (the report card runs every family) |
//! | 8 | `web` | everything (wasm32 only) |
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
    ("stats", 0),
    ("json_path", 0),
    ("radix", 0),
    ("model", 1),
    ("policy", 2),
    ("workload", 2),
    ("allocation", 2),
    ("energy", 2),
    ("failure", 2),
    ("engine", 3),
    ("kkor", 3),
    ("metrics", 4),
    ("scjg", 4),
    ("scenario", 5),
    ("family", 6),
    ("reproduce", 7),
    ("web", 8),
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
            if own < 8 {
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
            "engine/bad.rs:4: `engine` (layer 3) uses `web` (layer 8)".to_string(),
            "engine/bad.rs:5: `engine` uses `web_sys`".to_string(),
            "engine/bad.rs:7: `engine` uses `std::fs`".to_string(),
        ]
    );
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

/// The source trees the file rules cover: the crate (`src/`, its library and binaries) and
/// the Python extension (`python/src`).
fn rule_trees() -> Vec<PathBuf> {
    vec![crate::root().join("src"), crate::root().join("python/src")]
}

/// A file of tests only (`tests.rs`, or under a `tests/` folder): the size rule spares them.
fn is_test_file(path: &Path) -> bool {
    let rel = path.strip_prefix(crate::root()).unwrap_or(path);
    rel.file_name().is_some_and(|n| n == "tests.rs")
        || rel.components().any(|c| c.as_os_str() == "tests")
}

/// No source file runs over 800 lines (tests aside, in their own `tests.rs`): a file that
/// grows that much holds two concerns.
#[test]
fn no_source_file_is_longer_than_800_lines() {
    let mut long = Vec::new();
    for tree in rule_trees() {
        for f in rust_files(&tree) {
            if is_test_file(&f) {
                continue;
            }
            let n = std::fs::read_to_string(&f)
                .unwrap_or_default()
                .lines()
                .count();
            if n > 800 {
                let rel = f.strip_prefix(crate::root()).unwrap_or(&f);
                long.push(format!("{}: {n} lines", rel.display()));
            }
        }
    }
    assert!(
        long.is_empty(),
        "files over 800 lines:\n{}",
        long.join("\n")
    );
}

/// The module path of `file` in the crate rooted at `root` (`lib.rs` or `main.rs`): its
/// folders and stem, `mod.rs` naming its folder.
fn module_path(root: &Path, file: &Path) -> Vec<String> {
    let dir = root.parent().unwrap_or(root);
    let rel = file.strip_prefix(dir).unwrap_or(file);
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if let Some(last) = parts.pop() {
        let stem = last.trim_end_matches(".rs");
        if file != root && stem != "mod" {
            parts.push(stem.to_string());
        }
    }
    parts
}

/// The paths a line of code names from `crate::`, `super::` or `self::`, groups expanded:
/// `crate::a::{b, c::d}` gives `crate::a::b` and `crate::a::c::d`.
fn named_paths(code: &str) -> Vec<Vec<String>> {
    fn segments(s: &str, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
        let mut path = prefix;
        let mut rest = s;
        loop {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if name.is_empty() {
                if let Some(group) = rest.strip_prefix('{') {
                    // Split the group at its top-level commas.
                    let (mut depth, mut start) = (0, 0);
                    for (i, c) in group.char_indices() {
                        match c {
                            '{' => depth += 1,
                            '}' if depth == 0 => {
                                segments(group[start..i].trim(), path.clone(), out);
                                return;
                            }
                            '}' => depth -= 1,
                            ',' if depth == 0 => {
                                segments(group[start..i].trim(), path.clone(), out);
                                start = i + 1;
                            }
                            _ => {}
                        }
                    }
                }
                out.push(path);
                return;
            }
            rest = &rest[name.len()..];
            path.push(name);
            match rest.strip_prefix("::") {
                Some(r) => rest = r,
                None => {
                    out.push(path);
                    return;
                }
            }
        }
    }
    let mut out = Vec::new();
    for start in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(i) = code[from..].find(start) {
            let at = from + i;
            from = at + start.len();
            let before = code[..at].chars().last();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue; // `super::super::x` is read from its first `super`
            }
            let mut head = vec![start.trim_end_matches("::").to_string()];
            let mut rest = &code[from..];
            while let Some(r) = rest.strip_prefix("super::") {
                head.push("super".into());
                rest = r;
            }
            segments(rest, head, &mut out);
        }
    }
    out
}

/// File-level import edges of the crate rooted at `root` (`src/lib.rs`, a binary's
/// `main.rs`, `python/src/lib.rs`): file → the file of the deepest module it names. A file
/// naming its own module's ancestors, or a module root naming its own children, is not an
/// edge: a parent and its children are one room.
fn import_edges(root: &Path, files: &[PathBuf]) -> Vec<(PathBuf, PathBuf)> {
    let modules: Vec<(Vec<String>, &PathBuf)> =
        files.iter().map(|f| (module_path(root, f), f)).collect();
    let file_of = |path: &[String]| {
        (0..=path.len()).rev().find_map(|n| {
            modules
                .iter()
                .find(|(m, _)| m[..] == path[..n])
                .map(|(_, f)| *f)
        })
    };
    let mut edges = Vec::new();
    for (own, file) in &modules {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let mut in_tests = false;
        for line in text.lines() {
            if line.trim_start().starts_with("#[cfg(test)]") {
                in_tests = true; // a file's test module comes last
            }
            if in_tests {
                break;
            }
            let code = line.split("//").next().unwrap_or("");
            for p in named_paths(code) {
                let mut abs: Vec<String> = match p[0].as_str() {
                    "crate" => Vec::new(),
                    _ => {
                        // `self` is the file's module; each `super` one level up (a
                        // `mod.rs`'s module is its folder).
                        let mut m = own.clone();
                        for s in &p {
                            if s == "super" {
                                m.pop();
                            } else if s != "self" {
                                break;
                            }
                        }
                        m
                    }
                };
                abs.extend(
                    p.iter()
                        .skip_while(|s| ["crate", "self", "super"].contains(&s.as_str()))
                        .cloned(),
                );
                let Some(target) = file_of(&abs) else {
                    continue;
                };
                let theirs = module_path(root, target);
                let related = own.starts_with(&theirs) || theirs.starts_with(own);
                if target != *file && !related {
                    edges.push(((*file).clone(), target.clone()));
                }
            }
        }
    }
    edges.sort();
    edges.dedup();
    edges
}

/// The groups of files that import each other, directly or around a circle (strongly
/// connected components of more than one file), each sorted.
fn import_circles(edges: &[(PathBuf, PathBuf)]) -> Vec<Vec<PathBuf>> {
    let mut nodes: Vec<&PathBuf> = edges.iter().flat_map(|(a, b)| [a, b]).collect();
    nodes.sort();
    nodes.dedup();
    let index = |p: &PathBuf| nodes.iter().position(|n| *n == p).unwrap_or(0);
    let mut next: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (a, b) in edges {
        next[index(a)].push(index(b));
    }
    // Reachability by repeated search: the trees are a few hundred files.
    let reach = |from: usize| {
        let mut seen = vec![false; nodes.len()];
        let mut stack = vec![from];
        while let Some(n) = stack.pop() {
            for &m in &next[n] {
                if !seen[m] {
                    seen[m] = true;
                    stack.push(m);
                }
            }
        }
        seen
    };
    let reachable: Vec<Vec<bool>> = (0..nodes.len()).map(reach).collect();
    let mut done = vec![false; nodes.len()];
    let mut circles = Vec::new();
    for a in 0..nodes.len() {
        if done[a] {
            continue;
        }
        let group: Vec<usize> = (0..nodes.len())
            .filter(|&b| b == a || (reachable[a][b] && reachable[b][a]))
            .collect();
        for &b in &group {
            done[b] = true;
        }
        if group.len() > 1 {
            circles.push(group.iter().map(|&i| nodes[i].clone()).collect());
        }
    }
    circles
}

/// The crates the file rules read: (root file, its files).
fn crates() -> Vec<(PathBuf, Vec<PathBuf>)> {
    let src = crate::root().join("src");
    let bin = src.join("bin");
    let mut lib: Vec<PathBuf> = rust_files(&src)
        .into_iter()
        .filter(|f| !f.starts_with(&bin))
        .collect();
    lib.retain(|f| !is_test_file(f));
    let mut out = vec![(src.join("lib.rs"), lib)];
    out.push((
        bin.join("gridscope/main.rs"),
        rust_files(&bin.join("gridscope")),
    ));
    let py = crate::root().join("python/src");
    out.push((py.join("lib.rs"), rust_files(&py)));
    out
}

/// No two files import each other, directly or around a circle: each circle has a one-move
/// cut (a shared piece moved below both), and a tree without them reads bottom-up.
#[test]
fn no_files_import_each_other() {
    let mut found = Vec::new();
    for (root, files) in crates() {
        for circle in import_circles(&import_edges(&root, &files)) {
            let names: Vec<String> = circle
                .iter()
                .map(|f| {
                    f.strip_prefix(crate::root())
                        .unwrap_or(f)
                        .display()
                        .to_string()
                })
                .collect();
            found.push(names.join(" <-> "));
        }
    }
    assert!(found.is_empty(), "import circles:\n{}", found.join("\n"));
}

#[test]
fn the_circle_check_catches_two_files_that_import_each_other() {
    let dir = crate::root().join("tests/fixtures/circles/src");
    let files = rust_files(&dir);
    let circles = import_circles(&import_edges(&dir.join("lib.rs"), &files));
    let names: Vec<Vec<String>> = circles
        .iter()
        .map(|c| {
            c.iter()
                .map(|f| f.strip_prefix(&dir).unwrap_or(f).display().to_string())
                .collect()
        })
        .collect();
    assert_eq!(
        names,
        vec![vec!["a/one.rs".to_string(), "a/two.rs".to_string()]]
    );
}

/// Nothing outside the family registry (`src/family/`) chooses a family by its presets'
/// names: a new family is then one registry entry, not a switch at every edge.
#[test]
fn only_the_registry_tells_families_apart_by_name() {
    let prefixes = ["sf-", "ses-", "kkor-", "scjg-", "sob-"];
    let mut found = Vec::new();
    let trees = [crate::root().join("src"), crate::root().join("python/src")];
    for tree in trees {
        for f in rust_files(&tree) {
            if f.starts_with(crate::root().join("src/family")) || is_test_file(&f) {
                continue;
            }
            let text = std::fs::read_to_string(&f).unwrap_or_default();
            for (n, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                if prefixes
                    .iter()
                    .any(|p| code.contains(&format!("starts_with(\"{p}\")")))
                {
                    let rel = f.strip_prefix(crate::root()).unwrap_or(&f);
                    found.push(format!("{}:{}: {}", rel.display(), n + 1, line.trim()));
                }
            }
        }
    }
    let py = crate::root().join("python/pysrc/gridscope/__init__.py");
    let text = std::fs::read_to_string(&py).unwrap_or_default();
    if prefixes.iter().any(|p| text.contains(&format!("\"{p}\","))) {
        found.push(format!("{}: a tuple of family prefixes", py.display()));
    }
    assert!(
        found.is_empty(),
        "family dispatch by name:\n{}",
        found.join("\n")
    );
}

/// Whether a line names a `Result<…, String>`: the last argument of a `Result<…>` is
/// `String` (nested generics such as `Result<Vec<u8>, String>` included).
fn names_a_string_result(line: &str) -> bool {
    line.match_indices("Result<").any(|(i, _)| {
        let rest = &line[i + "Result<".len()..];
        let mut depth = 0usize;
        let mut last = 0;
        for (k, c) in rest.char_indices() {
            match c {
                '<' | '(' | '[' => depth += 1,
                ',' if depth == 0 => last = k + 1,
                '>' | ')' | ']' if depth == 0 => {
                    return last > 0 && rest[last..k].trim() == "String"
                }
                '>' | ')' | ']' => depth -= 1,
                _ => {}
            }
        }
        false
    })
}

/// Errors are typed where the families and the CLI meet (issue #36): the lines that still
/// name a `Result<_, String>` in these trees may only become fewer (the CLI's are clap value
/// parsers, the library's file loaders and the sweep store's per-case sentences; the family
/// layer's are its loader and a merge helper). Lower a cap when you type one more.
#[test]
fn string_errors_do_not_grow_in_the_families_and_the_cli() {
    let caps = [
        ("src/family", 3),
        ("src/bin/gridscope", 23),
        ("src/kkor", 21),
    ];
    let mut grown = Vec::new();
    for (tree, cap) in caps {
        let lines: usize = rust_files(&crate::root().join(tree))
            .iter()
            .map(|f| {
                std::fs::read_to_string(f)
                    .unwrap_or_default()
                    .lines()
                    .filter(|l| names_a_string_result(l))
                    .count()
            })
            .sum();
        if lines > cap {
            grown.push(format!(
                "{tree}: {lines} lines name a Result<_, String> (at most {cap}): return a typed error"
            ));
        }
    }
    assert!(grown.is_empty(), "{}", grown.join("\n"));
}

#[test]
fn the_string_error_check_sees_what_grep_sees() {
    assert!(names_a_string_result("fn f() -> Result<Vec<u8>, String> {"));
    assert!(names_a_string_result("fn f() -> Result<(), String> {"));
    assert!(!names_a_string_result("fn f() -> Result<(), CliError> {"));
    assert!(!names_a_string_result(
        "fn f() -> Result<Vec<String>, Error> {"
    ));
}
