//! What a power policy did in a run (issue #40): the nodes it switched off and woke, and
//! the jobs whose start waited for a boot, as the engine's `sim/power.rs` records them and
//! the node check and the energy accounting read them. Plain data.

use crate::model::JobIdx;
use crate::time::SimTime;

/// One time a node was switched off: idle for the policy's timeout, it switched off, slept,
/// and (unless it slept to the end of the run) booted for a job placed on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OffCycle {
    /// The site.
    pub site: u32,
    /// The node, numbered within its site.
    pub node: u32,
    /// Switching off from here (its last job ended the timeout before).
    pub off_at: SimTime,
    /// Off from here (`off_at` + its type's switch-off time).
    pub asleep_at: SimTime,
    /// When a job was placed on it, which woke it ([`SimTime::NEVER`]: none was).
    pub woken_at: SimTime,
    /// Booting from here, when a job was placed on it ([`SimTime::NEVER`]: it stayed off
    /// to the end of the run). A job placed while it was still switching off waits for the
    /// switch-off to end, then for the boot.
    pub boot_at: SimTime,
    /// On again from here (`boot_at` + its type's boot time; `NEVER` with `boot_at`).
    pub on_at: SimTime,
}

/// What the idle-timeout power policy did in a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PowerLog {
    /// A node idle this long is switched off.
    pub idle_off_after: SimTime,
    /// Every switch-off, by site, node and time.
    pub cycles: Vec<OffCycle>,
    /// The jobs whose start waited for a node to boot, with the instant their policy
    /// started them (their nodes were held from then; they computed from their start).
    pub delayed: Vec<(JobIdx, SimTime)>,
}

impl PowerLog {
    /// When job `idx` took its nodes: the instant its policy started it, which is its start
    /// unless it waited for a boot (`delayed` is in job order).
    pub fn held_from(&self, idx: JobIdx, start: SimTime) -> SimTime {
        match self.delayed.binary_search_by_key(&idx, |d| d.0) {
            Ok(i) => self.delayed[i].1,
            Err(_) => start,
        }
    }

    /// Nodes woken (switch-offs that ended in a boot).
    pub fn boots(&self) -> usize {
        self.cycles
            .iter()
            .filter(|c| c.boot_at != SimTime::NEVER)
            .count()
    }
}
