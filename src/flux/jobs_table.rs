//! The flux-accounting `jobs` table (flux.md §2–3): each inactive job that ran is charged
//! `round((nnodes·node_weight + ncores·core_weight + ngpus·gpu_weight)·(t_inactive − t_run), 5)`,
//! with the weights of the database's `config_table` and node/core/gpu counts from its R. The
//! one reader of the table ([`for_each_job`]) is `replay`'s too.

use crate::flux::schema::{self, JobColumn};
use crate::usage::decay::flux::job_usage;
use crate::usage::error::{Malformed, UsageError};
use crate::usage::job::{FinishedJob, Source};
use crate::usage::tally::ReadStats;
use rusqlite::{Connection, OpenFlags, OptionalExtension};
use std::collections::HashMap;
use std::path::Path;

/// Node, core and gpu counts of a job's R (`execution.R_lite`: `rank` and `children` idsets).
pub fn resource_counts(r: &str) -> Result<(f64, f64, f64), String> {
    let v: serde_json::Value = serde_json::from_str(r).map_err(|e| format!("bad R: {e}"))?;
    let lite = v
        .pointer("/execution/R_lite")
        .and_then(|l| l.as_array())
        .ok_or("R has no execution.R_lite")?;
    let (mut nodes, mut cores, mut gpus) = (0.0, 0.0, 0.0);
    for entry in lite {
        let ranks = entry
            .get("rank")
            .and_then(|r| r.as_str())
            .map(idset_count)
            .ok_or("R_lite entry without rank")??;
        let child = |name: &str| -> Result<f64, String> {
            entry
                .pointer(&format!("/children/{name}"))
                .and_then(|c| c.as_str())
                .map_or(Ok(0.0), idset_count)
        };
        nodes += ranks;
        cores += ranks * child("core")?;
        gpus += ranks * child("gpu")?;
    }
    Ok((nodes, cores, gpus))
}

/// Number of ids in a flux idset such as `0-3,5,7-8`.
pub fn idset_count(s: &str) -> Result<f64, String> {
    let mut n = 0.0;
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let bad = || format!("bad idset `{s}`");
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (
                a.parse::<u64>().map_err(|_| bad())?,
                b.parse::<u64>().map_err(|_| bad())?,
            ),
            None => {
                let x = part.parse::<u64>().map_err(|_| bad())?;
                (x, x)
            }
        };
        if b < a {
            return Err(bad());
        }
        // `b - a + 1` overflows u64 for `0-18446744073709551615` (found by fuzzing).
        n += (b - a) as f64 + 1.0;
    }
    Ok(n)
}

/// Opens a flux-accounting database read-only.
pub fn open_read_only(db: &Path) -> rusqlite::Result<Connection> {
    Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY)
}

/// Each userid's association name and default bank (the first association of a userid).
pub fn job_users(conn: &Connection) -> rusqlite::Result<HashMap<i64, (String, Option<String>)>> {
    let mut users: HashMap<i64, (String, Option<String>)> = HashMap::new();
    let mut st = conn.prepare(schema::JOB_USERS)?;
    let rows = st.query_map([], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, Option<String>>(2)?,
        ))
    })?;
    for row in rows {
        let (id, name, bank) = row?;
        users.entry(id).or_insert((name, bank));
    }
    Ok(users)
}

/// The charge weights of `config_table` (node, core, gpu): (1, 0, 0) when it has none.
pub fn charge_weights(conn: &Connection) -> rusqlite::Result<(f64, f64, f64)> {
    let mut weights = (1.0, 0.0, 0.0);
    let has_config: bool = conn
        .query_row(schema::HAS_CONFIG_TABLE, [], |_| Ok(true))
        .optional()?
        .unwrap_or(false);
    if !has_config {
        return Ok(weights);
    }
    let mut st = conn.prepare(schema::CONFIG_VALUES)?;
    let rows = st.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, rusqlite::types::Value>(1)?,
        ))
    })?;
    for row in rows {
        let (k, v) = row?;
        let x = match v {
            rusqlite::types::Value::Real(x) => Some(x),
            rusqlite::types::Value::Integer(i) => Some(i as f64),
            rusqlite::types::Value::Text(t) => t.trim().parse().ok(),
            _ => None,
        };
        match (k.as_str(), x) {
            ("node_weight", Some(x)) => weights.0 = x,
            ("core_weight", Some(x)) => weights.1 = x,
            ("gpu_weight", Some(x)) => weights.2 = x,
            _ => {}
        }
    }
    Ok(weights)
}

/// In which order [`for_each_job`] reads the jobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobOrder {
    /// By `t_inactive`, then id: the order jobs finished in (charging).
    Inactive,
    /// By `t_submit`, then id: the order jobs came in (a trace).
    Submit,
}

/// One row of the `jobs` table; each consumer converts the columns it uses.
pub struct JobRow<'r> {
    row: &'r rusqlite::Row<'r>,
}

impl JobRow<'_> {
    /// The value of column `c`.
    pub fn get<T: rusqlite::types::FromSql>(&self, c: JobColumn) -> rusqlite::Result<T> {
        self.row.get(c as usize)
    }
}

/// A read of the `jobs` table that stopped: SQLite failed, or the consumer said stop.
#[derive(Debug)]
pub enum JobsReadError<E> {
    /// SQLite's error.
    Sqlite(rusqlite::Error),
    /// The consumer's error.
    Stop(E),
}

impl<E> From<rusqlite::Error> for JobsReadError<E> {
    fn from(e: rusqlite::Error) -> Self {
        JobsReadError::Sqlite(e)
    }
}

/// The one reader of the `jobs` table (`usage record` and `replay` both read it): calls `f`
/// with every row, in `order`.
pub fn for_each_job<E>(
    conn: &Connection,
    order: JobOrder,
    mut f: impl FnMut(JobRow<'_>) -> Result<(), E>,
) -> Result<(), JobsReadError<E>> {
    let order_by = match order {
        JobOrder::Inactive => "t_inactive, id",
        JobOrder::Submit => "t_submit, id",
    };
    let mut st = conn.prepare(&schema::jobs(order_by))?;
    let mut rows = st.query([])?;
    while let Some(row) = rows.next()? {
        f(JobRow { row }).map_err(JobsReadError::Stop)?;
    }
    Ok(())
}

/// Reads every job of the `jobs` table; the user name comes from `association_table.userid`,
/// a missing bank from the user's `default_bank`.
pub fn read_jobs_table(
    db: &Path,
    sink: &mut dyn FnMut(FinishedJob) -> Result<(), String>,
    malformed: &mut Vec<Malformed>,
) -> Result<ReadStats, UsageError> {
    let sql = |source| UsageError::Sqlite {
        path: db.to_path_buf(),
        source,
    };
    let conn = open_read_only(db).map_err(sql)?;
    let weights = charge_weights(&conn).map_err(sql)?;
    let users = job_users(&conn).map_err(sql)?;
    let mut stats = ReadStats::default();
    let read = for_each_job(
        &conn,
        JobOrder::Inactive,
        |r| -> Result<(), rusqlite::Error> {
            stats.lines += 1;
            let rowid: i64 = r.get(JobColumn::RowId)?;
            let result = (|| -> Result<Option<FinishedJob>, String> {
                let id: i64 = r.get(JobColumn::Id).map_err(|e| format!("bad id: {e}"))?;
                let userid: i64 = r
                    .get(JobColumn::UserId)
                    .map_err(|e| format!("bad userid: {e}"))?;
                let t_run: f64 = r
                    .get(JobColumn::TRun)
                    .map_err(|e| format!("bad t_run: {e}"))?;
                let t_inactive: f64 = r
                    .get(JobColumn::TInactive)
                    .map_err(|e| format!("bad t_inactive: {e}"))?;
                let rr: String = r.get(JobColumn::R).map_err(|e| format!("bad R: {e}"))?;
                let bank: Option<String> = r
                    .get(JobColumn::Bank)
                    .map_err(|e| format!("bad bank: {e}"))?;
                if t_run <= 0.0 {
                    return Ok(None); // never ran: no usage
                }
                let (name, default_bank) = users
                    .get(&userid)
                    .ok_or_else(|| format!("job {id}: userid {userid} has no association"))?;
                let (n, c, g) = resource_counts(&rr).map_err(|e| format!("job {id}: {e}"))?;
                // A negative or non-finite time or weight would subtract from (or poison) the usage.
                if !(t_inactive.is_finite() && t_run.is_finite() && t_inactive >= t_run) {
                    return Err(format!(
                        "job {id}: t_inactive {t_inactive} is not a time at or after t_run {t_run}"
                    ));
                }
                if let Some(w) = [weights.0, weights.1, weights.2]
                    .into_iter()
                    .find(|w| !(w.is_finite() && *w >= 0.0))
                {
                    return Err(format!(
                        "job {id}: config_table weight {w} is not a finite number >= 0"
                    ));
                }
                Ok(Some(FinishedJob {
                    source: Source::Flux,
                    id: id.to_string(),
                    end: t_inactive.floor() as i64,
                    entity: name.clone(),
                    account: bank
                        .filter(|b| !b.is_empty())
                        .or_else(|| default_bank.clone()),
                    charge: job_usage(n, c, g, weights, t_run, t_inactive),
                }))
            })();
            stats.take(result, sink, malformed, db, rowid as u64);
            Ok(())
        },
    );
    match read {
        Ok(()) => Ok(stats),
        Err(JobsReadError::Sqlite(e) | JobsReadError::Stop(e)) => Err(sql(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_ranks_cores_gpus() {
        let r = r#"{"version":1,"execution":{"R_lite":[{"rank":"0-1","children":{"core":"0-3","gpu":"0"}},{"rank":"5","children":{"core":"0-7"}}]}}"#;
        assert_eq!(resource_counts(r), Ok((3.0, 16.0, 2.0)));
        assert!(resource_counts("{}").is_err());
        assert!(resource_counts("nope").is_err());
        assert_eq!(idset_count("0-3,5,7-8"), Ok(7.0));
        assert!(idset_count("3-1").is_err());
    }

    #[test]
    fn reads_a_jobs_table() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("f.db");
        let c = Connection::open(&db).unwrap();
        c.execute_batch(
            "CREATE TABLE association_table (username TEXT, userid INT, bank TEXT, default_bank TEXT);
             INSERT INTO association_table VALUES ('u1', 1001, 'A', 'A');
             CREATE TABLE config_table (key TEXT, value TEXT);
             INSERT INTO config_table VALUES ('core_weight', '1.0');
             CREATE TABLE jobs (id INT, userid INT, t_submit REAL, t_run REAL, t_inactive REAL, ranks TEXT, R TEXT, jobspec TEXT, project TEXT, bank TEXT);
             INSERT INTO jobs VALUES (1, 1001, 0, 0, 100, '0', '{\"execution\":{\"R_lite\":[{\"rank\":\"0\",\"children\":{\"core\":\"0-3\"}}]}}', '', '', NULL);
             INSERT INTO jobs VALUES (2, 1001, 0, 10, 0, '0', 'bad', '', '', 'A');
             INSERT INTO jobs VALUES (3, 9, 0, 10, 20, '0', '{}', '', '', 'A');
             INSERT INTO jobs VALUES (4, 1001, 0, 100, 200, '0', '{\"execution\":{\"R_lite\":[{\"rank\":\"0\",\"children\":{\"core\":\"0-3\"}}]}}', '', '', NULL);",
        )
        .unwrap();
        drop(c);
        let mut jobs = Vec::new();
        let mut bad = Vec::new();
        let s = read_jobs_table(
            &db,
            &mut |j| {
                jobs.push(j);
                Ok(())
            },
            &mut bad,
        )
        .unwrap();
        assert_eq!(s.jobs, 1);
        // t1023: 1 node, 4 cores, core_weight 1, 100 s -> 500
        assert_eq!(jobs[0].charge, 500.0);
        assert_eq!(jobs[0].account.as_deref(), Some("A"));
        assert_eq!(bad.len(), 2);
    }
}
