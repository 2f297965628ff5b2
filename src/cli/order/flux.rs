//! `fairsort order --jobs flux-jobs.json --tree accounting.db`: flux-accounting's `mf_priority`
//! job priority for every pending job of a `flux jobs --json` capture, from the flux-accounting
//! database, in the order flux runs them; `--json`, `--explain JOBID` and `--against-weights`
//! (what-if). The arithmetic is `fairsort::flux::priority`.

use super::report::{self, Body, SchedulerOrder};
use super::{Args, JobsIn};
use crate::cli::{CliResult, Failure};
use fairsort::flux::jobs::{parse_job_id, FluxJob};
use fairsort::flux::priority::{compute, FluxRow, Outcome, QueueFactor, Site, Weights};
use fairsort::flux::read_flux_jobs;
use fairsort::flux::site::{read_site, read_site_conn, recompute_fairshare, FairshareSource};
use fairsort::scenario::sources::{Source, Sources};
use serde::Serialize;
use serde_json::{json, Value};
use std::io::Write;
use std::path::Path;

/// The built-in `--example flux`: a flux-accounting database made at run time from SQL text
/// (examples/flux_priority/accounting.sql) and a `flux jobs --json` queue.
const EX_SQL: &str = include_str!("../../../examples/flux_priority/accounting.sql");
const EX_JOBS: &str = include_str!("../../../examples/flux_priority/flux-jobs.json");

/// The inputs: the plugin's data, the jobs, and names for the header.
struct Inputs {
    site: Site,
    jobs: Vec<FluxJob>,
    db_name: String,
    /// With `--flux-fairshare computed`: how many associations' fair shares changed.
    recomputed: Option<usize>,
    /// Where the database came from.
    db: Source,
}

fn recompute(
    args: &Args,
    site: &mut Site,
    spec: impl FnOnce() -> Result<fairsort::fairshare::TreeSpec, fairsort::files::FormatError>,
) -> Result<Option<usize>, Failure> {
    if args.flux_fairshare.unwrap_or_default() != FairshareSource::Computed {
        return Ok(None);
    }
    let spec = spec().map_err(|e| Failure::user(e.to_string()))?;
    recompute_fairshare(site, spec)
        .map(Some)
        .map_err(|e| Failure::user(format!("--flux-fairshare computed: {e}")))
}

fn load(args: &Args, jobs_in: JobsIn) -> Result<Inputs, Failure> {
    if args.example.as_deref() == Some("flux") {
        if args.jobs.is_some() || args.tree.is_some() {
            return Err(Failure::usage(
                "--example flux brings its own database and jobs: drop --jobs and --tree",
            ));
        }
        let conn = rusqlite::Connection::open_in_memory()
            .and_then(|c| c.execute_batch(EX_SQL).map(|_| c))
            .map_err(|e| Failure::user(format!("example database: {e}")))?;
        let mut site =
            read_site_conn(&conn, "accounting.sql").map_err(|e| Failure::user(e.to_string()))?;
        let recomputed = recompute(args, &mut site, || {
            fairsort::flux::db::read_conn(&conn, Path::new("accounting.sql"))
        })?;
        let jobs = read_flux_jobs("flux-jobs.json", EX_JOBS.as_bytes())
            .map_err(|e| Failure::user(e.to_string()))?;
        return Ok(Inputs {
            site,
            jobs,
            db_name: "examples/flux_priority/accounting.sql".into(),
            recomputed,
            db: Source::example("flux").detail("accounting.sql"),
        });
    }
    if matches!(jobs_in, JobsIn::None) {
        return Err(Failure::usage(
            "flux priorities need --jobs (flux jobs --json output)",
        ));
    }
    let db = args.tree.as_deref().ok_or_else(|| {
        Failure::usage(
            "flux priorities need --tree accounting.db (the flux-accounting database mf_priority reads)",
        )
    })?;
    let mut site = read_site(db).map_err(|e| Failure::user(e.to_string()))?;
    let recomputed = recompute(args, &mut site, || fairsort::flux::db::read_db(db))?;
    let name = jobs_in.name();
    let jobs =
        read_flux_jobs(&name, &jobs_in.bytes()?).map_err(|e| Failure::user(e.to_string()))?;
    Ok(Inputs {
        site,
        jobs,
        db_name: db.display().to_string(),
        recomputed,
        db: Source::file("--tree", db.display().to_string()).value("flux-db"),
    })
}

fn refuse_other_flags(args: &Args) -> Result<(), Failure> {
    let formula = [
        (args.formula_file.is_some(), "--formula-file"),
        (args.formula.is_some(), "--formula"),
        (args.against.is_some(), "--against"),
    ];
    for (set, flag) in formula {
        if set {
            return Err(Failure::usage(format!(
                "{flag} does not apply to flux jobs: mf_priority's weights come from the \
                 database (what-if: --against-weights fairshare=N,queue=N,bank=N,urgency=N)"
            )));
        }
    }
    let other = [
        (
            args.threshold.is_some(),
            "--threshold",
            "PBS's job_sort_formula_threshold",
        ),
        (args.pbs_compat, "--pbs-compat", "PBS's rounding"),
        (
            args.usage.is_some(),
            "--usage",
            "a PBS usage file; the usage is the database's",
        ),
        (
            !args.queue_priority.is_empty(),
            "--queue-priority",
            "PBS queues' Priority",
        ),
        (args.qos.is_some(), "--qos", "Slurm's QOS"),
        (args.assoc.is_some(), "--assoc", "Slurm's associations"),
        (args.at.is_some(), "--at", "mf_priority has no age factor"),
    ];
    for (set, flag, what) in other {
        if set {
            return Err(Failure::usage(format!(
                "{flag} does not apply to flux jobs ({what})"
            )));
        }
    }
    Ok(())
}

/// Runs the flux path of `fairsort order`.
pub(super) fn run(args: &Args, jobs: JobsIn, sink: &mut report::Sink<'_>) -> CliResult {
    let mut out = std::io::BufWriter::new(std::io::stdout());
    run_to(args, jobs, &mut out, sink)?;
    out.flush()?;
    Ok(())
}

/// The flux path of `fairsort order`, printed on `out` (or kept by `sink`).
pub(super) fn run_to(
    args: &Args,
    jobs: JobsIn,
    out: &mut (dyn Write + Send),
    sink: &mut report::Sink<'_>,
) -> CliResult {
    refuse_other_flags(args)?;
    let inp = load(args, jobs)?;
    let mode = args.flux_queue_factor.unwrap_or_default();
    let weights = inp.site.weights;
    let rows = compute(&inp.site, &weights, &inp.jobs, mode);
    let against = match &args.against_weights {
        Some(list) => {
            let mut other = weights;
            other
                .set(list)
                .map_err(|e| Failure::usage(format!("--against-weights: {e}")))?;
            let rows_b = compute(&inp.site, &other, &inp.jobs, mode);
            Some((other, rows_b))
        }
        None => None,
    };
    let fairshare = match inp.recomputed {
        None => inp.db.clone().detail("association_table.fairshare"),
        Some(_) => inp
            .db
            .clone()
            .detail("--flux-fairshare computed: from the shares and usage"),
    };
    let sources = Sources {
        scheduler: "flux",
        site: None,
        tree: inp.db.clone().detail("bank and association tables"),
        usage: inp.db.clone().detail("job_usage_factor_table"),
        formula: inp.db.clone().detail("the plugin's weights"),
        algorithm: fairshare.value("flux"),
        half_life: inp
            .db
            .clone()
            .detail("priority_decay_half_life of flux-accounting"),
    };
    let order = FluxOrder {
        args,
        inp,
        weights,
        mode,
        rows,
        against,
        sources,
    };
    report::emit(sink, out, args, &order)
}

/// A flux-accounting site's priorities (and a what-if), for the one output path.
struct FluxOrder<'a> {
    args: &'a Args,
    inp: Inputs,
    weights: Weights,
    mode: QueueFactor,
    rows: Vec<FluxRow>,
    against: Option<(Weights, Vec<FluxRow>)>,
    sources: Sources,
}

impl FluxOrder<'_> {
    fn against(&self) -> Result<(&Weights, &[FluxRow]), Failure> {
        match &self.against {
            Some((w, rows)) => Ok((w, rows)),
            None => Err(Failure::user("internal: no comparison for this report")),
        }
    }
}

impl SchedulerOrder for FluxOrder<'_> {
    fn metrics(&self) -> Result<report::OrderMetrics, Failure> {
        use fairsort::metrics::{Phase, QueueJob};
        let inp = &self.inp;
        let mut jobs = Vec::with_capacity(inp.jobs.len());
        let mut in_rows = vec![false; inp.jobs.len()];
        // `flux jobs --json` as read keeps no core count or time limit: one core, no limit.
        for (pos, r) in self.rows.iter().enumerate() {
            if let Some(seen) = in_rows.get_mut(r.job) {
                *seen = true;
            }
            let phase = match r.outcome {
                Outcome::Priority(_) | Outcome::Expedited | Outcome::OutOfRange(_) => {
                    Phase::Pending
                }
                Outcome::Held | Outcome::Rejected(_) => Phase::Other,
            };
            jobs.push(QueueJob {
                id: fairsort::flux::jobs::f58_encode(r.id),
                user: r.user.clone(),
                account: r.bank.clone(),
                queue: r.queue.clone(),
                phase,
                cores: 1.0,
                walltime: None,
                rank: Some(pos + 1),
                value: r.outcome.priority().map(|p| p as f64),
            });
        }
        for (j, seen) in inp.jobs.iter().zip(in_rows) {
            if seen {
                continue;
            }
            let running = j
                .state
                .as_deref()
                .is_some_and(|s| s.eq_ignore_ascii_case("RUN") || s.eq_ignore_ascii_case("R"));
            jobs.push(QueueJob {
                id: j.f58(),
                user: j.username.clone().unwrap_or_else(|| j.userid.to_string()),
                account: j.bank.clone().unwrap_or_default(),
                queue: j.queue.clone().unwrap_or_default(),
                phase: if running {
                    Phase::Running
                } else {
                    Phase::Other
                },
                cores: 1.0,
                walltime: None,
                rank: None,
                value: None,
            });
        }
        let spec = if self.args.example.as_deref() == Some("flux") {
            let conn = rusqlite::Connection::open_in_memory()
                .and_then(|c| c.execute_batch(EX_SQL).map(|_| c))
                .map_err(|e| Failure::user(format!("example database: {e}")))?;
            fairsort::flux::db::read_conn(&conn, Path::new("accounting.sql"))
        } else {
            let db = self.args.tree.as_deref().unwrap_or(Path::new(""));
            fairsort::flux::db::read_db(db)
        }
        .map_err(|e| Failure::user(e.to_string()))?;
        let tree =
            fairsort::fairshare::Tree::build(spec).map_err(|e| Failure::user(e.to_string()))?;
        Ok(report::OrderMetrics {
            scheduler: "flux",
            jobs,
            tree: Some(tree),
            results: Vec::new(),
            algorithms: vec![fairsort::fairshare::Algorithm::Flux],
        })
    }

    fn sources(&self) -> &Sources {
        &self.sources
    }

    fn formula_label(&self) -> &'static str {
        "weights"
    }

    fn header(&self, body: &Body<'_>) -> Result<String, Failure> {
        let mut out = Vec::new();
        if let Body::Order = body {
            header(&mut out, &self.inp, &self.weights, self.mode)?;
        }
        String::from_utf8(out).map_err(|e| Failure::user(e.to_string()))
    }

    fn text(&self, out: &mut (dyn Write + Send), body: &Body<'_>) -> CliResult {
        let (args, inp, w, rows) = (self.args, &self.inp, &self.weights, &self.rows);
        match body {
            Body::Against => {
                let (wb, rows_b) = self.against()?;
                print_against(out, args, w, wb, rows, rows_b, &self.sources)
            }
            Body::Explain(id) => print_explain(out, args, inp, w, rows, id, &self.sources),
            Body::Order => print_table(out, args, inp, rows),
        }
    }

    fn json(&self, out: &mut (dyn Write + Send), body: &Body<'_>) -> CliResult {
        let (args, inp, w, rows) = (self.args, &self.inp, &self.weights, &self.rows);
        match body {
            Body::Order => print_json(out, args, inp, w, self.mode, rows, &self.sources),
            _ => self.text(out, body),
        }
    }

    /// The order's rows as CSV; an explanation is text; a comparison is `--json`'s.
    fn csv(&self, out: &mut (dyn Write + Send), body: &Body<'_>) -> CliResult {
        match body {
            Body::Order => print_csv(out, self.args, &self.rows),
            Body::Explain(_) => self.text(out, body),
            Body::Against => Err(Failure::usage(
                "--csv does not apply to a flux comparison (--against-weights): use --json",
            )),
        }
    }
}

/// The rows as CSV, in the order flux runs them (`--top N`: the first N); a rejected job has
/// no rank, priority or factors.
fn print_csv(out: &mut (dyn Write + Send), args: &Args, rows: &[FluxRow]) -> CliResult {
    let mut w = csv::Writer::from_writer(&mut *out);
    w.write_record([
        "rank",
        "job_id",
        "user",
        "bank",
        "queue",
        "priority",
        "fairshare",
        "queue_factor",
        "bank_factor",
        "urgency",
        "status",
    ])?;
    let blank = |r: &FluxRow, cell: String| match r.outcome {
        Outcome::Rejected(_) => String::new(),
        _ => cell,
    };
    for (i, r) in rows.iter().take(args.top.unwrap_or(usize::MAX)).enumerate() {
        let ranked = r.outcome.priority().is_some();
        w.write_record([
            if ranked {
                (i + 1).to_string()
            } else {
                String::new()
            },
            fairsort::flux::jobs::f58_encode(r.id),
            r.user.clone(),
            r.bank.clone(),
            r.queue.clone(),
            r.outcome
                .priority()
                .map_or_else(String::new, |p| p.to_string()),
            blank(r, r.terms.fairshare.to_string()),
            blank(r, r.terms.queue.to_string()),
            blank(r, r.terms.bank.to_string()),
            blank(r, r.terms.urgency.to_string()),
            r.outcome.status().to_string(),
        ])?;
    }
    w.flush()?;
    Ok(())
}

fn mode_name(m: QueueFactor) -> &'static str {
    match m {
        QueueFactor::Association => "association",
        QueueFactor::Job => "job",
    }
}

fn weights_json(w: &Weights) -> Value {
    json!({"fairshare": w.fairshare, "queue": w.queue, "bank": w.bank, "urgency": w.urgency})
}

/// One job of `--json` (keys in alphabetical order, as the other JSON objects print).
#[derive(Serialize)]
struct RowOut<'a> {
    association_inactive: bool,
    bank: &'a str,
    factors: FactorsOut,
    id: u64,
    jobid: String,
    priority: Option<i64>,
    queue: &'a str,
    queue_from: Option<FromOut<'a>>,
    reason: Option<String>,
    status: &'static str,
    urgency: i32,
    user: &'a str,
    userid: i64,
    values: ValuesOut,
}

/// The weighted terms.
#[derive(Serialize)]
struct FactorsOut {
    bank: f64,
    fairshare: f64,
    queue: i32,
    urgency: i32,
}

/// The factors before weighting.
#[derive(Serialize)]
struct ValuesOut {
    bank_priority: f64,
    fairshare: f64,
    queue_priority: i32,
}

/// The job whose queue gave the factor.
#[derive(Serialize)]
struct FromOut<'a> {
    id: u64,
    jobid: String,
    queue: &'a str,
}

impl<'a> RowOut<'a> {
    fn of(r: &'a FluxRow) -> Self {
        RowOut {
            association_inactive: r.inactive,
            bank: &r.bank,
            factors: FactorsOut {
                bank: r.terms.bank,
                fairshare: r.terms.fairshare,
                queue: r.terms.queue,
                urgency: r.terms.urgency,
            },
            id: r.id,
            jobid: fairsort::flux::jobs::f58_encode(r.id),
            priority: r.outcome.priority(),
            queue: &r.queue,
            queue_from: r.queue_from.as_ref().map(|(id, q)| FromOut {
                id: *id,
                jobid: fairsort::flux::jobs::f58_encode(*id),
                queue: q,
            }),
            reason: match &r.outcome {
                Outcome::Rejected(m) => Some(m.clone()),
                Outcome::OutOfRange(v) => Some(format!("rounded sum {v} is not an int64")),
                _ => None,
            },
            status: r.outcome.status(),
            urgency: r.urgency,
            user: &r.user,
            userid: r.userid,
            values: ValuesOut {
                bank_priority: r.bank_priority,
                fairshare: r.fairshare,
                queue_priority: r.queue_priority,
            },
        }
    }
}

fn row_json(r: &FluxRow) -> Result<Value, Failure> {
    Ok(serde_json::to_value(RowOut::of(r))?)
}

/// A weighted double term as a table cell: integers bare, others to one decimal.
fn term(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// A weighted factor's cell; `-` for a job the plugin rejects (no factor applies).
fn factor_cell(r: &FluxRow, cell: impl FnOnce() -> String) -> String {
    match r.outcome {
        Outcome::Rejected(_) => "-".to_string(),
        _ => cell(),
    }
}

fn priority_cell(r: &FluxRow) -> String {
    r.outcome
        .priority()
        .map_or_else(|| "-".to_string(), |p| p.to_string())
}

fn header(out: &mut Vec<u8>, inp: &Inputs, w: &Weights, mode: QueueFactor) -> CliResult {
    writeln!(
        out,
        "fairsort order: flux-accounting mf_priority (v0.60) from {}",
        inp.db_name
    )?;
    writeln!(
        out,
        "priority:     round(fairshare×{} + queue×{} + bank×{} + (urgency−16)×{}), below 0 → 0; urgency 0 → 0, 31 → 4294967295",
        w.fairshare, w.queue, w.bank, w.urgency
    )?;
    writeln!(
        out,
        "queue factor: {}",
        match mode {
            QueueFactor::Association =>
                "per association, from its latest job (the plugin's state after flux account-priority-update)",
            QueueFactor::Job => "each job's own queue (the value it got on entering PRIORITY)",
        }
    )?;
    match inp.recomputed {
        None => writeln!(
            out,
            "fair share:   association_table.fairshare (as the last flux account-update-fshare stored it)"
        )?,
        Some(n) => writeln!(
            out,
            "fair share:   recomputed from shares and usage, as flux account-update-fshare would store it now ({n} association{} changed)",
            if n == 1 { "" } else { "s" }
        )?,
    }
    Ok(())
}

fn print_table(
    out: &mut (dyn Write + Send),
    args: &Args,
    inp: &Inputs,
    rows: &[FluxRow],
) -> CliResult {
    let not_pending = inp.jobs.iter().filter(|j| !j.is_pending()).count();
    writeln!(
        out,
        "jobs:         {} pending{}",
        rows.len(),
        if not_pending > 0 {
            format!(" ({not_pending} running or finished not listed)")
        } else {
            String::new()
        }
    )?;
    writeln!(out)?;
    let shown: Vec<&FluxRow> = rows.iter().take(args.top.unwrap_or(usize::MAX)).collect();
    let cells: Vec<[String; 11]> = shown
        .iter()
        .enumerate()
        .map(|(i, r)| {
            [
                if r.outcome.priority().is_some() {
                    (i + 1).to_string()
                } else {
                    "-".into()
                },
                fairsort::flux::jobs::f58_encode(r.id),
                r.user.clone(),
                r.bank.clone(),
                r.queue.clone(),
                priority_cell(r),
                factor_cell(r, || term(r.terms.fairshare)),
                factor_cell(r, || r.terms.queue.to_string()),
                factor_cell(r, || term(r.terms.bank)),
                factor_cell(r, || r.terms.urgency.to_string()),
                match &r.queue_from {
                    Some(_) => format!("{}*", r.outcome.status()),
                    None => r.outcome.status().to_string(),
                },
            ]
        })
        .collect();
    let heads = [
        "RANK",
        "JOBID",
        "USER",
        "BANK",
        "QUEUE",
        "PRIORITY",
        "FAIRSHARE",
        "QUEUE",
        "BANK",
        "URGENCY",
        "STATUS",
    ];
    let right = [
        true, false, false, false, false, true, true, true, true, true, false,
    ];
    let mut width: Vec<usize> = heads.iter().map(|h| h.chars().count()).collect();
    for c in &cells {
        for (k, s) in c.iter().enumerate() {
            width[k] = width[k].max(s.chars().count());
        }
    }
    let line = |cells: &[String]| -> String {
        let mut s = String::new();
        for (k, c) in cells.iter().enumerate() {
            if k > 0 {
                s.push_str("  ");
            }
            let pad = width[k] - c.chars().count();
            if right[k] {
                s.push_str(&" ".repeat(pad));
                s.push_str(c);
            } else {
                s.push_str(c);
                if k + 1 < cells.len() {
                    s.push_str(&" ".repeat(pad));
                }
            }
        }
        s
    };
    let head: Vec<String> = heads.iter().map(|h| h.to_string()).collect();
    writeln!(out, "{}", line(&head))?;
    for c in &cells {
        writeln!(out, "{}", line(c))?;
    }
    if shown.len() < rows.len() {
        writeln!(out, "... {} more", rows.len() - shown.len())?;
    }
    // Notes name at most NOTES jobs of each kind (a million-job queue stays readable).
    const NOTES: usize = 20;
    let mut kinds: [(Vec<String>, usize, &str); 4] = [
        (
            Vec::new(),
            0,
            "take their association's latest job's queue factor (*)",
        ),
        (Vec::new(), 0, "are rejected by mf_priority"),
        (Vec::new(), 0, "have no int64 priority"),
        (Vec::new(), 0, "belong to disabled associations"),
    ];
    let mut note = |k: usize, text: &dyn Fn() -> String| {
        let (list, count, _) = &mut kinds[k];
        *count += 1;
        if list.len() < NOTES {
            list.push(text());
        }
    };
    for r in &shown {
        let id = || fairsort::flux::jobs::f58_encode(r.id);
        if let Some((from, q)) = &r.queue_from {
            note(0, &|| {
                format!(
                    "* {}: queue factor of {}'s latest job {} in `{}` (mf_priority keeps one queue factor per association; --flux-queue-factor job uses the job's own)",
                    id(),
                    r.user,
                    fairsort::flux::jobs::f58_encode(*from),
                    if q.is_empty() { "(no queue)" } else { q }
                )
            });
        }
        match &r.outcome {
            Outcome::Rejected(m) => note(1, &|| format!("{}: rejected by mf_priority: {m}", id())),
            Outcome::OutOfRange(v) => note(2, &|| {
                format!(
                    "{}: rounded sum {v} has no int64 value (C's conversion is undefined)",
                    id()
                )
            }),
            _ => {}
        }
        if r.inactive {
            note(3, &|| {
                format!(
                    "{}: association ({}, {}) is disabled (active = 0): the plugin rejects new jobs of it",
                    id(),
                    r.user,
                    r.bank
                )
            });
        }
    }
    if kinds.iter().any(|k| k.1 > 0) {
        writeln!(out)?;
        for (list, count, what) in &kinds {
            for n in list {
                writeln!(out, "{n}")?;
            }
            if *count > list.len() {
                writeln!(out, "... {} more listed jobs {what}", count - list.len())?;
            }
        }
    }
    Ok(())
}

/// `--json`, written row by row (one compact object per line), so a million-job queue is never
/// one JSON tree in memory.
fn print_json(
    out: &mut (dyn Write + Send),
    args: &Args,
    inp: &Inputs,
    w: &Weights,
    mode: QueueFactor,
    rows: &[FluxRow],
    sources: &Sources,
) -> CliResult {
    writeln!(out, "{{")?;
    writeln!(
        out,
        "  \"database\": {},",
        Value::from(inp.db_name.as_str())
    )?;
    writeln!(
        out,
        "  \"fairshare\": \"{}\",",
        if inp.recomputed.is_some() {
            "computed"
        } else {
            "db"
        }
    )?;
    writeln!(
        out,
        "  \"not_pending\": {},",
        inp.jobs.iter().filter(|j| !j.is_pending()).count()
    )?;
    writeln!(out, "  \"queue_factor\": \"{}\",", mode_name(mode))?;
    writeln!(out, "  \"weights\": {},", weights_json(w))?;
    write!(out, "  \"jobs\": [")?;
    for (i, r) in rows.iter().take(args.top.unwrap_or(usize::MAX)).enumerate() {
        write!(out, "{}\n    ", if i == 0 { "" } else { "," })?;
        serde_json::to_writer(&mut *out, &RowOut::of(r))?;
    }
    writeln!(out, "\n  ],")?;
    write!(out, "  \"sources\": ")?;
    serde_json::to_writer(&mut *out, sources)?;
    writeln!(out, "\n}}")?;
    Ok(())
}

fn print_explain(
    out: &mut (dyn Write + Send),
    args: &Args,
    inp: &Inputs,
    w: &Weights,
    rows: &[FluxRow],
    id: &str,
    sources: &Sources,
) -> CliResult {
    let want = parse_job_id(id).ok_or_else(|| {
        Failure::usage(format!(
            "--explain: `{id}` is not a flux job id (decimal or f58 such as ƒ2LJqSgNf91)"
        ))
    })?;
    let Some(pos) = rows.iter().position(|r| r.id == want) else {
        return Err(Failure::user(
            match inp.jobs.iter().find(|j| j.id == want) {
                Some(j) => format!(
                    "job `{id}` is {} (mf_priority prioritises pending jobs only)",
                    j.state.as_deref().unwrap_or("not pending")
                ),
                None => format!("no job `{id}` in --jobs"),
            },
        ));
    };
    let r = &rows[pos];
    if args.json {
        let mut v = row_json(r)?;
        v["weights"] = weights_json(w);
        v["rank"] = json!(r.outcome.priority().map(|_| pos + 1));
        return report::json(out, &v, sources);
    }
    let f58 = fairsort::flux::jobs::f58_encode(r.id);
    let ranked = rows
        .iter()
        .filter(|x| x.outcome.priority().is_some())
        .count();
    writeln!(
        out,
        "job {f58} (id {}): user {} (uid {}), bank {}, queue {}, urgency {}",
        r.id,
        r.user,
        r.userid,
        if r.bank.is_empty() { "-" } else { &r.bank },
        if r.queue.is_empty() {
            "(none)"
        } else {
            &r.queue
        },
        r.urgency
    )?;
    if let Outcome::Rejected(m) = &r.outcome {
        writeln!(out, "  rejected by mf_priority: {m}")?;
        writeln!(
            out,
            "  (the plugin refuses such a job at submission; a job already pending gets an exception at its next priority calculation or keeps its last priority)"
        )?;
        return Ok(());
    }
    let t = &r.terms;
    writeln!(
        out,
        "  fairshare = {} (association_table.fairshare of ({}, {})) × {} = {}",
        r.fairshare, r.user, r.bank, w.fairshare, t.fairshare
    )?;
    let qsrc = match &r.queue_from {
        Some((from, q)) => format!(
            "queue_table.priority of `{q}`, the queue of the association's latest job {}",
            fairsort::flux::jobs::f58_encode(*from)
        ),
        None if r.queue.is_empty() => "no queue: 0".to_string(),
        None => format!("queue_table.priority of `{}`; 0 if unknown", r.queue),
    };
    writeln!(
        out,
        "  queue     = {} ({qsrc}) × {} = {} (C int)",
        r.queue_priority, w.queue, t.queue
    )?;
    writeln!(
        out,
        "  bank      = {} (bank_table.priority of {}) × {} = {}",
        r.bank_priority, r.bank, w.bank, t.bank
    )?;
    writeln!(
        out,
        "  urgency   = ({} − 16) × {} = {} (C int)",
        r.urgency, w.urgency, t.urgency
    )?;
    let sum = t.sum();
    match &r.outcome {
        Outcome::Held => writeln!(out, "  priority  = 0: urgency 0 holds the job (FLUX_JOB_PRIORITY_MIN); the factors are not used")?,
        Outcome::Expedited => writeln!(out, "  priority  = 4294967295: urgency 31 expedites the job (FLUX_JOB_PRIORITY_MAX); the factors are not used")?,
        Outcome::Priority(p) => writeln!(
            out,
            "  priority  = round({}) = round({sum}) = {}{p}",
            signed_sum(&[
                t.fairshare,
                f64::from(t.queue),
                t.bank,
                f64::from(t.urgency)
            ]),
            if sum.round() < 0.0 { "negative → " } else { "" }
        )?,
        Outcome::OutOfRange(v) => writeln!(out, "  priority  = round(...) = {v}: no int64 value (C's conversion is undefined)")?,
        Outcome::Rejected(_) => {}
    }
    if r.inactive {
        writeln!(
            out,
            "  note: the association is disabled (active = 0): the plugin rejects its new jobs"
        )?;
    }
    if r.outcome.priority().is_some() {
        writeln!(
            out,
            "  rank {} of {ranked} (priority descending, then job id: flux-core's queue order)",
            pos + 1
        )?;
        if let Some(next) = rows.get(pos + 1).filter(|x| x.outcome.priority().is_some()) {
            let (a, b) = (r.outcome.priority(), next.outcome.priority());
            writeln!(
                out,
                "  ahead of {} (priority {}): {}",
                fairsort::flux::jobs::f58_encode(next.id),
                priority_cell(next),
                if a == b {
                    "same priority, earlier submission (smaller job id)"
                } else {
                    "higher priority"
                }
            )?;
        }
    }
    Ok(())
}

/// `a + b − c`: the terms in order, a negative one with its sign as the operator.
fn signed_sum(terms: &[f64]) -> String {
    let mut s = String::new();
    for (i, &t) in terms.iter().enumerate() {
        match (i, t < 0.0) {
            (0, _) => s.push_str(&t.to_string()),
            (_, true) => s.push_str(&format!(" − {}", -t)),
            (_, false) => s.push_str(&format!(" + {t}")),
        }
    }
    s
}

fn print_against(
    out: &mut (dyn Write + Send),
    args: &Args,
    wa: &Weights,
    wb: &Weights,
    a: &[FluxRow],
    b: &[FluxRow],
    sources: &Sources,
) -> CliResult {
    let rank_of = |rows: &[FluxRow]| -> std::collections::HashMap<u64, (usize, Option<i64>)> {
        rows.iter()
            .enumerate()
            .map(|(i, r)| (r.id, (i + 1, r.outcome.priority())))
            .collect()
    };
    let ra = rank_of(a);
    if args.json {
        let jobs: Vec<Value> = b
            .iter()
            .take(args.top.unwrap_or(usize::MAX))
            .enumerate()
            .map(|(i, r)| {
                let (rank, p) = ra.get(&r.id).copied().unwrap_or((0, None));
                json!({
                    "id": r.id,
                    "jobid": fairsort::flux::jobs::f58_encode(r.id),
                    "priority": p,
                    "priority_against": r.outcome.priority(),
                    "rank": rank,
                    "rank_against": i + 1,
                    "moved": rank as i64 - (i as i64 + 1),
                })
            })
            .collect();
        let doc =
            json!({"weights": weights_json(wa), "weights_against": weights_json(wb), "jobs": jobs});
        return report::json(out, &doc, sources);
    }
    writeln!(
        out,
        "current weights: fairshare {}, queue {}, bank {}, urgency {}",
        wa.fairshare, wa.queue, wa.bank, wa.urgency
    )?;
    writeln!(
        out,
        "what-if weights: fairshare {}, queue {}, bank {}, urgency {}",
        wb.fairshare, wb.queue, wb.bank, wb.urgency
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "{:<14} {:<8} {:<10} {:>10} {:>10} {:>5} {:>5} {:>5}",
        "JOBID", "USER", "QUEUE", "PRIORITY", "WHAT-IF", "RANK", "NEW", "MOVE"
    )?;
    for (i, r) in b.iter().take(args.top.unwrap_or(usize::MAX)).enumerate() {
        let (rank, p) = ra.get(&r.id).copied().unwrap_or((0, None));
        let show = |p: Option<i64>| p.map_or_else(|| "-".to_string(), |p| p.to_string());
        writeln!(
            out,
            "{:<14} {:<8} {:<10} {:>10} {:>10} {:>5} {:>5} {:>+5}",
            fairsort::flux::jobs::f58_encode(r.id),
            r.user,
            r.queue,
            show(p),
            show(r.outcome.priority()),
            rank,
            i + 1,
            rank as i64 - (i as i64 + 1)
        )?;
    }
    Ok(())
}
