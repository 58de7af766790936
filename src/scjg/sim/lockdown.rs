//! The dedicated lock-down baseline (SCJG §1, §4, Fig. 7): `units` units of a site are kept
//! from local jobs for `hours` every day from `start_hour` on (day 0 starts at the
//! workload's origin, time 0), and metajobs run only there.
//!
//! To local policies each window is a reservation (a fixed block they backfill around).
//! Metajobs wait in one FCFS queue for the block; the head starts when a window is open,
//! the block has its units free and it would end (by its wallclock limit) before the window
//! closes. A metajob wider than the block or longer than a window can never run: rejected.

use std::collections::VecDeque;

use super::{Ev, Run};
use crate::policy::local::Reservation;
use crate::scjg::{Lockdown, MetaStatus};
use crate::time::SimTime;

pub(super) const DAY: SimTime = SimTime::from_secs(86_400);

/// Holder numbers of window reservations: `WINDOW_HOLDER + day`.
pub const WINDOW_HOLDER: u64 = 1 << 62;

impl Lockdown {
    /// Checks the parameters against a site of `capacity` units.
    pub fn validate(&self, capacity: u32) -> Result<(), String> {
        if self.units == 0 || self.units > capacity {
            return Err(format!(
                "lock-down units must be between 1 and the site's {capacity} units (got {})",
                self.units
            ));
        }
        if !(self.hours > 0.0 && self.hours <= 24.0) {
            return Err(format!(
                "lock-down hours must be in (0, 24] (got {})",
                self.hours
            ));
        }
        if !(0.0..24.0).contains(&self.start_hour) {
            return Err(format!(
                "lock-down start hour must be in [0, 24) (got {})",
                self.start_hour
            ));
        }
        Ok(())
    }

    /// The window of day `day`: `[day + start_hour, + hours)`.
    pub fn window(&self, day: i64) -> (SimTime, SimTime) {
        let start = SimTime(DAY.0 * day + (self.start_hour * 3_600_000.0).round() as i64);
        let len = SimTime((self.hours * 3_600_000.0).round() as i64);
        (start, start + len)
    }

    /// The window's length.
    pub fn length(&self) -> SimTime {
        let (a, b) = self.window(0);
        b - a
    }

    /// Day `day`'s window as a reservation.
    pub fn reservation(&self, day: i64) -> Reservation {
        let (start, end) = self.window(day);
        Reservation {
            start,
            end,
            units: self.units,
            holder: WINDOW_HOLDER + day as u64,
        }
    }
}

/// The metajobs' side of the block.
#[derive(Debug, Default)]
pub struct Block {
    pub free: u32,
    /// Metajobs waiting, FCFS.
    pub queue: VecDeque<u32>,
}

impl Block {
    /// The metajobs (by index) that start now in the window `[open, close)` (the caller
    /// checked it is open), in queue order; `need(m) = (units, wallclock)`.
    pub fn start_now(
        &mut self,
        now: SimTime,
        close: SimTime,
        need: impl Fn(u32) -> (u32, SimTime),
    ) -> Vec<u32> {
        let mut started = Vec::new();
        while let Some(&m) = self.queue.front() {
            let (units, wallclock) = need(m);
            if units > self.free || now + wallclock > close {
                break;
            }
            self.free -= units;
            started.push(m);
            self.queue.pop_front();
        }
        started
    }
}

/// The lock-down block.
impl Run<'_> {
    /// Creates lock-down windows through day `last` (reservations at site 0 and events).
    pub(super) fn add_windows(&mut self, last: i64) {
        let Some((l, _)) = self.block.as_ref() else {
            return;
        };
        let l = *l;
        while self.next_day <= last {
            let day = self.next_day;
            let (open, close) = l.window(day);
            self.sites[0].reserve(l.reservation(day));
            self.windows.push((open, close));
            self.events.push(open, Ev::WindowOpen);
            self.events.push(close, Ev::WindowClose(day));
            self.next_day += 1;
        }
    }

    pub(super) fn work_remains(&self) -> bool {
        self.local_submits_left > 0
            || self.meta.iter().any(|m| m.status == MetaStatus::Waiting)
            || self
                .sites
                .iter()
                .any(|s| !s.running.is_empty() || s.policy.queue_len() > 0)
    }

    /// Starts the block's waiting metajobs if a window is open now.
    pub(super) fn try_block(&mut self) {
        let now = self.now;
        let Some((l, block)) = self.block.as_mut() else {
            return;
        };
        let day = now.0.div_euclid(DAY.0);
        let Some((_, close)) = [day, day - 1]
            .into_iter()
            .map(|d| l.window(d))
            .find(|&(a, b)| a <= now && now < b)
        else {
            return;
        };
        let metajobs = self.input.metajobs;
        let started = block.start_now(now, close, |m| {
            let mj = &metajobs[m as usize];
            (mj.request.units(), mj.wallclock)
        });
        for m in started {
            let mj = &metajobs[m as usize];
            let end = now + mj.runtime.min(mj.wallclock);
            self.meta[m as usize].status = MetaStatus::Ran {
                start: now,
                end,
                parts: vec![(0, mj.request.units())],
            };
            self.events.push(end, Ev::BlockEnd(m));
        }
    }

    pub(super) fn block_end(&mut self, m: u32) {
        let units = self.metajob(m).request.units();
        if let Some((_, block)) = self.block.as_mut() {
            block.free += units;
        }
        self.try_block();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_repeat_daily() {
        let l = Lockdown {
            units: 48,
            start_hour: 8.0,
            hours: 8.0,
        };
        assert_eq!(
            l.window(1),
            (
                SimTime::from_secs(86_400 + 8 * 3600),
                SimTime::from_secs(86_400 + 16 * 3600)
            )
        );
        assert!(l.validate(192).is_ok());
        assert!(l.validate(40).is_err());
        let mut b = Block {
            free: 48,
            queue: [0, 1, 2].into(),
        };
        let need = |m: u32| {
            [
                (40, SimTime::from_secs(100)),
                (10, SimTime::from_secs(10)),
                (1, SimTime::from_secs(1)),
            ][m as usize]
        };
        // Job 0 starts; job 1 (10 units) does not fit the 8 left, and FCFS stops there.
        assert_eq!(
            b.start_now(SimTime::ZERO, SimTime::from_secs(1000), need),
            vec![0]
        );
        assert_eq!(b.queue.len(), 2);
    }
}
