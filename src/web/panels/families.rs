//! The family views of the page, in the order of their tabs: the one table a family's view
//! is listed in. A row is a [`FamilyPanel`]; its route (`#/ID`), its container (`view-ID`),
//! its tab's label, tooltip and docs page (the registry's `FamilyInfo`, `crate::family`), how
//! it mounts and which share links open in it all follow from the panel's id.

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
    /// family, its id in the registry (`crate::family::by_id`), which names it.
    pub id: &'static str,
    /// The tab's label, tooltip and docs page (`docs/NAME.md`) of a view that is not a
    /// registry family's (the report card).
    own: Option<(&'static str, &'static str, &'static str)>,
    /// The view's component.
    pub mount: fn() -> Html,
    /// What a share link that runs in this view shares.
    pub linked: fn(&str) -> Option<Linked>,
}

impl FamilyTab {
    /// The registry's family of this view, if it is one.
    pub fn family(&self) -> Option<&'static dyn crate::family::Family> {
        crate::family::by_id(self.id)
    }

    /// The tab's label: the registry's `FamilyInfo::label`.
    pub fn title(&self) -> &'static str {
        self.own
            .map(|o| o.0)
            .or_else(|| self.family().map(|f| f.info().label))
            .unwrap_or(self.id)
    }

    /// The tab's tooltip: the paper family and what it compares (`FamilyInfo::about`).
    pub fn about(&self) -> &'static str {
        self.own
            .map(|o| o.1)
            .or_else(|| self.family().map(|f| f.info().about))
            .unwrap_or("")
    }

    /// The docs page that explains the view (`docs/NAME.md`): the family's in the registry.
    pub fn doc(&self) -> &'static str {
        self.own
            .map(|o| o.2)
            .or_else(|| {
                self.family()
                    .map(|f| f.doc().trim_start_matches("docs/").trim_end_matches(".md"))
            })
            .unwrap_or(self.id)
    }
}

fn mount<P: FamilyPanel>() -> Html {
    html! { <FamilyView<P> /> }
}

/// The view of a registry family: its words are the registry's.
const fn tab<P: FamilyPanel>() -> FamilyTab {
    FamilyTab {
        id: P::ID,
        own: None,
        mount: mount::<P>,
        linked: P::linked,
    }
}

/// The family views, in the order of their tabs (after the scheduling view's, before the
/// cluster view's).
pub const FAMILY_TABS: &[FamilyTab] = &[
    tab::<Sf>(),
    tab::<Scjg>(),
    tab::<Ses>(),
    tab::<Kkor>(),
    FamilyTab {
        own: Some((
            "Paper vs Gridscope",
            "The report card: each paper's headline claims beside Gridscope's numbers, run live, with a verdict",
            "reproduce",
        )),
        ..tab::<Paper>()
    },
];
