//! Workload files: the drop zone and file picker, the files a scenario still needs, and
//! each dropped file with its import report.

use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::web::format::fmt_num;
use crate::web::state::{use_app, AppAction, AppContext, FileEntry, FileStatus};

#[function_component]
pub fn FilesPanel() -> Html {
    let app = use_app();
    let dispatch = app.dispatch.clone();
    let on_pick = Callback::from(move |e: Event| {
        let input: HtmlInputElement = e.target_unchecked_into();
        let files = input
            .files()
            .map(|l| (0..l.length()).filter_map(|i| l.get(i)).collect::<Vec<_>>())
            .unwrap_or_default();
        input.set_value("");
        if !files.is_empty() {
            dispatch.emit(AppAction::Files(files));
        }
    });
    html! {
        <>
            <h2>{"Workload"}</h2>
            <div class="drop">
                <p>{"Drop one or several traces anywhere on the page — SWF ("}<code>{".swf"}</code>{", "}<code>{".swf.gz"}</code>{"), GWF of the Grid Workloads Archive, Batsim JSON workloads or Slurm "}<code>{"sacct --parsable2"}</code>{" output, plain or gzip; the format is told from the content (docs/formats.md) — or "}</p>
                <label>{"pick files: "}<input type="file" multiple=true accept=".swf,.gz,.swf.gz,.gwf,.json,.txt,.sacct,.csv,.log" data-testid="file-input" onchange={on_pick} /></label>
            </div>
            { needed(&app) }
            if !app.files.is_empty() {
                <ul class="files" data-testid="files">
                    { for app.files.iter().map(|f| file(&app, f)) }
                </ul>
            }
        </>
    }
}

/// Files a shared scenario pins by hash, or a preset reads by name, not here yet.
fn needed(app: &AppContext) -> Html {
    let missing = app.missing_files();
    if app.needed.is_empty() && missing.is_empty() {
        return html! {};
    }
    html! {
        <div class="needed" data-testid="needed-files">
            if !app.needed.is_empty() {
                <p><strong>{"This shared scenario needs its workload file(s). Drop or pick:"}</strong></p>
                <ul>
                    { for app.needed.iter().map(|n| html!{
                        <li><code>{&n.name}</code>{format!(" — {} bytes, SHA-256 {}", fmt_num(n.size as f64, 0), n.sha256)}</li>
                    }) }
                </ul>
                <p class="help">{"A file with different content (another SHA-256) is refused, so the numbers match the shared ones."}</p>
            }
            if !missing.is_empty() {
                <p><strong>{"This scenario reads these workload files by name. Drop or pick them:"}</strong></p>
                <ul>
                    { for missing.iter().map(|n| html!{ <li><code>{n}</code></li> }) }
                </ul>
                <p class="help">{"Cleaned logs of the Parallel Workloads Archive (the same files the CLI reads with --traces DIR). They stay on this computer; the run starts when the last one is read."}</p>
            }
        </div>
    }
}

fn file(app: &AppContext, f: &FileEntry) -> Html {
    let name = f.name.clone();
    let remove = app.callback(move |_: MouseEvent| AppAction::RemoveFile(name.clone()));
    let (cls, body) = match &f.status {
        FileStatus::Loading => ("loading", html! { <p>{"reading…"}</p> }),
        FileStatus::Loaded {
            info,
            jobs,
            summary,
            ..
        } => (
            "ok",
            html! {
                <>
                    <p>{format!("{}; {} bytes; SHA-256 {}…", crate::web::format::count(*jobs, "job"), fmt_num(info.size as f64, 0), info.sha256.get(..16).unwrap_or(&info.sha256))}</p>
                    <details open=true><summary>{"Import report"}</summary><pre data-testid="import-report">{summary}</pre></details>
                </>
            },
        ),
        FileStatus::Failed(e) => (
            "failed",
            html! { <pre class="file-error" data-testid="file-error">{e}</pre> },
        ),
    };
    html! {
        <li class={cls}>
            <strong>{&f.name}</strong>{" "}
            <button class="small" onclick={remove} aria-label={format!("remove {}", f.name)}>{"remove"}</button>
            {body}
        </li>
    }
}
