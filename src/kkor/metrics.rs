//! KKOR §4.1 metrics, in time units.
//!
//! - mean flow time F̄ = Σ (C − r) / n;
//! - mean tardiness L̄ = Σ max(0, C − d) / n (on-time jobs count as 0);
//! - late jobs: how many end after their due date;
//! - utilization R̄ = Σ_k Σ_{i ∈ 𝒥_k} p_i·q_i / Σ_k m_k·(t_k^end − t_k^start), 𝒥_k the jobs
//!   executed on cluster k, t_k^end their last completion, t_k^start their first release
//!   (the paper's formula; p is the length at inverse speed 1).
//!
//! With `trim` (the paper's choice) the first and last 10 % of jobs by release are left out
//! of every metric. Per organization, flow time, tardiness and late jobs are over the jobs it
//! *produced* (who gains, who pays), utilization over those its cluster *executed*; the
//! spread over organizations is the population standard deviation, min and max. Sums are
//! taken in integer ticks, so results do not depend on summation order.

use serde::{Deserialize, Serialize};

use super::{ticks_to_units, BatchWindow, Cluster, KkorJob, Placement, TICKS_PER_UNIT};

/// Population standard deviation and extremes of one metric over the organizations.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    pub std_dev: f64,
    pub min: f64,
    pub max: f64,
}

/// An organization's value divided by its value under `local` (`None` when that is 0).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RelativeToLocal {
    pub mean_flow_time: Option<f64>,
    pub mean_tardiness: Option<f64>,
    pub late_jobs: Option<f64>,
    pub utilization: Option<f64>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OrgMetrics {
    pub name: String,
    /// Measured jobs it produced.
    pub jobs: u64,
    pub mean_flow_time: f64,
    pub mean_tardiness: f64,
    pub late_jobs: f64,
    /// Of its cluster.
    pub utilization: f64,
    /// Its jobs run elsewhere / foreign jobs its cluster ran (all jobs, not trimmed).
    pub migrated_out: u64,
    pub migrated_in: u64,
    /// Foreign surface its cluster accepted, its own exported, and the sum of its L_k over
    /// its batches (processors × time units; decentralized only).
    pub accepted_surface: f64,
    pub exported_surface: f64,
    pub limit_surface: f64,
    /// The largest accepted / L_k of any of its batches (0 when L_k = 0 everywhere).
    pub max_accepted_share: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relative_to_local: Option<RelativeToLocal>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct KkorMetrics {
    /// Jobs the metrics cover (all, or the middle 80 % by release).
    pub jobs_measured: u64,
    pub mean_flow_time: f64,
    pub mean_tardiness: f64,
    pub late_jobs: f64,
    pub utilization: f64,
    /// Jobs run outside their organization (all jobs).
    pub migrations: f64,
    pub organizations: Vec<OrgMetrics>,
    /// Over the organizations' values.
    pub flow_time_spread: Spread,
    pub tardiness_spread: Spread,
    pub late_jobs_spread: Spread,
    pub utilization_spread: Spread,
}

/// Sums over a set of jobs, in ticks.
#[derive(Clone, Copy, Default)]
struct Sums {
    n: u64,
    flow: i128,
    tardiness: i128,
    late: u64,
}

impl Sums {
    fn add(&mut self, j: &KkorJob, p: &Placement) {
        self.n += 1;
        self.flow += i128::from(p.end - j.release);
        let tard = (p.end - j.due).max(0);
        self.tardiness += i128::from(tard);
        self.late += u64::from(tard > 0);
    }

    fn mean(sum: i128, n: u64) -> f64 {
        if n == 0 {
            0.0
        } else {
            sum as f64 / n as f64 / TICKS_PER_UNIT as f64
        }
    }
}

/// Work and span of one cluster's executed jobs.
#[derive(Clone, Copy)]
struct Span {
    work: i128,
    first_release: i64,
    last_end: i64,
}

impl Span {
    fn utilization(&self, procs: u32) -> f64 {
        let span = i128::from((self.last_end - self.first_release).max(0)) * i128::from(procs);
        if span == 0 {
            0.0
        } else {
            self.work as f64 / span as f64
        }
    }
}

/// Which jobs count: all, or with `trim` the middle 80 % by release.
pub fn measured(jobs: &[KkorJob], trim: bool) -> Vec<bool> {
    let n = jobs.len();
    let cut = if trim { n / 10 } else { 0 };
    let mut keep = vec![false; n];
    for (rank, i) in super::release_order(jobs).into_iter().enumerate() {
        keep[i] = rank >= cut && rank < n - cut;
    }
    keep
}

pub fn compute(
    clusters: &[Cluster],
    jobs: &[KkorJob],
    placements: &[Placement],
    windows: &[BatchWindow],
    trim: bool,
) -> KkorMetrics {
    let keep = measured(jobs, trim);
    let n = clusters.len();
    let mut all = Sums::default();
    let mut per_org = vec![Sums::default(); n];
    let mut spans: Vec<Option<Span>> = vec![None; n];
    let mut out_in = vec![(0u64, 0u64); n];
    for (i, (j, p)) in jobs.iter().zip(placements).enumerate() {
        if p.migrated {
            out_in[j.org].0 += 1;
            out_in[p.cluster].1 += 1;
        }
        if !keep[i] {
            continue;
        }
        all.add(j, p);
        per_org[j.org].add(j, p);
        let work = i128::from(j.length) * i128::from(j.procs);
        let s = spans[p.cluster].get_or_insert(Span {
            work: 0,
            first_release: j.release,
            last_end: p.end,
        });
        s.work += work;
        s.first_release = s.first_release.min(j.release);
        s.last_end = s.last_end.max(p.end);
    }
    let (mut work, mut span) = (0i128, 0i128);
    for (k, s) in spans.iter().enumerate() {
        if let Some(s) = s {
            work += s.work;
            span += i128::from(s.last_end - s.first_release) * i128::from(clusters[k].procs);
        }
    }
    let organizations: Vec<OrgMetrics> = (0..n)
        .map(|k| org_metrics(k, clusters, &per_org[k], spans[k], out_in[k], windows))
        .collect();
    let spread = |f: fn(&OrgMetrics) -> f64| spread(organizations.iter().map(f).collect());
    KkorMetrics {
        jobs_measured: all.n,
        mean_flow_time: Sums::mean(all.flow, all.n),
        mean_tardiness: Sums::mean(all.tardiness, all.n),
        late_jobs: all.late as f64,
        utilization: if span == 0 {
            0.0
        } else {
            work as f64 / span as f64
        },
        migrations: placements.iter().filter(|p| p.migrated).count() as f64,
        flow_time_spread: spread(|o| o.mean_flow_time),
        tardiness_spread: spread(|o| o.mean_tardiness),
        late_jobs_spread: spread(|o| o.late_jobs),
        utilization_spread: spread(|o| o.utilization),
        organizations,
    }
}

fn org_metrics(
    k: usize,
    clusters: &[Cluster],
    sums: &Sums,
    span: Option<Span>,
    (out, inn): (u64, u64),
    windows: &[BatchWindow],
) -> OrgMetrics {
    let mine = windows.iter().filter(|w| w.cluster == k);
    let surf = |f: fn(&BatchWindow) -> i64| {
        let total: i64 = windows.iter().filter(|w| w.cluster == k).map(f).sum();
        ticks_to_units(total)
    };
    let max_share = mine
        .filter(|w| w.limit > 0)
        .map(|w| w.accepted as f64 / w.limit as f64)
        .fold(0.0, f64::max);
    OrgMetrics {
        name: clusters[k].name.clone(),
        jobs: sums.n,
        mean_flow_time: Sums::mean(sums.flow, sums.n),
        mean_tardiness: Sums::mean(sums.tardiness, sums.n),
        late_jobs: sums.late as f64,
        utilization: span.map_or(0.0, |s| s.utilization(clusters[k].procs)),
        migrated_out: out,
        migrated_in: inn,
        accepted_surface: surf(|w| w.accepted),
        exported_surface: surf(|w| w.exported),
        limit_surface: surf(|w| w.limit),
        max_accepted_share: max_share,
        relative_to_local: None,
    }
}

/// Population standard deviation, min and max.
pub fn spread(v: Vec<f64>) -> Spread {
    if v.is_empty() {
        return Spread::default();
    }
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
    Spread {
        std_dev: libm::sqrt(var),
        min: v.iter().copied().fold(f64::INFINITY, f64::min),
        max: v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    }
}

impl KkorMetrics {
    /// Fills each organization's values relative to the same organization under `local`.
    pub fn relative_to(&mut self, local: &KkorMetrics) {
        let ratio = |a: f64, b: f64| (b != 0.0).then(|| a / b);
        for (o, l) in self.organizations.iter_mut().zip(&local.organizations) {
            o.relative_to_local = Some(RelativeToLocal {
                mean_flow_time: ratio(o.mean_flow_time, l.mean_flow_time),
                mean_tardiness: ratio(o.mean_tardiness, l.mean_tardiness),
                late_jobs: ratio(o.late_jobs, l.late_jobs),
                utilization: ratio(o.utilization, l.utilization),
            });
        }
    }
}
