//! What a scenario may cost before anything is drawn: the page asks before a shared link
//! starts more than it would run unasked (issue #30). Job-runs
//! ([`Scenario::expected_job_runs`], in `mod.rs`) bound the work of every policy; this adds
//! the one cost that job-runs miss, conservative backfilling's plans, which grow with the
//! cube of a backlog when estimates exceed run times ([`crate::limits::Limit::PlanWork`]):
//! 5,000 jobs at 20× load with estimates twice the run times are only 5,000 job-runs but
//! 3·10¹⁰ steps of plan work, ten seconds of a core.

use super::{PlatformSpec, Scenario, WorkloadSpec};
use crate::policy::grid::GridScheme;
use crate::policy::local::LocalPolicyKind;
use crate::workload::{SesPoisson, SES_PROCESSOR_TABLE};

/// A shared link whose [`Scenario::expected_plan_work`] passes this waits for the visitor's
/// go: a few seconds of conservative planning natively, about as many in the page (plan
/// work runs at about 3·10⁹ steps a second: 3.2·10⁹ in 1.45 s, 2.9·10¹⁰ in 10.1 s and
/// 1.0·10¹¹ in 34.7 s for the SES backlogs measured in [`Scenario::expected_plan_work`]).
pub const CONFIRM_ABOVE_PLAN_WORK: f64 = 1e10;

/// Plan work per job × backlog² when estimates exceed run times: a compression pass at
/// each of the N early ends visits the queue and moves up to all of it, each move editing
/// a plan as long as the queue. Measured on SES Poisson backlogs (the demo platform, seed 1,
/// estimates twice the run times; N jobs, B = N(1 − 1/ρ) at offered load ρ; work/(N·B²)):
/// 2,500 and 5,000 jobs at ρ = 14.4: 0.23 and 0.27 (3.2·10⁹ steps in 1.45 s, 2.9·10¹⁰ in
/// 10.1 s); 5,000 at ρ = 722 (submitted within a minute): 0.31; ρ = 1.44: 0.15 and, for
/// 20,000 jobs, 0.14 (1.0·10¹¹ in 34.7 s); ρ = 1.08–1.16 with 10,000–40,000 jobs:
/// 0.06–0.14. (Per B³ alone the same runs ranged from 0.25 to 3.1: near ρ = 1 a backlog
/// comes and goes all run.) Lublin's load knob is not its offered load: there the bound
/// overshoots about 80×.
const CUBE_PER_JOB: f64 = 0.35;

/// Plan work per job × backlog when every estimate is the run time: no job ends before
/// its reservation, so nothing ever moves up, and the work is placing each newcomer behind
/// the queue. Measured as above with exact estimates: 0.47–0.52 (50,000 jobs at ρ = 14.4:
/// 1.1·10⁹ steps, 0.97 s natively).
const SQUARE_PER_JOB: f64 = 0.6;

impl Scenario {
    /// Plan work the scenario's conservative runs may spend on a generated workload
    /// (`None` for files, which the visitor picks, and when no run plans conservatively):
    /// Σ over conservative runs of c·N·B² for N jobs, or c·N·B when no job can end before
    /// its reservation, the backlog B being the share 1 − 1/ρ of the jobs an overload ρ > 1
    /// leaves waiting. No job ends early when the generator's estimates are its run times
    /// (estimate factor 1), no failure kills one and no grid scheme withdraws one. ρ is the
    /// offered load for SES Poisson (arrival rate × mean processors × mean runtime over
    /// the platform's processors, when the platform is known before the workload), else
    /// the generator's own load knob (SES's and Lublin's load factor, hyper-Erlang's
    /// arrival × run-time × width factors: above 1 is heavier than the model's
    /// calibration). An upper bound within a few times of what runs spend (the constants'
    /// measurements are beside them), to tell seconds from hours.
    pub fn expected_plan_work(&self) -> Option<f64> {
        let conservative: Vec<_> = self
            .algorithms
            .iter()
            .filter(|a| {
                matches!(
                    a.local,
                    LocalPolicyKind::Conservative | LocalPolicyKind::ConservativeRebuild
                )
            })
            .collect();
        if conservative.is_empty() {
            return None;
        }
        let backlog = |jobs: f64, load: f64| {
            if load > 1.0 {
                jobs * (1.0 - 1.0 / load)
            } else {
                0.0
            }
        };
        // (Σ jobs × backlog², Σ jobs × backlog), and whether the estimates are exact.
        let per_site = |jobs: f64, load: f64| {
            let b = backlog(jobs, load);
            (jobs * b * b, jobs * b)
        };
        let ((cubic, quadratic), exact) = match &self.workload {
            WorkloadSpec::SesPoisson(g) => (
                per_site(g.jobs as f64, self.ses_load(g)),
                g.estimate_factor == 1.0,
            ),
            WorkloadSpec::Lublin(g) => (
                per_site(g.jobs as f64, self.lublin_load(g)),
                g.estimate_factor == 1.0,
            ),
            WorkloadSpec::HyperErlang { sites } => {
                let sums = sites.iter().fold((0.0, 0.0), |(c, s), g| {
                    let load = g.arrival_rate_factor * g.service_time_factor * g.procs_factor;
                    let (c1, s1) = per_site(g.expected_jobs().unwrap_or(f64::INFINITY), load);
                    (c + c1, s + s1)
                });
                (sums, sites.iter().all(|g| g.estimate_factor == 1.0))
            }
            _ => return None,
        };
        let work = conservative
            .iter()
            .map(|a| {
                let nothing_ends_early =
                    exact && self.failures.is_none() && a.grid == GridScheme::Local;
                match nothing_ends_early {
                    true => SQUARE_PER_JOB * quadratic,
                    false => CUBE_PER_JOB * cubic,
                }
            })
            .sum();
        Some(work)
    }

    /// The Lublin model's load knob on the scenario's platform: its arrivals are fitted to
    /// a machine of `nodes` processors, so on a platform of more the knob overstates the
    /// load by that ratio (the `gpu-cluster` preset: 6× on 64 of 512 processors).
    fn lublin_load(&self, g: &crate::workload::Lublin) -> f64 {
        match (&self.platform, self.platform_cpus()) {
            // Sized from the workload: the model's own machine.
            (PlatformSpec::FromTrace { .. }, _) | (_, 0) => g.load_factor,
            (_, cpus) => g.load_factor * f64::from(g.nodes) / cpus as f64,
        }
    }

    /// SES Poisson's offered load on the scenario's platform; its load factor when the
    /// platform's size is known only from the workload.
    fn ses_load(&self, g: &SesPoisson) -> f64 {
        let cpus = self.platform_cpus();
        if cpus == 0 {
            return g.load_factor;
        }
        let per_s = g.arrivals_per_30min * g.load_factor / 1800.0;
        per_s * g.mean_processors() * g.mean_runtime_min * 60.0 / cpus as f64
    }

    /// The platform's processors before the workload is read (SES's table's largest for a
    /// platform sized from the trace; 0 for an unknown preset).
    fn platform_cpus(&self) -> u64 {
        match &self.platform {
            PlatformSpec::Sites { sites, .. } => sites.iter().map(|s| s.cpus()).sum(),
            PlatformSpec::Preset { name } => super::platform_preset(name)
                .map(|p| p.sites.iter().map(|s| s.cpus()).sum())
                .unwrap_or(0),
            PlatformSpec::FromTrace { procs } => procs.map(u64::from).unwrap_or_else(|| {
                SES_PROCESSOR_TABLE
                    .iter()
                    .map(|&(p, _)| u64::from(p))
                    .max()
                    .unwrap_or(1)
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{AlgorithmSpec, SCENARIO_PRESETS};

    #[test]
    fn a_conservative_backlog_costs_plan_work_and_the_presets_do_not() {
        for (n, _) in SCENARIO_PRESETS {
            let s = Scenario::preset(n).unwrap();
            let work = s.expected_plan_work().unwrap_or(0.0);
            assert!(work < CONFIRM_ABOVE_PLAN_WORK / 10.0, "{n}: {work}");
        }
        // The demo's offered load as the run reports it (0.72): no backlog.
        let demo = Scenario::demo();
        let WorkloadSpec::SesPoisson(g) = &demo.workload else {
            panic!()
        };
        let load = demo.ses_load(g);
        assert!((load - 0.72).abs() < 0.05, "{load}");
        // 50,000 jobs at 20× load under conservative backfilling, estimates exact: nothing
        // moves up, and the run takes about a second (1.1·10⁹ steps): no question.
        let mut s = Scenario::demo();
        s.algorithms = vec![AlgorithmSpec::local(LocalPolicyKind::Conservative)];
        if let WorkloadSpec::SesPoisson(g) = &mut s.workload {
            g.jobs = 50_000;
            g.load_factor = 20.0;
            g.estimate_factor = 1.0;
        }
        assert!(s.expected_job_runs().unwrap() < crate::scenario::CONFIRM_ABOVE_JOB_RUNS);
        let exact = s.expected_plan_work().unwrap();
        assert!((1e9..CONFIRM_ABOVE_PLAN_WORK).contains(&exact), "{exact}");
        // With estimates twice the run times every early end moves the queue up: far above
        // the bound, though only 50,000 job-runs.
        if let WorkloadSpec::SesPoisson(g) = &mut s.workload {
            g.estimate_factor = 2.0;
        }
        assert!(s.expected_plan_work().unwrap() > 1e13);
        // 5,000 such jobs spend 3·10¹⁰ steps (ten seconds): asked too.
        if let WorkloadSpec::SesPoisson(g) = &mut s.workload {
            g.jobs = 5_000;
        }
        assert!(s.expected_plan_work().unwrap() > CONFIRM_ABOVE_PLAN_WORK);
        // The same backlog under EASY plans nothing.
        s.algorithms = vec![AlgorithmSpec::local(LocalPolicyKind::Easy)];
        assert_eq!(s.expected_plan_work(), None);
    }
}
