//! Small helpers every panel uses: number formatting and saving a file from the page.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// `v` with `decimals` decimals and thousands separators; – when not finite.
pub fn fmt_num(v: f64, decimals: usize) -> String {
    if !v.is_finite() {
        return "–".into();
    }
    let s = format!("{v:.decimals$}");
    let (int, frac) = s
        .split_once('.')
        .map(|(a, b)| (a, Some(b)))
        .unwrap_or((&s, None));
    let (sign, digits) = int.strip_prefix('-').map(|d| ("-", d)).unwrap_or(("", int));
    let mut grouped = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    match frac {
        Some(f) => format!("{sign}{grouped}.{f}"),
        None => format!("{sign}{grouped}"),
    }
}

/// A duration in seconds in the unit that reads best: `57.3 s`, `4 min 18 s`, `4 h 16 min`,
/// `17.8 d` (two days and more); – when not finite. Tables show this with the exact
/// seconds on hover.
pub fn fmt_duration(secs: f64) -> String {
    if !secs.is_finite() {
        return "–".into();
    }
    let sign = if secs < 0.0 { "-" } else { "" };
    let a = secs.abs();
    if a < 59.95 {
        return format!("{sign}{a:.1} s");
    }
    let whole = a.round() as u64;
    if whole < 3600 {
        return format!("{sign}{} min {} s", whole / 60, whole % 60);
    }
    let minutes = (a / 60.0).round() as u64;
    if minutes < 48 * 60 {
        return format!("{sign}{} h {} min", minutes / 60, minutes % 60);
    }
    format!("{sign}{} d", fmt_num(a / 86_400.0, 1))
}

/// `n` things in words: "1 job", "2 jobs", "12,000 jobs" (the noun takes an "s" after any
/// count but one).
pub fn count(n: u64, noun: &str) -> String {
    let s = if n == 1 { "" } else { "s" };
    format!("{} {noun}{s}", fmt_num(n as f64, 0))
}

/// A label that is a count ("1", "2–4") followed by its noun: "1 CPU", "2–4 CPUs".
pub fn counted(label: &str, noun: &str) -> String {
    let s = if label.trim() == "1" { "" } else { "s" };
    format!("{label} {noun}{s}")
}

/// A number as JSON writes it (`null` when not finite): the `data-value` of table cells,
/// the same text as the CLI's `--json` output.
pub fn json_num(v: f64) -> String {
    serde_json::to_string(&v).unwrap_or_else(|_| "null".into())
}

/// A unit for a time axis whose largest value is `max_s`: (name, seconds per unit).
pub fn secs_unit(max_s: f64) -> (&'static str, f64) {
    if max_s >= 2.0 * 3600.0 {
        ("h", 3600.0)
    } else if max_s >= 120.0 {
        ("min", 60.0)
    } else {
        ("s", 1.0)
    }
}

/// Saves `text` as a file named `filename`.
pub fn download_text(filename: &str, mime: &str, text: &str) -> Result<(), String> {
    let url = (|| -> Result<String, JsValue> {
        let parts = js_sys::Array::of1(&JsValue::from_str(text));
        let opts = web_sys::BlobPropertyBag::new();
        opts.set_type(mime);
        let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts)?;
        web_sys::Url::create_object_url_with_blob(&blob)
    })()
    .map_err(|e| format!("cannot save {filename}: {e:?}"))?;
    let clicked = click_link(&url, filename);
    let _ = web_sys::Url::revoke_object_url(&url);
    clicked
}

/// Saves what `href` points to (an object or data URL) as `filename`.
pub fn click_link(href: &str, filename: &str) -> Result<(), String> {
    let a: web_sys::HtmlAnchorElement = gloo::utils::document()
        .create_element("a")
        .map_err(|e| format!("cannot save {filename}: {e:?}"))?
        .unchecked_into();
    a.set_href(href);
    a.set_download(filename);
    a.click();
    Ok(())
}

/// The page's address bar, changed without a reload (`None` drops the fragment).
pub fn replace_url(url: Option<&str>) {
    let Some(w) = web_sys::window() else { return };
    let Ok(history) = w.history() else { return };
    let url = url.map(str::to_string).unwrap_or_else(|| {
        let loc = w.location();
        format!(
            "{}{}",
            loc.pathname().unwrap_or_default(),
            loc.search().unwrap_or_default()
        )
    });
    let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
}

/// The page's current fragment (with its `#`), empty when there is none.
pub fn location_hash() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}
