//! KKOR: centralized against decentralized scheduling of a grid of organizations, jobs
//! migrating between clusters under cooperation coefficients c_k, with due dates (flow
//! time, tardiness) — and, beyond the paper, the same on real traces (docs/kkor.md). The
//! model is `crate::kkor`; this is the family's face to the edges.

use std::fmt::Write;

use super::text::{band_table, case_label, numbers, one_newline, sweep_header};
use super::OptInfo;
use super::{
    CaseRun, Ctx, Family, FamilyError, FamilyInfo, FamilyReport, MetricInfo, Opt, PresetArgs,
    Quantity, RunSpec,
};
use crate::kkor::presets::{
    load_point_seed, real_traces, run_preset_with, KkorOptions, KkorPresetResult, KkorRunsResult,
    KkorSweepResult, RealSite, DEFAULT_SEEDS, KKOR_PRESETS, LOAD_POINTS, REAL_JOBS_PER_SITE,
    REAL_SLACK, REAL_TIME_UNIT_S, REAL_TRACES, SWEEP_METRICS,
};
use crate::kkor::{paper_clusters, KkorParams, KkorPolicy};
use crate::workload::{read_swf, SwfOptions};

/// The KKOR family.
pub struct Kkor;

const REAL: &str = "kkor-real";
const LOAD: &str = "kkor-load";
/// Jobs a `kkor-load` run simulates (`run_preset_with`'s own).
const LOAD_JOBS: u32 = 500;

/// What the registry and the edges say of the family.
const INFO: FamilyInfo = FamilyInfo {
    id: "kkor",
    title: "KKOR: centralized vs decentralized grid scheduling with migration",
    doc: "docs/kkor.md",
    default_seeds: DEFAULT_SEEDS,
    metrics: &METRICS,
    label: "KKOR grids",
    about: "KKOR: centralized against decentralized grid scheduling, with migration",
    intro: "Organizations with their own clusters and due-dated jobs: one central scheduler (batches, earliest due date first), or each organization scheduling its own jobs and migrating a job that would be late to another that accepts it within its cooperation coefficient c_k; local never migrates. Source: Krystek, Kurowski, Oleksiak, Rzadca (docs/kkor.md).",
    options: &[
        OptInfo {
            opt: Opt::Seeds,
            name: "Seeds",
            help: "Each seed draws new job streams: 500 jobs, q = 1 with probability 0.25 else uniform on [2, 64] (capped at the birth cluster), length p ~ Normal(20, 20) redrawn until ≥ 1, due date d = r + U[p·s, 180] (KKOR §4.1). Every algorithm sees the same jobs of a seed; figures are medians over the seeds with an order-statistic band (min–max for few seeds). The CLI's --seeds, default 10.",
        },
        OptInfo {
            opt: Opt::X,
            name: "Loads",
            help: "kkor-load: the offered loads ρ swept (x axis), comma-separated, each in (0, 10]; ρ = Σ_k λ_k·E[q_k]·E[p] / Σ_k m_k with equal λ_k (KKOR §4.1). kkor-fairness: one load per organization O1, O2, O3 (default 0.3, 0.3, 1.1: O3 overloaded, KKOR Fig. 4). Empty: the preset's.",
        },
        OptInfo {
            opt: Opt::Coefficients,
            name: "Cooperation c_k (kkor-load)",
            help: "Cooperation coefficient c_k of each organization for kkor-load's decentralized runs (KKOR §2.3.2): O_k must accept foreign work up to L_k = c_k·(t1 − t0)·m_k per batch, may refuse a job that grows its makespan by more than c_k·(t1 − t0), and anyone may refuse O_k's jobs once O_k exported more than L_k. Default 0.25 each (Fig. 4's distr1). kkor-fairness runs its own distr1..3.",
        },
        OptInfo {
            opt: Opt::BatchJobs,
            name: "S (jobs per batch)",
            help: "S and L (KKOR §2.2): a batch closes when it holds S jobs or when L time units have passed since its first release, whichever first. The paper gives no values; ours default to S = 20 jobs, L = 10 time units.",
        },
        OptInfo {
            opt: Opt::BatchLength,
            name: "L (time units)",
            help: "S and L (KKOR §2.2): a batch closes when it holds S jobs or when L time units have passed since its first release, whichever first. The paper gives no values; ours default to S = 20 jobs, L = 10 time units.",
        },
    ],
};

/// The metrics of KKOR's runs (docs/kkor.md, Metrics).
const METRICS: [MetricInfo; 5] = [
    MetricInfo {
        key: "mean_flow_time",
        name: "mean flow time F̄",
        quantity: Quantity::TimeUnits,
        help: "Mean flow time F̄ = Σ (C − r) / n: completion minus release, in time units, over the measured jobs (the first and last 10 % by release left out). KKOR §4.1, Fig. 2.",
    },
    MetricInfo {
        key: "mean_tardiness",
        name: "mean tardiness L̄",
        quantity: Quantity::TimeUnits,
        help: "Mean tardiness L̄ = Σ max(0, C − d) / n: how late jobs end after their due date d, on-time jobs counting 0. KKOR §4.1, Fig. 3.",
    },
    MetricInfo {
        key: "late_jobs",
        name: "late jobs U",
        quantity: Quantity::Count,
        help: "Late jobs U = #{i : C_i > d_i}: measured jobs ending after their due date. KKOR §4.1.",
    },
    MetricInfo {
        key: "migrations",
        name: "migrations",
        quantity: Quantity::Count,
        help: "",
    },
    MetricInfo {
        key: "utilization",
        name: "utilization",
        quantity: Quantity::Ratio,
        help: "Utilization R̄ = Σ_k Σ_{i ∈ J_k} p_i·q_i / Σ_k m_k·(t_k^end − t_k^start): work over each cluster's span from its first release to its last completion (the paper's formula). KKOR §4.1.",
    },
];

impl Family for Kkor {
    fn info(&self) -> &'static FamilyInfo {
        &INFO
    }
    fn presets(&self) -> Vec<(&'static str, &'static str)> {
        KKOR_PRESETS.to_vec()
    }
    fn takes(&self, preset: &str) -> Vec<Opt> {
        if preset == REAL {
            return vec![Opt::Seeds, Opt::Traces];
        }
        vec![
            Opt::Seeds,
            Opt::X,
            Opt::Coefficients,
            Opt::BatchJobs,
            Opt::BatchLength,
            Opt::Traces,
        ]
    }
    fn not_taken(&self, flag: &str, preset: &str) -> String {
        if preset == REAL {
            return "kkor-real takes only --seeds and --traces (its loads are the traces')".into();
        }
        format!(
            "{flag} does not apply to a KKOR preset ({preset}; it takes --seeds, --x = the loads, --coefficients, --batch-jobs, --batch-length and --traces)"
        )
    }
    fn spec(&self, preset: &str, a: &PresetArgs) -> Result<RunSpec, FamilyError> {
        Ok(RunSpec {
            preset: preset.to_string(),
            seeds: a.seeds,
            x: a.x.clone(),
            coefficients: a.coefficients.clone(),
            batch_jobs: a.batch_jobs,
            batch_length: a.batch_length,
            ..RunSpec::default()
        })
    }

    fn run(&self, spec: &RunSpec, ctx: &mut Ctx) -> Result<Box<dyn FamilyReport>, FamilyError> {
        if spec.preset == REAL {
            return Ok(Box::new(KkorPresetResult::Runs(real(ctx)?)));
        }
        let options = KkorOptions {
            loads: spec.x.clone().unwrap_or_default(),
            ..options(spec)
        };
        let r = run_preset_with(
            &spec.preset,
            spec.seeds.unwrap_or(0),
            &options,
            ctx.progress,
        )?;
        Ok(Box::new(r))
    }

    fn traces(&self, spec: &RunSpec) -> Vec<String> {
        if spec.preset == REAL {
            REAL_TRACES.iter().map(|(f, _)| f.to_string()).collect()
        } else {
            Vec::new()
        }
    }
    fn sweep_x(&self, spec: &RunSpec) -> Option<Vec<f64>> {
        match (&spec.x, spec.preset.as_str()) {
            (Some(x), _) => Some(x.clone()),
            (None, LOAD) => Some(LOAD_POINTS.to_vec()),
            (None, _) => None,
        }
    }
    fn splits(&self, preset: &str) -> bool {
        preset == LOAD
    }
    fn check_case(&self, spec: &RunSpec) -> Result<(), FamilyError> {
        options(spec).params(paper_clusters().len())?;
        Ok(())
    }
    /// 500 jobs × three policies × the loads.
    fn case_work(&self, spec: &RunSpec) -> f64 {
        f64::from(LOAD_JOBS) * 3.0 * spec.x.as_ref().map_or(LOAD_POINTS.len(), Vec::len) as f64
    }
    fn run_case(
        &self,
        spec: &RunSpec,
        seed: u64,
        _load: &mut super::Load,
    ) -> Result<Vec<CaseRun>, FamilyError> {
        let clusters = paper_clusters();
        let params = options(spec).params(clusters.len())?;
        let loads = spec.x.clone().unwrap_or(LOAD_POINTS.to_vec());
        let mut out = Vec::new();
        for &load in &loads {
            let per_policy =
                load_point_seed(&clusters, load, &params, LOAD_JOBS, seed, &mut || true)?;
            for (policy, values) in KkorPolicy::ALL.iter().zip(per_policy) {
                out.push(CaseRun {
                    label: case_label(policy.name(), load, loads.len()),
                    algorithm: policy.name().to_string(),
                    metrics: numbers(SWEEP_METRICS.iter().map(|(n, _)| *n).zip(values)),
                });
            }
        }
        Ok(out)
    }
}

/// The spec's changes to the preset, loads aside.
fn options(spec: &RunSpec) -> KkorOptions {
    KkorOptions {
        loads: Vec::new(),
        coefficients: spec.coefficients.clone().unwrap_or_default(),
        batch_jobs: spec.batch_jobs,
        batch_length: spec.batch_length,
    }
}

/// `kkor-real` on its three traces (DAS2-fs1, KTH-SP2, SDSC-SP2), read through the caller.
fn real(ctx: &mut Ctx) -> Result<KkorRunsResult, FamilyError> {
    let mut workloads = Vec::new();
    for &(file, procs) in &REAL_TRACES {
        let bytes = (ctx.load)(file).map_err(|e| FamilyError::load(file, e))?;
        let w = read_swf(file, &bytes, &SwfOptions::default())
            .map_err(|e| FamilyError::load(file, e))?;
        let name = file.split('-').take(2).collect::<Vec<_>>().join("-");
        workloads.push((name, procs, w.jobs));
    }
    let sites: Vec<RealSite> = workloads
        .iter()
        .map(|(name, procs, jobs)| RealSite {
            name,
            procs: *procs,
            jobs,
        })
        .collect();
    Ok(real_traces(
        &sites,
        REAL_JOBS_PER_SITE,
        REAL_SLACK,
        REAL_TIME_UNIT_S,
        &KkorParams::default(),
        ctx.progress,
    )?)
}

fn sweep_table(r: &KkorSweepResult) -> String {
    let header = sweep_header(&r.preset, &r.description, r.seeds, r.confidence, &r.x_label);
    band_table(header, &r.x, &r.series, 2)
}

fn runs_table(r: &KkorRunsResult) -> String {
    let mut s = format!(
        "{}: {}\n{} seeds (medians)\n\n{:<14} {:>10} {:>10} {:>8} {:>8} {:>10}  per organization: flow time (× its local value)\n",
        r.preset, r.description, r.seeds, "run", "flow time", "tardiness", "late", "util", "migrations"
    );
    for run in &r.runs {
        let m = &run.metrics;
        let _ = write!(
            s,
            "{:<14} {:>10.2} {:>10.2} {:>8.1} {:>8.3} {:>10.1} ",
            run.label, m.mean_flow_time, m.mean_tardiness, m.late_jobs, m.utilization, m.migrations
        );
        for o in &m.organizations {
            let rel = o
                .relative_to_local
                .as_ref()
                .and_then(|r| r.mean_flow_time)
                .map_or(String::new(), |x| format!(" ({x:.2})"));
            let _ = write!(s, " {} {:.1}{rel}", o.name, o.mean_flow_time);
        }
        s.push('\n');
    }
    s
}

fn table(r: &KkorPresetResult) -> String {
    one_newline(match r {
        KkorPresetResult::Sweep(s) => sweep_table(s),
        KkorPresetResult::Runs(r) => runs_table(r),
    })
}

super::report!(KkorPresetResult, table);
