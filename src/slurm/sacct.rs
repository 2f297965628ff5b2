//! Slurm `sacct -P` output (`|`-separated, with a header of `--format` columns), or `sacct
//! --json` (detected by its first byte): each finished
//! job (not its steps) charged billable TRES × elapsed seconds, as Slurm accrues usage
//! (slurm.md §5): with `TRESBillingWeights` B = Σ wᵢ·tresᵢ, else the row's `billing=` TRES, else
//! AllocCPUS.

use crate::slurm::job::text;
use crate::slurm::sacct_json::{json_value, sacct_json_jobs};
use crate::slurm::sacct_rows::{
    date_cell_in, local_date, read_sacct_rows, Col, Counts, SacctHeader, SacctLine, SacctReadError,
    SacctRow,
};
use crate::usage::error::{Malformed, UsageError};
use crate::usage::job::{FinishedJob, Source};
use crate::usage::tally::ReadStats;
use crate::usage::units::slurm_duration;
use jiff::tz::TimeZone;
use std::io::BufRead;
use std::path::Path;

/// How `sacct -P` rows are charged and read: a partition's `TRESBillingWeights`, e.g.
/// `CPU=1.0,Mem=0.25G,GRES/gpu=2.0`, and the zone of the `Start`/`End` dates (sacct prints the
/// site's local time without a zone; default: `TZ`, else the system's zone).
#[derive(Debug, Clone, PartialEq)]
pub struct BillingWeights {
    /// (lower-case TRES name, weight per base unit; memory's base unit is the MB).
    weights: Vec<(String, f64)>,
    /// The zone sacct's dates are in.
    zone: TimeZone,
}

impl Default for BillingWeights {
    fn default() -> Self {
        BillingWeights {
            weights: Vec::new(),
            zone: TimeZone::system(),
        }
    }
}

impl std::str::FromStr for BillingWeights {
    type Err = String;
    /// Parses Slurm's syntax; a memory weight may carry a unit (`0.25G` = per GB).
    fn from_str(s: &str) -> Result<Self, String> {
        let mut weights = Vec::new();
        for item in s.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let (name, w) = item
                .split_once('=')
                .ok_or_else(|| format!("TRESBillingWeights: `{item}` is not NAME=WEIGHT"))?;
            let name = name.trim().to_ascii_lowercase();
            let (num, per_mb) = match w.trim().char_indices().last() {
                Some((i, c)) if c.is_ascii_alphabetic() => (&w.trim()[..i], mem_unit_mb(c)),
                _ => (w.trim(), Some(1.0)),
            };
            let per_mb =
                per_mb.ok_or_else(|| format!("TRESBillingWeights: bad unit in `{item}`"))?;
            let x: f64 = num
                .parse()
                .ok()
                .filter(|x: &f64| x.is_finite() && *x >= 0.0)
                .ok_or_else(|| {
                    format!("TRESBillingWeights: bad weight in `{item}` (a finite number >= 0)")
                })?;
            weights.push((name, x / per_mb));
        }
        Ok(BillingWeights {
            weights,
            ..BillingWeights::default()
        })
    }
}

fn mem_unit_mb(c: char) -> Option<f64> {
    Some(match c.to_ascii_uppercase() {
        'K' => 1.0 / 1024.0,
        'M' => 1.0,
        'G' => 1024.0,
        'T' => 1024.0 * 1024.0,
        'P' => 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    })
}

/// One TRES value from AllocTRES (`mem=60G` → MB; others plain counts).
fn tres_value(name: &str, v: &str) -> Option<f64> {
    if name == "mem" {
        if let Some((i, c)) = v
            .char_indices()
            .last()
            .filter(|(_, c)| c.is_ascii_alphabetic())
        {
            return Some(v[..i].parse::<f64>().ok()? * mem_unit_mb(c)?);
        }
    }
    v.parse::<f64>().ok()
}

impl BillingWeights {
    /// The same weights, the dates read in `zone` (`--tz`).
    pub fn in_zone(self, zone: TimeZone) -> Self {
        BillingWeights { zone, ..self }
    }

    /// The zone sacct's dates are read in.
    pub fn zone(&self) -> &TimeZone {
        &self.zone
    }

    /// True when no weights are configured.
    pub fn is_empty(&self) -> bool {
        self.weights.is_empty()
    }

    /// B = Σ wᵢ·tresᵢ over an AllocTRES string (`cpu=16,mem=60G,node=1,billing=16`).
    pub(crate) fn billable(&self, alloc_tres: &str) -> Option<f64> {
        let mut b = 0.0;
        for item in alloc_tres.split(',').filter(|i| !i.is_empty()) {
            let (name, v) = item.split_once('=')?;
            let name = name.to_ascii_lowercase();
            let v = tres_value(&name, v)?;
            if let Some((_, w)) = self.weights.iter().find(|(n, _)| *n == name) {
                b += w * v;
            }
        }
        Some(b)
    }
}

/// Checks that a header names what charging needs.
fn check_header(h: &SacctHeader) -> Result<(), String> {
    let need = |c: Col| {
        if h.has(c) {
            Ok(())
        } else {
            Err(format!("sacct header has no {} column (use sacct -P --format=JobID,User,Account,Start,End,Elapsed,AllocCPUS,AllocTRES,State)", c.name()))
        }
    };
    if h.id_col().is_none() {
        need(Col::JobId)?;
    }
    need(Col::User)?;
    need(Col::End)?;
    if !h.has(Col::Elapsed) && !h.has(Col::ElapsedRaw) && !h.has(Col::Start) {
        return Err("sacct header needs Elapsed, ElapsedRaw or Start".into());
    }
    if !h.has(Col::AllocTres) && !h.has(Col::AllocCpus) && !h.has(Col::NCpus) {
        return Err("sacct header needs AllocTRES or AllocCPUS".into());
    }
    Ok(())
}

/// Reads `sacct -P` output (through [`read_sacct_rows`], the reader `replay` uses too), or
/// `sacct --json` (detected by its first byte); `file` names it in reports.
pub fn read_sacct(
    r: &mut dyn BufRead,
    file: &Path,
    weights: &BillingWeights,
    sink: &mut dyn FnMut(FinishedJob) -> Result<(), String>,
    malformed: &mut Vec<Malformed>,
) -> Result<ReadStats, UsageError> {
    let mut stats = ReadStats::default();
    // `sacct --json`: one document, read whole.
    let head = r.fill_buf().map_err(|e| UsageError::io(file, e))?;
    if head
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b'{')
    {
        let mut bytes = Vec::new();
        r.read_to_end(&mut bytes)
            .map_err(|e| UsageError::io(file, e))?;
        stats.bytes = bytes.len() as u64;
        read_sacct_json(&bytes, file, weights, sink, malformed, &mut stats)?;
        return Ok(stats);
    }
    let input = |message: String| UsageError::Input {
        path: file.to_path_buf(),
        message,
    };
    let mut counts = Counts::default();
    let read = read_sacct_rows(r, &mut counts, |l| -> Result<(), UsageError> {
        match l {
            SacctLine::Header { header, .. } => check_header(header).map_err(input),
            SacctLine::Row(row) => {
                let line = row.line;
                stats.take(row_job(&row, weights), sink, malformed, file, line);
                Ok(())
            }
            SacctLine::Bad {
                line,
                after_header: false,
                message,
            } => Err(input(format!("line {line}: {message}"))),
            SacctLine::Bad { line, message, .. } => {
                stats.skip(malformed, file, line, message);
                Ok(())
            }
        }
    });
    stats.bytes = counts.bytes;
    stats.lines = counts.lines;
    match read {
        Ok(()) => Ok(stats),
        Err(SacctReadError::Io(e)) => Err(UsageError::io(file, e)),
        Err(SacctReadError::Stop(e)) => Err(e),
    }
}

/// `sacct --json` (Slurm 21.08 to 24.x; the fields of SchedMD's data_parser): each finished
/// job (`state.current` not pending, running, ...) charged billable TRES × `time.elapsed`, the
/// TRES from `tres.allocated` (`{type, name, count}`, memory in MB). A job that cannot be read
/// is skipped as malformed, named by its position (`job N`) and id.
fn read_sacct_json(
    bytes: &[u8],
    file: &Path,
    weights: &BillingWeights,
    sink: &mut dyn FnMut(FinishedJob) -> Result<(), String>,
    malformed: &mut Vec<Malformed>,
    stats: &mut ReadStats,
) -> Result<(), UsageError> {
    let input = |message: String| UsageError::Input {
        path: file.to_path_buf(),
        message,
    };
    let jobs = sacct_json_jobs(bytes).map_err(input)?;
    for (i, j) in jobs.iter().enumerate() {
        stats.lines += 1;
        let outcome = json_job(j, weights).map_err(|m| {
            let id = j.get("job_id").map(|v| v.to_string()).unwrap_or_default();
            format!("job {} (job_id {id}): {m}", i + 1)
        });
        stats.take(outcome, sink, malformed, file, i as u64 + 1);
    }
    Ok(())
}

fn json_job(
    j: &serde_json::Value,
    weights: &BillingWeights,
) -> Result<Option<FinishedJob>, String> {
    let id = match json_value(j.get("job_id")) {
        Some(v) if v >= 0.0 => format!("{}", v as u64),
        _ => return Err("no job_id".into()),
    };
    let state = match j.get("state") {
        Some(serde_json::Value::Object(o)) => text(o.get("current")),
        other => text(other),
    };
    if ["RUNNING", "PENDING", "REQUEUED", "RESIZING", "SUSPENDED"]
        .iter()
        .any(|x| state.starts_with(x))
    {
        return Ok(None); // not finished yet
    }
    let time = j.get("time");
    let end = match json_value(time.and_then(|t| t.get("end"))) {
        Some(e) if e > 0.0 => e as i64,
        _ => return Ok(None),
    };
    let seconds = json_value(time.and_then(|t| t.get("elapsed"))).ok_or("no time.elapsed")?;
    let user = text(j.get("user"));
    if user.is_empty() {
        return Err("no user".into());
    }
    let account = Some(text(j.get("account"))).filter(|a| !a.is_empty());
    // tres.allocated as an AllocTRES string (memory in MB).
    let mut alloc = Vec::new();
    if let Some(list) = j
        .get("tres")
        .and_then(|t| t.get("allocated"))
        .and_then(serde_json::Value::as_array)
    {
        for t in list {
            let ty = text(t.get("type")).to_ascii_lowercase();
            let name = text(t.get("name")).to_ascii_lowercase();
            // A TRES slurmdbd did not measure (`energy` without an energy plugin) has a null
            // count: nothing allocated, as the job readers take it.
            if t.get("count").is_some_and(serde_json::Value::is_null) {
                continue;
            }
            let count = json_value(t.get("count")).ok_or("a tres.allocated entry without count")?;
            let label = if name.is_empty() {
                ty
            } else {
                format!("{ty}/{name}")
            };
            alloc.push(if label == "mem" {
                format!("mem={count}M")
            } else {
                format!("{label}={count}")
            });
        }
    }
    let tres = alloc.join(",");
    let count = |n: &str| {
        tres.split(',')
            .find_map(|i| i.strip_prefix(n))
            .and_then(|v| v.parse::<f64>().ok())
    };
    let billable = if !weights.is_empty() {
        weights
            .billable(&tres)
            .ok_or_else(|| format!("bad tres.allocated `{tres}`"))?
    } else if let Some(b) = count("billing=") {
        b
    } else if let Some(c) = count("cpu=") {
        c
    } else {
        json_value(j.get("required").and_then(|r| r.get("CPUs")))
            .ok_or("no billing or cpu in tres.allocated, no required.CPUs")?
    };
    if !(seconds.is_finite() && seconds >= 0.0) {
        return Err(format!(
            "elapsed time {seconds} s is not a finite number >= 0"
        ));
    }
    if !(billable.is_finite() && billable >= 0.0) {
        return Err(format!(
            "billable TRES {billable} is not a finite number >= 0"
        ));
    }
    let charge = billable * seconds;
    if !charge.is_finite() {
        return Err(format!("charge {billable} x {seconds} s is too large"));
    }
    Ok(Some(FinishedJob {
        source: Source::Slurm,
        id,
        end,
        entity: user,
        account,
        charge,
    }))
}

/// The job of a `sacct -P` row, charged: `Ok(None)` for a step or a job not finished yet.
fn row_job(row: &SacctRow<'_>, weights: &BillingWeights) -> Result<Option<FinishedJob>, String> {
    let get = |c: Col| row.cell(c).map(Option::unwrap_or_default);
    let id = row.id()?;
    if id.is_empty() {
        return Err("empty JobID".into());
    }
    if id.contains('.') {
        return Ok(None); // a job step: its job's row carries the charge
    }
    if let Some(state) = row.cell(Col::State)? {
        if ["RUNNING", "PENDING", "REQUEUED", "RESIZING", "SUSPENDED"]
            .iter()
            .any(|x| state.starts_with(x))
        {
            return Ok(None); // not finished yet
        }
    }
    let end_s = get(Col::End)?.trim();
    let zone = weights.zone();
    let Some(end) = date_cell_in(end_s, zone).map_err(|_| format!("bad End `{end_s}`"))? else {
        return Ok(None);
    };
    let user = get(Col::User)?.trim();
    if user.is_empty() {
        return Err("empty User".into());
    }
    let account = row
        .cell(Col::Account)?
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .map(str::to_string);
    let seconds = if let Some(v) = row.cell(Col::ElapsedRaw)? {
        v.trim()
            .parse::<f64>()
            .map_err(|_| format!("bad ElapsedRaw `{v}`"))?
    } else if let Some(v) = row.cell(Col::Elapsed)? {
        slurm_duration(v).ok_or_else(|| format!("bad Elapsed `{v}`"))?
    } else {
        let s = get(Col::Start)?;
        let start = local_date(s.trim(), zone).ok_or_else(|| format!("bad Start `{s}`"))?;
        if end < start {
            return Err(format!("End `{end_s}` is before Start `{}`", s.trim()));
        }
        (end - start) as f64
    };
    let cpus = || -> Result<Option<&str>, String> {
        match row.cell(Col::AllocCpus)? {
            Some(v) => Ok(Some(v)),
            None => row.cell(Col::NCpus),
        }
    };
    let tres = row
        .cell(Col::AllocTres)?
        .map(str::trim)
        .filter(|t| !t.is_empty());
    let billable = if !weights.is_empty() {
        let t = tres.ok_or("TRESBillingWeights given but the row has no AllocTRES")?;
        weights
            .billable(t)
            .ok_or_else(|| format!("bad AllocTRES `{t}`"))?
    } else if let Some(b) = tres.and_then(|t| {
        t.split(',')
            .find_map(|i| i.strip_prefix("billing="))
            .and_then(|v| v.parse::<f64>().ok())
    }) {
        b
    } else if let Some(v) = cpus()? {
        v.trim()
            .parse::<f64>()
            .map_err(|_| format!("bad AllocCPUS `{v}`"))?
    } else {
        let t = tres.unwrap_or_default();
        t.split(',')
            .find_map(|i| i.strip_prefix("cpu="))
            .and_then(|v| v.parse::<f64>().ok())
            .ok_or_else(|| format!("no cpu count in AllocTRES `{t}`"))?
    };
    // A negative or NaN count or duration would subtract from (or poison) the stored usage.
    if !(seconds.is_finite() && seconds >= 0.0) {
        return Err(format!(
            "elapsed time {seconds} s is not a finite number >= 0"
        ));
    }
    if !(billable.is_finite() && billable >= 0.0) {
        return Err(format!(
            "billable TRES {billable} is not a finite number >= 0"
        ));
    }
    let charge = billable * seconds;
    if !charge.is_finite() {
        return Err(format!("charge {billable} x {seconds} s is too large"));
    }
    Ok(Some(FinishedJob {
        source: Source::Slurm,
        id: id.to_string(),
        end,
        entity: user.to_string(),
        account,
        charge,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn billing_weights_doc_example() {
        // slurm.md §5: CPU=1.0,Mem=0.25G: 1 CPU + 60 GiB -> 16; 16 CPU + 1 GiB -> 16.25; 16 + 60 -> 31.
        let w: BillingWeights = "CPU=1.0,Mem=0.25G".parse().unwrap();
        assert_relative_eq!(
            w.billable("cpu=1,mem=60G,node=1").unwrap(),
            16.0,
            epsilon = 1e-12
        );
        assert_relative_eq!(
            w.billable("cpu=16,mem=1G,node=1").unwrap(),
            16.25,
            epsilon = 1e-12
        );
        assert_relative_eq!(
            w.billable("cpu=16,mem=61440M,node=1").unwrap(),
            31.0,
            epsilon = 1e-12
        );
        assert!("CPU".parse::<BillingWeights>().is_err());
        assert!("Mem=1Q".parse::<BillingWeights>().is_err());
    }

    const SACCT: &str = "JobID|User|Account|Start|End|Elapsed|AllocCPUS|AllocTRES|State
100|alice|physics|2024-04-13T10:00:00|2024-04-13T11:00:00|01:00:00|4|billing=4,cpu=4,mem=8G,node=1|COMPLETED
100.batch||physics|2024-04-13T10:00:00|2024-04-13T11:00:00|01:00:00|4|cpu=4,mem=8G,node=1|COMPLETED
101|bob|chem|2024-04-13T10:00:00|Unknown|00:30:00|2|cpu=2|RUNNING
102|bob|chem|2024-04-13T10:00:00|2024-04-14T10:00:00|1-00:00:00|2|cpu=2,mem=1G|FAILED
103|carol|chem|2024-04-13T10:00:00|2024-04-13T10:00:10|zz|1|cpu=1|COMPLETED
";

    #[test]
    fn sacct_json_both_schemas() {
        // v0.0.38 (22.05): plain numbers; v0.0.40+ (23.11+): `{set, infinite, number}` and a
        // state list. A pending job charges nothing; a job without a user is reported.
        let doc = br#"{"meta":{"plugin":{"type":"openapi/dbv0.0.38"}},"jobs":[
          {"job_id":1,"user":"alice","account":"physics","state":{"current":"COMPLETED"},
           "time":{"elapsed":100,"end":1700000100,"start":1700000000},
           "tres":{"allocated":[{"type":"cpu","name":null,"count":2},{"type":"mem","name":null,"count":4096},
             {"type":"billing","name":null,"count":4}]}},
          {"job_id":2,"user":"bob","account":"chem","state":{"current":["PENDING"]},
           "time":{"elapsed":0,"end":{"set":false,"infinite":false,"number":0}}},
          {"job_id":{"set":true,"infinite":false,"number":3},"user":"bob","account":"chem",
           "state":{"current":["CANCELLED"]},"time":{"elapsed":{"set":true,"infinite":false,"number":50},
           "end":{"set":true,"infinite":false,"number":1700000200}},
           "tres":{"allocated":[{"type":"cpu","count":3}]}},
          {"job_id":4,"state":{"current":"FAILED"},"time":{"elapsed":5,"end":1700000300}}]}"#;
        let mut jobs = Vec::new();
        let mut bad = Vec::new();
        let s = read_sacct(
            &mut &doc[..],
            Path::new("sacct.json"),
            &BillingWeights::default(),
            &mut |j| {
                jobs.push(j);
                Ok(())
            },
            &mut bad,
        )
        .unwrap();
        assert_eq!(s.jobs, 2);
        assert_eq!((jobs[0].id.as_str(), jobs[0].charge), ("1", 400.0));
        assert_eq!(jobs[0].account.as_deref(), Some("physics"));
        assert_eq!(
            (jobs[1].id.as_str(), jobs[1].charge, jobs[1].end),
            ("3", 150.0, 1700000200)
        );
        assert_eq!(bad.len(), 1);
        assert!(
            bad[0].message.contains("job 4") && bad[0].message.contains("user"),
            "{}",
            bad[0].message
        );
        // TRESBillingWeights over the allocated TRES: 2 CPUs + 4 GB × 0.25.
        let w: BillingWeights = "CPU=1.0,Mem=0.25G".parse().unwrap();
        jobs.clear();
        read_sacct(
            &mut &doc[..],
            Path::new("sacct.json"),
            &w,
            &mut |j| {
                jobs.push(j);
                Ok(())
            },
            &mut bad,
        )
        .unwrap();
        assert_relative_eq!(jobs[0].charge, 3.0 * 100.0, epsilon = 1e-9);
    }

    #[test]
    fn reads_jobs_skips_steps_and_running_reports_bad_rows() {
        let mut jobs = Vec::new();
        let mut bad = Vec::new();
        let s = read_sacct(
            &mut SACCT.as_bytes(),
            Path::new("s.txt"),
            &BillingWeights::default(),
            &mut |j| {
                jobs.push(j);
                Ok(())
            },
            &mut bad,
        )
        .unwrap();
        assert_eq!(jobs.len(), 2);
        assert_eq!(jobs[0].charge, 4.0 * 3600.0);
        assert_eq!(jobs[0].account.as_deref(), Some("physics"));
        assert_eq!(jobs[1].charge, 2.0 * 86_400.0);
        assert_eq!(bad.len(), 1);
        assert_eq!(bad[0].line, 6);
        assert_eq!(s.jobs, 2);
        let w: BillingWeights = "CPU=1.0,Mem=0.25G".parse().unwrap();
        jobs.clear();
        read_sacct(
            &mut SACCT.as_bytes(),
            Path::new("s.txt"),
            &w,
            &mut |j| {
                jobs.push(j);
                Ok(())
            },
            &mut bad,
        )
        .unwrap();
        assert_relative_eq!(jobs[0].charge, 6.0 * 3600.0, epsilon = 1e-9);
    }

    #[test]
    fn header_without_needed_columns_is_an_error() {
        let mut bad = Vec::new();
        let e = read_sacct(
            &mut "JobID|Account\n1|a\n".as_bytes(),
            Path::new("s"),
            &BillingWeights::default(),
            &mut |_| Ok(()),
            &mut bad,
        );
        assert!(e.unwrap_err().to_string().contains("no user column"));
    }

    #[test]
    fn weights_are_finite_and_not_negative() {
        assert!("CPU=1.0,Mem=0.25G".parse::<BillingWeights>().is_ok());
        for bad in ["CPU=-1", "CPU=1e999", "Mem=-2G"] {
            let e = bad.parse::<BillingWeights>().unwrap_err();
            assert!(e.contains("a finite number >= 0"), "{bad}: {e}");
        }
        assert!("CPU=inf".parse::<BillingWeights>().is_err());
        assert!("CPU=NaN".parse::<BillingWeights>().is_err());
    }
}
