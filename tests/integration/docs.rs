//! The documentation cannot drift from the tree: every relative link and image of
//! README.md and docs/**/*.md points at a file that exists, every `#anchor` of a link at
//! a heading of its page, and the `## Layout` section of docs/CONTRIBUTING.md names every
//! source file, and no file that does not exist.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The folders whose `.rs` files the layout must name.
const SOURCE_ROOTS: [&str; 5] = ["src", "cli/src", "xtask/src", "benches", "python/src"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every file under `dir` whose name ends with `extension`, recursively, sorted.
fn files_under(dir: &Path, extension: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == extension) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// The Markdown files the links of which are checked.
fn markdown_files() -> Vec<PathBuf> {
    let mut files = vec![root().join("README.md")];
    files.extend(files_under(&root().join("docs"), "md"));
    files
}

/// The text outside fenced code blocks and inline code spans, where a link is a link.
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            let spans: Vec<&str> = line.split('`').collect();
            out.extend(spans.iter().step_by(2).copied());
            out.push('\n');
        }
    }
    out
}

/// The targets of `[text](target)` and `![alt](target)` in `text`.
fn link_targets(text: &str) -> Vec<String> {
    let prose = prose(text);
    let mut targets = Vec::new();
    let mut rest = prose.as_str();
    while let Some(at) = rest.find("](") {
        rest = &rest[at + 2..];
        let end = rest.find(')').unwrap_or(rest.len());
        let target = rest[..end].split_whitespace().next().unwrap_or("");
        targets.push(target.to_string());
        rest = &rest[end..];
    }
    targets
}

/// A link's file, relative to the page, or `None` for web links and pure anchors.
fn local_file(target: &str) -> Option<&str> {
    let is_web = target.starts_with("http://") || target.starts_with("https://");
    let file = target.split('#').next().unwrap_or("");
    (!is_web && !file.is_empty()).then_some(file)
}

#[test]
fn every_relative_link_and_image_resolves() {
    let mut broken = Vec::new();
    for page in markdown_files() {
        let text = std::fs::read_to_string(&page).unwrap();
        let dir = page.parent().unwrap();
        for target in link_targets(&text) {
            if let Some(file) = local_file(&target) {
                if !dir.join(file).is_file() {
                    let page = page.strip_prefix(root()).unwrap().display().to_string();
                    broken.push(format!("{page}: {target}"));
                }
            }
        }
    }
    assert!(
        broken.is_empty(),
        "links to missing files:\n{}",
        broken.join("\n")
    );
}

/// GitHub's anchor of a heading: its text (a link's text for a link) in lower case,
/// punctuation dropped but `-` and `_`, spaces as `-`.
fn slug(heading: &str) -> String {
    let mut text = String::new();
    let mut rest = heading;
    while let Some(open) = rest.find('[') {
        text.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match (after.find("]("), after.find(')')) {
            (Some(close), Some(end)) if close < end => {
                text.push_str(&after[..close]);
                rest = &after[end + 1..];
            }
            _ => rest = after,
        }
    }
    text.push_str(rest);
    text.trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a page's headings; a repeated one is numbered as GitHub numbers it.
fn anchors(text: &str) -> Vec<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut found = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        let heading = line.trim_start_matches('#');
        if fenced || !line.starts_with('#') || !heading.starts_with(' ') {
            continue;
        }
        let base = slug(heading);
        let repeats = seen.entry(base.clone()).or_default();
        found.push(match *repeats {
            0 => base,
            n => format!("{base}-{n}"),
        });
        *repeats += 1;
    }
    found
}

#[test]
fn every_links_anchor_is_a_heading_of_its_page() {
    let mut broken = Vec::new();
    for page in markdown_files() {
        let text = std::fs::read_to_string(&page).unwrap();
        for target in link_targets(&text) {
            let Some((file, anchor)) = target.split_once('#') else {
                continue;
            };
            if target.starts_with("http://") || target.starts_with("https://") {
                continue;
            }
            let linked = match file {
                "" => page.clone(),
                file => page.parent().unwrap().join(file),
            };
            let is_markdown = linked.extension().is_some_and(|e| e == "md");
            let Ok(linked_text) = std::fs::read_to_string(&linked) else {
                continue; // a missing file is the other test's to report
            };
            if is_markdown && !anchors(&linked_text).iter().any(|a| a == anchor) {
                let page = page.strip_prefix(root()).unwrap().display().to_string();
                broken.push(format!("{page}: {target}"));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "links to headings that do not exist:\n{}",
        broken.join("\n")
    );
}

#[test]
fn anchors_are_githubs() {
    let page = "# Intro\n## The lizard: half the `gates` hard\n```\n# not a heading\n```\n\
                ## Intro\n### [docs](x.md), 2026-11-29\n";
    assert_eq!(
        anchors(page),
        [
            "intro",
            "the-lizard-half-the-gates-hard",
            "intro-1",
            "docs-2026-11-29"
        ]
    );
}

/// The lines of `## Layout` in docs/CONTRIBUTING.md, up to the next `## ` heading.
fn layout_section() -> String {
    let text = std::fs::read_to_string(root().join("docs/CONTRIBUTING.md")).unwrap();
    let start = text
        .find("\n## Layout\n")
        .expect("docs/CONTRIBUTING.md has a `## Layout` section");
    let body = &text[start + "\n## Layout\n".len()..];
    let end = body.find("\n## ").unwrap_or(body.len());
    body[..end].to_string()
}

/// The `.rs` paths the layout names in backticks.
fn named_sources(layout: &str) -> Vec<String> {
    let spans = layout.split('`').skip(1).step_by(2);
    spans
        .filter(|s| s.ends_with(".rs"))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_layout_names_every_source_file() {
    let named = named_sources(&layout_section());
    let mut missing = Vec::new();
    for source_root in SOURCE_ROOTS {
        for file in files_under(&root().join(source_root), "rs") {
            let path = file
                .strip_prefix(root())
                .unwrap()
                .to_str()
                .unwrap()
                .to_string();
            if !named.contains(&path) {
                missing.push(path);
            }
        }
    }
    assert!(
        missing.is_empty(),
        "docs/CONTRIBUTING.md's ## Layout does not name:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_layout_names_no_file_that_does_not_exist() {
    let gone: Vec<String> = named_sources(&layout_section())
        .into_iter()
        .filter(|path| !root().join(path).is_file())
        .collect();
    assert!(
        gone.is_empty(),
        "docs/CONTRIBUTING.md's ## Layout names files that do not exist:\n{}",
        gone.join("\n")
    );
}
