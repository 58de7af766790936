//! Mean wait per job-width class and run: starvation of wide jobs, hidden in a mean wait,
//! made visible (`wait_by_width` in the CLI's JSON, its text table).

use yew::prelude::*;

use crate::web::charts::{plot, ChartView, WidthWaits};
use crate::web::state::use_app;

#[function_component]
pub fn WidthsPanel() -> Html {
    let app = use_app();
    let Some(w) = WidthWaits::of(&app.results.runs) else {
        return html! {};
    };
    html! {
        <>
            <ChartView chart={Some(plot(w))} testid="chart-widths" width={640} height={280} />
            <p class="help">{"Mean wait (start − submit) of the jobs that ran, by the CPUs they requested: 1, 2–4, 5–16, 17–64, 65–256, 257–1024, 1025+ (classes without jobs are left out). A scheme can have a low mean wait while its widest jobs starve: SOB's receiver-initiated scheme holds a job in its grid queue until its home wait drops below φ or a volunteer takes it, which a wide job may never see."}</p>
        </>
    }
}
