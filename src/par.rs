//! Independent work on all cores, natively, with results in a fixed order: the one place
//! (with `scenario`'s runs) that starts threads. The engine itself has none; in wasm, and
//! with one thread, everything runs in order on the caller's thread.

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
        return native::map_in_order(n, threads, work, done);
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

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::mpsc;

    pub(super) fn map_in_order<T: Send>(
        n: usize,
        threads: usize,
        work: &(dyn Fn(usize) -> T + Sync),
        done: &mut dyn FnMut(usize, usize) -> bool,
    ) -> Option<Vec<T>> {
        let next = AtomicUsize::new(0);
        let cancel = AtomicBool::new(false);
        let mut results: Vec<Option<T>> = (0..n).map(|_| None).collect();
        std::thread::scope(|scope| {
            let (tx, rx) = mpsc::channel::<(usize, T)>();
            for _ in 0..threads.min(n) {
                let tx = tx.clone();
                let (next, cancel) = (&next, &cancel);
                scope.spawn(move || {
                    while !cancel.load(Ordering::Relaxed) {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= n {
                            break;
                        }
                        let _ = tx.send((i, work(i)));
                    }
                });
            }
            drop(tx);
            let mut finished = 0;
            for (i, result) in rx {
                results[i] = Some(result);
                finished += 1;
                if !done(finished, n) {
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
}
