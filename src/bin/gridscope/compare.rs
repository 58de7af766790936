//! `compare A.csv B.csv`: per-job A/B of two runs' `--jobs` files (or Batsim jobs.csv), and
//! over seeds (comma-separated lists, pair by pair) a paired test (`metrics::compare`).

use std::path::Path;

use gridscope::metrics::compare::{compare as compare_runs, parse_jobs_csv, JobWaits};

use crate::cli::CompareArgs;
use crate::io::read_file;
use crate::{output, report, CliError};

pub fn compare(a: &CompareArgs) -> Result<(), CliError> {
    let limits = a.limits.limits();
    let list = |s: &str| -> Vec<String> {
        s.split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(String::from)
            .collect()
    };
    let (fa, fb) = (list(&a.a), list(&a.b));
    if fa.len() != fb.len() || fa.is_empty() {
        return Err(CliError::Usage(format!(
            "A and B need as many runs each (one per seed, paired in order): A has {}, B has {}",
            fa.len(),
            fb.len()
        )));
    }
    let read = |p: &String| -> Result<JobWaits, CliError> {
        let bytes = read_file(Path::new(p), &limits)?;
        parse_jobs_csv(p, &bytes).map_err(CliError::Failed)
    };
    let runs = fa
        .iter()
        .zip(&fb)
        .map(|(x, y)| Ok((read(x)?, read(y)?)))
        .collect::<Result<Vec<_>, CliError>>()?;
    let c = compare_runs(&runs, a.top, a.resamples, a.seed).map_err(CliError::Failed)?;
    if a.json {
        output::stdout(&format!("{}\n", report::json(&c)))
    } else {
        output::stdout(&c.text())
    }
}
