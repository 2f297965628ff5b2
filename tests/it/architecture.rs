//! The layering of docs/architecture.md, checked on the source: the library never mentions clap
//! nor the command-line layer, and each file imports only its own unit or units of a lower
//! layer. Whole files are read (comments, strings and items under `#[cfg(test)]` aside), so
//! production code after a test module is checked too.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Layers from the ground up. A unit is the longest entry naming a file's module path; a file
/// may import its own unit and units of a strictly lower layer, nothing else.
const LAYERS: &[(&str, u32)] = &[
    // the ground: memory, parallelism, digits, carets, and PBS's vocabulary
    ("mem", 0),
    ("parallel", 0),
    ("digits", 0),
    ("snippet", 0),
    ("pbs::defs", 0),
    // the scheduler-neutral core
    ("formula", 1),
    ("fairshare", 1),
    ("files", 2),
    ("jobs", 3),
    ("usage", 3),
    ("order", 4),
    // one adapter per scheduler
    ("pbs", 5),
    ("slurm", 5),
    ("flux", 5),
    ("swf", 5),
    ("native", 5),
    // above the adapters
    ("inputs", 6),
    ("home", 7),
    ("scenario", 8),
    ("ftest", 9),
    ("replay", 9),
    ("qmgr", 10),
    ("plot", 10),
    ("forecast", 10),
    // what admins watch
    ("metrics", 11),
    // the HTML report over the pictures, the replay and the forecast
    ("report", 11),
    // searches policies over replays
    ("tune", 11),
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

/// The library's files with their module paths (`src/a/b.rs` and `src/a/b/mod.rs` are `a::b`);
/// `src/cli` and `src/main.rs` are the binary.
fn library_files() -> Vec<(PathBuf, Vec<String>)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let rel = f.strip_prefix(&src).unwrap().with_extension("");
        let mut segs: Vec<String> = rel
            .iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect();
        if segs.last().is_some_and(|s| s == "mod") {
            segs.pop();
        }
        if segs == ["lib"] {
            segs.clear();
        }
        if segs.first().is_some_and(|s| s == "cli" || s == "main") {
            continue;
        }
        out.push((f, segs));
    }
    out
}

/// `text` with comments and string and char literals blanked (newlines kept).
fn blank_comments_and_strings(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, a: usize, z: usize| {
        for c in out.iter_mut().take(z).skip(a) {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            let z = b[i..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |k| i + k);
            blank(&mut out, i, z);
            i = z;
        } else if b[i..].starts_with(b"/*") {
            let (mut depth, mut j) = (1, i + 2);
            while j < b.len() && depth > 0 {
                if b[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if b[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if (b[i] == b'r' || (b[i] == b'b' && b.get(i + 1) == Some(&b'r')))
            && (i == 0 || !ident(b[i - 1]))
            && {
                let s = if b[i] == b'b' { i + 2 } else { i + 1 };
                let h = b[s..].iter().take_while(|&&c| c == b'#').count();
                b.get(s + h) == Some(&b'"')
            }
        {
            let s = if b[i] == b'b' { i + 2 } else { i + 1 };
            let hashes = b[s..].iter().take_while(|&&c| c == b'#').count();
            let mut end = vec![b'"'];
            end.extend(std::iter::repeat_n(b'#', hashes));
            let from = s + hashes + 1;
            let z = b[from..]
                .windows(end.len())
                .position(|w| w == end.as_slice())
                .map_or(b.len(), |k| from + k + end.len());
            blank(&mut out, i, z);
            i = z;
        } else if b[i] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            let z = (j + 1).min(b.len());
            blank(&mut out, i, z);
            i = z;
        } else if b[i] == b'\'' {
            // a char literal ('a', '\n', '\u{..}', '"'); otherwise a lifetime or a label
            let rest = &b[i + 1..];
            let len = if rest.first() == Some(&b'\\') {
                rest.iter().skip(1).position(|&c| c == b'\'').map(|k| k + 2)
            } else {
                let ch = std::str::from_utf8(&rest[..rest.len().min(4)])
                    .ok()
                    .or_else(|| std::str::from_utf8(&rest[..rest.len().min(1)]).ok())
                    .and_then(|s| s.chars().next())
                    .map_or(1, char::len_utf8);
                (rest.get(ch) == Some(&b'\'')).then_some(ch)
            };
            match len {
                Some(n) => {
                    blank(&mut out, i, i + n + 2);
                    i += n + 2;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The end of the item that starts at `i`: its `;` at depth 0 or its closing brace.
fn item_end(t: &[u8], mut i: usize) -> usize {
    let mut depth = 0i32;
    while i < t.len() {
        match t[i] {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b';' if depth == 0 => return i + 1,
            b'{' if depth == 0 => {
                let mut level = 0;
                while i < t.len() {
                    match t[i] {
                        b'{' => level += 1,
                        b'}' => {
                            level -= 1;
                            if level == 0 {
                                return i + 1;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
                return i;
            }
            _ => {}
        }
        i += 1;
    }
    i
}

/// The code of a file: comments and strings blanked, every item under `#[cfg(test)]` removed,
/// the rest of the file kept.
fn code(path: &Path) -> String {
    let text = blank_comments_and_strings(&std::fs::read_to_string(path).unwrap());
    let mut t = text.into_bytes();
    const ATTR: &[u8] = b"#[cfg(test)]";
    let mut from = 0;
    while let Some(k) = t[from..].windows(ATTR.len()).position(|w| w == ATTR) {
        let a = from + k;
        let mut i = a + ATTR.len();
        // further attributes of the same item
        loop {
            let ws = t[i..]
                .iter()
                .take_while(|c| c.is_ascii_whitespace())
                .count();
            if t[i + ws..].starts_with(b"#[") {
                i = item_end(&t, i + ws + 1);
            } else {
                break;
            }
        }
        let z = item_end(&t, i);
        for c in &mut t[a..z] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
        from = z;
    }
    String::from_utf8(t).unwrap()
}

/// Every module path a file's code names through `crate::`, `super::` or `self::`, as
/// absolute segments (use trees with braces expanded).
fn named_paths(me: &[String], code: &str) -> Vec<Vec<String>> {
    fn ident_at(s: &str) -> &str {
        let n = s
            .char_indices()
            .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_'))
            .map_or(s.len(), |(i, _)| i);
        &s[..n]
    }
    // expand a path starting at `s` (just after a root keyword) into full segment lists
    fn expand(s: &str, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
        let s = s.trim_start();
        let Some(rest) = s.strip_prefix("::") else {
            out.push(prefix);
            return;
        };
        let rest = rest.trim_start();
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut start = 0;
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        item(&group[start..j], &prefix, out);
                        return;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        item(&group[start..j], &prefix, out);
                        start = j + 1;
                    }
                    _ => {}
                }
            }
            return;
        }
        let id = ident_at(rest);
        if id.is_empty() {
            out.push(prefix);
            return;
        }
        let mut p = prefix;
        p.push(id.to_string());
        expand(&rest[id.len()..], p, out);
    }
    fn item(s: &str, prefix: &[String], out: &mut Vec<Vec<String>>) {
        let s = s.trim();
        if s.is_empty() || s == "self" || s == "*" {
            out.push(prefix.to_vec());
            return;
        }
        let id = ident_at(s);
        let mut p = prefix.to_vec();
        if !id.is_empty() {
            p.push(id.to_string());
        }
        expand(&s[id.len()..], p, out);
    }
    let mut found = Vec::new();
    let bytes = code.as_bytes();
    for root in ["crate", "super", "self"] {
        for (i, _) in code.match_indices(root) {
            let before_ok = i == 0 || {
                let c = bytes[i - 1];
                !(c.is_ascii_alphanumeric() || c == b'_' || c == b':')
            };
            let after = &code[i + root.len()..];
            if !before_ok || !after.trim_start().starts_with("::") {
                continue;
            }
            if root == "super" && i >= 2 && &code[i - 2..i] == "::" {
                continue;
            }
            let base: Vec<String> = match root {
                "crate" => Vec::new(),
                _ => me.to_vec(),
            };
            let mut paths = Vec::new();
            expand(after, Vec::new(), &mut paths);
            for p in paths {
                let mut cur = base.clone();
                let mut segs = p.as_slice();
                if root == "super" {
                    cur.pop();
                }
                while segs.first().is_some_and(|s| s == "super") {
                    cur.pop();
                    segs = &segs[1..];
                }
                cur.extend(segs.iter().cloned());
                found.push(cur);
            }
        }
    }
    found
}

/// The unit (longest `LAYERS` entry) of a module path, with its layer.
fn unit_of(path: &[String]) -> Option<(&'static str, u32)> {
    let joined = path.join("::");
    LAYERS
        .iter()
        .filter(|(u, _)| joined == *u || joined.starts_with(&format!("{u}::")))
        .max_by_key(|(u, _)| u.len())
        .copied()
}

/// What a file of module `me` imports against the layering, as `unit (layer L >= M)`.
fn violations(me: &[String], code: &str) -> Vec<String> {
    let Some((mine, my_layer)) = unit_of(me) else {
        if me.is_empty() {
            return Vec::new(); // lib.rs declares the modules
        }
        panic!(
            "module `{}` has no layer in this test and docs/architecture.md",
            me.join("::")
        );
    };
    let mut out: Vec<String> = named_paths(me, code)
        .into_iter()
        .filter_map(|p| unit_of(&p))
        .filter(|(u, l)| *u != mine && *l >= my_layer)
        .map(|(u, l)| format!("{u} (layer {l} >= {my_layer})"))
        .collect();
    out.sort();
    out.dedup();
    out
}

#[test]
fn the_library_never_mentions_clap_or_the_cli() {
    for (f, segs) in library_files() {
        let text = std::fs::read_to_string(&f).unwrap();
        assert!(!text.contains("clap"), "{} mentions clap", f.display());
        assert!(
            !code(&f).contains("crate::cli"),
            "{} ({}) imports the command-line layer",
            f.display(),
            segs.join("::")
        );
    }
}

#[test]
fn files_import_only_their_unit_and_lower_layers() {
    let mut all = BTreeMap::new();
    for (f, segs) in library_files() {
        let v = violations(&segs, &code(&f));
        if !v.is_empty() {
            all.insert(f.display().to_string(), v);
        }
    }
    assert!(all.is_empty(), "imports against the layers: {all:#?}");
}

#[test]
fn the_layer_check_catches_upward_sideways_and_hidden_imports() {
    let m = |s: &str| s.split("::").map(String::from).collect::<Vec<_>>();
    assert_eq!(
        violations(&m("formula::parse"), "use crate::order::JobSet;"),
        vec!["order (layer 4 >= 1)"]
    );
    assert_eq!(
        violations(&m("usage::store"), "use crate::{files::x, home::{a, b}};"),
        vec!["home (layer 7 >= 3)"]
    );
    // sideways: two adapters
    assert_eq!(
        violations(&m("slurm::sacct"), "x = crate::pbs::accounting::f();"),
        vec!["pbs (layer 5 >= 5)"]
    );
    // PBS's definitions are below everything, the rest of the PBS adapter is not
    assert!(violations(&m("formula::names"), "use crate::pbs::defs::keywords;").is_empty());
    assert_eq!(
        violations(&m("pbs::defs::units"), "use super::super::qstat::read;"),
        vec!["pbs (layer 5 >= 0)"]
    );
    assert!(violations(&m("qmgr::exec"), "use crate::ftest::guard;").is_empty());
    // after a test module, code is still read; inside it, it is not
    let text = "#[cfg(test)]\nmod tests { use crate::home::Home; }\nuse crate::scenario::S;\n";
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("x.rs");
    std::fs::write(&f, text).unwrap();
    assert_eq!(
        violations(&m("order::sort"), &code(&f)),
        vec!["scenario (layer 8 >= 4)"]
    );
    // strings and comments name nothing
    let text = blank_comments_and_strings("// crate::home\nlet s = \"crate::home\";");
    assert!(violations(&m("order::sort"), &text).is_empty());
}

/// Where `unsafe` may appear: the memory module and the libm bindings.
const UNSAFE_HOMES: &[&str] = &["mem", "formula::float_math"];

#[test]
fn unsafe_lives_only_in_the_memory_module_and_the_libm_bindings() {
    let mut found = Vec::new();
    for (f, segs) in library_files() {
        let joined = segs.join("::");
        if UNSAFE_HOMES
            .iter()
            .any(|h| joined == *h || joined.starts_with(&format!("{h}::")))
        {
            continue;
        }
        let text = blank_comments_and_strings(&std::fs::read_to_string(&f).unwrap());
        for (n, line) in text.lines().enumerate() {
            let has = line.match_indices("unsafe").any(|(i, _)| {
                let b = line.as_bytes();
                let before = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
                let after = b
                    .get(i + 6)
                    .is_none_or(|c| !(c.is_ascii_alphanumeric() || *c == b'_'));
                before && after
            });
            if has {
                found.push(format!("{}:{}", f.display(), n + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "unsafe outside mem/ and the libm bindings: {found:#?}"
    );
}
