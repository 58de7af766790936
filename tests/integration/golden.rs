//! Golden per-job schedules of small hand-made workloads (tests/fixtures/*.swf) under every
//! local policy, with and without kills. Each fixture's notes say what it exercises; the
//! expected schedules in tests/golden/ were checked by hand once and are compared byte for
//! byte since. Refresh after an intended change with `UPDATE_GOLDEN=1 cargo test --release`
//! and review the diff.

use std::fmt::Write;

use gridscope::engine::{EstimateSource, EventOrder, RunConfig};
use gridscope::policy::local::LocalPolicyKind;
use gridscope::scenario::{
    jobs_csv, run_loaded, AlgorithmSpec, PlatformSpec, Scenario, WorkloadSpec, SCENARIO_VERSION,
};
use gridscope::workload::{read_swf, SwfOptions};

use crate::root;

fn render(fixture: &str) -> String {
    render_under(fixture, &[EventOrder::Gridscope])
}

/// The fixture's schedules under each of `orders` (a heading per order after the first).
fn render_under(fixture: &str, orders: &[EventOrder]) -> String {
    let path = root().join("tests/fixtures").join(fixture);
    let bytes = std::fs::read(&path).unwrap();
    let mut text = String::new();
    for (k, &event_order) in orders.iter().enumerate() {
        if k > 0 {
            let _ = writeln!(text, "\n# event order {}", event_order.name());
        }
        render_one(fixture, &bytes, event_order, &mut text);
    }
    text
}

fn render_one(fixture: &str, bytes: &[u8], event_order: EventOrder, text: &mut String) {
    for kill in [true, false] {
        let scenario = Scenario {
            failures: None,
            carbon: None,
            version: SCENARIO_VERSION,
            name: fixture.into(),
            seed: 0,
            platform: PlatformSpec::FromTrace { procs: None },
            workload: WorkloadSpec::Swf {
                file: fixture.into(),
                strict: false,
                format: Default::default(),
                utc_offset_min: 0,
            },
            algorithms: LocalPolicyKind::EVERY
                .iter()
                .map(|&k| AlgorithmSpec::local(k))
                .collect(),
            options: RunConfig {
                estimates: EstimateSource::Trace,
                kill_at_estimate: kill,
                event_order,
            },
        };
        let workload = read_swf(fixture, bytes, &SwfOptions::default()).unwrap();
        let report = run_loaded(&scenario, workload, &mut |_, _, _| true).unwrap();
        if kill {
            text.push_str(&report.import.summary());
            let _ = writeln!(text, "platform: {}", report.platform_note);
        }
        for run in &report.runs {
            let m = &run.metrics;
            let _ = writeln!(
                text,
                "\n## {} kill={kill}: wait {:.3} response {:.3} bsld {:.3} util {:.4} finished {} killed {} rejected {} skipped {}",
                run.label,
                m.avg_wait_s,
                m.avg_response_s,
                m.avg_bounded_slowdown,
                m.utilization,
                m.jobs_finished,
                m.jobs_killed,
                m.jobs_rejected,
                m.jobs_skipped
            );
            for r in &run.rejected {
                let _ = writeln!(text, "rejected {r}");
            }
            text.push_str(&jobs_csv(&report, run));
        }
    }
}

fn check(fixture: &str) {
    compare(fixture, render(fixture));
}

fn compare(fixture: &str, actual: String) {
    let golden = root()
        .join("tests/golden")
        .join(fixture.replace(".swf", ".txt"));
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, &actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&golden).unwrap_or_else(|_| {
        panic!(
            "{} is missing; create it with UPDATE_GOLDEN=1 and review it",
            golden.display()
        )
    });
    if actual != expected {
        let first = actual
            .lines()
            .zip(expected.lines())
            .position(|(a, e)| a != e)
            .unwrap_or(0);
        panic!(
            "{fixture}: schedule differs from {} at line {}:\n  expected: {}\n  actual:   {}\n(UPDATE_GOLDEN=1 to accept after review)",
            golden.display(),
            first + 1,
            expected.lines().nth(first).unwrap_or(""),
            actual.lines().nth(first).unwrap_or("")
        );
    }
}

#[test]
fn same_instant_events() {
    check("same_instant.swf");
}

#[test]
fn job_wider_than_the_machine_is_rejected_with_reason() {
    check("too_wide.swf");
}

#[test]
fn runtime_above_estimate_killed_or_replanned() {
    check("overrun.swf");
}

#[test]
fn import_decisions_zero_runtimes_and_malformed_lines() {
    check("skips.swf");
}

#[test]
fn backfilling_never_delays_the_head() {
    check("backfill.swf");
}

#[test]
fn early_end_compresses_the_plan() {
    check("early_end.swf");
}

/// The cqsim order's crash (issue #24): two jobs ending together at their estimates, and a
/// reservation for the units of both. Every policy, under every event order.
#[test]
fn jobs_ending_together_under_every_event_order() {
    let orders = [EventOrder::Gridscope, EventOrder::Pyss, EventOrder::Cqsim];
    compare(
        "ends_together.swf",
        render_under("ends_together.swf", &orders),
    );
}

/// Compression keeps a reservation that the rebuild breaks (job 5: promised 4; the rebuild
/// starts it at 6). Every policy, under every event order.
#[test]
fn compression_keeps_the_promise_the_rebuild_breaks() {
    let orders = [EventOrder::Gridscope, EventOrder::Pyss, EventOrder::Cqsim];
    compare("promise.swf", render_under("promise.swf", &orders));
}
