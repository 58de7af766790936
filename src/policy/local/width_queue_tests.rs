//! The width queue's tests (`width_queue.rs`).

use super::*;

fn q(idx: JobIdx, units: u32, secs: i64) -> QueuedJob {
    QueuedJob {
        idx,
        units,
        estimate: SimTime::from_secs(secs),
        queued_at: SimTime::ZERO,
    }
}

/// The width queue against a plain `Vec`: random pushes (at the back and the front),
/// removals and backfill searches
/// (across compactions) give the same jobs in the same order.
#[test]
fn width_queue_searches_like_a_scan() {
    let mut rng = crate::rng::SimRng::new(3);
    let mut wq = WidthQueue::default();
    let mut plain: Vec<QueuedJob> = Vec::new();
    let mut next_idx = 0;
    for _ in 0..3000 {
        for _ in 0..rng.range_u64(0, 6) {
            let job = q(
                next_idx,
                1 + rng.range_u64(0, 40) as u32,
                rng.range_u64(1, 500) as i64,
            );
            next_idx += 1;
            // Now and then a job goes to the front (a requeue after a failure).
            if rng.range_u64(0, 10) == 0 {
                wq.push_front(job);
                plain.insert(0, job);
            } else {
                wq.push(job);
                plain.push(job);
            }
        }
        let (free, extra) = (rng.range_u64(0, 40) as u32, rng.range_u64(0, 10) as u32);
        let window = SimTime::from_secs(rng.range_u64(0, 500) as i64);
        let ok = |j: &QueuedJob| j.units <= free && (j.units <= extra || j.estimate <= window);
        let expect: Vec<JobIdx> = plain.iter().filter(|j| ok(j)).map(|j| j.idx).collect();
        let mut got = Vec::new();
        let mut from = 0;
        while let Some(k) = wq.next_backfill(from, free, extra, window) {
            got.push((k, wq.at(k).idx));
            from = k + 1;
        }
        assert_eq!(got.iter().map(|g| g.1).collect::<Vec<_>>(), expect);
        assert_eq!(wq.len(), plain.len());
        assert_eq!(wq.first().map(|j| j.idx), plain.first().map(|j| j.idx));
        // Remove some of the matches (as a pass starts them), sometimes the head.
        let removed: Vec<usize> = got
            .iter()
            .filter(|_| rng.range_u64(0, 3) == 0)
            .map(|g| g.0)
            .collect();
        let gone: Vec<JobIdx> = removed.iter().map(|&k| wq.at(k).idx).collect();
        wq.remove_at(&removed);
        plain.retain(|j| !gone.contains(&j.idx));
        if rng.range_u64(0, 20) == 0 && !plain.is_empty() {
            let victim = plain[rng.range_u64(0, plain.len() as u64 - 1) as usize].idx;
            assert!(wq.withdraw(victim));
            plain.retain(|j| j.idx != victim);
        }
        assert_eq!(wq.to_vec(), plain);
    }
}

/// A [`Scan`] kept across calls finds what fresh calls find: while the tests only grow
/// stricter (less free, less extra, more caps), as a pass's do until it starts a job,
/// and after a looser one.
#[test]
fn a_kept_scan_finds_what_fresh_calls_find() {
    let mut rng = crate::rng::SimRng::new(11);
    for round in 0..200 {
        let mut wq = WidthQueue::default();
        let mut mem_of = Vec::new();
        for idx in 0..rng.range_u64(0, 5000) as JobIdx {
            let units = 1 + rng.range_u64(0, 16) as u32;
            wq.push(q(idx, units, rng.range_u64(1, 400) as i64));
            mem_of.push((rng.range_u64(0, 4) > 0).then(|| rng.range_u64(0, 5) * 10));
        }
        wq.fill_mems(|j| mem_of[j.idx as usize]);
        let gone: Vec<usize> = (0..wq.end()).filter(|_| rng.range_u64(0, 3) == 0).collect();
        wq.remove_at(&gone);
        let mut free = rng.range_u64(0, 16) as u32;
        let mut extra = rng.range_u64(0, 16) as u32;
        let window = SimTime::from_secs(rng.range_u64(0, 400) as i64);
        let (mut known, mut scan, mut from) = (Known::NONE, Scan::default(), 0);
        loop {
            let fresh = wq.next_backfill_known(from, free, extra, window, known);
            let kept = wq.next_in(&mut scan, from, (free, extra, window), known);
            assert_eq!(kept, fresh, "round {round}: from {from}");
            let Some(k) = kept else { break };
            from = k + 1 + rng.range_u64(0, 3) as usize;
            match rng.range_u64(0, 5) {
                4 => free += rng.range_u64(0, 2) as u32,
                0 => free = free.saturating_sub(rng.range_u64(0, 3) as u32),
                1 => extra = extra.saturating_sub(rng.range_u64(0, 3) as u32),
                2 => MemCap::new(rng.range_u64(0, 5) * 10, rng.range_u64(0, 8))
                    .admit(&mut known.short),
                _ => MemCap::new(rng.range_u64(0, 5) * 10, rng.range_u64(0, 8))
                    .admit(&mut known.delays),
            }
        }
    }
}

/// The memory lane's skips against a plain filter: a job is skipped exactly when
/// `Known` says so, on random queues, lanes and caps (across compactions and fronts).
#[test]
fn known_skips_exactly_what_it_says() {
    let mut rng = crate::rng::SimRng::new(5);
    let mut wq = WidthQueue::default();
    let mut mem_of = Vec::new();
    for step in 0..400 {
        for _ in 0..rng.range_u64(0, 80) {
            let idx = mem_of.len() as JobIdx;
            let job = q(
                idx,
                1 + rng.range_u64(0, 8) as u32,
                rng.range_u64(1, 50) as i64,
            );
            mem_of.push((rng.range_u64(0, 4) > 0).then(|| rng.range_u64(0, 5) * 10));
            match rng.range_u64(0, 10) {
                0 => wq.push_front(job),
                _ => wq.push(job),
            }
        }
        if step % 3 > 0 {
            wq.fill_mems(|j| mem_of[j.idx as usize]);
        }
        let cap = |rng: &mut crate::rng::SimRng| match rng.range_u64(0, 3) {
            0 => MemCap::NONE,
            _ => MemCap::new(rng.range_u64(0, 5) * 10, rng.range_u64(0, 8)),
        };
        let mut known = Known::NONE;
        for _ in 0..rng.range_u64(0, 6) {
            cap(&mut rng).admit(&mut known.short);
            cap(&mut rng).admit(&mut known.delays);
        }
        let (free, extra) = (rng.range_u64(0, 9) as u32, rng.range_u64(0, 9) as u32);
        let window = SimTime::from_secs(rng.range_u64(0, 50) as i64);
        // From any position, the first job no cap skips: as a plain filter finds it
        // (a span skipped whole must hold no such job).
        let skipped = |wq: &WidthQueue, k: usize| {
            let (job, lane) = (wq.at(k), wq.mems[k]);
            let short = (known.short.iter()).any(|c| lane >= c.mem && job.units > c.units);
            let delays = job.estimate > window
                && (known.delays.iter()).any(|c| lane == c.mem && job.units >= c.units);
            short || delays
        };
        for from in [0, wq.end() / 3, wq.end() / 2] {
            let plain = wq.iter().map(|(p, _)| p).find(|&p| {
                let job = wq.at(p);
                p >= from
                    && job.units <= free
                    && (job.units <= extra || job.estimate <= window)
                    && !skipped(&wq, p)
            });
            let got = wq.next_backfill_known(from, free, extra, window, known);
            assert_eq!(got, plain, "step {step}: from {from}");
        }
        let mut from = 0;
        while let Some(k) = wq.next_backfill(from, free, extra, window) {
            let (job, lane) = (wq.at(k), wq.mems[k]);
            let short = (known.short.iter()).any(|c| lane >= c.mem && job.units > c.units);
            let past = job.estimate > window;
            let delays =
                past && (known.delays.iter()).any(|c| lane == c.mem && job.units >= c.units);
            let got = wq.next_backfill_known(k, free, extra, window, known);
            match short || delays {
                true => assert_ne!(got, Some(k), "step {step}: job {} not skipped", job.idx),
                false => assert_eq!(got, Some(k), "step {step}: job {} skipped", job.idx),
            }
            // A lane read is the job's own, or 0 (not read yet, or put in front).
            let want = mem_of[job.idx as usize].map_or(0, mem_lane);
            assert!(lane == want || lane == 0, "step {step}");
            from = k + 1;
        }
        let gone: Vec<usize> = wq
            .iter()
            .map(|(p, _)| p)
            .filter(|_| rng.range_u64(0, 8) == 0)
            .collect();
        wq.remove_at(&gone);
    }
}
