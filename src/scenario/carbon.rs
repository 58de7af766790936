//! A scenario's grid carbon intensity (issue #40, docs/energy.md "Carbon"; scenario version
//! 6): a CSV carried in the scenario (the page puts a dropped file's text there, so a share
//! link re-runs it), or a synthetic daily and weekly curve, small enough for any link. The
//! runs read it as a [`CarbonSource`]: the carbon-aware delay picks each job's greenest
//! start from it, and every run with powered nodes reports its emissions under it.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::ScenarioError;
use crate::energy::{CarbonSeries, Intensity};
use crate::time::SimTime;

/// The grid's carbon intensity in a scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum CarbonSpec {
    /// A CSV of `start_s,end_s,g_per_kwh` rows (`energy::CarbonSeries::parse`), in full;
    /// `file` names it in messages.
    Csv { file: String, csv: String },
    /// A synthetic grid, by the hour: hour h (from the run's time 0) has
    /// `mean + daily·sin(2π(h + offset_h)/24) + weekly·sin(2π(h + offset_h)/168)` g/kWh.
    Daily(DailyCurve),
}

/// The synthetic grid of [`CarbonSpec::Daily`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DailyCurve {
    pub mean_g_per_kwh: f64,
    /// The daily swing's amplitude (a sine of period 24 h).
    pub daily_g_per_kwh: f64,
    /// The weekly swing's amplitude (a sine of period 168 h).
    #[serde(default)]
    pub weekly_g_per_kwh: f64,
    /// Hours by which both sines are shifted (the hour of the week at time 0).
    #[serde(default)]
    pub offset_h: f64,
}

/// The most grams per kWh a synthetic grid may reach (coal is about 1,000).
const MAX_G_PER_KWH: f64 = 1e5;
/// Hours a synthetic grid is drawn out to at most: twenty years.
const MAX_HOURS: i64 = 20 * 366 * 24;
const HOUR: i64 = 3_600_000;

impl DailyCurve {
    /// The curve of docs/energy.md's measurements: 300 ± 150 g/kWh over the day and ± 50
    /// over the week (`simulate --carbon daily`, the page's synthetic grid).
    pub const DEFAULT: DailyCurve = DailyCurve {
        mean_g_per_kwh: 300.0,
        daily_g_per_kwh: 150.0,
        weekly_g_per_kwh: 50.0,
        offset_h: 0.0,
    };

    /// Checks the curve stays within 0 to 10⁵ g/kWh; the message names the field.
    pub fn validate(&self) -> Result<(), String> {
        let fields = [
            ("mean_g_per_kwh", self.mean_g_per_kwh),
            ("daily_g_per_kwh", self.daily_g_per_kwh),
            ("weekly_g_per_kwh", self.weekly_g_per_kwh),
        ];
        for (name, v) in fields {
            if !(v.is_finite() && (0.0..=MAX_G_PER_KWH).contains(&v)) {
                return Err(format!(
                    "carbon.{name} is {v}; give grams of CO₂ per kWh from 0 to 100000"
                ));
            }
        }
        if self.daily_g_per_kwh + self.weekly_g_per_kwh > self.mean_g_per_kwh {
            return Err(format!(
                "carbon: daily_g_per_kwh + weekly_g_per_kwh ({}) is more than mean_g_per_kwh ({}): the intensity would go below 0",
                self.daily_g_per_kwh + self.weekly_g_per_kwh,
                self.mean_g_per_kwh
            ));
        }
        if !(self.offset_h.is_finite() && (0.0..168.0).contains(&self.offset_h)) {
            return Err(format!(
                "carbon.offset_h is {}; give hours from 0 to under 168",
                self.offset_h
            ));
        }
        Ok(())
    }

    /// Hour `h`'s intensity (`libm`'s sine: the same bits natively and in wasm).
    pub fn at_hour(&self, h: i64) -> f64 {
        let x = h as f64 + self.offset_h;
        let tau = std::f64::consts::TAU;
        let v = self.mean_g_per_kwh
            + self.daily_g_per_kwh * libm::sin(tau * x / 24.0)
            + self.weekly_g_per_kwh * libm::sin(tau * x / 168.0);
        v.max(0.0)
    }

    /// The curve by the hour from time 0 through `until` (at least one hour, at most
    /// twenty years).
    pub fn series(&self, until: SimTime) -> CarbonSeries {
        let hours = (until.0.max(1).saturating_add(HOUR - 1) / HOUR).clamp(1, MAX_HOURS);
        let pieces = (0..hours)
            .map(|h| Intensity {
                start: SimTime(h * HOUR),
                end: SimTime((h + 1) * HOUR),
                g_per_kwh: self.at_hour(h),
            })
            .collect();
        CarbonSeries { pieces }
    }
}

impl CarbonSpec {
    /// The spec read and checked: a CSV parsed (an error names its file and line), a
    /// curve's fields in range.
    pub fn source(&self) -> Result<CarbonSource, ScenarioError> {
        match self {
            CarbonSpec::Csv { file, csv } => CarbonSeries::parse(file, csv.as_bytes())
                .map(|s| CarbonSource::Fixed(Arc::new(s)))
                .map_err(|e| ScenarioError::Invalid(e.0)),
            CarbonSpec::Daily(curve) => curve
                .validate()
                .map(|()| CarbonSource::Daily(*curve))
                .map_err(ScenarioError::Invalid),
        }
    }

    /// What the page and the reports call it: the file's name, or the curve.
    pub fn describe(&self) -> String {
        match self {
            CarbonSpec::Csv { file, .. } => file.clone(),
            CarbonSpec::Daily(c) => format!(
                "synthetic grid: {} ± {} g/kWh daily, ± {} weekly",
                c.mean_g_per_kwh, c.daily_g_per_kwh, c.weekly_g_per_kwh
            ),
        }
    }
}

/// The carbon intensity the runs read: a series as given, or a synthetic curve drawn out
/// as far as each use needs (the same hours have the same values however far it is drawn).
#[derive(Clone, Debug)]
pub enum CarbonSource {
    Fixed(Arc<CarbonSeries>),
    Daily(DailyCurve),
}

impl CarbonSource {
    /// The series through `until` at least (a fixed series as it is: one too short for a
    /// run is an error where it is read).
    pub fn series(&self, until: SimTime) -> Arc<CarbonSeries> {
        match self {
            CarbonSource::Fixed(s) => s.clone(),
            CarbonSource::Daily(c) => Arc::new(c.series(until)),
        }
    }
}

/// The instant each job is handed to its scheduler under `alg`'s carbon-aware delay (its
/// greenest start within `carbon_slack_s` of its submission, by its estimate; docs/energy.md),
/// or `None` for an algorithm without one. An error without a carbon series.
pub fn carbon_holds(
    alg: &super::AlgorithmSpec,
    jobs: &[crate::model::Job],
    cfg: &crate::engine::RunConfig,
    carbon: Option<&CarbonSource>,
) -> Result<Option<Vec<SimTime>>, ScenarioError> {
    let Some(slack) = alg.carbon_slack_s else {
        return Ok(None);
    };
    super::energy::check_seconds(alg, "carbon_slack_s", slack)?;
    let Some(carbon) = carbon else {
        return Err(ScenarioError::Invalid(format!("{}: a carbon-aware delay (carbon_slack_s) needs the grid's carbon intensity (a scenario's \"carbon\", simulate --carbon CSV, or the page's Energy form)", alg.label())));
    };
    let slack = SimTime::from_secs_f64(slack);
    let planned = |j: &crate::model::Job| crate::engine::planned_and_effective(j, cfg).0;
    // A synthetic grid is drawn out past the latest a job may start and end.
    let until = jobs
        .iter()
        .map(|j| j.submit + slack + planned(j))
        .max()
        .unwrap_or(SimTime::ZERO);
    let series = carbon.series(until);
    let holds = jobs
        .iter()
        .map(|j| series.greenest_start(j.submit, slack, planned(j)))
        .collect();
    Ok(Some(holds))
}

/// Each algorithm with each carbon slack of `list`, side by side (`simulate
/// --carbon-slack`, the page's slacks): easy, easy carbon slack 3600 s, … (`None` or 0:
/// no job held).
pub fn with_carbon_slacks(
    algorithms: Vec<super::AlgorithmSpec>,
    list: &[Option<f64>],
) -> Vec<super::AlgorithmSpec> {
    super::energy::side_by_side(algorithms, list, |a, slack| {
        a.carbon_slack_s = slack.filter(|&s| s > 0.0);
    })
}

/// What the carbon did in run `alg`'s `report`: its jobs held (`carbon_delay`) and its
/// emissions (see [`add_emissions`]).
pub fn add_carbon(
    report: &mut super::RunReport,
    (alg, jobs, cfg): (
        &super::AlgorithmSpec,
        &[crate::model::Job],
        &crate::engine::RunConfig,
    ),
    platform: &crate::model::Platform,
    carbon: &CarbonSource,
) -> Result<(), ScenarioError> {
    if let (Some(holds), Some(e)) = (
        carbon_holds(alg, jobs, cfg, Some(carbon))?,
        report.energy.as_mut(),
    ) {
        let slack = alg.carbon_slack_s.unwrap_or(0.0);
        e.carbon_delay = Some(super::energy::CarbonDelay::of(slack, jobs, &holds));
    }
    add_emissions(report, platform, carbon)
}

/// The grid's carbon intensity the runs read: the series `given` apart (`simulate
/// --carbon`), else the scenario's `spec`, else none.
pub fn source(
    given: Option<&Arc<CarbonSeries>>,
    spec: Option<&CarbonSpec>,
) -> Result<Option<CarbonSource>, ScenarioError> {
    if let Some(series) = given {
        return Ok(Some(CarbonSource::Fixed(series.clone())));
    }
    spec.map(CarbonSpec::source).transpose()
}

/// Adds a run's emissions under `carbon` to its energy (a run without powered sites has
/// none): the platform's over the run's span and its jobs' work alone (docs/energy.md).
/// A synthetic grid is drawn out to the run's last end; a fixed series must cover it.
pub fn add_emissions(
    report: &mut super::RunReport,
    platform: &crate::model::Platform,
    carbon: &CarbonSource,
) -> Result<(), ScenarioError> {
    if report.energy.is_none() {
        return Ok(());
    }
    let until = report
        .outcomes
        .iter()
        .filter(|o| o.ran())
        .map(|o| o.end)
        .max()
        .unwrap_or(SimTime::ZERO);
    let series = carbon.series(until);
    let (outcomes, placements) = (&report.outcomes, &report.placements);
    let power = report.power_log.as_ref();
    let both = super::energy::emissions(platform, outcomes, placements, &series, power)?;
    let (grams, per_job) = both.map_or((None, None), |(g, p)| (Some(g), Some(p)));
    let work = super::energy::work_emissions(platform, outcomes, placements, &series)?;
    if let Some(e) = report.energy.as_mut() {
        e.emissions_g = grams;
        e.work_emissions_g = work;
    }
    report.job_emissions_g = per_job;
    Ok(())
}
