//! The binary's file-system reads, on the ground floor of its modules: a whole file within
//! the limits, a trace, a scenario's workload file confined to its folder, and the host's
//! name (the sweep store names temporaries and logs by it). Commands import these; this
//! module imports no command.

use std::path::{Path, PathBuf};

use gridscope::limits::{read_bounded, Limits, ReadError};
use gridscope::workload::{self, SwfOptions, Workload};

use crate::cli::FormatArgs;
use crate::CliError;

/// Reads a whole file, at most `limits.file_bytes` of it (`/dev/zero` or a huge file is an
/// error naming the limit, not an endless read).
pub fn read_file(path: &Path, limits: &Limits) -> Result<Vec<u8>, ReadError> {
    let name = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|e| ReadError::io(&name, e))?;
    read_bounded(file, &name, limits)
}

/// A whole text file (UTF-8) within the limits.
pub fn read_text(path: &Path, limits: &Limits) -> Result<String, CliError> {
    String::from_utf8(read_file(path, limits)?).map_err(|_| CliError::NotUtf8 {
        file: path.display().to_string(),
    })
}

/// [`read_file`] for the library's loaders, which take the reason as a sentence.
pub fn load_file(path: &Path, limits: &Limits) -> Result<Vec<u8>, String> {
    read_file(path, limits).map_err(|e| e.to_string())
}

/// Reads the trace at `path` (SWF, GWF, Batsim JSON or sacct: `format` says or the
/// content tells).
pub fn read_trace(
    path: &str,
    strict: bool,
    limits: &Limits,
    format: &FormatArgs,
) -> Result<Workload, CliError> {
    let bytes = read_file(Path::new(path), limits)?;
    let opts = SwfOptions {
        strict,
        limits: *limits,
    };
    Ok(workload::read_trace(
        path,
        &bytes,
        &opts,
        &format.trace_options(),
    )?)
}

/// Where a scenario's workload files may come from.
#[derive(Clone, Copy)]
pub enum Files {
    /// Any path (a trace named on the command line).
    Anywhere,
    /// Only the scenario's folder and below, unless `--allow-any-path`.
    Confined,
}

/// `file` joined to `base`, refused when confined and it leaves `base` (an absolute path or
/// a `..`). The check is on the path's text: a symbolic link inside the folder is followed.
pub fn confined_path(base: &Path, file: &str, files: Files) -> Result<PathBuf, String> {
    use std::path::Component;
    let escapes = Path::new(file)
        .components()
        .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir));
    if escapes && matches!(files, Files::Confined) {
        return Err(format!(
            "the scenario names '{file}', outside its own folder: a scenario may read only files in \
             its folder or below (so a shared scenario cannot read your other files); move the file \
             there or pass --allow-any-path"
        ));
    }
    Ok(base.join(file))
}

/// This machine's name, for the names of a sweep's temporaries and logs ("unknown" when the
/// system does not say).
pub fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|h| h.trim().to_string())
        .unwrap_or_else(|_| "unknown".into())
}
