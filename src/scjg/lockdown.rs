//! The dedicated lock-down baseline (SCJG §1, §4, Fig. 7): `units` units of a site are kept
//! from local jobs for `hours` every day from `start_hour` on (day 0 starts at the
//! workload's origin, time 0), and metajobs run only there.
//!
//! To local policies each window is a reservation (a fixed block they backfill around).
//! Metajobs wait in one FCFS queue for the block; the head starts when a window is open,
//! the block has its units free and it would end (by its wallclock limit) before the window
//! closes. A metajob wider than the block or longer than a window can never run: rejected.

use std::collections::VecDeque;

use super::Lockdown;
use crate::policy::local::Reservation;
use crate::time::SimTime;

const DAY: SimTime = SimTime::from_secs(86_400);

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
