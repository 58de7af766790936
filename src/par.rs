//! Independent work on all cores, natively, with results in a fixed order: the one place
//! that starts threads (a scenario's runs and every other batch of independent tasks). The
//! engine itself has none; in wasm, and with one thread, everything runs in order on the
//! caller's thread.

/// A task's progress callback: `(done, total)`, returning false to ask it to stop.
pub type Progress<'a> = &'a mut dyn FnMut(u64, u64) -> bool;

/// Runs `work(0..n)` on up to `threads` threads and returns the results in index order (so
/// the outcome never depends on `threads`). `done(finished, of)` is called on the caller's
/// thread after each task finishes, in any order; returning false cancels: tasks not yet
/// started are skipped and `None` is returned.
pub fn map_in_order<T: Send>(
    n: usize,
    threads: usize,
    work: &(dyn Fn(usize) -> T + Sync),
    done: &mut dyn FnMut(usize, usize) -> bool,
) -> Option<Vec<T>> {
    #[cfg(not(target_arch = "wasm32"))]
    if threads > 1 && n > 1 {
        let order: Vec<usize> = (0..n).collect();
        return native::map(&order, threads, &|i, _| work(i), &mut |_, _, _| true, done);
    }
    let _ = threads;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        out.push(work(i));
        if !done(i + 1, n) {
            return None;
        }
    }
    Some(out)
}

/// Runs `work(i, progress)` for every `i` of `order` (a permutation of `0..order.len()`),
/// handed out to up to `threads` threads in that order (the costly tasks first, so that
/// none starts last while the other threads sit idle), and returns the results in index
/// order. Each task's progress reaches `progress(i, done, total)` on the caller's thread;
/// returning false cancels: every task's own progress callback returns false from then on,
/// tasks not yet started are skipped and `None` is returned. With one thread (or in wasm)
/// the tasks run in index order on the caller's thread.
pub fn map_in_order_by<T: Send>(
    order: &[usize],
    threads: usize,
    work: &(dyn Fn(usize, Progress) -> T + Sync),
    progress: &mut dyn FnMut(usize, u64, u64) -> bool,
) -> Option<Vec<T>> {
    #[cfg(not(target_arch = "wasm32"))]
    if threads > 1 && order.len() > 1 {
        return native::map(order, threads, work, progress, &mut |_, _| true);
    }
    let _ = threads;
    let mut cancelled = false;
    let mut out = Vec::with_capacity(order.len());
    for i in 0..order.len() {
        out.push(work(i, &mut |d, t| {
            cancelled |= !progress(i, d, t);
            !cancelled
        }));
        if cancelled {
            return None;
        }
    }
    Some(out)
}

/// `a()` and `b()`, on two threads at once when `threads > 1` (natively: `b` on a new
/// thread, `a` on the caller's), else one after the other on the caller's thread. A panic
/// in either is the caller's.
pub fn join<A: Send, B: Send>(
    threads: usize,
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B + Send,
) -> (A, B) {
    #[cfg(not(target_arch = "wasm32"))]
    if threads > 1 {
        return std::thread::scope(|s| {
            let b = s.spawn(b);
            let a = a();
            (a, b.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
        });
    }
    let _ = threads;
    (a(), b())
}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::mpsc;

    use super::Progress;

    enum Msg<T> {
        Progress(usize, u64, u64),
        Done(usize, T),
    }

    /// The scoped pool behind both maps: threads take the tasks of `order` in turn, their
    /// progress and results cross to the caller's thread over a channel (the callbacks are
    /// not `Send`), and a cancel from either callback reaches every task through a flag.
    pub(super) fn map<T: Send>(
        order: &[usize],
        threads: usize,
        work: &(dyn Fn(usize, Progress) -> T + Sync),
        progress: &mut dyn FnMut(usize, u64, u64) -> bool,
        done: &mut dyn FnMut(usize, usize) -> bool,
    ) -> Option<Vec<T>> {
        let n = order.len();
        let next = AtomicUsize::new(0);
        let cancel = AtomicBool::new(false);
        let mut results: Vec<Option<T>> = (0..n).map(|_| None).collect();
        std::thread::scope(|scope| {
            let (tx, rx) = mpsc::channel::<Msg<T>>();
            for _ in 0..threads.min(n) {
                let tx = tx.clone();
                let (next, cancel) = (&next, &cancel);
                scope.spawn(move || {
                    while !cancel.load(Ordering::Relaxed) {
                        let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) else {
                            break;
                        };
                        let result = work(i, &mut |d, t| {
                            let _ = tx.send(Msg::Progress(i, d, t));
                            !cancel.load(Ordering::Relaxed)
                        });
                        let _ = tx.send(Msg::Done(i, result));
                    }
                });
            }
            drop(tx);
            // Every thread's sender is dropped when it ends, which ends this loop.
            let mut finished = 0;
            for msg in rx {
                let go = match msg {
                    Msg::Progress(i, d, t) => progress(i, d, t),
                    Msg::Done(i, result) => {
                        results[i] = Some(result);
                        finished += 1;
                        done(finished, n)
                    }
                };
                if !go {
                    cancel.store(true, Ordering::Relaxed);
                }
            }
        });
        if cancel.load(Ordering::Relaxed) {
            return None;
        }
        results.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_index_order_whatever_the_threads() {
        let work = |i: usize| (0..=i as u64).sum::<u64>();
        let one = map_in_order(100, 1, &work, &mut |_, _| true).unwrap();
        for threads in [2, 3, 8] {
            assert_eq!(
                map_in_order(100, threads, &work, &mut |_, _| true).unwrap(),
                one
            );
        }
        // Cancelled after the third task finishes.
        assert!(map_in_order(100, 2, &work, &mut |d, _| d < 3).is_none());
    }

    #[test]
    fn tasks_handed_out_in_any_order_land_at_their_index() {
        let order: Vec<usize> = (0..50).rev().collect();
        let work = |i: usize, p: Progress| {
            p(i as u64, 50);
            i * i
        };
        let want: Vec<usize> = (0..50).map(|i| i * i).collect();
        for threads in [1, 2, 8] {
            let mut seen = [false; 50];
            let got = map_in_order_by(&order, threads, &work, &mut |i, d, _| {
                seen[i] = d == i as u64;
                true
            });
            assert_eq!(got.unwrap(), want);
            assert!(seen.iter().all(|&s| s), "every task's progress arrived");
        }
        // A cancel from the progress callback stops every task.
        let stop_at = |i: usize, p: Progress| (0..).take_while(|&d| p(d, 1000)).count() + i;
        for threads in [1, 3] {
            let got = map_in_order_by(&order, threads, &stop_at, &mut |_, d, _| d < 10);
            assert!(got.is_none());
        }
    }
}
