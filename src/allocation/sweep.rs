//! The SF paper's experiments as sweeps: each point is a batch system, each policy runs on
//! it with N seeds (the same seeds for every policy), and the result is the median with a
//! confidence band from order statistics.
//!
//! A sweep is a `SweepSpec` — the system, the parameter on the x axis and its values, the
//! policies — so the page and the CLI can change any of it; the presets are the paper's
//! five specs with their headline numbers.

use crate::limits::{Limit, Limits};
use serde::{Deserialize, Serialize};

use super::fractions::{owa_batch, validate};
use super::{simulate_allocation, AllocationPolicy, BatchSystem, Dispatch, RateChange};

/// SF Table III: ten resources of speeds 1 (×4), 2 (×3), 5 (×2) and 10.
pub fn table_three() -> Vec<f64> {
    let mut r = vec![1.0; 4];
    r.extend([2.0; 3]);
    r.extend([5.0; 2]);
    r.push(10.0);
    r
}

/// The parameter a sweep varies along its x axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Vary {
    /// x is the speed of the last resource in `rates` (SF Fig. 3: h of 9 × 1 + h).
    LastRate,
    /// x is the number of resources n; resource j of n gets `rates[j · len / n]`, so
    /// `rates = [1, 10]` gives half speed 1 and half speed 10 (SF Fig. 4).
    Size,
    /// x is the batch size k (SF Fig. 5).
    BatchSize,
    /// x is the coefficient of variation of batch inter-arrival times (SF Fig. 8).
    ArrivalCv,
    /// x is the rate the fastest resource drops to halfway through the run (SF §VI).
    DegradedRate,
    /// x is DLL's load-report interval Δ in seconds (0: exact, instant queue lengths).
    DllReport,
}

impl Vary {
    pub const ALL: [Vary; 6] = [
        Vary::LastRate,
        Vary::Size,
        Vary::BatchSize,
        Vary::ArrivalCv,
        Vary::DegradedRate,
        Vary::DllReport,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Vary::LastRate => "last_rate",
            Vary::Size => "size",
            Vary::BatchSize => "batch_size",
            Vary::ArrivalCv => "arrival_cv",
            Vary::DegradedRate => "degraded_rate",
            Vary::DllReport => "dll_report",
        }
    }

    pub fn parse(s: &str) -> Result<Vary, String> {
        Vary::ALL
            .into_iter()
            .find(|v| v.name() == s.trim())
            .ok_or_else(|| {
                format!("unknown sweep axis '{s}'; expected last_rate, size, batch_size, arrival_cv, degraded_rate or dll_report")
            })
    }

    /// The x axis' label.
    pub fn label(self) -> &'static str {
        match self {
            Vary::LastRate => "speed of the last resource",
            Vary::Size => "resources (n)",
            Vary::BatchSize => "batch size (k)",
            Vary::ArrivalCv => "coefficient of variation of batch inter-arrivals",
            Vary::DegradedRate => "rate of the fastest resource after degradation",
            Vary::DllReport => "DLL's load-report interval Δ (s)",
        }
    }
}

/// How fast batches arrive.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Arrivals {
    /// λ batches per second, the same at every point.
    Lambda(f64),
    /// A fixed load λ·k / Σμ: λ follows each point's rates and batch size.
    Load(f64),
}

/// One sweep, fully described: what the page edits and the CLI takes as flags.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepSpec {
    pub vary: Vary,
    /// The x values, in the order plotted.
    pub x: Vec<f64>,
    /// The resources' rates μ_i (for `size`, the pattern the n resources are cut from).
    pub rates: Vec<f64>,
    pub arrivals: Arrivals,
    /// Jobs per batch k (ignored when x is the batch size).
    pub batch_size: u32,
    /// Inter-arrival CV (ignored when x is the CV).
    pub arrival_cv: f64,
    /// The policies compared; the gap is the second's over the first's.
    pub policies: Vec<AllocationPolicy>,
    #[serde(default)]
    pub dispatch: Dispatch,
    /// DLL's load-report interval Δ, seconds (ignored when x is Δ): each resource reports
    /// its queue length every Δ; between reports DLL sees the last report plus the jobs it
    /// sent since (completions since the report are unseen). 0 (the default): exact.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub dll_report_s: f64,
}

fn is_zero(v: &f64) -> bool {
    *v == 0.0
}

/// Help for every sweep parameter, shown by `gridscope help sweeps` and beside the page's
/// fields: (name, meaning with formula and source).
pub const SWEEP_PARAM_HELP: &[(&str, &str)] = &[
    ("vary", "the parameter on the x axis: last_rate (speed of the last resource, SF Fig. 3), size (n resources cut from the rate pattern: resource j of n gets rates[j·len/n], SF Fig. 4), batch_size (k, SF Fig. 5), arrival_cv (SF Fig. 8), degraded_rate (the fastest resource's rate from halfway through the run, SF §VI), dll_report (DLL's load-report interval Δ in seconds: reports every Δ, and between them the last report plus the jobs DLL sent since; 0 is exact, today's DLL)"),
    ("dll_report", "DLL's load-report interval Δ in seconds when it is not the x axis (0, the default: exact, instant queue lengths; ours, to test SF Fig. 8's DLL under stale information)"),
    ("x", "the x values, comma-separated; each is one point of the plot (at most 100)"),
    ("rates", "service rates μ_i in jobs per second (job sizes are exponential with mean 1, so resource i serves a job in 1/μ_i s on average); the SF Table III system is 1,1,1,1,2,2,2,5,5,10"),
    ("lambda", "λ: batches per second (Poisson, or hyper-exponential when the CV > 1); the system must not saturate: λ·k < Σμ (SF §III)"),
    ("load", "instead of λ: the load ρ = λ·k / Σμ, held fixed as the rates or k change (λ = ρ·Σμ/k)"),
    ("batch_size", "k: jobs per batch; every job of a batch arrives at once (SF §III)"),
    ("arrival_cv", "coefficient of variation of the batch inter-arrival times: 1 is Poisson, above 1 a two-stage hyper-exponential with balanced means, p₁ = ½(1 + √((c²−1)/(c²+1))) (SF §V-E); at most 10⁹, beyond which the variation no longer grows in f64"),
    ("policies", "the policies compared, comma-separated: ww (α_i = μ_i/Σμ, SF eq. 2), owa (SF eq. 11 with the Fig. 2 elimination loop), dll (each job to the least (queue + 1)/μ_i, the dynamic bound), hybrid (OWA recomputed before each batch from estimated rates, SF §VI); the gap is 1 − median(2nd)/median(1st)"),
    ("dispatch", "how a batch is split given fractions α: random (each job picks resource i with probability α_i) or rounded (each resource earns α_i·k credit per batch, each job goes to the most credit)"),
    ("seeds", "independent runs per point and policy, the same seeds for every policy; the line is the median of their mean response times and the band the order statistics x(i)..x(n+1−i) covering the median with ≥ 95 % (SF: 10 runs)"),
    ("batches", "batches per run; the first third is warm-up and not measured (SF: 150,000 with 50,000 discarded), except when degrading a resource, where the whole run counts"),
];

/// Points per sweep at most (each point runs every policy × seed). The jobs a sweep
/// simulates in all are bounded by [`Limits::sweep_jobs`].
pub const MAX_POINTS: usize = 100;
/// Resources per system at most.
pub const MAX_RESOURCES: usize = 1000;

impl SweepSpec {
    /// The batch system at one x value for a run of `batches` batches.
    pub fn system(&self, x: f64, batches: u64) -> Result<BatchSystem, String> {
        let at = |what: &str| format!("at x = {x}: {what}");
        let mut rates = self.rates.clone();
        let mut k = self.batch_size;
        let mut cv = self.arrival_cv;
        let mut report = self.dll_report_s;
        let mut rate_changes = vec![];
        let whole = |what: &str| -> Result<u32, String> {
            if x.fract() == 0.0 && (1.0..=100_000.0).contains(&x) {
                Ok(x as u32)
            } else {
                Err(at(&format!("{what} must be a whole number ≥ 1")))
            }
        };
        match self.vary {
            Vary::LastRate => match rates.last_mut() {
                Some(r) => *r = x,
                None => return Err("no resource rates given".into()),
            },
            Vary::Size => {
                let n = whole("the number of resources")? as usize;
                if n > MAX_RESOURCES || self.rates.is_empty() {
                    return Err(at(&format!(
                        "the number of resources must be 1..{MAX_RESOURCES} and the rate pattern not empty"
                    )));
                }
                rates = (0..n)
                    .map(|j| self.rates[j * self.rates.len() / n])
                    .collect();
            }
            Vary::BatchSize => k = whole("the batch size")?,
            Vary::ArrivalCv => cv = x,
            Vary::DllReport => report = x,
            Vary::DegradedRate => {
                let fastest = fastest(&rates).ok_or("no resource rates given")?;
                if !(x.is_finite() && x > 0.0) {
                    return Err(at("the degraded rate must be positive"));
                }
                rate_changes.push(RateChange {
                    at_s: 0.0, // set below, once λ is known
                    resource: fastest,
                    rate: x,
                });
            }
        }
        let lambda = match self.arrivals {
            Arrivals::Lambda(l) => l,
            Arrivals::Load(load) => {
                if !(load.is_finite() && load > 0.0 && load < 1.0) {
                    return Err(format!("the load must be in (0, 1) (got {load})"));
                }
                load * rates.iter().sum::<f64>() / k.max(1) as f64
            }
        };
        for c in &mut rate_changes {
            // Halfway through the run, in expectation.
            c.at_s = batches as f64 / 2.0 / lambda;
        }
        validate(&rates, lambda, k).map_err(|e| at(&e))?;
        super::sim::check_arrival_cv(cv).map_err(|e| at(&e))?;
        if !(report.is_finite() && (0.0..=1e9).contains(&report)) {
            return Err(at(&format!(
                "DLL's report interval must be 0..10⁹ s (got {report})"
            )));
        }
        Ok(BatchSystem {
            rates,
            lambda,
            batch_size: k,
            arrival_cv: cv,
            rate_changes,
            dll_report_s: report,
        })
    }

    /// Checks everything a run would, before any simulation starts.
    pub fn validate(&self, batches: u64) -> Result<(), String> {
        if self.x.is_empty() || self.x.len() > MAX_POINTS {
            return Err(format!(
                "a sweep needs 1..{MAX_POINTS} x values (got {})",
                self.x.len()
            ));
        }
        if self.rates.is_empty() || self.rates.len() > MAX_RESOURCES {
            return Err(format!(
                "a sweep needs 1..{MAX_RESOURCES} resource rates (got {})",
                self.rates.len()
            ));
        }
        if self.policies.len() < 2 {
            return Err("a sweep compares at least two policies".into());
        }
        for &x in &self.x {
            self.system(x, batches)?;
        }
        Ok(())
    }

    /// A one-line description of the system, for a sweep that is not a preset.
    pub fn describe(&self) -> String {
        let rates = |r: &[f64]| {
            r.iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let arrivals = match self.arrivals {
            Arrivals::Lambda(l) => format!("λ = {l} batches/s"),
            Arrivals::Load(l) => format!("load λk/Σμ = {l}"),
        };
        let mut parts = vec![match self.vary {
            Vary::Size => format!(
                "n resources cut from the rate pattern [{}]",
                rates(&self.rates)
            ),
            Vary::LastRate => format!(
                "rates [{}, x]",
                rates(&self.rates[..self.rates.len().saturating_sub(1)])
            ),
            _ => format!("rates [{}]", rates(&self.rates)),
        }];
        parts.push(arrivals);
        if self.vary != Vary::BatchSize {
            parts.push(format!("k = {}", self.batch_size));
        }
        if self.vary != Vary::ArrivalCv && self.arrival_cv != 1.0 {
            parts.push(format!("inter-arrival CV {}", self.arrival_cv));
        }
        if self.vary == Vary::DegradedRate {
            parts.push("the fastest resource drops to x halfway through".into());
        }
        parts.push(format!(
            "{} dispatch",
            match self.dispatch {
                Dispatch::Random => "randomized",
                Dispatch::Rounded => "rounded",
            }
        ));
        parts.join("; ")
    }
}

/// Parses a comma-separated list of numbers ("1, 2.5,10"); `what` names the field in the
/// error. Used by the CLI flags and the page's fields alike.
pub fn parse_numbers(what: &str, text: &str) -> Result<Vec<f64>, String> {
    text.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| format!("{what}: '{s}' is not a number"))
        })
        .collect()
}

/// Parses a comma-separated list of allocation policies ("ww,owa,dll").
pub fn parse_policies(text: &str) -> Result<Vec<AllocationPolicy>, String> {
    text.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(AllocationPolicy::parse)
        .collect()
}

/// Index of the fastest resource (the first of equals).
pub fn fastest(rates: &[f64]) -> Option<usize> {
    (0..rates.len()).reduce(|b, i| if rates[i] > rates[b] { i } else { b })
}

pub struct SweepPreset {
    pub name: &'static str,
    pub description: &'static str,
    /// The paper's headline numbers, to print beside the measured ones.
    pub paper: &'static str,
    pub spec: fn() -> SweepSpec,
}

use AllocationPolicy::{Dll, Hybrid, Owa, Ww};

fn ten_of_table_three(vary: Vary, x: Vec<f64>, arrivals: Arrivals, k: u32) -> SweepSpec {
    SweepSpec {
        vary,
        x,
        rates: table_three(),
        arrivals,
        batch_size: k,
        arrival_cv: 1.0,
        policies: vec![Ww, Owa, Dll],
        dispatch: Dispatch::Random,
        dll_report_s: 0.0,
    }
}

pub const SWEEP_PRESETS: &[SweepPreset] = &[
    SweepPreset {
        name: "sf-heterogeneity",
        description: "nine resources of speed 1 and one of speed h = 1..20; λ = 0.1 batches/s, k = 10 (SF §V-B, Fig. 3)",
        paper: "OWA 41 % better than WW at 20:1",
        spec: || {
            let mut rates = vec![1.0; 9];
            rates.push(20.0);
            SweepSpec {
                rates,
                ..ten_of_table_three(Vary::LastRate, (1..=20).map(f64::from).collect(), Arrivals::Lambda(0.1), 10)
            }
        },
    },
    SweepPreset {
        name: "sf-size",
        description: "n = 2..20 resources, half of speed 1 and half of speed 10; λ = 0.1, k = 10 (SF §V-C, Fig. 4)",
        paper: "OWA better than WW by 21 % at 6 resources, 35 % at 20",
        spec: || SweepSpec {
            rates: vec![1.0, 10.0],
            ..ten_of_table_three(Vary::Size, (1..=10).map(|h| f64::from(2 * h)).collect(), Arrivals::Lambda(0.1), 10)
        },
    },
    SweepPreset {
        name: "sf-batch",
        description: "SF Table III's ten resources (Σμ = 30); batch size k = 1..50; λ = 0.1 (SF §V-D, Fig. 5)",
        paper: "OWA better than WW by 62 % at k = 1, 20 % at 10, 1.5 % at 50",
        spec: || ten_of_table_three(
            Vary::BatchSize,
            vec![1.0, 2.0, 5.0, 10.0, 15.0, 20.0, 25.0, 30.0, 35.0, 40.0, 45.0, 50.0],
            Arrivals::Lambda(0.1),
            10,
        ),
    },
    SweepPreset {
        name: "sf-cv",
        description: "Table III resources, k = 10, load λk/Σμ = 0.05; inter-arrival CV 1..3 (two-stage hyper-exponential) (SF §V-E, Fig. 8)",
        paper: "at CV 3, OWA 10 % better than WW and 15 % worse than DLL",
        spec: || ten_of_table_three(
            Vary::ArrivalCv,
            vec![1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75, 3.0],
            Arrivals::Load(0.05),
            10,
        ),
    },
    SweepPreset {
        name: "sf-hybrid",
        description: "Table III resources, k = 20, load 0.3; halfway through, the speed-10 resource drops to the x-axis value; static OWA (from the initial rates) vs the hybrid scheduler (SF §VI, Figs. 10–12)",
        paper: "hybrid 14.3 % better than static on average (real grid)",
        spec: || SweepSpec {
            policies: vec![Owa, Hybrid, Dll],
            ..ten_of_table_three(Vary::DegradedRate, vec![10.0, 5.0, 2.0, 1.0, 0.5], Arrivals::Load(0.3), 20)
        },
    },
];

pub fn sweep_preset(name: &str) -> Option<&'static SweepPreset> {
    SWEEP_PRESETS.iter().find(|p| p.name == name)
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PolicySeries {
    pub policy: String,
    /// Median over seeds of the mean response time, per point (seconds).
    pub median: Vec<f64>,
    /// Confidence band of the median from order statistics (see `confidence`).
    pub lo: Vec<f64>,
    pub hi: Vec<f64>,
}

/// How the hybrid scheduler's share for the degraded resource moved during one run (seed 1,
/// the sweep's last point): SF Figs. 10–12 in one picture.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FractionHistory {
    /// The x value of the run shown.
    pub x: f64,
    /// The resource whose share is shown (the fastest, 0-based).
    pub resource: usize,
    /// Batch index of each sample.
    pub batch: Vec<u64>,
    /// The hybrid scheduler's fraction α for `resource` before that batch.
    pub hybrid: Vec<f64>,
    /// Static OWA's fraction, from the initial rates.
    pub static_owa: f64,
    /// OWA's fraction for the true rates after degradation (what the hybrid should reach);
    /// none when the degraded system is saturated.
    pub owa_after: Option<f64>,
    /// The batch at which the rate changes (in expectation).
    pub change_batch: u64,
}

/// A finished sweep. The same JSON reaches the page and `gridscope run --json`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SweepResult {
    /// The preset's name, or "custom" when the spec differs from every preset's.
    pub preset: String,
    pub description: String,
    pub x_label: String,
    /// The paper's headline numbers (empty for a custom sweep).
    pub paper: String,
    pub spec: Option<SweepSpec>,
    pub x: Vec<f64>,
    pub seeds: u64,
    pub batches: u64,
    pub warmup: u64,
    /// Coverage of the band: P(lo < true median < hi).
    pub confidence: f64,
    pub series: Vec<PolicySeries>,
    /// Gap of the second policy over the first at each point: 1 − median(2nd) / median(1st).
    pub gap_label: String,
    pub gap: Vec<f64>,
    /// Present when the sweep runs the hybrid policy on a degrading resource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<FractionHistory>,
    /// Wall time, filled in by whoever timed the run (the engine has no clock).
    #[serde(default)]
    pub elapsed_ms: f64,
}

/// Order-statistic band for the median of `n` sorted samples: the band is
/// `[x[i], x[n-1-i]]` (0-based) with coverage 1 − 2·P(Bin(n, ½) ≤ i); `i` is the largest
/// index keeping the coverage at or above 95 % (0, min to max, when `n` is too small).
pub fn median_band(n: usize) -> (usize, f64) {
    let half_n = libm::pow(0.5, n as f64);
    // cdf[j] = P(Bin(n, ½) ≤ j)
    let mut cdf = Vec::with_capacity(n);
    let mut coef = 1.0f64;
    let mut acc = 0.0;
    for j in 0..n {
        if j > 0 {
            coef = coef * (n - j + 1) as f64 / j as f64;
        }
        acc += coef * half_n;
        cdf.push(acc);
    }
    let mut i = 0;
    while i + 1 < n / 2 && 1.0 - 2.0 * cdf[i + 1] >= 0.95 {
        i += 1;
    }
    (i, 1.0 - 2.0 * cdf.get(i).copied().unwrap_or(0.0))
}

/// Sorts `samples` (one per seed) and returns their median and the order-statistic band
/// `[x[band_lo], x[n − 1 − band_lo]]` (`band_lo` from [`median_band`]); zeros when empty.
pub fn median_and_band(samples: &mut [f64], band_lo: usize) -> (f64, f64, f64) {
    samples.sort_by(|a, b| a.total_cmp(b));
    let n = samples.len();
    if n == 0 {
        return (0.0, 0.0, 0.0);
    }
    let median = if n % 2 == 1 {
        samples[n / 2]
    } else {
        (samples[n / 2 - 1] + samples[n / 2]) / 2.0
    };
    let lo = band_lo.min(n - 1);
    (median, samples[lo], samples[n - 1 - lo])
}

/// Runs a preset as the paper defined it.
pub fn run_preset(
    preset: &SweepPreset,
    seeds: u64,
    batches: u64,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<SweepResult, String> {
    run_sweep(&(preset.spec)(), seeds, batches, progress)
}

/// Runs a sweep: every point × policy × seed. `progress(done, total)` may return false to
/// cancel. The result names the preset whose spec this is, if any.
pub fn run_sweep(
    spec: &SweepSpec,
    seeds: u64,
    batches: u64,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<SweepResult, String> {
    run_sweep_on(spec, seeds, batches, 1, progress)
}

/// `Err` saying why, when the sweep is malformed or past the limits (what a run would
/// refuse, without running it: the page checks a shared link with it before offering Run).
pub fn check(spec: &SweepSpec, seeds: u64, batches: u64, limits: &Limits) -> Result<(), String> {
    checked_systems(spec, seeds, batches, limits).map(|_| ())
}

/// The sweep's systems, its warm-up and its number of runs, after checking that it is
/// well formed and small enough to finish.
fn checked_systems(
    spec: &SweepSpec,
    seeds: u64,
    batches: u64,
    limits: &Limits,
) -> Result<(Vec<BatchSystem>, u64, u64), String> {
    if seeds == 0 || seeds > 1000 {
        return Err(format!("seeds must be 1..1000 (got {seeds})"));
    }
    if !(100..=10_000_000).contains(&batches) {
        return Err(format!("batches must be 100..10,000,000 (got {batches})"));
    }
    spec.validate(batches)?;
    // SF discards the first third (50,000 of 150,000 batches); a degradation sweep measures
    // the whole run, degradation included.
    let warmup = if spec.vary == Vary::DegradedRate {
        0
    } else {
        batches / 3
    };
    let systems: Vec<BatchSystem> = spec
        .x
        .iter()
        .map(|&x| spec.system(x, batches))
        .collect::<Result<_, _>>()?;
    let total = (systems.len() * spec.policies.len()) as u64 * seeds;
    // About 15 million jobs a second natively (half that in a page): refuse a sweep that
    // would run for hours rather than let it look hung.
    let jobs = jobs_of(spec, &systems, seeds, batches);
    let max = limits.sweep_jobs as f64;
    if !jobs.is_finite() || jobs > max {
        // The page (the only wasm build) has no flags to offer.
        let raise = if cfg!(target_arch = "wasm32") {
            "run it with the command-line gridscope, which can raise the limit".to_string()
        } else {
            format!("raise the limit with {} N", Limit::SweepJobs.flag())
        };
        return Err(format!(
            "this sweep would simulate {jobs:.2e} jobs, more than the limit of {max:.1e} (about {} s natively on one core); \
             use fewer seeds, batches, points or a smaller k, or {raise}",
            (max / 15e6).round(),
        ));
    }
    Ok((systems, warmup, total))
}

/// Jobs a sweep of these systems simulates: Σ points k × batches, × policies × seeds.
fn jobs_of(spec: &SweepSpec, systems: &[BatchSystem], seeds: u64, batches: u64) -> f64 {
    systems
        .iter()
        .map(|s| s.batch_size as f64 * batches as f64)
        .sum::<f64>()
        * (spec.policies.len() as u64 * seeds) as f64
}

/// The jobs a sweep would simulate, without running it; `Err` when it is malformed.
pub fn sweep_jobs(spec: &SweepSpec, seeds: u64, batches: u64) -> Result<f64, String> {
    let systems: Vec<BatchSystem> = spec
        .x
        .iter()
        .map(|&x| spec.system(x, batches))
        .collect::<Result<_, _>>()?;
    Ok(jobs_of(spec, &systems, seeds, batches))
}

/// A shared sweep link above this many jobs (about 25 s in a page) waits for the
/// visitor's go; every preset at its defaults is below it.
pub const CONFIRM_ABOVE_SWEEP_JOBS: f64 = 2e8;

/// [`run_sweep`] on up to `threads` threads (natively; wasm runs them in order): the same
/// result, byte for byte.
pub fn run_sweep_on(
    spec: &SweepSpec,
    seeds: u64,
    batches: u64,
    threads: usize,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<SweepResult, String> {
    run_sweep_within(spec, seeds, batches, threads, &Limits::default(), progress)
}

/// One (point, policy, seed) run of a sweep, as much of it as the result needs: its mean
/// response, and for the one run whose history the result shows (the hybrid's seed-1 run at
/// the last point) its fractions. Runs can be spread over threads or Web Workers and put
/// back together with [`assemble_sweep`]: the result does not depend on where each ran.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepSample {
    #[serde(with = "any_f64")]
    pub mean_response_s: f64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fraction_history: Vec<(u64, Vec<f64>)>,
}

/// An f64 that survives JSON whatever its value: finite numbers as numbers, NaN and the
/// infinities as text (JSON has no literal for them, and a sample crosses to the page as
/// JSON; [`assemble_sweep`] then refuses the result with the point at fault).
mod any_f64 {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        if v.is_finite() {
            s.serialize_f64(*v)
        } else {
            s.serialize_str(&v.to_string())
        }
    }

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Repr {
        Number(f64),
        Text(String),
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        match Repr::deserialize(d)? {
            Repr::Number(v) => Ok(v),
            Repr::Text(t) => t.parse().map_err(serde::de::Error::custom),
        }
    }
}

/// A checked sweep, ready to run task by task: `tasks()` runs, numbered point-major, then
/// policy, then seed (the order a single thread runs them in).
pub struct SweepPlan {
    spec: SweepSpec,
    seeds: u64,
    batches: u64,
    systems: Vec<BatchSystem>,
    warmup: u64,
    total: u64,
}

impl SweepPlan {
    /// Checks the sweep (shape, size within `limits`) and builds its systems.
    pub fn new(
        spec: &SweepSpec,
        seeds: u64,
        batches: u64,
        limits: &Limits,
    ) -> Result<SweepPlan, String> {
        let (systems, warmup, total) = checked_systems(spec, seeds, batches, limits)?;
        Ok(SweepPlan {
            spec: spec.clone(),
            seeds,
            batches,
            systems,
            warmup,
            total,
        })
    }

    pub fn tasks(&self) -> u64 {
        self.total
    }

    pub fn spec(&self) -> &SweepSpec {
        &self.spec
    }

    pub fn seeds(&self) -> u64 {
        self.seeds
    }

    pub fn batches(&self) -> u64 {
        self.batches
    }

    /// The tasks worker `worker` of `of` runs, in order: every `of`-th from `worker`
    /// (interleaved, so each worker gets its share of every point's cost).
    pub fn share(&self, worker: u64, of: u64) -> impl Iterator<Item = u64> {
        (worker..self.total).step_by(of.max(1) as usize)
    }

    /// Runs task `k` (`k < tasks()`).
    pub fn run_task(&self, k: u64) -> Result<SweepSample, String> {
        let (n_pol, n_seeds) = (self.spec.policies.len() as u64, self.seeds);
        let (xi, pi, seed) = (k / (n_pol * n_seeds), k / n_seeds % n_pol, k % n_seeds);
        let policy = self.spec.policies[pi as usize];
        let out = simulate_allocation(
            &self.systems[xi as usize],
            policy,
            self.spec.dispatch,
            self.batches,
            self.warmup,
            seed + 1,
        )?;
        let keep_history = policy == Hybrid && seed == 0 && xi + 1 == self.systems.len() as u64;
        Ok(SweepSample {
            mean_response_s: out.mean_response_s,
            fraction_history: if keep_history {
                out.fraction_history
            } else {
                Vec::new()
            },
        })
    }
}

/// [`run_sweep_on`] held to `limits` (the sweep size) instead of the defaults.
pub fn run_sweep_within(
    spec: &SweepSpec,
    seeds: u64,
    batches: u64,
    threads: usize,
    limits: &Limits,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<SweepResult, String> {
    let plan = SweepPlan::new(spec, seeds, batches, limits)?;
    // Every (point, policy, seed) run is independent: on all cores natively, the results
    // in the order a single thread would produce them.
    let task = |k: usize| plan.run_task(k as u64);
    let samples = crate::par::map_in_order(plan.total as usize, threads, &task, &mut |d, t| {
        progress(d as u64, t as u64)
    })
    .ok_or_else(|| "sweep cancelled".to_string())?;
    assemble_sweep(&plan, samples)
}

/// [`assemble_sweep`] from the workers' shares: `shares[w]` holds the samples of
/// [`SweepPlan::share`]`(w, shares.len())`, in order.
pub fn assemble_shares(
    plan: &SweepPlan,
    shares: Vec<Vec<Result<SweepSample, String>>>,
) -> Result<SweepResult, String> {
    let n = shares.len().max(1);
    let mut shares: Vec<_> = shares.into_iter().map(Vec::into_iter).collect();
    let samples = (0..plan.total as usize)
        .map_while(|k| shares.get_mut(k % n)?.next())
        .collect();
    assemble_sweep(plan, samples)
}

/// The sweep's result from its tasks' samples, in task order (the first failed task's error
/// if any failed).
pub fn assemble_sweep(
    plan: &SweepPlan,
    samples: Vec<Result<SweepSample, String>>,
) -> Result<SweepResult, String> {
    let (spec, seeds, batches, warmup) = (&plan.spec, plan.seeds, plan.batches, plan.warmup);
    let systems = &plan.systems;
    if samples.len() as u64 != plan.total {
        return Err("sweep cancelled".into());
    }
    let (band_lo, confidence) = median_band(seeds as usize);
    let mut series: Vec<PolicySeries> = spec
        .policies
        .iter()
        .map(|p| PolicySeries {
            policy: p.name().to_string(),
            ..PolicySeries::default()
        })
        .collect();
    let n_seeds = seeds as usize;
    let mut samples = samples.into_iter();
    // The hybrid's fractions in its seed-1 run at the last point, for `history` (recorded
    // over the whole run, warm-up included).
    let mut hybrid_fractions = None;
    for xi in 0..systems.len() {
        for (pi, &policy) in spec.policies.iter().enumerate() {
            let mut values = Vec::with_capacity(n_seeds);
            for seed in 0..n_seeds {
                let Some(out) = samples.next() else {
                    return Err("sweep cancelled".into());
                };
                let out = out?;
                values.push(out.mean_response_s);
                if policy == Hybrid && seed == 0 && xi + 1 == systems.len() {
                    hybrid_fractions = Some(out.fraction_history);
                }
            }
            let (median, lo, hi) = median_and_band(&mut values, band_lo);
            series[pi].median.push(median);
            series[pi].lo.push(lo);
            series[pi].hi.push(hi);
        }
    }
    let gap: Vec<f64> = series[1]
        .median
        .iter()
        .zip(&series[0].median)
        .map(|(b, a)| 1.0 - b / a)
        .collect();
    let history = match (hybrid_fractions, systems.last()) {
        (Some(fractions), Some(sys)) => Some(fraction_history(spec, sys, batches, &fractions)?),
        _ => None,
    };
    // Every number of the result is finite, or the sweep is refused with the point at fault.
    for p in &series {
        for (i, x) in spec.x.iter().enumerate() {
            let values = [p.median.get(i), p.lo.get(i), p.hi.get(i)];
            if values.iter().any(|v| v.is_some_and(|v| !v.is_finite())) {
                return Err(format!(
                    "at x = {x} the {} response times are not finite numbers (the inputs are beyond \
                     double precision: rescale the rates and λ so they are near 1)",
                    p.policy
                ));
            }
        }
    }
    if let Some(i) = gap.iter().position(|g| !g.is_finite()) {
        return Err(format!(
            "at x = {} the gap between the policies is not a finite number (a median response of 0?)",
            spec.x[i]
        ));
    }
    let preset = SWEEP_PRESETS.iter().find(|p| (p.spec)() == *spec);
    Ok(SweepResult {
        preset: preset.map_or("custom", |p| p.name).to_string(),
        description: preset.map_or_else(|| spec.describe(), |p| p.description.to_string()),
        x_label: spec.vary.label().to_string(),
        paper: preset.map_or("", |p| p.paper).to_string(),
        spec: Some(spec.clone()),
        x: spec.x.clone(),
        seeds,
        batches,
        warmup,
        confidence,
        gap_label: format!(
            "{} better than {} by (1 − {}/{})",
            series[1].policy, series[0].policy, series[1].policy, series[0].policy
        ),
        series,
        gap,
        history,
        elapsed_ms: 0.0,
    })
}

/// The hybrid's fraction for the fastest resource of `sys` over one run (`fractions`: the
/// run's `fraction_history`), beside static OWA and OWA for the degraded rates.
fn fraction_history(
    spec: &SweepSpec,
    sys: &BatchSystem,
    batches: u64,
    fractions: &[(u64, Vec<f64>)],
) -> Result<FractionHistory, String> {
    let resource = fastest(&sys.rates).unwrap_or(0);
    let static_owa = owa_batch(&sys.rates, sys.lambda, sys.batch_size)?[resource];
    let mut after = sys.rates.clone();
    for c in &sys.rate_changes {
        after[c.resource] = c.rate;
    }
    // After degradation the system may be saturated: then no static share is optimal.
    let owa_after = owa_batch(&after, sys.lambda, sys.batch_size)
        .ok()
        .map(|a| a[resource]);
    let change_batch = sys
        .rate_changes
        .first()
        .map_or(batches, |c| (c.at_s * sys.lambda) as u64);
    Ok(FractionHistory {
        x: spec.x.last().copied().unwrap_or(0.0),
        resource,
        batch: fractions.iter().map(|(b, _)| *b).collect(),
        hybrid: fractions
            .iter()
            .map(|(_, f)| f.get(resource).copied().unwrap_or(0.0))
            .collect(),
        static_owa,
        owa_after,
        change_batch,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_cross_json_whatever_their_value() {
        for v in [1.5, 0.1 + 0.2, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let s = SweepSample {
                mean_response_s: v,
                fraction_history: vec![(3, vec![0.25, 0.75])],
            };
            let back: SweepSample =
                serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
            assert_eq!(back.mean_response_s.to_bits(), v.to_bits(), "{v}");
            assert_eq!(back.fraction_history, s.fraction_history);
        }
    }

    #[test]
    fn a_sweep_split_over_workers_is_the_sweep() {
        // Tasks run in any order and any grouping give the sequential result, byte for byte.
        let spec = (SWEEP_PRESETS[0].spec)();
        let plan = SweepPlan::new(&spec, 3, 300, &Limits::default()).unwrap();
        let whole = run_sweep(&spec, 3, 300, &mut |_, _| true).unwrap();
        let n = plan.tasks();
        let mut samples: Vec<Option<Result<SweepSample, String>>> = vec![None; n as usize];
        for worker in (0..3).rev() {
            for k in (worker..n).step_by(3) {
                samples[k as usize] = Some(plan.run_task(k));
            }
        }
        let split =
            assemble_sweep(&plan, samples.into_iter().map(Option::unwrap).collect()).unwrap();
        assert_eq!(
            serde_json::to_string(&split).unwrap(),
            serde_json::to_string(&whole).unwrap()
        );
        // The page's way: each worker runs its `share`, the shares assemble in order.
        for of in [1, 2, 5] {
            let shares = (0..of)
                .map(|w| plan.share(w, of).map(|k| plan.run_task(k)).collect())
                .collect();
            assert_eq!(
                assemble_shares(&plan, shares).unwrap(),
                whole,
                "{of} workers"
            );
        }
    }

    #[test]
    fn median_band_of_ten_is_second_and_ninth() {
        let (lo, cov) = median_band(10);
        assert_eq!(lo, 1);
        assert!((cov - (1.0 - 2.0 * 11.0 / 1024.0)).abs() < 1e-12);
        assert_eq!(median_band(1).0, 0);
    }

    #[test]
    fn every_preset_is_valid() {
        for p in SWEEP_PRESETS {
            (p.spec)()
                .validate(1000)
                .unwrap_or_else(|e| panic!("{}: {e}", p.name));
        }
    }

    #[test]
    fn presets_build_the_papers_systems() {
        let spec = |n: &str| (sweep_preset(n).unwrap().spec)();
        let s = spec("sf-size").system(6.0, 1000).unwrap();
        assert_eq!(s.rates, vec![1.0, 1.0, 1.0, 10.0, 10.0, 10.0]);
        let s = spec("sf-heterogeneity").system(7.0, 1000).unwrap();
        assert_eq!(s.rates[9], 7.0);
        assert_eq!(s.rates[..9], [1.0; 9]);
        let s = spec("sf-cv").system(2.5, 1000).unwrap();
        assert!((s.lambda * 10.0 / 30.0 - 0.05).abs() < 1e-12);
        assert_eq!(s.arrival_cv, 2.5);
        let s = spec("sf-hybrid").system(2.0, 1000).unwrap();
        assert_eq!(s.rate_changes.len(), 1);
        assert_eq!(s.rate_changes[0].resource, 9);
        assert_eq!(s.rate_changes[0].rate, 2.0);
        assert!((s.rate_changes[0].at_s * s.lambda - 500.0).abs() < 1e-9);
    }

    /// DLL with stale load reports: Δ = 0 is exactly today's DLL; longer intervals make it
    /// worse (it keeps sending to servers whose jobs it does not see leave), never OWA or WW.
    #[test]
    fn stale_load_reports_slow_dll_down_and_zero_changes_nothing() {
        let mut s = (sweep_preset("sf-cv").unwrap().spec)();
        s.x = vec![3.0];
        let exact = run_sweep(&s, 3, 3000, &mut |_, _| true).unwrap();
        s.dll_report_s = 0.0;
        assert_eq!(
            run_sweep(&s, 3, 3000, &mut |_, _| true).unwrap().series,
            exact.series
        );
        s.vary = Vary::DllReport;
        s.x = vec![0.0, 5.0, 50.0];
        s.arrival_cv = 3.0;
        let r = run_sweep(&s, 3, 3000, &mut |_, _| true).unwrap();
        let dll = &r.series[2].median;
        assert_eq!(r.series[2].policy, "dll");
        assert_eq!(dll[0], exact.series[2].median[0]);
        assert!(dll[0] < dll[1] && dll[1] < dll[2], "{dll:?}");
        assert!(
            r.series[1].median.windows(2).all(|w| w[0] == w[1]),
            "OWA moved"
        );
    }

    #[test]
    fn every_preset_at_its_defaults_runs_from_a_link_unasked() {
        for p in SWEEP_PRESETS {
            let jobs = sweep_jobs(&(p.spec)(), 10, 20_000).unwrap();
            assert!(jobs < CONFIRM_ABOVE_SWEEP_JOBS, "{}: {jobs:e}", p.name);
        }
    }

    #[test]
    fn bad_specs_say_which_point_and_why() {
        let mut s = (sweep_preset("sf-batch").unwrap().spec)();
        s.x = vec![10.0, 400.0];
        let e = s.validate(1000).unwrap_err();
        assert!(e.contains("x = 400") && e.contains("saturated"), "{e}");
        s.x = vec![2.5];
        assert!(s.validate(1000).unwrap_err().contains("whole number"));
        s.x = vec![];
        assert!(s.validate(1000).unwrap_err().contains("x values"));
        let mut s = (sweep_preset("sf-cv").unwrap().spec)();
        s.x = vec![0.5];
        assert!(s.validate(1000).unwrap_err().contains("at least 1"));
        s.arrivals = Arrivals::Load(1.5);
        assert!(s.validate(1000).unwrap_err().contains("(0, 1)"));
        s.arrivals = Arrivals::Load(0.05);
        s.x = vec![3.0];
        s.batch_size = 50_000;
        let e = run_sweep(&s, 1000, 10_000_000, &mut |_, _| true).unwrap_err();
        assert!(e.contains("would simulate"), "{e}");
        s.policies.truncate(1);
        assert!(s.validate(1000).unwrap_err().contains("two policies"));
    }

    #[test]
    fn a_changed_spec_is_custom_and_described() {
        let mut s = (sweep_preset("sf-heterogeneity").unwrap().spec)();
        s.x = vec![2.0, 4.0];
        let r = run_sweep(&s, 1, 300, &mut |_, _| true).unwrap();
        assert_eq!(r.preset, "custom");
        assert!(r.description.contains("rates [1, 1"), "{}", r.description);
        assert!(r.paper.is_empty());
        let r = run_preset(sweep_preset("sf-hybrid").unwrap(), 1, 400, &mut |_, _| true).unwrap();
        assert_eq!(r.preset, "sf-hybrid");
        let h = r.history.expect("hybrid history");
        assert_eq!(h.x, 0.5);
        assert_eq!(h.resource, 9);
        assert_eq!(h.batch.len(), h.hybrid.len());
        assert!(!h.hybrid.is_empty());
    }
}
