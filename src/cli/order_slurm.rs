//! `fairsort order --slurm-conf slurm.conf --jobs squeue.json --tree sshare.psv ...`: Slurm's
//! multifactor job priority as `sprio -l` shows it (one row per job and partition), `--json`,
//! `--explain JOBID` and `--against-weights` (what-if). The arithmetic is
//! `fairsort::queue::slurm_priority`.

use super::order::Args;
use super::{CliResult, Failure};
use fairsort::fairshare::{slurm, Algorithm, Options, ShareResult, Tree};
use fairsort::formats::{self, slurm as fslurm};
use fairsort::queue::slurm_priority::{
    compute, sprio_cell, Factors, FairShare, PriorityRow, Site, Weights,
};
use fairsort::queue::{read_slurm_jobs, SlurmJob};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::Path;

fn read(path: &Path) -> Result<Vec<u8>, Failure> {
    if path.as_os_str() == "-" {
        let mut b = Vec::new();
        std::io::stdin()
            .read_to_end(&mut b)
            .map_err(|e| Failure::user(format!("cannot read stdin: {e}")))?;
        return Ok(b);
    }
    std::fs::read(path).map_err(|e| Failure::user(format!("cannot read {}: {e}", path.display())))
}

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
const EX_CONF: &str = include_str!("../../examples/slurm_priority/slurm.conf");
const EX_JOBS: &str = include_str!("../../examples/slurm_priority/squeue.json");
const EX_TREE: &str = include_str!("../../examples/slurm_priority/sshare.psv");
const EX_QOS: &str = include_str!("../../examples/slurm_priority/qos.psv");
const EX_ASSOC: &str = include_str!("../../examples/slurm_priority/assoc.psv");
/// The second of the example's capture.
pub const EXAMPLE_AT: i64 = 1_764_000_000;

/// Texts of the inputs and the names errors give them.
struct Texts {
    conf: (String, String),
    jobs: (Vec<u8>, String),
    qos: Option<(String, String)>,
    assoc: Option<(String, String)>,
    tree: Option<fairsort::fairshare::TreeSpec>,
}

fn texts_of_files(args: &Args) -> Result<Texts, Failure> {
    let conf_path = args
        .slurm_conf
        .as_deref()
        .ok_or_else(|| Failure::usage("--slurm-conf is required"))?;
    let jobs_path = args.jobs.as_deref().ok_or_else(|| {
        Failure::usage("--slurm-conf needs --jobs (squeue --json or squeue pipe output)")
    })?;
    let named = |p: &Path| -> Result<(String, String), Failure> {
        Ok((read_text(p)?, p.display().to_string()))
    };
    let tree = match &args.tree {
        Some(p) => Some(
            formats::read_tree(p, args.tree_format).map_err(|e| Failure::user(e.to_string()))?,
        ),
        None => None,
    };
    Ok(Texts {
        conf: named(conf_path)?,
        jobs: (read(jobs_path)?, jobs_path.display().to_string()),
        qos: args.qos.as_deref().map(named).transpose()?,
        assoc: args.assoc.as_deref().map(named).transpose()?,
        tree,
    })
}

fn example_texts() -> Result<Texts, Failure> {
    let tree = formats::read_tree_str(EX_TREE, formats::TreeFormat::Sshare)
        .map_err(|e| Failure::user(e.to_string()))?;
    let named = |t: &str, n: &str| (t.to_string(), n.to_string());
    Ok(Texts {
        conf: named(EX_CONF, "slurm.conf"),
        jobs: (EX_JOBS.as_bytes().to_vec(), "squeue.json".to_string()),
        qos: Some(named(EX_QOS, "qos.psv")),
        assoc: Some(named(EX_ASSOC, "assoc.psv")),
        tree: Some(tree),
    })
}

fn load(args: &Args, t: Texts, default_at: Option<i64>) -> Result<Inputs, Failure> {
    let conf =
        fslurm::parse_slurm_conf(&t.conf.0, &t.conf.1).map_err(|e| Failure::user(e.to_string()))?;
    for note in &conf.notes {
        eprintln!("fairsort: note: {}: {note}", t.conf.1);
    }
    let name = &t.jobs.1;
    let jobs = read_slurm_jobs(name, &t.jobs.0, args.jobs_format)
        .map_err(|e| Failure::user(format!("{name}: {e}")))?;
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
        eprintln!("fairsort: note: PriorityWeightFairshare is set but no --tree: fair share 0");
    }
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
    })
}

fn rows_with(inp: &Inputs, weights: &Weights) -> Vec<PriorityRow> {
    let site = Site {
        conf: &inp.conf,
        weights,
        qos: &inp.qos,
        assoc: inp.assoc.as_ref(),
        fairshare: inp
            .tree
            .as_ref()
            .map(|(tree, result)| FairShare { tree, result }),
        now: inp.now,
    };
    compute(&site, &inp.jobs)
}

/// Runs the Slurm path of `fairsort order` (`--slurm-conf FILE`, or `--example sprio`).
pub fn run(args: &Args) -> CliResult {
    let inp = if args.slurm_conf.is_some() {
        load(args, texts_of_files(args)?, None)?
    } else {
        load(args, example_texts()?, Some(EXAMPLE_AT))?
    };
    let weights = Weights::of(&inp.conf);
    let rows = rows_with(&inp, &weights);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if let Some(list) = &args.against_weights {
        let mut other = weights.clone();
        other
            .set(list)
            .map_err(|e| Failure::usage(format!("--against-weights: {e}")))?;
        let rows_b = rows_with(&inp, &other);
        print_against(&mut out, args, &rows, &rows_b)?;
    } else if let Some(id) = &args.explain {
        print_explain(&mut out, &inp, &weights, &rows, id)?;
    } else if args.json {
        let doc = json!({
            "at": inp.now,
            "algorithm": inp.tree.as_ref().map(|(_, r)| r.algorithm.to_string()),
            "not_pending": inp.jobs.iter().filter(|j| !j.is_pending()).count(),
            "jobs": rows.iter().map(row_json).collect::<Vec<_>>(),
        });
        serde_json::to_writer_pretty(&mut out, &doc).map_err(|e| Failure::user(e.to_string()))?;
        writeln!(out)?;
    } else {
        print_table(&mut out, args, &rows)?;
    }
    out.flush()?;
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

fn print_table(out: &mut impl Write, args: &Args, rows: &[PriorityRow]) -> CliResult {
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
    for r in rows.iter().take(args.top.unwrap_or(usize::MAX)) {
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
    out: &mut impl Write,
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
            r.id, r.partition, r.user, r.account, r.qos, i.now
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
    out: &mut impl Write,
    args: &Args,
    a: &[PriorityRow],
    b: &[PriorityRow],
) -> CliResult {
    let rank = |rows: &[PriorityRow]| -> Vec<usize> {
        let mut idx: Vec<usize> = (0..rows.len()).collect();
        idx.sort_by(|&x, &y| rows[y].priority.cmp(&rows[x].priority));
        let mut r = vec![0; rows.len()];
        for (pos, &i) in idx.iter().enumerate() {
            r[i] = pos + 1;
        }
        r
    };
    let (ra, rb) = (rank(a), rank(b));
    writeln!(
        out,
        "what-if weights: {}",
        args.against_weights.as_deref().unwrap_or("")
    )?;
    writeln!(
        out,
        "{:>15} {:<9} {:>10} {:>10} {:>6} {:>6} {:>6}",
        "JOBID", "PARTITION", "PRIORITY", "WHAT-IF", "RANK", "NEW", "MOVE"
    )?;
    let mut order: Vec<usize> = (0..a.len()).collect();
    order.sort_by_key(|&i| rb[i]);
    for i in order.into_iter().take(args.top.unwrap_or(usize::MAX)) {
        writeln!(
            out,
            "{:>15} {:<9} {:>10} {:>10} {:>6} {:>6} {:>+6}",
            a[i].id,
            a[i].partition,
            a[i].priority,
            b[i].priority,
            ra[i],
            rb[i],
            ra[i] as i64 - rb[i] as i64
        )?;
    }
    Ok(())
}
