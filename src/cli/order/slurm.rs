//! `fairsort order --slurm-conf slurm.conf --jobs squeue.json --tree sshare.psv ...`: Slurm's
//! multifactor job priority as `sprio -l` shows it (one row per job and partition), `--json`,
//! `--explain JOBID` and `--against-weights` (what-if). The arithmetic is
//! `fairsort::slurm::multifactor`.

use super::report::{self, Body, SchedulerOrder};
use super::{Args, JobsIn};
use crate::cli::dates::DateFlags;
use crate::cli::table::{Align, Table};
use crate::cli::{CliResult, Failure, Global};
use fairsort::fairshare::{slurm, Algorithm, Options, ShareResult, Tree};
use fairsort::formula::{Program, ResourceTable};
use fairsort::home::{Home, SlurmSite};
use fairsort::inputs::read_slurm_jobs;
use fairsort::order::explain::fmt;
use fairsort::scenario::sources::{From, Source, Sources};
use fairsort::slurm::bind as slurm_bind;
use fairsort::slurm::multifactor::{
    compute, sprio_cell, Factors, FairShare, PriorityRow, Site, Weights,
};
use fairsort::slurm::whatif;
use fairsort::slurm::whatif::{RowValues, WhatIf, WhatIfRow};
use fairsort::slurm::SlurmJob;
use fairsort::{inputs as formats, slurm as fslurm};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use crate::cli::failure::read_file as read;

fn read_text(path: &Path) -> Result<String, Failure> {
    String::from_utf8(read(path)?)
        .map_err(|_| Failure::user(format!("{}: not UTF-8 text", path.display())))
}

/// The inputs of a Slurm run.
struct Inputs {
    conf: fslurm::SlurmConf,
    jobs: Vec<SlurmJob>,
    qos: BTreeMap<String, u32>,
    assoc: Option<fslurm::AssocPriorities>,
    tree: Option<(Tree, ShareResult)>,
    now: i64,
    sources: Sources,
}

fn algorithm_of(args: &Args, conf: &fslurm::SlurmConf) -> Algorithm {
    args.algorithm.unwrap_or(if conf.flags.depth_oblivious {
        Algorithm::DepthOblivious
    } else if conf.flags.no_fair_tree {
        Algorithm::Classic
    } else {
        Algorithm::FairTree
    })
}

/// The built-in `--example sprio`: tests/data/slurm_priority's site (a 10-node slurm.conf, a
/// squeue 23.02 --json queue, sshare, sacctmgr assoc and QOS captures) at 1764000000.
const EX_CONF: &str = include_str!("../../../examples/slurm_priority/slurm.conf");
const EX_JOBS: &str = include_str!("../../../examples/slurm_priority/squeue.json");
const EX_TREE: &str = include_str!("../../../examples/slurm_priority/sshare.psv");
const EX_QOS: &str = include_str!("../../../examples/slurm_priority/qos.psv");
const EX_ASSOC: &str = include_str!("../../../examples/slurm_priority/assoc.psv");
/// The second of the example's capture.
const EXAMPLE_AT: i64 = 1_764_000_000;

/// Texts of the inputs and the names errors give them.
struct Texts {
    conf: (String, String),
    jobs: (Vec<u8>, String),
    qos: Option<(String, String)>,
    assoc: Option<(String, String)>,
    tree: Option<fairsort::fairshare::TreeSpec>,
    /// Where the tree, the usage and slurm.conf came from.
    sources: (Source, Source, Source),
}

/// The tree's source when `--tree` is given.
fn tree_file_source(args: &Args) -> Option<Source> {
    args.tree
        .as_ref()
        .map(|p| Source::file("--tree", p.display().to_string()).value("slurm"))
}

/// The tree's source when the associations are the tree (`--assoc` or the stored ones).
fn assoc_source(assoc: Option<&(String, String)>) -> Source {
    match assoc {
        Some((_, name)) => Source::new(From::File)
            .path(name.clone())
            .detail("the associations (sacctmgr show assoc)"),
        None => Source::none(),
    }
}

fn texts_of_files(args: &Args, jobs: JobsIn) -> Result<Texts, Failure> {
    let conf_path = args
        .slurm_conf
        .as_deref()
        .ok_or_else(|| Failure::usage("--slurm-conf is required"))?;
    if matches!(jobs, JobsIn::None) {
        return Err(Failure::usage(
            "--slurm-conf needs --jobs (squeue --json or squeue pipe output)",
        ));
    }
    let named = |p: &Path| -> Result<(String, String), Failure> {
        Ok((read_text(p)?, p.display().to_string()))
    };
    let tree = match &args.tree {
        Some(p) => Some(
            formats::read_tree(p, args.tree_format).map_err(|e| Failure::user(e.to_string()))?,
        ),
        None => None,
    };
    let conf = named(conf_path)?;
    let assoc = args.assoc.as_deref().map(named).transpose()?;
    let tree_source = tree_file_source(args).unwrap_or_else(|| assoc_source(assoc.as_ref()));
    let conf_source = Source::file("--slurm-conf", conf_path.display().to_string());
    Ok(Texts {
        conf,
        jobs: (jobs.name(), jobs.bytes()?).into_named(),
        qos: args.qos.as_deref().map(named).transpose()?,
        assoc,
        tree,
        sources: (tree_source, Source::none(), conf_source),
    })
}

fn example_texts() -> Result<Texts, Failure> {
    let tree = formats::read_tree_str(EX_TREE, formats::TreeFormat::Sshare)
        .map_err(|e| Failure::user(e.to_string()))?;
    let named = |t: &str, n: &str| (t.to_string(), n.to_string());
    let ex = || Source::example("slurm");
    Ok(Texts {
        conf: named(EX_CONF, "slurm.conf"),
        jobs: (EX_JOBS.as_bytes().to_vec(), "squeue.json".to_string()),
        qos: Some(named(EX_QOS, "qos.psv")),
        assoc: Some(named(EX_ASSOC, "assoc.psv")),
        tree: Some(tree),
        sources: (
            ex().detail("sshare.psv"),
            Source::none(),
            ex().detail("slurm.conf"),
        ),
    })
}

/// Jobs read whole: (name, bytes) → (bytes, name), the order `Texts` keeps them in.
trait IntoNamed {
    fn into_named(self) -> (Vec<u8>, String);
}

impl IntoNamed for (String, Vec<u8>) {
    fn into_named(self) -> (Vec<u8>, String) {
        (self.1, self.0)
    }
}

fn load(args: &Args, t: Texts, default_at: Option<i64>) -> Result<Inputs, Failure> {
    let conf =
        fslurm::parse_slurm_conf(&t.conf.0, &t.conf.1).map_err(|e| Failure::user(e.to_string()))?;
    for note in &conf.notes {
        crate::cli::say::line(format_args!("fairsort: note: {}: {note}", t.conf.1));
    }
    let name = &t.jobs.1;
    // Without --jobs-format, squeue's two forms are told apart by their first character (a
    // byte-order mark skipped, an empty file refused as such); the messages name the file.
    let jobs = match args.jobs_format {
        Some(f) => read_slurm_jobs(name, &t.jobs.0, Some(f)),
        None => fslurm::squeue::read_squeue(name, &t.jobs.0),
    }
    .map_err(|e| Failure::user(e.to_string()))?;
    let qos = match &t.qos {
        Some((text, name)) => {
            fslurm::parse_qos_priorities(text, name).map_err(|e| Failure::user(e.to_string()))?
        }
        None => BTreeMap::new(),
    };
    let assoc = match &t.assoc {
        Some((text, name)) => Some(
            fslurm::parse_assoc_priorities(text, name).map_err(|e| Failure::user(e.to_string()))?,
        ),
        None => None,
    };
    let spec = match (t.tree, &t.assoc) {
        (Some(spec), _) => Some(spec),
        (None, Some((text, _))) => Some(fslurm::parse_sacctmgr(text).map_err(|e| {
            Failure::user(format!(
                "--assoc as the share tree: {e} (or give the tree with --tree)"
            ))
        })?),
        (None, None) => None,
    };
    let tree = match spec {
        Some(spec) => {
            let tree = Tree::build(spec).map_err(|e| Failure::user(e.to_string()))?;
            let opts = Options {
                dampening: f64::from(conf.dampening),
                ..Options::default()
            };
            let result = slurm::compute(&tree, algorithm_of(args, &conf), &opts)
                .map_err(|e| Failure::user(e.to_string()))?;
            Some((tree, result))
        }
        None => None,
    };
    if tree.is_none() && conf.weight_fairshare != 0 {
        crate::cli::say::line(format_args!(
            "fairsort: note: PriorityWeightFairshare is set but no --tree: fair share 0"
        ));
    }
    let (tree_source, usage_source, conf_source) = t.sources;
    let algorithm = tree.as_ref().map(|(_, r)| r.algorithm);
    let sources = Sources {
        scheduler: "slurm",
        site: None,
        tree: if tree.is_some() {
            tree_source
        } else {
            Source::none()
        },
        usage: usage_source,
        formula: match (&args.formula_file, &args.formula) {
            (Some(f), _) => Source::file("--formula-file", f.display().to_string()),
            (None, Some(_)) => Source::flag("--formula"),
            (None, None) => conf_source.clone().detail("PriorityWeight*"),
        },
        algorithm: match (args.algorithm, algorithm) {
            (Some(a), _) => Source::flag("--algorithm").value(a.to_string()),
            (None, Some(a)) => conf_source
                .clone()
                .detail("PriorityFlags")
                .value(a.to_string()),
            (None, None) => Source::none(),
        },
        half_life: conf_source.detail("PriorityDecayHalfLife").value(
            if conf.decay_half_life == 0 {
                f64::INFINITY.to_string()
            } else {
                conf.decay_half_life.to_string()
            },
        ),
    };
    let now = match args.at.or(default_at) {
        Some(t) => t,
        None => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() as i64)
            .unwrap_or(0),
    };
    Ok(Inputs {
        conf,
        jobs,
        qos,
        assoc,
        tree,
        now,
        sources,
    })
}

fn site<'a>(inp: &'a Inputs, weights: &'a Weights) -> Site<'a> {
    Site {
        conf: &inp.conf,
        weights,
        qos: &inp.qos,
        assoc: inp.assoc.as_ref(),
        fairshare: inp
            .tree
            .as_ref()
            .map(|(tree, result)| FairShare { tree, result }),
        now: inp.now,
    }
}

fn rows_with(inp: &Inputs, weights: &Weights) -> Vec<PriorityRow> {
    compute(&site(inp, weights), &inp.jobs)
}

fn compile(src: &str) -> Result<Program, Failure> {
    fairsort::formula::compile(src, &ResourceTable::builtin())
        .map_err(|e| Failure::user(e.render(src)))
}

/// A formula's values over the rows.
fn formula_values(
    inp: &Inputs,
    weights: &Weights,
    rows: &[PriorityRow],
    p: &Program,
) -> Result<RowValues, Failure> {
    whatif::evaluate(p, &site(inp, weights), &inp.jobs, rows)
        .map_err(|e| Failure::user(e.to_string()))
}

/// Where a Slurm run's site comes from.
pub(super) enum SlurmBase {
    /// `--slurm-conf FILE` and the other files.
    Files,
    /// `--example slurm` (or its older name `sprio`).
    Example,
    /// A home holding a Slurm configuration (`fairsort slurm import`), with no `--example`.
    Home(Box<(Home, SlurmSite)>),
}

/// The home's Slurm configuration as a base, when the home stores one. A home that cannot be
/// opened leaves the decision to the PBS path (which reports it).
pub(super) fn home_base(global: &Global) -> Result<Option<SlurmBase>, Failure> {
    let Some(home) = super::found_home(global) else {
        return Ok(None);
    };
    match home.slurm_site() {
        Ok(Some(site)) => Ok(Some(SlurmBase::Home(Box::new((home, site))))),
        Ok(None) => Ok(None),
        Err(e) => Err(Failure::user(e.to_string())),
    }
}

/// The texts of a home's Slurm site; files given on the command line take precedence (the
/// tree: `--tree`, else the home's tree with its usage, else the associations).
fn texts_of_home(
    args: &Args,
    home: &Home,
    site: SlurmSite,
    jobs: JobsIn,
) -> Result<Texts, Failure> {
    if matches!(jobs, JobsIn::None) {
        return Err(Failure::usage(
            "a Slurm home needs --jobs (squeue --json, sacct --json or squeue pipe output)",
        ));
    }
    let stored = home
        .file(fairsort::home::slurm_store::FILE)
        .display()
        .to_string();
    let named = |p: &Path| -> Result<(String, String), Failure> {
        Ok((read_text(p)?, p.display().to_string()))
    };
    let record = home
        .site_record()
        .map_err(|e| Failure::user(e.to_string()))?;
    let (tree, home_tree) = match &args.tree {
        Some(p) => (
            Some(
                formats::read_tree(p, args.tree_format)
                    .map_err(|e| Failure::user(e.to_string()))?,
            ),
            false,
        ),
        None => {
            let t = home.tree_spec().map_err(|e| Failure::user(e.to_string()))?;
            let found = t.is_some();
            (t, found)
        }
    };
    let assoc = match args.assoc.as_deref() {
        Some(p) => Some(named(p)?),
        None => site.assoc.map(|a| (a, format!("{stored} (assoc)"))),
    };
    let tree_source = match (tree_file_source(args), home_tree) {
        (Some(s), _) => s,
        (None, true) => Source::home(home.tree_path().display().to_string())
            .imported(record.as_ref().and_then(|r| r.tree.clone())),
        (None, false) => assoc_source(assoc.as_ref()),
    };
    let usage_source = if home_tree && home.usage_path().exists() {
        Source::home(home.usage_path().display().to_string())
    } else {
        Source::none()
    };
    let conf_source =
        Source::home(stored.clone()).imported(record.as_ref().and_then(|r| r.slurm.clone()));
    Ok(Texts {
        conf: (site.conf, format!("{stored} (slurm.conf)")),
        jobs: (jobs.name(), jobs.bytes()?).into_named(),
        qos: match args.qos.as_deref() {
            Some(p) => Some(named(p)?),
            None => site.qos.map(|q| (q, format!("{stored} (qos)"))),
        },
        assoc,
        tree,
        sources: (tree_source, usage_source, conf_source),
    })
}

/// Runs the Slurm path of `fairsort order` (`--slurm-conf FILE`, `--example sprio`, or a home
/// with a Slurm configuration).
pub(super) fn run(
    args: &Args,
    base: SlurmBase,
    jobs: JobsIn,
    sink: &mut report::Sink<'_>,
) -> CliResult {
    let mut out = std::io::BufWriter::new(std::io::stdout());
    run_to(args, base, jobs, &mut out, sink)?;
    out.flush()?;
    Ok(())
}

/// The Slurm path of `fairsort order`, printed on `out` (or kept by `sink`).
pub(super) fn run_to(
    args: &Args,
    base: SlurmBase,
    jobs: JobsIn,
    out: &mut (dyn Write + Send),
    sink: &mut report::Sink<'_>,
) -> CliResult {
    refuse_pbs_flags(args)?;
    let inp = match base {
        SlurmBase::Files => load(args, texts_of_files(args, jobs)?, None)?,
        SlurmBase::Example => load(args, example_texts()?, Some(EXAMPLE_AT))?,
        SlurmBase::Home(b) => {
            let (home, site) = *b;
            let mut inp = load(args, texts_of_home(args, &home, site, jobs)?, None)?;
            inp.sources.site = Some(fairsort::home::SiteKind::Slurm);
            inp
        }
    };
    run_with(args, inp, out, sink)
}

/// PBS's (and flux's) flags have no meaning on a Slurm queue: a usage error names them rather
/// than ignoring them.
fn refuse_pbs_flags(args: &Args) -> Result<(), Failure> {
    let pbs = [
        (args.pbs_compat, "--pbs-compat", "PBS's rounding"),
        (
            args.threshold.is_some(),
            "--threshold",
            "PBS's job_sort_formula_threshold; Slurm has none",
        ),
        (args.usage.is_some(), "--usage", "a PBS usage file"),
        (
            args.unknown_shares.is_some(),
            "--unknown-shares",
            "PBS's unknown group",
        ),
        (args.entity.is_some(), "--entity", "PBS's fairshare_entity"),
        (
            !args.queue_priority.is_empty(),
            "--queue-priority",
            "PBS queues' Priority",
        ),
        (
            args.fair_share || args.no_fair_share,
            "--fair-share",
            "PBS's fair_share",
        ),
        (
            args.flux_queue_factor.is_some() || args.flux_fairshare.is_some(),
            "--flux-queue-factor/--flux-fairshare",
            "flux-accounting's",
        ),
    ];
    for (set, flag, what) in pbs {
        if set {
            return Err(Failure::usage(format!(
                "{flag} does not apply to a Slurm queue ({what})"
            )));
        }
    }
    Ok(())
}

/// The rows ranked by sprio's PRIORITY as the scheduler considers them (ties: submit time,
/// job id): what `--top` and `--csv` follow.
fn ranked(inp: &Inputs, rows: &[PriorityRow]) -> fairsort::order::QueueOrder {
    whatif::order(&whatif::priorities(rows), rows, &inp.jobs)
}

/// A Slurm site's priorities (and a formula's order or a comparison), for the one output path.
struct SlurmOrder<'a> {
    args: &'a Args,
    inp: Inputs,
    weights: Weights,
    rows: Vec<PriorityRow>,
    formula: Option<Program>,
    /// The formula's values, when `--formula` orders the rows.
    values: Option<RowValues>,
    /// A comparison: the two labels and the result.
    against: Option<(String, String, WhatIf)>,
}

fn run_with(
    args: &Args,
    inp: Inputs,
    out: &mut (dyn Write + Send),
    sink: &mut report::Sink<'_>,
) -> CliResult {
    let weights = Weights::of(&inp.conf);
    let rows = rows_with(&inp, &weights);
    let formula = args.formula.as_deref().map(compile).transpose()?;
    let mut against = None;
    let mut values = None;
    if args.against.is_some() || args.against_weights.is_some() {
        let (a_label, a) = match &formula {
            Some(p) => (
                p.source().to_string(),
                formula_values(&inp, &weights, &rows, p)?,
            ),
            None => (
                "sprio's PRIORITY (slurm.conf's weights)".to_string(),
                whatif::priorities(&rows),
            ),
        };
        let (b_label, b) = match (&args.against, &args.against_weights) {
            (Some(src), None) => {
                let p = compile(src)?;
                let v = formula_values(&inp, &weights, &rows, &p)?;
                (p.source().to_string(), v)
            }
            (None, Some(list)) => {
                let mut other = weights.clone();
                other
                    .set(list)
                    .map_err(|e| Failure::usage(format!("--against-weights: {e}")))?;
                let rows_b = rows_with(&inp, &other);
                (
                    format!("sprio's PRIORITY with {list}"),
                    whatif::priorities(&rows_b),
                )
            }
            _ => {
                return Err(Failure::usage(
                    "--against and --against-weights: give one of them",
                ))
            }
        };
        let cmp = whatif::what_if(&a, &b, &rows, &inp.jobs, args.movers);
        against = Some((a_label, b_label, cmp));
    } else if args.explain.is_none() {
        if let Some(p) = &formula {
            values = Some(formula_values(&inp, &weights, &rows, p)?);
        }
    }
    let order = SlurmOrder {
        args,
        inp,
        weights,
        rows,
        formula,
        values,
        against,
    };
    report::emit(sink, out, args, &order)
}

impl SlurmOrder<'_> {
    fn against(&self) -> Result<(&str, &str, &WhatIf), Failure> {
        match &self.against {
            Some((a, b, c)) => Ok((a, b, c)),
            None => Err(Failure::user("internal: no comparison for this report")),
        }
    }
}

impl SchedulerOrder for SlurmOrder<'_> {
    fn metrics(&self) -> Result<report::OrderMetrics, Failure> {
        use fairsort::metrics::{Phase, QueueJob};
        let (inp, rows) = (&self.inp, &self.rows);
        // The order the scheduler considers the pending jobs in: the formula's, else sprio's.
        let order = match &self.values {
            Some(values) => whatif::order(values, rows, &inp.jobs),
            None => ranked(inp, rows),
        };
        let walltime = |j: &SlurmJob| match j.time_limit {
            fairsort::slurm::job::TimeLimit::Minutes(m) => Some(f64::from(m) * 60.0),
            _ => None,
        };
        let mut jobs = Vec::with_capacity(inp.jobs.len());
        let mut in_rows = vec![false; inp.jobs.len()];
        for (pos, r) in order.ranked.iter().enumerate() {
            let Some(row) = rows.get(r.job as usize) else {
                continue;
            };
            let job = inp.jobs.get(row.job);
            if let Some(seen) = in_rows.get_mut(row.job) {
                *seen = true;
            }
            jobs.push(QueueJob {
                id: row.id.clone(),
                user: row.user.clone(),
                account: row.account.clone(),
                queue: row.partition.clone(),
                phase: Phase::Pending,
                cores: job.map_or(1.0, |j| f64::from(j.cpus)),
                walltime: job.and_then(walltime),
                rank: Some(pos + 1),
                value: Some(if self.values.is_some() {
                    r.value
                } else {
                    row.priority as f64
                }),
            });
        }
        for (j, seen) in inp.jobs.iter().zip(in_rows) {
            if seen {
                continue;
            }
            let running =
                j.state.eq_ignore_ascii_case("RUNNING") || j.state.eq_ignore_ascii_case("R");
            jobs.push(QueueJob {
                id: j.id.clone(),
                user: j.user.clone(),
                account: j.account.clone(),
                queue: j.partitions.first().cloned().unwrap_or_default(),
                // A pending job sprio has no row for (held, or no tree to rank it by) is
                // still pending.
                phase: if running {
                    Phase::Running
                } else if j.is_pending() && !j.held {
                    Phase::Pending
                } else {
                    Phase::Other
                },
                cores: f64::from(j.cpus),
                walltime: walltime(j),
                rank: None,
                value: None,
            });
        }
        let (tree, results, algorithms) = match &inp.tree {
            Some((t, r)) => (Some(t.clone()), vec![r.clone()], vec![r.algorithm]),
            None => (None, Vec::new(), Vec::new()),
        };
        Ok(report::OrderMetrics {
            scheduler: "slurm",
            jobs,
            tree,
            results,
            algorithms,
        })
    }

    fn sources(&self) -> &Sources {
        &self.inp.sources
    }

    fn formula_label(&self) -> &'static str {
        if self.formula.is_some() {
            "formula"
        } else {
            "weights"
        }
    }

    fn header(&self, body: &Body<'_>) -> Result<String, Failure> {
        match (body, &self.formula, &self.values) {
            (Body::Order, Some(p), Some(values)) => Ok(format!(
                "formula:    {}\njobs:       {} rows (one per pending job and partition) at {}{}\n",
                p.source(),
                self.rows.len(),
                DateFlags::default().show(self.inp.now),
                if values.errors.is_empty() {
                    String::new()
                } else {
                    format!(
                        ", {} evaluation error(s): value 0 used",
                        values.errors.len()
                    )
                }
            )),
            _ => Ok(String::new()),
        }
    }

    fn text(&self, out: &mut (dyn Write + Send), body: &Body<'_>) -> CliResult {
        let (inp, weights, rows) = (&self.inp, &self.weights, &self.rows);
        match body {
            Body::Against => {
                let (a, b, cmp) = self.against()?;
                print_against(out, self.args, rows, (a, b), cmp, &self.inp.sources)
            }
            Body::Explain(id) => {
                print_explain(out, inp, weights, rows, id)?;
                if let Some(p) = &self.formula {
                    print_formula_explain(out, inp, weights, rows, p, id)?;
                }
                Ok(())
            }
            Body::Order => match (&self.formula, &self.values) {
                (Some(p), Some(values)) => {
                    print_formula_order(out, self.args, inp, rows, p, values)
                }
                _ => print_table(out, self.args, inp, rows),
            },
        }
    }

    fn json(&self, out: &mut (dyn Write + Send), body: &Body<'_>) -> CliResult {
        let (inp, rows) = (&self.inp, &self.rows);
        match body {
            Body::Against => {
                let (a, b, cmp) = self.against()?;
                print_against(out, self.args, rows, (a, b), cmp, &self.inp.sources)
            }
            // An explanation is text (a JSON explanation of sprio's factors is the order's rows).
            Body::Explain(id) => {
                print_explain(out, inp, &self.weights, rows, id)?;
                if let Some(p) = &self.formula {
                    print_formula_explain(out, inp, &self.weights, rows, p, id)?;
                }
                Ok(())
            }
            Body::Order => match (&self.formula, &self.values) {
                (Some(p), Some(values)) => {
                    print_formula_order(out, self.args, inp, rows, p, values)
                }
                _ => {
                    let doc = json!({
                        "at": inp.now,
                        "algorithm": inp.tree.as_ref().map(|(_, r)| r.algorithm.to_string()),
                        "not_pending": inp.jobs.iter().filter(|j| !j.is_pending()).count(),
                        "jobs": rows.iter().map(row_json).collect::<Vec<_>>(),
                    });
                    report::json(out, &doc, &inp.sources)
                }
            },
        }
    }

    /// The rows as CSV (an explanation has no rows: its text, as on the PBS path).
    fn csv(&self, out: &mut (dyn Write + Send), body: &Body<'_>) -> CliResult {
        let (inp, rows, top) = (&self.inp, &self.rows, self.args.top);
        match body {
            Body::Against => super::slurm_csv::against(out, rows, self.against()?.2, top),
            Body::Explain(_) => self.text(out, body),
            Body::Order => match (&self.formula, &self.values) {
                (Some(_), Some(values)) => {
                    let order = whatif::order(values, rows, &inp.jobs);
                    super::slurm_csv::formula(out, rows, &order, values, top)
                }
                _ => super::slurm_csv::priorities(out, rows, &ranked(inp, rows), top),
            },
        }
    }
}

/// `--formula` on a Slurm site: the rows ordered by the formula (ties: submit time, job id).
fn print_formula_order(
    out: &mut (dyn Write + Send),
    args: &Args,
    inp: &Inputs,
    rows: &[PriorityRow],
    p: &Program,
    values: &RowValues,
) -> CliResult {
    let order = whatif::order(values, rows, &inp.jobs);
    let shown = order.ranked.iter().take(args.top.unwrap_or(usize::MAX));
    if args.json {
        let jobs: Vec<Value> = shown
            .enumerate()
            .map(|(pos, r)| {
                let row = &rows[r.job as usize];
                json!({
                    "rank": pos + 1,
                    "id": row.id,
                    "partition": row.partition,
                    "user": row.user,
                    "account": row.account,
                    "value": r.value,
                    "priority": row.priority,
                    "error": values.errors.get(&r.job),
                })
            })
            .collect();
        let doc = json!({
            "formula": p.source(),
            "at": inp.now,
            "algorithm": inp.tree.as_ref().map(|(_, r)| r.algorithm.to_string()),
            "total": rows.len(),
            "jobs": jobs,
        });
        return report::json(out, &doc, &inp.sources);
    }
    let mut t = Table::new(&[
        ("rank", Align::Right),
        ("job id", Align::Left),
        ("partition", Align::Left),
        ("user", Align::Left),
        ("account", Align::Left),
        ("value", Align::Right),
        ("sprio", Align::Right),
        ("status", Align::Left),
    ]);
    for (pos, r) in shown.enumerate() {
        let row = &rows[r.job as usize];
        t.row(vec![
            (pos + 1).to_string(),
            row.id.clone(),
            row.partition.clone(),
            row.user.clone(),
            row.account.clone(),
            fmt(r.value),
            row.priority.to_string(),
            match values.errors.get(&r.job) {
                Some(e) => format!("error: {e}"),
                None => "pending".to_string(),
            },
        ]);
    }
    write!(out, "{}", t.render())?;
    Ok(())
}

/// `--explain JOBID --formula F`: the formula's keywords and value for each of the job's rows.
fn print_formula_explain(
    out: &mut (dyn Write + Send),
    inp: &Inputs,
    weights: &Weights,
    rows: &[PriorityRow],
    p: &Program,
    id: &str,
) -> CliResult {
    let slots = slurm_bind::bind(p.keywords(), &site(inp, weights), &inp.jobs, rows)
        .map_err(|e| Failure::user(e.to_string()))?;
    let values = formula_values(inp, weights, rows, p)?;
    let order = whatif::order(&values, rows, &inp.jobs);
    let width = p.keywords().len();
    for (i, r) in rows.iter().enumerate().filter(|(_, r)| r.id == id) {
        let rank = order.ranked.iter().position(|x| x.job as usize == i);
        writeln!(
            out,
            "formula {} for job {} in {}: {} (rank {} of {})",
            p.source(),
            r.id,
            r.partition,
            fmt(values.values[i]),
            rank.map_or(0, |x| x + 1),
            rows.len()
        )?;
        if let Some(e) = values.errors.get(&(i as u32)) {
            writeln!(out, "  evaluation error: {e} (value 0 used)")?;
        }
        for (k, name) in p.keywords().iter().enumerate() {
            let v = slots.get(i * width + k).copied().unwrap_or(0.0);
            writeln!(out, "  {name:<22} = {}", fmt(v))?;
        }
    }
    Ok(())
}

fn factors_json(f: &Factors) -> Value {
    json!({
        "site": f.site,
        "age": f.age,
        "assoc": f.assoc,
        "fairshare": f.fairshare,
        "jobsize": f.jobsize,
        "partition": f.partition,
        "qos": f.qos,
        "nice": f.nice,
        "tres": f.tres.iter().map(|(n, v)| (n.clone(), json!(v))).collect::<serde_json::Map<_, _>>(),
    })
}

fn row_json(r: &PriorityRow) -> Value {
    json!({
        "id": r.id,
        "partition": r.partition,
        "user": r.user,
        "account": r.account,
        "qos": r.qos,
        "priority": r.priority,
        "job_priority": r.job_priority,
        "factors": factors_json(&r.weighted),
        "normalized": factors_json(&r.normalized),
    })
}

fn tres_cell(f: &Factors) -> String {
    f.tres
        .iter()
        .filter(|t| t.1 != 0.0)
        .map(|(n, v)| format!("{n}={}", sprio_cell(*v)))
        .collect::<Vec<_>>()
        .join(",")
}

/// sprio's table: every row in sprio's order (job id), or with `--top N` the N highest-ranked
/// rows in rank order.
fn print_table(
    out: &mut (dyn Write + Send),
    args: &Args,
    inp: &Inputs,
    rows: &[PriorityRow],
) -> CliResult {
    let shown: Vec<&PriorityRow> = match args.top {
        None => rows.iter().collect(),
        Some(n) => ranked(inp, rows)
            .ranked
            .iter()
            .take(n)
            .filter_map(|r| rows.get(r.job as usize))
            .collect(),
    };
    writeln!(
        out,
        "{:>15} {:<9} {:<8} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>6} {:<20}",
        "JOBID",
        "PARTITION",
        "USER",
        "PRIORITY",
        "SITE",
        "AGE",
        "ASSOC",
        "FAIRSHARE",
        "JOBSIZE",
        "PARTITION",
        "QOS",
        "NICE",
        "TRES"
    )?;
    for r in shown {
        let w = &r.weighted;
        writeln!(
            out,
            "{:>15} {:<9} {:<8} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>6} {:<20}",
            r.id,
            r.partition,
            r.user,
            r.priority,
            sprio_cell(w.site),
            sprio_cell(w.age),
            sprio_cell(w.assoc),
            sprio_cell(w.fairshare),
            sprio_cell(w.jobsize),
            sprio_cell(w.partition),
            sprio_cell(w.qos),
            w.nice as i64,
            tres_cell(w)
        )?;
    }
    Ok(())
}

fn print_explain(
    out: &mut (dyn Write + Send),
    inp: &Inputs,
    weights: &Weights,
    rows: &[PriorityRow],
    id: &str,
) -> CliResult {
    let mine: Vec<&PriorityRow> = rows.iter().filter(|r| r.id == id).collect();
    if mine.is_empty() {
        return Err(Failure::user(match inp.jobs.iter().find(|j| j.id == id) {
            Some(j) => format!("job `{id}` is {} (sprio shows pending jobs only)", j.state),
            None => format!("no job `{id}` in --jobs"),
        }));
    }
    let c = &inp.conf;
    for r in mine {
        let (n, w, i) = (&r.normalized, &r.weighted, &r.inputs);
        writeln!(
            out,
            "job {} in partition {} (user {}, account {}, qos {}) at {}",
            r.id,
            r.partition,
            r.user,
            r.account,
            r.qos,
            DateFlags::default().show(i.now)
        )?;
        writeln!(
            out,
            "  age        = min(1, (now − accrue_time {}) {}s / PriorityMaxAge {}s) = {} × {} = {}",
            i.accrue_time, i.age_seconds, i.max_age, n.age, weights.age, w.age
        )?;
        writeln!(
            out,
            "  assoc      = assoc priority {} / max {} = {} × {} = {}",
            i.assoc_priority, i.max_assoc_priority, n.assoc, weights.assoc, w.assoc
        )?;
        writeln!(
            out,
            "  fairshare  = {} factor of {} = {} × {} = {}",
            inp.tree
                .as_ref()
                .map_or("(no tree)".to_string(), |(_, res)| res
                    .algorithm
                    .to_string()),
            i.association
                .as_deref()
                .unwrap_or("(association not in the tree)"),
            n.fairshare,
            weights.fairshare,
            w.fairshare
        )?;
        let how = if c.flags.small_relative_to_time {
            format!(
                "max(nodes·C/N, cpus) / time limit {} min / C",
                i.time_limit.unwrap_or(0)
            )
        } else {
            "(nodes/N + cpus/C) / 2".to_string()
        };
        writeln!(
            out,
            "  jobsize    = {how}{}: nodes {}, cpus {}, N {}, C {} = {} × {} = {}",
            if c.favor_small {
                ", favouring small"
            } else {
                ""
            },
            i.nodes,
            i.cpus,
            i.cluster_nodes,
            i.cluster_cpus,
            n.jobsize,
            weights.jobsize,
            w.jobsize
        )?;
        writeln!(
            out,
            "  partition  = PriorityJobFactor {} / max {} = {} × {} = {}",
            i.part_factor, i.max_part_factor, n.partition, weights.partition, w.partition
        )?;
        writeln!(
            out,
            "  qos        = QOS priority {} / max {} = {} × {} = {}",
            i.qos_priority
                .map_or("(not in --qos)".to_string(), |q| q.to_string()),
            i.max_qos_priority,
            n.qos,
            weights.qos,
            w.qos
        )?;
        for ((name, req, total, weight), (_, v)) in i.tres.iter().zip(&w.tres) {
            writeln!(
                out,
                "  tres {name:<6}= requested {req} / partition total {total} × {weight} = {v}"
            )?;
        }
        writeln!(out, "  nice       = {} (subtracted)", w.nice)?;
        writeln!(out, "  site       = {}", w.site)?;
        writeln!(
            out,
            "  priority   = {} (sprio's PRIORITY; slurmctld stores {})",
            r.priority, r.job_priority
        )?;
    }
    Ok(())
}

fn print_against(
    out: &mut (dyn Write + Send),
    args: &Args,
    rows: &[PriorityRow],
    labels: (&str, &str),
    cmp: &WhatIf,
    sources: &Sources,
) -> CliResult {
    let shown: Vec<&WhatIfRow> = cmp
        .rows
        .iter()
        .take(args.top.unwrap_or(usize::MAX))
        .collect();
    let status = |r: &WhatIfRow| match &r.error {
        Some(e) => format!("error: {e}"),
        None => "pending".to_string(),
    };
    if args.json {
        let row = |r: &WhatIfRow| {
            let p = &rows[r.row];
            json!({
                "id": p.id,
                "partition": p.partition,
                "owner": p.user,
                "account": p.account,
                "status": status(r),
                "rank": r.rank,
                "rank_against": r.rank_against,
                "moved": r.moved,
                "value": r.value,
                "value_against": r.value_against,
            })
        };
        let doc = json!({
            "formula": labels.0,
            "against": labels.1,
            "spearman": cmp.spearman,
            "kendall": cmp.kendall,
            "total": cmp.rows.len(),
            "jobs": shown.iter().map(|r| row(r)).collect::<Vec<_>>(),
            "movers": cmp.movers.iter().map(row).collect::<Vec<_>>(),
        });
        return report::json(out, &doc, sources);
    }
    let moved = report::moved;
    writeln!(out, "current:  {}", labels.0)?;
    writeln!(out, "against:  {}", labels.1)?;
    writeln!(out)?;
    let mut t = Table::new(&[
        ("rank", Align::Right),
        ("against", Align::Right),
        ("moved", Align::Right),
        ("job id", Align::Left),
        ("owner", Align::Left),
        ("partition", Align::Left),
        ("value", Align::Right),
        ("value against", Align::Right),
        ("status", Align::Left),
    ]);
    for r in &shown {
        let p = &rows[r.row];
        t.row(vec![
            r.rank.to_string(),
            r.rank_against.to_string(),
            moved(r.moved),
            p.id.clone(),
            p.user.clone(),
            p.partition.clone(),
            fmt(r.value),
            fmt(r.value_against),
            status(r),
        ]);
    }
    write!(out, "{}", t.render())?;
    if shown.len() < cmp.rows.len() {
        writeln!(out, "... {} more", cmp.rows.len() - shown.len())?;
    }
    writeln!(out)?;
    report::movers(
        out,
        cmp.movers.iter().map(|r| {
            let p = &rows[r.row];
            (
                format!("{}/{}", p.id, p.partition),
                r.rank,
                r.rank_against,
                r.moved,
            )
        }),
    )?;
    report::correlation_line(out, cmp.spearman, cmp.kendall)
}
