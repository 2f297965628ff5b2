//! flux-accounting's `jobs` table as a replay trace: the jobs a flux site ran, with their submit
//! time, real run time (`t_inactive − t_run`), requested duration, cores (from R), user (the
//! association of `userid`) and bank.

use crate::flux::jobs_table::{
    for_each_job, job_users, open_read_only, resource_counts, JobOrder, JobsReadError,
};
use crate::flux::schema::JobColumn;
use crate::replay::trace_job::{Trace, TraceError, TraceJob};
use std::path::Path;

/// The first bytes of every SQLite database file.
pub const SQLITE_HEADER: &[u8] = b"SQLite format 3\0";

/// Whether the file at `path` is an SQLite database (a flux-accounting DB).
pub fn is_sqlite(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| head == SQLITE_HEADER)
}

/// The requested duration of a jobspec (`attributes.system.duration`, seconds; 0 = none).
fn jobspec_duration(jobspec: &str) -> Option<i64> {
    let v: serde_json::Value = serde_json::from_str(jobspec).ok()?;
    let d = v.pointer("/attributes/system/duration")?.as_f64()?;
    (d.is_finite() && d > 0.0).then(|| d.ceil() as i64)
}

/// Reads the `jobs` table of a flux-accounting database into `trace`. Jobs that never ran
/// (`t_run` 0) are left out and counted; a job whose user has no association, or whose times or
/// R are unreadable, is an error naming the job.
pub fn read_flux_trace(db: &Path, trace: &mut Trace) -> Result<(), TraceError> {
    let err = |message: String| TraceError::Database {
        path: db.to_path_buf(),
        message,
    };
    let sql = |e: rusqlite::Error| err(format!("flux-accounting database: {e}"));
    let conn = open_read_only(db).map_err(sql)?;
    let users = job_users(&conn).map_err(sql)?;
    let read = for_each_job(&conn, JobOrder::Submit, |r| -> Result<(), TraceError> {
        let id: i64 = r.get(JobColumn::Id).map_err(sql)?;
        let bad = |what: &str, e: rusqlite::Error| err(format!("job {id}: bad {what}: {e}"));
        let userid: i64 = r.get(JobColumn::UserId).map_err(|e| bad("userid", e))?;
        let t_submit: f64 = r.get(JobColumn::TSubmit).map_err(|e| bad("t_submit", e))?;
        let t_run: f64 = r.get(JobColumn::TRun).map_err(|e| bad("t_run", e))?;
        let t_inactive: f64 = r
            .get(JobColumn::TInactive)
            .map_err(|e| bad("t_inactive", e))?;
        let rr: Option<String> = r.get(JobColumn::R).map_err(|e| bad("R", e))?;
        let jobspec: Option<String> = r.get(JobColumn::Jobspec).map_err(|e| bad("jobspec", e))?;
        let bank: Option<String> = r.get(JobColumn::Bank).map_err(|e| bad("bank", e))?;
        if t_run <= 0.0 {
            trace.leave_out("never ran (t_run 0)");
            return Ok(());
        }
        if !(t_submit.is_finite()
            && t_run.is_finite()
            && t_inactive.is_finite()
            && t_submit <= t_run
            && t_run <= t_inactive)
        {
            return Err(err(format!(
                "job {id}: times are not t_submit <= t_run <= t_inactive \
                 ({t_submit}, {t_run}, {t_inactive})"
            )));
        }
        let (name, default_bank) = users
            .get(&userid)
            .ok_or_else(|| err(format!("job {id}: userid {userid} has no association")))?;
        let (nodes, cores, _) = resource_counts(rr.as_deref().unwrap_or_default())
            .map_err(|e| err(format!("job {id}: {e}")))?;
        let cores = if cores > 0.0 { cores } else { nodes };
        if cores < 1.0 {
            trace.leave_out("no cores in R");
            return Ok(());
        }
        trace
            .push(TraceJob {
                id: id.to_string(),
                submit: t_submit.floor() as i64,
                run: (t_inactive - t_run).round() as i64,
                walltime: jobspec.as_deref().and_then(jobspec_duration),
                cores: cores as u64,
                // flux's R names no memory: memory is not modelled for a flux trace.
                mem: 0,
                user: name.clone(),
                account: bank
                    .filter(|b| !b.is_empty())
                    .or_else(|| default_bank.clone())
                    .unwrap_or_default(),
                queue: String::new(),
                qos: String::new(),
            })
            .map_err(err)?;
        Ok(())
    });
    match read {
        Ok(()) => Ok(()),
        Err(JobsReadError::Sqlite(e)) => Err(sql(e)),
        Err(JobsReadError::Stop(e)) => Err(e),
    }
}
