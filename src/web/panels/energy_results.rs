//! What each run drew (issue #40, docs/energy.md): energy in all, computing, idle and
//! switching, average and peak power, the energy-delay product and what switching idle nodes
//! off did, as `simulate`'s JSON gives them; energy against mean wait, one point per run; and
//! each number's formula.

use yew::prelude::*;

use crate::scenario::energy::{RunEnergy, ENERGY_HELP};
use crate::web::charts::{plot, ChartView, EnergyWait};
use crate::web::format::fmt_num;
use crate::web::state::use_app;

/// The formula (hover text) of a column, from [`ENERGY_HELP`] (`key` is the help entry's
/// key after `energy.`).
fn formula(key: &str) -> String {
    ENERGY_HELP
        .iter()
        .find(|m| {
            m.key
                .strip_prefix("energy.")
                .is_some_and(|k| k.starts_with(key))
        })
        .map_or(String::new(), |m| m.formula.to_string())
}

/// Joules as kWh with one decimal.
fn kwh(j: f64) -> String {
    fmt_num(j / 3.6e6, 1)
}

/// What the runs found, in words: the run that used least energy against the one that used
/// most, and, when it switched idle nodes off, what that saved against the same algorithm
/// always on and what it cost in mean wait.
fn finding(chart: &EnergyWait) -> String {
    let points = || {
        chart
            .groups
            .iter()
            .flat_map(|g| g.1.iter().map(move |p| (g.0.as_str(), p)))
    };
    let best = points().min_by(|a, b| a.1 .2.total_cmp(&b.1 .2));
    let worst = points().max_by(|a, b| a.1 .2.total_cmp(&b.1 .2));
    let (Some((ba, b)), Some((wa, w))) = (best, worst) else {
        return String::new();
    };
    if w.2 <= 0.0 || (ba, &b.0) == (wa, &w.0) {
        return String::new();
    }
    let name = |alg: &str, tag: &str| match tag.strip_prefix("on") {
        Some(rest) => format!("{alg}{rest}"),
        None => format!("{alg}, off after {tag}"),
    };
    let mut text = format!(
        "{} used the least energy, {} kWh",
        name(ba, &b.0),
        fmt_num(b.2, 1)
    );
    // Its own algorithm always on, when that is the most: said once, below.
    if (wa, w.0.as_str()) != (ba, "on") {
        text.push_str(&format!(
            ": {} % less than {} ({} kWh)",
            fmt_num((1.0 - b.2 / w.2) * 100.0, 1),
            name(wa, &w.0),
            fmt_num(w.2, 1)
        ));
    }
    text.push('.');
    let on = chart
        .groups
        .iter()
        .find(|g| g.0 == ba)
        .and_then(|g| g.1.iter().find(|p| p.0 == "on"));
    let switched = !b.0.starts_with("on") && !b.0.contains("slack");
    if let Some(on) = on.filter(|on| switched && on.2 > 0.0) {
        let wait = match on.1 {
            w0 if w0 > 0.0 => {
                let pct = (b.1 / w0 - 1.0) * 100.0;
                let sign = if pct >= 0.0 { "+" } else { "" };
                format!(" ({sign}{} %)", fmt_num(pct, 1))
            }
            _ => String::new(),
        };
        text.push_str(&format!(
            " Switching idle nodes off after {} saved {} % of {ba}'s energy always on ({} kWh); its mean wait went from {} s to {} s{wait}.",
            b.0,
            fmt_num((1.0 - b.2 / on.2) * 100.0, 1),
            fmt_num(on.2, 1),
            fmt_num(on.1, 0),
            fmt_num(b.1, 0),
        ));
    }
    text
}

/// What holding jobs for cleaner hours did, in words: of the runs with a carbon slack, the
/// one that cut its work's emissions most against the same run without the slack, with
/// the platform's emissions and the mean wait before and after.
fn carbon_finding(runs: &[std::rc::Rc<crate::web::protocol::RunResult>]) -> String {
    let mut best: Option<(f64, String)> = None;
    for r in runs {
        let Some(e) = r.report.energy.as_ref() else {
            continue;
        };
        let (Some(c), Some(work)) = (e.carbon_delay.as_ref(), e.work_emissions_g) else {
            continue;
        };
        let suffix = format!(", carbon slack {} s", c.slack_s);
        let Some(base) = r.label().strip_suffix(&suffix) else {
            continue;
        };
        let Some((b, be)) = runs
            .iter()
            .find(|o| o.label() == base)
            .and_then(|o| Some((o, o.report.energy.as_ref()?)))
        else {
            continue;
        };
        let (Some(bwork), Some(bg), Some(g)) = (be.work_emissions_g, be.emissions_g, e.emissions_g)
        else {
            continue;
        };
        if bwork <= 0.0 || bg <= 0.0 {
            continue;
        }
        let cut = 1.0 - work / bwork;
        let pct = |x: f64| fmt_num(x * 100.0, 1);
        let tonnes = |g: f64| fmt_num(g / 1e6, 1);
        let (w0, w1) = (b.report.metrics.avg_wait_s, r.report.metrics.avg_wait_s);
        let text = format!(
            "Holding jobs up to {} s for cleaner hours ({}) cut the emissions of the jobs' work by {} % ({} t → {} t CO₂) and the platform's by {} % ({} t → {} t), holding {} jobs; the mean wait went from {} s to {} s.",
            fmt_num(c.slack_s, 0),
            r.label(),
            pct(cut),
            tonnes(bwork),
            tonnes(work),
            pct(1.0 - g / bg),
            tonnes(bg),
            tonnes(g),
            fmt_num(c.jobs_held as f64, 0),
            fmt_num(w0, 0),
            fmt_num(w1, 0),
        );
        if best.as_ref().is_none_or(|b| cut > b.0) {
            best = Some((cut, text));
        }
    }
    best.map(|b| b.1).unwrap_or_default()
}

#[function_component]
pub fn EnergyResultsPanel() -> Html {
    let app = use_app();
    let runs = &app.results.runs;
    let Some(chart) = EnergyWait::of(runs) else {
        return html! {};
    };
    let switching = runs.iter().any(|r| {
        r.report
            .energy
            .as_ref()
            .is_some_and(|e| e.idle_off.is_some())
    });
    let has =
        |f: fn(&RunEnergy) -> bool| runs.iter().any(|r| r.report.energy.as_ref().is_some_and(f));
    let emissions = has(|e| e.emissions_g.is_some());
    let held = has(|e| e.carbon_delay.is_some());
    let th = |key: &'static str, text: &'static str| html! { <th title={formula(key)} data-key={key}>{text}</th> };
    let row = |label: &str, wait_s: f64, e: &RunEnergy| {
        let off = e.idle_off.as_ref();
        let dash = || "–".to_string();
        html! { <tr data-label={label.to_string()}>
            <th scope="row">{label.to_string()}</th>
            <td class="num" data-key="total_kwh">{fmt_num(e.total_kwh, 1)}</td>
            <td class="num">{kwh(e.computing_j)}</td>
            <td class="num">{kwh(e.idle_j)}</td>
            if switching {
                <td class="num">{e.switching_j.map_or_else(dash, kwh)}</td>
                <td class="num">{e.off_j.map_or_else(dash, kwh)}</td>
            }
            <td class="num">{fmt_num(e.average_w / 1000.0, 2)}</td>
            <td class="num">{fmt_num(e.peak_w / 1000.0, 2)}</td>
            <td class="num">{format!("{:.3e}", e.energy_delay_js)}</td>
            <td class="num">{fmt_num(wait_s, 0)}</td>
            if emissions {
                <td class="num" data-key="emissions_kg">{e.emissions_g.map_or_else(dash, |g| fmt_num(g / 1000.0, 1))}</td>
                <td class="num" data-key="work_emissions_kg">{e.work_emissions_g.map_or_else(dash, |g| fmt_num(g / 1000.0, 1))}</td>
            }
            if held {
                <td class="num" data-key="jobs_held">{e.carbon_delay.as_ref().map_or_else(dash, |c| c.jobs_held.to_string())}</td>
                <td class="num">{e.carbon_delay.as_ref().map_or_else(dash, |c| fmt_num(c.held_s / 3600.0, 0))}</td>
            }
            if switching {
                <td class="num" data-key="switch_offs">{off.map_or_else(dash, |o| o.switch_offs.to_string())}</td>
                <td class="num">{off.map_or_else(dash, |o| o.boots.to_string())}</td>
                <td class="num">{off.map_or_else(dash, |o| o.jobs_delayed.to_string())}</td>
                <td class="num">{off.map_or_else(dash, |o| fmt_num(o.boot_wait_s / o.jobs_delayed.max(1) as f64, 0))}</td>
            }
        </tr> }
    };
    let finding = finding(&chart);
    let carbon = carbon_finding(runs);
    html! {
        <section class="energy" data-testid="energy-results">
            <h2>{"Energy"}</h2>
            if !finding.is_empty() {
                <p data-testid="energy-finding">{finding}</p>
            }
            if !carbon.is_empty() {
                <p data-testid="carbon-finding">{carbon}</p>
            }
            <div class="table-wrap">
            <table class="metrics" data-testid="energy-table">
                <thead><tr>
                    <th>{"algorithm"}</th>
                    { th("total_j", "energy (kWh)") }
                    { th("computing_j", "computing (kWh)") }
                    { th("computing_j", "idle (kWh)") }
                    if switching {
                        { th("switching_j", "switching (kWh)") }
                        { th("switching_j", "off (kWh)") }
                    }
                    { th("average_w", "average (kW)") }
                    { th("average_w", "peak (kW)") }
                    { th("energy_delay_js", "energy × span (J·s)") }
                    <th title="mean of start − submit over the jobs that ran (seconds)">{"mean wait (s)"}</th>
                    if emissions {
                        { th("emissions_g", "kg CO₂") }
                        { th("work_emissions_g", "work kg CO₂") }
                    }
                    if held {
                        { th("carbon_delay", "jobs held") }
                        { th("carbon_delay", "held (h)") }
                    }
                    if switching {
                        { th("idle_off", "switch-offs") }
                        { th("idle_off", "boots") }
                        { th("idle_off", "jobs delayed by a boot") }
                        { th("idle_off", "mean boot wait (s)") }
                    }
                </tr></thead>
                <tbody>
                    { for runs.iter().filter_map(|r| Some(row(r.label(), r.report.metrics.avg_wait_s, r.report.energy.as_ref()?))) }
                </tbody>
            </table>
            </div>
            <ChartView chart={Some(plot(chart))} testid="chart-energy-wait" width={640} height={300} />
            <p class="help">{"Lower left is better: less energy and shorter waits. Switching idle nodes off saves their idle watts at the price of boots that jobs wait for. Power over time and nodes by power state are under the timeline, per run."}</p>
            { super::results::help_list("What the energy numbers mean", ENERGY_HELP) }
        </section>
    }
}
