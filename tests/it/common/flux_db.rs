//! flux-accounting databases built in the test, with flux-accounting's schema (create_db.py; the
//! v38 columns the reader uses).

use std::path::{Path, PathBuf};

use rusqlite::{params, Connection};

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS association_table (
    creation_time bigint(20) NOT NULL, mod_time bigint(20) DEFAULT 0 NOT NULL,
    active int(11) DEFAULT 1 NOT NULL, username tinytext NOT NULL, userid int(11) DEFAULT 65534 NOT NULL,
    bank tinytext NOT NULL, default_bank tinytext NOT NULL, shares int(11) DEFAULT 1 NOT NULL,
    job_usage real DEFAULT 0.0 NOT NULL, fairshare real DEFAULT 0.5 NOT NULL,
    max_running_jobs int(11) DEFAULT 5 NOT NULL, max_active_jobs int(11) DEFAULT 7 NOT NULL,
    queues tinytext DEFAULT '' NOT NULL, projects tinytext DEFAULT '*' NOT NULL,
    PRIMARY KEY (username, bank));
CREATE TABLE IF NOT EXISTS bank_table (
    bank_id integer PRIMARY KEY AUTOINCREMENT, bank text NOT NULL, active int(11) DEFAULT 1 NOT NULL,
    parent_bank text DEFAULT '', shares int NOT NULL, job_usage real DEFAULT 0.0 NOT NULL,
    priority real DEFAULT 0.0, ignore_older_than bigint DEFAULT 0 NOT NULL);
";

/// (bank, parent bank, shares, active)
pub type Bank<'a> = (&'a str, &'a str, i64, i64);
/// (user, bank, shares, job_usage, active)
pub type Assoc<'a> = (&'a str, &'a str, i64, f64, i64);

/// `dir/name`, a flux-accounting database with these banks and associations.
pub fn make_db(dir: &Path, name: &str, banks: &[Bank], assocs: &[Assoc]) -> PathBuf {
    let path = dir.join(name);
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch(SCHEMA).unwrap();
    for (bank, parent, shares, active) in banks {
        conn.execute(
            "INSERT INTO bank_table (bank, parent_bank, shares, active) VALUES (?1, ?2, ?3, ?4)",
            params![bank, parent, shares, active],
        )
        .unwrap();
    }
    for (user, bank, shares, usage, active) in assocs {
        conn.execute(
            "INSERT INTO association_table (creation_time, username, bank, default_bank, shares, job_usage, active) \
             VALUES (0, ?1, ?2, ?2, ?3, ?4, ?5)",
            params![user, bank, shares, usage, active],
        )
        .unwrap();
    }
    path
}
