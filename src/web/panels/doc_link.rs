//! Help texts name the docs that explain them ("docs/ses.md"); on the page those names are
//! links to the rendered pages shipped beside it (`docs/ses.html`, built by the docs-html
//! binary), opened in a new tab so the scenario stays as it is.

use yew::prelude::*;

/// `text` with every `docs/NAME.md` in it turned into a link to its page.
pub fn with_doc_links(text: &str) -> Html {
    let mut parts: Vec<Html> = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("docs/") {
        let after = &rest[at + 5..];
        let name_len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            .unwrap_or(after.len());
        let name = &after[..name_len];
        if name.is_empty() || !after[name_len..].starts_with(".md") {
            // Not a doc's name: keep the text up to and with "docs/" and look further.
            parts.push(Html::from(rest[..at + 5].to_string()));
            rest = after;
            continue;
        }
        parts.push(Html::from(rest[..at].to_string()));
        let href = doc_href(name);
        let shown = format!("docs/{name}.md");
        parts.push(
            html! { <a href={href} target="_blank" rel="noopener" class="doc-link">{shown}</a> },
        );
        rest = &after[name_len + 3..];
    }
    parts.push(Html::from(rest.to_string()));
    html! { <>{ for parts }</> }
}

/// The page of a doc (`README` is the docs' index).
pub fn doc_href(name: &str) -> String {
    if name == "README" {
        "docs/index.html".into()
    } else {
        format!("docs/{name}.html")
    }
}
