//! PBS fair-share usage: the scheduler's binary `sched_priv/usage` file (both versions,
//! openpbs.md §3.6), a text form (`name usage` lines), and applying usage to a tree.

use std::collections::{HashMap, HashSet};

use crate::fairshare::spec::TreeSpec;
use crate::files::text;
use crate::files::FormatError;
use crate::pbs::defs::tree::{ROOT_NAME, UNKNOWN_GROUP};

/// Label used in messages when no path is known.
pub const FILE: &str = crate::pbs::defs::tree::USAGE_FILE;
/// The v2 header tag (`char tag[9]`, NUL-terminated).
pub const MAGIC: &[u8; 9] = b"PBS_MAG!\0";
/// Size of the v2 header struct `{char tag[9]; double version;}` on x86_64.
pub const HEADER_SIZE: usize = 24;
/// Size of a v2 record `{char name[50]; double usage;}` (50 + 6 padding + 8).
pub const RECORD_V2_SIZE: usize = 64;
/// Name field of a v2 record.
pub const NAME_V2: usize = 50;
/// Size of a v1 record `{char name[9]; double usage;}` (9 + 7 padding + 8).
pub const RECORD_V1_SIZE: usize = 24;
/// Name field of a v1 record.
pub const NAME_V1: usize = 9;
/// PBS refuses a `last_decay` between 1 and this (1/1/2000, before v2 existed).
pub const MIN_LAST_DECAY: i64 = 946_713_600;
/// Usage every PBS node starts with (`FAIRSHARE_MIN_USAGE`).
pub const MIN_USAGE: f64 = 1.0;

/// The content of a PBS usage file.
#[derive(Debug, Clone, PartialEq)]
pub struct PbsUsage {
    /// 2 = binary with header, 1 = headerless binary, 0 = fairsort's text form.
    pub version: u8,
    /// v2's `last_decay` (seconds since the epoch); `None` for v1 and text.
    pub last_decay: Option<i64>,
    /// `(entity, usage)` in file order.
    pub entries: Vec<(String, f64)>,
}

fn record_err(record: usize, offset: usize, message: &str) -> FormatError {
    FormatError::Record {
        file: FILE.to_string(),
        record,
        offset,
        message: message.to_string(),
    }
}

fn f64_at(bytes: &[u8], at: usize) -> Option<f64> {
    let b: [u8; 8] = bytes.get(at..at + 8)?.try_into().ok()?;
    Some(f64::from_le_bytes(b))
}

fn i64_at(bytes: &[u8], at: usize) -> Option<i64> {
    let b: [u8; 8] = bytes.get(at..at + 8)?.try_into().ok()?;
    Some(i64::from_le_bytes(b))
}

/// PBS's `is_valid_pbs_name()` on a fixed-size name field: NUL-terminated inside the field,
/// printable ASCII (letters, digits, punctuation, space). fairsort also refuses an empty name.
fn entity_name(field: &[u8]) -> Option<String> {
    let end = field.iter().position(|&b| b == 0)?;
    let name = field.get(..end)?;
    if name.is_empty() || !name.iter().all(|&b| b == b' ' || b.is_ascii_graphic()) {
        return None;
    }
    String::from_utf8(name.to_vec()).ok()
}

fn read_records(
    bytes: &[u8],
    start: usize,
    size: usize,
    name_len: usize,
) -> Result<Vec<(String, f64)>, FormatError> {
    let mut entries = Vec::new();
    // Like fread(), a trailing partial record is ignored.
    let count = bytes.len().saturating_sub(start) / size;
    for i in 0..count {
        let at = start + i * size;
        let field = bytes.get(at..at + name_len).unwrap_or(&[]);
        let usage = f64_at(bytes, at + size - 8).unwrap_or(f64::NAN);
        // PBS: `usage >= 0 && is_valid_pbs_name(...)`, else "Invalid entity". NaN fails `>= 0`;
        // fairsort also refuses +inf, which no real usage can be.
        match entity_name(field) {
            Some(name) if usage >= 0.0 && usage.is_finite() => entries.push((name, usage)),
            _ => return Err(record_err(i + 1, at, "Invalid entity")),
        }
    }
    Ok(entries)
}

/// Reads a PBS usage file in either form: binary when it starts with PBS's magic or is not
/// NUL-free UTF-8 text, else the text form (the one detector of usage files).
pub fn read_usage(bytes: &[u8]) -> Result<PbsUsage, FormatError> {
    match std::str::from_utf8(bytes) {
        Ok(text) if !bytes.starts_with(b"PBS_MAG!") && !text.contains('\0') => {
            read_usage_text(text)
        }
        _ => read_usage_binary(bytes),
    }
}

/// Reads PBS's binary usage file: v2 (header `PBS_MAG!`, version 2.0, `time_t last_decay`, then
/// 64-byte records) or headerless v1 (24-byte records), little-endian x86_64 layout. A file
/// shorter than the header holds nothing (PBS's first `fread` fails). PBS logs and skips a bad
/// record; fairsort stops with PBS's message and the record's position.
pub fn read_usage_binary(bytes: &[u8]) -> Result<PbsUsage, FormatError> {
    if bytes.len() < HEADER_SIZE {
        return Ok(PbsUsage {
            version: 2,
            last_decay: None,
            entries: Vec::new(),
        });
    }
    if bytes.get(..MAGIC.len()) == Some(&MAGIC[..]) {
        let header_err = || FormatError::file(FILE, "Invalid usage file header");
        if f64_at(bytes, 16) != Some(2.0) {
            return Err(header_err());
        }
        let last = i64_at(bytes, HEADER_SIZE).ok_or_else(header_err)?;
        if last != 0 && last <= MIN_LAST_DECAY {
            return Err(header_err());
        }
        let entries = read_records(bytes, HEADER_SIZE + 8, RECORD_V2_SIZE, NAME_V2)?;
        Ok(PbsUsage {
            version: 2,
            last_decay: Some(last),
            entries,
        })
    } else {
        let entries = read_records(bytes, 0, RECORD_V1_SIZE, NAME_V1)?;
        Ok(PbsUsage {
            version: 1,
            last_decay: None,
            entries,
        })
    }
}

/// Checks that `u` can be written as a v2 usage file that [`read_usage_binary`] reads back as
/// it is: names PBS accepts (printable ASCII, 1 to 49 bytes), usage finite and >= 0, and a
/// `last_decay` of 0 or after 2000-01-01. The first problem, in words.
pub fn check_writable(u: &PbsUsage) -> Result<(), String> {
    if let Some(t) = u.last_decay {
        if t != 0 && t <= MIN_LAST_DECAY {
            return Err(format!(
                "last_decay {t} is before 2000-01-01; PBS would refuse the file's header"
            ));
        }
    }
    for (name, usage) in &u.entries {
        let bytes = name.as_bytes();
        if bytes.is_empty()
            || bytes.len() >= NAME_V2
            || !bytes.iter().all(|&b| b == b' ' || b.is_ascii_graphic())
        {
            return Err(format!(
                "entity {name:?}: PBS's usage file takes 1 to {} printable ASCII bytes",
                NAME_V2 - 1
            ));
        }
        if !(usage.is_finite() && *usage >= 0.0) {
            return Err(format!(
                "entity {name}: usage {usage} is not a finite number >= 0"
            ));
        }
    }
    Ok(())
}

/// Writes a v2 usage file as `pbs_sched`'s `write_usage()` does: header, `last_decay` (0 when
/// unknown), one 64-byte record per entry. Names are cut to 49 bytes like its `snprintf`; the
/// padding bytes, which PBS leaves uninitialised, are zero.
pub fn write_usage_binary(u: &PbsUsage) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_SIZE + 8 + u.entries.len() * RECORD_V2_SIZE);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[0u8; 7]);
    out.extend_from_slice(&2.0f64.to_le_bytes());
    out.extend_from_slice(&u.last_decay.unwrap_or(0).to_le_bytes());
    for (name, usage) in &u.entries {
        let mut rec = [0u8; RECORD_V2_SIZE];
        let n = name.len().min(NAME_V2 - 1);
        if let (Some(dst), Some(src)) = (rec.get_mut(..n), name.as_bytes().get(..n)) {
            dst.copy_from_slice(src);
        }
        if let Some(dst) = rec.get_mut(RECORD_V2_SIZE - 8..) {
            dst.copy_from_slice(&usage.to_le_bytes());
        }
        out.extend_from_slice(&rec);
    }
    out
}

/// Reads fairsort's text form of PBS usage: one `name usage` per line, `#` comments and blank
/// lines skipped; errors name the line.
pub fn read_usage_text(text: &str) -> Result<PbsUsage, FormatError> {
    let mut entries = Vec::new();
    for item in text::lines(text, FILE) {
        let (n, line) = item?;
        let content = line.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let fields: Vec<&str> = content.split_whitespace().collect();
        let [name, value] = fields[..] else {
            return Err(FormatError::line(
                FILE,
                n,
                format!("expected `name usage`, found {} fields", fields.len()),
            ));
        };
        // PBS's binary file holds only printable ASCII names (`is_valid_pbs_name`): refuse
        // others here rather than write a usage file PBS rejects.
        if !name.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(FormatError::line(
                FILE,
                n,
                format!(
                    "entity name `{}` is not printable ASCII",
                    name.escape_debug()
                ),
            ));
        }
        let usage = text::parse_usage(value, "usage").map_err(|m| FormatError::line(FILE, n, m))?;
        entries.push((name.to_string(), usage));
    }
    Ok(PbsUsage {
        version: 0,
        last_decay: None,
        entries,
    })
}

/// Builds the usage PBS would write for `spec`, in `rec_write_usage()`'s order: only leaves with
/// usage ≠ 1 (missing usage counts as PBS's starting 1), never the `unknown` group. PBS keeps
/// children in reverse file order with `unknown` last at the root and writes a sibling list
/// before the siblings' subtrees; fairsort walks the same order from `spec`'s node order.
pub fn usage_from_tree(spec: &TreeSpec, last_decay: Option<i64>) -> PbsUsage {
    let mut children: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, n) in spec.nodes.iter().enumerate() {
        let key = match n.parent.as_deref() {
            None => ROOT_NAME,
            Some("root") => ROOT_NAME,
            Some(p) => p,
        };
        children.entry(key).or_default().push(i);
    }
    let mut entries = Vec::new();
    let mut visited: HashSet<&str> = HashSet::new();
    // PBS list order at the root: reverse file order, then `unknown` (added first, so last).
    let root_list = |children: &HashMap<&str, Vec<usize>>| -> Vec<Option<usize>> {
        let mut v: Vec<Option<usize>> = children
            .get(ROOT_NAME)
            .map(|l| l.iter().rev().map(|&i| Some(i)).collect())
            .unwrap_or_default();
        v.push(None); // the unknown group
        v
    };
    let mut stack: Vec<Vec<Option<usize>>> = vec![root_list(&children)];
    while let Some(list) = stack.pop() {
        for n in list.iter().flatten().filter_map(|&i| spec.nodes.get(i)) {
            let is_leaf = !children.contains_key(n.name.as_str());
            let u = n.usage.unwrap_or(MIN_USAGE);
            if is_leaf && u != MIN_USAGE && n.name != UNKNOWN_GROUP {
                entries.push((n.name.clone(), u));
            }
        }
        // Subtrees in reverse list order: pushed so the first to process is on top.
        for item in &list {
            let name = match item {
                Some(i) => spec.nodes.get(*i).map(|n| n.name.as_str()),
                None => Some(UNKNOWN_GROUP),
            };
            let Some(name) = name else { continue };
            if !visited.insert(name) {
                continue;
            }
            if let Some(kids) = children.get(name) {
                stack.push(kids.iter().rev().map(|&i| Some(i)).collect());
            }
        }
    }
    PbsUsage {
        version: 2,
        last_decay,
        entries,
    }
}
