//! The `slurm` policy's configuration for Python (docs/slurm.md): a `slurm.conf`, a preset
//! or Slurm's defaults, with an association dump fitted to a workload — what the CLI's
//! `--slurm-conf`, `--slurm-preset`, `--slurm-assoc` and `--slurm-qos` do, in the library's
//! own readers.

use gridscope::policy::slurm::{
    qos_notes, read_assoc, read_qos, read_slurm_conf, SlurmConfig, SLURM_PRESETS,
};
use pyo3::prelude::*;

use crate::engine_err;
use crate::workload::Workload;

/// `(config JSON, notes)`: the configuration a scenario's `"slurm"` takes, and what the
/// user should know (keys not read, Fair Tree, the dump's users without jobs or jobs
/// without users, QOS columns not read, jobs whose QOS the dump lacks). `conf` wins over
/// `preset`; `assoc` needs `workload` (its users' names); `qos` is sacctmgr's QOS dump.
#[pyfunction]
#[pyo3(signature = (conf = None, preset = None, assoc = None, workload = None, qos = None))]
pub fn slurm_config_json(
    conf: Option<Vec<u8>>,
    preset: Option<String>,
    assoc: Option<Vec<u8>>,
    workload: Option<&Workload>,
    qos: Option<Vec<u8>>,
) -> PyResult<(String, Vec<String>)> {
    let (mut config, mut notes) = match (conf, preset) {
        (Some(bytes), _) => {
            let report = read_slurm_conf(&bytes).map_err(|e| engine_err(e.to_string()))?;
            let notes = report.messages();
            (report.config, notes)
        }
        (None, Some(name)) => {
            let config = SlurmConfig::preset(&name).ok_or_else(|| {
                engine_err(format!(
                    "unknown slurm preset '{name}'; known: {}",
                    SLURM_PRESETS.join(", ")
                ))
            })?;
            (config, Vec::new())
        }
        (None, None) => (SlurmConfig::default(), Vec::new()),
    };
    if let Some(bytes) = qos {
        let dump = read_qos(&bytes).map_err(|e| engine_err(e.to_string()))?;
        notes.extend(dump.not_read);
        config.qos = dump.defs;
    }
    let tree = match assoc {
        Some(bytes) => Some(read_assoc(&bytes).map_err(|e| engine_err(e.to_string()))?),
        None => None,
    };
    match (workload, &tree) {
        (Some(w), _) => {
            let (jobs, report) = (&w.inner.jobs, &w.inner.report);
            notes.extend(config.fit_to_workload(
                jobs,
                &report.user_names,
                &report.partition_names,
                tree.as_ref(),
            ));
            notes.extend(qos_notes(&config.qos, &w.inner.qos, &report.qos_names));
        }
        (None, Some(_)) => {
            return Err(engine_err(
                "an association dump needs the workload whose users it names".to_string(),
            ))
        }
        (None, None) => {}
    }
    let json = serde_json::to_string(&config).map_err(engine_err)?;
    Ok((json, notes))
}
