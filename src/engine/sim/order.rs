//! The order of the events of one instant ([`EventOrder`]): Gridscope's (all events, then
//! one pass), CQSim's and pyss's (a pass after each event, in their own orders). Every
//! divergence between simulators' schedules of one policy starts at such an instant.

use super::{Event, SimError, Simulation};
use crate::engine::outcome::EventOrder;

impl Simulation<'_> {
    /// Handles every event of the instant `self.now` and the scheduling passes after them,
    /// in the configured order.
    pub(super) fn handle_instant(&mut self) -> Result<(), SimError> {
        match self.cfg.event_order {
            EventOrder::Gridscope => {
                self.handle_due_events()?;
                self.handle_arrivals();
                self.schedule_touched()?;
            }
            EventOrder::Cqsim => {
                self.each_due_event_then_pass()?;
                self.each_arrival_then_pass()?;
            }
            EventOrder::Pyss => {
                // pyss plans with estimates: a job whose estimated slice ends now is free
                // before its termination event, which comes after the submissions; that
                // event still runs a pass, in its place among the other events due.
                enum Due {
                    Event(Event),
                    PassAt(u32),
                }
                let mut due = Vec::new();
                while let Some((_, event)) = self.events.pop_until(self.now) {
                    match event {
                        Event::Complete(idx) if self.predicted_end(idx) == self.now => {
                            let site = self.outcomes[idx as usize].site;
                            self.handle_event(event)?;
                            due.push(Due::PassAt(site));
                        }
                        _ => due.push(Due::Event(event)),
                    }
                }
                self.each_arrival_then_pass()?;
                for d in due {
                    match d {
                        Due::Event(event) => self.handle_event(event)?,
                        Due::PassAt(site) => {
                            let now = self.now;
                            self.sites[site as usize].policy.released(now, 0, now);
                            self.touched.push(site);
                        }
                    }
                    self.schedule_touched()?;
                }
                // Messages a pass sent for now (zero latency), one pass after each.
                self.each_due_event_then_pass()?;
            }
        }
        Ok(())
    }

    /// The per-event conventions: every event due now, a scheduling pass after each.
    fn each_due_event_then_pass(&mut self) -> Result<(), SimError> {
        while let Some((_, event)) = self.events.pop_until(self.now) {
            self.handle_event(event)?;
            self.schedule_touched()?;
        }
        Ok(())
    }

    /// The per-event conventions: every arrival now, a scheduling pass after each.
    fn each_arrival_then_pass(&mut self) -> Result<(), SimError> {
        while self.handle_next_arrival() {
            self.schedule_touched()?;
        }
        Ok(())
    }
}
