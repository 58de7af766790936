//! Per-job A/B (issue #29): two runs of the same jobs (two policies, or the same policy on
//! two settings) compared job by job — which jobs gained and which lost wait — and, over
//! seeds, whether the difference holds.
//!
//! The difference of a job is `d = wait under B − wait under A` (seconds): negative, the job
//! gained under B; positive, it lost. Jobs are paired by job id (the k-th row of an id in A
//! with the k-th row of that id in B); a job that ran in only one run is counted, not paired.
//!
//! Two tests, both deterministic:
//! - **per job** (one pair of runs): the Wilcoxon signed-rank test of the paired waits
//!   (zero differences dropped, average ranks for ties, tie-corrected variance, normal
//!   approximation with continuity correction; two-sided p), and the mean difference with a
//!   95 % normal-approximation interval (mean ± 1.96 standard errors). The jobs of one run
//!   are not independent (a job's wait depends on the others'), so read it as descriptive;
//! - **over seeds** (several pairs of runs, seed for seed): each pair's mean difference is
//!   one observation; the 95 % interval of their mean is a seeded percentile bootstrap, and
//!   the p-value an exact sign-flip permutation test (all 2ⁿ sign patterns up to n = 16
//!   pairs, else the same number of seeded random ones as bootstrap resamples). Seeds are
//!   independent runs: this is the test that says whether B beats A.
//!
//! Times are read as decimal seconds and kept as integer milliseconds, so sums and ranks
//! are exact and the answer is the same bytes on every machine.

use serde::{Deserialize, Serialize};

use crate::rng::SimRng;

/// One run's jobs: ids and waits (start − submit, milliseconds), in file order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JobWaits {
    pub name: String,
    pub ids: Vec<i64>,
    pub waits_ms: Vec<i64>,
}

/// Reads a per-job CSV: the CLI's `--jobs` file (`job_id,…,submit,start,…`) or Batsim's
/// `jobs.csv` (`job_id,…,submission_time,starting_time,…`), columns found by name. Errors
/// name the file and line.
pub fn parse_jobs_csv(name: &str, bytes: &[u8]) -> Result<JobWaits, String> {
    let text = std::str::from_utf8(bytes).map_err(|e| format!("{name}: not UTF-8 text: {e}"))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.lines().enumerate();
    let header = lines
        .next()
        .map(|(_, h)| h)
        .ok_or_else(|| format!("{name}: empty file"))?;
    let cols: Vec<&str> = header.split(',').map(str::trim).collect();
    let find = |names: &[&str]| cols.iter().position(|c| names.contains(c));
    let (Some(id), Some(submit), Some(start)) = (
        find(&["job_id"]),
        find(&["submit", "submission_time"]),
        find(&["start", "starting_time"]),
    ) else {
        return Err(format!(
            "{name}:1: not a per-job CSV: the header needs job_id, submit (or submission_time) and start (or starting_time)"
        ));
    };
    let mut out = JobWaits {
        name: name.to_string(),
        ..Default::default()
    };
    for (i, line) in lines {
        if line.trim().is_empty() {
            continue;
        }
        // Fields never hold commas in the columns read (a quoted site or workload name may:
        // split respecting quotes).
        let fields = split_csv(line);
        let get = |c: usize, what: &str| -> Result<&str, String> {
            fields
                .get(c)
                .map(|s| s.as_str())
                .ok_or_else(|| format!("{name}:{}: no {what} column", i + 1))
        };
        let job: i64 = get(id, "job_id")?
            .trim()
            .rsplit('!')
            .next()
            .unwrap_or_default()
            .parse()
            .map_err(|_| format!("{name}:{}: job_id is not a whole number", i + 1))?;
        let s = seconds_ms(get(submit, "submit")?)
            .ok_or_else(|| format!("{name}:{}: submit is not a number of seconds", i + 1))?;
        let t = seconds_ms(get(start, "start")?)
            .ok_or_else(|| format!("{name}:{}: start is not a number of seconds", i + 1))?;
        out.ids.push(job);
        out.waits_ms.push(t - s);
    }
    Ok(out)
}

fn split_csv(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(String::new()),
            c => out.last_mut().expect("never empty").push(c),
        }
    }
    out
}

/// Decimal seconds as whole milliseconds (rounded), within ±10¹² s.
fn seconds_ms(s: &str) -> Option<i64> {
    let v: f64 = s.trim().parse().ok()?;
    let ms = (v * 1000.0).round();
    (ms.is_finite() && ms.abs() <= 1e15).then_some(ms as i64)
}

/// One job's waits under A and B.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct JobDiff {
    pub job_id: i64,
    pub wait_a_s: f64,
    pub wait_b_s: f64,
    /// wait_b − wait_a: negative = gained under B.
    pub diff_s: f64,
}

/// The jobs of two runs paired by id: `(job id, wait A, wait B)` in A's order.
pub fn pair(a: &JobWaits, b: &JobWaits) -> (Vec<(i64, i64, i64)>, u64, u64) {
    // The k-th row of an id in A with the k-th of that id in B: sort B's rows by (id, row).
    let mut bs: Vec<(i64, usize)> = b.ids.iter().copied().zip(0..).collect();
    bs.sort_unstable();
    let mut used = vec![false; bs.len()];
    let mut seen: std::collections::BTreeMap<i64, usize> = Default::default();
    let mut pairs = Vec::with_capacity(a.ids.len());
    let mut only_a = 0u64;
    for (&id, &wa) in a.ids.iter().zip(&a.waits_ms) {
        let k = seen.entry(id).or_insert(0);
        let first = bs.partition_point(|&(x, _)| x < id);
        match bs.get(first + *k) {
            Some(&(x, row)) if x == id => {
                used[first + *k] = true;
                pairs.push((id, wa, b.waits_ms[row]));
            }
            _ => only_a += 1,
        }
        *k += 1;
    }
    let only_b = used.iter().filter(|u| !**u).count() as u64;
    (pairs, only_a, only_b)
}

/// The per-job Wilcoxon signed-rank test and the mean difference's normal interval.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PerJobTest {
    pub test: String,
    /// Jobs with a nonzero difference (the test's n).
    pub n_nonzero: u64,
    pub w_plus: f64,
    pub z: f64,
    pub p_value: f64,
    pub mean_diff_s: f64,
    pub ci95_low_s: f64,
    pub ci95_high_s: f64,
}

/// The over-seeds test of the per-pair mean differences.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SeedTest {
    pub test: String,
    pub pairs: u64,
    /// Each pair's mean difference (seconds), in the order given.
    pub mean_diffs_s: Vec<f64>,
    pub mean_diff_s: f64,
    pub ci95_low_s: f64,
    pub ci95_high_s: f64,
    pub p_value: f64,
    pub resamples: u32,
    pub seed: u64,
    /// Whether the p-value enumerated every sign pattern (else a seeded sample of them).
    pub exact: bool,
}

/// One run's jobs that ran, for [`compare`]: ids and waits from the engine's outcomes (the
/// page's runs; the CLI reads the same from the `--jobs` files).
pub fn waits_of(
    name: &str,
    jobs: &[crate::model::Job],
    outcomes: &[crate::engine::Outcome],
) -> JobWaits {
    let mut w = JobWaits {
        name: name.to_string(),
        ..Default::default()
    };
    for (j, o) in jobs.iter().zip(outcomes) {
        if o.ran() {
            w.ids.push(j.id);
            w.waits_ms
                .push((o.start - j.submit).0 * (1000 / crate::time::TICKS_PER_SEC));
        }
    }
    w
}

/// Everything `gridscope compare` reports.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Comparison {
    pub a: String,
    pub b: String,
    pub jobs_paired: u64,
    pub only_in_a: u64,
    pub only_in_b: u64,
    pub mean_wait_a_s: f64,
    pub mean_wait_b_s: f64,
    pub mean_diff_s: f64,
    pub median_diff_s: f64,
    /// Jobs that waited less under B, more, the same.
    pub gained: u64,
    pub lost: u64,
    pub unchanged: u64,
    pub top_gainers: Vec<JobDiff>,
    pub top_losers: Vec<JobDiff>,
    /// Of the first pair of runs.
    pub per_job: PerJobTest,
    /// With two or more pairs of runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub over_seeds: Option<SeedTest>,
}

fn secs(ms: f64) -> f64 {
    ms / 1000.0
}

/// Compares the pairs of runs (A, B), seed for seed. The per-job figures are those of the
/// first pair. `top` jobs each way; `resamples` and `seed` drive the over-seeds test.
pub fn compare(
    runs: &[(JobWaits, JobWaits)],
    top: usize,
    resamples: u32,
    seed: u64,
) -> Result<Comparison, String> {
    let (a, b) = runs.first().ok_or("no runs to compare")?;
    let (pairs, only_a, only_b) = pair(a, b);
    if pairs.is_empty() {
        return Err(format!(
            "{} and {} have no job id in common: not runs of the same jobs",
            a.name, b.name
        ));
    }
    let n = pairs.len() as f64;
    let sum = |f: &dyn Fn(&(i64, i64, i64)) -> i64| {
        pairs.iter().map(|p| f(p) as i128).sum::<i128>() as f64
    };
    let mean_a = sum(&|p| p.1) / n;
    let mean_b = sum(&|p| p.2) / n;
    let mut diffs: Vec<i64> = pairs.iter().map(|p| p.2 - p.1).collect();
    let job = |&(id, wa, wb): &(i64, i64, i64)| JobDiff {
        job_id: id,
        wait_a_s: secs(wa as f64),
        wait_b_s: secs(wb as f64),
        diff_s: secs((wb - wa) as f64),
    };
    // Ties broken by job id then by place, so the lists are the same on every machine.
    let mut order: Vec<usize> = (0..pairs.len()).collect();
    order.sort_by_key(|&i| (diffs[i], pairs[i].0, i));
    let top_gainers = order
        .iter()
        .take(top)
        .filter(|&&i| diffs[i] < 0)
        .map(|&i| job(&pairs[i]))
        .collect();
    let top_losers = order
        .iter()
        .rev()
        .take(top)
        .filter(|&&i| diffs[i] > 0)
        .map(|&i| job(&pairs[i]))
        .collect();
    let per_job = wilcoxon(&diffs);
    diffs.sort_unstable();
    let m = diffs.len();
    let median = if m % 2 == 1 {
        diffs[m / 2] as f64
    } else {
        (diffs[m / 2 - 1] as f64 + diffs[m / 2] as f64) / 2.0
    };
    let over_seeds = if runs.len() >= 2 {
        let means: Vec<f64> = runs
            .iter()
            .map(|(a, b)| {
                let (p, ..) = pair(a, b);
                if p.is_empty() {
                    return Err(format!(
                        "{} and {} have no job id in common",
                        a.name, b.name
                    ));
                }
                let d: i128 = p.iter().map(|&(_, wa, wb)| (wb - wa) as i128).sum();
                Ok(secs(d as f64 / p.len() as f64))
            })
            .collect::<Result<_, String>>()?;
        Some(seed_test(&means, resamples.max(1), seed))
    } else {
        None
    };
    Ok(Comparison {
        a: a.name.clone(),
        b: b.name.clone(),
        jobs_paired: pairs.len() as u64,
        only_in_a: only_a,
        only_in_b: only_b,
        mean_wait_a_s: secs(mean_a),
        mean_wait_b_s: secs(mean_b),
        mean_diff_s: secs(mean_b - mean_a),
        median_diff_s: secs(median),
        gained: diffs.iter().filter(|&&d| d < 0).count() as u64,
        lost: diffs.iter().filter(|&&d| d > 0).count() as u64,
        unchanged: diffs.iter().filter(|&&d| d == 0).count() as u64,
        top_gainers,
        top_losers,
        per_job,
        over_seeds,
    })
}

/// The Wilcoxon signed-rank test of paired differences (milliseconds).
pub fn wilcoxon(diffs: &[i64]) -> PerJobTest {
    let n_all = diffs.len() as f64;
    let mean: f64 = diffs.iter().map(|&d| d as i128).sum::<i128>() as f64 / n_all.max(1.0);
    let var = if diffs.len() > 1 {
        diffs
            .iter()
            .map(|&d| (d as f64 - mean).powi(2))
            .sum::<f64>()
            / (n_all - 1.0)
    } else {
        0.0
    };
    let se = (var / n_all.max(1.0)).sqrt();
    let mut nz: Vec<(u64, bool)> = diffs
        .iter()
        .filter(|&&d| d != 0)
        .map(|&d| (d.unsigned_abs(), d > 0))
        .collect();
    nz.sort_unstable();
    let n = nz.len();
    let (mut w_plus, mut ties) = (0f64, 0f64);
    let mut i = 0;
    while i < n {
        let mut j = i;
        while j < n && nz[j].0 == nz[i].0 {
            j += 1;
        }
        // Ranks i+1..=j share their average.
        let rank = (i + 1 + j) as f64 / 2.0;
        w_plus += rank * nz[i..j].iter().filter(|x| x.1).count() as f64;
        let t = (j - i) as f64;
        ties += t * t * t - t;
        i = j;
    }
    let nf = n as f64;
    let mu = nf * (nf + 1.0) / 4.0;
    let sigma = (nf * (nf + 1.0) * (2.0 * nf + 1.0) / 24.0 - ties / 48.0).sqrt();
    let (z, p) = if sigma > 0.0 {
        let dev = (w_plus - mu).abs() - 0.5;
        let z = dev.max(0.0) / sigma * (w_plus - mu).signum();
        (z, libm::erfc(z.abs() / std::f64::consts::SQRT_2).min(1.0))
    } else {
        (0.0, 1.0)
    };
    PerJobTest {
        test: "Wilcoxon signed-rank (normal approximation, tie-corrected, continuity-corrected)"
            .into(),
        n_nonzero: n as u64,
        w_plus,
        z,
        p_value: p,
        mean_diff_s: secs(mean),
        ci95_low_s: secs(mean - 1.96 * se),
        ci95_high_s: secs(mean + 1.96 * se),
    }
}

/// Sign patterns enumerated exactly up to this many pairs (2¹⁶ = 65,536).
const EXACT_PAIRS: usize = 16;

/// The seeded percentile bootstrap of the mean and the sign-flip permutation test.
pub fn seed_test(means: &[f64], resamples: u32, seed: u64) -> SeedTest {
    let n = means.len();
    let mean = means.iter().sum::<f64>() / n as f64;
    let mut rng = SimRng::new(seed);
    let mut boot: Vec<f64> = (0..resamples)
        .map(|_| {
            (0..n)
                .map(|_| means[rng.range_u64(0, n as u64 - 1) as usize])
                .sum::<f64>()
                / n as f64
        })
        .collect();
    boot.sort_by(f64::total_cmp);
    let q = |p: f64| boot[((p * (boot.len() - 1) as f64).round() as usize).min(boot.len() - 1)];
    // The statistic |Σ d| against every sign pattern (or a sample): under "no difference"
    // each pair's sign is a coin flip. A small tolerance counts patterns equal to the
    // observed one despite rounding.
    let observed = means.iter().sum::<f64>().abs();
    let tol = 1e-9 * (1.0 + observed);
    let exact = n <= EXACT_PAIRS;
    let (hits, total) = if exact {
        let total = 1u64 << n;
        let hits = (0..total)
            .filter(|mask| {
                let s: f64 = (0..n)
                    .map(|i| {
                        if mask >> i & 1 == 1 {
                            -means[i]
                        } else {
                            means[i]
                        }
                    })
                    .sum();
                s.abs() >= observed - tol
            })
            .count() as u64;
        (hits, total)
    } else {
        let hits = (0..resamples)
            .filter(|_| {
                let s: f64 = means
                    .iter()
                    .map(|&d| if rng.range_u64(0, 1) == 1 { -d } else { d })
                    .sum();
                s.abs() >= observed - tol
            })
            .count() as u64;
        // The observed pattern counts as one of the sample (a p-value is never 0).
        (hits + 1, resamples as u64 + 1)
    };
    SeedTest {
        test: "seed pairs: percentile bootstrap of the mean difference (95 % interval); sign-flip permutation test (two-sided p)".into(),
        pairs: n as u64,
        mean_diffs_s: means.to_vec(),
        mean_diff_s: mean,
        ci95_low_s: q(0.025),
        ci95_high_s: q(0.975),
        p_value: hits as f64 / total as f64,
        resamples,
        seed,
        exact,
    }
}

impl Comparison {
    /// The comparison as text, one fact per line and the two job tables.
    pub fn text(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let _ = writeln!(s, "A: {}\nB: {}", self.a, self.b);
        let _ = writeln!(
            s,
            "jobs paired: {} (only in A: {}, only in B: {})",
            self.jobs_paired, self.only_in_a, self.only_in_b
        );
        let _ = writeln!(
            s,
            "mean wait: A {:.1} s, B {:.1} s; per-job difference B - A: mean {:.1} s, median {:.1} s",
            self.mean_wait_a_s, self.mean_wait_b_s, self.mean_diff_s, self.median_diff_s
        );
        let _ = writeln!(
            s,
            "jobs that waited less under B: {}, more: {}, the same: {}",
            self.gained, self.lost, self.unchanged
        );
        let t = &self.per_job;
        let _ = writeln!(
            s,
            "per job ({}): n = {}, z = {:.3}, p = {:.3e}; mean difference {:.1} s, 95 % CI [{:.1}, {:.1}] s",
            t.test, t.n_nonzero, t.z, t.p_value, t.mean_diff_s, t.ci95_low_s, t.ci95_high_s
        );
        if let Some(o) = &self.over_seeds {
            let _ = writeln!(
                s,
                "over {} seed pairs ({}): mean difference {:.1} s, 95 % CI [{:.1}, {:.1}] s, p = {:.4}{}",
                o.pairs,
                o.test,
                o.mean_diff_s,
                o.ci95_low_s,
                o.ci95_high_s,
                o.p_value,
                if o.exact { " (exact)" } else { "" }
            );
        }
        for (title, list) in [
            ("gained most under B", &self.top_gainers),
            ("lost most under B", &self.top_losers),
        ] {
            let _ = writeln!(
                s,
                "\n{title}:\n{:>12} {:>12} {:>12} {:>12}",
                "job_id", "wait A s", "wait B s", "B - A s"
            );
            for j in list {
                let _ = writeln!(
                    s,
                    "{:>12} {:>12} {:>12} {:>12}",
                    j.job_id, j.wait_a_s, j.wait_b_s, j.diff_s
                );
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(name: &str, rows: &[(i64, i64)]) -> JobWaits {
        JobWaits {
            name: name.into(),
            ids: rows.iter().map(|r| r.0).collect(),
            waits_ms: rows.iter().map(|r| r.1 * 1000).collect(),
        }
    }

    #[test]
    fn wilcoxon_matches_a_worked_example() {
        // Differences 1..=10 s, all positive: W+ = 55, μ = 27.5, σ² = 96.25.
        let d: Vec<i64> = (1..=10).map(|x| x * 1000).collect();
        let t = wilcoxon(&d);
        assert_eq!(t.w_plus, 55.0);
        let z = (55.0 - 27.5 - 0.5) / 96.25f64.sqrt();
        assert!((t.z - z).abs() < 1e-12);
        // Two-sided p of z = 2.752: 0.00592 (normal table).
        assert!((t.p_value - 0.005922).abs() < 1e-5, "{}", t.p_value);
        // Ties and zeros: |d| = 1,1,2 with one zero dropped; ranks 1.5,1.5,3.
        let t = wilcoxon(&[1000, -1000, 0, 2000]);
        assert_eq!((t.n_nonzero, t.w_plus), (3, 4.5));
    }

    #[test]
    fn sign_flip_is_exact_for_few_pairs() {
        // Four pairs all of one sign: 2 of the 16 patterns reach |Σ| = observed.
        let t = seed_test(&[1.0, 2.0, 3.0, 4.0], 1000, 7);
        assert!(t.exact);
        assert_eq!(t.p_value, 2.0 / 16.0);
        assert!(t.ci95_low_s >= 1.0 && t.ci95_high_s <= 4.0);
        assert_eq!(t, seed_test(&[1.0, 2.0, 3.0, 4.0], 1000, 7));
    }

    #[test]
    fn pairs_by_id_and_counts_the_rest() {
        let a = run("a", &[(1, 10), (2, 0), (2, 5), (3, 7)]);
        let b = run("b", &[(2, 1), (1, 4), (4, 9), (2, 6)]);
        let (p, only_a, only_b) = pair(&a, &b);
        assert_eq!(
            p,
            vec![(1, 10_000, 4_000), (2, 0, 1_000), (2, 5_000, 6_000)]
        );
        assert_eq!((only_a, only_b), (1, 1));
    }
}
