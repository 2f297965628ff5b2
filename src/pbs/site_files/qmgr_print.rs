//! The syntax `qmgr -c 'print ...'` writes (OpenPBS `src/cmds/qmgr.c`): `create KIND NAME`,
//! `set KIND [NAME] ATTR[.RESOURCE] = VALUE` and `+= VALUE` (a list attribute printed one
//! element a line), `#` comments; a value holding a space, comma or quote is printed inside `"`
//! (inside `'` when it holds a `"`), with no escapes. Objects come out in the order created.

use std::collections::{BTreeMap, HashMap};

use crate::files::text;
use crate::files::FormatError;

/// One attribute's value and the line that set it last (for errors about the value).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttrValue {
    /// The value, unquoted; `+=` elements joined with `,`.
    pub value: String,
    /// The 1-based line of the last `set` of it.
    pub line: usize,
}

/// An object's attributes, `name` or `name.resource` → value; every attribute is kept.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Attrs {
    map: BTreeMap<String, AttrValue>,
}

impl Attrs {
    /// The attribute `name` (`resources_available.ncpus` for a resource).
    pub fn get(&self, name: &str) -> Option<&AttrValue> {
        self.map.get(name)
    }

    /// The value of `name`, when set.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.map.get(name).map(|a| a.value.as_str())
    }

    /// Every attribute, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &AttrValue)> {
        self.map.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// How many attributes are set.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether none is set.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Sets `name` (`=`: replaces).
    pub(crate) fn set(&mut self, name: &str, value: String, line: usize) {
        self.map.insert(name.to_string(), AttrValue { value, line });
    }

    /// Appends `more` to `name`'s value as is (a line extension of `list` output).
    pub(crate) fn append_text(&mut self, name: &str, more: &str, line: usize) {
        if let Some(a) = self.map.get_mut(name) {
            a.value.push_str(more);
            a.line = line;
        }
    }

    /// Adds an element to `name` (`+=`: a list attribute's next element).
    pub(crate) fn append(&mut self, name: &str, value: &str, line: usize) {
        match self.map.get_mut(name) {
            Some(a) => {
                a.value.push(',');
                a.value.push_str(value);
                a.line = line;
            }
            None => self.set(name, value.to_string(), line),
        }
    }
}

/// One object of the output: `server`, `queue`, `resource`, `sched`, `node`, `hook`...
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QmgrObject {
    /// The object kind as written (`server`, `queue`, ...).
    pub kind: String,
    /// Its name (`""` for the server, `default` for `set sched ATTR` without a name).
    pub name: String,
    /// The line of its `create` (or first `set`).
    pub line: usize,
    /// Its attributes.
    pub attrs: Attrs,
}

/// The default scheduler's name (`PBS_DFLT_SCHED_NAME`): `set sched ATTR` names it.
pub const DEFAULT_SCHED: &str = "default";

/// PBS's boolean attribute values (`decode_b`): `True`/`False`, `t`/`f`, `y`/`n`, `1`/`0`, any
/// case.
pub fn pbs_bool(value: &str) -> Option<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" | "t" | "y" | "yes" | "1" => Some(true),
        "false" | "f" | "n" | "no" | "0" => Some(false),
        _ => None,
    }
}

/// Reads `print` output into its objects, in the order first named.
pub fn parse_qmgr_print(text: &str, file: &str) -> Result<Vec<QmgrObject>, FormatError> {
    let mut objects: Vec<QmgrObject> = Vec::new();
    let mut index: HashMap<(String, String), usize> = HashMap::new();
    for item in text::lines(text, file) {
        let (n, raw) = item?;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (verb, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        match verb {
            "create" => {
                let mut words = rest.split_whitespace();
                let (Some(kind), Some(name)) = (words.next(), words.next()) else {
                    return Err(FormatError::line(file, n, "expected `create KIND NAME`"));
                };
                let at = object(&mut objects, &mut index, kind, name, n);
                // `create KIND NAME attr=value[,attr=value]`, as qmgr accepts it.
                let extra: Vec<&str> = words.collect();
                for pair in extra.join(" ").split(',').filter(|p| !p.trim().is_empty()) {
                    let Some((a, v)) = pair.split_once('=') else {
                        return Err(FormatError::line(
                            file,
                            n,
                            format!(
                                "expected `attribute=value` after the name, found `{}`",
                                pair.trim()
                            ),
                        ));
                    };
                    let v = unquote(v.trim()).map_err(|m| FormatError::line(file, n, m))?;
                    if let Some(o) = objects.get_mut(at) {
                        o.attrs.set(a.trim(), v.to_string(), n);
                    }
                }
            }
            "set" => {
                let (kind, name, attr, append, value) =
                    set_line(rest).map_err(|m| FormatError::line(file, n, m))?;
                let at = object(&mut objects, &mut index, kind, name, n);
                if let Some(o) = objects.get_mut(at) {
                    if append {
                        o.attrs.append(attr, value, n);
                    } else {
                        o.attrs.set(attr, value.to_string(), n);
                    }
                }
            }
            other => {
                return Err(FormatError::line(
                    file,
                    n,
                    format!("expected `create`, `set` or a `#` comment, found `{other}`"),
                ))
            }
        }
    }
    Ok(objects)
}

/// The index of object (`kind`, `name`), added when new.
fn object(
    objects: &mut Vec<QmgrObject>,
    index: &mut HashMap<(String, String), usize>,
    kind: &str,
    name: &str,
    line: usize,
) -> usize {
    *index
        .entry((kind.to_string(), name.to_string()))
        .or_insert_with(|| {
            objects.push(QmgrObject {
                kind: kind.to_string(),
                name: name.to_string(),
                line,
                attrs: Attrs::default(),
            });
            objects.len() - 1
        })
}

/// `KIND [NAME] ATTR = VALUE` (or `+=`): kind, name, attribute, whether `+=`, value.
fn set_line(rest: &str) -> Result<(&str, &str, &str, bool, &str), String> {
    let eq = rest.find(" = ");
    let add = rest.find(" += ");
    let (left, append, value) = match (eq, add) {
        (Some(e), Some(a)) if a < e => (&rest[..a], true, &rest[a + 4..]),
        (Some(e), _) => (&rest[..e], false, &rest[e + 3..]),
        (None, Some(a)) => (&rest[..a], true, &rest[a + 4..]),
        (None, None) => return Err("expected `set KIND [NAME] ATTRIBUTE = VALUE`".to_string()),
    };
    let words: Vec<&str> = left.split_whitespace().collect();
    let (kind, name, attr) = match words[..] {
        [kind @ "server", attr] => (kind, "", attr),
        [kind @ "sched", attr] => (kind, DEFAULT_SCHED, attr),
        [kind, name, attr] => (kind, name, attr),
        [kind, _] => return Err(format!("`set {kind}` needs the {kind}'s name")),
        _ => return Err("expected `set KIND [NAME] ATTRIBUTE = VALUE`".to_string()),
    };
    let value = unquote(value.trim())?;
    Ok((kind, name, attr, append, value))
}

/// A value without the quotes qmgr put around it.
fn unquote(v: &str) -> Result<&str, String> {
    match v.chars().next() {
        Some(q @ ('"' | '\'')) => v
            .strip_prefix(q)
            .and_then(|s| s.strip_suffix(q))
            .filter(|_| v.len() >= 2)
            .ok_or_else(|| format!("value {v} has no closing {q}")),
        _ => Ok(v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_attributes_quotes_and_lists() {
        let text = "#\n# Create queues\n#\ncreate queue workq\nset queue workq queue_type = Execution\n\
            set server job_sort_formula = \"10*ncpus + walltime\"\n\
            set server acl_users = alice\nset server acl_users += bob\n\
            set queue workq comment = 'say \"hi\"'\nset sched preempt_prio = \"express_queue, normal_jobs\"\n";
        let o = parse_qmgr_print(text, "p").unwrap();
        assert_eq!(o.len(), 3);
        assert_eq!((o[0].kind.as_str(), o[0].name.as_str()), ("queue", "workq"));
        assert_eq!(o[0].attrs.value("queue_type"), Some("Execution"));
        assert_eq!(o[0].attrs.value("comment"), Some("say \"hi\""));
        assert_eq!(
            o[1].attrs.value("job_sort_formula"),
            Some("10*ncpus + walltime")
        );
        assert_eq!(o[1].attrs.value("acl_users"), Some("alice,bob"));
        assert_eq!(o[1].attrs.get("acl_users").map(|a| a.line), Some(8));
        assert_eq!(o[2].name, DEFAULT_SCHED);
        assert_eq!(
            o[2].attrs.value("preempt_prio"),
            Some("express_queue, normal_jobs")
        );
    }

    #[test]
    fn bad_lines_name_the_line() {
        let e = parse_qmgr_print("create queue q\nfrobnicate\n", "ps").unwrap_err();
        assert_eq!(
            e.to_string(),
            "ps:2: expected `create`, `set` or a `#` comment, found `frobnicate`"
        );
        let e = parse_qmgr_print("set queue q x = \"open\n", "ps").unwrap_err();
        assert_eq!(e.line_number(), Some(1));
        let e = parse_qmgr_print("set queue Priority = 3\n", "ps").unwrap_err();
        assert!(e.to_string().contains("needs the queue's name"), "{e}");
        assert!(parse_qmgr_print("set queue q Priority 3\n", "ps").is_err());
    }

    #[test]
    fn booleans_as_pbs_reads_them() {
        assert_eq!(pbs_bool("True"), Some(true));
        assert_eq!(pbs_bool("f"), Some(false));
        assert_eq!(pbs_bool("maybe"), None);
    }
}
