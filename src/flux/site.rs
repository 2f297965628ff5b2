//! What `flux account-priority-update` sends to `mf_priority` from a flux-accounting database
//! (`src/cmd/flux-account-priority-update.py`, `bulk_update`): every `association_table` row
//! (userid, bank, default_bank, fairshare, queues, active), `queue_table` (queue, priority),
//! `bank_table` (bank, priority), `priority_factor_weight_table` (factor, weight) and
//! `config_table`'s `deny_unknown_queues` — converted as that script converts them (`int()`,
//! `float()`, `str()`) and stored in the plugin's C types.
//!
//! Older schemas: `priority-update` first runs `flux account-update-db`, which adds what is
//! missing with its default. So a database without `priority_factor_weight_table` (before
//! v0.47) has the default weights, without `bank_table.priority` (before v0.46) bank priority 0,
//! without `queue_table` or its `priority` no queue factor, without `queues`/`active` columns
//! no permitted queue list / every association active. A database without the columns the
//! plugin cannot do without (`association_table.userid`, `bank`, `default_bank`, `fairshare`)
//! is an error naming them.

use crate::fairshare::{Column, NodeKind, Options, Tree, TreeSpec};
use crate::flux::priority::{Association, Site, Weights};
use crate::flux::schema;
use rusqlite::types::Value;
use rusqlite::{Connection, OpenFlags};
use std::collections::HashSet;
use std::path::Path;
use thiserror::Error;

/// A problem reading the flux-accounting database for priorities.
#[derive(Debug, Error)]
pub enum SiteError {
    /// SQLite could not open or query the file.
    #[error("{path}: SQLite: {message}")]
    Sqlite {
        /// The database file.
        path: String,
        /// SQLite's message.
        message: String,
    },
    /// A table or column the plugin needs is missing.
    #[error("{path}: {message}")]
    Schema {
        /// The database file.
        path: String,
        /// What is missing.
        message: String,
    },
    /// A value `flux account-priority-update` could not convert.
    #[error("{path}: {table} {row}: {column}: {message}")]
    Value {
        /// The database file.
        path: String,
        /// The table.
        table: &'static str,
        /// Which row (its key).
        row: String,
        /// The column.
        column: &'static str,
        /// What is wrong.
        message: String,
    },
}

/// Opens a flux-accounting database read-only and reads what the plugin holds.
pub fn read_site(path: &Path) -> Result<Site, SiteError> {
    let name = path.display().to_string();
    if !path.is_file() {
        return Err(SiteError::Sqlite {
            path: name,
            message: "no such database file".into(),
        });
    }
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| SiteError::Sqlite {
        path: name.clone(),
        message: e.to_string(),
    })?;
    read_site_conn(&conn, &name)
}

fn columns(conn: &Connection, table: &str, name: &str) -> Result<HashSet<String>, SiteError> {
    let sql_err = |e: rusqlite::Error| SiteError::Sqlite {
        path: name.to_string(),
        message: e.to_string(),
    };
    let mut st = conn.prepare(schema::TABLE_COLUMNS).map_err(sql_err)?;
    let cols = st
        .query_map([table], |r| r.get::<_, String>(0))
        .map_err(sql_err)?
        .collect::<Result<HashSet<String>, _>>()
        .map_err(sql_err)?;
    Ok(cols)
}

/// Python's `int(x)` of a column value as the script sees it, then C's view of it.
fn py_int(v: &Value) -> Result<i64, String> {
    match v {
        Value::Integer(i) => Ok(*i),
        // int(float) truncates toward zero.
        Value::Real(r) if r.is_finite() && r.abs() < 9.2e18 => Ok(r.trunc() as i64),
        Value::Real(r) => Err(format!("{r} is not an integer")),
        Value::Text(t) => t
            .trim()
            .replace('_', "")
            .parse::<i64>()
            .map_err(|_| format!("`{t}` is not an integer")),
        Value::Null => Err("NULL is not an integer".into()),
        Value::Blob(_) => Err("a blob is not an integer".into()),
    }
}

/// Python's `float(x)`.
fn py_float(v: &Value) -> Result<f64, String> {
    match v {
        Value::Integer(i) => Ok(*i as f64),
        Value::Real(r) => Ok(*r),
        Value::Text(t) => {
            let s = t.trim().replace('_', "");
            match s.to_ascii_lowercase().as_str() {
                "inf" | "+inf" | "infinity" | "+infinity" => Ok(f64::INFINITY),
                "-inf" | "-infinity" => Ok(f64::NEG_INFINITY),
                "nan" | "+nan" | "-nan" => Ok(f64::NAN),
                _ => s
                    .parse::<f64>()
                    .map_err(|_| format!("`{t}` is not a number")),
            }
        }
        Value::Null => Err("NULL is not a number".into()),
        Value::Blob(_) => Err("a blob is not a number".into()),
    }
}

/// Python's `str(x)` (NULL → `None`, as the script would send it).
fn py_str(v: &Value) -> String {
    match v {
        Value::Null => "None".into(),
        Value::Integer(i) => i.to_string(),
        Value::Real(r) => {
            if r.fract() == 0.0 && r.abs() < 1e16 {
                format!("{r:.1}")
            } else {
                format!("{r}")
            }
        }
        Value::Text(t) => t.clone(),
        Value::Blob(b) => format!("b'{}'", String::from_utf8_lossy(b)),
    }
}

/// jansson's `"i"` stores a JSON integer (C `long long`) into an `int`: x86 keeps the low 32 bits.
fn c_int(i: i64) -> i32 {
    i as i32
}

/// `has_text` then `split_string_and_push_back`: no entries for blank text, else every piece
/// between commas (a trailing comma gives an empty last entry, as `getline` does).
fn split_queues(s: &str) -> Vec<String> {
    if s.trim().is_empty() {
        return Vec::new();
    }
    s.split(',').map(str::to_string).collect()
}

/// Reads the plugin's data from an open flux-accounting database (`name` for messages).
pub fn read_site_conn(conn: &Connection, name: &str) -> Result<Site, SiteError> {
    let sql_err = |e: rusqlite::Error| SiteError::Sqlite {
        path: name.to_string(),
        message: e.to_string(),
    };
    let tables: HashSet<String> = {
        let mut st = conn.prepare(schema::TABLES).map_err(sql_err)?;
        let t = st
            .query_map([], |r| r.get::<_, String>(0))
            .map_err(sql_err)?
            .collect::<Result<_, _>>()
            .map_err(sql_err)?;
        t
    };
    if !tables.contains(schema::ASSOCIATION_TABLE) {
        return Err(SiteError::Schema {
            path: name.into(),
            message: "not a flux-accounting database (no association_table)".into(),
        });
    }
    let mut site = Site::default();

    let cols = columns(conn, schema::ASSOCIATION_TABLE, name)?;
    let missing: Vec<&str> = schema::SITE_ASSOCIATION_COLUMNS
        .into_iter()
        .filter(|c| !cols.contains(*c))
        .collect();
    if !missing.is_empty() {
        return Err(SiteError::Schema {
            path: name.into(),
            message: format!(
                "association_table has no {} column (the priority plugin needs them; this \
                 database predates them: upgrade it with `flux account-update-db`)",
                missing.join(", ")
            ),
        });
    }
    // No ORDER BY, as the script: table order decides which default_bank is last.
    let sql = schema::site_associations(cols.contains("queues"), cols.contains("active"));
    let mut st = conn.prepare(&sql).map_err(sql_err)?;
    let mut rows = st.query([]).map_err(sql_err)?;
    while let Some(r) = rows.next().map_err(sql_err)? {
        let get = |i: usize| r.get::<_, Value>(i).map_err(sql_err);
        let username = py_str(&get(0)?);
        let bank = py_str(&get(2)?);
        let key = format!("({username}, {bank})");
        let bad = |column: &'static str, message: String| SiteError::Value {
            path: name.into(),
            table: schema::ASSOCIATION_TABLE,
            row: key.clone(),
            column,
            message,
        };
        let userid = py_int(&get(1)?).map_err(|m| bad("userid", m))?;
        let fairshare = py_float(&get(4)?).map_err(|m| bad("fairshare", m))?;
        let active = py_int(&get(6)?).map_err(|m| bad("active", m))?;
        site.add_association(Association {
            username,
            userid: c_int(userid),
            bank,
            default_bank: py_str(&get(3)?),
            fairshare,
            queues: split_queues(&py_str(&get(5)?)),
            active: c_int(active) != 0,
        });
    }

    if tables.contains(schema::QUEUE_TABLE) {
        let qcols = columns(conn, schema::QUEUE_TABLE, name)?;
        let sql = schema::queue_priorities(qcols.contains("priority"));
        let mut st = conn.prepare(&sql).map_err(sql_err)?;
        let mut rows = st.query([]).map_err(sql_err)?;
        while let Some(r) = rows.next().map_err(sql_err)? {
            let queue = py_str(&r.get::<_, Value>(0).map_err(sql_err)?);
            let p =
                py_int(&r.get::<_, Value>(1).map_err(sql_err)?).map_err(|m| SiteError::Value {
                    path: name.into(),
                    table: schema::QUEUE_TABLE,
                    row: queue.clone(),
                    column: "priority",
                    message: m,
                })?;
            site.queues.insert(queue, c_int(p));
        }
    }

    if tables.contains(schema::BANK_TABLE) {
        let bcols = columns(conn, schema::BANK_TABLE, name)?;
        if bcols.contains("priority") {
            let mut st = conn.prepare(schema::BANK_PRIORITIES).map_err(sql_err)?;
            let mut rows = st.query([]).map_err(sql_err)?;
            while let Some(r) = rows.next().map_err(sql_err)? {
                let bank = py_str(&r.get::<_, Value>(0).map_err(sql_err)?);
                let p = py_float(&r.get::<_, Value>(1).map_err(sql_err)?).map_err(|m| {
                    SiteError::Value {
                        path: name.into(),
                        table: schema::BANK_TABLE,
                        row: bank.clone(),
                        column: "priority",
                        message: m,
                    }
                })?;
                site.banks.insert(bank, p);
            }
        }
    }

    let mut weights = Weights::default();
    if tables.contains(schema::PRIORITY_FACTOR_WEIGHT_TABLE) {
        let mut st = conn.prepare(schema::FACTOR_WEIGHTS).map_err(sql_err)?;
        let mut rows = st.query([]).map_err(sql_err)?;
        while let Some(r) = rows.next().map_err(sql_err)? {
            let factor = py_str(&r.get::<_, Value>(0).map_err(sql_err)?);
            let w =
                py_int(&r.get::<_, Value>(1).map_err(sql_err)?).map_err(|m| SiteError::Value {
                    path: name.into(),
                    table: schema::PRIORITY_FACTOR_WEIGHT_TABLE,
                    row: factor.clone(),
                    column: "weight",
                    message: m,
                })?;
            // `s:I` into a long, then `priority_weights[factor] = weight` into an int.
            weights.set_factor(&factor, c_int(w));
        }
    }
    site.weights = weights;

    if tables.contains(schema::CONFIG_TABLE) {
        let v: Option<Value> = conn
            .query_row(schema::DENY_UNKNOWN_QUEUES, [], |r| r.get(0))
            .map(Some)
            .or_else(|e| match e {
                rusqlite::Error::QueryReturnedNoRows => Ok(None),
                e => Err(sql_err(e)),
            })?;
        // `row["value"].lower() == "true"`.
        site.deny_unknown_queues = v.is_some_and(|v| py_str(&v).to_lowercase() == "true");
    }
    Ok(site)
}

/// Where the associations' fair shares come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FairshareSource {
    /// `association_table.fairshare`, as the last `flux account-update-fshare` wrote it (what
    /// the plugin holds after `flux account-priority-update`).
    #[default]
    Db,
    /// Recomputed now from the database's shares and usage ([`recompute_fairshare`]).
    Computed,
}

impl std::str::FromStr for FairshareSource {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "db" => Ok(FairshareSource::Db),
            "computed" => Ok(FairshareSource::Computed),
            _ => Err(format!(
                "unknown fair-share source `{s}` (expected db or computed)"
            )),
        }
    }
}

/// `flux account-update-fshare` run now: every active association's fair share from the weighted
/// walk over `spec` (the database's tree, `formats::flux::read_db`), stored as that command
/// stores it (`std::to_string(double)`: 6 decimals) and the plugin then reads it. Inactive
/// associations are not in the tree and keep their stored value, as in flux. Returns how many
/// associations changed value.
pub fn recompute_fairshare(site: &mut Site, spec: TreeSpec) -> Result<usize, String> {
    let tree = Tree::build(spec).map_err(|e| e.to_string())?;
    let result =
        crate::fairshare::flux::compute(&tree, &Options::default()).map_err(|e| e.to_string())?;
    let mut changed = 0;
    for (id, node) in tree.nodes().iter().enumerate() {
        if node.kind != NodeKind::User {
            continue;
        }
        let Some(bank) = node.parent.map(|p| tree.nodes()[p].name.clone()) else {
            continue;
        };
        let Some(v) = result.get(Column::Fairshare, id) else {
            continue;
        };
        let stored: f64 = format!("{v:.6}")
            .parse()
            .map_err(|_| format!("fair share {v}"))?;
        let before: Vec<f64> = site
            .associations
            .iter()
            .filter(|a| a.username == node.name && a.bank == bank)
            .map(|a| a.fairshare)
            .collect();
        site.set_fairshare(&node.name, &bank, stored);
        changed += before.iter().filter(|&&b| b != stored).count();
    }
    Ok(changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db(sql: &str) -> Connection {
        let c = Connection::open_in_memory().unwrap();
        c.execute_batch(sql).unwrap();
        c
    }

    const V38: &str = "
        CREATE TABLE association_table (creation_time bigint, mod_time bigint DEFAULT 0,
          active int DEFAULT 1, username tinytext, userid int DEFAULT 65534, bank tinytext,
          default_bank tinytext, shares int DEFAULT 1, job_usage real DEFAULT 0.0,
          fairshare real DEFAULT 0.5, queues tinytext DEFAULT '', PRIMARY KEY (username, bank));
        CREATE TABLE bank_table (bank_id integer PRIMARY KEY AUTOINCREMENT, bank text,
          active int DEFAULT 1, parent_bank text DEFAULT '', shares int,
          job_usage real DEFAULT 0.0, priority real DEFAULT 0.0);
        CREATE TABLE queue_table (queue tinytext PRIMARY KEY, priority int DEFAULT 0);
        CREATE TABLE priority_factor_weight_table (factor tinytext PRIMARY KEY, weight int);
        CREATE TABLE config_table (key text PRIMARY KEY, value text);
    ";

    #[test]
    fn reads_every_table() {
        let c = db(&format!(
            "{V38}
            INSERT INTO bank_table (bank, parent_bank, shares, priority) VALUES
              ('root', '', 1, 0), ('A', 'root', 1, 3.5);
            INSERT INTO association_table (creation_time, username, userid, bank, default_bank,
              fairshare, queues, active) VALUES
              (0, 'u1', 5011, 'A', 'A', 0.285714, 'bronze,gold', 1),
              (0, 'u2', 5012, 'A', 'A', 0.5, '', 0);
            INSERT INTO queue_table VALUES ('bronze', 200), ('gold', '400');
            INSERT INTO priority_factor_weight_table VALUES ('fairshare', 100000), ('queue', 10000),
              ('bank', 10), ('urgency', 1000), ('age', 7);
            INSERT INTO config_table VALUES ('deny_unknown_queues', 'True');
        "
        ));
        let s = read_site_conn(&c, "t.db").unwrap();
        let a = s.association(5011, None).unwrap();
        assert_eq!(a.fairshare, 0.285714);
        assert_eq!(a.queues, ["bronze", "gold"]);
        assert!(!s.association(5012, Some("A")).unwrap().active);
        assert!(s.association(5012, Some("A")).unwrap().queues.is_empty());
        assert_eq!(s.queues["gold"], 400);
        assert_eq!(s.banks["A"], 3.5);
        assert_eq!(s.weights.bank, 10);
        assert!(s.deny_unknown_queues);
    }

    #[test]
    fn missing_tables_take_update_db_defaults() {
        // v0.45-like: no priority_factor_weight_table, no bank priority, no config_table.
        let c = db("
            CREATE TABLE association_table (username, userid, bank, default_bank, fairshare);
            CREATE TABLE bank_table (bank, parent_bank, shares);
            CREATE TABLE queue_table (queue, min_nodes_per_job);
            INSERT INTO association_table VALUES ('u', 7, 'A', 'A', 0.5);
            INSERT INTO queue_table VALUES ('q', 0);
        ");
        let s = read_site_conn(&c, "old.db").unwrap();
        assert_eq!(s.weights, Weights::default());
        assert!(s.banks.is_empty());
        assert_eq!(s.queues["q"], 0);
        let a = s.association(7, None).unwrap();
        assert!(a.active && a.queues.is_empty());
        assert!(!s.deny_unknown_queues);
    }

    #[test]
    fn missing_needed_columns_are_named() {
        // flux-accounting's own t/expected/test_dbs/small_no_tie.db has no userid/default_bank.
        let c =
            db("CREATE TABLE association_table (username, bank, shares, job_usage, fairshare);");
        let e = read_site_conn(&c, "small.db").unwrap_err().to_string();
        assert!(
            e.contains("small.db") && e.contains("userid, default_bank") && e.contains("update-db"),
            "{e}"
        );
        let c = db("CREATE TABLE other (x);");
        assert!(read_site_conn(&c, "x.db")
            .unwrap_err()
            .to_string()
            .contains("not a flux-accounting database"));
    }

    #[test]
    fn bad_values_name_table_row_and_column() {
        let c = db(&format!(
            "{V38}
            INSERT INTO association_table (creation_time, username, userid, bank, default_bank,
              fairshare) VALUES (0, 'u1', 5011, 'A', 'A', NULL);"
        ));
        let e = read_site_conn(&c, "t.db").unwrap_err().to_string();
        assert_eq!(
            e,
            "t.db: association_table (u1, A): fairshare: NULL is not a number"
        );
        let c = db(&format!(
            "{V38} INSERT INTO priority_factor_weight_table VALUES ('queue', 'lots');"
        ));
        let e = read_site_conn(&c, "t.db").unwrap_err().to_string();
        assert!(
            e.contains("priority_factor_weight_table queue: weight"),
            "{e}"
        );
    }

    #[test]
    fn recomputed_fair_shares_are_update_fshares() {
        // reference/flux.md §6 V1 small_no_tie (flux-accounting weighted_tree/test
        // small_no_tie.csv, t/expected/test_dbs/small_no_tie.db), stored with 6 decimals.
        let c = db(&format!(
            "{V38}
            INSERT INTO bank_table (bank, parent_bank, shares) VALUES ('root', '', 1000),
              ('account1', 'root', 1000), ('account2', 'root', 100), ('account3', 'root', 10);
            INSERT INTO association_table (creation_time, username, userid, bank, default_bank,
              shares, job_usage) VALUES
              (0, 'leaf.1.1', 5011, 'account1', 'account1', 10000, 100),
              (0, 'leaf.1.2', 5012, 'account1', 'account1', 1000, 11),
              (0, 'leaf.1.3', 5013, 'account1', 'account1', 100000, 10),
              (0, 'leaf.2.1', 5021, 'account2', 'account2', 100000, 8),
              (0, 'leaf.2.2', 5022, 'account2', 'account2', 10000, 3),
              (0, 'leaf.3.1', 5031, 'account3', 'account3', 100, 0),
              (0, 'leaf.3.2', 5032, 'account3', 'account3', 10, 1);"
        ));
        let mut s = read_site_conn(&c, "t.db").unwrap();
        assert!(s.associations.iter().all(|a| a.fairshare == 0.5));
        let spec = crate::flux::db::read_conn(&c, Path::new("t.db")).unwrap();
        assert_eq!(recompute_fairshare(&mut s, spec), Ok(7));
        let fs = |uid| s.association(uid, None).unwrap().fairshare;
        assert_eq!(
            [
                fs(5011),
                fs(5012),
                fs(5013),
                fs(5021),
                fs(5022),
                fs(5031),
                fs(5032)
            ],
            [0.285714, 0.142857, 0.428571, 0.714286, 0.571429, 1.0, 0.857143]
        );
        assert_eq!("computed".parse(), Ok(FairshareSource::Computed));
        assert!("now".parse::<FairshareSource>().is_err());
    }

    #[test]
    fn conversions_follow_python_then_c() {
        assert_eq!(py_int(&Value::Real(2.9)), Ok(2));
        assert_eq!(py_int(&Value::Real(-2.9)), Ok(-2));
        assert_eq!(py_int(&Value::Text(" 12 ".into())), Ok(12));
        assert_eq!(c_int(4_294_967_296 + 5), 5);
        assert_eq!(c_int(3_000_000_000), -1_294_967_296);
        assert_eq!(py_str(&Value::Null), "None");
        assert_eq!(split_queues(" "), Vec::<String>::new());
        assert_eq!(split_queues("a,b,"), ["a", "b", ""]);
        assert_eq!(split_queues("a, b"), ["a", " b"]);
        assert!(py_float(&Value::Text("inf".into())).unwrap().is_infinite());
    }
}
