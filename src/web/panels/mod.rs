//! The page's panels, one component each. Each reads the shared state from the app context
//! ([`super::state::use_app`]), changes it with actions, keeps its own choices to itself,
//! and subscribes to the engine worker for the answers it asked for. A new panel is a new
//! file here, listed in `app.rs`'s layout.

mod ab;
mod algorithms;
mod band_table;
mod bars;
mod calculator;
mod claims;
mod cluster;
mod cluster_export;
mod doc_link;
mod energy;
mod energy_results;
mod failure_results;
mod failures;
mod families;
mod family;
mod family_view;
mod files;
mod fit;
pub(crate) mod form;
mod kkor;
mod landing;
mod limits;
mod linked;
mod node_types;
mod options;
mod outages;
mod paper;
mod platform;
mod resource_results;
mod results;
mod run;
mod scenario;
mod scjg;
mod ses;
pub(crate) mod sf;
mod sites;
mod slurm_knobs;
mod sob_figure;
mod steps;
mod timeline;
mod vs_log_results;
mod wait_cdf;
mod widths;
mod workload;

pub use ab::AbPanel;
pub use algorithms::AlgorithmsPanel;
pub use bars::BarsPanel;
#[cfg(test)]
pub use calculator::allocate_fields;
pub use calculator::AllocationCalculator;
pub use cluster::{is_merged_table_name, ClusterPanel, ExportForCluster};
#[cfg(test)]
pub use cluster_export::family_manifest;
pub use cluster_export::{
    family_export, family_export_after, sf_manifest, ExportFamily, ManifestExport,
};
pub use doc_link::{doc_href, with_doc_links};
pub use energy::EnergyPanel;
pub use energy_results::EnergyResultsPanel;
pub use failure_results::FailureResultsPanel;
pub use failures::FailuresPanel;
pub use families::FAMILY_TABS;
pub use files::FilesPanel;
pub use fit::FitPanel;
pub use landing::{
    link_error, linked_view, view_tabs, Alert, CopyButton, LinkBanner, LinkedView, View,
};
pub use limits::{open_limits, LimitsHelp};
pub use options::OptionsPanel;
pub use platform::PlatformPanel;
pub use resource_results::ResourceResultsPanel;
pub use results::{MetricHelp, ResultsPanel};
pub use run::RunPanel;
pub use scenario::ScenarioPanel;
pub use sites::SitesPanel;
pub use sob_figure::SobFigurePanel;
pub use steps::StepPanel;
pub use timeline::TimelinePanel;
pub use vs_log_results::VsLogResultsPanel;
pub use wait_cdf::WaitCdfPanel;
pub use widths::WidthsPanel;
pub use workload::WorkloadPanel;
