//! The workload files: dropped or picked ones, the ones a shared scenario pins by hash and
//! the ones a preset reads by name; a run starts when the last one is read.

use super::{workload_files, AppState, FileEntry, FileStatus};
use crate::scenario::{PlatformSpec, WorkloadSpec};
use crate::web::hub::Hub;
use crate::web::protocol::{FileInfo, ToWorker};

impl AppState {
    pub(super) fn add_files(&mut self, files: Vec<web_sys::File>, hub: &Hub) {
        let max = crate::limits::Limits::default().file_bytes;
        for file in files {
            // The file limit before the browser reads a byte (a 40 GB file would exhaust
            // the tab's memory).
            if file.size() > max as f64 {
                self.errors.push(format!(
                    "{}: {} bytes, more than the page reads from one file ({}); the gridscope CLI reads bigger ones with --max-file-bytes",
                    file.name(),
                    crate::web::format::fmt_num(file.size(), 0),
                    crate::web::format::fmt_num(max as f64, 0)
                ));
                continue;
            }
            let mut name = file.name();
            if let Some(first) = self.needed.first() {
                if !self.needed.iter().any(|n| n.name == name) {
                    // A shared scenario is waiting for a file: take this one as the first
                    // missing one (its hash decides).
                    name = first.name.clone();
                }
            }
            self.files.retain(|f| f.name != name);
            self.files.push(FileEntry {
                name: name.clone(),
                file: file.clone(),
                status: FileStatus::Loading,
            });
            if let Err(e) = hub.send_file(ToWorker::Load { name }, file) {
                self.errors.push(e);
            }
        }
    }

    pub(super) fn on_loaded(&mut self, hub: &Hub, info: FileInfo, jobs: u64, summary: String) {
        let name = info.name.clone();
        let reloaded = self
            .files
            .iter()
            .any(|f| f.name == name && matches!(f.status, FileStatus::Loaded { .. }));
        if reloaded {
            // A fresh worker (after a cancel) got the file again: nothing to decide.
            return;
        }
        if let Some(pos) = self.needed.iter().position(|n| n.name == name) {
            return self.on_needed_loaded(hub, pos, info, jobs, summary);
        }
        self.set_status(
            &name,
            FileStatus::Loaded {
                info,
                jobs,
                summary,
            },
        );
        if !matches!(self.scenario.workload, WorkloadSpec::Swf { .. })
            && workload_files(&self.scenario.workload).contains(&name)
        {
            return self.on_preset_file_loaded(hub);
        }
        if self.files.iter().any(|f| f.status == FileStatus::Loading) {
            // Several files were dropped at once: run when the last one is read.
            return;
        }
        let loaded = self
            .files
            .iter()
            .filter(|f| matches!(f.status, FileStatus::Loaded { .. }))
            .count();
        if loaded > 1 {
            self.notice = Some(format!(
                "{loaded} files are loaded; a run uses one workload file for now (several files as several sites come later). Running {name}; choose another under Workload."
            ));
        }
        if !matches!(self.scenario.workload, WorkloadSpec::Swf { .. })
            || !matches!(self.scenario.platform, PlatformSpec::Sites { .. })
        {
            self.scenario.platform = PlatformSpec::FromTrace { procs: None };
        }
        self.scenario.workload = WorkloadSpec::Swf {
            file: name.clone(),
            strict: false,
            format: Default::default(),
            utc_offset_min: 0,
        };
        self.scenario.name = format!("{name}, one site sized from the trace");
        self.start_run(hub);
    }

    /// A file a shared scenario pinned by hash: refused unless it is the same file.
    fn on_needed_loaded(
        &mut self,
        hub: &Hub,
        pos: usize,
        info: FileInfo,
        jobs: u64,
        summary: String,
    ) {
        let name = info.name.clone();
        let want = &self.needed[pos];
        if want.sha256 != info.sha256 {
            self.errors.push(format!(
                "{name} is not the file the shared scenario was made with: its SHA-256 is {} ({} bytes) but the scenario needs {} ({} bytes). The file was not used.",
                info.sha256, info.size, want.sha256, want.size
            ));
            self.files.retain(|f| f.name != name);
            self.send(hub, ToWorker::Forget { name });
            return;
        }
        self.needed.remove(pos);
        self.set_status(
            &name,
            FileStatus::Loaded {
                info,
                jobs,
                summary,
            },
        );
        if self.needed.is_empty() {
            self.notice = Some("All files of the shared scenario are here; running it.".into());
            self.start_run(hub);
        }
    }

    /// A file the scenario (a multi-site preset) reads by name: run when all are here.
    fn on_preset_file_loaded(&mut self, hub: &Hub) {
        if self.files.iter().any(|f| f.status == FileStatus::Loading) {
            return;
        }
        let missing = self.missing_files();
        if missing.is_empty() {
            self.notice = Some("All files of this scenario are here; running it.".into());
            self.start_run(hub);
        } else {
            self.notice = Some(format!(
                "This scenario still needs: {}.",
                missing.join(", ")
            ));
        }
    }

    /// Files the scenario reads that are neither loaded (or loading) nor pinned by hash in
    /// `needed`: the page asks for them by name.
    pub fn missing_files(&self) -> Vec<String> {
        workload_files(&self.scenario.workload)
            .into_iter()
            .filter(|n| {
                !self
                    .files
                    .iter()
                    .any(|f| &f.name == n && !matches!(f.status, FileStatus::Failed(_)))
                    && !self.needed.iter().any(|x| &x.name == n)
            })
            .collect()
    }

    /// Names of the files read without error, then those a shared scenario waits for.
    pub fn loaded_files(&self) -> Vec<String> {
        self.files
            .iter()
            .filter(|f| matches!(f.status, FileStatus::Loaded { .. }))
            .map(|f| f.name.clone())
            .chain(self.needed.iter().map(|n| n.name.clone()))
            .collect()
    }

    pub(super) fn set_status(&mut self, name: &str, status: FileStatus) {
        if let Some(f) = self.files.iter_mut().find(|f| f.name == name) {
            f.status = status;
        }
    }
}
