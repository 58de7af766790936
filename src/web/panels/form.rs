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

/// The chosen option of a `<select>` whose values are indices (0 when unreadable).
pub fn select_index(e: &Event) -> usize {
    select_value(e).parse().unwrap_or(0)
}

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
            <input id={id} type="number" step={step.to_string()} {value} {onchange} />
            <span class="help">{help}</span>
        </div>
    }
}
