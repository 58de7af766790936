//! "Why did this job wait?": one job of one run, from its submission to its start, with the
//! reason it did not start after each instant it waited through — too few free units (and
//! which running jobs held them), the head's reservation it would have delayed, the queue's
//! order, or another site's queue — in spans of instants with the same reason. Built on the
//! engine's steppable run and its site snapshots (the same the step-by-step view uses), so
//! a run that nobody asks about pays nothing. `gridscope explain` prints it; the page's
//! step-through view shows it for a clicked job.

use serde::{Deserialize, Serialize};

use super::{Scenario, ScenarioError, ScenarioRun};
use crate::engine::{JobOutcome, RejectReason, SimError, Simulation};
use crate::model::JobIdx;
use crate::policy::local::LocalPolicyKind;
use crate::time::SimTime;
use crate::workload::Workload;

/// At most this many spans are kept; a job that waited through more reason changes ends
/// its story with a note.
pub const MAX_SPANS: usize = 200;

/// Running jobs named as holding the units a job waits for, at most.
const MAX_HOLDERS: usize = 8;

/// Why a queued job had not started after one instant's scheduling.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WaitReason {
    /// It needs more units than are free; the running jobs that must end first, soonest
    /// predicted end first: (job id, units, predicted end s).
    TooFewUnits {
        needs: u32,
        free: u32,
        held_by: Vec<(i64, u32, f64)>,
        /// On a site under a power cap (issue #40), the most cores the cap lets compute at
        /// once: the units counted free are out of these, not out of the site's cores.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        power_cap: Option<u32>,
    },
    /// It fits now, but starting it would push back the head's reservation (EASY): it ends
    /// by its estimate after the head's shadow time and needs more than the extra units.
    WouldDelayHead {
        head: i64,
        shadow_s: f64,
        ends_s: f64,
        needs: u32,
        extra: u32,
    },
    /// A limit of the policy holds it whatever is free (Slurm's QOS `MaxJobsPU` or
    /// `GrpTRES=cpu`, issue #42), in words.
    HeldByLimit { limit: String },
    /// It fits now, but the policy starts jobs only in its queue's order (FCFS, SJF).
    QueueOrder { ahead_of_it: i64, position: usize },
    /// It fits now and the policy chose not to start it (conservative: its place in the
    /// plan is later, because starting it now would delay a reservation made before it).
    PlannedLater { position: usize },
    /// On a node-typed site (issue #37): its processors are free in number, but no
    /// placement on the nodes free now holds it. `short` names what they lack: `cores`
    /// (spread too thin over the nodes for its node count), `memory`, `GPUs`, `nodes` (too
    /// few nodes with room for its node count) or `maintenance` (a window keeps its
    /// estimate from the nodes that would hold it).
    NoNodeHoldsIt {
        needs: u32,
        free: u32,
        short: String,
        /// The nodes with a free core and what each has free, in node order (the first
        /// [`MAX_FREE_NODES`]); `free_nodes_more` counts the rest.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        free_nodes: Vec<FreeNode>,
        #[serde(default, skip_serializing_if = "is_zero")]
        free_nodes_more: usize,
        /// When `short` is `maintenance`: the windows its run would overlap on the nodes
        /// with a free core (the first [`MAX_FREE_NODES`], by end), seconds from the first
        /// submission.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        windows: Vec<MaintenanceWindow>,
    },
}

/// A maintenance window on a node: down from `start_s` to `end_s`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MaintenanceWindow {
    pub node: u32,
    pub start_s: f64,
    pub end_s: f64,
}

/// A node with a free core, and what it has free (memory in KB).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FreeNode {
    pub node: u32,
    pub cores: u32,
    pub mem_kb: u64,
    pub gpus: u32,
}

/// The free nodes a "no node holds it" names at most.
pub const MAX_FREE_NODES: usize = 8;

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The nodes with a free core in `f`: the first [`MAX_FREE_NODES`], and how many more.
fn free_nodes(f: &crate::model::NodeFree) -> (Vec<FreeNode>, usize) {
    let mut open = f.open_nodes_within(None);
    let first: Vec<FreeNode> = open
        .by_ref()
        .take(MAX_FREE_NODES)
        .map(|n| FreeNode {
            node: n as u32,
            cores: f.cores[n],
            mem_kb: f.mem_kb[n],
            gpus: f.gpus[n],
        })
        .collect();
    (first, open.count())
}

impl WaitReason {
    /// The reason in words, its instants (seconds from the first submission) written by
    /// `at`: the CLI's seconds, or the page's durations.
    pub fn text(&self, at: &dyn Fn(f64) -> String) -> String {
        match self {
            WaitReason::TooFewUnits {
                needs,
                free,
                held_by,
                power_cap,
            } => {
                let held: Vec<String> = held_by
                    .iter()
                    .map(|(id, u, end)| format!("job {id} ({u} until {})", at(*end)))
                    .collect();
                let cap = power_cap.map_or(String::new(), |k| {
                    format!(" (the site's power cap lets at most {k} compute at once)")
                });
                format!(
                    "too few free units: needs {needs}, {free} free{cap}; held by {}",
                    held.join(", ")
                )
            }
            WaitReason::WouldDelayHead {
                head,
                shadow_s,
                ends_s,
                needs,
                extra,
            } => format!(
                "would delay the head job {head}: it would end at {} (by its estimate), after the head's shadow time {}, and needs {needs} units where only {extra} are extra",
                at(*ends_s),
                at(*shadow_s)
            ),
            WaitReason::QueueOrder {
                ahead_of_it,
                position,
            } => format!(
                "queue order: job {ahead_of_it} is ahead of it (it is number {} in the queue) and this policy starts jobs only in order",
                position + 1
            ),
            WaitReason::HeldByLimit { limit } => format!("held by a limit: {limit}"),
            WaitReason::PlannedLater { position } => format!(
                "planned later: it is number {} in the queue, and starting it now would delay a job planned before it",
                position + 1
            ),
            WaitReason::NoNodeHoldsIt {
                needs,
                free,
                short,
                free_nodes,
                free_nodes_more,
                windows,
            } => {
                let why = match short.as_str() {
                    "maintenance" if !windows.is_empty() => {
                        let named: Vec<String> = windows
                            .iter()
                            .map(|w| format!("node {} {}–{}", w.node, at(w.start_s), at(w.end_s)))
                            .collect();
                        format!(
                            "maintenance keeps its estimate from the nodes that would hold it ({})",
                            named.join(", ")
                        )
                    }
                    "maintenance" => "a maintenance window keeps its estimate from the nodes that would hold it".to_string(),
                    "cores" => "the free cores are spread over too many nodes for its node count".to_string(),
                    "nodes" => "too few nodes have room for its part".to_string(),
                    other => format!("the nodes with free cores lack the {other} it asks for"),
                };
                let mut text = format!(
                    "no node holds it: it needs {needs} processors and {free} are free, but {why}"
                );
                if !free_nodes.is_empty() {
                    let nodes: Vec<String> = free_nodes
                        .iter()
                        .map(|n| {
                            let mut t = format!("node {}: {} cores", n.node, n.cores);
                            if short == "memory" || n.mem_kb > 0 {
                                t.push_str(&format!(", {} KB", n.mem_kb));
                            }
                            if short == "GPUs" || n.gpus > 0 {
                                t.push_str(&format!(", {} GPUs", n.gpus));
                            }
                            t
                        })
                        .collect();
                    text.push_str(&format!(" (free now: {}", nodes.join("; ")));
                    if *free_nodes_more > 0 {
                        text.push_str(&format!("; {free_nodes_more} more nodes"));
                    }
                    text.push(')');
                }
                text
            }
        }
    }
}

impl std::fmt::Display for WaitReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text(&|s| format!("{s} s")))
    }
}

/// The instants from `from_s` to `to_s` after which the job waited in `site`'s queue for
/// the same reason; its details (free units, the jobs holding them) are the last instant's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WaitSpan {
    pub from_s: f64,
    pub to_s: f64,
    pub instants: u64,
    pub site: String,
    pub reason: WaitReason,
}

/// One job's wait, explained.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Explanation {
    pub job: i64,
    pub algorithm: String,
    pub procs: u32,
    pub estimate_s: f64,
    pub submit_s: f64,
    /// When it started, `None` if it never did (rejected).
    pub start_s: Option<f64>,
    /// The site it ran on (or was rejected at).
    pub site: String,
    /// Sites of the platform (the text names a span's site only when there are several).
    pub platform_sites: usize,
    /// How it ended: "started at …" or the rejection's reason.
    pub outcome: String,
    /// With idle nodes switched off (issue #40): the seconds from the instant its policy
    /// placed it on sleeping nodes to its start, spent waiting for them to boot (part of
    /// its wait, after the spans).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boot_wait_s: Option<f64>,
    pub spans: Vec<WaitSpan>,
    /// Set when the spans stop at [`MAX_SPANS`].
    pub truncated: bool,
}

impl Explanation {
    /// The explanation as lines of text (the CLI's output).
    pub fn text(&self) -> String {
        let mut out = format!(
            "job {} under {}: {} processors, estimate {} s, submitted at {} s\n",
            self.job, self.algorithm, self.procs, self.estimate_s, self.submit_s
        );
        if self.spans.is_empty() && self.start_s.is_some() && self.boot_wait_s.is_none() {
            out.push_str("it did not wait\n");
        }
        for s in &self.spans {
            let when = if s.instants == 1 {
                format!("at {} s", s.from_s)
            } else {
                format!(
                    "from {} s to {} s ({} instants; as at {} s)",
                    s.from_s, s.to_s, s.instants, s.to_s
                )
            };
            let at = if self.platform_sites > 1 {
                format!(" (queued at {})", s.site)
            } else {
                String::new()
            };
            out.push_str(&format!("  {when}{at}: {}\n", s.reason));
        }
        if self.truncated {
            out.push_str(&format!("  … (the first {MAX_SPANS} changes of reason)\n"));
        }
        if self.platform_sites > 1 {
            out.push_str(&format!("{} on site {}\n", self.outcome, self.site));
        } else {
            out.push_str(&format!("{}\n", self.outcome));
        }
        out
    }
}

/// Explains the wait of the job with id `job_id` (the first with it, if ids repeat) in run
/// `alg` of `scenario` over `workload` (loaded and checked as for a run).
pub fn explain(
    scenario: &Scenario,
    workload: Workload,
    alg: usize,
    job_id: i64,
) -> Result<Explanation, ScenarioError> {
    let spec = scenario
        .algorithms
        .get(alg)
        .ok_or_else(|| ScenarioError::Invalid(format!("no algorithm {alg}")))?;
    let j = workload
        .jobs
        .iter()
        .position(|job| job.id == job_id)
        .ok_or_else(|| {
            ScenarioError::Invalid(format!(
                "no job {job_id} in workload '{}' ({} jobs)",
                workload.name,
                workload.jobs.len()
            ))
        })? as JobIdx;
    let strict_order = matches!(spec.local, LocalPolicyKind::Fcfs | LocalPolicyKind::Sjf);
    let mut run = ScenarioRun::new(scenario, workload)?;
    let (platform, mut sim) = run.simulation(alg)?;
    let jobs = run.jobs();
    let origin = jobs.first().map_or(0, |job| job.submit.0);
    let secs = |t: i64| (t - origin) as f64 / 1000.0;
    let job = &jobs[j as usize];
    let mut spans: Vec<WaitSpan> = Vec::new();
    let mut truncated = false;
    let done = |sim: &Simulation| {
        let o = &sim.outcomes()[j as usize];
        o.start != SimTime::NEVER || matches!(o.status, JobOutcome::Rejected(_))
    };
    while !done(&sim) && sim.step().map_err(ScenarioError::Sim)? {
        if sim.now() < job.submit || done(&sim) {
            continue;
        }
        let Some((site, reason)) = reason_now(&sim, &platform, j, strict_order, &secs)? else {
            continue;
        };
        let at = secs(sim.now().0);
        let full = spans.len() == MAX_SPANS;
        match spans.last_mut() {
            Some(last) if last.site == site && same_reason(&last.reason, &reason) => {
                last.to_s = at;
                last.instants += 1;
                last.reason = reason;
            }
            _ if full => truncated = true,
            _ => spans.push(WaitSpan {
                from_s: at,
                to_s: at,
                instants: 1,
                site,
                reason,
            }),
        }
    }
    let out = &sim.outcomes()[j as usize];
    // The loop stopped at the instant its policy started it; a start later than that is
    // its nodes' boot.
    let boot_wait_s =
        (out.ran() && out.start > sim.now()).then(|| (out.start.0 - sim.now().0) as f64 / 1000.0);
    let site = platform
        .sites
        .get(out.site as usize)
        .map_or_else(|| out.site.to_string(), |s| s.name.clone());
    let (start_s, outcome) = match &out.status {
        JobOutcome::Rejected(RejectReason::TooWide { needs, capacity }) => (
            None,
            format!("rejected: it needs {needs} units and the site has {capacity}"),
        ),
        JobOutcome::Rejected(RejectReason::NoSuchSite) => (
            None,
            "rejected: its home site is not on the platform".into(),
        ),
        JobOutcome::Rejected(why) => (
            None,
            format!("rejected: it {}", why.describe(job.procs, job.home)),
        ),
        _ if out.start == SimTime::NEVER => (None, "never started (the run ended)".into()),
        _ => (
            Some(secs(out.start.0)),
            format!(
                "started at {} s after a wait of {} s{}",
                secs(out.start.0),
                (out.start.0 - job.submit.0) as f64 / 1000.0,
                boot_wait_s.map_or(String::new(), |b| format!(
                    ", {b} s of it for its nodes to boot (placed on sleeping nodes at {} s)",
                    secs(sim.now().0)
                ))
            ),
        ),
    };
    Ok(Explanation {
        job: job.id,
        algorithm: spec.label(),
        procs: job.procs,
        estimate_s: job.estimate.0 as f64 / 1000.0,
        submit_s: secs(job.submit.0),
        start_s,
        site,
        platform_sites: platform.sites.len(),
        outcome,
        boot_wait_s,
        spans,
        truncated,
    })
}

/// Two reasons make one span when they are of one kind (and name the same head, or the
/// same job ahead); a span keeps the details of its last instant — the units and the jobs
/// holding them just before the reason changed — so a long wait reads in a few lines.
fn same_reason(a: &WaitReason, b: &WaitReason) -> bool {
    use WaitReason::*;
    match (a, b) {
        (WouldDelayHead { head: x, .. }, WouldDelayHead { head: y, .. }) => x == y,
        (QueueOrder { ahead_of_it: x, .. }, QueueOrder { ahead_of_it: y, .. }) => x == y,
        _ => std::mem::discriminant(a) == std::mem::discriminant(b),
    }
}

/// Why job `j` is still waiting after this instant, and the site whose queue holds it;
/// `None` while it is in no queue (in flight between grid sites).
fn reason_now(
    sim: &Simulation,
    platform: &crate::model::Platform,
    j: JobIdx,
    strict_order: bool,
    secs: &dyn Fn(i64) -> f64,
) -> Result<Option<(String, WaitReason)>, ScenarioError> {
    let jobs = sim.jobs();
    let id = |k: JobIdx| jobs[k as usize].id;
    for (s, site) in platform.sites.iter().enumerate() {
        let Some(snap) = sim.site_snapshot(s) else {
            return Err(ScenarioError::Sim(SimError::Cancelled));
        };
        let Some(position) = snap.queue.iter().position(|q| q.idx == j) else {
            continue;
        };
        let q = &snap.queue[position];
        let short = sim.node_shortfall(s, j, q.estimate).err();
        let reason = if let Some(limit) = sim.held_by_limit(s, j) {
            WaitReason::HeldByLimit { limit }
        } else if q.units > snap.free {
            // The running jobs that must end, soonest predicted end first, before it fits.
            let mut free = snap.free;
            let mut held_by = Vec::new();
            for &(k, u, end) in &snap.running {
                if free >= q.units || held_by.len() == MAX_HOLDERS {
                    break;
                }
                free += u;
                held_by.push((id(k), u, secs(end.0)));
            }
            WaitReason::TooFewUnits {
                needs: q.units,
                free: snap.free,
                held_by,
                power_cap: sim.power_cap_units(s),
            }
        } else if let Some(short) = short {
            let (free_nodes, free_nodes_more) =
                sim.free_nodes(s).map(free_nodes).unwrap_or_default();
            let windows = match short {
                Some(_) => Vec::new(),
                None => sim
                    .maintenance_in_the_way(s, q.estimate)
                    .into_iter()
                    .take(MAX_FREE_NODES)
                    .map(|(node, start, end)| MaintenanceWindow {
                        node,
                        start_s: secs(start.0),
                        end_s: secs(end.0),
                    })
                    .collect(),
            };
            WaitReason::NoNodeHoldsIt {
                needs: q.units,
                free: snap.free,
                short: short.map_or("maintenance", |r| r.name()).to_string(),
                free_nodes,
                free_nodes_more,
                windows,
            }
        } else if let Some(h) = snap.head.filter(|h| h.job != j) {
            let ends = sim.now().0 + q.estimate.0;
            if ends > h.shadow.0 && q.units > h.extra {
                WaitReason::WouldDelayHead {
                    head: id(h.job),
                    shadow_s: secs(h.shadow.0),
                    ends_s: secs(ends),
                    needs: q.units,
                    extra: h.extra,
                }
            } else {
                WaitReason::PlannedLater { position }
            }
        } else if strict_order && position > 0 {
            WaitReason::QueueOrder {
                ahead_of_it: id(snap.queue[0].idx),
                position,
            }
        } else {
            WaitReason::PlannedLater { position }
        };
        return Ok(Some((site.name.clone(), reason)));
    }
    Ok(None)
}
