//! Where results go, and how a failure to put them there is reported. Results on stdout:
//! a reader that closed the pipe (`gridscope ... | head -1`) ends the output quietly, any
//! other failed write (a full disk) is an error. Results in files: every failure is an error,
//! a file given as input is never overwritten, and per-run file names are sanitized and
//! unique. Messages on stderr never panic, even when stderr is closed.

use std::fs::File;
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

use crate::CliError;

/// Writes the results to stdout. A closed pipe is not an error: the reader has what it wanted.
pub fn stdout(text: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != ErrorKind::BrokenPipe => Err(CliError::Stdout(e)),
        _ => Ok(()),
    }
}

/// A line on stderr (`note: …`), ignoring a closed or full stderr.
pub fn note(text: &str) {
    let _ = writeln!(std::io::stderr(), "note: {text}");
}

/// Writes a result file and makes sure it reached the disk: a full disk or a closed pipe is
/// an error naming the file, never a silent loss.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    let failed = |source| CliError::Write {
        path: path.to_path_buf(),
        source,
    };
    let mut file = File::create(path).map_err(failed)?;
    file.write_all(bytes).map_err(failed)?;
    file.flush().map_err(failed)?;
    // Some file systems report a full disk or quota only here. Devices and pipes cannot be
    // synced (EINVAL): what was written to them has been accepted.
    match file.sync_data() {
        Err(e) if !matches!(e.kind(), ErrorKind::InvalidInput | ErrorKind::Unsupported) => {
            Err(failed(e))
        }
        _ => Ok(()),
    }
}

/// The files a command read, so that no output overwrites one of them.
#[derive(Default)]
pub struct Inputs {
    files: Vec<(PathBuf, PathBuf)>,
}

impl Inputs {
    /// Records an input file (as named, and canonical when it exists).
    pub fn add(&mut self, path: &Path) {
        if let Ok(canonical) = path.canonicalize() {
            self.files.push((path.to_path_buf(), canonical));
        }
    }

    /// Refuses an output path that is one of the inputs (by canonical path, or the same file
    /// under another name: a hard link).
    pub fn check(&self, output: &Path, flag: &str) -> Result<(), CliError> {
        let Ok(canonical) = output.canonicalize() else {
            return Ok(()); // It does not exist yet: it is no input.
        };
        for (named, input) in &self.files {
            if *input == canonical || same_file(input, &canonical) {
                return Err(CliError::Failed(format!(
                    "{flag} {} would overwrite the input {}; choose another file",
                    output.display(),
                    named.display()
                )));
            }
        }
        Ok(())
    }
}

#[cfg(unix)]
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(_: &Path, _: &Path) -> bool {
    false
}

/// A run label as a safe file-name part: anything outside `[A-Za-z0-9._-]` becomes `_`, and
/// so does a leading dot (no hidden file, no `..`).
pub fn sanitize(label: &str) -> String {
    let mut s: String = label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.starts_with('.') {
        let dots = s.len() - s.trim_start_matches('.').len();
        s.replace_range(..dots, &"_".repeat(dots));
    }
    if s.is_empty() {
        s.push_str("run");
    }
    s
}

/// One output file per run: the path as given for a single run; for several, the run's
/// label before the extension (`OUT.<label>.csv`), sanitized, and suffixed `-2`, `-3`… when
/// two runs would share a name (compared ignoring case, for case-insensitive file systems).
/// Returns the paths and, for each renamed run, a note saying so.
pub fn per_run_paths(out: &Path, labels: &[String]) -> (Vec<PathBuf>, Vec<String>) {
    if labels.len() == 1 {
        return (vec![out.to_path_buf()], vec![]);
    }
    let stem = out.file_stem().and_then(|s| s.to_str()).unwrap_or("jobs");
    let ext = out.extension().and_then(|s| s.to_str()).unwrap_or("csv");
    let mut taken: Vec<String> = vec![];
    let mut notes = vec![];
    let paths = labels
        .iter()
        .enumerate()
        .map(|(i, label)| {
            let base = sanitize(label);
            let mut name = base.clone();
            let mut n = 1;
            while taken.contains(&name.to_ascii_lowercase()) {
                n += 1;
                name = format!("{base}-{n}");
            }
            taken.push(name.to_ascii_lowercase());
            let path = out.with_file_name(format!("{stem}.{name}.{ext}"));
            if name != *label {
                let why = if name == base {
                    "not a safe file name"
                } else {
                    "the name of an earlier run"
                };
                notes.push(format!(
                    "run {} is labelled '{label}' ({why}): its jobs go to {}",
                    i + 1,
                    path.display()
                ));
            }
            path
        })
        .collect();
    (paths, notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_become_safe_file_names() {
        assert_eq!(sanitize("easy"), "easy");
        assert_eq!(sanitize("sender+easy"), "sender_easy");
        assert_eq!(sanitize("/../x"), "_.._x");
        assert_eq!(sanitize("..x"), "__x");
        assert_eq!(sanitize("été"), "_t_");
        assert_eq!(sanitize(""), "run");
    }

    #[test]
    fn duplicate_labels_get_suffixes() {
        let labels = ["easy", "easy", "easy-2", "EASY", "a/b"].map(String::from);
        let (paths, notes) = per_run_paths(Path::new("d/out.csv"), &labels);
        let names: Vec<_> = paths.iter().map(|p| p.to_str().unwrap()).collect();
        assert_eq!(
            names,
            [
                "d/out.easy.csv",
                "d/out.easy-2.csv",
                "d/out.easy-2-2.csv",
                "d/out.EASY-3.csv",
                "d/out.a_b.csv"
            ]
        );
        assert_eq!(notes.len(), 4, "{notes:?}");
        assert!(notes[0].contains("run 2 is labelled 'easy'"), "{notes:?}");
    }

    #[test]
    fn one_run_writes_the_file_as_named() {
        let (paths, notes) = per_run_paths(Path::new("x/../j"), &["/../x".to_string()]);
        assert_eq!(paths, [PathBuf::from("x/../j")]);
        assert!(notes.is_empty());
    }
}
