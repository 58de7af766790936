//! Form pieces the editor panels share: reading an input's value, parsing it, and a
//! labelled number field that edits the scenario.

use std::rc::Rc;

use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use crate::scenario::Scenario;
use crate::web::state::{edit, AppContext};

/// The value of the `<input>` an event came from.
pub fn input_value(e: &Event) -> String {
    e.target_unchecked_into::<HtmlInputElement>().value()
}

/// The value of the `<select>` an event came from.
pub fn select_value(e: &Event) -> String {
    e.target_unchecked_into::<HtmlSelectElement>().value()
}

/// The file picked in the `<input type=file>` an event came from, with its name, when it
/// is at most `max_bytes`; a larger one is an error naming it and `what` it is read as.
pub fn picked_file(
    app: &AppContext,
    e: &Event,
    max_bytes: f64,
    what: &str,
) -> Option<(String, gloo::file::File)> {
    let input: HtmlInputElement = e.target_unchecked_into();
    let file = input.files().and_then(|f| f.get(0))?;
    let name = file.name();
    if file.size() > max_bytes {
        app.send(crate::web::state::AppAction::Error(format!(
            "{name}: more than the page reads from {what} ({} MB)",
            max_bytes / 1e6
        )));
        return None;
    }
    Some((name, gloo::file::File::from(file)))
}

/// The chosen option of a `<select>` whose values are indices (0 when unreadable).
pub fn select_index(e: &Event) -> usize {
    select_value(e).parse().unwrap_or(0)
}

/// The `onkeydown` of a preset list: a closed `<select>` changes its value (and fires
/// `change`) at every arrow key, and each change loads a whole preset, replacing the form.
/// So the keys that step a closed list do nothing here; the keyboard opens the list (Space,
/// Alt+↓) and Enter picks one preset, loaded once.
pub fn hold_preset_keys(e: KeyboardEvent) {
    let steps = matches!(
        e.key().as_str(),
        "ArrowUp"
            | "ArrowDown"
            | "ArrowLeft"
            | "ArrowRight"
            | "Home"
            | "End"
            | "PageUp"
            | "PageDown"
    );
    // Type-ahead: a printable character jumps to the preset it starts.
    let types = e.key().chars().count() == 1 && e.key() != " ";
    if (steps || types) && !e.alt_key() && !e.ctrl_key() && !e.meta_key() {
        e.prevent_default();
    }
}

/// What a preset list's tooltip says about the keyboard.
pub const PRESET_KEYS_HELP: &str =
    "Open the list (Space or Alt+↓), choose with the arrows and press Enter to load a preset";

pub fn parse<T: std::str::FromStr>(what: &str, v: &str) -> Result<T, String> {
    v.trim()
        .parse::<T>()
        .map_err(|_| format!("{what}: '{v}' is not a valid number"))
}

/// A scenario change that needs the text the user typed.
pub type Apply = Rc<dyn Fn(&mut Scenario, &str) -> Result<(), String>>;

/// A callback for an `<input>` or `<select>` change that applies `apply` with its value.
pub fn on_value(app: &AppContext, apply: Apply, read: fn(&Event) -> String) -> Callback<Event> {
    app.callback(move |e: Event| {
        let (apply, v) = (apply.clone(), read(&e));
        edit(move |s| apply(s, &v))
    })
}

/// A labelled number field (`id` becomes `f-{id}`) whose change edits the scenario.
pub fn num_field(
    app: &AppContext,
    id: &str,
    label: &str,
    help: &str,
    value: String,
    step: &str,
    apply: impl Fn(&mut Scenario, &str) -> Result<(), String> + 'static,
) -> Html {
    let onchange = on_value(app, Rc::new(apply), input_value);
    let id = format!("f-{id}");
    html! {
        <div class="field">
            <label for={id.clone()}>{label}</label>
            <DraftInput id={id} kind="number" step={step.to_string()} {value} {onchange} />
            <span class="help">{help}</span>
        </div>
    }
}

/// The attributes of a text or number field kept by [`DraftInput`].
#[derive(Properties, PartialEq, Clone)]
pub struct DraftInputProps {
    #[prop_or_default]
    pub id: Option<AttrValue>,
    /// The input's `type`.
    #[prop_or(AttrValue::Static("text"))]
    pub kind: AttrValue,
    #[prop_or_default]
    pub step: Option<AttrValue>,
    #[prop_or_default]
    pub min: Option<AttrValue>,
    #[prop_or_default]
    pub max: Option<AttrValue>,
    /// Its `aria-label`, for fields without a `<label>`.
    #[prop_or_default]
    pub label: Option<AttrValue>,
    #[prop_or_default]
    pub testid: Option<AttrValue>,
    #[prop_or_default]
    pub placeholder: Option<AttrValue>,
    /// What the scenario (or panel) holds.
    pub value: AttrValue,
    /// Called when the user commits the text (Enter, or leaving the field).
    pub onchange: Callback<Event>,
}

/// A text or number `<input>` whose text survives re-renders while the user types.
///
/// Yew sets a rendered input's DOM value back to its `value` on every render, and the page
/// re-renders whenever a worker reports (a run's progress, every 200 ms). Text typed but not
/// yet committed (the change event comes on Enter or when the field loses focus) was then
/// silently replaced by the old value: a page test typed 2000 jobs after cancelling a run and
/// got a 1,000,000-job run. The field keeps what is typed as a draft until the change; the
/// draft belongs to the value it was typed over, so a new value from outside (a preset, a
/// link) replaces it.
#[function_component]
pub fn DraftInput(p: &DraftInputProps) -> Html {
    let draft = use_state(|| None::<(AttrValue, String)>);
    let shown = match &*draft {
        Some((over, text)) if *over == p.value => AttrValue::from(text.clone()),
        _ => p.value.clone(),
    };
    let oninput = {
        let (draft, over) = (draft.clone(), p.value.clone());
        Callback::from(move |e: InputEvent| draft.set(Some((over.clone(), input_value(&e)))))
    };
    let onchange = {
        let (draft, commit) = (draft.clone(), p.onchange.clone());
        Callback::from(move |e: Event| {
            draft.set(None);
            commit.emit(e);
        })
    };
    html! {
        <input id={p.id.clone()} type={p.kind.clone()} step={p.step.clone()} min={p.min.clone()}
            max={p.max.clone()} aria-label={p.label.clone()} data-testid={p.testid.clone()}
            placeholder={p.placeholder.clone()} value={shown} {oninput} {onchange} />
    }
}
