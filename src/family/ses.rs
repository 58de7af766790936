//! SES: which node group of one heterogeneous cluster a job goes to — random against
//! most-nodes-available selection, with and without restricting small jobs to the
//! single-CPU group, on SES's Lattice cluster and Poisson workload (docs/ses.md). The runs
//! are `crate::scenario::ses`; the node-group policy is `crate::policy::grid::groups`.

use std::fmt::Write;

use serde_json::Value;

use super::text::numbers;
use super::OptInfo;
use super::{
    CaseRun, Ctx, Family, FamilyError, FamilyInfo, FamilyReport, Opt, PresetArgs, RunSpec,
};
use crate::scenario::ses::{
    run_crossover, run_selection_with, selection_seed, SesCrossover, SesSelection,
    CROSSOVER_SHARES, SES_DAYS, SES_PRESETS,
};
use crate::workload::SesPoisson;

/// Seeds when none is given.
pub const DEFAULT_SEEDS: u64 = 10;

/// The SES family.
pub struct Ses;

const SELECTION: &str = "ses-selection";

/// What the registry and the edges say of the family.
const INFO: FamilyInfo = FamilyInfo {
    id: "ses",
    title: "SES: node-group selection on one heterogeneous cluster",
    doc: "docs/ses.md",
    default_seeds: DEFAULT_SEEDS,
    metrics: &[],
    label: "SES node groups",
    about: "SES: choosing node groups for parallel jobs on a heterogeneous cluster",
    intro: "One heterogeneous cluster (the Lattice: groups A 36 nodes × 4 CPUs, B 20×4, C 1×4, D 50×1) and two ways to pick a group for a job: at random, or the group with the most nodes available (MNA); restricted or not (may jobs of fewer than 4 CPUs use 4-CPU nodes). Source: Sessini's node-group selection study (docs/ses.md).",
    options: &[
        OptInfo {
            opt: Opt::Seeds,
            name: "Seeds",
            help: "Independent seven-day workloads of SES's Poisson model (SES §3.2, Tables 1 and A3: 3.125 jobs per 30 min, exponential run times of mean 496.3 min); the four variants see the same jobs of a seed. Every figure is the median over the seeds with an order-statistic band (min–max for few seeds). The CLI's --seeds, default 10.",
        },
        OptInfo {
            opt: Opt::Load,
            name: "Load factor",
            help: "Multiplies SES's arrival rate λ = 3.125 jobs / 30 min (SES Table 1): 1 is the paper's load, 2 doubles the arrivals. The CLI's --load.",
        },
        OptInfo {
            opt: Opt::X,
            name: "Shares of ≥ 4-CPU jobs",
            help: "Shares of jobs needing ≥ 4 CPUs, comma-separated, each in [0, 1] (Table A3: 11 %). Table A3 is rescaled so each class keeps its internal proportions, and λ is scaled so the offered CPU demand (λ × mean CPUs × mean run time) stays the paper's (times the load factor). SES §5's open question. The CLI's --x.",
        },
        OptInfo {
            opt: Opt::SiteQueue,
            name: "One FCFS queue for the whole site",
            help: "Off (the paper, SES §3.4): each node group has its own FCFS queue (a GPSS-H storage) and a job joins one on arrival. On: jobs wait in one FCFS queue for the whole cluster and the head goes to a group the moment one can start it (by the same selection rules), blocking everyone behind it. The CLI's --site-queue.",
        },
    ],
};

impl Family for Ses {
    fn info(&self) -> &'static FamilyInfo {
        &INFO
    }
    fn presets(&self) -> Vec<(&'static str, &'static str)> {
        SES_PRESETS.to_vec()
    }
    fn takes(&self, preset: &str) -> Vec<Opt> {
        let mut takes = vec![Opt::Seeds, Opt::Load];
        takes.push(if preset == SELECTION {
            Opt::SiteQueue
        } else {
            Opt::X
        });
        takes
    }
    fn not_taken(&self, flag: &str, preset: &str) -> String {
        format!(
            "{flag} does not apply to {preset} (it takes --seeds, --load{})",
            if preset == SELECTION { "" } else { " and --x" }
        )
    }
    fn spec(&self, preset: &str, a: &PresetArgs) -> Result<RunSpec, FamilyError> {
        Ok(RunSpec {
            preset: preset.to_string(),
            seeds: a.seeds,
            x: a.x.clone(),
            load_factor: a.load,
            site_queue: a.site_queue,
            ..RunSpec::default()
        })
    }

    fn run(&self, spec: &RunSpec, ctx: &mut Ctx) -> Result<Box<dyn FamilyReport>, FamilyError> {
        let gen = generator(spec)?;
        let seeds = spec.seeds.unwrap_or(DEFAULT_SEEDS);
        if spec.preset == SELECTION {
            let r = run_selection_with(&gen, SES_DAYS, seeds, spec.site_queue, ctx.progress)?;
            Ok(Box::new(r))
        } else {
            let shares = spec.x.clone().unwrap_or(CROSSOVER_SHARES.to_vec());
            let r = run_crossover(&gen, &shares, SES_DAYS, seeds, ctx.progress)?;
            Ok(Box::new(r))
        }
    }

    fn sweep_x(&self, spec: &RunSpec) -> Option<Vec<f64>> {
        match spec.preset.as_str() {
            SELECTION => None,
            _ => Some(spec.x.clone().unwrap_or(CROSSOVER_SHARES.to_vec())),
        }
    }
    fn splits(&self, preset: &str) -> bool {
        preset == SELECTION
    }
    fn check_case(&self, spec: &RunSpec) -> Result<(), FamilyError> {
        generator(spec).map(|_| ())
    }
    /// About 10,000 jobs a week × the four variants.
    fn case_work(&self, _spec: &RunSpec) -> f64 {
        10_000.0 * 4.0
    }
    fn run_case(
        &self,
        spec: &RunSpec,
        seed: u64,
        _load: &mut super::Load,
    ) -> Result<Vec<CaseRun>, FamilyError> {
        let gen = generator(spec)?;
        let report = selection_seed(&gen, SES_DAYS, seed, spec.site_queue)?;
        Ok(report
            .runs
            .iter()
            .map(|run| {
                let m = &run.metrics;
                // The figures `ses-selection` takes medians of: overall, then per group.
                let mut metrics = numbers([
                    ("avg_response_s", m.avg_response_s),
                    ("avg_wait_s", m.avg_wait_s),
                    ("utilization", m.utilization),
                ]);
                for s in &m.sites {
                    let key = |what: &str| format!("{}.{what}", s.name);
                    metrics.insert(key("utilization"), Value::from(s.utilization));
                    metrics.insert(key("avg_queue_delay_s"), Value::from(s.avg_wait_s));
                    metrics.insert(key("jobs"), Value::from(s.jobs as f64));
                }
                CaseRun {
                    label: run.label.clone(),
                    algorithm: run.algorithm.clone(),
                    metrics,
                }
            })
            .collect())
    }
}

/// SES's Poisson workload at the run's load factor.
fn generator(spec: &RunSpec) -> Result<SesPoisson, FamilyError> {
    let gen = SesPoisson {
        load_factor: spec.load_factor.unwrap_or(1.0),
        ..SesPoisson::default()
    };
    gen.validate()?;
    Ok(gen)
}

fn selection_table(r: &SesSelection) -> String {
    let mut s = format!(
        "{}: {}\n{} seeds, {} days of arrivals; medians with a {:.1} % band; minutes\n",
        r.preset,
        r.description,
        r.seeds,
        r.days,
        r.confidence * 100.0
    );
    for run in &r.runs {
        let m = &run.metrics;
        let _ = writeln!(
            s,
            "\n{:<18} response {:.1} [{:.1}, {:.1}]  wait {:.1}  utilization {:.3}",
            run.label,
            m.avg_response_s / 60.0,
            m.avg_response_lo / 60.0,
            m.avg_response_hi / 60.0,
            m.avg_wait_s / 60.0,
            m.utilization
        );
        for g in &m.groups {
            let (lo, hi) = (g.lo.as_deref(), g.hi.as_deref());
            let _ = writeln!(
                s,
                "  group {:<4} utilization {:.3} [{:.3}, {:.3}]  queueing delay {:>8.1} [{:.1}, {:.1}]  jobs {:.0}",
                g.name,
                g.utilization,
                lo.map_or(0.0, |l| l.utilization),
                hi.map_or(0.0, |h| h.utilization),
                g.avg_queue_delay_s / 60.0,
                lo.map_or(0.0, |l| l.avg_queue_delay_s / 60.0),
                hi.map_or(0.0, |h| h.avg_queue_delay_s / 60.0),
                g.jobs
            );
        }
    }
    super::text::one_newline(s)
}

fn crossover_table(r: &SesCrossover) -> String {
    let mut s = format!(
        "{}: {}\n{} seeds, {} days; median mean response (minutes) with a {:.1} % band\n{:>8}",
        r.preset,
        r.description,
        r.seeds,
        r.days,
        r.confidence * 100.0,
        "share"
    );
    for p in &r.series {
        let _ = write!(s, "{:>26}", p.policy);
    }
    s.push('\n');
    for (i, x) in r.x.iter().enumerate() {
        let _ = write!(s, "{x:>8}");
        for p in &r.series {
            let _ = write!(
                s,
                "{:>10.1} [{:.0}, {:.0}]",
                p.median[i] / 60.0,
                p.lo[i] / 60.0,
                p.hi[i] / 60.0
            );
        }
        s.push('\n');
    }
    for (strategy, at) in &r.crossover {
        let _ = writeln!(
            s,
            "{strategy}: restriction {}",
            at.map_or(
                "never gives a lower median response".to_string(),
                |x| format!("pays from a share of {x}")
            )
        );
    }
    super::text::one_newline(s)
}

super::report!(SesSelection, selection_table);
super::report!(SesCrossover, crossover_table);
