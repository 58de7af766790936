use std::collections::VecDeque;

use super::{best_site, home_first, GridAction, GridMsg, GridParams, GridPolicy, GridView};
use crate::model::JobIdx;
use crate::time::SimTime;

/// Sender-initiated (SOB §2.1.1). A job whose home AWT is below φ goes home at once.
/// Otherwise its grid scheduler queries every partner (all sites) for AWT, ERT and RUS and
/// moves the job to the minimum turnaround cost. A scheduler has at most one query out: the
/// next job waits in the grid queue until the answers to the previous one are back. With a
/// latency L the partners answer as of the query's arrival is modelled as the answers' arrival
/// (now + 2L): the costs are evaluated when the answers are back.
pub struct SenderInitiated {
    params: GridParams,
    /// Per site: jobs waiting for their query, oldest first.
    waiting: Vec<VecDeque<JobIdx>>,
    /// Per site: whether a query is out.
    busy: Vec<bool>,
}

impl SenderInitiated {
    pub fn new(params: GridParams, sites: usize) -> SenderInitiated {
        SenderInitiated {
            params,
            waiting: vec![VecDeque::new(); sites],
            busy: vec![false; sites],
        }
    }

    /// Sends the query for the next waiting job of `site`, if none is out.
    fn next_query(&mut self, site: u32, grid: &dyn GridView, out: &mut Vec<GridAction>) {
        let s = site as usize;
        if self.busy[s] {
            return;
        }
        let Some(job) = self.waiting[s].pop_front() else {
            return;
        };
        let delay = self.params.latency() + self.params.latency();
        if delay == SimTime::ZERO {
            decide(job, grid, self.params, out);
            // Answers were immediate: keep draining the queue.
            self.next_query(site, grid, out);
        } else {
            self.busy[s] = true;
            self.waiting[s].push_front(job);
            out.push(GridAction::After {
                delay,
                msg: GridMsg::Answers { site, job },
            });
        }
    }
}

/// S-I's choice for `job`: the minimum turnaround cost over home and partners.
pub(super) fn decide(
    job: JobIdx,
    grid: &dyn GridView,
    params: GridParams,
    out: &mut Vec<GridAction>,
) {
    let site = best_site(grid, job, home_first(grid, job), params.epsilon())
        .map(|(s, _)| s)
        .unwrap_or(grid.home(job));
    out.push(GridAction::Dispatch { job, site });
}

impl GridPolicy for SenderInitiated {
    fn name(&self) -> &'static str {
        "sender"
    }

    fn on_arrival(&mut self, job: JobIdx, grid: &dyn GridView, out: &mut Vec<GridAction>) {
        let home = grid.home(job);
        match grid.awt(home, job) {
            Some(awt) if awt < self.params.phi() => {
                out.push(GridAction::Dispatch { job, site: home })
            }
            _ => {
                self.waiting[home as usize].push_back(job);
                self.next_query(home, grid, out);
            }
        }
    }

    fn on_message(&mut self, msg: GridMsg, grid: &dyn GridView, out: &mut Vec<GridAction>) {
        if let GridMsg::Answers { site, job } = msg {
            let s = site as usize;
            if self.waiting[s].front() == Some(&job) {
                self.waiting[s].pop_front();
            }
            self.busy[s] = false;
            decide(job, grid, self.params, out);
            self.next_query(site, grid, out);
        }
    }

    fn held(&self) -> usize {
        self.waiting.iter().map(VecDeque::len).sum()
    }
}
