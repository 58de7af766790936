//! A run set against the log it replays (issue #42, docs/slurm.md "Against the log"): a
//! log records how long each job really waited, so a policy meant to be the site's own can
//! be scored by how close its waits come to those.
//!
//! Two measures, on the jobs that ran in the run and have a wait in the log:
//! - per job, the wait error `simulated wait − logged wait`, summed up as its mean (the
//!   bias), its mean absolute value and the share within an hour;
//! - FastSim's (Parmar et al., "FastSim", HPE 2024; `scheduler/plotting.py`,
//!   `rolling_window`): the jobs binned by the hour they were submitted in, the mean wait
//!   of the jobs submitted in each 14-day window starting on an hour, for the run and for
//!   the log, over every window that starts at least 48 h after the first submit and at
//!   least 48 h before the last window's start; then the mean absolute percentage error of
//!   the run's moving average against the log's, over the windows whose logged mean is not
//!   0, and the mean absolute error over all of them (an empty window counts 0 in both).
//!
//! Sums are exact (integer ticks); only the means are floating point, so the numbers are the
//! same on every platform.

use serde::{Deserialize, Serialize};

use crate::engine::Outcome;
use crate::model::Job;
use crate::time::{SimTime, TICKS_PER_SEC};

/// FastSim's window: two weeks.
pub const WINDOW_DAYS: u32 = 14;
/// Windows that start within this many hours of either end are left out, as FastSim does
/// (`hours[48:-48]`).
const EDGE_HOURS: usize = 48;
/// The moving averages the page draws: at most this many windows, evenly spaced.
const CURVE_POINTS: usize = 400;
const HOUR: i64 = 3600 * TICKS_PER_SEC;

/// What each field of a run's `vs_log` means, with its formula and source (`gridscope help
/// metrics` and the page print them).
pub const VS_LOG_HELP: &[super::MetricHelp] = &[
    super::MetricHelp { key: "vs_log.jobs", formula: "jobs compared: they ran in the run and the log records their wait (SWF/GWF field 3, sacct Start − Submit); jobs_without_logged_wait and jobs_not_run count the rest", source: "docs/slurm.md" },
    super::MetricHelp { key: "vs_log.mean_error_s", formula: "mean over compared jobs of (simulated wait − logged wait): above 0 the run makes jobs wait longer than the site did", source: "docs/slurm.md" },
    super::MetricHelp { key: "vs_log.mean_abs_error_s", formula: "mean over compared jobs of |simulated wait − logged wait|", source: "docs/slurm.md" },
    super::MetricHelp { key: "vs_log.within_hour", formula: "share of compared jobs with |simulated wait − logged wait| ≤ 3600 s", source: "docs/slurm.md" },
    super::MetricHelp { key: "vs_log.by_partition", formula: "per partition (SWF field 16, sacct Partition) when the compared jobs are in more than one: jobs, logged and simulated mean wait, mean error and mean |error|, as above", source: "docs/slurm.md" },
    super::MetricHelp { key: "vs_log.by_user", formula: "per user (SWF field 12, sacct User) when the compared jobs are of more than one: jobs, logged and simulated mean wait, mean error and mean |error|, as above (a site's question: whose waits does the policy move?)", source: "docs/slurm.md" },
    super::MetricHelp { key: "vs_log.moving_mape_percent", formula: "jobs binned by submit hour; per 14-day window starting on an hour (48 h in from either end), mean wait in the run and in the log; 100 × mean over windows (logged mean ≠ 0) of |sim − log| / log (moving_mae_s: mean |sim − log| over all windows)", source: "FastSim (Parmar et al., HPE), scheduler/plotting.py rolling_window" },
];

/// A run against the log's waits.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct VsLog {
    /// Jobs compared: they ran in the run and the log has their wait.
    pub jobs: u64,
    /// Jobs of the workload whose log record has no wait (-1): not compared.
    pub jobs_without_logged_wait: u64,
    /// Jobs with a logged wait that did not run in the run (rejected, or lost to a failure
    /// before they ever started): not compared.
    pub jobs_not_run: u64,
    /// Mean wait of the compared jobs in the log, in seconds.
    pub logged_mean_wait_s: f64,
    /// Mean wait of the compared jobs in the run, in seconds.
    pub simulated_mean_wait_s: f64,
    /// Mean of `simulated wait − logged wait`: above 0, the run makes jobs wait longer than
    /// the site did.
    pub mean_error_s: f64,
    /// Mean of `|simulated wait − logged wait|`.
    pub mean_abs_error_s: f64,
    /// The share of compared jobs whose simulated wait is within an hour of the logged one.
    pub within_hour: f64,
    /// The moving average's window in days ([`WINDOW_DAYS`]).
    pub window_days: u32,
    /// Windows the moving averages were compared over (0 when the log spans less than the
    /// window and the two 48-hour edges).
    pub windows: u64,
    /// FastSim's measure: mean over the windows (logged mean not 0) of
    /// `|simulated mean − logged mean| / logged mean`, in percent.
    pub moving_mape_percent: Option<f64>,
    /// Mean over the windows of `|simulated mean − logged mean|`, in seconds.
    pub moving_mae_s: Option<f64>,
    /// The same per partition (SWF field 16, sacct's Partition), in partition order, when
    /// the compared jobs are in more than one (else empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub by_partition: Vec<GroupVsLog>,
    /// The same per user (SWF field 12, sacct's User numbered), in user order, when the
    /// compared jobs are of more than one (else empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub by_user: Vec<UserVsLog>,
    /// The two moving averages at up to 400 evenly spaced windows: (middle of the window in
    /// seconds from the first submit, logged mean wait s, simulated mean wait s).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub curve: Vec<[f64; 3]>,
}

/// One group of jobs (a partition) against the log.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GroupVsLog {
    /// The partition's number (SWF field 16; sacct's names numbered in order of first
    /// appearance; -1 unknown).
    pub partition: i32,
    pub jobs: u64,
    pub logged_mean_wait_s: f64,
    pub simulated_mean_wait_s: f64,
    pub mean_error_s: f64,
    pub mean_abs_error_s: f64,
}

/// One user's jobs against the log (as [`GroupVsLog`], by user).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct UserVsLog {
    /// The user's number (SWF field 12; sacct's names numbered in order of first
    /// appearance; -1 unknown).
    pub user: i32,
    pub jobs: u64,
    pub logged_mean_wait_s: f64,
    pub simulated_mean_wait_s: f64,
    pub mean_error_s: f64,
    pub mean_abs_error_s: f64,
}

impl From<GroupVsLog> for UserVsLog {
    /// A group's means, the group being a user (its number in `partition`).
    fn from(g: GroupVsLog) -> UserVsLog {
        UserVsLog {
            user: g.partition,
            jobs: g.jobs,
            logged_mean_wait_s: g.logged_mean_wait_s,
            simulated_mean_wait_s: g.simulated_mean_wait_s,
            mean_error_s: g.mean_error_s,
            mean_abs_error_s: g.mean_abs_error_s,
        }
    }
}

/// Sums of one group: jobs, logged, simulated, |error| (ticks).
#[derive(Clone, Copy, Default)]
struct Sums(u64, i128, i128, i128);

impl Sums {
    fn add(&mut self, log: i128, sim: i128) {
        self.0 += 1;
        self.1 += log;
        self.2 += sim;
        self.3 += (sim - log).abs();
    }

    /// The means, in seconds, of `partition`'s jobs (at least one).
    fn means(self, partition: i32) -> GroupVsLog {
        let Sums(jobs, log, sim, abs) = self;
        let mean = |sum: i128| sum as f64 / TICKS_PER_SEC as f64 / jobs as f64;
        GroupVsLog {
            partition,
            jobs,
            logged_mean_wait_s: mean(log),
            simulated_mean_wait_s: mean(sim),
            mean_error_s: mean(sim - log),
            mean_abs_error_s: mean(abs),
        }
    }
}

/// The run's waits against the log's: `logged_waits` is the workload's (empty: the log has
/// none, and there is nothing to compare), one per job of `jobs`, as `outcomes` are.
pub fn vs_log(
    jobs: &[Job],
    logged_waits: &[Option<SimTime>],
    outcomes: &[Outcome],
) -> Option<VsLog> {
    if logged_waits.is_empty() || logged_waits.len() != jobs.len() {
        return None;
    }
    let mut v = VsLog {
        window_days: WINDOW_DAYS,
        ..VsLog::default()
    };
    // Per hour of submission: jobs, logged wait, simulated wait (ticks).
    let last_submit = jobs.iter().map(|j| j.submit.0).max().unwrap_or(0);
    let hours = (last_submit.max(0) / HOUR) as usize + 1;
    let mut bins = vec![(0u64, 0i128, 0i128); hours];
    let mut all = Sums::default();
    let mut within = 0u64;
    let mut partitions: std::collections::BTreeMap<i32, Sums> = Default::default();
    let mut users: std::collections::BTreeMap<i32, Sums> = Default::default();
    for ((j, o), w) in jobs.iter().zip(outcomes).zip(logged_waits) {
        let Some(w) = *w else {
            v.jobs_without_logged_wait += 1;
            continue;
        };
        if !o.ran() {
            v.jobs_not_run += 1;
            continue;
        }
        let sim = (o.start - j.submit).0 as i128;
        let log = w.0 as i128;
        all.add(log, sim);
        within += u64::from((sim - log).abs() <= HOUR as i128);
        partitions.entry(j.partition).or_default().add(log, sim);
        users.entry(j.user).or_default().add(log, sim);
        let bin = &mut bins[(j.submit.0.max(0) / HOUR) as usize];
        bin.0 += 1;
        bin.1 += log;
        bin.2 += sim;
    }
    v.jobs = all.0;
    if v.jobs == 0 {
        return Some(v);
    }
    let whole = all.means(0);
    v.logged_mean_wait_s = whole.logged_mean_wait_s;
    v.simulated_mean_wait_s = whole.simulated_mean_wait_s;
    v.mean_error_s = whole.mean_error_s;
    v.mean_abs_error_s = whole.mean_abs_error_s;
    v.within_hour = within as f64 / v.jobs as f64;
    if partitions.len() > 1 {
        v.by_partition = partitions
            .into_iter()
            .map(|(p, sums)| sums.means(p))
            .collect();
    }
    if users.len() > 1 {
        v.by_user = users
            .into_iter()
            .map(|(u, sums)| sums.means(u).into())
            .collect();
    }
    moving_averages(&mut v, &bins, last_submit);
    Some(v)
}

/// FastSim's moving-average comparison over hourly `bins` (jobs, logged and simulated wait
/// sums), the last job submitted at `last_submit`.
fn moving_averages(v: &mut VsLog, bins: &[(u64, i128, i128)], last_submit: i64) {
    let window = WINDOW_DAYS as usize * 24;
    // Window starts: every hour from the first submit to the last submit less a window,
    // without the 48 hours at either end.
    let starts = ((last_submit - window as i64 * HOUR).max(0) / HOUR) as usize;
    if starts <= 2 * EDGE_HOURS {
        return;
    }
    let first = EDGE_HOURS;
    let count = starts - 2 * EDGE_HOURS;
    // Prefix sums over the bins, so each window costs one subtraction.
    let mut prefix = Vec::with_capacity(bins.len() + 1);
    prefix.push((0u64, 0i128, 0i128));
    for b in bins {
        let p = prefix[prefix.len() - 1];
        prefix.push((p.0 + b.0, p.1 + b.1, p.2 + b.2));
    }
    let at = |h: usize| prefix[h.min(bins.len())];
    let step = count.div_ceil(CURVE_POINTS);
    let (mut ape, mut ape_windows, mut ae) = (0.0, 0u64, 0.0);
    for (k, h) in (first..first + count).enumerate() {
        let (a, b) = (at(h), at(h + window));
        let jobs = b.0 - a.0;
        let (log, sim) = match jobs {
            0 => (0.0, 0.0),
            _ => {
                let mean = |sum: i128| sum as f64 / TICKS_PER_SEC as f64 / jobs as f64;
                (mean(b.1 - a.1), mean(b.2 - a.2))
            }
        };
        ae += (sim - log).abs();
        if log != 0.0 {
            ape += ((sim - log) / log).abs();
            ape_windows += 1;
        }
        if k % step == 0 {
            let middle = (h as f64 + window as f64 / 2.0) * 3600.0;
            v.curve.push([middle, log, sim]);
        }
    }
    v.windows = count as u64;
    v.moving_mae_s = Some(ae / count as f64);
    v.moving_mape_percent = (ape_windows > 0).then(|| 100.0 * ape / ape_windows as f64);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::JobOutcome;

    fn job(submit_s: i64) -> Job {
        Job {
            id: 1,
            submit: SimTime::from_secs(submit_s),
            runtime: SimTime::from_secs(10),
            estimate: SimTime::from_secs(10),
            procs: 1,
            home: 0,
            user: -1,
            partition: -1,
        }
    }

    fn ran(start_s: i64) -> Outcome {
        Outcome {
            site: 0,
            start: SimTime::from_secs(start_s),
            end: SimTime::from_secs(start_s + 10),
            status: JobOutcome::Finished,
        }
    }

    #[test]
    fn per_job_errors_count_only_jobs_with_a_logged_wait_that_ran() {
        let jobs = [job(0), job(100), job(200), job(300)];
        let waits = [
            Some(SimTime::from_secs(50)),
            None,
            Some(SimTime::from_secs(7200)),
            Some(SimTime::from_secs(5)),
        ];
        let mut rejected = ran(0);
        rejected.status = JobOutcome::Rejected(crate::engine::RejectReason::NoSuchSite);
        // Simulated waits 10 and 200 against logged 50 and 7200.
        let outcomes = [ran(10), ran(100), ran(400), rejected];
        let v = vs_log(&jobs, &waits, &outcomes).unwrap();
        assert_eq!(
            (v.jobs, v.jobs_without_logged_wait, v.jobs_not_run),
            (2, 1, 1)
        );
        assert_eq!(v.logged_mean_wait_s, 3625.0);
        assert_eq!(v.simulated_mean_wait_s, 105.0);
        assert_eq!(v.mean_error_s, (-40.0 - 7000.0) / 2.0);
        assert_eq!(v.mean_abs_error_s, (40.0 + 7000.0) / 2.0);
        assert_eq!(v.within_hour, 0.5);
        // One partition and one user: no breakdown.
        assert!(v.by_partition.is_empty() && v.by_user.is_empty());
        // Four jobs within an hour: no window fits.
        assert_eq!((v.windows, v.moving_mape_percent), (0, None));
        assert!(vs_log(&jobs, &[], &outcomes).is_none());
    }

    #[test]
    fn jobs_in_several_partitions_are_broken_down_by_partition() {
        let mut jobs = [job(0), job(10), job(20)];
        jobs[0].partition = 4;
        jobs[1].partition = 2;
        jobs[2].partition = 4;
        let waits = [Some(SimTime::from_secs(100)); 3];
        // Simulated waits 0, 30 and 300.
        let v = vs_log(&jobs, &waits, &[ran(0), ran(40), ran(320)]).unwrap();
        let p: Vec<(i32, u64, f64, f64, f64)> = v
            .by_partition
            .iter()
            .map(|g| {
                (
                    g.partition,
                    g.jobs,
                    g.simulated_mean_wait_s,
                    g.mean_error_s,
                    g.mean_abs_error_s,
                )
            })
            .collect();
        assert_eq!(p, [(2, 1, 30.0, -70.0, 70.0), (4, 2, 150.0, 50.0, 150.0)]);
        // The same jobs by user: users 7 (jobs 1 and 2) and 9 (job 3).
        jobs[0].user = 7;
        jobs[1].user = 7;
        jobs[2].user = 9;
        let v = vs_log(&jobs, &waits, &[ran(0), ran(40), ran(320)]).unwrap();
        let u: Vec<(i32, u64, f64, f64)> = v
            .by_user
            .iter()
            .map(|g| (g.user, g.jobs, g.simulated_mean_wait_s, g.mean_abs_error_s))
            .collect();
        assert_eq!(u, [(7, 2, 15.0, 85.0), (9, 1, 300.0, 200.0)]);
    }

    #[test]
    fn the_moving_average_error_is_fastsims() {
        // One job an hour for 30 days; the log says each waited 100 s, the run 150 s for the
        // jobs of the first 20 days and 100 s after.
        let hours = 30 * 24;
        let jobs: Vec<Job> = (0..hours).map(|h| job(h * 3600)).collect();
        let waits = vec![Some(SimTime::from_secs(100)); jobs.len()];
        let outcomes: Vec<Outcome> = (0..hours)
            .map(|h| ran(h * 3600 + if h < 20 * 24 { 150 } else { 100 }))
            .collect();
        let v = vs_log(&jobs, &waits, &outcomes).unwrap();
        // Window starts: hours 0..(719 − 336) = 383 of them, less 48 at each end.
        let count = (hours as usize - 1 - 336) - 96;
        assert_eq!(v.windows, count as u64);
        // The window starting at hour h holds 336 jobs, max(0, 480 − h) of them at 150 s.
        let mut ape = 0.0;
        for h in 48..48 + count {
            let slow = 480usize.saturating_sub(h).min(336) as f64;
            let sim = (slow * 150.0 + (336.0 - slow) * 100.0) / 336.0;
            ape += (sim - 100.0f64).abs() / 100.0;
        }
        let expected = 100.0 * ape / count as f64;
        assert!((v.moving_mape_percent.unwrap() - expected).abs() < 1e-9);
        assert!((v.moving_mae_s.unwrap() - expected).abs() < 1e-9);
        assert_eq!(v.curve.len(), count);
        assert_eq!(v.curve[0], [(48.0 + 168.0) * 3600.0, 100.0, 150.0]);
    }
}
