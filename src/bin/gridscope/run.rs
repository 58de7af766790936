//! `simulate`, `lint` and `run`: a trace or a scenario through the engine, with a progress
//! bar on a terminal, then the report.

use std::path::{Path, PathBuf};

use gridscope::engine::{EstimateSource, RunConfig};
use gridscope::failure::Outages;
use gridscope::limits::Limits;
use gridscope::metrics::offered_load;
use gridscope::policy::local::LocalPolicyKind;
use gridscope::scenario::{
    load_workload, resolve_platform, run_loaded_on, run_loaded_with_outages, AlgorithmSpec,
    PlatformSpec, Scenario, WorkloadSpec, SCENARIO_VERSION,
};
use gridscope::workload::Workload;

use crate::cli::{
    Estimates, EventOrderArg, FormatArgs, LintArgs, ReportArgs, RunArgs, SimulateArgs,
};
use crate::io::{confined_path, load_file, read_file, read_text, read_trace, Files};
use crate::output::Inputs;
use crate::progress::Progress;
use crate::{output, report, CliError};

use gridscope::family::DEFAULT_TRACES;

pub fn lint(a: &LintArgs) -> Result<(), CliError> {
    let w = read_trace(&a.trace, a.strict, &a.limits.limits(), &a.format)?;
    if a.json {
        output::stdout(&format!("{}\n", report::json(&w.report)))
    } else {
        output::stdout(&w.report.summary())
    }
}

/// `--node-exclusive`: every site of the platform file `name` holds its nodes whole; a
/// site without node types is refused (its whole nodes are `"allocation": "node"`).
pub(crate) fn node_exclusive(
    p: &mut gridscope::model::Platform,
    name: &str,
) -> Result<(), CliError> {
    if let Some(s) = p.sites.iter().find(|s| !s.has_nodes()) {
        return Err(CliError::Failed(format!(
            "--node-exclusive: site '{}' of {name} lists no node types; give it \
             \"allocation\": \"node\" for whole nodes of processors (docs/nodes.md)",
            s.name
        )));
    }
    for s in &mut p.sites {
        s.allocation = gridscope::model::Allocation::Node;
    }
    Ok(())
}

pub fn simulate(a: &SimulateArgs) -> Result<(), CliError> {
    let mut scenario = trace_scenario(
        &a.trace,
        &a.policy.0,
        TraceOptions {
            procs: a.procs,
            estimates: a.estimates,
            no_kill: a.no_kill,
            event_order: a.event_order,
            strict: a.strict,
            format: a.format.clone(),
        },
    );
    let mut inputs = Inputs::default();
    inputs.add(Path::new(&a.trace));
    slurm_flags(a, &mut scenario, &mut inputs)?;
    let mut outages = Outages::default();
    if let Some(file) = &a.platform {
        let text = read_text(file, &a.limits.limits())?;
        let name = file.display().to_string();
        let mut p =
            gridscope::scenario::read_platform_file(&name, &text).map_err(CliError::Failed)?;
        if a.node_exclusive {
            node_exclusive(&mut p, &name)?;
        }
        if let Some(model) = &a.power {
            let power = power_model(model, &a.limits.limits(), &mut inputs)?;
            let types = p.sites.iter_mut().flat_map(|s| s.node_types.iter_mut());
            let mut typed = 0;
            for t in types {
                t.power.get_or_insert(power);
                typed += 1;
            }
            if typed == 0 {
                return Err(CliError::Failed(format!(
                    "--power: {name} lists no node types, so no node to draw power (docs/nodes.md)"
                )));
            }
        }
        outages = failure_flags(a, &p.sites, &mut inputs)?;
        if let Some(list) = &a.placement {
            // Each policy with each placement, side by side: easy, easy, best-fit, …
            let algorithms = std::mem::take(&mut scenario.algorithms);
            scenario.algorithms = gridscope::scenario::with_placements(algorithms, &list.0);
        }
        if let Some(list) = &a.power_off_after {
            // Each policy with each idle time, side by side: easy, easy off after 60 s, …
            let algorithms = std::mem::take(&mut scenario.algorithms);
            scenario.algorithms =
                gridscope::scenario::energy::with_idle_timeouts(algorithms, &list.0);
        }
        if let Some(list) = &a.power_cap {
            // … each with each power cap: easy, easy, cap 20000 W, …
            let algorithms = std::mem::take(&mut scenario.algorithms);
            scenario.algorithms = gridscope::scenario::energy::with_power_caps(algorithms, &list.0);
        }
        if let Some(list) = &a.carbon_slack {
            // … and each of those with each slack: easy, carbon slack 3600 s, …
            let algorithms = std::mem::take(&mut scenario.algorithms);
            scenario.algorithms =
                gridscope::scenario::carbon::with_carbon_slacks(algorithms, &list.0);
        }
        scenario.platform = PlatformSpec::Sites {
            name: p.name,
            sites: p.sites,
        };
        // Node types are scenario version 3: the version that describes it.
        scenario = scenario.upgrade();
        inputs.add(file);
    }
    let place = Place {
        base: PathBuf::new(),
        files: Files::Anywhere,
        limits: a.limits.limits(),
    };
    let carbon = match &a.carbon {
        // The synthetic grid goes into the scenario, which says so (version 6).
        Some(file) if file.as_os_str() == "daily" => {
            scenario.carbon = Some(gridscope::scenario::carbon::CarbonSpec::Daily(
                gridscope::scenario::carbon::DailyCurve::DEFAULT,
            ));
            scenario = scenario.upgrade();
            None
        }
        Some(file) => {
            let bytes = read_file(file, &a.limits.limits())?;
            inputs.add(file);
            let name = file.display().to_string();
            Some(gridscope::energy::CarbonSeries::parse(&name, &bytes)?)
        }
        None => None,
    };
    run_scenario(
        &scenario,
        &place,
        inputs,
        &a.report,
        carbon.as_ref(),
        Some(outages),
    )
}

/// `--outages FILE`, `--failures MODEL` and the rules for killed jobs, read against the
/// platform's sites (issue #41, docs/failures.md). What the file's reading decided goes to
/// stderr.
fn failure_flags(
    a: &SimulateArgs,
    sites: &[gridscope::model::Site],
    inputs: &mut Inputs,
) -> Result<Outages, CliError> {
    use gridscope::failure::{read_outage_file, FailureModel, NodeCounts};
    let limits = a.limits.limits();
    let counts: Vec<(&str, u32)> = sites
        .iter()
        .map(|s| (s.name.as_str(), if s.has_nodes() { s.nodes } else { 0 }))
        .collect();
    let mut outages = Outages {
        on_failure: a.on_failure.into(),
        max_requeue: a.max_requeue,
        requeue_at: a.requeue_at.into(),
        seed: a.failure_seed,
        ..Outages::default()
    };
    if let Some(file) = &a.outages {
        let bytes = read_file(file, &limits)?;
        inputs.add(file);
        let name = file.display().to_string();
        let nodes = NodeCounts { sites: &counts };
        let (windows, report) = read_outage_file(&name, &bytes, &nodes, a.outage_origin)?;
        eprintln!("outages: {name}: {}", report.summary());
        outages.windows = windows;
    }
    if let Some(model) = &a.failures {
        let m = match FailureModel::preset(model) {
            Some(m) => m,
            None => {
                let path = Path::new(model);
                let bytes = read_file(path, &limits).map_err(|e| {
                    let names: Vec<&str> = FailureModel::presets().map(|p| p.0).collect();
                    CliError::Failed(format!(
                        "--failures {model}: not a preset ({}) and {e}",
                        names.join(", ")
                    ))
                })?;
                inputs.add(path);
                let mut m: FailureModel = serde_json::from_slice(&bytes)
                    .map_err(|e| CliError::Json(e).at(format!("{model}: not a failure model")))?;
                if m.name.is_empty() {
                    m.name = model.clone();
                }
                m
            }
        };
        m.check()?;
        outages.model = Some(m);
    }
    if let Some(every) = &a.checkpoint {
        use gridscope::failure::{Checkpointing, Interval};
        let interval = match every.as_str() {
            "young" => Interval::Young,
            "daly" => Interval::Daly,
            s => Interval::Fixed(s.parse().map_err(|_| {
                CliError::Usage(format!(
                    "--checkpoint {s}: expected young, daly or a number of seconds"
                ))
            })?),
        };
        let checkpoint = Checkpointing {
            per_job: a.checkpoint_per_job,
            within_limit: a.checkpoint_within_limit,
            ..Checkpointing::every(interval, a.checkpoint_cost, a.restart_cost)
        };
        checkpoint.plan(outages.model.as_ref())?;
        outages.checkpoint = Some(checkpoint);
    }
    Ok(outages)
}

/// `--slurm-conf FILE` / `--slurm-preset NAME`: the configuration of every `slurm` run.
fn slurm_flags(
    a: &SimulateArgs,
    scenario: &mut Scenario,
    inputs: &mut Inputs,
) -> Result<(), CliError> {
    let limits = a.limits.limits();
    let trace = TraceRef {
        path: &a.trace,
        strict: a.strict,
        format: &a.format,
    };
    if let Some((config, files)) = slurm_config(&a.slurm, &a.policy.0, &limits, trace)? {
        for file in files {
            inputs.add(&file);
        }
        for alg in &mut scenario.algorithms {
            if alg.local == LocalPolicyKind::Slurm {
                alg.slurm = Some(config.clone());
            }
        }
    }
    Ok(())
}

/// The configuration `--slurm-conf FILE` or `--slurm-preset NAME` gives, with the file it
/// was read from; `None` without either. The keys of the file the policy does not read go
/// to stderr, never dropped silently. Either flag needs `slurm` among `policies`.
pub fn slurm_config(
    args: &crate::cli::SlurmPolicyArgs,
    policies: &[LocalPolicyKind],
    limits: &gridscope::limits::Limits,
    trace: TraceRef,
) -> Result<Option<(gridscope::policy::slurm::SlurmConfig, Vec<PathBuf>)>, CliError> {
    use gridscope::policy::slurm::read_assoc;
    let flag = match (&args.slurm_conf, &args.slurm_preset, &args.slurm_assoc) {
        (Some(_), _, _) => "--slurm-conf",
        (None, Some(_), _) => "--slurm-preset",
        (None, None, Some(_)) => "--slurm-assoc",
        (None, None, None) if args.slurm_qos.is_some() => "--slurm-qos",
        (None, None, None) => return Ok(None),
    };
    if !policies.contains(&LocalPolicyKind::Slurm) {
        return Err(CliError::Usage(format!(
            "{flag} configures the slurm policy: add slurm to --policy"
        )));
    }
    let (mut config, mut files) = match base_slurm_config(args, limits)? {
        (config, Some(file)) => (config, vec![file]),
        (config, None) => (config, Vec::new()),
    };
    let assoc = match &args.slurm_assoc {
        Some(file) => {
            let bytes = read_file(file, limits)?;
            files.push(file.clone());
            let tree = read_assoc(&bytes)
                .map_err(|e| CliError::Failed(format!("{}: {e}", file.display())))?;
            Some(tree)
        }
        None => None,
    };
    if let Some(file) = &args.slurm_qos {
        let bytes = read_file(file, limits)?;
        files.push(file.clone());
        let dump = gridscope::policy::slurm::read_qos(&bytes)
            .map_err(|e| CliError::Failed(format!("{}: {e}", file.display())))?;
        for note in &dump.not_read {
            eprintln!("{}: {note}", file.display());
        }
        config.qos = dump.defs;
    }
    // Names (sacct's users, partitions and QOS) are matched against the workload's own.
    if assoc.is_some() || !config.partitions.is_empty() || !config.qos.is_empty() {
        let w = read_trace(trace.path, trace.strict, limits, trace.format)?;
        let mut notes = config.fit_to_workload(
            &w.jobs,
            &w.report.user_names,
            &w.report.partition_names,
            assoc.as_ref(),
        );
        notes.extend(gridscope::policy::slurm::qos_notes(
            &config.qos,
            &w.qos,
            &w.report.qos_names,
        ));
        let labels = gridscope::policy::slurm::JobLabels {
            accounts: &w.accounts,
            account_names: &w.report.account_names,
            ..Default::default()
        };
        notes.extend(labels.account_notes(&config, &w.jobs));
        for note in notes {
            eprintln!("slurm: {note}");
        }
    }
    Ok(Some((config, files)))
}

/// The trace a `slurm` configuration is fitted to (its users' and partitions' names).
#[derive(Clone, Copy)]
pub struct TraceRef<'a> {
    pub path: &'a str,
    pub strict: bool,
    pub format: &'a crate::cli::FormatArgs,
}

/// `--slurm-conf` (its unread keys and notes on stderr), `--slurm-preset`, else Slurm's
/// defaults.
fn base_slurm_config(
    args: &crate::cli::SlurmPolicyArgs,
    limits: &gridscope::limits::Limits,
) -> Result<(gridscope::policy::slurm::SlurmConfig, Option<PathBuf>), CliError> {
    use gridscope::policy::slurm::{read_slurm_conf, SlurmConfig, SLURM_PRESETS};
    match (&args.slurm_conf, &args.slurm_preset) {
        (Some(file), _) => {
            let bytes = read_file(file, limits)?;
            let report = read_slurm_conf(&bytes)
                .map_err(|e| CliError::Failed(format!("{}: {e}", file.display())))?;
            for note in report.messages() {
                eprintln!("{}: {note}", file.display());
            }
            Ok((report.config, Some(file.clone())))
        }
        (None, Some(name)) => SlurmConfig::preset(name).map(|c| (c, None)).ok_or_else(|| {
            CliError::Usage(format!(
                "--slurm-preset {name}: unknown; known: {}",
                SLURM_PRESETS.join(", ")
            ))
        }),
        (None, None) => Ok((SlurmConfig::default(), None)),
    }
}

/// `--power MODEL`: a preset's name, else a power model JSON file.
fn power_model(
    model: &str,
    limits: &gridscope::limits::Limits,
    inputs: &mut Inputs,
) -> Result<gridscope::energy::PowerModel, CliError> {
    use gridscope::energy::PowerModel;
    if let Some(preset) = PowerModel::preset(model) {
        return Ok(preset);
    }
    let path = Path::new(model);
    let bytes = read_file(path, limits).map_err(|e| {
        CliError::Failed(format!(
            "--power {model}: not a preset (simgrid-example, batsim-cluster-energy-128) and {e}"
        ))
    })?;
    let m: PowerModel = serde_json::from_slice(&bytes)
        .map_err(|e| CliError::Json(e).at(format!("{model}: not a power model")))?;
    m.validate(model)?;
    inputs.add(path);
    Ok(m)
}

/// The flags `simulate` and `explain` share about how a trace runs.
pub struct TraceOptions {
    pub procs: Option<u32>,
    pub estimates: Estimates,
    pub no_kill: bool,
    pub event_order: EventOrderArg,
    pub strict: bool,
    pub format: FormatArgs,
}

/// The scenario `simulate TRACE --policy …` runs: the trace on a machine sized from it.
pub fn trace_scenario(trace: &str, policies: &[LocalPolicyKind], o: TraceOptions) -> Scenario {
    Scenario {
        failures: None,
        carbon: None,
        version: SCENARIO_VERSION,
        name: format!("simulate {trace}"),
        seed: 0,
        platform: PlatformSpec::FromTrace { procs: o.procs },
        workload: WorkloadSpec::Swf {
            file: trace.to_string(),
            strict: o.strict,
            format: o.format.format.unwrap_or_default(),
            utc_offset_min: o.format.utc_offset.unwrap_or(0),
        },
        algorithms: policies.iter().copied().map(AlgorithmSpec::local).collect(),
        options: RunConfig {
            estimates: match o.estimates {
                Estimates::Trace => EstimateSource::Trace,
                Estimates::Exact => EstimateSource::Exact,
            },
            kill_at_estimate: !o.no_kill,
            event_order: o.event_order.into(),
        },
    }
}

pub fn run(a: &RunArgs) -> Result<(), CliError> {
    let sweep = a.preset.as_deref().and_then(|p| {
        gridscope::family::find(p)
            .filter(|f| !f.scenario_presets())
            .map(|f| (f, p))
    });
    if let Some((family, preset)) = sweep {
        return crate::family::run_preset(family, preset, a, scenario_flag(a));
    }
    if let Some(flag) = a.sweep.first_given() {
        return Err(CliError::Usage(format!(
            "{flag} applies only to the sweep presets (sf-*)"
        )));
    }
    let mut inputs = Inputs::default();
    let limits = a.limits.limits();
    let (mut scenario, base) = match (&a.preset, &a.scenario) {
        (Some(p), _) => (
            preset(p)?,
            a.traces.clone().unwrap_or(DEFAULT_TRACES.into()),
        ),
        (None, Some(file)) => {
            inputs.add(Path::new(file));
            scenario_file(file, &limits)?
        }
        (None, None) => {
            return Err(CliError::Usage(
                "run needs SCENARIO.json or --preset NAME".into(),
            ))
        }
    };
    if let Some(s) = a.seed {
        scenario.seed = s;
    }
    if let Some(d) = a.ideal_discipline {
        for alg in &mut scenario.algorithms {
            alg.grid_params.ideal_discipline = d;
            // A preset's "ideal" label would hide the discipline: name it (ideal/srpt).
            if alg.grid == gridscope::policy::grid::GridScheme::Ideal
                && alg.label.as_deref() == Some("ideal")
            {
                alg.label = None;
            }
        }
    }
    if a.hold_at_home {
        for alg in &mut scenario.algorithms {
            alg.grid_params.hold_at_home = true;
        }
    }
    if let Some(order) = a.event_order {
        scenario.options.event_order = order.into();
    }
    let place = Place {
        base,
        files: if a.limits.allow_any_path {
            Files::Anywhere
        } else {
            Files::Confined
        },
        limits,
    };
    run_scenario(&scenario, &place, inputs, &a.report, None, None)
}

/// The first flag given that only a scenario run takes (`--traces` aside: the families
/// that read traces take it too).
fn scenario_flag(a: &RunArgs) -> Option<&'static str> {
    [
        (a.seed.is_some(), "--seed"),
        (a.ideal_discipline.is_some(), "--ideal-discipline"),
        (a.hold_at_home, "--hold-at-home"),
        (a.event_order.is_some(), "--event-order"),
        (a.report.series.is_some(), "--series"),
        (a.report.jobs.is_some(), "--jobs"),
        (a.report.vs_log, "--vs-log"),
    ]
    .into_iter()
    .find_map(|(given, flag)| given.then_some(flag))
}

/// A named scenario preset. Presets name the shared traces by file name: they resolve in
/// `--traces`.
fn preset(name: &str) -> Result<Scenario, CliError> {
    Scenario::preset(name).ok_or_else(|| {
        CliError::Failed(format!(
            "unknown scenario preset '{name}'; known: {}",
            gridscope::family::preset_names().join(", ")
        ))
    })
}

/// A scenario file and the folder its workload files are relative to.
fn scenario_file(file: &str, limits: &Limits) -> Result<(Scenario, PathBuf), CliError> {
    let path = Path::new(file);
    let text = read_text(path, limits)?;
    let s = Scenario::from_json(&text).map_err(|e| CliError::Scenario(e).at(file))?;
    Ok((s, path.parent().map(Path::to_path_buf).unwrap_or_default()))
}

/// Where a scenario's files are and the limits its inputs are held to.
struct Place {
    /// The folder workload files are relative to.
    base: PathBuf,
    files: Files,
    limits: Limits,
}

/// Loads the scenario's workload (files relative to `place.base`), checks that no per-run
/// jobs file would overwrite an input (`inputs` and the workload files), runs every
/// algorithm with a progress bar on a terminal and reports.
fn run_scenario(
    scenario: &Scenario,
    place: &Place,
    mut inputs: Inputs,
    args: &ReportArgs,
    carbon: Option<&gridscope::energy::CarbonSeries>,
    outages: Option<Outages>,
) -> Result<(), CliError> {
    let mut progress = Progress::new();
    let workload = load_workload(scenario, &place.limits, &mut |f| {
        let path = confined_path(&place.base, f, place.files)?;
        inputs.add(&path);
        load_file(&path, &place.limits)
    })?;
    let labels: Vec<String> = scenario
        .algorithms
        .iter()
        .map(AlgorithmSpec::label)
        .collect();
    let jobs_files = match &args.jobs {
        Some(out) => jobs_files(out, &labels, &inputs)?,
        None => vec![],
    };
    warn_of_backlog(scenario, &workload);
    if let (Some(buckets), PlatformSpec::Sites { sites, .. }) = (args.series, &scenario.platform) {
        report::check_series(&place.limits, buckets, sites.len(), labels.len())?;
    }
    let threads = args.thread_count();
    let mut progress_of = |run, done, total| progress.runs(&labels, run, done, total);
    let mut report = match (outages, carbon) {
        (outages, Some(series)) => gridscope::scenario::run_loaded_with_carbon(
            scenario,
            workload,
            threads,
            &place.limits,
            outages.unwrap_or_default(),
            series.clone(),
            &mut progress_of,
        ),
        (Some(outages), None) => run_loaded_with_outages(
            scenario,
            workload,
            threads,
            &place.limits,
            outages,
            &mut progress_of,
        ),
        (None, None) => run_loaded_on(scenario, workload, threads, &place.limits, &mut progress_of),
    }?;
    // Each run's emissions under the carbon series are in its energy already (the runner
    // adds them, as it does for the page and Python).
    drop(progress);
    report::finish(
        args,
        &mut report,
        &jobs_files,
        &scenario.options,
        &place.limits,
    )
}

/// Workloads smaller than this get no backlog note.
const BACKLOG_NOTE_JOBS: usize = 1000;

/// Says before the runs when a workload of thousands of jobs is more than the platform can
/// do (an offered load above 1, or every job at one instant): the queues then grow all
/// run, which is rarely what was meant (`--procs` far below the trace's machine), and
/// conservative backfilling, which re-plans its whole queue at every early end (either
/// definition), slows down with them. (Small hand-made workloads overload on purpose: no note.)
fn warn_of_backlog(scenario: &Scenario, workload: &Workload) {
    if workload.jobs.len() < BACKLOG_NOTE_JOBS {
        return;
    }
    let Ok((platform, _)) = resolve_platform(&scenario.platform, workload) else {
        return; // the run reports it
    };
    let conservative = scenario.algorithms.iter().any(|a| {
        matches!(
            a.local,
            LocalPolicyKind::Conservative | LocalPolicyKind::ConservativeRebuild
        )
    });
    let slow = if conservative {
        "; conservative backfilling re-plans its whole queue at every early end (compression moves up to every queued job, the rebuild re-places them all) and slows down with it"
    } else {
        ""
    };
    match offered_load(&platform, &workload.jobs, &scenario.options) {
        Some(load) if load > 1.0 => output::note(&format!(
            "the workload offers {load:.2} times what platform '{}' can do while it arrives (offered load, see `gridscope help metrics`): the queues grow all run, so waits measure the backlog{slow}",
            platform.name
        )),
        None => output::note(&format!(
            "all {} jobs arrive at one instant: a backlog, whose waits measure its length{slow}",
            workload.jobs.len()
        )),
        _ => {}
    }
}

/// The per-run jobs files, after saying which were renamed and refusing any that is an input.
fn jobs_files(out: &Path, labels: &[String], inputs: &Inputs) -> Result<Vec<PathBuf>, CliError> {
    let (paths, notes) = output::per_run_paths(out, labels);
    for n in &notes {
        output::note(n);
    }
    for p in &paths {
        inputs.check(p, "--jobs")?;
    }
    Ok(paths)
}
