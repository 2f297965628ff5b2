//! The layering of docs/architecture.md, checked on the source: the library never mentions
//! clap nor the command-line layer, and each top-level module imports only modules of a lower
//! layer (so there is no import cycle between them).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Layers from the ground up; a module may import only modules of a strictly lower layer.
const LAYERS: &[(&str, u32)] = &[
    ("pbs", 0),
    ("snippet", 0),
    ("parallel", 0),
    ("digits", 0),
    ("formula", 1),
    ("fairshare", 1),
    ("formats", 2),
    ("usage", 3),
    ("queue", 3),
    ("home", 4),
    ("scenario", 5),
    ("ftest", 6),
    ("replay", 6),
    ("qmgr", 7),
    ("plot", 7),
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The library's source files by top-level module (`src/cli` and `src/main.rs` are the binary).
fn library_files() -> BTreeMap<String, Vec<PathBuf>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut by_module: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for f in files {
        let rel = f.strip_prefix(&src).unwrap();
        let first = rel.iter().next().unwrap().to_string_lossy().into_owned();
        let module = first.trim_end_matches(".rs").to_string();
        if module == "cli" || module == "main" {
            continue;
        }
        by_module.entry(module).or_default().push(f);
    }
    by_module
}

/// The code of a file without its `#[cfg(test)]` tail and without comments.
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let text = match text.find("#[cfg(test)]") {
        Some(i) => &text[..i],
        None => &text[..],
    };
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_library_never_mentions_clap_or_the_cli() {
    for (module, files) in library_files() {
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            assert!(
                !text.contains("clap"),
                "{} ({module}) mentions clap",
                f.display()
            );
            assert!(
                !code(&f).contains("crate::cli"),
                "{} ({module}) imports the command-line layer",
                f.display()
            );
        }
    }
}

/// The top-level modules that `text` names through `crate::` (paths and `use crate::{..}`).
fn crate_modules(text: &str) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut names = Vec::new();
    for (i, _) in text.match_indices("crate::") {
        let rest = &text[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // Split the group at depth 0 and take each item's first name.
            let mut depth = 0;
            let mut start = 0;
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        names.push(ident(&group[start..j]));
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        names.push(ident(&group[start..j]));
                        start = j + 1;
                    }
                    _ => {}
                }
            }
        } else {
            names.push(ident(rest));
        }
    }
    names.retain(|n| !n.is_empty());
    names
}

/// The modules of a higher or the same layer that `text` (code of `module`) imports.
fn upward_imports(module: &str, text: &str) -> Vec<String> {
    let layer: BTreeMap<&str, u32> = LAYERS.iter().copied().collect();
    let Some(&mine) = layer.get(module) else {
        panic!("top-level module `{module}` has no layer in this test and docs/architecture.md");
    };
    let mut found: Vec<String> = crate_modules(text)
        .into_iter()
        .filter(|other| other != module)
        .filter_map(|other| {
            let theirs = *layer.get(other.as_str())?;
            (theirs >= mine).then(|| format!("{other} (layer {theirs} >= {mine})"))
        })
        .collect();
    found.dedup();
    found
}

#[test]
fn modules_import_only_lower_layers() {
    for (module, paths) in library_files() {
        if module == "lib" {
            continue;
        }
        for f in paths {
            let up = upward_imports(&module, &code(&f));
            assert!(up.is_empty(), "{} (`{module}`) imports {up:?}", f.display());
        }
    }
}

#[test]
fn the_layer_check_catches_upward_and_sideways_imports() {
    assert_eq!(
        upward_imports("formula", "use crate::queue::JobSet;"),
        vec!["queue (layer 3 >= 1)"]
    );
    assert_eq!(
        upward_imports("usage", "use crate::{formats::x, home::{a, b}};"),
        vec!["home (layer 4 >= 3)"]
    );
    assert_eq!(
        upward_imports("usage", "x = crate::queue::f();"),
        vec!["queue (layer 3 >= 3)"]
    );
    assert!(upward_imports("qmgr", "use crate::ftest::guard;").is_empty());
}
