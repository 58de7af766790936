//! `gridscope help [TOPIC]`: the reference tables (metrics, policies, schemes, platforms,
//! presets, sweeps), a command's help, or the overview.

use std::fmt::Write;
use std::io::IsTerminal;

use clap::CommandFactory;
use gridscope::allocation::sweep::{SWEEP_PARAM_HELP, SWEEP_PRESETS};
use gridscope::metrics::METRIC_HELP;
use gridscope::policy::grid::GridScheme;
use gridscope::policy::local::LocalPolicyKind;
use gridscope::scenario::{PLATFORM_PRESETS, SCENARIO_PRESETS};

use crate::cli::Cli;
use crate::{output, CliError};

pub fn help(topic: Option<&str>) -> Result<(), CliError> {
    let mut s = String::new();
    match topic {
        Some("metrics") => metrics(&mut s),
        Some("policies") => {
            for k in LocalPolicyKind::ALL {
                let _ = writeln!(s, "{:<13} {}", k.name(), k.describe());
            }
        }
        Some("presets") => {
            for (n, d) in SCENARIO_PRESETS {
                let _ = writeln!(s, "{n:<22} {d}");
            }
            for p in SWEEP_PRESETS {
                let _ = writeln!(s, "{:<22} {}", p.name, p.description);
            }
            for (n, d) in gridscope::scenario::ses::SES_PRESETS {
                let _ = writeln!(s, "{n:<22} {d}");
            }
            for (n, d) in gridscope::kkor::presets::KKOR_PRESETS {
                let _ = writeln!(s, "{n:<22} {d}");
            }
            for (n, d) in gridscope::scjg::presets::SCJG_PRESETS {
                let _ = writeln!(s, "{n:<22} {d}");
            }
        }
        Some("sweeps") => {
            for (k, v) in SWEEP_PARAM_HELP {
                let _ = writeln!(s, "{k:<11} {v}");
            }
        }
        Some("schemes") => {
            for g in GridScheme::ALL {
                let _ = writeln!(s, "{:<10} {}", g.name(), g.describe());
            }
        }
        Some("platforms") => {
            for (n, d) in PLATFORM_PRESETS {
                let _ = writeln!(s, "{n:<12} {d}");
            }
        }
        // A command: its own `--help`; none: the overview.
        Some(command) => return command_help(Some(command)),
        None => return command_help(None),
    }
    s.push('\n');
    output::stdout(&s)
}

fn metrics(s: &mut String) {
    for m in METRIC_HELP {
        let _ = write!(s, "{:<22} {}", m.key, m.formula);
        if !m.source.is_empty() {
            let _ = write!(s, " [{}]", m.source);
        }
        s.push('\n');
    }
}

fn command_help(command: Option<&str>) -> Result<(), CliError> {
    let mut cmd = Cli::command();
    cmd.build();
    let help = match command.and_then(|c| cmd.find_subcommand_mut(c)) {
        Some(sub) => sub.render_long_help(),
        None => cmd.render_long_help(),
    };
    // Styled like clap's own `--help` on a terminal, plain text otherwise.
    if std::io::stdout().is_terminal() {
        output::stdout(&help.ansi().to_string())
    } else {
        output::stdout(&help.to_string())
    }
}
