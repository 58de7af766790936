//! The `gridscope` command line: the engine's native edge. It reads files, prints results
//! and turns every error into a message on stderr and an exit code: 0 success, 1 bad input
//! or a failed run (or results that could not be written), 2 a bad command line.

#![deny(clippy::too_many_lines)]

mod allocate;
mod cli;
mod cluster;
mod compare;
mod convert;
mod error;
mod explain;
mod family;
mod fit;
mod io;
mod output;
mod progress;
mod report;
mod reproduce;
mod run;
mod topics;

use std::io::{ErrorKind, Write};
use std::process::ExitCode;

use clap::{CommandFactory, Parser};
use cli::{Cli, Command};
pub use error::CliError;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return clap_exit(&e),
    };
    match dispatch(&cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.is_usage() => clap_exit(&usage_error(cli.command.name(), &e.to_string())),
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

fn dispatch(command: &Command) -> Result<(), CliError> {
    match command {
        Command::Simulate(a) => run::simulate(a),
        Command::Explain(a) => explain::explain(a),
        Command::Reproduce(a) => reproduce::reproduce(a),
        Command::Convert(a) => convert::convert(a),
        Command::Compare(a) => compare::compare(a),
        Command::Lint(a) => run::lint(a),
        Command::Run(a) => run::run(a),
        Command::Allocate(a) => allocate::allocate(a),
        Command::Fit(a) => fit::fit(a),
        Command::Sweep(a) => cluster::dispatch(&a.action),
        Command::Help(a) => topics::help(a.topic.as_deref()),
        Command::Completions(a) => {
            let mut script = vec![];
            clap_complete::generate(a.shell, &mut Cli::command(), "gridscope", &mut script);
            output::stdout(&String::from_utf8_lossy(&script))
        }
    }
}

/// A usage error found after parsing, shaped like clap's own: the message, the
/// subcommand's usage line, a pointer to `--help`.
fn usage_error(subcommand: &str, message: &str) -> clap::Error {
    let mut cmd = Cli::command();
    cmd.build();
    let mut usage = cmd.find_subcommand(subcommand).cloned().unwrap_or(cmd);
    usage.error(clap::error::ErrorKind::ArgumentConflict, message)
}

/// Prints a clap error, help or version and exits with clap's code (2 for a bad command
/// line, 0 for `--help` and `--version`). A closed pipe is no failure; help that cannot be
/// written anywhere else (a full disk) is.
fn clap_exit(e: &clap::Error) -> ExitCode {
    match e.print() {
        Err(err) if err.kind() != ErrorKind::BrokenPipe && e.exit_code() == 0 => {
            let _ = writeln!(std::io::stderr(), "error: cannot write to stdout: {err}");
            ExitCode::from(1)
        }
        _ => ExitCode::from(e.exit_code().clamp(0, 255) as u8),
    }
}
