//! What one SF sweep is: the system (rates, arrivals, batch size, CV), the parameter on the
//! x axis and its values, the policies compared — with the help and limits of each field and
//! the parsers the edges share.

use serde::{Deserialize, Serialize};

use crate::allocation::fractions::validate;
use crate::allocation::{AllocationPolicy, BatchSystem, Dispatch, RateChange};

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
        crate::allocation::sim::check_arrival_cv(cv).map_err(|e| at(&e))?;
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
