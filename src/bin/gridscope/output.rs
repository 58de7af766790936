//! Where results go: stdout and result files.

use std::io::Write;
use std::path::Path;

use crate::CliError;

/// Writes the results to stdout, ignoring a closed pipe (`gridscope ... | head` must not panic).
pub fn stdout(text: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    Ok(())
}

/// Writes a result file.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    std::fs::write(path, bytes)
        .map_err(|e| CliError::Failed(format!("cannot write {}: {e}", path.display())))
}

/// One output file per run: the path as given for a single run; for several, the run's
/// label before the extension (`OUT.<label>.csv`).
pub fn per_run_paths(out: &Path, labels: &[String]) -> Vec<std::path::PathBuf> {
    if labels.len() == 1 {
        return vec![out.to_path_buf()];
    }
    let stem = out.file_stem().and_then(|s| s.to_str()).unwrap_or("jobs");
    let ext = out.extension().and_then(|s| s.to_str()).unwrap_or("csv");
    labels
        .iter()
        .map(|label| out.with_file_name(format!("{stem}.{label}.{ext}")))
        .collect()
}
