//! The `gridscope` command line: the engine's native edge. It reads files, prints results
//! and turns every error into a message on stderr and a non-zero exit code.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use gridscope::allocation::sweep::SWEEP_PRESETS;
use gridscope::engine::{EstimateSource, RunConfig};
use gridscope::metrics::METRIC_HELP;
use gridscope::policy::local::LocalPolicyKind;
use gridscope::scenario::{
    jobs_csv, run_loaded, run_scenario, AlgorithmSpec, PlatformSpec, Report, Scenario,
    WorkloadSpec, PLATFORM_PRESETS, SCENARIO_PRESETS,
};
use gridscope::workload::{read_swf, SwfOptions};

const USAGE: &str = "\
gridscope — grid and HPC batch-job scheduling simulator

USAGE:
  gridscope simulate TRACE --policy fcfs|easy|conservative|sjf|firstfit|all
                     [--procs N] [--estimates trace|exact] [--no-kill]
                     [--jobs OUT.csv] [--json] [--series N] [--strict]
  gridscope lint TRACE [--json] [--strict]
  gridscope run SCENARIO.json [--json] [--series N] [--jobs OUT.csv]
  gridscope run --preset NAME [--seed S] [--json] [--series N] [--traces DIR]
                (demo, sob-synthetic-heavy, sob-synthetic-light, sob-real-3site,
                 sob-real-3site-5m, sob-local-policies; see `gridscope help presets`)
  gridscope run --preset sf-heterogeneity|sf-size|sf-batch|sf-cv|sf-hybrid
                [--seeds N] [--batches B] [--json]
                [--vary last_rate|size|batch_size|arrival_cv|degraded_rate] [--x 1,2,5]
                [--rates 1,1,10] [--lambda L | --load U] [--batch-size K] [--cv C]
                [--policies ww,owa,dll,hybrid] [--dispatch random|rounded]
                (any of these changes the preset's sweep; see `gridscope help sweeps`)
  gridscope allocate --policy owa|ww --rates 1,1,1,16 --lambda 0.1 --batch-size 10 [--json]
  gridscope fit TRACE --cpus-per-node C [--seed S] [--out SYNTH.swf] [--json]
                (SOB §3.1: size classes with the 2 % merge rule, hyper-Erlang per class by
                 moment matching, moments side by side; --out writes a synthetic workload)
  gridscope help [metrics|policies|schemes|platforms|presets|sweeps]

TRACE is an SWF file, plain or gzip. --procs defaults to the header's MaxProcs, else MaxNodes,
else the widest job. Jobs that outlive their estimate are killed at it unless --no-kill.
--series N adds per-site utilization and queue length in N time buckets to the JSON.
Exit codes: 0 success, 1 bad input or failed run, 2 bad command line.";

#[derive(Debug)]
enum CliError {
    Usage(String),
    Failed(String),
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match dispatch(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(CliError::Usage(m)) => {
            eprintln!("error: {m}\n\n{USAGE}");
            ExitCode::from(2)
        }
        Err(CliError::Failed(m)) => {
            eprintln!("error: {m}");
            ExitCode::from(1)
        }
    }
}

/// Writes to stdout, ignoring a closed pipe (`gridscope ... | head` must not panic).
fn out(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
}

struct Args {
    positional: Vec<String>,
    flags: Vec<(String, Option<String>)>,
}

const VALUED: &[&str] = &[
    "--policy",
    "--procs",
    "--estimates",
    "--jobs",
    "--preset",
    "--seed",
    "--series",
    "--rates",
    "--lambda",
    "--batch-size",
    "--seeds",
    "--batches",
    "--traces",
    "--cpus-per-node",
    "--out",
    "--x",
    "--vary",
    "--load",
    "--cv",
    "--policies",
    "--dispatch",
];
const SWITCHES: &[&str] = &["--json", "--no-kill", "--strict", "--help"];

impl Args {
    fn parse(args: &[String]) -> Result<Args, CliError> {
        let mut positional = vec![];
        let mut flags = vec![];
        let mut it = args.iter();
        while let Some(a) = it.next() {
            if let Some((k, v)) = a.split_once('=').filter(|(k, _)| k.starts_with("--")) {
                if !VALUED.contains(&k) {
                    return Err(CliError::Usage(format!("unknown option {k}")));
                }
                flags.push((k.to_string(), Some(v.to_string())));
            } else if VALUED.contains(&a.as_str()) {
                let v = it
                    .next()
                    .ok_or_else(|| CliError::Usage(format!("{a} needs a value")))?;
                flags.push((a.clone(), Some(v.clone())));
            } else if SWITCHES.contains(&a.as_str()) {
                flags.push((a.clone(), None));
            } else if a.starts_with("--") {
                return Err(CliError::Usage(format!("unknown option {a}")));
            } else {
                positional.push(a.clone());
            }
        }
        Ok(Args { positional, flags })
    }

    fn get(&self, k: &str) -> Option<&str> {
        self.flags
            .iter()
            .rev()
            .find(|(f, _)| f == k)
            .and_then(|(_, v)| v.as_deref())
    }

    fn has(&self, k: &str) -> bool {
        self.flags.iter().any(|(f, _)| f == k)
    }

    fn only(&self, allowed: &[&str]) -> Result<(), CliError> {
        for (f, _) in &self.flags {
            if !allowed.contains(&f.as_str()) {
                return Err(CliError::Usage(format!("{f} does not apply here")));
            }
        }
        Ok(())
    }
}

fn dispatch(args: &[String]) -> Result<(), CliError> {
    let Some(cmd) = args.first() else {
        return Err(CliError::Usage("no command given".into()));
    };
    let rest = &args[1..];
    match cmd.as_str() {
        "simulate" => simulate(&Args::parse(rest)?),
        "lint" => lint(&Args::parse(rest)?),
        "run" => run(&Args::parse(rest)?),
        "allocate" => allocate(&Args::parse(rest)?),
        "fit" => fit(&Args::parse(rest)?),
        "help" | "--help" | "-h" => {
            help(rest.first().map(String::as_str));
            Ok(())
        }
        other => Err(CliError::Usage(format!("unknown command '{other}'"))),
    }
}

fn help(topic: Option<&str>) {
    let mut s = String::new();
    match topic {
        Some("metrics") => {
            for m in METRIC_HELP {
                s.push_str(&format!("{:<22} {}", m.key, m.formula));
                if !m.source.is_empty() {
                    s.push_str(&format!(" [{}]", m.source));
                }
                s.push('\n');
            }
        }
        Some("policies") => {
            for k in LocalPolicyKind::ALL {
                s.push_str(&format!("{:<13} {}\n", k.name(), k.describe()));
            }
        }
        Some("presets") => {
            for (n, d) in SCENARIO_PRESETS {
                s.push_str(&format!("{n:<22} {d}\n"));
            }
            for p in SWEEP_PRESETS {
                s.push_str(&format!("{:<22} {}\n", p.name, p.description));
            }
        }
        Some("sweeps") => {
            for (k, v) in gridscope::allocation::sweep::SWEEP_PARAM_HELP {
                s.push_str(&format!("{k:<11} {v}\n"));
            }
        }
        Some("schemes") => {
            for g in gridscope::policy::grid::GridScheme::ALL {
                s.push_str(&format!("{:<10} {}\n", g.name(), g.describe()));
            }
        }
        Some("platforms") => {
            for (n, d) in PLATFORM_PRESETS {
                s.push_str(&format!("{n:<12} {d}\n"));
            }
        }
        _ => s.push_str(USAGE),
    }
    s.push('\n');
    out(&s);
}

fn read_file(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

fn trace_arg(a: &Args) -> Result<&str, CliError> {
    match a.positional.as_slice() {
        [t] => Ok(t),
        [] => Err(CliError::Usage("missing TRACE".into())),
        _ => Err(CliError::Usage(format!(
            "one TRACE expected, got {}",
            a.positional.len()
        ))),
    }
}

/// Reads the SWF file at `path` (`--strict` honoured).
fn read_trace(a: &Args, path: &str) -> Result<gridscope::workload::Workload, CliError> {
    let bytes = read_file(Path::new(path)).map_err(CliError::Failed)?;
    let opts = SwfOptions {
        strict: a.has("--strict"),
    };
    read_swf(path, &bytes, &opts).map_err(|e| CliError::Failed(e.to_string()))
}

fn lint(a: &Args) -> Result<(), CliError> {
    a.only(&["--json", "--strict"])?;
    let path = trace_arg(a)?;
    let w = read_trace(a, path)?;
    if a.has("--json") {
        out(&format!("{}\n", json(&w.report)));
    } else {
        out(&w.report.summary());
    }
    Ok(())
}

fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
}

fn options(a: &Args) -> Result<RunConfig, CliError> {
    let estimates = match a.get("--estimates") {
        None | Some("trace") => EstimateSource::Trace,
        Some("exact") => EstimateSource::Exact,
        Some(o) => {
            return Err(CliError::Usage(format!(
                "--estimates must be trace or exact, not '{o}'"
            )))
        }
    };
    Ok(RunConfig {
        estimates,
        kill_at_estimate: !a.has("--no-kill"),
    })
}

fn policies(spec: &str) -> Result<Vec<AlgorithmSpec>, CliError> {
    let kinds: Vec<LocalPolicyKind> = if spec == "all" {
        LocalPolicyKind::ALL.to_vec()
    } else {
        spec.split(',')
            .map(|p| p.parse().map_err(CliError::Usage))
            .collect::<Result<_, _>>()?
    };
    Ok(kinds.into_iter().map(AlgorithmSpec::local).collect())
}

fn simulate(a: &Args) -> Result<(), CliError> {
    a.only(&[
        "--policy",
        "--procs",
        "--estimates",
        "--no-kill",
        "--jobs",
        "--json",
        "--series",
        "--strict",
    ])?;
    let path = trace_arg(a)?;
    let policy = a
        .get("--policy")
        .ok_or_else(|| CliError::Usage("--policy is required".into()))?;
    let procs = match a.get("--procs") {
        None => None,
        Some(p) => match p.parse::<u32>() {
            Ok(n) if n > 0 => Some(n),
            _ => {
                return Err(CliError::Usage(format!(
                    "--procs must be a positive integer, not '{p}'"
                )))
            }
        },
    };
    let scenario = Scenario {
        version: gridscope::scenario::SCENARIO_VERSION,
        name: format!("simulate {path}"),
        seed: 0,
        platform: PlatformSpec::FromTrace { procs },
        workload: WorkloadSpec::Swf {
            file: path.to_string(),
            strict: a.has("--strict"),
        },
        algorithms: policies(policy)?,
        options: options(a)?,
    };
    let mut report = run_scenario(
        &scenario,
        &mut |f| read_file(Path::new(f)),
        &mut |_, _, _| true,
    )
    .map_err(|e| CliError::Failed(e.to_string()))?;
    finish(a, &mut report)
}

fn number<T: std::str::FromStr>(a: &Args, flag: &str) -> Result<Option<T>, CliError> {
    a.get(flag)
        .map(|v| {
            v.parse::<T>()
                .map_err(|_| CliError::Usage(format!("{flag} must be a number, not '{v}'")))
        })
        .transpose()
}

fn allocate(a: &Args) -> Result<(), CliError> {
    use gridscope::allocation::fractions::{owa_batch, predicted_response, weighted};
    a.only(&["--policy", "--rates", "--lambda", "--batch-size", "--json"])?;
    let rates: Vec<f64> = a
        .get("--rates")
        .ok_or_else(|| CliError::Usage("--rates is required (e.g. --rates 1,1,1,16)".into()))?
        .split(',')
        .map(|r| {
            r.trim()
                .parse::<f64>()
                .map_err(|_| CliError::Usage(format!("--rates: '{r}' is not a number")))
        })
        .collect::<Result<_, _>>()?;
    let lambda: f64 = number(a, "--lambda")?
        .ok_or_else(|| CliError::Usage("--lambda is required (batches per second)".into()))?;
    let k: u32 = number(a, "--batch-size")?.unwrap_or(1);
    gridscope::allocation::fractions::validate(&rates, lambda, k).map_err(CliError::Failed)?;
    let fractions = match a.get("--policy").unwrap_or("owa") {
        "owa" => owa_batch(&rates, lambda, k).map_err(CliError::Failed)?,
        "ww" => weighted(&rates),
        other => {
            return Err(CliError::Usage(format!(
                "--policy must be owa or ww, not '{other}' (dll and hybrid are dynamic: see run --preset sf-*)"
            )))
        }
    };
    let predicted = predicted_response(&rates, &fractions, lambda, k);
    if a.has("--json") {
        let v = serde_json::json!({"fractions": fractions, "predicted_mean_response_s": predicted});
        out(&format!("{v}\n"));
    } else {
        let mut s = String::from("resource  rate      fraction\n");
        for (i, (r, f)) in rates.iter().zip(&fractions).enumerate() {
            s.push_str(&format!("{:<9} {:<9} {:.6}\n", i + 1, r, f));
        }
        if let Some(t) = predicted {
            s.push_str(&format!("predicted mean response (SF eq. 7): {t:.6} s\n"));
        }
        out(&s);
    }
    Ok(())
}

fn fit(a: &Args) -> Result<(), CliError> {
    use gridscope::workload::hyper_erlang::{fit_classes, synthesize, SYNTHETIC_SEED};
    a.only(&["--cpus-per-node", "--seed", "--out", "--json", "--strict"])?;
    let path = trace_arg(a)?;
    let cpn: u32 = number(a, "--cpus-per-node")?.ok_or_else(|| {
        CliError::Usage("--cpus-per-node is required (SOB: the machine's CPUs per node)".into())
    })?;
    if cpn == 0 {
        return Err(CliError::Usage("--cpus-per-node must be at least 1".into()));
    }
    let w = read_trace(a, path)?;
    if w.jobs.is_empty() {
        return Err(CliError::Failed(format!("{path}: no runnable job to fit")));
    }
    let fitted = fit_classes(&w.jobs, cpn);
    let seed = number(a, "--seed")?.unwrap_or(SYNTHETIC_SEED);
    // The same draw as the app's worker (`hyper_erlang::synthesize`).
    let synth = synthesize(&w.jobs, &fitted, seed).map_err(CliError::Failed)?;
    let (synthetic, span_s) = (synth.workload, synth.horizon_s);
    if let Some(out_path) = a.get("--out") {
        let text = gridscope::workload::write_swf(&synthetic, &Default::default());
        std::fs::write(out_path, text)
            .map_err(|e| CliError::Failed(format!("cannot write {out_path}: {e}")))?;
    }
    if a.has("--json") {
        let v = serde_json::json!({
            "classes": fitted,
            "trace_jobs": w.jobs.len(),
            "synthetic_jobs": synthetic.jobs.len(),
            "horizon_s": span_s,
        });
        out(&format!("{}\n", json(&v)));
        return Ok(());
    }
    let mut s = format!(
        "{path}: {} jobs over {:.0} s; classes of {cpn} CPUs, merged below 2 %\n",
        w.jobs.len(),
        span_s
    );
    s.push_str("class        jobs   what          sample mean  fitted mean   sample m2    fitted m2    exact\n");
    for f in &fitted {
        for (what, m) in [("inter-arrival", &f.interarrival), ("service", &f.service)] {
            s.push_str(&format!(
                "{:<12} {:>5}   {:<13} {:>11.1}  {:>11.1}  {:>11.4e}  {:>11.4e}  {}\n",
                format!("{}-{}", f.class.nmin, f.class.nmax),
                f.jobs,
                what,
                m.sample[0],
                m.fitted[0],
                m.sample[1],
                m.fitted[1],
                if m.exact { "yes" } else { m.note.as_str() }
            ));
        }
    }
    s.push_str(&format!(
        "synthetic workload from the fit (seed {seed}): {} jobs over the same span{}\n",
        synthetic.jobs.len(),
        a.get("--out")
            .map(|p| format!(", written to {p}"))
            .unwrap_or_default()
    ));
    out(&s);
    Ok(())
}

fn run_sweep_preset(a: &Args, name: &str) -> Result<(), CliError> {
    use gridscope::allocation::sweep::{
        parse_numbers, parse_policies, run_sweep, sweep_preset, Arrivals, Vary,
    };
    use gridscope::allocation::Dispatch;
    a.only(&[
        "--json",
        "--preset",
        "--seeds",
        "--batches",
        "--x",
        "--vary",
        "--rates",
        "--lambda",
        "--load",
        "--batch-size",
        "--cv",
        "--policies",
        "--dispatch",
    ])?;
    let preset =
        sweep_preset(name).ok_or_else(|| CliError::Failed(format!("unknown preset '{name}'")))?;
    let seeds = number(a, "--seeds")?.unwrap_or(10);
    let batches = number(a, "--batches")?.unwrap_or(20_000);
    // Any flag below changes the preset's spec; the result is then labelled "custom".
    let mut spec = (preset.spec)();
    let usage = CliError::Usage;
    if let Some(v) = a.get("--vary") {
        spec.vary = Vary::parse(v).map_err(usage)?;
    }
    if let Some(v) = a.get("--x") {
        spec.x = parse_numbers("--x", v).map_err(usage)?;
    }
    if let Some(v) = a.get("--rates") {
        spec.rates = parse_numbers("--rates", v).map_err(usage)?;
    }
    match (number(a, "--lambda")?, number(a, "--load")?) {
        (Some(_), Some(_)) => {
            return Err(usage("give --lambda or --load, not both".into()));
        }
        (Some(l), None) => spec.arrivals = Arrivals::Lambda(l),
        (None, Some(l)) => spec.arrivals = Arrivals::Load(l),
        (None, None) => {}
    }
    if let Some(k) = number(a, "--batch-size")? {
        spec.batch_size = k;
    }
    if let Some(cv) = number(a, "--cv")? {
        spec.arrival_cv = cv;
    }
    if let Some(v) = a.get("--policies") {
        spec.policies = parse_policies(v).map_err(usage)?;
    }
    match a.get("--dispatch") {
        None => {}
        Some("random") => spec.dispatch = Dispatch::Random,
        Some("rounded") => spec.dispatch = Dispatch::Rounded,
        Some(d) => {
            return Err(usage(format!(
                "--dispatch must be random or rounded, not '{d}'"
            )))
        }
    }
    let r = run_sweep(&spec, seeds, batches, &mut |_, _| true).map_err(CliError::Failed)?;
    if a.has("--json") {
        out(&format!("{}\n", json(&r)));
        return Ok(());
    }
    let mut s = format!(
        "{}: {}\n{} seeds × {} batches ({} discarded); median mean response (s) with a {:.1} % band\n{}\n{:>8}",
        r.preset,
        r.description,
        r.seeds,
        r.batches,
        r.warmup,
        r.confidence * 100.0,
        if r.paper.is_empty() { String::new() } else { format!("paper: {}\n", r.paper) },
        "x"
    );
    for p in &r.series {
        s.push_str(&format!("{:>28}", p.policy));
    }
    s.push_str(&format!("{:>10}\n", "gap"));
    for (i, x) in r.x.iter().enumerate() {
        s.push_str(&format!("{x:>8}"));
        for p in &r.series {
            s.push_str(&format!(
                "{:>12.4} [{:.4}, {:.4}]",
                p.median[i], p.lo[i], p.hi[i]
            ));
        }
        s.push_str(&format!("{:>9.1}%\n", r.gap[i] * 100.0));
    }
    s.push_str(&format!("gap = {}\n", r.gap_label));
    out(&s);
    Ok(())
}

fn run(a: &Args) -> Result<(), CliError> {
    if let Some(p) = a.get("--preset").filter(|p| p.starts_with("sf-")) {
        return run_sweep_preset(a, p);
    }
    a.only(&[
        "--json", "--jobs", "--preset", "--seed", "--series", "--traces",
    ])?;
    let seed = match a.get("--seed") {
        None => None,
        Some(s) => Some(
            s.parse::<u64>()
                .map_err(|_| CliError::Usage(format!("--seed must be an integer, not '{s}'")))?,
        ),
    };
    let (mut scenario, base): (Scenario, PathBuf) =
        match (a.get("--preset"), a.positional.as_slice()) {
            (Some(p), []) => match Scenario::preset(p) {
                // Presets name the shared traces by file name: they resolve in --traces.
                Some(s) => (
                    s,
                    PathBuf::from(a.get("--traces").unwrap_or("../shared/traces")),
                ),
                None => {
                    let mut names: Vec<&str> = SCENARIO_PRESETS.iter().map(|p| p.0).collect();
                    names.extend(SWEEP_PRESETS.iter().map(|p| p.name));
                    return Err(CliError::Failed(format!(
                        "unknown scenario preset '{p}'; known: {}",
                        names.join(", ")
                    )));
                }
            },
            (None, [file]) => {
                let path = Path::new(file);
                let text = String::from_utf8(read_file(path).map_err(CliError::Failed)?)
                    .map_err(|_| CliError::Failed(format!("{file} is not UTF-8 text")))?;
                let s = Scenario::from_json(&text)
                    .map_err(|e| CliError::Failed(format!("{file}: {e}")))?;
                (s, path.parent().map(Path::to_path_buf).unwrap_or_default())
            }
            (None, []) => {
                return Err(CliError::Usage(
                    "run needs SCENARIO.json or --preset NAME".into(),
                ))
            }
            _ => {
                return Err(CliError::Usage(
                    "run takes one SCENARIO.json or --preset NAME".into(),
                ))
            }
        };
    if let Some(s) = seed {
        scenario.seed = s;
    }
    // Workload files in a scenario are relative to the scenario file.
    let mut load = |f: &str| {
        let p = Path::new(f);
        let p = if p.is_absolute() {
            p.to_path_buf()
        } else {
            base.join(p)
        };
        read_file(&p)
    };
    let workload = gridscope::scenario::load_workload(&scenario, &mut load)
        .map_err(|e| CliError::Failed(e.to_string()))?;
    let mut report = run_loaded(&scenario, workload, &mut |_, _, _| true)
        .map_err(|e| CliError::Failed(e.to_string()))?;
    finish(a, &mut report)
}

fn finish(a: &Args, report: &mut Report) -> Result<(), CliError> {
    if let Some(n) = a.get("--series") {
        let buckets = match n.parse::<usize>() {
            Ok(b) if (1..=100_000).contains(&b) => b,
            _ => {
                return Err(CliError::Usage(format!(
                    "--series must be a number of buckets from 1 to 100000, not '{n}'"
                )))
            }
        };
        for run in &mut report.runs {
            run.series = Some(gridscope::metrics::series(
                &report.platform,
                &report.workload.jobs,
                &run.outcomes,
                buckets,
            ));
        }
    }
    let report = &*report;
    if let Some(path) = a.get("--jobs") {
        // One run: the file as named; several: one file per run, the label before the extension.
        for run in &report.runs {
            let target = if report.runs.len() == 1 {
                PathBuf::from(path)
            } else {
                let p = Path::new(path);
                let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("jobs");
                let ext = p.extension().and_then(|s| s.to_str()).unwrap_or("csv");
                p.with_file_name(format!("{stem}.{}.{ext}", run.label))
            };
            std::fs::write(&target, jobs_csv(report, run))
                .map_err(|e| CliError::Failed(format!("cannot write {}: {e}", target.display())))?;
        }
    }
    if a.has("--json") {
        out(&format!("{}\n", json(report)));
        return Ok(());
    }
    let mut s = String::new();
    s.push_str(&report.import.summary());
    s.push_str(&format!(
        "platform: {} ({}); estimates: {}; kill at estimate: {}\n\n",
        report.platform.name,
        report.platform_note,
        report.conventions.estimates,
        report.conventions.kill_at_estimate
    ));
    s.push_str(&format!(
        "{:<18}{:>12}{:>14}{:>12}{:>10}{:>8}{:>9}{:>7}{:>14}{:>10}{:>9}\n",
        "algorithm",
        "avg wait s",
        "avg resp s",
        "wait sd s",
        "bsld",
        "util",
        "grid eff",
        "xfer",
        "makespan s",
        "finished",
        "rejected"
    ));
    for r in &report.runs {
        let m = &r.metrics;
        s.push_str(&format!(
            "{:<18}{:>12.1}{:>14.1}{:>12.1}{:>10.2}{:>8.3}{:>9.3}{:>7.3}{:>14.0}{:>10}{:>9}\n",
            r.label,
            m.avg_wait_s,
            m.avg_response_s,
            m.wait_stddev_s,
            m.avg_bounded_slowdown,
            m.utilization,
            m.grid_efficiency,
            m.fraction_transferred,
            m.makespan_s,
            m.jobs_finished,
            m.jobs_rejected
        ));
    }
    if report.platform.sites.len() > 1 {
        s.push_str("\nper-site utilization:");
        for site in &report.platform.sites {
            s.push_str(&format!(" {:>8}", site.name));
        }
        s.push('\n');
        for r in &report.runs {
            s.push_str(&format!("{:<21}", r.label));
            for site in &r.metrics.sites {
                s.push_str(&format!(" {:>8.3}", site.utilization));
            }
            s.push('\n');
        }
    }
    for r in &report.runs {
        for line in &r.rejected {
            s.push_str(&format!("{}: rejected {line}\n", r.label));
        }
    }
    out(&s);
    Ok(())
}
