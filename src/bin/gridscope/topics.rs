//! `gridscope help [TOPIC]`: the reference tables (metrics, policies, schemes, platforms,
//! presets, sweeps, limits), a command's help, or the overview.

use std::fmt::Write;
use std::io::IsTerminal;

use clap::CommandFactory;
use gridscope::allocation::sweep::SWEEP_PARAM_HELP;
use gridscope::metrics::METRIC_HELP;
use gridscope::policy::grid::GridScheme;
use gridscope::policy::local::LocalPolicyKind;
use gridscope::scenario::PLATFORM_PRESETS;

use crate::cli::Cli;
use crate::{output, CliError};

pub fn help(topic: Option<&str>) -> Result<(), CliError> {
    let mut s = String::new();
    match topic {
        Some("metrics") => metrics(&mut s),
        Some("policies") => {
            let slurm = LocalPolicyKind::Slurm;
            for k in LocalPolicyKind::EVERY.into_iter().chain([slurm]) {
                let _ = writeln!(s, "{:<21} {}", k.name(), k.describe());
            }
            let _ = writeln!(
                s,
                "\n`all` runs the first five. Scenario files and share links of version 1 that say \
                 `conservative` run conservative-rebuild (docs/local-policies.md)."
            );
        }
        Some("presets") => {
            for family in gridscope::family::FAMILIES {
                for (n, d) in family.presets() {
                    let _ = writeln!(s, "{n:<22} {d}");
                }
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
        Some("limits") => limits(&mut s),
        Some("workloads") => s.push_str(WORKLOADS),
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

/// Each limit with its flag, default, what it bounds and the largest real input.
/// The scenario file's workload kinds (`"workload": {"kind": …}`).
const WORKLOADS: &str = "\
swf             one SWF file, plain or gzip: {\"kind\":\"swf\",\"file\":…,\"strict\":false}
swf_sites       one SWF file per site, aligned by UnixStartTime (SOB's real runs)
swf_partitions  one SWF file split into one site per partition (field 16)
ses_poisson     SES (Sessini 2005): Poisson arrivals, exponential runtimes, Table A3 sizes
hyper_erlang    SOB §4.2: one fitted hyper-Erlang generator per site (the sob-synthetic presets)
lublin          Lublin & Feitelson, JPDC 63(11), 2003: two-stage log-uniform sizes, hyper-gamma
                ln runtimes correlated with size, gamma gaps through a daily cycle; the paper's
                parameters. Fields: jobs (10000), nodes (128), job_types (false = whole
                sample), load_factor (1), estimate_factor (1), start_hour (0).
                docs/workload-models.md has the equations and the parameter table.";

fn limits(s: &mut String) {
    use gridscope::limits::{group_thousands, Limit, Limits};
    let d = Limits::default();
    let _ = writeln!(
        s,
        "{:<22} {:>15}  {:<30} what it bounds",
        "flag", "default", "largest real input"
    );
    for l in Limit::ALL {
        let _ = writeln!(
            s,
            "{:<22} {:>15}  {:<30} {}",
            l.flag(),
            group_thousands(d.get(l)),
            l.largest_real(),
            l.what()
        );
    }
    let _ = write!(
        s,
        "\nPassing a limit is an error that names it (exit 1), never a silent cut. The flags take \
         K, M, G suffixes (×1024). Scenario workload files must lie in the scenario's folder \
         unless --allow-any-path. The page uses the defaults and asks before a shared link \
         starts a run above its cost estimate."
    );
}

fn metrics(s: &mut String) {
    let energy = gridscope::scenario::energy::ENERGY_HELP;
    let vs_log = gridscope::metrics::vs_log::VS_LOG_HELP;
    let resources = gridscope::metrics::resources::RESOURCE_HELP;
    for m in METRIC_HELP
        .iter()
        .chain(resources)
        .chain(energy)
        .chain(vs_log)
    {
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
