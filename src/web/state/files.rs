//! The workload files: dropped or picked ones, the ones a shared scenario pins by hash and
//! the ones a preset reads by name; a run starts when the last one is read.

use super::{workload_files, AppState, FileEntry, FileStatus};
use crate::model::Site;
use crate::scenario::{PlatformSpec, WorkloadSpec};
use crate::web::hub::Hub;
use crate::web::protocol::{FileInfo, ToWorker};
use crate::workload::Align;

impl AppState {
    pub(super) fn add_files(&mut self, files: Vec<web_sys::File>, hub: &Hub) {
        let max = crate::limits::Limits::default().file_bytes;
        self.dropped_together.clear();
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
            if self.needed.is_empty() && !self.dropped_together.contains(&name) {
                self.dropped_together.push(name.clone());
            }
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

    pub(super) fn on_loaded(
        &mut self,
        hub: &Hub,
        info: FileInfo,
        jobs: u64,
        summary: String,
        site: Option<Site>,
    ) {
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
            return self.on_needed_loaded(hub, pos, info, jobs, summary, site);
        }
        self.set_status(
            &name,
            FileStatus::Loaded {
                info,
                jobs,
                summary,
                site,
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
        if self.several_sites(hub) {
            return;
        }
        let loaded = self
            .files
            .iter()
            .filter(|f| matches!(f.status, FileStatus::Loaded { .. }))
            .count();
        if loaded > 1 {
            self.notice = Some(format!(
                "{loaded} files are loaded; running {name} on its own site. Drop or pick several files at once to run them as several sites, one per file; choose another file under Workload."
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
        site: Option<Site>,
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
                site,
            },
        );
        if self.needed.is_empty() {
            self.notice = Some("All files of the shared scenario are here; running it.".into());
            self.start_run(hub);
        }
    }

    /// Several files dropped (or picked) together and read: one site per file, in the
    /// order given, each sized as the file alone would size its one site, every trace
    /// shifted to start at t = 0 — the scenario file's `swf_sites` workload on explicit
    /// sites, so the CLI runs the same (docs/formats.md). `false` (nothing done) for one
    /// file, or when a file of the drop failed or gave no site.
    fn several_sites(&mut self, hub: &Hub) -> bool {
        let mut sites = vec![];
        for name in &self.dropped_together {
            match self
                .files
                .iter()
                .find(|f| &f.name == name)
                .map(|f| &f.status)
            {
                Some(FileStatus::Loaded {
                    site: Some(site), ..
                }) => sites.push(site.clone()),
                _ => return false,
            }
        }
        if sites.len() < 2 {
            return false;
        }
        let files = self.dropped_together.clone();
        let n = files.len();
        self.scenario.platform = PlatformSpec::Sites {
            name: format!("{n} dropped traces"),
            sites,
        };
        self.scenario.workload = WorkloadSpec::SwfSites {
            files,
            align: Align::Zero,
            window: None,
            strict: false,
        };
        self.scenario.name = format!("{n} traces, one site each");
        self.preset = String::new();
        self.notice = Some(format!(
            "{n} files as {n} sites, one per file in the order dropped: each site sized as its trace alone would size it, each trace shifted to start at t = 0. Under the local scheme every job runs at its own site; choose a grid scheme under Algorithms to move jobs between them."
        ));
        self.start_run(hub);
        true
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
