use std::collections::VecDeque;

use super::sender::decide;
use super::{best_site, GridAction, GridMsg, GridParams, GridPolicy, GridView};
use crate::model::JobIdx;
use crate::time::SimTime;

/// Receiver-initiated (SOB §2.1.2), and with `symmetric` the symmetrically-initiated scheme
/// (§2.1.3).
///
/// A job whose home AWT is below φ goes home at once; otherwise it waits in its home grid
/// queue. Every σ each site (1) re-checks the AWT of the jobs in its grid queue and sends home
/// those now below φ, and (2) if its RUS is below δ, announces itself to every partner (the
/// message takes the latency to arrive). A site receiving an announcement offers the head
/// of its grid queue to the best of the volunteers heard at that instant (SOB Fig. 2: "find M
/// such that TC_M = min(TC_R)": minimum turnaround time AWT + ERT, within ε the lowest RUS, as
/// sender-initiated): the job moves when that is lower than at home. The decision is taken
/// once every announcement of the instant has arrived.
///
/// The σ re-check releases held jobs one at a time: each decision sees the home queue after
/// the previous release joined it.
///
/// Symmetric: a job whose home AWT is at least φ and whose site has heard no volunteer in the
/// last σ is placed at once as sender-initiated would; with a recent volunteer it is offered
/// to it first and waits in the grid queue if the volunteer is not better.
///
/// A job that cannot run at home at all is placed as sender-initiated would (otherwise it
/// could wait forever).
///
/// With `hold_at_home` (the other reading of SOB §2.1.2), a job that would wait in the grid
/// queue waits in its home *local* queue instead, where it may start; the σ re-check has
/// nothing to release, and a volunteer is offered the oldest such job still waiting, which
/// moves when the volunteer's turnaround time beats its own projected start at home plus
/// its run time there.
pub struct ReceiverInitiated {
    params: GridParams,
    symmetric: bool,
    queues: Vec<VecDeque<JobIdx>>,
    /// Per site (`hold_at_home`): jobs waiting in its local queue for a volunteer, oldest
    /// first; started ones are dropped when next looked at.
    seeking: Vec<VecDeque<JobIdx>>,
    /// Per site: the last volunteer heard and when.
    last_volunteer: Vec<Option<(u32, SimTime)>>,
    /// Per site: the volunteers heard at this instant, not yet decided on.
    offers: Vec<Vec<u32>>,
    /// Per site: whether its σ tick is on the heap. A site stops ticking once no job is
    /// left to arrive or held; a killed job offered to the grid again
    /// (`failure::RequeueAt::Grid`) after that starts it again ([`Self::tick_again`]).
    ticking: Vec<bool>,
}

impl ReceiverInitiated {
    pub fn new(params: GridParams, sites: usize, symmetric: bool) -> ReceiverInitiated {
        ReceiverInitiated {
            params,
            symmetric,
            queues: vec![VecDeque::new(); sites],
            seeking: vec![VecDeque::new(); sites],
            last_volunteer: vec![None; sites],
            offers: vec![Vec::new(); sites],
            ticking: vec![false; sites],
        }
    }

    /// Starts again the σ ticks of the sites that stopped ticking, for a job held after
    /// they stopped (one offered to the grid again after its run was killed): without them
    /// it would never be re-checked nor offered to a volunteer.
    fn tick_again(&mut self, out: &mut Vec<GridAction>) {
        for (site, ticking) in self.ticking.iter_mut().enumerate() {
            if !*ticking {
                *ticking = true;
                out.push(GridAction::After {
                    delay: self.params.sigma(),
                    msg: GridMsg::Tick { site: site as u32 },
                });
            }
        }
    }

    fn att(grid: &dyn GridView, site: u32, job: JobIdx) -> Option<SimTime> {
        grid.awt(site, job).map(|awt| awt + grid.ert(site, job))
    }

    /// Moves `job` to the best of `volunteers` (minimum ATT, ε/RUS ties) when that is
    /// cheaper than home; true if moved.
    fn offer(
        &self,
        grid: &dyn GridView,
        job: JobIdx,
        volunteers: &[u32],
        out: &mut Vec<GridAction>,
    ) -> bool {
        let home = grid.home(job);
        let candidates = volunteers.iter().copied().filter(|&v| v != home);
        let Some((best, there)) = best_site(grid, job, candidates, self.params.epsilon()) else {
            return false;
        };
        match Self::att(grid, home, job) {
            Some(here) if there >= here => return false,
            _ => {}
        }
        out.push(GridAction::Dispatch { job, site: best });
        true
    }

    /// Forgets the jobs of `site` that no longer wait in its local queue (started).
    fn prune_seeking(&mut self, site: u32, grid: &dyn GridView) {
        self.seeking[site as usize].retain(|&j| grid.waiting_at(j) == Some(site));
    }

    /// `hold_at_home`: offers the oldest job still waiting in `site`'s local queue to the
    /// best of `volunteers`; it moves when their turnaround time beats its projected start
    /// at home plus its run time there.
    fn offer_queued(
        &mut self,
        site: u32,
        grid: &dyn GridView,
        volunteers: &[u32],
        out: &mut Vec<GridAction>,
    ) {
        self.prune_seeking(site, grid);
        let seeking = &mut self.seeking[site as usize];
        let Some(&job) = seeking.front() else {
            return;
        };
        let candidates = volunteers.iter().copied().filter(|&v| v != site);
        let Some((best, there)) = best_site(grid, job, candidates, self.params.epsilon()) else {
            return;
        };
        if let Some(wait) = grid.queued_wait(site, job) {
            if there >= wait + grid.ert(site, job) {
                return;
            }
        }
        seeking.pop_front();
        out.push(GridAction::Move {
            job,
            from: site,
            to: best,
        });
    }

    /// Re-checks the held jobs of `site` from position `from`: the first whose home AWT is now
    /// below φ goes home, and the rest wait for a `Recheck` (so the next decision sees it).
    fn recheck(&mut self, site: u32, from: usize, grid: &dyn GridView, out: &mut Vec<GridAction>) {
        let queue = &mut self.queues[site as usize];
        let phi = self.params.phi();
        let found =
            (from..queue.len()).find(|&i| matches!(grid.awt(site, queue[i]), Some(a) if a < phi));
        if let Some(i) = found {
            if let Some(job) = queue.remove(i) {
                out.push(GridAction::Dispatch { job, site });
            }
            if i < queue.len() {
                out.push(GridAction::After {
                    delay: SimTime::ZERO,
                    msg: GridMsg::Recheck {
                        site,
                        from: i as u32,
                    },
                });
            }
        }
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
            self.ticking[site as usize] = true;
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
                    if self.offer(grid, job, &[v], out) {
                        return;
                    }
                }
            }
        }
        if self.params.hold_at_home {
            out.push(GridAction::Dispatch { job, site: home });
            self.seeking[home as usize].push_back(job);
        } else {
            self.queues[home as usize].push_back(job);
        }
        self.tick_again(out);
    }

    fn on_message(&mut self, msg: GridMsg, grid: &dyn GridView, out: &mut Vec<GridAction>) {
        match msg {
            GridMsg::Tick { site } => {
                // Jobs whose home wait dropped below φ go home, in queue order.
                self.recheck(site, 0, grid, out);
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
                self.prune_seeking(site, grid);
                let seeking_anywhere = self.seeking.iter().any(|q| !q.is_empty());
                if grid.arrivals_remaining() || self.held() > 0 || seeking_anywhere {
                    out.push(GridAction::After {
                        delay: self.params.sigma(),
                        msg: GridMsg::Tick { site },
                    });
                } else {
                    self.ticking[site as usize] = false;
                }
            }
            GridMsg::Recheck { site, from } => self.recheck(site, from as usize, grid, out),
            GridMsg::Volunteer { volunteer, to } => {
                let t = to as usize;
                self.last_volunteer[t] = Some((volunteer, grid.now()));
                self.offers[t].push(volunteer);
                if self.offers[t].len() == 1 {
                    // Decide once every announcement of this instant is in (they were
                    // queued before this message's answer).
                    out.push(GridAction::After {
                        delay: SimTime::ZERO,
                        msg: GridMsg::Decide { site: to },
                    });
                }
            }
            GridMsg::Decide { site } => {
                let volunteers = std::mem::take(&mut self.offers[site as usize]);
                if self.params.hold_at_home {
                    self.offer_queued(site, grid, &volunteers, out);
                } else if let Some(&job) = self.queues[site as usize].front() {
                    if self.offer(grid, job, &volunteers, out) {
                        self.queues[site as usize].pop_front();
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
