//! `gridscope sweep slurm DIR --tasks N`: an sbatch array script whose task i runs shard i
//! of N, a merge job chained after the whole array (`--dependency=afterok`), and with
//! `--submit` both submitted. The scripts name this binary and DIR by absolute path: on a
//! cluster both must be on a file system the compute nodes share (docs/cluster.md).

use std::path::{Path, PathBuf};
use std::process::Command;

use super::store::{write_atomic, Dir};
use crate::cli::SlurmArgs;
use crate::{output, CliError};

/// A value put in a shell script in single quotes.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// A value put on an `#SBATCH` line: Slurm reads those lines itself, without a shell, so a
/// space or a quote would be misread; refused instead.
fn sbatch_value(flag: &str, v: &str) -> Result<String, CliError> {
    if v.is_empty()
        || !v
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.:,=+@/".contains(c))
    {
        return Err(CliError::Usage(format!(
            "{flag} '{v}': only letters, digits and - _ . : , = + @ / (it goes on an #SBATCH line)"
        )));
    }
    Ok(v.to_string())
}

fn absolute(p: &Path) -> Result<PathBuf, CliError> {
    std::fs::canonicalize(p)
        .map_err(|e| CliError::Failed(format!("cannot find {}: {e}", p.display())))
}

/// The `#SBATCH` lines both jobs share.
fn common(a: &SlurmArgs) -> Result<String, CliError> {
    let mut s = String::new();
    for (flag, v) in [
        ("--partition", &a.partition),
        ("--time", &a.time),
        ("--account", &a.account),
    ] {
        if let Some(v) = v {
            s.push_str(&format!("#SBATCH {flag}={}\n", sbatch_value(flag, v)?));
        }
    }
    Ok(s)
}

/// The array script and the merge script.
pub fn scripts(a: &SlurmArgs, exe: &Path, dir: &Path) -> Result<(String, String), CliError> {
    let (exe, dir_s) = (exe.display().to_string(), dir.display().to_string());
    let logs = dir.join("slurm").join("logs");
    let max = a.max_parallel.map(|m| format!("%{m}")).unwrap_or_default();
    let cpus = a.cpus_per_task;
    let threads = format!(" --threads {cpus}");
    let array = format!(
        "#!/bin/bash\n\
         # Written by `gridscope sweep slurm`: array task i runs shard i of {n} of the sweep in\n\
         # {dir_s}. A task skips the cases already done, so resubmitting this script (or one\n\
         # element: sbatch --array=I) finishes a sweep whose tasks were killed or pre-empted.\n\
         #SBATCH --job-name=gridscope-sweep\n\
         #SBATCH --array=0-{last}{max}\n\
         #SBATCH --cpus-per-task={cpus}\n\
         #SBATCH --output={log}\n\
         {common}\
         set -euo pipefail\n\
         exec {exe_q} sweep run {dir_q} --shard slurm --of {n}{threads}\n",
        n = a.tasks,
        last = a.tasks - 1,
        log = logs.join("run-%A_%a.out").display(),
        common = common(a)?,
        exe_q = quote(&exe),
        dir_q = quote(&dir_s),
    );
    let merge = format!(
        "#!/bin/bash\n\
         # Written by `gridscope sweep slurm`: merges the sweep in {dir_s} once every array\n\
         # task succeeded (submitted with --dependency=afterok:ARRAY_JOB_ID).\n\
         #SBATCH --job-name=gridscope-merge\n\
         #SBATCH --cpus-per-task=1\n\
         #SBATCH --output={log}\n\
         {common}\
         set -euo pipefail\n\
         exec {exe_q} sweep merge {dir_q}\n",
        log = logs.join("merge-%j.out").display(),
        common = common(a)?,
        exe_q = quote(&exe),
        dir_q = quote(&dir_s),
    );
    Ok((array, merge))
}

pub fn slurm(a: &SlurmArgs) -> Result<(), CliError> {
    let dir = absolute(&a.dir)?;
    let store = Dir::new(&dir);
    let plan = store.plan()?;
    if a.tasks > plan.cases {
        output::note(&format!(
            "{} tasks for {} cases: {} tasks will have nothing to do",
            a.tasks,
            plan.cases,
            a.tasks - plan.cases
        ));
    }
    let exe = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map_err(|e| CliError::Failed(format!("cannot find the gridscope binary: {e}")))?;
    let (array, merge) = scripts(a, &exe, &dir)?;
    store.mkdirs(&["slurm", "slurm/logs"])?;
    let slurm = dir.join("slurm");
    write_atomic(&slurm.join("array.sbatch"), array.as_bytes())?;
    write_atomic(&slurm.join("merge.sbatch"), merge.as_bytes())?;
    write_atomic(&slurm.join("tasks"), format!("{}\n", a.tasks).as_bytes())?;
    let submit = format!(
        "#!/bin/bash\n# Submits the array, then the merge chained after it.\nset -euo pipefail\n\
         array=$(sbatch --parsable {a})\narray=${{array%%;*}}\n\
         merge=$(sbatch --parsable --dependency=afterok:$array {m})\n\
         echo \"array $array merge ${{merge%%;*}}\"\n",
        a = quote(&slurm.join("array.sbatch").display().to_string()),
        m = quote(&slurm.join("merge.sbatch").display().to_string()),
    );
    write_atomic(&slurm.join("submit.sh"), submit.as_bytes())?;
    if !a.submit {
        return output::stdout(&format!(
            "wrote {0}/array.sbatch ({1} tasks), {0}/merge.sbatch and {0}/submit.sh; submit with `bash {0}/submit.sh` or `gridscope sweep slurm {2} --tasks {1} --submit`\n",
            slurm.display(),
            a.tasks,
            a.dir.display()
        ));
    }
    let array_id = sbatch(&[slurm.join("array.sbatch").display().to_string()])?;
    let merge_id = sbatch(&[
        format!("--dependency=afterok:{array_id}"),
        slurm.join("merge.sbatch").display().to_string(),
    ])?;
    output::stdout(&format!("array {array_id} merge {merge_id}\n"))
}

/// `sbatch --parsable ARGS`: the job id it prints (`id` or `id;cluster`).
fn sbatch(args: &[String]) -> Result<String, CliError> {
    let out = Command::new("sbatch")
        .arg("--parsable")
        .args(args)
        .output()
        .map_err(|e| {
            CliError::Failed(format!(
                "cannot run sbatch: {e} (is Slurm installed and on PATH?)"
            ))
        })?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let id = stdout.trim().split(';').next().unwrap_or("").to_string();
    if !out.status.success() || id.is_empty() || !id.chars().all(|c| c.is_ascii_digit()) {
        return Err(CliError::Failed(format!(
            "sbatch {} failed ({}): {}{}",
            args.join(" "),
            out.status,
            stdout.trim(),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(id)
}
