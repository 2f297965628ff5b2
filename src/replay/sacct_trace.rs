//! Slurm `sacct` output as a replay trace, read by the Slurm adapter's readers (the ones
//! `usage record` charges from): `sacct -P` rows ([`read_sacct_rows`]) and `sacct --json` jobs
//! ([`sacct_json_jobs`], each through [`sacct_job`], the reader `fairsort order` uses:
//! `job_id`/`array`, `user`, `account`, `partition`, `qos`, `time.submission`, `time.limit` in
//! minutes, `required.CPUs`, `tres.requested`), plus what a replay needs of a job that ran:
//! `time.start`, `time.end` and the allocated CPUs (`tres.allocated` `cpu`). Steps are left out
//! (`sacct -P`: a `JobID` with a `.`; `--json` nests them in their job).

use crate::replay::trace_job::{line_err, Trace, TraceError, TraceJob};
use crate::slurm::job::{number, parse_tres_str, text, Num, TimeLimit};
use crate::slurm::sacct_json::{sacct_job, sacct_json_jobs, tres_count};
use crate::slurm::sacct_rows::{
    date_cell_in, read_sacct_rows, Col, Counts, SacctHeader, SacctLine, SacctReadError, SacctRow,
};
use crate::usage::units::slurm_duration;
use jiff::tz::TimeZone;
use std::path::Path;

fn json_err(path: &Path, message: impl Into<String>) -> TraceError {
    TraceError::Json {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

/// Checks that a header names what a trace needs.
fn check_header(h: &SacctHeader) -> Result<(), String> {
    let need = |c: Col, name: &str| {
        if h.has(c) {
            Ok(())
        } else {
            Err(format!("the sacct header has no `{name}` column"))
        }
    };
    if h.id_col().is_none() {
        need(Col::JobId, "JobID")?;
    }
    need(Col::Submit, "Submit")?;
    need(Col::Start, "Start")?;
    need(Col::End, "End")?;
    need(Col::User, "User")?;
    if !h.has(Col::AllocCpus) && !h.has(Col::ReqCpus) {
        return Err("the sacct header has neither `AllocCPUS` nor `ReqCPUS`".into());
    }
    Ok(())
}

/// Reads `sacct -P` output: a header line naming the columns, then one job or step per line.
/// Steps (`JobID` with a `.`) and jobs that never started or have not ended are left out. Dates
/// are wall-clock time in `zone` (sacct prints the site's local time without a zone).
pub(crate) fn read_sacct(
    bytes: &[u8],
    path: &Path,
    zone: &TimeZone,
    trace: &mut Trace,
) -> Result<(), TraceError> {
    let mut counts = Counts::default();
    let read = read_sacct_rows(
        &mut &bytes[..],
        &mut counts,
        |l| -> Result<(), TraceError> {
            match l {
                SacctLine::Header { line, header } => {
                    check_header(header).map_err(|m| line_err(path, line as usize, m))
                }
                SacctLine::Row(row) => sacct_row(&row, path, zone, trace),
                SacctLine::Bad { line, message, .. } => Err(line_err(path, line as usize, message)),
            }
        },
    );
    match read {
        Ok(()) => Ok(()),
        Err(SacctReadError::Stop(e)) => Err(e),
        Err(SacctReadError::Io(e)) => Err(TraceError::Io {
            path: path.to_path_buf(),
            source: e,
        }),
    }
}

/// One `sacct -P` row into `trace`.
fn sacct_row(
    row: &SacctRow<'_>,
    path: &Path,
    zone: &TimeZone,
    trace: &mut Trace,
) -> Result<(), TraceError> {
    let line = row.line as usize;
    let h = row.header();
    if row.fields() < h.len() {
        return Err(line_err(
            path,
            line,
            format!("{} fields, the header names {}", row.fields(), h.len()),
        ));
    }
    if row.is_step() {
        return Ok(());
    }
    let time = |c: Col| -> Result<Option<i64>, TraceError> {
        let s = row.text(c);
        date_cell_in(s, zone)
            .map_err(|_| line_err(path, line, format!("{} `{s}` is not a date", name(c))))
    };
    let Some(submit) = time(Col::Submit)? else {
        return Err(line_err(path, line, "no Submit time"));
    };
    let Some(start) = time(Col::Start)? else {
        trace.leave_out("never started");
        return Ok(());
    };
    let Some(end) = time(Col::End)? else {
        trace.leave_out("not ended");
        return Ok(());
    };
    let count = |c: Col| {
        h.has(c)
            .then(|| row.text(c).parse::<u64>().ok())
            .flatten()
            .filter(|&n| n > 0)
    };
    let Some(cores) = count(Col::AllocCpus).or_else(|| count(Col::ReqCpus)) else {
        trace.leave_out("no size");
        return Ok(());
    };
    let walltime = match h.has(Col::Timelimit).then(|| row.text(Col::Timelimit)) {
        None | Some("" | "UNLIMITED" | "Partition_Limit") => None,
        Some(s) => Some(
            slurm_duration(s)
                .ok_or_else(|| line_err(path, line, format!("Timelimit `{s}` is not a duration")))?
                as i64,
        ),
    };
    let account = [Col::Account, Col::Group]
        .into_iter()
        .find(|c| h.has(*c))
        .map(|c| row.text(c))
        .unwrap_or("");
    let nodes = [Col::NNodes, Col::ReqNodes, Col::AllocNodes]
        .into_iter()
        .find(|c| h.has(*c))
        .and_then(count)
        .unwrap_or(1);
    let cell = |c: Col| h.has(c).then(|| row.text(c));
    let mem = sacct_mem(cell(Col::ReqTres), cell(Col::ReqMem), nodes, cores)
        .map_err(|m| line_err(path, line, m))?;
    trace
        .push(TraceJob {
            id: row.id().unwrap_or("").to_string(),
            submit,
            run: end.saturating_sub(start).max(0),
            walltime,
            cores,
            mem,
            user: row.text(Col::User).to_string(),
            account: if account.is_empty() {
                "default".into()
            } else {
                account.to_string()
            },
            queue: row.text(Col::Partition).to_string(),
            qos: row.text(Col::Qos).to_string(),
        })
        .map_err(|m| line_err(path, line, m))
}

/// A date column's name as the messages spell it.
fn name(c: Col) -> &'static str {
    match c {
        Col::Submit => "Submit",
        Col::Start => "Start",
        _ => "End",
    }
}

/// A job's memory in KB from sacct's `ReqTRES` (`mem=` in MB units, the job's total), else
/// `ReqMem` (`4000M`, or per node `4000Mn` × `nodes`, per CPU `4000Mc` × `cores`; K/M/G/T
/// suffixes, MB without one); 0 when neither says.
fn sacct_mem(
    req_tres: Option<&str>,
    req_mem: Option<&str>,
    nodes: u64,
    cores: u64,
) -> Result<u64, String> {
    let mb_to_kb = |mb: f64| (mb * 1024.0).ceil().max(0.0) as u64;
    if let Some(t) = req_tres.filter(|t| !t.is_empty()) {
        let tres = parse_tres_str(t).map_err(|m| format!("ReqTRES `{t}`: {m}"))?;
        if let Some((_, mb)) = tres.iter().find(|(n, _)| n == "mem") {
            return Ok(mb_to_kb(*mb));
        }
    }
    let Some(m) = req_mem
        .map(str::trim)
        .filter(|m| !m.is_empty() && *m != "0")
    else {
        return Ok(0);
    };
    let (m, times) = match m.strip_suffix('n') {
        Some(x) => (x, nodes),
        None => match m.strip_suffix('c') {
            Some(x) => (x, cores),
            None => (m, 1),
        },
    };
    let bad = || format!("ReqMem `{m}` is not a size");
    let (digits, mb_per) = match m.chars().last() {
        Some('K' | 'k') => (m.get(..m.len() - 1).ok_or_else(bad)?, 1.0 / 1024.0),
        Some('M' | 'm') => (m.get(..m.len() - 1).ok_or_else(bad)?, 1.0),
        Some('G' | 'g') => (m.get(..m.len() - 1).ok_or_else(bad)?, 1024.0),
        Some('T' | 't') => (m.get(..m.len() - 1).ok_or_else(bad)?, 1024.0 * 1024.0),
        _ => (m, 1.0),
    };
    let n: f64 = digits
        .parse()
        .ok()
        .filter(|n: &f64| n.is_finite() && *n >= 0.0)
        .ok_or_else(bad)?;
    Ok(mb_to_kb(n * mb_per).saturating_mul(times))
}

/// Reads a `sacct --json` document into `trace`. Jobs without a start (never ran) or an end
/// (still running) are left out and counted; a job without a size (no allocated or required
/// CPUs) too; a field of the wrong type is an error naming the file, the job and the field.
pub(crate) fn read_sacct_json(
    bytes: &[u8],
    path: &Path,
    trace: &mut Trace,
) -> Result<(), TraceError> {
    let jobs = sacct_json_jobs(bytes).map_err(|m| json_err(path, m))?;
    let name = path.display().to_string();
    for (i, j) in jobs.into_iter().enumerate() {
        let sj = sacct_job(&name, i, &j).map_err(|e| json_err(path, e.to_string()))?;
        let time = |k: &str| -> Result<Option<i64>, TraceError> {
            match j.get("time").and_then(|t| t.get(k)).map(number) {
                Some(Ok(Num::Value(v))) if v > 0.0 => Ok(Some(v as i64)),
                None | Some(Ok(_)) => Ok(None),
                Some(Err(m)) => Err(json_err(path, format!("job `{}`: time.{k}: {m}", sj.id))),
            }
        };
        let (start, end) = (time("start")?, time("end")?);
        if sj.submit_time <= 0 {
            return Err(json_err(
                path,
                format!("job `{}`: no time.submission", sj.id),
            ));
        }
        let Some(start) = start else {
            trace.leave_out("never started");
            continue;
        };
        let Some(end) = end else {
            trace.leave_out("not ended");
            continue;
        };
        let alloc = tres_count(&j, "allocated", "cpu").filter(|&c| c >= 1.0);
        let cores = match alloc {
            Some(c) => c as u64,
            None => u64::from(sj.cpus),
        };
        if cores == 0 {
            trace.leave_out("no size");
            continue;
        }
        let walltime = match sj.time_limit {
            TimeLimit::Minutes(m) => Some(i64::from(m) * 60),
            _ => None,
        };
        // Memory: the requested TRES `mem` (MB, the job's total), else the allocated one.
        let mem_mb = sj
            .tres
            .iter()
            .find(|(n, _)| n == "mem")
            .map(|t| t.1)
            .or_else(|| tres_count(&j, "allocated", "mem"))
            .unwrap_or(0.0);
        let account = if sj.account.is_empty() {
            text(j.get("group"))
        } else {
            sj.account.clone()
        };
        trace
            .push(TraceJob {
                run: end.saturating_sub(start).max(0),
                submit: sj.submit_time,
                walltime,
                cores,
                mem: (mem_mb * 1024.0).ceil().max(0.0) as u64,
                account: if account.is_empty() {
                    "default".into()
                } else {
                    account
                },
                queue: sj.partitions.join(","),
                qos: sj.qos,
                user: sj.user,
                id: sj.id,
            })
            .map_err(|m| json_err(path, m))?;
    }
    Ok(())
}
