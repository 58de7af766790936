//! The site power cap (issue #40, docs/energy.md "Power cap"): each powered site draws at
//! most a given number of watts, and a start that could take it over waits.
//!
//! Every node is on (idle at least), so a site draws its nodes' idle watts plus what each
//! busy core adds. A core adds at most `w = (AllCores − Epsilon)/N + max(0, Epsilon −
//! Idle)` watts on its node type (the second term once per node, charged to every core so
//! the bound holds however the cores are spread); the cap therefore holds exactly when at
//! most `K = ⌊(cap − Σ idle) / max w⌋` cores compute at once. The engine makes that the
//! site's capacity in allocation units, so every policy plans within it, reservations
//! included, and a job wider than K is rejected with the cap as its reason. The bound is the
//! power itself when Epsilon = Idle and every node type adds the same watts per core (Batsim's
//! `cluster_energy_128`); otherwise the cap is kept with room to spare, never passed, and
//! a cap at or above the most the site can draw leaves it uncapped. The scenario's report
//! checks the run's peak power against it.
//!
//! With idle nodes switched off, a node is also switching off, off or booting, and those
//! can draw more than idle (Batsim's host: 100.9967 W switching off, 125.1744 W booting,
//! against 95 W idle). A node boots only for a job placed on it, which holds at least one
//! of its cores from then on (`sim::power`). So a node holding no core draws at most `base
//! = max(Idle, Off, switch-off W)`, and one holding k ≥ 1 cores at most `base + k·w′` with
//! `w′ = max(w, boot W − base)`: `K = ⌊(cap − Σ base) / max w′⌋` held cores keep the cap
//! whatever the nodes are doing. (On HPC2N's 2-core nodes of Batsim's host, a 20 kW cap
//! gives K = 164 of 240 cores with idle nodes switched off, 179 with every node on.)

use super::Simulation;
use crate::engine::{JobOutcome, Outcome, RejectReason, SimError};
use crate::model::power::PowerModel;
use crate::model::{Job, Platform, Resource, Site};
use crate::policy::grid::GridScheme;

/// What a node of model `m` holding no core draws at most: idle, or — when idle nodes are
/// `switching` off — the most of idle, off and switching off (a booting node holds a core
/// of the job it boots for; module header).
fn base_w(m: &PowerModel, switching: bool) -> f64 {
    let off = m.switch_off.map_or(m.off_w, |t| t.watts);
    match switching {
        false => m.idle_w,
        true => m.idle_w.max(m.off_w).max(off),
    }
}

/// The most a core held on a node of model `m` (of `cores` cores) adds to the node's
/// `base`: its share of the busy watts, the jump of the first busy core, and — when nodes
/// are `switching` — what a boot draws over the base.
fn per_core_w(m: &PowerModel, cores: u32, base: f64, switching: bool) -> f64 {
    let w = (m.all_cores_w - m.epsilon_w).max(0.0) / f64::from(cores)
        + (m.epsilon_w - m.idle_w).max(0.0);
    match (switching, m.switch_on) {
        (true, Some(t)) => w.max(t.watts - base),
        _ => w,
    }
}

/// The most cores a cap of `cap_w` lets compute at once on `site` (whose idle nodes are
/// `switching` off, or not), or why none can (`None` for a site whose nodes do not all say
/// what they draw: the cap does not apply there).
pub fn busy_cores_under(site: &Site, cap_w: f64, switching: bool) -> Option<Result<u32, String>> {
    if !site.has_nodes() || site.node_types.iter().any(|t| t.power.is_none()) {
        return None;
    }
    let (mut idle, mut most) = (0.0, 0.0);
    let mut per_core: f64 = 0.0;
    for t in &site.node_types {
        let m = t.power?;
        let base = base_w(&m, switching);
        idle += base * f64::from(t.count);
        // A node draws the most at its base, booting, with one core busy or with all
        // (linear between).
        let boot = m.switch_on.filter(|_| switching).map_or(0.0, |t| t.watts);
        let peak = base.max(boot).max(m.watts(1, t.cores)).max(m.all_cores_w);
        most += peak * f64::from(t.count);
        if t.cores > 0 && t.count > 0 {
            per_core = per_core.max(per_core_w(&m, t.cores, base, switching));
        }
    }
    let at_rest = if switching {
        "with every node at the most it draws holding no core (idle, off or switching off)"
    } else {
        "with every node on and idle"
    };
    if cap_w < idle {
        return Some(Err(format!(
            "the power cap ({cap_w} W) is below site '{}''s idle power ({idle} W {at_rest}): no job could ever start",
            site.name
        )));
    }
    let cores: u32 = site.node_types.iter().map(|t| t.cores * t.count).sum();
    // A cap the whole site cannot reach leaves it as it is (the bound below would not).
    if per_core <= 0.0 || cap_w >= most {
        return Some(Ok(cores));
    }
    let k = ((cap_w - idle) / per_core).floor();
    if k < 1.0 {
        return Some(Err(format!(
            "the power cap ({cap_w} W) leaves {} W above site '{}''s idle power ({idle} W {at_rest}), less than one core adds ({per_core} W): no job could ever start",
            cap_w - idle,
            site.name
        )));
    }
    Some(Ok(if k >= f64::from(cores) {
        cores
    } else {
        k as u32
    }))
}

impl Simulation<'_> {
    /// Caps each powered site's draw at `cap_w` watts (module header): at most the cores
    /// that keep it under compute at once. Local policies only, not with failures; after
    /// [`Simulation::with_idle_off`] when idle nodes are switched off (the bound then counts
    /// their boots); before the first step.
    pub fn with_power_cap(mut self, cap_w: f64) -> Result<Self, SimError> {
        let refuse = |reason: String| Err(SimError::InvalidPlatform { reason });
        if !(cap_w.is_finite() && cap_w > 0.0) {
            return refuse(format!(
                "the power cap is {cap_w} W; give a number of watts above 0"
            ));
        }
        if self.scheme != GridScheme::Local {
            return refuse(
                "a power cap runs under local policies only, not grid schemes (docs/energy.md)"
                    .into(),
            );
        }
        if self.outages.is_some() {
            return refuse(
                "a power cap is not combined with failures or maintenance yet (docs/energy.md)"
                    .into(),
            );
        }
        let switching = self.power.is_some();
        let mut caps = vec![None; self.sites.len()];
        for (s, site) in self.platform.sites.iter().enumerate() {
            match busy_cores_under(site, cap_w, switching) {
                None => {}
                Some(Err(reason)) => return refuse(reason),
                Some(Ok(k)) => {
                    let res = &mut self.sites[s].res;
                    res.capacity = res.capacity.min(k);
                    res.free = res.capacity;
                    caps[s] = Some(res.capacity);
                }
            }
        }
        if caps.iter().all(Option::is_none) {
            return refuse("a power cap needs nodes that say what they draw (a power model on every node type; docs/energy.md)".into());
        }
        self.power_cap = caps;
        Ok(self)
    }

    /// The most cores site `s` may have busy under the power cap (`None`: no cap there).
    pub fn power_cap_units(&self, s: usize) -> Option<u32> {
        self.power_cap.get(s).copied().flatten()
    }
}

/// The check every capped run ends with: on each capped site, the units of the jobs running
/// at once never pass the cap's K (a job's end frees its units before a start at the same
/// instant takes them), and every job rejected for the cap needs more than K.
pub(super) fn check_cap(
    platform: &Platform,
    jobs: &[Job],
    outcomes: &[Outcome],
    caps: &[Option<u32>],
) -> Result<(), String> {
    if caps.iter().all(Option::is_none) {
        return Ok(());
    }
    let mut events: Vec<Vec<(crate::time::SimTime, u8, u32)>> = vec![Vec::new(); caps.len()];
    for (job, out) in jobs.iter().zip(outcomes) {
        if let JobOutcome::Rejected(RejectReason::Unplaceable {
            resource: Resource::Power,
            needs,
            most,
        }) = out.status
        {
            let k = caps.get(job.home as usize).copied().flatten();
            if k.is_none_or(|k| u64::from(k) != most || needs <= most) {
                return Err(format!(
                    "job {} rejected for the power cap although it fits under it",
                    job.id
                ));
            }
            continue;
        }
        let s = out.site as usize;
        if !out.ran() || caps.get(s).copied().flatten().is_none() {
            continue;
        }
        let units = platform.sites[s].units_for(job.procs);
        events[s].push((out.start, 1, units));
        events[s].push((out.end, 0, units));
    }
    for (s, mut ev) in events.into_iter().enumerate() {
        let Some(k) = caps[s] else { continue };
        ev.sort_unstable();
        let mut busy: u64 = 0;
        for (t, kind, units) in ev {
            match kind {
                0 => busy = busy.saturating_sub(u64::from(units)),
                _ => busy += u64::from(units),
            }
            if busy > u64::from(k) {
                return Err(format!(
                    "site {s} had {busy} cores computing at t={t} under a power cap that lets {k}"
                ));
            }
        }
    }
    Ok(())
}
