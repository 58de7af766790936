//! The family views of the page, in the order of their tabs: the one table a family's view
//! is listed in. A row is a [`FamilyPanel`] with its tab's words; its route (`#/ID`), its
//! container (`view-ID`), its docs page (the registry's, `crate::family`), how it mounts
//! and which share links open in it all follow from the panel.

use yew::prelude::*;

use super::family_view::{FamilyPanel, FamilyView, Linked};
use super::kkor::Kkor;
use super::paper::Paper;
use super::scjg::Scjg;
use super::ses::Ses;
use super::sf::Sf;

/// A family's view as the page lists it.
pub struct FamilyTab {
    /// The panel's id: the route `#/{id}`, the container `view-{id}` and, for a paper
    /// family, its id in the registry.
    pub id: &'static str,
    /// The tab's label.
    pub title: &'static str,
    /// The tab's tooltip: the paper family and what it compares.
    pub about: &'static str,
    /// The docs page (`docs/NAME.md`) of a view that is not a registry family's.
    own_doc: Option<&'static str>,
    /// The view's component.
    pub mount: fn() -> Html,
    /// What a share link that runs in this view shares.
    pub linked: fn(&str) -> Option<Linked>,
}

impl FamilyTab {
    /// The docs page that explains the view (`docs/NAME.md`): the family's in the registry.
    pub fn doc(&self) -> &'static str {
        self.own_doc
            .or_else(|| {
                crate::family::by_id(self.id)
                    .map(|f| f.doc().trim_start_matches("docs/").trim_end_matches(".md"))
            })
            .unwrap_or(self.id)
    }
}

fn mount<P: FamilyPanel>() -> Html {
    html! { <FamilyView<P> /> }
}

const fn tab<P: FamilyPanel>(
    title: &'static str,
    about: &'static str,
    own_doc: Option<&'static str>,
) -> FamilyTab {
    FamilyTab {
        id: P::ID,
        title,
        about,
        own_doc,
        mount: mount::<P>,
        linked: P::linked,
    }
}

/// The family views, in the order of their tabs (after the scheduling view's, before the
/// cluster view's).
pub const FAMILY_TABS: &[FamilyTab] = &[
    tab::<Sf>(
        "SF allocation",
        "SF: allocating a workload over heterogeneous resources (batches, OWA, DLL, hybrid)",
        None,
    ),
    tab::<Scjg>(
        "SCJG reservations",
        "SCJG: metajobs co-allocated with advance reservations against lock-down",
        None,
    ),
    tab::<Ses>(
        "SES node groups",
        "SES: choosing node groups for parallel jobs on a heterogeneous cluster",
        None,
    ),
    tab::<Kkor>(
        "KKOR grids",
        "KKOR: centralized against decentralized grid scheduling, with migration",
        None,
    ),
    tab::<Paper>(
        "Paper vs Gridscope",
        "The report card: each paper's headline claims beside Gridscope's numbers, run live, with a verdict",
        Some("reproduce"),
    ),
];
