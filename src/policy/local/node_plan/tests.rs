use super::*;

fn t(s: i64) -> SimTime {
    SimTime(s)
}

fn cores(n: u32) -> Share {
    Share {
        node: 0,
        cores: n,
        mem_kb: 10 * u64::from(n),
        gpus: 0,
    }
}

/// Holding and giving back leave a node's plan as it was (equal steps merged), and the
/// peak over a window is the most of each resource used in it.
#[test]
fn a_line_holds_gives_back_and_merges() {
    let mut line = Line::default();
    line.change(t(10), t(20), &cores(2), true);
    line.change(t(15), t(30), &cores(1), true);
    let peak = |from, to| line.peak(t(from), t(to)).0.cores;
    assert_eq!(
        [
            peak(0, 10),
            peak(0, 11),
            peak(15, 16),
            peak(20, 40),
            peak(30, 40)
        ],
        [0, 2, 3, 1, 0]
    );
    assert_eq!(line.peak(t(0), t(40)).0.mem_kb, 30);
    line.change(t(15), t(30), &cores(1), false);
    assert_eq!(
        line.steps,
        [(t(10), line.steps[0].1), (t(20), Use::default())]
    );
    line.change(t(10), t(20), &cores(2), false);
    assert!(line.steps.is_empty(), "{:?}", line.steps);
}

/// After a failed try, the next instant a window can find more room: the end of the last
/// step at the node's most use in the window (a window starting before it still holds it);
/// `NEVER` for a node nothing uses there.
#[test]
fn the_room_grows_only_past_the_last_peak() {
    let mut line = Line::default();
    line.change(t(10), t(20), &cores(2), true);
    line.change(t(30), t(40), &cores(2), true);
    line.change(t(50), t(60), &cores(1), true);
    // [0, 55): the most is 2 cores, last held until 40.
    assert_eq!(line.peak(t(0), t(55)).1, t(40));
    // [45, 70): only the 1-core step, until 60.
    assert_eq!(line.peak(t(45), t(70)).1, t(60));
    assert_eq!(line.peak(t(60), t(70)).1, SimTime::NEVER);
    // Forgetting the past keeps the step in force now.
    line.forget_before(t(35));
    assert_eq!(line.steps[0].0, t(30));
    assert_eq!(line.peak(t(35), t(36)).0.cores, 2);
}
