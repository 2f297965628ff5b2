//! PBS accounting logs: `E` (job end) records of `date;E;jobid;key=value ...` lines, in a file or a
//! directory of daily files. Streaming over bytes with one reused buffer; only the entity, `end`,
//! and the resources the charge reads are converted.

use crate::pbs::accounting::reader::{line_text, LineText, RecordReader};
use crate::pbs::defs::units::record_value;
use crate::pbs::defs::FairshareEntity;
use crate::usage::charge::{clamp_charge, Charge};
use crate::usage::error::{Malformed, UsageError};
use crate::usage::job::FinishedJob;
pub use crate::usage::tally::ReadStats;
use crate::usage::units::parse_f64;
use std::io::BufRead;
use std::path::{Path, PathBuf};

/// Reads `E` records and charges them with a `Charge`.
pub struct PbsLogReader<'c> {
    entity: FairshareEntity,
    charge: &'c dyn Charge,
    used: Vec<Option<f64>>,
    req: Vec<Option<f64>>,
    values: Vec<f64>,
    /// The record reader (and its scratch space).
    records: RecordReader,
}

/// `key == lit`, compared as a fixed-size array (no call to `memcmp` for a short key).
fn is<const N: usize>(key: &[u8], lit: &[u8; N]) -> bool {
    <&[u8; N]>::try_from(key).is_ok_and(|k| k == lit)
}

/// Per-record attributes of interest, borrowed from the line.
#[derive(Default)]
struct Attrs<'a> {
    user: Option<&'a [u8]>,
    group: Option<&'a [u8]>,
    account: Option<&'a [u8]>,
    queue: Option<&'a [u8]>,
    end: Option<&'a [u8]>,
}

impl<'c> PbsLogReader<'c> {
    /// A reader charging with `charge` and naming entities per `entity`.
    pub fn new(entity: FairshareEntity, charge: &'c dyn Charge) -> Self {
        let n = charge.keywords().len();
        PbsLogReader {
            entity,
            charge,
            used: vec![None; n],
            req: vec![None; n],
            values: vec![0.0; n],
            records: RecordReader::default(),
        }
    }

    /// The same reader for a log whose dates are in `zone` (the server's local time).
    pub fn in_zone(mut self, zone: &jiff::tz::TimeZone) -> Self {
        self.records = RecordReader::in_zone(zone.clone());
        self
    }

    /// Reads one log stream; `file` names it in malformed-record reports.
    pub fn read(
        &mut self,
        r: &mut dyn BufRead,
        file: &Path,
        sink: &mut dyn FnMut(FinishedJob) -> Result<(), String>,
        malformed: &mut Vec<Malformed>,
    ) -> Result<ReadStats, UsageError> {
        let mut stats = ReadStats::default();
        let mut buf = Vec::with_capacity(4096);
        loop {
            let (n, too_long) =
                crate::files::lines::read_line(r, &mut buf, crate::files::lines::MAX_LINE_BYTES)
                    .map_err(|e| UsageError::io(file, e))?;
            if n == 0 {
                break;
            }
            stats.bytes += n as u64;
            stats.lines += 1;
            if too_long {
                let message = crate::files::lines::too_long_message();
                stats.skip(malformed, file, stats.lines, message);
                continue;
            }
            let raw = buf.strip_suffix(b"\n").unwrap_or(&buf);
            let LineText::Text(line) = line_text(raw) else {
                continue;
            };
            let record = self.line(line, &mut stats);
            stats.take(record, sink, malformed, file, stats.lines);
        }
        Ok(stats)
    }

    /// The entity setting and the resources the charge reads: what decides which records are
    /// malformed (a charged mark holds it; another setting reads the file again).
    pub(crate) fn reader_id(&self) -> String {
        format!("pbs {} {}", self.entity, self.charge.keywords().join(","))
    }

    /// One line: `Ok(None)` for a well-formed non-`E` record.
    fn line(&mut self, line: &[u8], stats: &mut ReadStats) -> Result<Option<FinishedJob>, String> {
        Ok(self
            .line_parts(line, stats)?
            .map(|p| FinishedJob::pbs(p.id, p.end, p.entity.to_string(), p.charge)))
    }

    /// One line, borrowed from it (no allocation for a well-formed record): `Ok(None)` for a
    /// well-formed non-`E` record. An evaluation error of the charge is counted in `stats`.
    pub(super) fn line_parts<'a>(
        &mut self,
        line: &'a [u8],
        stats: &mut ReadStats,
    ) -> Result<Option<JobParts<'a>>, String> {
        let rec = self.records.record(line).map_err(|e| e.to_string())?;
        if !is(rec.kind, b"E") {
            return Ok(None);
        }
        let (date, msg) = (rec.date, rec.message);
        let id = std::str::from_utf8(rec.id)
            .ok()
            .filter(|s| !s.is_empty() && !s.bytes().any(|c| c.is_ascii_whitespace()))
            .ok_or("bad job id")?;
        self.used.iter_mut().for_each(|v| *v = None);
        self.req.iter_mut().for_each(|v| *v = None);
        let attrs = self.attrs(msg)?;
        let end = match attrs.end {
            Some(e) => parse_f64(e)
                .filter(|x| x.fract() == 0.0)
                .map(|x| x as i64)
                .ok_or_else(|| format!("bad end time `{}`", String::from_utf8_lossy(e)))?,
            None => date,
        };
        let entity = self.entity_name(&attrs)?;
        for (i, v) in self.values.iter_mut().enumerate() {
            *v = self.used[i].or(self.req[i]).unwrap_or(0.0);
        }
        let charge = match self.charge.charge(&self.values) {
            Ok(c) => clamp_charge(c),
            Err(_) => {
                stats.eval_errors += 1;
                0.0
            }
        };
        Ok(Some(JobParts {
            id,
            end,
            entity,
            charge,
        }))
    }

    /// The attributes of an `E` record's message.
    fn attrs<'a>(&mut self, msg: &'a [u8]) -> Result<Attrs<'a>, String> {
        let mut a = Attrs::default();
        let mut records = std::mem::take(&mut self.records);
        let split = records.attrs(msg, |key, value| self.take(key, value, &mut a));
        self.records = records;
        split?;
        Ok(a)
    }

    fn take<'a>(&mut self, key: &[u8], value: &'a [u8], a: &mut Attrs<'a>) -> Result<(), String> {
        let slot_of = match key.len() {
            3 if is(key, b"end") => {
                a.end = Some(value);
                return Ok(());
            }
            4 if is(key, b"user") => {
                a.user = Some(value);
                return Ok(());
            }
            5 if is(key, b"group") => {
                a.group = Some(value);
                return Ok(());
            }
            5 if is(key, b"queue") => {
                a.queue = Some(value);
                return Ok(());
            }
            7 if is(key, b"account") => {
                a.account = Some(value);
                return Ok(());
            }
            // Only `resources_used.*` and `Resource_List.*` are left to look at.
            n if n < 14 => return Ok(()),
            _ => key,
        };
        let head = |n: usize| slot_of.get(..n).unwrap_or_default();
        let (slot, used) = if is(head(15), b"resources_used.") {
            (slot_of.get(15..).unwrap_or_default(), true)
        } else if is(head(14), b"Resource_List.") {
            (slot_of.get(14..).unwrap_or_default(), false)
        } else {
            return Ok(());
        };
        if let Some(i) = self
            .charge
            .keywords()
            .iter()
            .position(|k| k.as_bytes() == slot)
        {
            // A negative, non-finite or absurd amount would subtract from, poison or swamp the
            // usage.
            let v = record_value(value).ok_or_else(|| {
                format!(
                    "bad value `{}` for {}",
                    String::from_utf8_lossy(value),
                    String::from_utf8_lossy(key)
                )
            })?;
            if used {
                self.used[i] = Some(v);
            } else {
                self.req[i] = Some(v);
            }
        }
        Ok(())
    }

    fn entity_name<'a>(&self, a: &Attrs<'a>) -> Result<EntityName<'a>, String> {
        let text = |v: &'a [u8]| -> Result<&'a str, String> {
            std::str::from_utf8(v)
                .ok()
                .filter(|s| !s.is_empty())
                .ok_or_else(|| "empty or non-UTF-8 entity name".to_string())
        };
        let group_user = || -> Result<EntityName<'a>, String> {
            match (a.group, a.user) {
                (Some(g), Some(u)) => Ok(EntityName::Pair(text(g)?, text(u)?)),
                _ => Err("E record without user= and group=".into()),
            }
        };
        let one = |v: &'a [u8]| text(v).map(EntityName::One);
        match self.entity {
            FairshareEntity::Euser => one(a.user.ok_or("E record without user=")?),
            FairshareEntity::Egroup => one(a.group.ok_or("E record without group=")?),
            // A job without the attribute falls back to egroup:euser, as PBS names such entities.
            FairshareEntity::AccountName => a.account.map_or_else(group_user, one),
            FairshareEntity::Queue => a.queue.map_or_else(group_user, one),
            FairshareEntity::EgroupEuser => group_user(),
        }
    }
}

/// A PBS entity's name as the record spells it: one attribute, or `egroup:euser`.
#[derive(Debug, Clone, Copy)]
pub(super) enum EntityName<'a> {
    /// `user=`, `group=`, `account=` or `queue=`.
    One(&'a str),
    /// `egroup:euser`.
    Pair(&'a str, &'a str),
}

impl std::fmt::Display for EntityName<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EntityName::One(s) => f.write_str(s),
            EntityName::Pair(g, u) => write!(f, "{g}:{u}"),
        }
    }
}

/// A finished job borrowed from its `E` line ([`PbsLogReader::line_parts`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct JobParts<'a> {
    /// The job id.
    pub id: &'a str,
    /// End time, epoch seconds.
    pub end: i64,
    /// The entity charged.
    pub entity: EntityName<'a>,
    /// The charge (0 on an evaluation error).
    pub charge: f64,
}

/// A file is itself; a directory is its regular, non-hidden files in name order.
pub(crate) fn expand_inputs(path: &Path) -> Result<Vec<PathBuf>, UsageError> {
    let meta = std::fs::metadata(path).map_err(|e| UsageError::io(path, e))?;
    if !meta.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files = Vec::new();
    for entry in std::fs::read_dir(path).map_err(|e| UsageError::io(path, e))? {
        let entry = entry.map_err(|e| UsageError::io(path, e))?;
        let p = entry.path();
        let hidden = entry.file_name().to_string_lossy().starts_with('.');
        if !hidden && p.is_file() {
            files.push(p);
        }
    }
    files.sort();
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usage::charge::ResourceCharge;

    const LOG: &str = "\
04/13/2024 10:00:00;Q;101.srv;queue=workq
04/13/2024 11:00:00;E;101.srv;user=alice group=users project=_pbs_project_default jobname=\"my job\" queue=workq ctime=1713000000 start=1713002400 end=1713006000 Exit_status=0 Resource_List.ncpus=2 Resource_List.walltime=02:00:00 resources_used.cput=01:30:00 resources_used.mem=300kb resources_used.walltime=00:50:00 run_count=1
04/13/2024 11:05:00;E;102.srv;user=bob group=staff account=proj1 queue=long Resource_List.ncpus=4 Resource_List.walltime=01:00:00 resources_used.walltime=00:10:00
garbage without separators
04/13/2024 11:06:00;E;103.srv;user=carol group=users resources_used.cput=abc
";

    fn read(entity: FairshareEntity, res: &str) -> (Vec<FinishedJob>, Vec<Malformed>, ReadStats) {
        let c = ResourceCharge::new(res);
        let mut r = PbsLogReader::new(entity, &c);
        let mut jobs = Vec::new();
        let mut bad = Vec::new();
        let stats = r
            .read(
                &mut LOG.as_bytes(),
                Path::new("20240413"),
                &mut |j| {
                    jobs.push(j);
                    Ok(())
                },
                &mut bad,
            )
            .unwrap();
        (jobs, bad, stats)
    }

    #[test]
    fn charges_cput_and_reports_bad_lines() {
        let (jobs, bad, stats) = read(FairshareEntity::Euser, "cput");
        assert_eq!(jobs.len(), 2);
        assert_eq!(
            (jobs[0].id.as_str(), jobs[0].entity.as_str()),
            ("101.srv", "alice")
        );
        assert_eq!(jobs[0].charge, 5400.0);
        assert_eq!(jobs[0].end, 1_713_006_000);
        // no cput used or requested: 0, as PBS binds an unrequested resource
        assert_eq!(jobs[1].charge, 0.0);
        assert_eq!(jobs[1].end, 1_712_966_400 + 11 * 3600 + 300);
        assert_eq!(bad.len(), 2);
        assert_eq!(bad[0].line, 4);
        assert_eq!(bad[1].line, 5);
        assert!(
            bad[1]
                .to_string()
                .starts_with("20240413:5: bad value `abc`"),
            "{}",
            bad[1]
        );
        assert_eq!(stats.malformed, 2);
        assert_eq!(stats.lines, 5);
    }

    #[test]
    fn used_preferred_then_requested() {
        let (jobs, _, _) = read(FairshareEntity::Euser, "walltime");
        assert_eq!(jobs[0].charge, 3000.0);
        assert_eq!(jobs[1].charge, 600.0);
        let (jobs, _, _) = read(FairshareEntity::Euser, "ncpus");
        assert_eq!(jobs[0].charge, 2.0);
        assert_eq!(jobs[1].charge, 4.0);
        let (jobs, _, _) = read(FairshareEntity::Euser, "mem");
        assert_eq!(jobs[0].charge, 300.0);
    }

    #[test]
    fn entity_choices() {
        let names = |e| {
            read(e, "cput")
                .0
                .into_iter()
                .map(|j| j.entity)
                .collect::<Vec<_>>()
        };
        assert_eq!(names(FairshareEntity::Egroup), ["users", "staff"]);
        assert_eq!(
            names(FairshareEntity::AccountName),
            ["users:alice", "proj1"]
        );
        assert_eq!(names(FairshareEntity::Queue), ["workq", "long"]);
        assert_eq!(
            names(FairshareEntity::EgroupEuser),
            ["users:alice", "staff:bob"]
        );
        assert!("Account_Name".parse::<FairshareEntity>().is_ok());
        assert_eq!(
            "user".parse::<FairshareEntity>(),
            Err("fairshare_entity user is erroneous (or deprecated).".into())
        );
    }

    #[test]
    fn never_panics_on_odd_lines() {
        let c = ResourceCharge::new("cput");
        let mut r = PbsLogReader::new(FairshareEntity::Euser, &c);
        let odd = "04/13/2024 11:00:00;E;1;user=\"x\n04/13/2024 11:00:00;E;;user=a\n04/13/2024 11:00:00;E;2;=\n;;;\n\u{ff}\n04/13/2024 11:00:00;E;3;user=a end=1.5\n04/13/2024 11:00:00;E;4;user\n";
        let mut bad = Vec::new();
        let s = r
            .read(
                &mut odd.as_bytes(),
                Path::new("x"),
                &mut |_| Ok(()),
                &mut bad,
            )
            .unwrap();
        assert_eq!(s.jobs, 0);
        assert_eq!(bad.len(), 7);
    }
}
