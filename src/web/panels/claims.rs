//! What the paper claimed and what Gridscope found, in words (issue #38): one line per claim,
//! "Paper: …. Gridscope: … — verdict, because … (docs)", under each row of the report card
//! and under a family view's results (the claims its run measures, read from its own run).
//! Text, not a tooltip, so it reads on a phone too.

use yew::prelude::*;

use crate::reproduce::{claim_files, rows_of_run, show, Reading, Row, Verdict};

/// `sob.md#anchor` → the rendered page's address with the anchor.
pub fn doc_link(doc: &str) -> String {
    let (file, anchor) = doc.split_once('#').unwrap_or((doc, ""));
    let page = super::doc_href(file.trim_end_matches(".md"));
    if anchor.is_empty() {
        page
    } else {
        format!("{page}#{anchor}")
    }
}

/// "3.08× — same direction, larger by ×2.80, because outside ±10 % of the paper's, …".
fn finding(r: &Row, x: &Reading) -> String {
    let value = match x.ours {
        Some(_) => format!("{} — ", show(x.ours, &r.unit)),
        None => String::new(),
    };
    if x.because.is_empty() {
        format!("{value}{}", x.verdict_text)
    } else {
        format!("{value}{}, because {}", x.verdict_text, x.because)
    }
}

/// The claim's line: the paper's statement, ours at the defaults (and under the documented
/// reading, when there is one), each verdict in words with its reason, the claim's note and
/// a link to the paragraph that explains it. `run` names the run ours is read from.
pub fn claim_line(r: &Row, run: &str) -> Html {
    let paper = format!(
        "{} — {} ({} {}).",
        r.claim.trim_end_matches('.'),
        r.paper_text,
        r.figure,
        r.section
    );
    let mut ours = format!("{}: {}.", run, finding(r, &r.default));
    if let Some(x) = &r.reading {
        let what = if r.reading_text.is_empty() {
            "the documented reading"
        } else {
            r.reading_text.as_str()
        };
        ours += &format!(" Under {what}: {}.", finding(r, x));
    }
    if !r.note.is_empty() {
        ours += &format!(" {}.", r.note.trim_end_matches('.'));
    }
    let best = r.best();
    html! {
        <p class={classes!("claim-line", best.css_class())} data-testid="claim-line"
            data-id={format!("{}.{}", r.paper, r.id)} data-verdict={best.label()}>
            <strong>{"Paper: "}</strong>{paper}{" "}
            <strong>{"Gridscope: "}</strong>{ours}{" "}
            <a href={doc_link(&r.doc)} target="_blank" rel="noopener">{"(why, in the docs)"}</a>
        </p>
    }
}

/// The claims of `paper` that a run of `preset` measures, read from that run's JSON
/// `report` (a view keeps them with its results; [`view_run_claims`] shows them).
pub fn read_claims(paper: &str, preset: &str, report: &serde_json::Value) -> Vec<Row> {
    claim_files(&[paper.to_string()])
        .map(|files| {
            files
                .iter()
                .flat_map(|f| rows_of_run(f, preset, report))
                .collect()
        })
        .unwrap_or_default()
}

/// A heading and one line per claim [`read_claims`] read, or nothing when no claim reads
/// this view's preset.
pub fn view_run_claims(paper: &str, preset: &str, rows: &[Row]) -> Html {
    if rows.is_empty() {
        return html! {};
    }
    let held = rows
        .iter()
        .filter(|r| r.default.verdict == Verdict::Reproduced)
        .count();
    html! {
        <div class="claims" data-testid={format!("{paper}-claims")}>
            <h3>{format!("What the paper claimed and what this run found ({held} of {} reproduced)", rows.len())}</h3>
            <p class="help">{format!("Each claim of the paper this preset ({preset}) bears on, measured on the run above — with its seeds and parameters, which may differ from the report card's (the Paper vs Gridscope tab runs the card's).")}</p>
            { for rows.iter().map(|r| claim_line(r, "Gridscope, this run")) }
        </div>
    }
}
