//! `gridscope reproduce`: the report card (src/reproduce). The real-trace runs read their
//! traces here, at the edge, from `--traces`.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use gridscope::reproduce::{self, show, Card, Row};

use crate::cli::ReproduceArgs;
use crate::io::load_file;
use crate::progress::Progress;
use crate::{output, report, CliError};

pub fn reproduce(a: &ReproduceArgs) -> Result<(), CliError> {
    let papers = if a.paper == "all" {
        vec![]
    } else {
        vec![a.paper.clone()]
    };
    let files = reproduce::claim_files(&papers).map_err(CliError::Usage)?;
    let traces = a
        .traces
        .clone()
        .unwrap_or_else(|| PathBuf::from(gridscope::family::DEFAULT_TRACES));
    let threads = a.threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let mut progress = Progress::new();
    let card = reproduce::run_card(
        &files,
        a.sensitivity,
        threads,
        &mut |name| read_trace(&traces, name),
        &mut |done, total| progress.show("reproduce: runs", done as f64 / total.max(1) as f64),
    );
    drop(progress);
    let text = if a.json {
        report::json(&card)
    } else if a.markdown {
        let mut s = card
            .papers
            .iter()
            .map(|p| format!("### {p}\n\n{}", reproduce::markdown(&card, p)))
            .collect::<Vec<_>>()
            .join("\n");
        if a.sensitivity {
            s += &format!(
                "\n### sensitivity\n\n{}",
                reproduce::sensitivity_markdown(&card)
            );
        }
        s
    } else {
        table(&card) + &sensitivity_table(&card)
    };
    output::stdout(&format!("{}\n", text.trim_end()))
}

fn read_trace(dir: &Path, name: &str) -> Result<Vec<u8>, String> {
    let path = dir.join(name);
    if !path.exists() {
        return Err(format!(
            "needs the trace {name} (not in {}; --traces DIR)",
            dir.display()
        ));
    }
    load_file(&path, &Default::default())
}

fn table(card: &Card) -> String {
    let mut s = String::new();
    for paper in &card.papers {
        let _ = writeln!(s, "{paper}");
        let _ = writeln!(
            s,
            "  {:<58} {:<14} {:>14} {:>12} {:<32} {:>12} {:<32}",
            "claim", "where", "paper", "ours", "verdict", "reading", "verdict"
        );
        for r in card.rows.iter().filter(|r| &r.paper == paper) {
            let _ = writeln!(s, "{}", row(r));
        }
        s.push('\n');
    }
    let _ = writeln!(
        s,
        "verdicts (at the defaults → the better of defaults and reading):"
    );
    for (verdict, n) in &card.summary {
        // The JSON's keys; a trend is told as "same direction" (words.rs).
        let verdict = if verdict == "trend" {
            "same direction"
        } else {
            verdict
        };
        let _ = writeln!(s, "  {verdict:<15} {:>3} → {:>3}", n.at_defaults, n.best);
    }
    let failed: Vec<String> = card
        .rows
        .iter()
        .flat_map(|r| std::iter::once(&r.default).chain(&r.reading))
        .filter(|x| !x.error.is_empty())
        .map(|x| format!("  {}: {}", x.run, x.error))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    if !failed.is_empty() {
        let _ = writeln!(s, "not run:\n{}", failed.join("\n"));
    }
    s
}

/// The tornado as text: per claim and parameter, the value at the default, at each value
/// tried, and the range; widest first.
fn sensitivity_table(card: &Card) -> String {
    if card.sensitivity.is_empty() {
        return String::new();
    }
    let mut s = String::from("\nsensitivity (widest first): claim — parameter (default): ours at the default; at each value [verdict]; range\n");
    for t in &card.sensitivity {
        let _ = writeln!(
            s,
            "  {}.{} — {} ({}): {}; {}; {} – {}",
            t.paper,
            t.claim,
            t.parameter,
            t.default_label,
            show(t.default, &t.unit),
            t.values_text(", "),
            show(t.low, &t.unit),
            show(t.high, &t.unit)
        );
    }
    s
}

fn row(r: &Row) -> String {
    let claim: String = if r.claim.chars().count() > 58 {
        r.claim.chars().take(57).collect::<String>() + "…"
    } else {
        r.claim.clone()
    };
    let (reading, verdict) = match &r.reading {
        Some(x) => (show(x.ours, &r.unit), x.verdict_text.as_str()),
        None => (String::new(), ""),
    };
    format!(
        "  {:<58} {:<14} {:>14} {:>12} {:<32} {:>12} {:<32}",
        claim,
        format!("{} {}", r.figure, r.section),
        r.paper_text.chars().take(14).collect::<String>(),
        show(r.default.ours, &r.unit),
        r.default.verdict_text,
        reading,
        verdict
    )
}
