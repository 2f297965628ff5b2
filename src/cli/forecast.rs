//! `fairsort forecast`: which pending jobs start now, when the others will, and why each
//! waits, from a PBS site's snapshot (`qstat -f -F json`, `pbsnodes -av -F json`, `pbs_rstat
//! -f`) and the site imported into the home, a Slurm site's (`squeue --json`, `sinfo
//! --json`, its slurm.conf), or a flux instance's (`flux jobs -a --json`, `flux resource R`,
//! detected from the jobs file). A thin layer over `fairsort::forecast`.

use crate::cli::dates::DateFlags;
use crate::cli::failure::read_file;
use crate::cli::table::{Align, Table};
use crate::cli::{CliResult, Failure, Global};
use fairsort::forecast::{pbs_forecast, Forecast, JobForecast, PbsPolicy, PbsSnapshot};
use fairsort::home::Home;
use fairsort::inputs::jobs::JobsFormat;
use fairsort::scenario::{Base, JobsInput, ScenarioBuilder};
use std::io::Write;

/// `fairsort forecast` arguments: its inputs and what to print.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The inputs.
    #[command(flatten)]
    pub inputs: Inputs,
    /// Explain one job: what it waits for, the jobs ahead of it, what would start it sooner.
    #[arg(long, value_name = "JOBID", conflicts_with_all = ["json", "csv", "top"])]
    pub job: Option<String>,
    /// Print the forecast as JSON (epoch seconds).
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print the forecast as CSV (epoch seconds).
    #[arg(long)]
    pub csv: bool,
    /// Only the first N pending jobs of the order.
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    #[command(flatten)]
    pub dates: DateFlags,
}

pub use super::forecast_inputs::Inputs;

impl std::ops::Deref for Args {
    type Target = Inputs;
    fn deref(&self) -> &Inputs {
        &self.inputs
    }
}

/// Runs `fairsort forecast`.
pub fn run(args: Args, global: &Global) -> CliResult {
    let fc = forecast(&args.inputs, global)?;
    print(&args, &fc)
}

/// The forecast of the command line's snapshot: a Slurm site's (`--slurm-conf`), a flux
/// instance's (`flux jobs --json`, detected), else the home's PBS site's.
pub(crate) fn forecast(args: &Inputs, global: &Global) -> Result<Forecast, Failure> {
    if let Some(conf) = &args.slurm_conf {
        if args.queue_policy.is_some() {
            return Err(Failure::usage(
                "--queue-policy is a flux instance's: a Slurm forecast (--slurm-conf) does not take it",
            ));
        }
        return slurm(args, conf);
    }
    let stdin = if args.jobs.as_os_str() == "-" {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes)?;
        Some(bytes)
    } else {
        None
    };
    let format = match &stdin {
        Some(bytes) => JobsFormat::detect("-", bytes),
        None => JobsFormat::detect_file(&args.jobs)
            .map_err(|e| Failure::user(format!("{}: {e}", args.jobs.display())))?,
    };
    if format == JobsFormat::FluxJobs {
        return super::forecast_flux::flux(args, stdin);
    }
    if args.queue_policy.is_some() {
        return Err(Failure::usage(format!(
            "--queue-policy is a flux instance's: {} is not `flux jobs --json` output",
            args.jobs.display()
        )));
    }
    let home = Home::open(global.home.as_deref()).map_err(|e| Failure::user(e.to_string()))?;
    let state = home.load().map_err(|e| Failure::user(e.to_string()))?;
    let input = match stdin {
        Some(bytes) => JobsInput::Bytes {
            name: "-".into(),
            bytes,
        },
        None => JobsInput::File(args.jobs.clone()),
    };
    let mut b = ScenarioBuilder::new(Base::Home(home.clone()))
        .jobs(input, None)
        .at(args.at)
        .time_zone(super::dates::zone_or_system(&args.tz));
    if let Some(f) = &args.against {
        b = b.formula(Some(f.clone()));
    }
    let mut sc = b.build()?;
    let Some(site) = sc.cycle.clone() else {
        return Err(Failure::usage(
            "forecast needs a PBS site in the home: import it with `fairsort pbs import` first",
        ));
    };
    let no_formula = sc.formula.is_none();
    let program = if no_formula {
        sc.compile("0")?
    } else {
        sc.compile(sc.formula_source()?)?
    };
    let dry = sc.order_once(&program, None)?;
    let Some(run) = sc.cycle_order(&dry, !no_formula)? else {
        return Err(Failure::user("the PBS site's cycle could not be ordered"));
    };
    let node_bytes = read_file(&args.node_state)?;
    let name = args.node_state.display().to_string();
    let vnodes = fairsort::pbs::snapshot::read_pbsnodes_json(&node_bytes, &name)
        .map_err(|e| Failure::user(e.to_string()))?;
    let reservations = match &args.reservations {
        Some(p) => {
            let text = String::from_utf8_lossy(&read_file(p)?).into_owned();
            fairsort::pbs::snapshot::read_pbs_rstat(&text, &p.display().to_string())
                .map_err(|e| Failure::user(e.to_string()))?
        }
        None => Vec::new(),
    };
    let depth = match args.backfill_depth {
        Some(d) => d,
        None => match state.server.other.get("backfill_depth") {
            Some(v) => v.trim().parse().map_err(|_| {
                Failure::user(format!(
                    "the home's server backfill_depth `{v}` is not a count"
                ))
            })?,
            None => 1,
        },
    };
    let policy = PbsPolicy {
        strict_ordering: args.strict_ordering.unwrap_or(site.rules.strict_ordering),
        backfill_depth: depth,
    };
    let at = site
        .at
        .unwrap_or_else(|| jiff::Timestamp::now().as_second());
    let snap = PbsSnapshot {
        jobs: &sc.setup.jobs,
        order: &run.order,
        vnodes: &vnodes,
        reservations: &reservations,
        at,
        policy,
    };
    pbs_forecast(&snap).map_err(|e| Failure::user(e.to_string()))
}

/// The Slurm path: the snapshot's own priorities, slurm.conf's backfill rules.
fn slurm(args: &Inputs, conf: &std::path::Path) -> Result<Forecast, Failure> {
    for (given, flag) in [
        (args.reservations.is_some(), "--reservations"),
        (args.backfill_depth.is_some(), "--backfill-depth"),
        (args.strict_ordering.is_some(), "--strict-ordering"),
        (args.against.is_some(), "--against"),
    ] {
        if given {
            return Err(Failure::usage(format!(
                "{flag} is a PBS site's: a Slurm forecast (--slurm-conf) does not take it"
            )));
        }
    }
    let text = String::from_utf8_lossy(&read_file(conf)?).into_owned();
    let sched = fairsort::slurm::snapshot::read_scheduler_conf(&text, &conf.display().to_string())
        .map_err(|e| Failure::user(e.to_string()))?;
    let jobs_bytes = if args.jobs.as_os_str() == "-" {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes)?;
        bytes
    } else {
        read_file(&args.jobs)?
    };
    let name = args.jobs.display().to_string();
    let mut jobs = fairsort::slurm::snapshot::read_squeue_json(&jobs_bytes, &name)
        .map_err(|e| Failure::user(e.to_string()))?;
    if let Some(list) = &args.against_weights {
        reprioritize(&mut jobs, &jobs_bytes, &name, &text, conf, list, args.at)?;
    }
    let nodes = fairsort::slurm::snapshot::read_nodes_json(
        &read_file(&args.node_state)?,
        &args.node_state.display().to_string(),
    )
    .map_err(|e| Failure::user(e.to_string()))?;
    let snap = fairsort::forecast::SlurmSnapshot {
        jobs: &jobs,
        nodes: &nodes,
        conf: &sched,
        at: args
            .at
            .unwrap_or_else(|| jiff::Timestamp::now().as_second()),
    };
    fairsort::forecast::slurm_forecast(&snap).map_err(|e| Failure::user(e.to_string()))
}

/// `--against-weights`: each pending job's priority as slurmctld would store it under `list`
/// over slurm.conf's weights (`slurm::multifactor`, the engine of `order --slurm-conf`).
fn reprioritize(
    jobs: &mut [fairsort::slurm::snapshot::SlurmSnapshotJob],
    bytes: &[u8],
    name: &str,
    conf_text: &str,
    conf_path: &std::path::Path,
    list: &str,
    at: Option<i64>,
) -> CliResult {
    use fairsort::slurm::multifactor::{compute, Site, Weights};
    let conf = fairsort::slurm::conf::parse_slurm_conf(conf_text, &conf_path.display().to_string())
        .map_err(|e| Failure::user(e.to_string()))?;
    let mut weights = Weights::of(&conf);
    weights
        .set(list)
        .map_err(|e| Failure::usage(format!("--against-weights: {e}")))?;
    let slurm_jobs = fairsort::slurm::squeue::read_squeue_json(name, bytes)
        .map_err(|e| Failure::user(e.to_string()))?;
    let qos = std::collections::BTreeMap::new();
    let site = Site {
        conf: &conf,
        weights: &weights,
        qos: &qos,
        assoc: None,
        fairshare: None,
        now: at.unwrap_or_else(|| jiff::Timestamp::now().as_second()),
    };
    // the first row of a job is its highest-tier partition's, the one its order follows
    let mut priority = std::collections::HashMap::new();
    for row in compute(&site, &slurm_jobs) {
        priority
            .entry(row.id)
            .or_insert(f64::from(row.job_priority));
    }
    for j in jobs.iter_mut() {
        if let Some(&p) = priority.get(&j.id) {
            j.priority = p;
        }
    }
    Ok(())
}

/// Prints `fc` as the flags ask.
fn print(args: &Args, fc: &Forecast) -> CliResult {
    let mut out = std::io::BufWriter::new(std::io::stdout());
    if let Some(id) = &args.job {
        explain(&mut out, fc, id, args.dates)?;
    } else if args.json {
        serde_json::to_writer_pretty(&mut out, &top(fc, args.top))?;
        writeln!(out)?;
    } else if args.csv {
        csv_out(&mut out, &top(fc, args.top))?;
    } else {
        table(&mut out, &top(fc, args.top), args.dates)?;
    }
    out.flush()?;
    Ok(())
}

/// The forecast with only the first `n` pending jobs (and every other job).
fn top(fc: &Forecast, n: Option<usize>) -> Forecast {
    let mut f = fc.clone();
    if let Some(n) = n {
        f.jobs.retain(|j| j.rank.is_none_or(|r| r <= n));
    }
    f
}

/// A duration as `1h05m`, `3d04h`, `45s`.
fn span(secs: i64) -> String {
    let s = secs.max(0);
    match s {
        s if s >= 86_400 => format!("{}d{:02}h", s / 86_400, s % 86_400 / 3600),
        s if s >= 3600 => format!("{}h{:02}m", s / 3600, s % 3600 / 60),
        s if s >= 60 => format!("{}m{:02}s", s / 60, s % 60),
        s => format!("{s}s"),
    }
}

/// The longest reason a table cell shows (the JSON and CSV carry it whole).
const REASON_WIDTH: usize = 100;

fn table(out: &mut impl Write, fc: &Forecast, dates: DateFlags) -> CliResult {
    writeln!(out, "forecast at {}  ({})", dates.show(fc.at), fc.policy)?;
    writeln!(
        out,
        "cluster:    {} cores, {} free; {} running jobs",
        fc.cores, fc.free_cores, fc.running
    )?;
    for w in &fc.warnings {
        writeln!(out, "note:       {w}")?;
    }
    let now = fc.jobs.iter().filter(|j| j.runs_now).count();
    let tops = fc.jobs.iter().filter(|j| j.top_job).count();
    writeln!(out, "this cycle: {now} start now, {tops} top jobs")?;
    writeln!(out)?;
    let mut t = Table::new(&[
        ("#", Align::Right),
        ("job", Align::Left),
        ("user", Align::Left),
        ("queue", Align::Left),
        ("cores", Align::Right),
        ("walltime", Align::Right),
        ("start", Align::Left),
        ("in", Align::Right),
        ("reason", Align::Left),
    ]);
    for j in fc.jobs.iter().filter(|j| !j.is_running()) {
        let start = match (j.runs_now, j.start) {
            (true, _) => "now".to_string(),
            (false, Some(s)) => dates.show(s),
            (false, None) => "-".to_string(),
        };
        let when = j.start.map_or("-".to_string(), |s| span(s - fc.at));
        let mut reason = j.reason.clone().unwrap_or_default();
        if j.top_job {
            reason = format!("top job; {reason}");
        }
        if reason.chars().count() > REASON_WIDTH {
            reason = reason.chars().take(REASON_WIDTH - 1).collect::<String>() + "…";
        }
        t.row(vec![
            j.rank.map_or("-".to_string(), |r| r.to_string()),
            j.id.clone(),
            j.user.clone(),
            j.queue.clone(),
            j.cores.to_string(),
            span(j.walltime),
            start,
            when,
            reason,
        ]);
    }
    write!(out, "{}", t.render())?;
    Ok(())
}

fn csv_out(out: &mut impl Write, fc: &Forecast) -> CliResult {
    let mut w = csv::Writer::from_writer(out);
    w.write_record([
        "rank", "id", "state", "user", "queue", "cores", "walltime", "priority", "runs_now",
        "top_job", "start", "end", "reason",
    ])?;
    let opt = |v: Option<i64>| v.map_or(String::new(), |x| x.to_string());
    for j in &fc.jobs {
        w.write_record([
            j.rank.map_or(String::new(), |r| r.to_string()),
            j.id.clone(),
            j.state.clone(),
            j.user.clone(),
            j.queue.clone(),
            j.cores.to_string(),
            j.walltime.to_string(),
            j.priority.map_or(String::new(), |p| p.to_string()),
            j.runs_now.to_string(),
            j.top_job.to_string(),
            opt(j.start),
            opt(j.end),
            j.reason.clone().unwrap_or_default(),
        ])?;
    }
    w.flush()?;
    Ok(())
}

/// `--job`: one job's forecast and what it waits for.
fn explain(out: &mut impl Write, fc: &Forecast, id: &str, dates: DateFlags) -> CliResult {
    let short = |s: &str| s.split('.').next().unwrap_or(s).to_string();
    let Some(j) = fc
        .jobs
        .iter()
        .find(|j| j.id == id || short(&j.id) == short(id))
    else {
        return Err(Failure::user(format!("job {id} is not in the snapshot")));
    };
    writeln!(
        out,
        "job {} ({}{}, {} cores, walltime {})",
        j.id,
        j.user,
        if j.queue.is_empty() {
            String::new()
        } else {
            format!(" in {}", j.queue)
        },
        j.cores,
        span(j.walltime)
    )?;
    if j.is_running() {
        writeln!(
            out,
            "running since {}",
            j.start.map_or("?".into(), |s| dates.show(s))
        )?;
        if let Some(e) = j.end {
            writeln!(out, "ends by {} (its walltime)", dates.show(e))?;
        }
        return Ok(());
    }
    match (j.rank, j.runs_now, j.start) {
        (None, _, _) => {
            writeln!(
                out,
                "not considered by the scheduler: {}",
                j.reason.clone().unwrap_or_default()
            )?;
            return Ok(());
        }
        (Some(r), true, _) => writeln!(out, "starts in this cycle (number {r} of the order)")?,
        (Some(r), false, Some(s)) => writeln!(
            out,
            "number {r} of the order; predicted start {} (in {}){}",
            dates.show(s),
            span(s - fc.at),
            if j.top_job {
                ", the scheduler's top-job estimate"
            } else {
                ""
            }
        )?,
        (Some(r), false, None) => {
            writeln!(out, "number {r} of the order; no start on what is known")?
        }
    }
    if let Some(reason) = &j.reason {
        writeln!(out, "why not now: {reason}")?;
    }
    if j.runs_now {
        return Ok(());
    }
    let ahead: Vec<&JobForecast> = fc
        .jobs
        .iter()
        .filter(|o| o.rank.is_some_and(|r| Some(r) < j.rank) && !o.runs_now)
        .collect();
    if !ahead.is_empty() {
        writeln!(
            out,
            "ahead of it in the order and not starting now: {}",
            ahead.len()
        )?;
        for o in ahead.iter().take(5) {
            writeln!(
                out,
                "  {} ({} cores{})",
                o.id,
                o.cores,
                if o.top_job { ", top job" } else { "" }
            )?;
        }
    }
    if let Some(s) = j.start {
        let ending: Vec<&JobForecast> = fc
            .jobs
            .iter()
            .filter(|o| o.is_running() && o.end.is_some_and(|e| e <= s))
            .collect();
        writeln!(out, "running jobs that end by then: {}", ending.len())?;
        for o in ending.iter().take(5) {
            writeln!(
                out,
                "  {} ({} cores, ends {})",
                o.id,
                o.cores,
                o.end.map_or("?".into(), |e| dates.show(e))
            )?;
        }
        if let Some(wait) = shorter_walltime(fc, j) {
            writeln!(out, "{wait}")?;
        }
    }
    Ok(())
}

/// What walltime would let `j` start now, when only a top job's calendar holds it back.
fn shorter_walltime(fc: &Forecast, j: &JobForecast) -> Option<String> {
    if j.reason.as_deref() != Some("Not Running: Job would conflict with reservation or top job") {
        return None;
    }
    let first_top = fc
        .jobs
        .iter()
        .filter(|o| o.top_job)
        .filter_map(|o| o.start)
        .min()?;
    let fits = first_top - fc.at;
    (fits > 0).then(|| {
        format!(
            "with a walltime of at most {} it would start now (it would end before the first top job starts)",
            span(fits)
        )
    })
}
