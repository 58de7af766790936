//! The command line as clap sees it: every subcommand, flag and value parser. Values are
//! checked here when they are read, so a bad one is a usage error (exit 2) that names the
//! flag and the value; what can only be checked later (a flag that does not apply to this
//! kind of run, `--lambda` with `--load`) is checked by the commands.

use std::path::PathBuf;

use clap::{ArgGroup, Args, Parser, Subcommand, ValueEnum, ValueHint};
use gridscope::allocation::sweep::{parse_numbers, parse_policies, Vary};
use gridscope::allocation::{AllocationPolicy, Dispatch};
use gridscope::policy::local::LocalPolicyKind;
use gridscope::workload::hyper_erlang::FitMethod;
use gridscope::workload::{TraceFormat, TraceOptions};

/// The `gridscope help TOPIC` topics (not clap's help: each prints a reference table).
pub const TOPICS: [&str; 8] = [
    "metrics",
    "policies",
    "schemes",
    "platforms",
    "presets",
    "sweeps",
    "limits",
    "workloads",
];

const AFTER_HELP: &str = "\
TRACE is an SWF file, plain or gzip. `gridscope help TOPIC` prints a reference table:
metrics, policies, schemes, platforms, presets, sweeps, limits or workloads.
Exit codes: 0 success, 1 bad input or failed run, 2 bad command line.";

/// Grid and HPC batch-job scheduling simulator.
#[derive(Parser, Debug)]
#[command(
    name = "gridscope",
    version,
    propagate_version = true,
    subcommand_required = true,
    arg_required_else_help = false,
    disable_help_subcommand = true,
    after_help = AFTER_HELP
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Simulate an SWF trace under one or more local scheduling policies
    #[command(args_override_self = true)]
    Simulate(SimulateArgs),
    /// Print a trace's import report: records, skipped jobs, malformed lines
    #[command(args_override_self = true)]
    Lint(LintArgs),
    /// Run a scenario file or a preset (the sf-* presets are SF parameter sweeps)
    #[command(args_override_self = true)]
    Run(Box<RunArgs>),
    /// Split a batch stream over resources of given rates (SF, static)
    #[command(
        args_override_self = true,
        override_usage = "gridscope allocate --rates <R1,R2,..> --lambda <L> [OPTIONS]"
    )]
    Allocate(AllocateArgs),
    /// Fit SOB's hyper-Erlang workload model to a trace, draw a synthetic one
    #[command(args_override_self = true)]
    Fit(FitArgs),
    /// Why did a job wait? Each instant between its submission and its start, and why
    #[command(args_override_self = true)]
    Explain(ExplainArgs),
    /// The papers' headline claims beside Gridscope's numbers, run live, with verdicts
    ///
    /// One row per claim of each paper (table values and the figure trends the text
    /// states): the paper's value, ours at the presets' defaults and, where the paper leaves
    /// parameters open, under the documented reading, each with a verdict by the tolerance
    /// written beside the claim (reproduced / trend / not reproduced / not modelled / not
    /// run). The claims are data: src/reproduce/claims/<paper>.json.
    #[command(verbatim_doc_comment, args_override_self = true)]
    Reproduce(ReproduceArgs),
    /// Convert a trace (SWF, GWF, Batsim JSON, sacct) to SWF or a Batsim JSON workload
    #[command(args_override_self = true)]
    Convert(ConvertArgs),
    /// Per-job A/B: which jobs gained or lost wait between two --jobs CSV files, and a
    /// paired test of the difference
    #[command(args_override_self = true)]
    Compare(CompareArgs),
    /// Sweeps over a manifest's axes, sharded over a cluster: plan, run, status, merge, slurm
    ///
    /// A manifest (JSON: a base scenario and axes over its fields) becomes cases in DIR;
    /// `run --shard I/N` (or a Slurm array through `slurm`) runs them, resumably; `merge`
    /// gives every case's metrics and per point the median and CI across seeds.
    /// docs/cluster.md has the manifest format and a walk-through.
    #[command(verbatim_doc_comment)]
    Sweep(SweepArgsCmd),
    /// Explain metrics, policies, schemes, platforms, presets, sweeps, or a command
    Help(HelpArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell)
    ///
    /// For example: gridscope completions bash > ~/.local/share/bash-completion/completions/gridscope
    #[command(verbatim_doc_comment)]
    Completions(CompletionsArgs),
}

impl Command {
    /// The subcommand's name, for the usage line of errors found after parsing.
    pub fn name(&self) -> &'static str {
        match self {
            Command::Simulate(_) => "simulate",
            Command::Lint(_) => "lint",
            Command::Run(_) => "run",
            Command::Allocate(_) => "allocate",
            Command::Fit(_) => "fit",
            Command::Explain(_) => "explain",
            Command::Reproduce(_) => "reproduce",
            Command::Convert(_) => "convert",
            Command::Compare(_) => "compare",
            Command::Sweep(_) => "sweep",
            Command::Help(_) => "help",
            Command::Completions(_) => "completions",
        }
    }
}

/// How the results are reported: shared by `simulate` and `run`.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Print the report as JSON instead of tables
    #[arg(long)]
    pub json: bool,
    /// Add utilization and queue length in N time buckets to the JSON
    ///
    /// Per site and run, N from 1 to 100000.
    #[arg(long, value_name = "N", value_parser = parse_buckets, verbatim_doc_comment)]
    pub series: Option<usize>,
    /// Write the jobs' schedule as CSV (several runs: OUT.<label>.csv)
    ///
    /// Columns job_id,home,site,submit,start,end,procs: one row per job that ran, times in
    /// seconds from the first submit. With several runs, one file per run, the run's label
    /// before the extension.
    #[arg(long, value_name = "OUT.csv", value_hint = ValueHint::FilePath, verbatim_doc_comment)]
    pub jobs: Option<PathBuf>,
    /// The schema of the --jobs files: gridscope or batsim [default: gridscope]
    ///
    /// gridscope: the columns above. batsim: Batsim's jobs.csv (job_id, workload_name,
    /// profile, submission_time, requested_number_of_resources, requested_time, success,
    /// final_state, starting_time, execution_time, finish_time, waiting_time,
    /// turnaround_time, stretch, allocated_resources), which evalys and Batsim tooling read.
    #[arg(long, value_name = "SCHEMA", value_enum, default_value_t = JobsFormat::Gridscope, verbatim_doc_comment)]
    pub jobs_format: JobsFormat,
    /// Runs at once, one per thread [default: the available cores]
    ///
    /// The runs of a comparison (several policies or schemes) are independent; the report is
    /// the same bytes whatever N is. 1 runs them one after another.
    #[arg(long, value_name = "N", value_parser = parse_threads, verbatim_doc_comment)]
    pub threads: Option<usize>,
}

/// The schema of the per-job CSV files (`--jobs-format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum JobsFormat {
    Gridscope,
    Batsim,
}

/// What `convert` writes (`--to`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ConvertTo {
    Swf,
    BatsimJson,
}

fn parse_threads(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if (1..=1024).contains(&n) => Ok(n),
        _ => Err("must be a whole number from 1 to 1024".into()),
    }
}

#[derive(Args, Debug)]
pub struct SimulateArgs {
    /// The trace (plain or gzip): SWF, GWF, Batsim JSON or sacct --parsable2
    #[arg(value_name = "TRACE", value_hint = ValueHint::FilePath)]
    pub trace: String,
    #[command(flatten)]
    pub format: FormatArgs,
    /// fcfs, easy, conservative, sjf, firstfit, conservative-rebuild, a comma list, or all
    /// (the first five)
    ///
    /// `gridscope help policies` describes each.
    #[arg(long, value_name = "POLICY", value_parser = parse_local_policies, verbatim_doc_comment)]
    pub policy: LocalPolicies,
    /// Processors of the machine [default: from the trace]
    ///
    /// By default the header's MaxProcs, else MaxNodes, else the widest job; the output says
    /// which. Jobs wider than the machine are rejected with a reason, never dropped.
    #[arg(long, value_name = "N", value_parser = parse_positive_u32, verbatim_doc_comment)]
    pub procs: Option<u32>,
    /// Run-time estimates: the trace's or the exact runtime
    ///
    /// trace: SWF field 9 (the runtime when missing); exact: the real runtime.
    #[arg(long, value_name = "SOURCE", value_enum, default_value_t = Estimates::Trace, verbatim_doc_comment)]
    pub estimates: Estimates,
    /// Let jobs outlive their estimate (default: killed at it)
    #[arg(long)]
    pub no_kill: bool,
    /// The order of the events of one instant: gridscope, pyss or cqsim
    ///
    /// gridscope (default): every completion, then every arrival, then one scheduling pass.
    /// pyss: jobs ending exactly at their estimate are free first, then each arrival and
    /// each other completion with a pass after it. cqsim: each completion, then each
    /// arrival, with a pass after each. For comparing schedules with those simulators job
    /// for job (docs/local-policies.md).
    #[arg(long, value_name = "ORDER", value_enum, default_value_t = EventOrderArg::Gridscope, verbatim_doc_comment)]
    pub event_order: EventOrderArg,
    #[command(flatten)]
    pub report: ReportArgs,
    /// Fail on the first malformed line instead of counting it
    #[arg(long)]
    pub strict: bool,
    #[command(flatten)]
    pub limits: LimitArgs,
}

#[derive(Args, Debug)]
pub struct ReproduceArgs {
    /// Which paper: sob, sf, scjg, ses, kkor, or all
    #[arg(value_name = "PAPER", default_value = "all")]
    pub paper: String,
    /// Print the card as JSON (every claim: paper value, ours, verdict, tolerance)
    #[arg(long, conflicts_with = "markdown")]
    pub json: bool,
    /// Print the card as Markdown tables, one per paper (what docs/<paper>.md ends with)
    #[arg(long)]
    pub markdown: bool,
    /// Also run the sensitivity sweeps: each parameter a paper leaves open, at a few values,
    /// and how the claim it bears on moves (widest first)
    #[arg(long)]
    pub sensitivity: bool,
    /// Where the real-trace runs find their traces [default: ../shared/traces]
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub traces: Option<PathBuf>,
    /// Runs at once (default: every core); the card is the same whatever it is
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
}

#[derive(Args, Debug)]
pub struct ExplainArgs {
    /// The trace (plain or gzip): SWF, GWF, Batsim JSON or sacct --parsable2
    #[arg(value_name = "TRACE", value_hint = ValueHint::FilePath)]
    pub trace: String,
    #[command(flatten)]
    pub format: FormatArgs,
    /// The local policy the job ran under (one of `gridscope help policies`)
    #[arg(long, value_name = "POLICY")]
    pub policy: LocalPolicyKind,
    /// The job's id (SWF field 1)
    #[arg(long, value_name = "ID", allow_negative_numbers = true)]
    pub job: i64,
    /// Processors of the machine [default: from the trace]
    #[arg(long, value_name = "N", value_parser = parse_positive_u32)]
    pub procs: Option<u32>,
    /// Run-time estimates: the trace's or the exact runtime
    #[arg(long, value_name = "SOURCE", value_enum, default_value_t = Estimates::Trace)]
    pub estimates: Estimates,
    /// Let jobs outlive their estimate (default: killed at it)
    #[arg(long)]
    pub no_kill: bool,
    /// The order of the events of one instant: gridscope, pyss or cqsim
    #[arg(long, value_name = "ORDER", value_enum, default_value_t = EventOrderArg::Gridscope)]
    pub event_order: EventOrderArg,
    /// Print the explanation as JSON
    #[arg(long)]
    pub json: bool,
    /// Fail on the first malformed line instead of counting it
    #[arg(long)]
    pub strict: bool,
    #[command(flatten)]
    pub limits: LimitArgs,
}

#[derive(Args, Debug)]
pub struct ConvertArgs {
    /// The trace (plain or gzip): SWF, GWF, Batsim JSON or sacct --parsable2
    #[arg(value_name = "TRACE", value_hint = ValueHint::FilePath)]
    pub trace: String,
    #[command(flatten)]
    pub format: FormatArgs,
    /// What to write: swf or batsim-json
    ///
    /// swf: the 18 SWF fields of every accepted job (the header keeps what the import
    /// learnt: UnixStartTime, MaxProcs). batsim-json: {"nb_res", "jobs", "profiles"} with one
    /// delay profile per distinct runtime; nb_res from --nb-res, else MaxProcs, else the
    /// widest job.
    #[arg(long, value_name = "FORMAT", value_enum, verbatim_doc_comment)]
    pub to: ConvertTo,
    /// The output file (never one of the inputs)
    #[arg(long, value_name = "OUT", value_hint = ValueHint::FilePath)]
    pub out: PathBuf,
    /// Batsim JSON: the platform's size (nb_res)
    #[arg(long, value_name = "N")]
    pub nb_res: Option<u64>,
    /// Fail on the first malformed line instead of counting it
    #[arg(long)]
    pub strict: bool,
    #[command(flatten)]
    pub limits: LimitArgs,
}

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// Run A's per-job CSV (`--jobs`), or several runs of A (one per seed) comma-separated
    #[arg(value_name = "A.csv")]
    pub a: String,
    /// Run B's per-job CSV, or as many runs as A (seed for seed) comma-separated
    #[arg(value_name = "B.csv")]
    pub b: String,
    /// Jobs listed among the top gainers and losers [default: 10]
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub top: usize,
    /// Bootstrap resamples of the paired test [default: 10000]
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub resamples: u32,
    /// The bootstrap's seed (the test is deterministic for a given seed) [default: 1]
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// Print the comparison as JSON
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub limits: LimitArgs,
}

#[derive(Args, Debug)]
pub struct LintArgs {
    /// The trace (plain or gzip): SWF, GWF, Batsim JSON or sacct --parsable2
    #[arg(value_name = "TRACE", value_hint = ValueHint::FilePath)]
    pub trace: String,
    #[command(flatten)]
    pub format: FormatArgs,
    /// Print the report as JSON
    #[arg(long)]
    pub json: bool,
    /// Fail on the first malformed line instead of counting it
    #[arg(long)]
    pub strict: bool,
    #[command(flatten)]
    pub limits: LimitArgs,
}

#[derive(Args, Debug)]
#[command(group(ArgGroup::new("source").required(true).args(["scenario", "preset"])))]
pub struct RunArgs {
    /// A scenario file (JSON); its workload files are relative to it
    #[arg(value_name = "SCENARIO.json", value_hint = ValueHint::FilePath)]
    pub scenario: Option<String>,
    /// A preset instead of a file (see `gridscope help presets`)
    ///
    /// Scenarios: demo, sob-synthetic-heavy, sob-synthetic-light, sob-table6-heavy,
    /// sob-table6-light, sob-real-3site, sob-real-3site-5m, sob-local-policies. Sweeps (with
    /// the sweep options below): sf-heterogeneity, sf-size, sf-batch, sf-cv, sf-hybrid. SES
    /// node groups (with --seeds, --load = a factor on SES's arrival rate, and --x = shares of
    /// ≥ 4-CPU jobs for the crossover): ses-selection, ses-restriction-crossover. KKOR (with
    /// --seeds; kkor-real reads its traces from --traces): kkor-load, kkor-fairness, kkor-real.
    /// SCJG advance reservations (with --seeds, --x = metajob percentages; SDSC-SP2 read from
    /// --traces): scjg-fraction, scjg-ar-vs-lockdown, scjg-sites, scjg-livelock.
    #[arg(long, value_name = "NAME", verbatim_doc_comment)]
    pub preset: Option<String>,
    /// The scenario's random seed (synthetic workloads)
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// The idealized scheme's discipline: processor_sharing, srpt or fcfs
    ///
    /// SOB §2.3 gives the machine, not the order it serves the jobs in: processor sharing
    /// (the default; no job waits), SRPT (the lower bound on mean response) or FCFS.
    /// Applies to every ideal run of the scenario.
    #[arg(long, value_name = "D", value_parser = parse_discipline, verbatim_doc_comment)]
    pub ideal_discipline: Option<gridscope::policy::grid::IdealDiscipline>,
    /// Receiver- and symmetrically-initiated runs: a job waiting for a volunteer waits in its
    /// home local queue (and may start there) instead of the grid queue
    ///
    /// The other reading of SOB §2.1.2 (docs/sob.md); the default holds it in the grid queue.
    /// Applies to every receiver and symmetric run of the scenario.
    #[arg(long, verbatim_doc_comment)]
    pub hold_at_home: bool,
    /// The order of the events of one instant, for every run: gridscope, pyss or cqsim
    ///
    /// Overrides the scenario's options.event_order (see `simulate --help`).
    #[arg(long, value_name = "ORDER", value_enum, verbatim_doc_comment)]
    pub event_order: Option<EventOrderArg>,
    #[command(flatten)]
    pub report: ReportArgs,
    /// Where the real-trace presets find their traces [default: ../shared/traces]
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub traces: Option<PathBuf>,
    #[command(flatten)]
    pub sweep: SweepArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// The SF sweep parameters: any of them changes the preset's sweep (labelled `custom`).
#[derive(Args, Debug)]
#[command(next_help_heading = "Sweep options (--preset sf-*; see `gridscope help sweeps`)")]
pub struct SweepArgs {
    /// Seeds per point (median and band over them) [default: 10]
    #[arg(long, value_name = "N")]
    pub seeds: Option<u64>,
    /// Batches per run, the first third warm-up [default: 20000]
    #[arg(long, value_name = "B")]
    pub batches: Option<u64>,
    /// The x axis: last_rate, size, batch_size, arrival_cv, degraded_rate or dll_report
    #[arg(long, value_name = "AXIS", value_parser = parse_vary)]
    pub vary: Option<Vary>,
    /// The x values, comma-separated (e.g. 1,2,5)
    #[arg(long, value_name = "X1,X2,..", allow_hyphen_values = true, value_parser = parse_x)]
    pub x: Option<Numbers>,
    /// Service rates μ_i in jobs per second, comma-separated (e.g. 1,1,10)
    #[arg(long, value_name = "R1,R2,..", allow_hyphen_values = true, value_parser = parse_rates)]
    pub rates: Option<Numbers>,
    /// Batches per second λ (the system must not saturate: λ·k < Σμ)
    #[arg(long, value_name = "L", allow_negative_numbers = true)]
    pub lambda: Option<f64>,
    /// Instead of --lambda: the load ρ = λ·k / Σμ, held as rates or k change
    #[arg(long, value_name = "U", allow_negative_numbers = true)]
    pub load: Option<f64>,
    /// Jobs per batch (k)
    #[arg(long, value_name = "K")]
    pub batch_size: Option<u32>,
    /// Coefficient of variation of the inter-arrival times
    #[arg(long, value_name = "C", allow_negative_numbers = true)]
    pub cv: Option<f64>,
    /// Policies compared: ww, owa, dll, hybrid (gap: 2nd over 1st)
    #[arg(long, value_name = "P1,P2,..", value_parser = parse_allocation_policies)]
    pub policies: Option<AllocationPolicies>,
    /// How a batch's jobs are dealt out: random or rounded
    #[arg(long, value_name = "MODE", value_parser = parse_dispatch)]
    pub dispatch: Option<Dispatch>,
    /// DLL's load-report interval Δ in seconds (0: exact, instant queue lengths)
    ///
    /// Resources report their queue lengths every Δ; between reports DLL sees the last report
    /// plus the jobs it sent since. `--vary dll_report` sweeps Δ instead.
    #[arg(long, value_name = "S", verbatim_doc_comment)]
    pub dll_report: Option<f64>,
    /// SES presets: one FCFS queue for the whole site instead of SES's queue per group
    #[arg(long)]
    pub site_queue: bool,
    /// KKOR presets: cooperation coefficients c_k per organization (kkor-load's decentralized)
    #[arg(long, value_name = "C1,C2,C3", value_parser = parse_x)]
    pub coefficients: Option<Numbers>,
    /// KKOR presets: S, the jobs that close a batch [default: 20]
    #[arg(long, value_name = "S")]
    pub batch_jobs: Option<u32>,
    /// KKOR presets: L, the time units that close a batch [default: 10]
    #[arg(long, value_name = "L")]
    pub batch_length: Option<f64>,
}

#[derive(Args, Debug)]
pub struct AllocateArgs {
    /// owa (OWA-batch, SF eq. 9) or ww (weighted by rate)
    #[arg(long, value_name = "POLICY", value_parser = parse_static_policy, default_value = "owa")]
    pub policy: StaticPolicy,
    /// Service rates in jobs per second, comma-separated (required, e.g. 1,1,1,16)
    #[arg(long, value_name = "R1,R2,..", allow_hyphen_values = true, value_parser = parse_rates)]
    pub rates: Option<Numbers>,
    /// Batches per second (required)
    #[arg(long, value_name = "L", allow_negative_numbers = true)]
    pub lambda: Option<f64>,
    /// Jobs per batch (k)
    #[arg(long, value_name = "K", default_value_t = 1)]
    pub batch_size: u32,
    /// Print the fractions as JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct FitArgs {
    /// The trace (plain or gzip): SWF, GWF, Batsim JSON or sacct --parsable2
    #[arg(value_name = "TRACE", value_hint = ValueHint::FilePath)]
    pub trace: String,
    #[command(flatten)]
    pub format: FormatArgs,
    /// The machine's CPUs per node: size classes are multiples of it (SOB §3.1)
    #[arg(long, value_name = "C", value_parser = parse_positive_u32)]
    pub cpus_per_node: u32,
    /// The synthetic workload's seed [default: the app's, 1]
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// How each distribution is fitted: moments (SOB §3.1, the paper's: the first three
    /// moments matched exactly) or max_likelihood (EM over the same hyper-Erlang family:
    /// follows the bulk of the samples; see the goodness of fit) [default: moments]
    #[arg(long, value_name = "METHOD", value_parser = FitMethod::parse)]
    pub method: Option<FitMethod>,
    /// Write the synthetic workload drawn from the fit as SWF
    #[arg(long, value_name = "SYNTH.swf", value_hint = ValueHint::FilePath)]
    pub out: Option<PathBuf>,
    /// Print the fit as JSON
    #[arg(long)]
    pub json: bool,
    /// Fail on the first malformed line instead of counting it
    #[arg(long)]
    pub strict: bool,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// How a TRACE is read: its format (told by the content unless given) and the time zone
/// of timestamps that carry none (issue #29).
#[derive(Args, Debug, Default, Clone)]
pub struct FormatArgs {
    /// The trace's format: auto, swf, gwf, batsim-json or sacct [default: auto]
    ///
    /// auto tells them apart by the content: `{` first is Batsim JSON, `|`-separated lines
    /// are sacct --parsable2, 29 fields or a `#` header naming OrigSiteID is GWF, anything
    /// else SWF. docs/formats.md has what each field becomes.
    #[arg(long, value_name = "FORMAT", value_parser = parse_trace_format, verbatim_doc_comment)]
    pub format: Option<TraceFormat>,
    /// The zone of sacct timestamps without one, as ±HH:MM east of UTC [default: UTC]
    ///
    /// sacct prints the cluster's local time with no zone; the import report says which
    /// zone they were read in.
    #[arg(long, value_name = "±HH:MM", allow_hyphen_values = true, value_parser = parse_utc_offset, verbatim_doc_comment)]
    pub utc_offset: Option<i32>,
}

impl FormatArgs {
    pub fn trace_options(&self) -> TraceOptions {
        TraceOptions {
            format: self.format.unwrap_or_default(),
            utc_offset_min: self.utc_offset.unwrap_or(0),
        }
    }
}

fn parse_trace_format(s: &str) -> Result<TraceFormat, String> {
    s.parse()
}

/// `+01:00`, `-0530`, `2` (hours) → minutes east of UTC, within ±18 hours.
pub fn parse_utc_offset(s: &str) -> Result<i32, String> {
    let t = s.trim();
    let (sign, rest) = match t.as_bytes().first() {
        Some(b'-') => (-1, &t[1..]),
        Some(b'+') => (1, &t[1..]),
        _ => (1, t),
    };
    let digits: String = rest.chars().filter(|&c| c != ':').collect();
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err("must be ±HH:MM east of UTC, e.g. +01:00 or -05:00".to_string());
    }
    let ok = |h: i32, m: i32| {
        (h <= 18 && m < 60 && h * 60 + m <= 18 * 60).then_some(sign * (h * 60 + m))
    };
    let parsed = match digits.len() {
        1 | 2 => digits.parse().ok().and_then(|h| ok(h, 0)),
        4 => match (digits[..2].parse(), digits[2..].parse()) {
            (Ok(h), Ok(m)) => ok(h, m),
            _ => None,
        },
        _ => None,
    };
    parsed.ok_or_else(|| "must be ±HH:MM east of UTC, e.g. +01:00 or -05:00".to_string())
}

/// The resource limits (`gridscope help limits`): each flag raises or lowers one.
#[derive(Args, Debug, Default)]
#[command(
    next_help_heading = "Limits (guards against runaway inputs; see `gridscope help limits`)"
)]
pub struct LimitArgs {
    /// Bytes read from one input file, as stored [default: 1 GiB]
    #[arg(long, value_name = "N", value_parser = parse_limit)]
    pub max_file_bytes: Option<u64>,
    /// Bytes of text one gzip file may inflate to [default: 4 GiB]
    #[arg(long, value_name = "N", value_parser = parse_limit)]
    pub max_inflated_bytes: Option<u64>,
    /// Bytes in one SWF line; longer lines are malformed [default: 1 MiB]
    #[arg(long, value_name = "N", value_parser = parse_limit)]
    pub max_line_bytes: Option<u64>,
    /// Job records in one workload [default: 10,000,000]
    #[arg(long, value_name = "N", value_parser = parse_limit)]
    pub max_jobs: Option<u64>,
    /// Sites of a platform [default: 4096]
    #[arg(long, value_name = "N", value_parser = parse_limit)]
    pub max_sites: Option<u64>,
    /// Jobs an SF sweep simulates in all [default: 1,000,000,000]
    #[arg(long, value_name = "N", value_parser = parse_limit)]
    pub max_sweep_jobs: Option<u64>,
    /// Time-series points a report holds (--series N × sites × runs) [default: 4,000,000]
    #[arg(long, value_name = "N", value_parser = parse_limit)]
    pub max_series_points: Option<u64>,
    /// Exponential draws a hyper-Erlang workload takes (jobs × orders) [default: 1,000,000,000]
    #[arg(long, value_name = "N", value_parser = parse_limit)]
    pub max_generator_draws: Option<u64>,
    /// Steps of plan work conservative backfilling may spend in one run [default: 2·10¹¹]
    #[arg(long, value_name = "N", value_parser = parse_limit)]
    pub max_plan_work: Option<u64>,
    /// Read scenario workload files outside the scenario's folder
    ///
    /// By default a scenario may name files only in its own folder or below it (a shared
    /// scenario cannot read ../../etc/passwd).
    #[arg(long, verbatim_doc_comment)]
    pub allow_any_path: bool,
}

impl LimitArgs {
    /// The defaults with every given flag applied.
    pub fn limits(&self) -> gridscope::limits::Limits {
        use gridscope::limits::Limit;
        let mut l = gridscope::limits::Limits::default();
        for (limit, v) in [
            (Limit::FileBytes, self.max_file_bytes),
            (Limit::InflatedBytes, self.max_inflated_bytes),
            (Limit::LineBytes, self.max_line_bytes),
            (Limit::Jobs, self.max_jobs),
            (Limit::Sites, self.max_sites),
            (Limit::SweepJobs, self.max_sweep_jobs),
            (Limit::SeriesPoints, self.max_series_points),
            (Limit::GeneratorDraws, self.max_generator_draws),
            (Limit::PlanWork, self.max_plan_work),
        ] {
            if let Some(v) = v {
                l.set(limit, v);
            }
        }
        l
    }
}

fn parse_discipline(s: &str) -> Result<gridscope::policy::grid::IdealDiscipline, String> {
    use gridscope::policy::grid::IdealDiscipline;
    IdealDiscipline::ALL
        .iter()
        .copied()
        .find(|d| d.name() == s.trim())
        .ok_or_else(|| "expected processor_sharing, srpt or fcfs".into())
}

/// A limit: a positive whole number, with an optional K, M, G (powers of 1024 for bytes
/// read the same: 1K = 1024) suffix.
fn parse_limit(s: &str) -> Result<u64, String> {
    let t = s.trim().replace(['_', ','], "");
    let (digits, scale) = match t.chars().last() {
        Some('k' | 'K') => (&t[..t.len() - 1], 1u64 << 10),
        Some('m' | 'M') => (&t[..t.len() - 1], 1 << 20),
        Some('g' | 'G') => (&t[..t.len() - 1], 1 << 30),
        _ => (&t[..], 1),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .filter(|&n| n > 0)
        .ok_or_else(|| "must be a positive whole number, optionally with K, M or G (×1024)".into())
}

/// `gridscope sweep`: its actions.
#[derive(Args, Debug)]
pub struct SweepArgsCmd {
    #[command(subcommand)]
    pub action: SweepAction,
}

#[derive(Subcommand, Debug)]
pub enum SweepAction {
    /// Expand MANIFEST into cases (stable ids) in DIR, lock the traces, count the work
    Plan(PlanArgs),
    /// Run a shard's cases on the local cores; skips cases done, reruns corrupt results
    Run(ShardRunArgs),
    /// Cases done, running, failed and missing per shard
    Status(StatusArgs),
    /// Every case's metrics (DIR/merged/cases.csv) and medians with CIs (points.csv, merged.json)
    Merge(MergeArgs),
    /// Write (and with --submit, submit) a Slurm array job and a merge job chained after it
    Slurm(SlurmArgs),
}

#[derive(Args, Debug)]
pub struct PlanArgs {
    /// The sweep manifest (JSON; docs/cluster.md)
    #[arg(value_name = "MANIFEST.json", value_hint = ValueHint::FilePath)]
    pub manifest: String,
    /// The sweep folder to write (on a cluster: on the shared file system)
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub out: PathBuf,
    /// Refuse manifests of more cases than this
    #[arg(long, value_name = "N", default_value_t = 100_000, value_parser = parse_max_cases)]
    pub max_cases: usize,
    #[command(flatten)]
    pub limits: LimitArgs,
}

#[derive(Args, Debug)]
pub struct ShardRunArgs {
    /// The sweep folder (written by `gridscope sweep plan`)
    #[arg(value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub dir: PathBuf,
    /// This process's share: I/N (0-based), or slurm (I = SLURM_ARRAY_TASK_ID)
    #[arg(long, value_name = "I/N|slurm")]
    pub shard: crate::cluster::shard::ShardSpec,
    /// With --shard slurm: N, the array's size [default: SLURM_ARRAY_TASK_COUNT]
    #[arg(long, value_name = "N", value_parser = parse_max_cases)]
    pub of: Option<usize>,
    /// Cases at once [default: SLURM_CPUS_PER_TASK, else the available cores]
    #[arg(long, value_name = "N", value_parser = parse_threads)]
    pub threads: Option<usize>,
    #[command(flatten)]
    pub limits: LimitArgs,
}

#[derive(Args, Debug)]
pub struct StatusArgs {
    /// The sweep folder
    #[arg(value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub dir: PathBuf,
    /// Count shards of N [default: the --tasks of `sweep slurm`, else 1]
    #[arg(long, value_name = "N", value_parser = parse_max_cases)]
    pub of: Option<usize>,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The sweep folder
    #[arg(value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub dir: PathBuf,
}

#[derive(Args, Debug)]
pub struct SlurmArgs {
    /// The sweep folder (on a file system the compute nodes share)
    #[arg(value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub dir: PathBuf,
    /// Array tasks: task i runs shard i of N
    #[arg(long, value_name = "N", value_parser = parse_max_cases)]
    pub tasks: usize,
    /// Slurm partition
    #[arg(long, value_name = "P")]
    pub partition: Option<String>,
    /// Time limit per task (Slurm's format, e.g. 1:00:00)
    #[arg(long, value_name = "T")]
    pub time: Option<String>,
    /// CPUs per task (its cases run on as many threads)
    #[arg(long, value_name = "C", default_value_t = 1, value_parser = parse_threads)]
    pub cpus_per_task: usize,
    /// At most M tasks at once (--array=0-(N-1)%M)
    #[arg(long, value_name = "M", value_parser = parse_max_cases)]
    pub max_parallel: Option<usize>,
    /// Slurm account
    #[arg(long, value_name = "A")]
    pub account: Option<String>,
    /// Submit both jobs (sbatch --parsable) and print their ids
    #[arg(long)]
    pub submit: bool,
}

fn parse_max_cases(s: &str) -> Result<usize, String> {
    match s.trim().replace('_', "").parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err("must be a positive whole number".into()),
    }
}

#[derive(Args, Debug)]
pub struct HelpArgs {
    /// metrics, policies, schemes, platforms, presets, sweeps, limits, or a command
    #[arg(value_name = "TOPIC", value_parser = help_topics())]
    pub topic: Option<String>,
}

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventOrderArg {
    Gridscope,
    Pyss,
    Cqsim,
}

impl From<EventOrderArg> for gridscope::engine::EventOrder {
    fn from(a: EventOrderArg) -> Self {
        match a {
            EventOrderArg::Gridscope => Self::Gridscope,
            EventOrderArg::Pyss => Self::Pyss,
            EventOrderArg::Cqsim => Self::Cqsim,
        }
    }
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Estimates {
    Trace,
    Exact,
}

/// `--policy` of `simulate`: one or more local policies.
#[derive(Clone, Debug)]
pub struct LocalPolicies(pub Vec<LocalPolicyKind>);

/// A comma-separated list of numbers.
#[derive(Clone, Debug)]
pub struct Numbers(pub Vec<f64>);

/// `--policies` of a sweep.
#[derive(Clone, Debug)]
pub struct AllocationPolicies(pub Vec<AllocationPolicy>);

/// `--policy` of `allocate`: the static allocations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StaticPolicy {
    Owa,
    Ww,
}

fn help_topics() -> clap::builder::PossibleValuesParser {
    let commands = [
        "simulate",
        "lint",
        "run",
        "allocate",
        "fit",
        "convert",
        "compare",
        "sweep",
        "completions",
    ];
    clap::builder::PossibleValuesParser::new(TOPICS.into_iter().chain(commands))
}

fn parse_local_policies(s: &str) -> Result<LocalPolicies, String> {
    if s == "all" {
        return Ok(LocalPolicies(LocalPolicyKind::ALL.to_vec()));
    }
    s.split(',')
        .map(str::parse)
        .collect::<Result<_, _>>()
        .map(LocalPolicies)
}

fn parse_positive_u32(s: &str) -> Result<u32, String> {
    match s.parse::<u32>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err("must be a positive integer".into()),
    }
}

fn parse_buckets(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(b) if (1..=100_000).contains(&b) => Ok(b),
        _ => Err("must be a number of buckets from 1 to 100000".into()),
    }
}

fn parse_vary(s: &str) -> Result<Vary, String> {
    Vary::parse(s)
}

fn parse_x(s: &str) -> Result<Numbers, String> {
    parse_numbers("--x", s).map(Numbers)
}

fn parse_rates(s: &str) -> Result<Numbers, String> {
    parse_numbers("--rates", s).map(Numbers)
}

fn parse_allocation_policies(s: &str) -> Result<AllocationPolicies, String> {
    parse_policies(s).map(AllocationPolicies)
}

fn parse_dispatch(s: &str) -> Result<Dispatch, String> {
    match s {
        "random" => Ok(Dispatch::Random),
        "rounded" => Ok(Dispatch::Rounded),
        _ => Err("must be random or rounded".into()),
    }
}

fn parse_static_policy(s: &str) -> Result<StaticPolicy, String> {
    match s {
        "owa" => Ok(StaticPolicy::Owa),
        "ww" => Ok(StaticPolicy::Ww),
        _ => Err("must be owa or ww (dll and hybrid are dynamic: see run --preset sf-*)".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }
}
