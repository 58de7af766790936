use std::collections::VecDeque;

use super::sender::decide;
use super::{GridAction, GridMsg, GridParams, GridPolicy, GridView};
use crate::model::JobIdx;
use crate::time::SimTime;

/// Receiver-initiated (SOB §2.1.2), and with `symmetric` the symmetrically-initiated scheme
/// (§2.1.3).
///
/// A job whose home AWT is below φ goes home at once; otherwise it waits in its home grid
/// queue. Every σ each site (1) re-checks the AWT of the jobs in its grid queue and sends home
/// those now below φ, and (2) if its RUS is below δ, announces itself to every partner (the
/// message takes the latency to arrive). A site receiving an announcement offers the head
/// of its grid queue: the job moves when the volunteer's turnaround time (AWT + ERT) is lower
/// than at home. The ATT exchange is evaluated when the announcement arrives.
///
/// Symmetric: a job whose home AWT is at least φ and whose site has heard no volunteer in the
/// last σ is placed at once as sender-initiated would; with a recent volunteer it is offered
/// to it first and waits in the grid queue if the volunteer is not better.
///
/// A job that cannot run at home at all is placed as sender-initiated would (otherwise it
/// could wait forever).
pub struct ReceiverInitiated {
    params: GridParams,
    symmetric: bool,
    queues: Vec<VecDeque<JobIdx>>,
    /// Per site: the last volunteer heard and when.
    last_volunteer: Vec<Option<(u32, SimTime)>>,
}

impl ReceiverInitiated {
    pub fn new(params: GridParams, sites: usize, symmetric: bool) -> ReceiverInitiated {
        ReceiverInitiated {
            params,
            symmetric,
            queues: vec![VecDeque::new(); sites],
            last_volunteer: vec![None; sites],
        }
    }

    fn att(grid: &dyn GridView, site: u32, job: JobIdx) -> Option<SimTime> {
        grid.awt(site, job).map(|awt| awt + grid.ert(site, job))
    }

    /// Moves `job` to `volunteer` when that is cheaper than home; true if moved.
    fn offer(grid: &dyn GridView, job: JobIdx, volunteer: u32, out: &mut Vec<GridAction>) -> bool {
        let home = grid.home(job);
        if volunteer == home {
            return false;
        }
        match (Self::att(grid, volunteer, job), Self::att(grid, home, job)) {
            (Some(there), Some(here)) if there < here => {}
            (Some(_), None) => {}
            _ => return false,
        }
        out.push(GridAction::Dispatch {
            job,
            site: volunteer,
        });
        true
    }
}

impl GridPolicy for ReceiverInitiated {
    fn name(&self) -> &'static str {
        if self.symmetric {
            "symmetric"
        } else {
            "receiver"
        }
    }

    fn start(&mut self, grid: &dyn GridView, out: &mut Vec<GridAction>) {
        for site in 0..grid.sites() as u32 {
            out.push(GridAction::After {
                delay: self.params.sigma(),
                msg: GridMsg::Tick { site },
            });
        }
    }

    fn on_arrival(&mut self, job: JobIdx, grid: &dyn GridView, out: &mut Vec<GridAction>) {
        let home = grid.home(job);
        let awt = grid.awt(home, job);
        match awt {
            Some(a) if a < self.params.phi() => {
                out.push(GridAction::Dispatch { job, site: home });
                return;
            }
            None => {
                decide(job, grid, self.params, out);
                return;
            }
            Some(_) => {}
        }
        if self.symmetric {
            let recent = self.last_volunteer[home as usize]
                .filter(|&(_, at)| at + self.params.sigma() > grid.now());
            match recent {
                None => {
                    decide(job, grid, self.params, out);
                    return;
                }
                Some((v, _)) => {
                    if Self::offer(grid, job, v, out) {
                        return;
                    }
                }
            }
        }
        self.queues[home as usize].push_back(job);
    }

    fn on_message(&mut self, msg: GridMsg, grid: &dyn GridView, out: &mut Vec<GridAction>) {
        match msg {
            GridMsg::Tick { site } => {
                let s = site as usize;
                // Jobs whose home wait dropped below φ go home, in queue order.
                let phi = self.params.phi();
                let mut kept = VecDeque::with_capacity(self.queues[s].len());
                while let Some(job) = self.queues[s].pop_front() {
                    match grid.awt(site, job) {
                        Some(a) if a < phi => out.push(GridAction::Dispatch { job, site }),
                        _ => kept.push_back(job),
                    }
                }
                self.queues[s] = kept;
                if grid.rus(site) < self.params.delta {
                    for to in (0..grid.sites() as u32).filter(|&p| p != site) {
                        out.push(GridAction::After {
                            delay: self.params.latency(),
                            msg: GridMsg::Volunteer {
                                volunteer: site,
                                to,
                            },
                        });
                    }
                }
                if grid.arrivals_remaining() || self.held() > 0 {
                    out.push(GridAction::After {
                        delay: self.params.sigma(),
                        msg: GridMsg::Tick { site },
                    });
                }
            }
            GridMsg::Volunteer { volunteer, to } => {
                let t = to as usize;
                self.last_volunteer[t] = Some((volunteer, grid.now()));
                if let Some(&job) = self.queues[t].front() {
                    if Self::offer(grid, job, volunteer, out) {
                        self.queues[t].pop_front();
                    }
                }
            }
            GridMsg::Answers { .. } => {}
        }
    }

    fn held(&self) -> usize {
        self.queues.iter().map(VecDeque::len).sum()
    }
}
