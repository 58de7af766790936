use super::*;

fn t(s: i64) -> SimTime {
    SimTime(s)
}

#[test]
fn freed_log_answers_what_was_released_after_a_stamp() {
    let mut rng = crate::rng::SimRng::new(9);
    let mut log = FreedLog::default();
    let mut plain: Vec<(u64, SimTime, SimTime, u32)> = Vec::new();
    for round in 0..3000 {
        let from = t(rng.range_u64(0, 500) as i64);
        let to = from + t(1 + rng.range_u64(0, 500) as i64);
        let units = rng.range_u64(0, 64) as u32;
        log.push(from, to, units);
        plain.push((log.now(), from, to, units));
        if round % 500 == 499 {
            // As a pass does: what no job can still wait for goes.
            let oldest = log.now() - rng.range_u64(0, 20);
            log.forget_through(oldest);
            plain.retain(|r| r.0 > oldest);
        }
        let c = log.now().saturating_sub(rng.range_u64(0, 40));
        let after: Vec<_> = plain.iter().filter(|r| r.0 > c).collect();
        let want = (!after.is_empty()).then(|| Released {
            first: after.iter().map(|r| r.1).min().unwrap(),
            end: after.iter().map(|r| r.2).max().unwrap(),
            units: after.iter().map(|r| r.3).max().unwrap(),
        });
        assert_eq!(log.since(c), [want, None], "round {round}");
    }
}

/// As a pass asks it: stamps that never decrease, with releases of both kinds pushed
/// between the questions (the walked-forward answers must be what a scan gives).
#[test]
fn freed_log_answers_a_pass_in_order() {
    let mut rng = crate::rng::SimRng::new(10);
    let mut log = FreedLog::default();
    let mut plain: Vec<(u64, bool, SimTime, SimTime, u32)> = Vec::new();
    for pass in 0..200 {
        let began = log.now();
        let mut asking = rng.range_u64(0, began);
        for _ in 0..rng.range_u64(1, 60) {
            let from = t(rng.range_u64(0, 500) as i64);
            let to = from + t(1 + rng.range_u64(0, 500) as i64);
            let slot = rng.range_u64(0, 2) == 0;
            let units = if slot {
                log.push_slot(from, to);
                u32::MAX
            } else {
                let units = rng.range_u64(0, 64) as u32;
                log.push(from, to, units);
                units
            };
            plain.push((log.now(), slot, from, to, units));
            asking = (asking + rng.range_u64(0, 3)).min(log.now());
            let want = |slot: bool| {
                let after: Vec<_> = plain
                    .iter()
                    .filter(|r| r.0 > asking && r.1 == slot)
                    .collect();
                (!after.is_empty()).then(|| Released {
                    first: after.iter().map(|r| r.2).min().unwrap(),
                    end: after.iter().map(|r| r.3).max().unwrap(),
                    units: after.iter().map(|r| r.4).max().unwrap(),
                })
            };
            assert_eq!(log.since(asking), [want(false), want(true)], "pass {pass}");
        }
        log.forget_through(began);
        plain.retain(|r| r.0 > began);
    }
}
