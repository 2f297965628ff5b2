//! Workload traces: the jobs a site really ran, as the replay needs them — submit time, real run
//! time (end − start), requested walltime, size in cores, user, group/account and queue. The
//! recorded start is used only for the run time. Readers: the Standard Workload Format (SWF) of
//! the Parallel Workloads Archive, PBS accounting logs (`E` records, with `Q` records for the
//! submit time when `E` lacks `qtime`), Slurm `sacct -P` and `sacct --json` (`sacct_json`).

use crate::usage::decay::calendar::parse_iso;
use crate::usage::units::{pbs_log_date, slurm_duration};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// One job of a trace.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceJob {
    /// The trace's job id.
    pub id: String,
    /// Submit time, in the trace's seconds (SWF: from the trace start; PBS/sacct: epoch).
    pub submit: i64,
    /// Real run time in seconds (recorded end − recorded start).
    pub run: i64,
    /// Requested walltime in seconds (`None`: the trace does not say; the run time is used).
    pub walltime: Option<i64>,
    /// Cores.
    pub cores: u64,
    /// Requested memory in KB (PBS's size unit); 0: none requested (the job fits any memory).
    pub mem: u64,
    /// User.
    pub user: String,
    /// Group, or account when the trace has one (the fair-share account of the job).
    pub account: String,
    /// Queue or partition.
    pub queue: String,
    /// Slurm QOS (sacct's `QOS`; empty when the trace has none).
    pub qos: String,
}

impl TraceJob {
    /// The walltime the scheduler plans with: the requested one, else the run time.
    pub fn planned(&self) -> i64 {
        self.walltime.unwrap_or(self.run)
    }

    /// How long the job really holds its cores: the run time, cut at the requested walltime.
    pub fn holds(&self) -> i64 {
        match self.walltime {
            Some(w) => self.run.min(w),
            None => self.run,
        }
    }
}

/// A trace: its jobs in trace order, what was left out, and the cluster size it states.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Trace {
    /// Jobs in trace order.
    pub jobs: Vec<TraceJob>,
    /// Records left out (never started, cancelled, still running, steps), by reason.
    pub left_out: Vec<(String, u64)>,
    /// SWF `MaxNodes` header.
    pub max_nodes: Option<u64>,
    /// SWF `MaxProcs` header.
    pub max_procs: Option<u64>,
}

impl Trace {
    /// Whole-node allocation: every job gets the nodes its cores (and, with `mem_per_node` KB
    /// per node > 0, its memory) need, and holds all their cores (and memory). On a cluster of
    /// identical nodes where a node runs one job at a time, counting cores in multiples of whole
    /// nodes is counting nodes, so the simulation needs nothing else.
    pub fn whole_nodes(&mut self, cores_per_node: u64, mem_per_node: u64) {
        let cpn = cores_per_node.max(1);
        for j in &mut self.jobs {
            let mut nodes = j.cores.div_ceil(cpn);
            if mem_per_node > 0 {
                nodes = nodes.max(j.mem.div_ceil(mem_per_node));
                j.mem = nodes.saturating_mul(mem_per_node);
            }
            j.cores = nodes.saturating_mul(cpn);
        }
    }

    pub(crate) fn leave_out(&mut self, reason: &str) {
        match self.left_out.iter_mut().find(|(r, _)| r == reason) {
            Some((_, n)) => *n += 1,
            None => self.left_out.push((reason.to_string(), 1)),
        }
    }
}

/// Trace formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceFormat {
    /// Standard Workload Format.
    Swf,
    /// PBS accounting log (file or directory of daily files).
    Pbs,
    /// Slurm `sacct -P` (pipe-separated with a header line) or `sacct --json` (told apart by
    /// the first character, `{`).
    Sacct,
    /// flux-accounting's database (its `jobs` table).
    Flux,
}

impl TraceFormat {
    /// Every format.
    pub const ALL: [TraceFormat; 4] = [
        TraceFormat::Swf,
        TraceFormat::Pbs,
        TraceFormat::Sacct,
        TraceFormat::Flux,
    ];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::Swf => "swf",
            TraceFormat::Pbs => "pbs",
            TraceFormat::Sacct => "sacct",
            TraceFormat::Flux => "flux",
        }
    }
}

impl std::fmt::Display for TraceFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for TraceFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        TraceFormat::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| format!("unknown trace format `{s}` (expected swf, pbs, sacct or flux)"))
    }
}

/// A trace that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The file cannot be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A malformed line.
    #[error("{}:{line}: {message}", path.display())]
    Line {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A flux-accounting database that cannot be read as a trace.
    #[error("{}: {message}", path.display())]
    Database {
        /// The database file.
        path: PathBuf,
        /// What is wrong (the job it concerns).
        message: String,
    },
    /// A `sacct --json` document that cannot be read as a trace.
    #[error("{}: {message}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// What is wrong (the job and field it concerns).
        message: String,
    },
    /// The format cannot be told from the file.
    #[error("{}: cannot tell the trace format; give --trace-format swf|pbs|sacct|flux", path.display())]
    Unknown {
        /// The file.
        path: PathBuf,
    },
}

fn line_err(path: &Path, line: usize, message: impl Into<String>) -> TraceError {
    TraceError::Line {
        path: path.to_path_buf(),
        line,
        message: message.into(),
    }
}

/// Guesses a format from a file's first meaningful line.
pub fn detect(text: &str) -> Option<TraceFormat> {
    let first = text.lines().find(|l| !l.trim().is_empty())?;
    if first.trim_start().starts_with('{') {
        return Some(TraceFormat::Sacct);
    }
    if first.trim_start().starts_with(';') {
        return Some(TraceFormat::Swf);
    }
    if first.contains('|') {
        return Some(TraceFormat::Sacct);
    }
    if first.split(';').nth(1).is_some_and(|k| k.len() == 1) {
        return Some(TraceFormat::Pbs);
    }
    let n = first.split_whitespace().count();
    (n == 18).then_some(TraceFormat::Swf)
}

/// Reads a trace file (PBS: also a directory of daily files, in name order).
pub fn read_trace(path: &Path, format: Option<TraceFormat>) -> Result<Trace, TraceError> {
    let io = |e| TraceError::Io {
        path: path.to_path_buf(),
        source: e,
    };
    if format == Some(TraceFormat::Flux)
        || (format.is_none() && crate::replay::flux_trace::is_sqlite(path))
    {
        let mut trace = Trace::default();
        crate::replay::flux_trace::read_flux_trace(path, &mut trace)?;
        return Ok(trace);
    }
    let files: Vec<PathBuf> = if path.is_dir() {
        let mut v: Vec<PathBuf> = std::fs::read_dir(path)
            .map_err(io)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.is_file()
                    && !p
                        .file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with('.'))
            })
            .collect();
        v.sort();
        v
    } else {
        vec![path.to_path_buf()]
    };
    let mut texts = Vec::with_capacity(files.len());
    for f in &files {
        let bytes = std::fs::read(f).map_err(|e| TraceError::Io {
            path: f.clone(),
            source: e,
        })?;
        texts.push((f.clone(), String::from_utf8_lossy(&bytes).into_owned()));
    }
    let format = match format {
        Some(f) => f,
        None => texts
            .first()
            .and_then(|(_, t)| detect(t))
            .ok_or_else(|| TraceError::Unknown {
                path: path.to_path_buf(),
            })?,
    };
    let mut trace = Trace::default();
    match format {
        TraceFormat::Swf => {
            for (p, t) in &texts {
                read_swf(t, p, &mut trace)?;
            }
        }
        TraceFormat::Sacct => {
            for (p, t) in &texts {
                if t.trim_start().starts_with('{') {
                    crate::replay::sacct_json::read_sacct_json(t.as_bytes(), p, &mut trace)?;
                } else {
                    read_sacct(t, p, &mut trace)?;
                }
            }
        }
        TraceFormat::Flux => unreachable_flux(path)?,
        TraceFormat::Pbs => {
            let mut reader = PbsTrace::default();
            for (p, t) in &texts {
                reader.read(t, p, &mut trace)?;
            }
        }
    }
    Ok(trace)
}

/// The flux format is read from the database before the text path (`read_trace`).
fn unreachable_flux(path: &Path) -> Result<(), TraceError> {
    Err(TraceError::Unknown {
        path: path.to_path_buf(),
    })
}

/// Reads SWF text. Jobs with an unknown (−1) run time or submit time, or a size of 0, are left
/// out; the size is the requested processors, else the allocated ones; a requested time of −1
/// is unknown.
pub fn read_swf(text: &str, path: &Path, trace: &mut Trace) -> Result<(), TraceError> {
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.trim();
        if l.is_empty() {
            continue;
        }
        if let Some(c) = l.strip_prefix(';') {
            if let Some((k, v)) = c.split_once(':') {
                let v = v.trim().parse::<u64>().ok();
                match k.trim() {
                    "MaxNodes" => trace.max_nodes = v,
                    "MaxProcs" => trace.max_procs = v,
                    _ => {}
                }
            }
            continue;
        }
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() != 18 {
            return Err(line_err(
                path,
                line,
                format!("an SWF job line has 18 fields, this one has {}", f.len()),
            ));
        }
        let num = |k: usize, name: &str| -> Result<i64, TraceError> {
            let s = f.get(k).copied().unwrap_or("");
            s.parse::<i64>()
                .or_else(|_| s.parse::<f64>().map(|x| x.round() as i64))
                .map_err(|_| {
                    line_err(
                        path,
                        line,
                        format!("field {} ({name}): `{s}` is not a number", k + 1),
                    )
                })
        };
        let submit = num(1, "submit time")?;
        let run = num(3, "run time")?;
        let alloc = num(4, "allocated processors")?;
        let req = num(7, "requested processors")?;
        let req_time = num(8, "requested time")?;
        let req_mem = num(9, "requested memory")?;
        let uid = num(11, "user id")?;
        let gid = num(12, "group id")?;
        let queue = num(14, "queue number")?;
        if submit < 0 {
            trace.leave_out("no submit time");
            continue;
        }
        if run < 0 {
            trace.leave_out("no run time (never ran)");
            continue;
        }
        let cores = if req > 0 { req } else { alloc };
        if cores <= 0 {
            trace.leave_out("no size");
            continue;
        }
        trace.jobs.push(TraceJob {
            id: f.first().copied().unwrap_or("").to_string(),
            submit,
            run,
            walltime: (req_time >= 0).then_some(req_time),
            cores: cores as u64,
            // Field 10: requested memory in KB per processor.
            mem: if req_mem > 0 {
                (req_mem as u64).saturating_mul(cores as u64)
            } else {
                0
            },
            user: format!("u{uid}"),
            account: format!("g{gid}"),
            queue: format!("q{queue}"),
            qos: String::new(),
        });
    }
    Ok(())
}

/// Reads `sacct -P` text: a header line naming the columns, then one job or step per line.
/// Steps (`JobID` with a `.`) and jobs that never started or have not ended are left out.
pub fn read_sacct(text: &str, path: &Path, trace: &mut Trace) -> Result<(), TraceError> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((h, header)) = lines.next() else {
        return Ok(());
    };
    let names: Vec<&str> = header.split('|').map(str::trim).collect();
    let col = |n: &str| names.iter().position(|c| c.eq_ignore_ascii_case(n));
    let need = |n: &str| {
        col(n).ok_or_else(|| line_err(path, h + 1, format!("the sacct header has no `{n}` column")))
    };
    let id_c = col("JobIDRaw").map_or_else(|| need("JobID"), Ok)?;
    let (submit_c, start_c, end_c) = (need("Submit")?, need("Start")?, need("End")?);
    let user_c = need("User")?;
    let alloc_c = col("AllocCPUS");
    let req_c = col("ReqCPUS");
    if alloc_c.is_none() && req_c.is_none() {
        return Err(line_err(
            path,
            h + 1,
            "the sacct header has neither `AllocCPUS` nor `ReqCPUS`",
        ));
    }
    let (limit_c, acct_c, group_c) = (col("Timelimit"), col("Account"), col("Group"));
    let part_c = col("Partition");
    let qos_c = col("QOS");
    let (req_tres_c, req_mem_c) = (col("ReqTRES"), col("ReqMem"));
    let nodes_c = col("NNodes")
        .or_else(|| col("ReqNodes"))
        .or_else(|| col("AllocNodes"));
    for (i, l) in lines {
        let line = i + 1;
        let f: Vec<&str> = l.split('|').collect();
        let get = |c: usize| f.get(c).copied().unwrap_or("").trim();
        if f.len() < names.len() {
            return Err(line_err(
                path,
                line,
                format!("{} fields, the header names {}", f.len(), names.len()),
            ));
        }
        let id = get(id_c);
        if id.contains('.') {
            continue;
        }
        let time = |c: usize, what: &str| -> Result<Option<i64>, TraceError> {
            let s = get(c);
            match s {
                "" | "Unknown" | "None" => Ok(None),
                _ => parse_iso(s)
                    .map(Some)
                    .ok_or_else(|| line_err(path, line, format!("{what} `{s}` is not a date"))),
            }
        };
        let Some(submit) = time(submit_c, "Submit")? else {
            return Err(line_err(path, line, "no Submit time"));
        };
        let Some(start) = time(start_c, "Start")? else {
            trace.leave_out("never started");
            continue;
        };
        let Some(end) = time(end_c, "End")? else {
            trace.leave_out("not ended");
            continue;
        };
        let count = |c: Option<usize>| {
            c.and_then(|c| get(c).parse::<u64>().ok())
                .filter(|&n| n > 0)
        };
        let Some(cores) = count(alloc_c).or_else(|| count(req_c)) else {
            trace.leave_out("no size");
            continue;
        };
        let walltime =
            match limit_c.map(get) {
                None | Some("" | "UNLIMITED" | "Partition_Limit") => None,
                Some(s) => Some(slurm_duration(s).ok_or_else(|| {
                    line_err(path, line, format!("Timelimit `{s}` is not a duration"))
                })? as i64),
            };
        let account = acct_c.or(group_c).map(get).unwrap_or("");
        let nodes = count(nodes_c).unwrap_or(1);
        let mem = sacct_mem(req_tres_c.map(get), req_mem_c.map(get), nodes, cores)
            .map_err(|m| line_err(path, line, m))?;
        trace.jobs.push(TraceJob {
            id: id.to_string(),
            submit,
            run: end.saturating_sub(start).max(0),
            walltime,
            cores,
            mem,
            user: get(user_c).to_string(),
            account: if account.is_empty() {
                "default".into()
            } else {
                account.to_string()
            },
            queue: part_c.map(get).unwrap_or("").to_string(),
            qos: qos_c.map(get).unwrap_or("").to_string(),
        });
    }
    Ok(())
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
        let tres =
            crate::slurm::squeue::parse_tres_str(t).map_err(|m| format!("ReqTRES `{t}`: {m}"))?;
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

/// PBS accounting logs across files: `Q` records give a submit time for jobs whose `E` record
/// has no `qtime`; each `E` record with a `start` is one job, in `E` order.
#[derive(Default)]
struct PbsTrace {
    queued: HashMap<String, i64>,
}

impl PbsTrace {
    fn read(&mut self, text: &str, path: &Path, trace: &mut Trace) -> Result<(), TraceError> {
        for (i, l) in text.lines().enumerate() {
            let line = i + 1;
            let l = l.trim_end();
            if l.trim().is_empty() {
                continue;
            }
            let mut parts = l.splitn(4, ';');
            let (Some(date), Some(kind), Some(id)) = (parts.next(), parts.next(), parts.next())
            else {
                return Err(line_err(
                    path,
                    line,
                    "not a PBS accounting record (expected `date;type;id;message`)",
                ));
            };
            let Some(date) = pbs_log_date(date.as_bytes()) else {
                return Err(line_err(
                    path,
                    line,
                    format!("`{date}` is not a PBS log date (MM/DD/YYYY HH:MM:SS)"),
                ));
            };
            let msg = parts.next().unwrap_or("");
            match kind {
                "Q" => {
                    self.queued.entry(id.to_string()).or_insert(date);
                }
                "E" => self.end(id, date, msg, path, line, trace)?,
                _ => {}
            }
        }
        Ok(())
    }

    fn end(
        &mut self,
        id: &str,
        date: i64,
        msg: &str,
        path: &Path,
        line: usize,
        trace: &mut Trace,
    ) -> Result<(), TraceError> {
        let mut a: HashMap<&str, &str> = HashMap::new();
        for kv in msg.split_whitespace() {
            if let Some((k, v)) = kv.split_once('=') {
                a.insert(k, v);
            }
        }
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
        let end = int("end")?.unwrap_or(date);
        let submit = match int("qtime")? {
            Some(q) => q,
            None => match self.queued.get(id) {
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
            .find_map(|k| a.get(k).and_then(|v| v.parse::<u64>().ok()))
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
        let name = |k: &str| a.get(k).copied().unwrap_or("").to_string();
        let account = match (a.get("account"), a.get("group")) {
            (Some(acc), _) => acc.trim_matches('"').to_string(),
            (None, Some(g)) => g.to_string(),
            (None, None) => "default".to_string(),
        };
        trace.jobs.push(TraceJob {
            id: id.to_string(),
            submit,
            run: end.saturating_sub(start).max(0),
            walltime,
            cores,
            mem,
            user: name("user"),
            account,
            queue: name("queue"),
            qos: String::new(),
        });
        Ok(())
    }
}
