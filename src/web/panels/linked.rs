//! What a family link in the page's address (`#f2=`, or the older `#f1=`) asks of a
//! registry family's view: the run (its `RunSpec` and trace file), the banner's words, and
//! the view's refusal of a preset it does not run.

use super::family_view::{Linked, Opening};
use crate::family::RunSpec;
use crate::web::protocol::FamilyRequest;
use crate::web::share;

/// A registry family's run a link asks for: its spec, the trace file it names, and the
/// notice when it asks for more runs than a link starts by itself.
pub struct LinkedRun {
    pub spec: RunSpec,
    pub trace: Option<String>,
    pub asks_first: Option<String>,
}

/// The run of family `family` that the family link `fragment` holds, if it holds one.
pub fn linked_run(fragment: &str, family: &str) -> Option<LinkedRun> {
    let request = share::decode_family(fragment).ok()??;
    let asks_first = request.asks_first();
    match request {
        FamilyRequest::Run { spec, trace }
            if crate::family::find(&spec.preset).is_some_and(|f| f.id() == family) =>
        {
            Some(LinkedRun {
                spec,
                trace,
                asks_first,
            })
        }
        _ => None,
    }
}

/// What the banner says of a link to a run of family `family` (its view's `linked`).
pub fn linked_family(fragment: &str, family: &str) -> Option<Linked> {
    let run = linked_run(fragment, family)?;
    let seeds = run
        .spec
        .seeds
        .unwrap_or_else(|| crate::family::by_id(family).map_or(1, |f| f.default_seeds()));
    Some(Linked {
        what: format!(
            "the {} preset {} ({seeds} seeds)",
            family.to_uppercase(),
            run.spec.preset
        ),
        needs: run.trace,
    })
}

/// The run of family `family` that a link in the page's address asks for.
pub fn opened_run(family: &str) -> Option<LinkedRun> {
    linked_run(&crate::web::format::location_hash(), family)
}

/// The message for a linked preset of family `family` that its view does not run.
pub fn not_on_page(family: &str, preset: &str) -> Opening {
    Opening::Error(format!(
        "This link runs {preset}, which the {} view does not run: run it with `gridscope run --preset {preset}`.",
        family.to_uppercase()
    ))
}
