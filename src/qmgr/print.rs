//! `print` and `list` output in qmgr's layout: `print` writes re-playable commands under `#`
//! headers (values quoted when they hold `"`, `'`, space or `,`); `list` writes `Server NAME`
//! then four-space-indented `name = value` lines, unquoted, wrapped at commas past column 80.

use crate::home::state::HomeState;
use crate::qmgr::attrs;
use crate::qmgr::attrs::Value;

/// Quotes a value for `print` so the line reads back as the same one command. As qmgr does:
/// `"..."` when it holds `'`, space or `,`, and `'...'` when it holds a `"`. fairsort also quotes
/// what its reader would otherwise split or end on (any whitespace — a newline included, which
/// [`crate::qmgr::script_requests`] keeps inside quotes — control characters, `=`, `+=`, `-=`, an
/// empty value), and a value with both quote kinds as adjacent pieces (`"a'b"'"c'`), which the
/// lexer joins into one value.
pub(crate) fn quote(v: &str) -> String {
    let plain = !v.is_empty()
        && !v.contains("+=")
        && !v.contains("-=")
        && !v
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || matches!(c, '"' | '\'' | ',' | '='));
    if plain {
        return v.to_string();
    }
    if !v.contains('"') {
        return format!("\"{v}\"");
    }
    if !v.contains('\'') {
        return format!("'{v}'");
    }
    let mut out = String::new();
    let mut rest = v;
    while !rest.is_empty() {
        let n = rest.find('"').unwrap_or(rest.len());
        let (piece, q) = if n > 0 {
            (&rest[..n], '"')
        } else {
            (&rest[..rest.find('\'').unwrap_or(rest.len())], '\'')
        };
        out.push(q);
        out.push_str(piece);
        out.push(q);
        rest = &rest[piece.len()..];
    }
    out
}

fn header(out: &mut String, text: &str) {
    out.push_str("#\n# ");
    out.push_str(text);
    out.push_str("\n#\n");
}

fn print_attrs(out: &mut String, prefix: &str, values: &[(String, Value)]) {
    for (name, v) in values {
        match v {
            Value::Single(s) => out.push_str(&format!("{prefix} {name} = {}\n", quote(s))),
            Value::List(items) => {
                for (i, item) in items.iter().enumerate() {
                    let op = if i == 0 { "=" } else { "+=" };
                    out.push_str(&format!("{prefix} {name} {op} {}\n", quote(item)));
                }
            }
        }
    }
}

/// Keeps only the attributes named in `filter` (all when empty; names case-insensitive; a
/// resource attribute's name selects all its resources, `resources_default` all
/// `resources_default.*`).
pub(crate) fn filtered(values: attrs::Values, filter: &[String]) -> attrs::Values {
    if filter.is_empty() {
        return values;
    }
    values
        .into_iter()
        .filter(|(n, _)| {
            let base = n.split('.').next().unwrap_or(n);
            filter
                .iter()
                .any(|f| f.eq_ignore_ascii_case(n) || f.eq_ignore_ascii_case(base))
        })
        .collect()
}

/// `print resource`: custom resources only (as PBS, built-ins are implied).
pub(crate) fn print_resources(state: &HomeState, names: &[String], out: &mut String) {
    let selected: Vec<_> = state
        .resources
        .iter()
        .filter(|(n, _)| names.is_empty() || names.contains(n))
        .collect();
    if selected.is_empty() {
        return;
    }
    header(out, "Create resources and set their properties.");
    for (name, def) in selected {
        header(out, &format!("Create and define resource {name}"));
        out.push_str(&format!("create resource {name}\n"));
        print_attrs(
            out,
            &format!("set resource {name}"),
            &attrs::resource_values(def),
        );
    }
}

/// `print queue [NAMES]`.
pub(crate) fn print_queues(
    state: &HomeState,
    names: &[String],
    filter: &[String],
    out: &mut String,
) {
    let selected: Vec<_> = state
        .queues
        .iter()
        .filter(|(n, _)| names.is_empty() || names.contains(n))
        .collect();
    if selected.is_empty() {
        return;
    }
    header(out, "Create queues and set their attributes.");
    for (name, q) in selected {
        header(out, &format!("Create and define queue {name}"));
        out.push_str(&format!("create queue {name}\n"));
        print_attrs(
            out,
            &format!("set queue {name}"),
            &filtered(attrs::queue_values(q), filter),
        );
    }
}

/// `print server`: resources, queues, then server attributes, as PBS.
pub fn print_server(state: &HomeState, filter: &[String]) -> String {
    let mut out = String::new();
    if filter.is_empty() {
        print_resources(state, &[], &mut out);
        print_queues(state, &[], &[], &mut out);
    }
    header(&mut out, "Set server attributes.");
    print_attrs(
        &mut out,
        "set server",
        &filtered(attrs::server_values(&state.server), filter),
    );
    out
}

/// `print sched`.
pub(crate) fn print_sched(state: &HomeState, filter: &[String]) -> String {
    let mut out = String::new();
    header(&mut out, "Set sched attributes.");
    print_attrs(
        &mut out,
        "set sched",
        &filtered(attrs::sched_values(&state.sched), filter),
    );
    out
}

/// One `list` block: `Kind name` then the attributes.
pub(crate) fn list_block(kind: &str, name: &str, values: &[(String, Value)]) -> String {
    let mut out = format!("{kind} {name}\n");
    for (attr, v) in values {
        let text = match v {
            Value::Single(s) => s.clone(),
            Value::List(items) => items.join(","),
        };
        out.push_str(&wrap_at_commas(&format!("    {attr} = "), &text));
        out.push('\n');
    }
    out
}

/// `prefix + value`, broken after a comma with `\n\t` once the line is past column 80.
fn wrap_at_commas(prefix: &str, value: &str) -> String {
    let mut out = prefix.to_string();
    let mut col = prefix.chars().count();
    for (i, piece) in value.split(',').enumerate() {
        if i > 0 {
            if col > 80 {
                out.push_str(",\n\t");
                col = 8;
            } else {
                out.push(',');
                col += 1;
            }
        }
        out.push_str(piece);
        col += piece.chars().count();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::home::state::{Queue, ResourceDef};

    #[test]
    fn quoting_rules() {
        assert_eq!(quote("ncpus"), "ncpus");
        assert_eq!(
            quote("pow(2,-(fairshare_tree_usage/fairshare_perc))"),
            "\"pow(2,-(fairshare_tree_usage/fairshare_perc))\""
        );
        assert_eq!(quote("a b"), "\"a b\"");
        assert_eq!(quote("it's"), "\"it's\"");
        assert_eq!(quote("say \"x\""), "'say \"x\"'");
        assert_eq!(quote(""), "\"\"");
        assert_eq!(quote("ncpus>=2"), "\"ncpus>=2\"");
        assert_eq!(quote("a\nb"), "\"a\nb\"");
        assert_eq!(quote("it's \"x\""), "\"it's \"'\"x\"'");
    }

    #[test]
    fn quoted_values_read_back_as_one_value() {
        for v in [
            "ncpus",
            "",
            "a b",
            "a,b",
            "x=1",
            "a+=b",
            "it's",
            "say \"x\"",
            "it's \"x\"",
            "'\"'\"",
            "(ncpus\n+ 1)",
            "tab\there",
            "\"",
            "'",
        ] {
            let q = quote(v);
            let toks = super::super::lexer::tokenize(&q).unwrap();
            assert_eq!(toks.len(), 1, "{v:?} -> {q}");
            match &toks[0].kind {
                super::super::lexer::TokKind::Text { value, .. } => assert_eq!(value, v, "{q}"),
                k => panic!("{v:?} -> {q} -> {k:?}"),
            }
        }
    }

    #[test]
    fn print_server_layout() {
        let mut s = HomeState::initial("alice");
        s.server.job_sort_formula = Some("pow(2, -(fairshare_tree_usage/fairshare_perc))".into());
        s.queues.insert(
            "workq".into(),
            Queue {
                priority: Some(100),
                queue_type: Some("Execution".into()),
                ..Default::default()
            },
        );
        s.resources.insert(
            "foo".into(),
            ResourceDef {
                kind: "float".into(),
                flag: None,
            },
        );
        assert_eq!(
            print_server(&s, &[]),
            "#\n# Create resources and set their properties.\n#\n\
             #\n# Create and define resource foo\n#\n\
             create resource foo\nset resource foo type = float\n\
             #\n# Create queues and set their attributes.\n#\n\
             #\n# Create and define queue workq\n#\n\
             create queue workq\nset queue workq queue_type = Execution\nset queue workq Priority = 100\n\
             #\n# Set server attributes.\n#\n\
             set server job_sort_formula = \"pow(2, -(fairshare_tree_usage/fairshare_perc))\"\n\
             set server managers = root@*\nset server managers += alice@*\n"
        );
    }

    #[test]
    fn list_layout_and_wrapping() {
        let mut s = HomeState::initial("alice");
        s.server.job_sort_formula = Some("pow(2, -(a/b))".into());
        let text = list_block("Server", "h", &attrs::server_values(&s.server));
        assert_eq!(
            text,
            "Server h\n    job_sort_formula = pow(2, -(a/b))\n    managers = root@*,alice@*\n"
        );
        let long: Vec<String> = (0..20)
            .map(|i| format!("user{i:02}@host.example.com"))
            .collect();
        let w = wrap_at_commas("    managers = ", &long.join(","));
        let lines: Vec<&str> = w.split('\n').collect();
        assert!(lines.len() > 1);
        assert!(lines[1].starts_with('\t'));
        assert_eq!(
            w.replace(",\n\t", ","),
            format!("    managers = {}", long.join(","))
        );
    }
}
