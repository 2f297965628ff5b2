//! `fairsort share`: fair-share values over a share tree with one of six algorithms, side by side
//! (`--compare`) or explained for one user (`--explain`). Output: a table in the style of the
//! algorithm's own system (sshare, pbsfs, `flux account view-bank -t`), `--json` or `--csv`.

use super::table::{Align, Table};
use super::{CliResult, Failure, Global};
use fairsort::fairshare::{
    compute, explain, Algorithm, NodeId, Options, ShareError, ShareResult, ShareRow, Shares, Tree,
};
use fairsort::formats::TreeFormat;
use fairsort::scenario::{Base, ScenarioBuilder, ScenarioError};
use serde_json::{json, Map, Value};
use std::collections::HashSet;
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `fairsort share`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The share tree (PBS resource_group, sshare -P/-p, sacctmgr -P, flux-accounting DB,
    /// fairsort TOML/JSON).
    #[arg(long, value_name = "FILE")]
    pub tree: Option<PathBuf>,
    /// The tree's format (detected from the file when omitted).
    #[arg(long, value_name = "F", value_parser = super::choices::parser::<TreeFormat>())]
    pub tree_format: Option<TreeFormat>,
    /// PBS usage: the scheduler's binary `usage` file or `name usage` text lines.
    #[arg(long, value_name = "FILE")]
    pub usage: Option<PathBuf>,
    /// The algorithm. Default: the server home's sched `fairshare_algorithm` when the tree is
    /// the home's; required with --tree (unless --compare).
    #[arg(long, short, value_name = "A", value_parser = super::choices::parser::<Algorithm>())]
    pub algorithm: Option<Algorithm>,
    /// Slurm FairShareDampeningFactor (classic).
    #[arg(long, value_name = "D", default_value_t = 1.0)]
    pub dampening: f64,
    /// Fair Tree: merge tied sibling accounts as Slurm's documentation describes.
    #[arg(long)]
    pub merge_ties: bool,
    /// flux: truncate sibling usage sums to integers as the C++ update-fshare does.
    #[arg(long)]
    pub flux_compat: bool,
    /// Ticket-based: the active users (those with pending jobs); default every user.
    #[arg(long, value_name = "USER,...", value_delimiter = ',')]
    pub active: Option<Vec<String>>,
    /// Every algorithm's factor for each user association, side by side.
    #[arg(long, conflicts_with = "explain")]
    pub compare: bool,
    /// Why USER (or ACCOUNT/USER) has its value.
    #[arg(long, value_name = "USER")]
    pub explain: Option<String>,
    /// One JSON object on stdout.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// CSV with a header row.
    #[arg(long)]
    pub csv: bool,
}

/// Runs `fairsort share`.
pub fn run(args: Args, global: &Global) -> CliResult {
    let (tree, home_algorithm) = load_tree(&args, global)?;
    let opts = options(&args)?;
    let mut out = std::io::stdout().lock();
    if args.compare {
        let results = Algorithm::ALL
            .iter()
            .map(|&a| compute(&tree, a, &opts).map_err(share_failure))
            .collect::<Result<Vec<_>, _>>()?;
        let text = if args.json {
            compare_json(&tree, &results)
        } else if args.csv {
            compare_csv(&tree, &results)?
        } else {
            compare_table(&tree, &results)
        };
        out.write_all(text.as_bytes())?;
        return Ok(());
    }
    let algorithm = args
        .algorithm
        .or(home_algorithm)
        .ok_or_else(|| Failure::usage("--algorithm is required with --tree (or use --compare)"))?;
    let result = compute(&tree, algorithm, &opts).map_err(share_failure)?;
    let text = if let Some(who) = &args.explain {
        let id = find_user(&tree, who)?;
        let e = explain::explain(&tree, &result, id);
        if args.json {
            to_json(&serde_json::to_value(&e).unwrap_or(Value::Null))
        } else if args.csv {
            return Err(Failure::usage(
                "--explain prints a table or --json, not --csv",
            ));
        } else {
            explain::render(&e)
        }
    } else if args.json {
        to_json(&json!({"algorithm": algorithm.name(), "rows": rows_json(&tree, &result)}))
    } else if args.csv {
        rows_csv(&tree, &result)?
    } else {
        match algorithm {
            Algorithm::Pbs => pbs_table(&tree, &result),
            Algorithm::Flux => flux_table(&tree, &result),
            _ => sshare_table(&tree, &result),
        }
    };
    out.write_all(text.as_bytes())?;
    Ok(())
}

/// The share tree of the Scenario: `--tree` (with `--usage`), else the server home's tree
/// (imported with `fairsort tree import`) with the home's usage and `--usage` over it, and then
/// the home's `fairshare_algorithm`. Usage that met no association is warned about on stderr.
fn load_tree(args: &Args, global: &Global) -> Result<(Tree, Option<Algorithm>), Failure> {
    let base = match args.tree {
        Some(_) => Base::None,
        None => Base::Home(
            fairsort::home::Home::existing(global.home.as_deref())
                .map_err(|e| Failure::user(e.to_string()))?,
        ),
    };
    let home = match &base {
        Base::Home(h) => Some(h.path().display().to_string()),
        _ => None,
    };
    let sc = ScenarioBuilder::new(base)
        .jobs_optional()
        .tree_file(args.tree.clone(), args.tree_format)
        .usage_file(args.usage.clone())
        .build()
        .map_err(|e| match e {
            ScenarioError::Request(_) => Failure::usage(no_tree(home.as_deref())),
            other => Failure::user(other.to_string()),
        })?;
    super::usage::warn_unmatched(&sc.unmatched_usage);
    let algorithm = home.as_ref().map(|_| sc.algorithm);
    let tree = sc
        .setup
        .tree
        .ok_or_else(|| Failure::usage(no_tree(home.as_deref())))?;
    Ok((tree, algorithm))
}

fn no_tree(home: Option<&str>) -> String {
    format!(
        "no share tree: pass --tree FILE, or store one in the server home ({}) with `fairsort tree import FILE`",
        home.unwrap_or_default()
    )
}

fn options(args: &Args) -> Result<Options, Failure> {
    if !(args.dampening.is_finite() && args.dampening > 0.0) {
        return Err(Failure::usage(format!(
            "--dampening must be a number > 0, got {}",
            args.dampening
        )));
    }
    Ok(Options {
        dampening: args.dampening,
        merge_ties: args.merge_ties,
        flux_compat: args.flux_compat,
        active_users: args.active.as_ref().map(|v| {
            v.iter()
                .map(|s| s.trim().to_string())
                .collect::<HashSet<_>>()
        }),
        extra_entities: Vec::new(),
    })
}

fn share_failure(e: ShareError) -> Failure {
    match e {
        ShareError::BadOption(m) => Failure::usage(m),
        other => Failure::user(other.to_string()),
    }
}

/// `USER` (its only association) or `ACCOUNT/USER`.
fn find_user(tree: &Tree, who: &str) -> Result<NodeId, Failure> {
    if let Some((account, user)) = who.split_once('/') {
        return tree
            .find_user(Some(account), user)
            .ok_or_else(|| Failure::user(ShareError::UnknownUser(who.to_string()).to_string()));
    }
    match tree.users_named(who) {
        [id] => Ok(*id),
        [] => Err(Failure::user(
            ShareError::UnknownUser(who.to_string()).to_string(),
        )),
        many => {
            let labels: Vec<String> = many.iter().map(|&id| tree.label(id)).collect();
            Err(Failure::user(format!(
                "user `{who}` has several associations ({}): name one as ACCOUNT/USER",
                labels.join(", ")
            )))
        }
    }
}

fn to_json(v: &Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_default();
    s.push('\n');
    s
}

/// A float as the JSON contract wants it: a number, "inf"/"-inf", or null (absent, NaN).
fn num(v: Option<f64>) -> Value {
    match v {
        Some(x) if x == f64::INFINITY => "inf".into(),
        Some(x) if x == f64::NEG_INFINITY => "-inf".into(),
        Some(x) if x.is_nan() => Value::Null,
        Some(x) => json!(x),
        None => Value::Null,
    }
}

/// The row's account (the parent account for users) and user.
fn names(tree: &Tree, id: NodeId) -> (String, Option<String>) {
    let n = tree.node(id);
    match (n.is_user(), n.parent) {
        (true, Some(p)) => (tree.node(p).name.clone(), Some(n.name.clone())),
        _ => (n.name.clone(), None),
    }
}

/// The JSON keys of one algorithm's rows, in output order (also the CSV header).
fn keys(algorithm: Algorithm) -> Vec<&'static str> {
    let mut k = vec![
        "account",
        "user",
        "depth",
        "raw_shares",
        "raw_usage",
        "norm_shares",
        "norm_usage",
        "effective_usage",
        "fairshare",
        "level_fs",
    ];
    match algorithm {
        Algorithm::Pbs => k.extend(["fairshare_perc", "fairshare_tree_usage", "fairshare_factor"]),
        Algorithm::Ticket => k.push("tickets"),
        Algorithm::Flux => k.push("weight"),
        _ => {}
    }
    k
}

fn value_of(tree: &Tree, id: NodeId, row: &ShareRow, key: &str) -> Value {
    let n = tree.node(id);
    match key {
        "account" => names(tree, id).0.into(),
        "user" => names(tree, id).1.map(Value::from).unwrap_or(Value::Null),
        "depth" => n.depth.into(),
        "raw_shares" => explain::shares_json(n.parent.map(|_| n.shares)),
        "raw_usage" => num(Some(row.usage.unwrap_or(n.raw_usage))),
        "norm_shares" => num(row.norm_shares),
        "norm_usage" => num(row.norm_usage),
        "effective_usage" => num(row.effective_usage),
        "fairshare" => num(row.fairshare),
        "level_fs" => num(row.level_fs),
        "fairshare_perc" => num(row.fairshare_perc),
        "fairshare_tree_usage" => num(row.fairshare_tree_usage),
        "fairshare_factor" => num(row.fairshare_factor),
        "tickets" => num(row.tickets),
        "weight" => num(row.weight),
        _ => Value::Null,
    }
}

/// `{"algorithm", "rows"}` rows: one per account and user association, in tree order.
fn rows_json(tree: &Tree, result: &ShareResult) -> Value {
    let keys = keys(result.algorithm);
    let rows: Vec<Value> = tree
        .preorder()
        .into_iter()
        .map(|id| {
            let row = result.row(id);
            let obj: Map<String, Value> = keys
                .iter()
                .map(|&k| (k.to_string(), value_of(tree, id, &row, k)))
                .collect();
            Value::Object(obj)
        })
        .collect();
    Value::Array(rows)
}

fn cell(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn csv_text(header: &[String], rows: Vec<Vec<String>>) -> Result<String, Failure> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let err = |e: csv::Error| Failure::user(e.to_string());
    w.write_record(header).map_err(err)?;
    for r in rows {
        w.write_record(&r).map_err(err)?;
    }
    let bytes = w.into_inner().map_err(|e| Failure::user(e.to_string()))?;
    String::from_utf8(bytes).map_err(|e| Failure::user(e.to_string()))
}

fn rows_csv(tree: &Tree, result: &ShareResult) -> Result<String, Failure> {
    let keys = keys(result.algorithm);
    let rows = tree
        .preorder()
        .into_iter()
        .map(|id| {
            let row = result.row(id);
            keys.iter()
                .map(|&k| cell(&value_of(tree, id, &row, k)))
                .collect()
        })
        .collect();
    csv_text(
        &keys.iter().map(|k| k.to_string()).collect::<Vec<_>>(),
        rows,
    )
}

/// `%f`, blank for absent, `inf` for +infinity (sshare's conventions).
fn f6(v: Option<f64>) -> String {
    match v {
        Some(x) if x == f64::INFINITY => "inf".into(),
        Some(x) if x.is_nan() => String::new(),
        Some(x) => format!("{x:.6}"),
        None => String::new(),
    }
}

fn shares_text(tree: &Tree, id: NodeId) -> String {
    if id == tree.root() {
        return String::new();
    }
    match tree.node(id).shares {
        Shares::Count(c) => c.to_string(),
        Shares::Parent => "parent".into(),
    }
}

/// sshare -l style: the Account column indented one space per depth, as Slurm's
/// `slurmdb_tree_name_get` does (an account one space deeper than its parent; a user row shows
/// its account one space deeper than the account's row, i.e. at the user's own depth).
fn sshare_table(tree: &Tree, result: &ShareResult) -> String {
    let mut cols = vec![
        ("Account", Align::Left),
        ("User", Align::Right),
        ("RawShares", Align::Right),
        ("NormShares", Align::Right),
        ("RawUsage", Align::Right),
        ("NormUsage", Align::Right),
        ("EffectvUsage", Align::Right),
        ("FairShare", Align::Right),
    ];
    match result.algorithm {
        Algorithm::FairTree => cols.push(("LevelFS", Align::Right)),
        Algorithm::Ticket => cols.push(("Tickets", Align::Right)),
        _ => {}
    }
    let mut t = Table::new(&cols);
    for id in tree.preorder() {
        let n = tree.node(id);
        let r = result.row(id);
        let (account, user) = names(tree, id);
        let indent = n.depth;
        let mut cells = vec![
            format!("{:indent$}{account}", ""),
            user.unwrap_or_default(),
            shares_text(tree, id),
            f6(r.norm_shares),
            format!("{}", n.raw_usage.max(0.0).floor() as u64),
            f6(r.norm_usage),
            f6(r.effective_usage),
            f6(r.fairshare),
        ];
        match result.algorithm {
            Algorithm::FairTree => cells.push(f6(r.level_fs)),
            Algorithm::Ticket => {
                cells.push(r.tickets.map(|t| format!("{t:.0}")).unwrap_or_default())
            }
            _ => {}
        }
        t.row(cells);
    }
    t.render()
}

/// pbsfs -p style, with the three formula keywords.
fn pbs_table(tree: &Tree, result: &ShareResult) -> String {
    use fairsort::fairshare::pbs;
    let mut t = Table::new(&[
        ("Entity", Align::Left),
        ("Grp", Align::Right),
        ("cgrp", Align::Right),
        ("Shares", Align::Right),
        ("Usage", Align::Right),
        ("Perc", Align::Right),
        ("fairshare_perc", Align::Right),
        ("fairshare_tree_usage", Align::Right),
        ("fairshare_factor", Align::Right),
    ]);
    for id in pbs::pbsfs_order(tree) {
        let n = tree.node(id);
        let r = result.row(id);
        let name = if id == tree.root() {
            "TREEROOT"
        } else {
            &n.name
        };
        let shares = if id == tree.root() {
            "-1".to_string()
        } else {
            shares_text(tree, id)
        };
        let perc = r.fairshare_perc.unwrap_or(0.0) as f32;
        t.row(vec![
            format!("{:indent$}{name}", "", indent = n.depth),
            pbs::resgroup(tree, id).to_string(),
            pbs::cresgroup(tree, id).to_string(),
            shares,
            format!("{:.0}", r.usage.unwrap_or(n.raw_usage)),
            format!("{:.3}%", f64::from(perc * 100.0)),
            f6(r.fairshare_perc),
            f6(r.fairshare_tree_usage),
            f6(r.fairshare_factor),
        ]);
    }
    t.render()
}

/// Python's `str(float)` for the values flux prints (`133.0`, `0.285714`).
fn py_float(v: f64) -> String {
    if v.is_finite() && v.fract() == 0.0 && v.abs() < 1e16 {
        format!("{v:.1}")
    } else {
        format!("{v}")
    }
}

/// `flux account view-bank -t` layout (flux.md §5): 20-column fields.
fn flux_table(tree: &Tree, result: &ShareResult) -> String {
    let mut out = format!("{:<20}", "Bank");
    for h in ["Username", "Active", "RawShares", "RawUsage", "Fairshare"] {
        out.push_str(&format!("{h:>20}"));
    }
    out.push('\n');
    for id in tree.preorder() {
        let n = tree.node(id);
        let shares = match n.shares {
            Shares::Count(c) => c.to_string(),
            Shares::Parent => "parent".into(),
        };
        if id == tree.root() {
            let usage = py_float((n.raw_usage * 100.0).round() / 100.0);
            out.push_str(&format!(
                "{:<20}{:20}{:>20}{:>20}{:>20}\n",
                n.name, "", "true", shares, usage
            ));
        } else if n.is_user() {
            let d = n.depth - 1;
            let bank = n.parent.map(|p| tree.node(p).name.as_str()).unwrap_or("");
            let fs = result
                .row(id)
                .fairshare
                .map(|f| py_float(format!("{f:.6}").parse().unwrap_or(f)))
                .unwrap_or_default();
            out.push_str(&format!(
                "{:pad$}{bank:<20}{:>w$}{:>20}{:>20}{:>20}{:>20}\n",
                "",
                n.name,
                "true",
                shares,
                py_float(n.raw_usage),
                fs,
                pad = d + 1,
                w = 20usize.saturating_sub(d + 1),
            ));
        } else {
            let d = n.depth;
            out.push_str(&format!(
                "{:pad$}{:<20}{:>w$}{:>20}{:>20}{:>20}\n",
                "",
                n.name,
                "",
                "true",
                shares,
                py_float(n.raw_usage),
                pad = d,
                w = 20usize.saturating_sub(d),
            ));
        }
    }
    out
}

/// User associations in tree order with every algorithm's factor.
fn compare_rows(tree: &Tree, results: &[ShareResult]) -> Vec<(NodeId, Vec<Option<f64>>)> {
    tree.users()
        .into_iter()
        .map(|id| (id, results.iter().map(|r| r.factor(id)).collect()))
        .collect()
}

fn compare_json(tree: &Tree, results: &[ShareResult]) -> String {
    let rows: Vec<Value> = compare_rows(tree, results)
        .into_iter()
        .map(|(id, factors)| {
            let (account, user) = names(tree, id);
            let mut obj = Map::new();
            obj.insert("account".into(), account.into());
            obj.insert("user".into(), user.map(Value::from).unwrap_or(Value::Null));
            for (r, f) in results.iter().zip(factors) {
                obj.insert(r.algorithm.name().into(), num(f));
            }
            Value::Object(obj)
        })
        .collect();
    let algs: Vec<&str> = results.iter().map(|r| r.algorithm.name()).collect();
    to_json(&json!({"algorithms": algs, "rows": rows}))
}

fn compare_header(results: &[ShareResult]) -> Vec<String> {
    let mut h = vec!["account".to_string(), "user".to_string()];
    h.extend(results.iter().map(|r| r.algorithm.name().to_string()));
    h
}

fn compare_cells(tree: &Tree, results: &[ShareResult]) -> Vec<Vec<String>> {
    compare_rows(tree, results)
        .into_iter()
        .map(|(id, factors)| {
            let (account, user) = names(tree, id);
            let mut r = vec![account, user.unwrap_or_default()];
            r.extend(factors.into_iter().map(f6));
            r
        })
        .collect()
}

fn compare_csv(tree: &Tree, results: &[ShareResult]) -> Result<String, Failure> {
    csv_text(&compare_header(results), compare_cells(tree, results))
}

fn compare_table(tree: &Tree, results: &[ShareResult]) -> String {
    let header = compare_header(results);
    let cols: Vec<(&str, Align)> = header
        .iter()
        .enumerate()
        .map(|(i, h)| (h.as_str(), if i < 2 { Align::Left } else { Align::Right }))
        .collect();
    let mut t = Table::new(&cols);
    for r in compare_cells(tree, results) {
        t.row(r);
    }
    t.render()
}
