//! Renders the user docs (`docs/*.md`) to static HTML pages that ship with the browser app:
//! the page's help texts link to them and, like the page, they work offline. Trunk runs it
//! after each build (a hook in Trunk.toml) into its staging directory:
//!
//!   cargo run --release --bin docs-html -- docs "$TRUNK_STAGING_DIR/docs"
//!
//! `README.md` becomes `index.html`; links between the docs (`sob.md#deviations`) are turned
//! into links between the pages; the docs' images are copied beside them; `index.json`
//! lists every file written, for the service worker's offline copy.

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    let mut args = std::env::args().skip(1);
    let src = args.next().unwrap_or_else(|| "docs".into());
    let out = args.next().or_else(|| {
        std::env::var("TRUNK_STAGING_DIR")
            .ok()
            .map(|d| format!("{d}/docs"))
    });
    let Some(out) = out else {
        eprintln!("usage: docs-html SRC_DIR OUT_DIR (or TRUNK_STAGING_DIR set)");
        return std::process::ExitCode::from(2);
    };
    match render::all(std::path::Path::new(&src), std::path::Path::new(&out)) {
        Ok(n) => {
            eprintln!("docs-html: {n} pages from {src} into {out}");
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("docs-html: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

#[cfg(target_arch = "wasm32")]
fn main() {
    // The docs are rendered natively, at build time; never in the page.
}

#[cfg(not(target_arch = "wasm32"))]
mod render {
    use std::fs;
    use std::path::Path;

    use pulldown_cmark::{html, CowStr, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

    /// The pages' style sheet (the page's CSP allows no inline style).
    const CSS: &str = "body{margin:0 auto;max-width:860px;padding:12px 20px 40px;font:15px/1.55 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1b1f24}\
nav{font-size:13px;border-bottom:1px solid #d0d7de;padding:4px 0 8px;display:flex;flex-wrap:wrap;gap:4px 12px}\
a{color:#0969da}h1{font-size:26px}h2{font-size:20px;margin-top:28px}h3{font-size:16px}\
code{font:13px ui-monospace,monospace;background:#f6f8fa;padding:1px 4px;border-radius:4px}\
pre{background:#f6f8fa;padding:8px 12px;overflow-x:auto;border-radius:6px}pre code{background:none;padding:0}\
table{border-collapse:collapse;display:block;overflow-x:auto;font-variant-numeric:tabular-nums}\
th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left}img{max-width:100%}\
blockquote{margin:0;padding:0 12px;border-left:4px solid #d0d7de;color:#57606a}\n";

    /// Renders every `*.md` of `src` into `out`; returns the number of pages.
    pub fn all(src: &Path, out: &Path) -> Result<usize, String> {
        let mut names: Vec<String> = fs::read_dir(src)
            .map_err(|e| format!("cannot read {}: {e}", src.display()))?
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        // Sorted: the same pages and index in the same order on every machine.
        names.sort();
        fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
        let pages: Vec<&String> = names.iter().filter(|n| n.ends_with(".md")).collect();
        let nav: Vec<(String, String)> = pages
            .iter()
            .map(|n| (page_name(n), n.trim_end_matches(".md").to_string()))
            .collect();
        let mut written = Vec::new();
        for name in &pages {
            let path = src.join(name);
            let text = fs::read_to_string(&path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let file = page_name(name);
            write(out, &file, &page(&text, &nav, &file))?;
            written.push(file);
        }
        for name in names
            .iter()
            .filter(|n| n.ends_with(".svg") || n.ends_with(".png"))
        {
            fs::copy(src.join(name), out.join(name))
                .map_err(|e| format!("cannot copy {name}: {e}"))?;
            written.push(name.clone());
        }
        write(out, "docs.css", CSS)?;
        written.push("docs.css".into());
        let index = format!(
            "[{}]\n",
            written
                .iter()
                .map(|f| format!("\"{f}\""))
                .collect::<Vec<_>>()
                .join(",")
        );
        write(out, "index.json", &index)?;
        Ok(pages.len())
    }

    fn write(dir: &Path, name: &str, text: &str) -> Result<(), String> {
        fs::write(dir.join(name), text).map_err(|e| format!("cannot write {name}: {e}"))
    }

    /// `README.md` → `index.html`, `sob.md` → `sob.html`.
    fn page_name(md: &str) -> String {
        if md == "README.md" {
            "index.html".into()
        } else {
            format!("{}.html", md.trim_end_matches(".md"))
        }
    }

    /// A link target as it must read from a page: another doc's page, the app for links
    /// out of docs/ to the repository's top (which the app's site does not have).
    fn retarget(url: &str) -> String {
        let (path, anchor) = url
            .split_once('#')
            .map_or((url, None), |(p, a)| (p, Some(a)));
        let is_local = !path.contains("://") && !path.starts_with('/');
        let path = if is_local && path.ends_with(".md") && !path.contains('/') {
            page_name(path)
        } else if is_local && path.starts_with("../") {
            // The repository's README, sources…: not on the app's site; the project's copy
            // is where a reader finds them.
            format!("../#{}", path.trim_start_matches("../"))
        } else {
            path.to_string()
        };
        match anchor {
            Some(a) => format!("{path}#{a}"),
            None => path,
        }
    }

    /// Gives every heading without an explicit `{#id}` the id GitHub gives it, so links
    /// such as the report card's `sob.md#presets-and-experiments` land on the paragraph.
    fn with_heading_ids(mut events: Vec<Event<'_>>) -> Vec<Event<'_>> {
        let mut open: Option<(usize, String)> = None;
        for i in 0..events.len() {
            match &events[i] {
                Event::Start(Tag::Heading { id: None, .. }) => open = Some((i, String::new())),
                Event::Text(t) | Event::Code(t) => {
                    if let Some((_, text)) = &mut open {
                        text.push_str(t);
                    }
                }
                Event::End(TagEnd::Heading(_)) => {
                    if let Some((at, text)) = open.take() {
                        if let Event::Start(Tag::Heading { id, .. }) = &mut events[at] {
                            *id = Some(CowStr::from(gridscope::reproduce::heading_slug(&text)));
                        }
                    }
                }
                _ => {}
            }
        }
        events
    }

    /// One whole page: the navigation, the rendered markdown, its title from the first
    /// heading.
    pub fn page(markdown: &str, nav: &[(String, String)], file: &str) -> String {
        let options = Options::ENABLE_TABLES
            | Options::ENABLE_STRIKETHROUGH
            | Options::ENABLE_FOOTNOTES
            | Options::ENABLE_HEADING_ATTRIBUTES;
        let mut title = String::new();
        let mut in_title = false;
        let events: Vec<Event> = Parser::new_ext(markdown, options)
            .map(|ev| match ev {
                Event::Start(Tag::Link {
                    link_type,
                    dest_url,
                    title,
                    id,
                }) => Event::Start(Tag::Link {
                    link_type,
                    dest_url: CowStr::from(retarget(&dest_url)),
                    title,
                    id,
                }),
                other => other,
            })
            .inspect(|ev| match ev {
                Event::Start(Tag::Heading {
                    level: HeadingLevel::H1,
                    ..
                }) if title.is_empty() => in_title = true,
                Event::End(TagEnd::Heading(HeadingLevel::H1)) => in_title = false,
                Event::Text(t) | Event::Code(t) if in_title => title.push_str(t),
                _ => {}
            })
            .collect();
        let events = with_heading_ids(events);
        let mut body = String::new();
        html::push_html(&mut body, events.into_iter());
        let links: Vec<String> = nav
            .iter()
            .map(|(f, label)| {
                if f == file {
                    format!("<strong>{label}</strong>")
                } else {
                    format!("<a href=\"{f}\">{label}</a>")
                }
            })
            .collect();
        let title = if title.is_empty() {
            "Gridscope docs".into()
        } else {
            title
        };
        format!(
            "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\" />\n\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\" />\n\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'\" />\n\
<title>{} — Gridscope docs</title>\n<link rel=\"stylesheet\" href=\"docs.css\" />\n</head>\n<body>\n\
<nav aria-label=\"Docs\"><a href=\"../\">← Gridscope</a> {}</nav>\n<main>\n{body}</main>\n</body>\n</html>\n",
            escape(&title),
            links.join(" ")
        )
    }

    fn escape(s: &str) -> String {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn links_between_docs_become_links_between_pages() {
            let md = "# SES & co\n\nSee [SOB](sob.md#deviations), [the index](README.md), \
                      [code](../src/lib.rs) and [out](https://example.org/x.md).\n\n\
                      | a | b |\n|---|---|\n| 1 | 2 |\n";
            let nav = vec![("sob.html".to_string(), "sob".to_string())];
            let html = page(md, &nav, "ses.html");
            assert!(
                html.contains("<title>SES &amp; co — Gridscope docs</title>"),
                "{html}"
            );
            assert!(html.contains("href=\"sob.html#deviations\""), "{html}");
            assert!(html.contains("href=\"index.html\""), "{html}");
            assert!(html.contains("href=\"../#src/lib.rs\""), "{html}");
            assert!(html.contains("href=\"https://example.org/x.md\""), "{html}");
            assert!(
                html.contains("<table>") && html.contains("<td>2</td>"),
                "{html}"
            );
            assert!(html.contains("<a href=\"sob.html\">sob</a>"), "{html}");
        }

        #[test]
        fn every_doc_of_the_repository_renders() {
            let out = std::env::temp_dir().join(format!("gridscope-docs-{}", std::process::id()));
            let n = all(Path::new("docs"), &out).expect("render docs/");
            assert!(n >= 8, "{n} pages");
            let index = fs::read_to_string(out.join("index.json")).expect("index.json");
            for page in ["index.html", "ses.html", "sob.html", "docs.css"] {
                assert!(index.contains(page), "{index}");
                assert!(out.join(page).is_file(), "{page}");
            }
            let ses = fs::read_to_string(out.join("ses.html")).expect("ses.html");
            assert!(
                !ses.contains(".md\""),
                "a link to markdown is left in ses.html"
            );
            let _ = fs::remove_dir_all(&out);
        }
    }
}
