//! PBS accounting logs as a replay trace, read by the PBS adapter's record reader (the one
//! `usage record` charges from).

use crate::pbs::accounting::{lines as pbs_lines, AcctRecord, LineText, RecordError, RecordReader};
use crate::replay::trace_job::{line_err, Trace, TraceError, TraceJob};
use std::collections::HashMap;
use std::path::Path;

/// PBS accounting logs across files, read by the PBS adapter's record reader (the one
/// `usage record` charges from): `Q` records give a submit time for jobs whose `E` record has no
/// `qtime`; each `E` record with a `start` is one job, in `E` order. Attribute values may be
/// quoted (`account="big project"`).
#[derive(Default)]
pub(crate) struct PbsTrace {
    queued: HashMap<String, i64>,
    records: RecordReader,
}

impl PbsTrace {
    /// A reader of logs whose dates are wall-clock time in `zone` (PBS writes its local time).
    pub(crate) fn in_zone(zone: &jiff::tz::TimeZone) -> Self {
        PbsTrace {
            records: RecordReader::in_zone(zone.clone()),
            ..PbsTrace::default()
        }
    }

    /// Reads one file of the log (files in name order, one reader for all).
    pub(crate) fn read(
        &mut self,
        text: &[u8],
        path: &Path,
        trace: &mut Trace,
    ) -> Result<(), TraceError> {
        for l in pbs_lines(text) {
            let line = l.number as usize;
            let text = match l.text {
                LineText::Text(t) => t,
                LineText::Blank => continue,
                LineText::TooLong => {
                    return Err(line_err(
                        path,
                        line,
                        crate::files::lines::too_long_message(),
                    ))
                }
            };
            let rec = self.records.record(text).map_err(|e| match e {
                RecordError::BadDate(date) => line_err(
                    path,
                    line,
                    format!("`{date}` is not a PBS log date (MM/DD/YYYY HH:MM:SS)"),
                ),
                e => line_err(path, line, e.to_string()),
            })?;
            if rec.is(b"Q") {
                self.queued
                    .entry(String::from_utf8_lossy(rec.id).into_owned())
                    .or_insert(rec.date);
            } else if rec.is(b"E") {
                self.end(&rec, path, line, trace)?;
            }
        }
        Ok(())
    }

    fn end(
        &mut self,
        rec: &AcctRecord<'_>,
        path: &Path,
        line: usize,
        trace: &mut Trace,
    ) -> Result<(), TraceError> {
        let mut a: HashMap<String, String> = HashMap::new();
        self.records
            .attrs(rec.message, |k, v| {
                a.insert(
                    String::from_utf8_lossy(k).into_owned(),
                    String::from_utf8_lossy(v).into_owned(),
                );
                Ok(())
            })
            .map_err(|m| line_err(path, line, m))?;
        let id = String::from_utf8_lossy(rec.id).into_owned();
        let int = |k: &str| -> Result<Option<i64>, TraceError> {
            match a.get(k) {
                None => Ok(None),
                Some(v) => v.parse::<i64>().map(Some).map_err(|_| {
                    line_err(path, line, format!("{k}=`{v}` is not a number of seconds"))
                }),
            }
        };
        let Some(start) = int("start")?.filter(|&s| s > 0) else {
            trace.leave_out("never started");
            return Ok(());
        };
        let end = int("end")?.unwrap_or(rec.date);
        let submit = match int("qtime")? {
            Some(q) => q,
            None => match self.queued.get(&id) {
                Some(&q) => q,
                None => int("ctime")?.unwrap_or(start),
            },
        };
        let time = |k: &str| -> Result<Option<i64>, TraceError> {
            match a.get(k) {
                None => Ok(None),
                Some(v) => crate::pbs::defs::units::time_value(v.as_bytes())
                    .map(|x| Some(x as i64))
                    .ok_or_else(|| line_err(path, line, format!("{k}=`{v}` is not a time"))),
            }
        };
        let walltime = time("Resource_List.walltime")?;
        let cores = ["Resource_List.ncpus", "resources_used.ncpus"]
            .iter()
            .find_map(|k| a.get(*k).and_then(|v| v.parse::<u64>().ok()))
            .unwrap_or(1);
        if cores == 0 {
            trace.leave_out("no size");
            return Ok(());
        }
        let mem = match a.get("Resource_List.mem") {
            None => 0,
            Some(v) => crate::pbs::defs::units::size_kb(v).ok_or_else(|| {
                line_err(path, line, format!("Resource_List.mem=`{v}` is not a size"))
            })?,
        };
        let name = |k: &str| a.get(k).cloned().unwrap_or_default();
        let account = match (a.get("account"), a.get("group")) {
            (Some(acc), _) => acc.clone(),
            (None, Some(g)) => g.clone(),
            (None, None) => "default".to_string(),
        };
        trace
            .push(TraceJob {
                id,
                submit,
                run: end.saturating_sub(start).max(0),
                walltime,
                cores,
                mem,
                user: name("user"),
                account,
                queue: name("queue"),
                qos: String::new(),
            })
            .map_err(|m| line_err(path, line, m))?;
        Ok(())
    }
}
