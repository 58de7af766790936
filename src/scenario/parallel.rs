//! A scenario's runs on several threads (native only: the browser runs one at a time in its
//! worker). Runs share the platform and jobs read-only; each builds its own simulation. The
//! results land in scenario order, so the report is the same bytes as one thread's.
//!
//! Progress crosses to the caller's thread over a channel (the callback is not `Send`), and
//! a cancel from it reaches every run through a flag their own callbacks read.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use super::run::{run_one, RunInputs};
use super::{RunReport, ScenarioError};
use crate::engine::SimError;

enum Msg {
    Progress(usize, u64, u64),
    Done(usize, Box<Result<RunReport, ScenarioError>>),
}

pub(super) fn run_all(
    inputs: &RunInputs,
    threads: usize,
    progress: &mut dyn FnMut(usize, u64, u64) -> bool,
) -> Result<Vec<RunReport>, ScenarioError> {
    let n = inputs.scenario.algorithms.len();
    // Threads take runs in this order; results land at their run index.
    let order = super::run::hand_out_order(&inputs.scenario.algorithms);
    let next = AtomicUsize::new(0);
    let cancel = AtomicBool::new(false);
    let mut results: Vec<Option<Result<RunReport, ScenarioError>>> = (0..n).map(|_| None).collect();
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<Msg>();
        for _ in 0..threads.min(n) {
            let tx = tx.clone();
            let (next, cancel, order) = (&next, &cancel, &order);
            scope.spawn(move || {
                while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let result = run_one(inputs, i, &mut |d, t| {
                        let _ = tx.send(Msg::Progress(i, d, t));
                        !cancel.load(Ordering::Relaxed)
                    });
                    let _ = tx.send(Msg::Done(i, Box::new(result)));
                }
            });
        }
        drop(tx);
        // Every worker's sender is dropped when it ends, which ends this loop.
        for msg in rx {
            match msg {
                Msg::Progress(i, d, t) => {
                    if !progress(i, d, t) {
                        cancel.store(true, Ordering::Relaxed);
                    }
                }
                Msg::Done(i, result) => results[i] = Some(*result),
            }
        }
    });
    if cancel.load(Ordering::Relaxed) {
        return Err(ScenarioError::Sim(SimError::Cancelled));
    }
    results
        .into_iter()
        .map(|r| r.unwrap_or(Err(ScenarioError::Sim(SimError::Cancelled))))
        .collect()
}
