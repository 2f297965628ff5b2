//! flux-accounting's SQLite database (flux.md §1.1, §3): the bank/association tree as the C++
//! `data_reader_db_t` loads it, and writing job usage back.

use std::collections::HashSet;
use std::path::Path;
use std::time::Duration;

use crate::mem::hash::SeededMap;
use rusqlite::types::{Value, ValueRef};
use rusqlite::{params, Connection, OpenFlags};

use crate::fairshare::spec::{NodeKind, NodeSpec, Shares, TreeSource, TreeSpec};
use crate::files::text;
use crate::files::FormatError;
use crate::flux::schema;

/// A sub-bank row: name, active, shares.
type SubBank = (String, bool, Value);
/// An association row: (username, shares, job_usage, active), the name's error kept until the
/// row is used (as a per-bank query would have met it).
type AssocRow = (Result<String, Box<rusqlite::Error>>, Cell, Cell, bool);

/// A number cell of a row kept until the walk reaches its bank: 16 bytes where a `Value` takes
/// 32 (a million association rows are held at once).
enum Cell {
    Integer(i64),
    Real(f64),
    Null,
    Other(Box<Value>),
}

impl From<Value> for Cell {
    fn from(v: Value) -> Cell {
        match v {
            Value::Integer(i) => Cell::Integer(i),
            Value::Real(r) => Cell::Real(r),
            Value::Null => Cell::Null,
            other => Cell::Other(Box::new(other)),
        }
    }
}

impl Cell {
    fn value(self) -> Value {
        match self {
            Cell::Integer(i) => Value::Integer(i),
            Cell::Real(r) => Value::Real(r),
            Cell::Null => Value::Null,
            Cell::Other(v) => *v,
        }
    }
}

fn db_err(path: &Path, e: impl std::fmt::Display) -> FormatError {
    FormatError::file(&path.display().to_string(), format!("SQLite: {e}"))
}

/// `shares` as the C++ reader takes it (`stoll` of the column text): an integer ≥ 0.
fn shares_of(v: &Value, path: &Path, what: impl Fn() -> String) -> Result<u64, FormatError> {
    let bad = |m: String| FormatError::file(&path.display().to_string(), m);
    match v {
        Value::Integer(i) => {
            u64::try_from(*i).map_err(|_| bad(format!("{}: shares {i} is negative", what())))
        }
        Value::Text(t) => {
            text::parse_count(t, "shares").map_err(|m| bad(format!("{}: {m}", what())))
        }
        Value::Real(r) if r.fract() == 0.0 && *r >= 0.0 && *r < 1.8e19 => Ok(*r as u64),
        other => Err(bad(format!(
            "{}: shares {other:?} is not an integer",
            what()
        ))),
    }
}

/// `job_usage` (REAL, default 0.0): a finite number ≥ 0.
fn usage_of(v: &Value, path: &Path, what: impl Fn() -> String) -> Result<f64, FormatError> {
    let bad =
        |m: String| FormatError::file(&path.display().to_string(), format!("{}: {m}", what()));
    let x = match v {
        Value::Null => 0.0,
        Value::Integer(i) => *i as f64,
        Value::Real(r) => *r,
        Value::Text(t) => text::parse_usage(t, "job_usage").map_err(bad)?,
        Value::Blob(_) => return Err(bad("job_usage is a blob".to_string())),
    };
    text::check_usage(x, "job_usage").map_err(bad)
}

/// `active` as SQLite stores it; anything but 0 counts as active (C++ reads it with
/// `sqlite3_column_int`).
fn active_of(v: &Value) -> bool {
    match v {
        Value::Integer(i) => *i != 0,
        Value::Real(r) => *r as i64 != 0,
        Value::Text(t) => t.trim().parse::<i64>().is_ok_and(|i| i != 0),
        _ => false,
    }
}

/// Reads a flux-accounting database read-only, the way `flux account-update-fshare` loads it:
/// the root is the first bank with `parent_bank = ''`; sub-banks in name order, inactive ones
/// skipped with their subtree; a bank with any sub-bank row (even inactive) has its associations
/// ignored; associations in user-name order, inactive ones skipped. Users carry `job_usage`;
/// banks carry no usage (the walker sums the active users; `bank_table.job_usage` is not used).
/// A user in several banks appears once per bank.
pub fn read_db(path: &Path) -> Result<TreeSpec, FormatError> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| db_err(path, e))?;
    read_conn(&conn, path)
}

/// [`read_db`] over an open connection (`path` names it in messages).
pub fn read_conn(conn: &Connection, path: &Path) -> Result<TreeSpec, FormatError> {
    let root: String = conn
        .query_row(schema::ROOT_BANK, [], |r| r.get(0))
        .map_err(|e| match e {
            rusqlite::Error::QueryReturnedNoRows => FormatError::file(
                &path.display().to_string(),
                "bank_table has no root bank (a bank with parent_bank '')",
            ),
            e => db_err(path, e),
        })?;
    let mut sub_banks = conn
        .prepare(schema::SUB_BANKS)
        .map_err(|e| db_err(path, e))?;
    // Every active association at once, grouped by bank (in user-name order within a bank, as a
    // `WHERE bank=?` query would give them): flux-accounting's association_table is keyed by
    // (username, bank), so one query per bank would scan the whole table once per bank.
    let mut assocs: SeededMap<String, Vec<AssocRow>> = SeededMap::default();
    let mut n_rows = 0usize;
    {
        let mut all = conn
            .prepare(schema::TREE_ASSOCIATIONS)
            .map_err(|e| db_err(path, e))?;
        let rows = all
            .query_map([], |r| {
                // `WHERE bank=?1` with a text parameter matches (valid UTF-8) text values only.
                let bank = match r.get_ref(0)? {
                    ValueRef::Text(b) => std::str::from_utf8(b).ok().map(str::to_owned),
                    _ => None,
                };
                Ok((
                    bank,
                    r.get::<_, String>(1).map_err(Box::new),
                    Cell::from(r.get::<_, Value>(2)?),
                    Cell::from(r.get::<_, Value>(3)?),
                    active_of(&r.get::<_, Value>(4)?),
                ))
            })
            .map_err(|e| db_err(path, e))?;
        let mut current: Option<(String, Vec<AssocRow>)> = None;
        for row in rows {
            let (bank, user, shares, usage, active) = row.map_err(|e| db_err(path, e))?;
            let Some(bank) = bank else { continue };
            n_rows += 1;
            let row = (user, shares, usage, active);
            match &mut current {
                Some((b, list)) if *b == bank => list.push(row),
                _ => {
                    if let Some((b, list)) = current.take() {
                        assocs.entry(b).or_default().extend(list);
                    }
                    current = Some((bank, vec![row]));
                }
            }
        }
        if let Some((b, list)) = current.take() {
            assocs.entry(b).or_default().extend(list);
        }
    }

    let mut spec = TreeSpec {
        source: TreeSource::Flux,
        root_name: root.clone(),
        // The associations and about one bank per group of them.
        nodes: Vec::with_capacity(n_rows.saturating_add(assocs.len())),
        ..TreeSpec::default()
    };
    let mut visited: HashSet<String> = HashSet::new();
    visited.insert(root.clone());
    // Depth-first, children in name order: a stack of (bank, children still to visit).
    let mut stack: Vec<(String, std::vec::IntoIter<SubBank>)> = Vec::new();
    let load = |bank: &str,
                spec: &mut TreeSpec,
                sub_banks: &mut rusqlite::Statement<'_>,
                assocs: &mut SeededMap<String, Vec<AssocRow>>|
     -> Result<Vec<SubBank>, FormatError> {
        let subs: Vec<SubBank> = sub_banks
            .query_map(params![bank], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    active_of(&r.get::<_, Value>(1)?),
                    r.get::<_, Value>(2)?,
                ))
            })
            .and_then(|it| it.collect())
            .map_err(|e| db_err(path, e))?;
        if subs.is_empty() {
            for (user, shares, usage, active) in assocs.remove(bank).unwrap_or_default() {
                let user = user.map_err(|e| db_err(path, e))?;
                if !active {
                    continue;
                }
                // The message's text is made only for a bad value.
                let what = || format!("association ({user}, {bank})");
                let shares = shares_of(&shares.value(), path, what)?;
                let usage = usage_of(&usage.value(), path, what)?;
                let mut node = NodeSpec::new(
                    user,
                    (bank != spec.root_name).then(|| bank.to_string()),
                    NodeKind::User,
                    Shares::Count(shares),
                );
                node.usage = Some(usage);
                spec.nodes.push(node);
            }
        }
        Ok(subs.into_iter().filter(|s| s.1).collect())
    };
    let first = load(&root, &mut spec, &mut sub_banks, &mut assocs)?;
    stack.push((root.clone(), first.into_iter()));
    while let Some((bank, mut rest)) = stack.pop() {
        let Some((child, _, shares)) = rest.next() else {
            continue;
        };
        stack.push((bank.clone(), rest));
        if !visited.insert(child.clone()) {
            return Err(FormatError::file(
                &path.display().to_string(),
                format!("bank `{child}` appears twice in the bank tree"),
            ));
        }
        let what = || format!("bank {child}");
        let node = NodeSpec::new(
            child.clone(),
            (bank != root).then(|| bank.clone()),
            NodeKind::Account,
            Shares::Count(shares_of(&shares, path, what)?),
        );
        spec.nodes.push(node);
        let grand = load(&child, &mut spec, &mut sub_banks, &mut assocs)?;
        stack.push((child, grand.into_iter()));
    }
    Ok(spec)
}

/// Writes job usage into a flux-accounting database in one transaction: `(bank, Some(user), u)`
/// sets `association_table.job_usage`, `(bank, None, u)` sets `bank_table.job_usage`. Nothing is
/// written if any row is missing or any value is negative, NaN or infinite.
pub fn write_usage(
    path: &Path,
    usage: &[(String, Option<String>, f64)],
) -> Result<(), FormatError> {
    let file = path.display().to_string();
    for (bank, user, u) in usage {
        let what = match user {
            Some(user) => format!("usage of ({user}, {bank})"),
            None => format!("usage of bank {bank}"),
        };
        text::check_usage(*u, &what).map_err(|m| FormatError::file(&file, m))?;
    }
    let mut conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE)
        .map_err(|e| db_err(path, e))?;
    conn.busy_timeout(Duration::from_secs(30))
        .map_err(|e| db_err(path, e))?;
    let tx = conn
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .map_err(|e| db_err(path, e))?;
    {
        let mut assoc = tx
            .prepare(schema::SET_ASSOCIATION_USAGE)
            .map_err(|e| db_err(path, e))?;
        let mut bank_stmt = tx
            .prepare(schema::SET_BANK_USAGE)
            .map_err(|e| db_err(path, e))?;
        for (bank, user, u) in usage {
            let changed = match user {
                Some(user) => assoc.execute(params![u, user, bank]),
                None => bank_stmt.execute(params![u, bank]),
            }
            .map_err(|e| db_err(path, e))?;
            if changed == 0 {
                let m = match user {
                    Some(user) => format!("no association ({user}, {bank}); nothing written"),
                    None => format!("no bank {bank}; nothing written"),
                };
                return Err(FormatError::file(&file, m));
            }
        }
    }
    tx.commit().map_err(|e| db_err(path, e))
}
