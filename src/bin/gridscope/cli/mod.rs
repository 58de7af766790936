//! The command line as clap sees it: every subcommand, flag and value parser. Values are
//! checked here when they are read, so a bad one is a usage error (exit 2) that names the
//! flag and the value; what can only be checked later (a flag that does not apply to this
//! kind of run, `--lambda` with `--load`) is checked by the commands.
//!
//! One file per group of commands: `common.rs` the arguments and parsers several share,
//! `simulate.rs` the one-shot commands', `family.rs` `run`'s and `allocate`'s,
//! `cluster.rs` `sweep`'s.

mod cluster;
mod common;
mod family;
mod simulate;

use clap::{Args, Parser, Subcommand};

pub use cluster::{
    MergeArgs, PlanArgs, Shard, ShardRunArgs, ShardSpec, SlurmArgs, StatusArgs, SweepAction,
    SweepArgsCmd,
};
pub use common::{Estimates, EventOrderArg, FormatArgs, JobsFormat, ReportArgs};
pub use family::{AllocateArgs, RunArgs, StaticPolicy, SweepArgs};
pub use simulate::{
    CompareArgs, ConvertArgs, ConvertTo, ExplainArgs, FitArgs, LintArgs, ReproduceArgs,
    SimulateArgs, SlurmPolicyArgs,
};

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
    Simulate(Box<SimulateArgs>),
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

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }
}
