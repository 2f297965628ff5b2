//! The docs' commands: every ```` ```sh runnable ```` block of README.md and docs/*.md is run
//! with `sh -e` from the repository root, in a fresh HOME (no home), with the built
//! `fairsort` first on PATH. A block that fails fails the test with its output.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The runnable `sh` blocks of a Markdown text: (line of the fence, body).
fn runnable_blocks(text: &str) -> Vec<(usize, String)> {
    let mut blocks = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        let fence = line.trim_start();
        match &mut current {
            Some((_, body)) => {
                if fence.starts_with("```") {
                    if let Some(b) = current.take() {
                        blocks.push(b);
                    }
                } else {
                    body.push_str(line);
                    body.push('\n');
                }
            }
            None => {
                if let Some(info) = fence.strip_prefix("```") {
                    let words: Vec<&str> = info.split_whitespace().collect();
                    if words.first() == Some(&"sh") && words.contains(&"runnable") {
                        current = Some((i + 1, String::new()));
                    } else if !info.trim().is_empty() || fence == "```" {
                        // Skip any other block up to its closing fence.
                        current = None;
                    }
                }
            }
        }
    }
    blocks
}

fn docs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    docs.retain(|p| p.extension().is_some_and(|e| e == "md"));
    docs.sort();
    files.extend(docs);
    files
}

#[test]
fn the_runnable_blocks_of_the_docs_run() {
    let bin = crate::common::bin();
    let bin_dir = bin.parent().map(Path::to_path_buf).unwrap_or_default();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut ran = 0;
    for file in docs() {
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{e}"));
        for (line, body) in runnable_blocks(&text) {
            let home = tempfile::tempdir().unwrap();
            let out = Command::new("sh")
                .arg("-ec")
                .arg(&body)
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .env("HOME", home.path())
                .env("PATH", &path)
                .env_remove("FAIRSORT_HOME")
                .env_remove("XDG_DATA_HOME")
                .output()
                .unwrap_or_else(|e| panic!("{e}"));
            assert!(
                out.status.success(),
                "{}:{line}: the block failed ({}):\n{}\nstdout:\n{}\nstderr:\n{}",
                file.display(),
                out.status,
                body,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            ran += 1;
        }
    }
    assert!(ran >= 1, "no runnable block found");
}

#[test]
fn fences_are_closed_and_alone_on_their_line() {
    for file in docs() {
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{e}"));
        let mut open = false;
        for (i, line) in text.lines().enumerate() {
            let t = line.trim_start();
            if let Some(rest) = t.strip_prefix("```") {
                if open {
                    assert!(
                        rest.trim().is_empty(),
                        "{}:{}: text after a closing fence",
                        file.display(),
                        i + 1
                    );
                }
                open = !open;
            }
        }
        assert!(!open, "{}: a code block is never closed", file.display());
    }
}
