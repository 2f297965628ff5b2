//! `fairsort share`: fair-share values over a share tree with one of six algorithms, side by side
//! (`--compare`) or explained for one user (`--explain`). Output: a table in the style of the
//! algorithm's own system (sshare, pbsfs, `flux account view-bank -t`), `--json` or `--csv`.

use super::first_pass::first_pass;
use super::table::{text_width, Align, StreamTable, Table};
use super::{CliResult, Failure, Global};
use fairsort::fairshare::json_rows::{Cell, JsonRowLayout};
use fairsort::fairshare::{
    compute, explain, Algorithm, NodeId, Options, ShareError, ShareResult, ShareRow, Shares, Tree,
};
use fairsort::inputs::TreeFormat;
use fairsort::order::fixed::push_fixed;
use fairsort::parallel::write_chunks;
use fairsort::scenario::sources::{Source, Sources};
use fairsort::scenario::{Base, ScenarioBuilder, ScenarioError};
use serde_json::{json, Map, Value};
use std::collections::HashSet;
use std::fmt::Write as _;
use std::io::{BufWriter, Write};
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
    /// The algorithm. Default: the home's sched `fairshare_algorithm` when the tree is
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
    let (tree, home_algorithm, mut sources) = load_tree(&args, global)?;
    if args.compare {
        sources.algorithm = Source::flag("--compare").value("all");
    }
    let sources_json = serde_json::to_value(&sources)?;
    let sources_text = super::sources::header(&sources, "formula");
    let text_report = !args.json && !args.csv;
    let opts = options(&args)?;
    warn_unknown_active(&tree, opts.active_users.as_ref());
    // Not locked: a large table is written by every worker in turn (`parallel::write_chunks`).
    let mut out = BufWriter::with_capacity(1 << 16, std::io::stdout());
    if args.compare {
        let results = Algorithm::ALL
            .iter()
            .map(|&a| compute(&tree, a, &opts).map_err(share_failure))
            .collect::<Result<Vec<_>, _>>()?;
        let text = if args.json {
            compare_json(&tree, &results, sources_json)
        } else if args.csv {
            compare_csv(&tree, &results)?
        } else {
            format!("{sources_text}\n{}", compare_table(&tree, &results))
        };
        out.write_all(text.as_bytes())?;
        out.flush()?;
        return Ok(());
    }
    let algorithm = args
        .algorithm
        .or(home_algorithm)
        .ok_or_else(|| Failure::usage("--algorithm is required with --tree (or use --compare)"))?;
    // The rows' order is a walk of the tree alone (the pbsfs table's own order, else the tree
    // order): made on a pool thread while the values are computed.
    let pbs_rows = algorithm == Algorithm::Pbs && !args.json && !args.csv && args.explain.is_none();
    let walk = || {
        if pbs_rows {
            fairsort::fairshare::pbs::pbsfs_order(&tree)
        } else {
            tree.preorder()
        }
    };
    let (result, order) =
        if args.explain.is_none() && tree.len() >= fairsort::parallel::PARALLEL_MIN_JOBS {
            let (r, o) = fairsort::parallel::join(|| compute(&tree, algorithm, &opts), walk);
            (r, Some(o))
        } else {
            (compute(&tree, algorithm, &opts), None)
        };
    let result = result.map_err(share_failure)?;
    if text_report {
        writeln!(out, "{sources_text}")?;
    }
    if let Some(who) = &args.explain {
        let id = find_user(&tree, who)?;
        let e = explain::explain(&tree, &result, id);
        let text = if args.json {
            let mut v = serde_json::to_value(&e).unwrap_or(Value::Null);
            if let Value::Object(m) = &mut v {
                m.insert("sources".into(), sources_json);
            }
            to_json(&v)
        } else if args.csv {
            return Err(Failure::usage(
                "--explain prints a table or --json, not --csv",
            ));
        } else {
            explain::render(&e)
        };
        out.write_all(text.as_bytes())?;
    } else if pbs_rows {
        pbs_table(&mut out, &tree, &result, order)?;
    } else {
        let order = order.unwrap_or_else(|| tree.preorder());
        if args.json {
            write_json(&mut out, &tree, &result, &order, &sources_json)?;
        } else if args.csv {
            write_csv(&mut out, &tree, &result, &order)?;
        } else if algorithm == Algorithm::Flux {
            flux_table(&mut out, &tree, &result, &order)?;
        } else {
            sshare_table(&mut out, &tree, &result, &order)?;
        }
    }
    out.flush()?;
    // The process ends with the command: freeing a million nodes' names one by one first took
    // 5 % of `share` over a million users (the memory goes back to the system at exit).
    std::mem::forget(tree);
    std::mem::forget(result);
    Ok(())
}

/// The share tree of the Scenario: `--tree` (with `--usage`), else the home's tree
/// (imported with `fairsort tree import`) with the home's usage and `--usage` over it, and then
/// the home's `fairshare_algorithm`. Usage that met no association is warned about on stderr.
fn load_tree(args: &Args, global: &Global) -> Result<(Tree, Option<Algorithm>, Sources), Failure> {
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
    let mut sources = sc.sources;
    match args.algorithm {
        Some(a) => sources.algorithm = Source::flag("--algorithm").value(a.to_string()),
        None if home.is_none() => sources.algorithm = Source::none(),
        None => {}
    }
    // `share` evaluates no formula.
    sources.formula = Source::none();
    let tree = sc
        .setup
        .tree
        .ok_or_else(|| Failure::usage(no_tree(home.as_deref())))?;
    Ok((tree, algorithm, sources))
}

fn no_tree(home: Option<&str>) -> String {
    format!(
        "no share tree: pass --tree FILE, or store one in the home ({}) with `fairsort tree import FILE`",
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

/// One line naming the `--active` users the tree does not have: they get no tickets, and a
/// misspelt name would otherwise silently leave every user with 0.
fn warn_unknown_active(tree: &Tree, active: Option<&HashSet<String>>) {
    let Some(active) = active else { return };
    let mut unknown: Vec<&str> = active
        .iter()
        .filter(|u| tree.users_named(u).is_empty())
        .map(String::as_str)
        .collect();
    if unknown.is_empty() {
        return;
    }
    unknown.sort_unstable();
    let shown: Vec<String> = unknown.iter().take(5).map(|u| format!("`{u}`")).collect();
    let more = match unknown.len() {
        n if n > 5 => format!(" and {} more", n - 5),
        _ => String::new(),
    };
    let none = if unknown.len() == active.len() {
        ": no user is active, every user gets 0 tickets"
    } else {
        ""
    };
    crate::cli::say::warning(format_args!(
        "--active: {} not in the share tree: {}{more}{none}",
        match unknown.len() {
            1 => "1 user is".to_string(),
            n => format!("{n} users are"),
        },
        shown.join(", ")
    ));
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
fn num(v: Option<f64>) -> Cell<'static> {
    match v {
        Some(x) if x == f64::INFINITY => Cell::Text("inf"),
        Some(x) if x == f64::NEG_INFINITY => Cell::Text("-inf"),
        Some(x) if x.is_nan() => Cell::Null,
        Some(x) => Cell::Num(x),
        None => Cell::Null,
    }
}

/// The row's account (the parent account for users) and user.
fn names(tree: &Tree, id: NodeId) -> (&str, Option<&str>) {
    let n = tree.node(id);
    match (n.is_user(), n.parent) {
        (true, Some(p)) => (tree.node(p).name.as_str(), Some(n.name.as_str())),
        _ => (n.name.as_str(), None),
    }
}

/// One field of a `--json`/`--csv` row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Account,
    User,
    Depth,
    RawShares,
    RawUsage,
    NormShares,
    NormUsage,
    EffectiveUsage,
    Fairshare,
    LevelFs,
    FairsharePerc,
    FairshareTreeUsage,
    FairshareFactor,
    Tickets,
    Weight,
}

impl Field {
    /// The JSON key and CSV header.
    fn name(self) -> &'static str {
        match self {
            Field::Account => "account",
            Field::User => "user",
            Field::Depth => "depth",
            Field::RawShares => "raw_shares",
            Field::RawUsage => "raw_usage",
            Field::NormShares => "norm_shares",
            Field::NormUsage => "norm_usage",
            Field::EffectiveUsage => "effective_usage",
            Field::Fairshare => "fairshare",
            Field::LevelFs => "level_fs",
            Field::FairsharePerc => "fairshare_perc",
            Field::FairshareTreeUsage => "fairshare_tree_usage",
            Field::FairshareFactor => "fairshare_factor",
            Field::Tickets => "tickets",
            Field::Weight => "weight",
        }
    }
}

/// The fields of one algorithm's rows in CSV column order.
fn fields(algorithm: Algorithm) -> Vec<Field> {
    let mut k = vec![
        Field::Account,
        Field::User,
        Field::Depth,
        Field::RawShares,
        Field::RawUsage,
        Field::NormShares,
        Field::NormUsage,
        Field::EffectiveUsage,
        Field::Fairshare,
        Field::LevelFs,
    ];
    match algorithm {
        Algorithm::Pbs => k.extend([
            Field::FairsharePerc,
            Field::FairshareTreeUsage,
            Field::FairshareFactor,
        ]),
        Algorithm::Ticket => k.push(Field::Tickets),
        Algorithm::Flux => k.push(Field::Weight),
        _ => {}
    }
    k
}

/// The fields in JSON key order: sorted by name, as serde_json's `Map` (a `BTreeMap` without
/// the `preserve_order` feature) printed the rows before they were streamed.
fn json_fields(algorithm: Algorithm) -> Vec<Field> {
    let mut k = fields(algorithm);
    k.sort_by_key(|f| f.name());
    k
}

fn cell<'a>(tree: &'a Tree, id: NodeId, row: &ShareRow, field: Field) -> Cell<'a> {
    let n = tree.node(id);
    match field {
        Field::Account => Cell::Text(names(tree, id).0),
        Field::User => names(tree, id).1.map_or(Cell::Null, Cell::Text),
        Field::Depth => Cell::Int(n.depth as u64),
        Field::RawShares => match n.parent.map(|_| n.shares) {
            Some(Shares::Count(c)) => Cell::Int(c),
            Some(Shares::Parent) => Cell::Text("parent"),
            None => Cell::Null,
        },
        Field::RawUsage => num(Some(row.usage.unwrap_or(n.raw_usage))),
        Field::NormShares => num(row.norm_shares),
        Field::NormUsage => num(row.norm_usage),
        Field::EffectiveUsage => num(row.effective_usage),
        Field::Fairshare => num(row.fairshare),
        Field::LevelFs => num(row.level_fs),
        Field::FairsharePerc => num(row.fairshare_perc),
        Field::FairshareTreeUsage => num(row.fairshare_tree_usage),
        Field::FairshareFactor => num(row.fairshare_factor),
        Field::Tickets => num(row.tickets),
        Field::Weight => num(row.weight),
    }
}

/// `share --json`: what `serde_json::to_writer_pretty` wrote for the whole document, with the rows
/// rendered on every worker ([`write_chunks`]) straight into the chunks' buffers
/// ([`JsonRowLayout`]: each row as serde_json pretty-prints it alone, moved two levels in).
fn write_json(
    out: &mut (impl Write + Send),
    tree: &Tree,
    result: &ShareResult,
    order: &[NodeId],
    sources: &Value,
) -> CliResult {
    let fields = json_fields(result.algorithm);
    let layout = JsonRowLayout::new(fields.iter().map(|f| f.name()));
    out.write_all(b"{\n  \"algorithm\": ")?;
    serde_json::to_writer(&mut *out, result.algorithm.name()).map_err(Failure::from)?;
    out.write_all(b",\n  \"rows\": [")?;
    write_chunks(out, order, |first, ids, buf| {
        for (j, &id) in ids.iter().enumerate() {
            buf.extend_from_slice(if first + j == 0 {
                b"\n    "
            } else {
                b",\n    "
            });
            let row = result.row(id);
            layout.write_row(buf, fields.iter().map(|&f| cell(tree, id, &row, f)));
        }
        Ok(())
    })?;
    if order.is_empty() {
        out.write_all(b"],\n  \"sources\": ")?;
    } else {
        out.write_all(b"\n  ],\n  \"sources\": ")?;
    }
    serde_json::to_writer(&mut *out, sources).map_err(Failure::from)?;
    out.write_all(b"\n}\n")?;
    Ok(())
}

/// `share --csv`: a header, then the rows rendered on every worker ([`write_chunks`]) straight
/// into the chunks' buffers, each field as the `csv` crate writes it ([`push_csv_field`]).
fn write_csv(
    out: &mut (impl Write + Send),
    tree: &Tree,
    result: &ShareResult,
    order: &[NodeId],
) -> CliResult {
    let fields = fields(result.algorithm);
    let mut w = csv::Writer::from_writer(&mut *out);
    w.write_record(fields.iter().map(|f| f.name()))
        .map_err(Failure::from)?;
    w.flush()?;
    drop(w);
    write_chunks(out, order, |_, ids, buf| {
        for &id in ids {
            let row = result.row(id);
            for (k, &f) in fields.iter().enumerate() {
                if k > 0 {
                    buf.push(b',');
                }
                push_csv_field(buf, cell(tree, id, &row, f));
            }
            buf.push(b'\n');
        }
        Ok(())
    })?;
    Ok(())
}

/// Appends a cell's text as a field of a record of several fields, as the `csv` crate's writer
/// (default settings) writes it: quoted, with quotes doubled, when it holds a `,`, a `"`, a
/// `\r` or a `\n`; as is otherwise.
fn push_csv_field(buf: &mut Vec<u8>, cell: Cell<'_>) {
    let start = buf.len();
    cell.write_text(buf);
    let needs_quotes = buf[start..]
        .iter()
        .any(|&b| matches!(b, b',' | b'"' | b'\r' | b'\n'));
    if needs_quotes {
        let text = buf.split_off(start);
        buf.push(b'"');
        for &b in &text {
            if b == b'"' {
                buf.push(b'"');
            }
            buf.push(b);
        }
        buf.push(b'"');
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

/// `%f`, blank for absent, `inf` for +infinity (sshare's conventions).
fn f6(v: Option<f64>) -> String {
    let mut s = String::new();
    f6_into(v, &mut s);
    s
}

/// [`f6`] appended to `out`.
fn f6_into(v: Option<f64>, out: &mut String) {
    match v {
        Some(x) if x == f64::INFINITY => out.push_str("inf"),
        Some(x) if x.is_nan() => {}
        Some(x) => {
            push_fixed(out, x, 6);
        }
        None => {}
    }
}

/// The shares cell of a table row: blank for the root, the count, or `parent`.
fn shares_into(tree: &Tree, id: NodeId, out: &mut String) {
    if id == tree.root() {
        return;
    }
    match tree.node(id).shares {
        Shares::Count(c) => {
            let _ = write!(out, "{c}");
        }
        Shares::Parent => out.push_str("parent"),
    }
}

/// The deepest indentation a tree table prints: deeper rows are indented this far and marked
/// with their depth (`[40000] name`), so a 40,000-deep chain of groups cannot make every row of
/// the table 40,000 columns wide (1.6 GB of spaces for 0.6 MB of resource_group).
pub const MAX_INDENT: usize = 32;

/// The depth marker of a row deeper than [`MAX_INDENT`], empty for the others.
fn depth_marker(depth: usize) -> String {
    if depth > MAX_INDENT {
        format!("[{depth}] ")
    } else {
        String::new()
    }
}

/// The columns a row's indentation takes (spaces and depth marker).
fn indent_width(depth: usize) -> usize {
    depth.min(MAX_INDENT) + depth_marker(depth).len()
}

/// `s` cleared, then the indentation of `depth` and `name` (the indented name column of sshare
/// and pbsfs; capped at [`MAX_INDENT`]).
fn indented(s: &mut String, depth: usize, name: &str) {
    s.clear();
    s.extend(std::iter::repeat_n(' ', depth.min(MAX_INDENT)));
    s.push_str(&depth_marker(depth));
    s.push_str(name);
}

/// The indentation of `depth` appended to a row buffer (capped at [`MAX_INDENT`], marked when
/// deeper); returns the columns it took.
fn indent_bytes(out: &mut Vec<u8>, depth: usize) -> usize {
    spaces(out, depth.min(MAX_INDENT));
    out.extend_from_slice(depth_marker(depth).as_bytes());
    indent_width(depth)
}

/// sshare -l style: the Account column indented one space per depth, as Slurm's
/// `slurmdb_tree_name_get` does (an account one space deeper than its parent; a user row shows
/// its account one space deeper than the account's row, i.e. at the user's own depth).
fn sshare_table(
    out: &mut (impl Write + Send),
    tree: &Tree,
    result: &ShareResult,
    order: &[NodeId],
) -> CliResult {
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
    let mut t = StreamTable::new(&cols);
    // First pass: the widths, from the names, the integers and the floats' digits (a float is
    // formatted here only where its width is not plain from its value: see `f6_width`); the
    // floats are formatted once, by the second pass (keeping a million rows' formatted cells
    // for it was 65 MB of fresh pages, more than formatting them).
    let algorithm = result.algorithm;
    first_pass(&mut t, order, 0, 0, |part, t, _| {
        let mut scratch = String::new();
        for &id in part {
            let n = tree.node(id);
            let r = result.row(id);
            let (account, user) = names(tree, id);
            t.widen(0, indent_width(n.depth) + text_width(account));
            t.widen(1, user.map_or(0, text_width));
            scratch.clear();
            shares_into(tree, id, &mut scratch);
            t.widen(2, scratch.len());
            t.widen(3, f6_width(r.norm_shares, &mut scratch));
            t.widen(4, decimal_digits(raw_usage_count(n.raw_usage)));
            t.widen(5, f6_width(r.norm_usage, &mut scratch));
            t.widen(6, f6_width(r.effective_usage, &mut scratch));
            t.widen(7, f6_width(r.fairshare, &mut scratch));
            match algorithm {
                Algorithm::FairTree => t.widen(8, f6_width(r.level_fs, &mut scratch)),
                Algorithm::Ticket => {
                    scratch.clear();
                    tickets_into(r.tickets, &mut scratch);
                    t.widen(8, scratch.len());
                }
                _ => {}
            }
        }
    });
    t.write_header(out)?;
    let t = &t;
    write_chunks(out, order, |_, ids, buf| {
        let mut t = t.clone();
        let (mut account, mut usage, mut shares) = (String::new(), String::new(), String::new());
        let mut f: [String; 5] = Default::default();
        for &id in ids {
            let n = tree.node(id);
            let r = result.row(id);
            let (name, user) = names(tree, id);
            indented(&mut account, n.depth, name);
            shares.clear();
            shares_into(tree, id, &mut shares);
            usage.clear();
            let _ = write!(usage, "{}", raw_usage_count(n.raw_usage));
            for (cell, v) in
                f.iter_mut()
                    .zip([r.norm_shares, r.norm_usage, r.effective_usage, r.fairshare])
            {
                cell.clear();
                f6_into(v, cell);
            }
            f[4].clear();
            match algorithm {
                Algorithm::FairTree => f6_into(r.level_fs, &mut f[4]),
                Algorithm::Ticket => tickets_into(r.tickets, &mut f[4]),
                _ => {}
            }
            let cells = [
                account.as_str(),
                user.unwrap_or(""),
                shares.as_str(),
                &f[0],
                usage.as_str(),
                &f[1],
                &f[2],
                &f[3],
                &f[4],
            ];
            t.write_row(buf, &cells[..cols.len()])?;
        }
        Ok(())
    })?;
    Ok(())
}

/// The Tickets cell: whole tickets, blank when absent.
fn tickets_into(v: Option<f64>, out: &mut String) {
    if let Some(x) = v {
        push_fixed(out, x, 0);
    }
}

/// The width of [`f6_into`]'s text for `v`, from the digits of its integer part when rounding
/// to six decimals cannot carry into it (a fraction under 0.999, a value of at most 15 digits,
/// positive); any other value is formatted into `scratch` and measured.
fn f6_width(v: Option<f64>, scratch: &mut String) -> usize {
    match v {
        Some(x) if x.is_sign_positive() && x < 1e15 => {
            let whole = x.trunc();
            // Exact: `x - trunc(x)` of a finite double loses no bits.
            if x - whole < 0.999 {
                return decimal_digits(whole as u64) + 7;
            }
        }
        None => return 0,
        Some(_) => {}
    }
    scratch.clear();
    f6_into(v, scratch);
    scratch.len()
}

/// sshare's RawUsage column: whole units, negative as 0.
fn raw_usage_count(u: f64) -> u64 {
    u.max(0.0).floor() as u64
}

fn decimal_digits(n: u64) -> usize {
    fairsort::digits::count(n)
}

/// pbsfs -p style, with the three formula keywords; `order`: the tree's pbsfs order when made
/// already.
fn pbs_table(
    out: &mut (impl Write + Send),
    tree: &Tree,
    result: &ShareResult,
    order: Option<Vec<NodeId>>,
) -> CliResult {
    use fairsort::fairshare::pbs;
    let mut t = StreamTable::new(&[
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
    let order = order.unwrap_or_else(|| pbs::pbsfs_order(tree));
    let name = |id: NodeId| {
        if id == tree.root() {
            "TREEROOT"
        } else {
            tree.node(id).name.as_str()
        }
    };
    let ints = |id: NodeId, grp: &mut String, cgrp: &mut String, shares: &mut String| {
        grp.clear();
        let _ = write!(grp, "{}", pbs::resgroup(tree, id));
        cgrp.clear();
        let _ = write!(cgrp, "{}", pbs::cresgroup(tree, id));
        shares.clear();
        if id == tree.root() {
            shares.push_str("-1");
        } else {
            shares_into(tree, id, shares);
        }
    };
    // First pass: widths of names and integers; the five float cells formatted once.
    const FLOATS: usize = 5;
    let floats = first_pass(&mut t, &order, FLOATS, 9, |part, t, floats| {
        let (mut grp, mut cgrp, mut shares) = (String::new(), String::new(), String::new());
        for &id in part {
            let n = tree.node(id);
            let r = result.row(id);
            t.widen(0, indent_width(tree.node(id).depth) + text_width(name(id)));
            ints(id, &mut grp, &mut cgrp, &mut shares);
            t.widen(1, grp.len());
            t.widen(2, cgrp.len());
            t.widen(3, shares.len());
            let usage = r.usage.unwrap_or(n.raw_usage);
            t.widen(
                4,
                floats.push(|s| {
                    push_fixed(s, usage, 0);
                }),
            );
            let perc = r.fairshare_perc.unwrap_or(0.0) as f32;
            t.widen(
                5,
                floats.push(|s| {
                    push_fixed(s, f64::from(perc * 100.0), 3);
                    s.push('%');
                }),
            );
            t.widen(6, floats.push(|s| f6_into(r.fairshare_perc, s)));
            t.widen(7, floats.push(|s| f6_into(r.fairshare_tree_usage, s)));
            t.widen(8, floats.push(|s| f6_into(r.fairshare_factor, s)));
        }
    });
    t.write_header(out)?;
    let t = &t;
    write_chunks(out, &order, |first, ids, buf| {
        let mut t = t.clone();
        let (mut entity, mut grp, mut cgrp, mut shares) =
            (String::new(), String::new(), String::new(), String::new());
        for (j, &id) in ids.iter().enumerate() {
            let i = first + j;
            indented(&mut entity, tree.node(id).depth, name(id));
            ints(id, &mut grp, &mut cgrp, &mut shares);
            let f = |k: usize| floats.get(i, k);
            t.write_row(
                buf,
                &[&entity, &grp, &cgrp, &shares, f(0), f(1), f(2), f(3), f(4)],
            )?;
        }
        Ok(())
    })?;
    Ok(())
}

/// Python's `str(float)` for the values flux prints (`133.0`, `0.285714`), appended to `out`.
fn py_float_into(v: f64, out: &mut String) {
    if v.is_finite() && v.fract() == 0.0 && v.abs() < 1e16 {
        push_fixed(out, v, 1);
    } else {
        let _ = write!(out, "{v}");
    }
}

/// `n` spaces.
fn spaces(out: &mut Vec<u8>, n: usize) {
    out.resize(out.len() + n, b' ');
}

/// `s` right-aligned in `width` characters, as `{:>width$}` writes it.
fn right(out: &mut Vec<u8>, s: &str, width: usize) {
    spaces(out, width.saturating_sub(s.chars().count()));
    out.extend_from_slice(s.as_bytes());
}

/// `s` left-aligned in `width` characters, as `{:<width$}` writes it.
fn left(out: &mut Vec<u8>, s: &str, width: usize) {
    out.extend_from_slice(s.as_bytes());
    spaces(out, width.saturating_sub(s.chars().count()));
}

/// `flux account view-bank -t` layout (flux.md §5): 20-column fields, the rows rendered on
/// every worker ([`write_chunks`]; core's `{:>20}` padding, a character at a time, was half of
/// the rows' time).
fn flux_table(
    out: &mut (impl Write + Send),
    tree: &Tree,
    result: &ShareResult,
    order: &[NodeId],
) -> CliResult {
    write!(out, "{:<20}", "Bank")?;
    for h in ["Username", "Active", "RawShares", "RawUsage", "Fairshare"] {
        write!(out, "{h:>20}")?;
    }
    writeln!(out)?;
    write_chunks(out, order, |_, ids, line| {
        let (mut shares, mut usage, mut fs, mut six) =
            (String::new(), String::new(), String::new(), String::new());
        for &id in ids {
            flux_row(
                tree,
                result,
                id,
                line,
                [&mut shares, &mut usage, &mut fs, &mut six],
            );
        }
        Ok(())
    })?;
    Ok(())
}

/// Appends node `id`'s line of the flux table to `line` (`scratch`: four reused strings).
fn flux_row(
    tree: &Tree,
    result: &ShareResult,
    id: NodeId,
    line: &mut Vec<u8>,
    scratch: [&mut String; 4],
) {
    let [shares, usage, fs, six] = scratch;
    let n = tree.node(id);
    shares.clear();
    match n.shares {
        Shares::Count(c) => {
            let _ = write!(shares, "{c}");
        }
        Shares::Parent => shares.push_str("parent"),
    }
    usage.clear();
    if id == tree.root() {
        py_float_into((n.raw_usage * 100.0).round() / 100.0, usage);
        left(line, &n.name, 20);
        spaces(line, 20);
        for cell in ["true", shares.as_str(), usage.as_str()] {
            right(line, cell, 20);
        }
    } else if n.is_user() {
        let d = n.depth - 1;
        let bank = n.parent.map(|p| tree.node(p).name.as_str()).unwrap_or("");
        py_float_into(n.raw_usage, usage);
        fs.clear();
        if let Some(f) = result.row(id).fairshare {
            six.clear();
            push_fixed(six, f, 6);
            py_float_into(six.parse().unwrap_or(f), fs);
        }
        let d = indent_bytes(line, d + 1);
        left(line, bank, 20);
        right(line, &n.name, 20usize.saturating_sub(d));
        for cell in ["true", shares.as_str(), usage.as_str(), fs.as_str()] {
            right(line, cell, 20);
        }
    } else {
        let d = n.depth;
        py_float_into(n.raw_usage, usage);
        let d = indent_bytes(line, d);
        left(line, &n.name, 20);
        spaces(line, 20usize.saturating_sub(d));
        for cell in ["true", shares.as_str(), usage.as_str()] {
            right(line, cell, 20);
        }
    }
    line.push(b'\n');
}

/// User associations in tree order with every algorithm's factor.
fn compare_rows(tree: &Tree, results: &[ShareResult]) -> Vec<(NodeId, Vec<Option<f64>>)> {
    tree.users()
        .into_iter()
        .map(|id| (id, results.iter().map(|r| r.factor(id)).collect()))
        .collect()
}

fn compare_json(tree: &Tree, results: &[ShareResult], sources: Value) -> String {
    let rows: Vec<Value> = compare_rows(tree, results)
        .into_iter()
        .map(|(id, factors)| {
            let (account, user) = names(tree, id);
            let mut obj = Map::new();
            obj.insert("account".into(), account.into());
            obj.insert("user".into(), user.map(Value::from).unwrap_or(Value::Null));
            for (r, f) in results.iter().zip(factors) {
                obj.insert(r.algorithm.name().into(), num(f).into());
            }
            Value::Object(obj)
        })
        .collect();
    let algs: Vec<&str> = results.iter().map(|r| r.algorithm.name()).collect();
    to_json(&json!({"algorithms": algs, "rows": rows, "sources": sources}))
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
            let mut r = vec![account.to_string(), user.unwrap_or_default().to_string()];
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows of fields written as the `csv` crate writes them, whatever the names hold.
    #[test]
    fn csv_fields_are_the_csv_crates() {
        let mut texts: Vec<String> = (0x20u8..0x7f).map(|b| format!("a{}b", b as char)).collect();
        texts.extend(
            [
                "",
                "\"",
                "\"\"",
                ",",
                "a,\"b\"",
                "\r",
                "\n",
                "x\r\ny",
                "\t",
                " ",
                "#c",
                "'",
                "j\u{e9}r\u{f4}me",
                "\u{4e2d}",
                "\u{a0}",
                "\u{7f}",
                "parent",
                "inf",
            ]
            .map(String::from),
        );
        fn cells(t: &str) -> [Cell<'_>; 5] {
            [
                Cell::Text(t),
                Cell::Null,
                Cell::Int(7),
                Cell::Num(0.1),
                Cell::Text(t),
            ]
        }
        let mut want = csv::Writer::from_writer(Vec::new());
        let mut got = Vec::new();
        for t in &texts {
            let row = cells(t);
            let mut text = Vec::new();
            let record: Vec<Vec<u8>> = row
                .iter()
                .map(|c| {
                    text.clear();
                    c.write_text(&mut text);
                    text.clone()
                })
                .collect();
            want.write_record(&record).unwrap();
            for (k, c) in row.into_iter().enumerate() {
                if k > 0 {
                    got.push(b',');
                }
                push_csv_field(&mut got, c);
            }
            got.push(b'\n');
        }
        let want = want.into_inner().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&want)
        );
        assert!(
            want.windows(4).any(|w| w == b"\"a,b"),
            "some fields are quoted"
        );
    }

    /// The width from the digits is the formatted text's length, around every carry and edge.
    #[test]
    fn f6_width_is_the_formatted_length() {
        let mut values = vec![
            0.0,
            -0.0,
            1e-7,
            -1e-7,
            0.5,
            0.9989999,
            0.999,
            0.9999994,
            0.9999995,
            0.99999951,
            0.9999996,
            9.9999994,
            9.9999995,
            9.9999996,
            99.99999949999,
            123456.7,
            f64::MIN_POSITIVE,
            5e-324,
            1e15 - 1.0,
            1e15 - 0.5,
            1e15,
            1e15 + 2.0,
            9.99999999999999e14,
            1.8e19,
            1e300,
            f64::MAX,
            -3.25,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        let mut x = 1.0f64;
        for _ in 0..20 {
            for d in [-1e-6, -5e-7, -4.9e-7, 0.0, 4.9e-7, 5e-7, 1e-6] {
                values.push(x + d);
                values.push(x - 1.0 + d);
                values.push(x / 3.0);
            }
            x *= 10.0;
        }
        let mut scratch = String::new();
        for v in values.into_iter().map(Some).chain([None]) {
            let mut text = String::new();
            f6_into(v, &mut text);
            assert_eq!(f6_width(v, &mut scratch), text.len(), "{v:?} -> {text:?}");
        }
    }
}
