//! The arguments of `run` (a scenario file or a preset, and the options of the family
//! presets: SF's sweeps, SES, KKOR, SCJG) and of `allocate` (SF's static split).

use std::path::PathBuf;

use clap::{ArgGroup, Args, ValueHint};
use gridscope::allocation::sweep::{parse_numbers, parse_policies, Vary};
use gridscope::allocation::{AllocationPolicy, Dispatch};

use super::common::{EventOrderArg, LimitArgs, ReportArgs};

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

fn parse_discipline(s: &str) -> Result<gridscope::policy::grid::IdealDiscipline, String> {
    use gridscope::policy::grid::IdealDiscipline;
    IdealDiscipline::ALL
        .iter()
        .copied()
        .find(|d| d.name() == s.trim())
        .ok_or_else(|| "expected processor_sharing, srpt or fcfs".into())
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
