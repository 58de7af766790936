//! What a scenario may cost before anything is drawn: the page asks before a shared link
//! starts more than it would run unasked (issue #30). Job-runs
//! ([`Scenario::expected_job_runs`], in `mod.rs`) bound the work of every policy; this adds
//! the one cost that job-runs miss, conservative backfilling's plans, which grow with the
//! cube of a backlog ([`crate::limits::Limit::PlanWork`]): 50,000 jobs at 20× load are only
//! 50,000 job-runs but some 10¹⁴ steps of plan work, which the engine stops at its limit
//! after minutes.

use super::{PlatformSpec, Scenario, WorkloadSpec};
use crate::policy::local::LocalPolicyKind;
use crate::workload::{SesPoisson, SES_PROCESSOR_TABLE};

/// A shared link whose [`Scenario::expected_plan_work`] passes this waits for the visitor's
/// go: about a second of conservative planning natively (a same-instant backlog of 2,500
/// jobs spends 4.5·10⁹ in about 5 s, `limits.rs`), a few in the page.
pub const CONFIRM_ABOVE_PLAN_WORK: f64 = 1e9;

impl Scenario {
    /// Plan work the scenario's conservative runs may spend on a generated workload
    /// (`None` for files, which the visitor picks, and when no run plans conservatively):
    /// Σ over conservative runs and sites of backlog³, the backlog being the share
    /// 1 − 1/ρ of the site's jobs an overload ρ > 1 leaves waiting. ρ is the offered load
    /// for SES Poisson (arrival rate × mean processors × mean runtime over the platform's
    /// processors, when the platform is known before the workload), else the generator's
    /// own load knob (SES's and Lublin's load factor, hyper-Erlang's arrival × run-time ×
    /// width factors: above 1 is heavier than the model's calibration). An upper bound, to
    /// tell seconds from hours, not a prediction: SES's 50,000 jobs at 20× load estimate
    /// 10¹⁴ and spend between 10⁹ and 10¹⁰ (3.4 s natively, 3.2 s in the page), as most of
    /// its jobs take one processor and the plan stays short.
    pub fn expected_plan_work(&self) -> Option<f64> {
        let runs = self
            .algorithms
            .iter()
            .filter(|a| {
                matches!(
                    a.local,
                    LocalPolicyKind::Conservative | LocalPolicyKind::ConservativeRebuild
                )
            })
            .count();
        if runs == 0 {
            return None;
        }
        let cube = |jobs: f64, load: f64| {
            let backlog = if load > 1.0 {
                jobs * (1.0 - 1.0 / load)
            } else {
                0.0
            };
            backlog.powi(3)
        };
        let per_run = match &self.workload {
            WorkloadSpec::SesPoisson(g) => cube(g.jobs as f64, self.ses_load(g)),
            WorkloadSpec::Lublin(g) => cube(g.jobs as f64, self.lublin_load(g)),
            WorkloadSpec::HyperErlang { sites } => sites
                .iter()
                .map(|g| {
                    let load = g.arrival_rate_factor * g.service_time_factor * g.procs_factor;
                    cube(g.expected_jobs().unwrap_or(f64::INFINITY), load)
                })
                .sum(),
            _ => return None,
        };
        Some(per_run * runs as f64)
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
        // 50,000 jobs at 20× load under conservative backfilling: far above the bound,
        // though only 50,000 job-runs.
        let mut s = Scenario::demo();
        s.algorithms = vec![AlgorithmSpec::local(LocalPolicyKind::Conservative)];
        if let WorkloadSpec::SesPoisson(g) = &mut s.workload {
            g.jobs = 50_000;
            g.load_factor = 20.0;
        }
        assert!(s.expected_job_runs().unwrap() < crate::scenario::CONFIRM_ABOVE_JOB_RUNS);
        assert!(s.expected_plan_work().unwrap() > 1e13);
        // The same backlog under EASY plans nothing.
        s.algorithms = vec![AlgorithmSpec::local(LocalPolicyKind::Easy)];
        assert_eq!(s.expected_plan_work(), None);
    }
}
