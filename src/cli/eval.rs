//! `fairsort eval`: evaluate a job_sort_formula once with given keyword values, as PBS would
//! for one job (unbound keywords and resources are 0, like an unrequested resource).

use super::{CliResult, Failure, Global};
use fairsort::formula::{self, FormulaError, ResourceTable};
use fairsort::pbs::ResourceType;
use fairsort::scenario::{Base, ScenarioBuilder};
use serde_json::json;
use std::io::Read;
use std::path::Path;

/// Arguments of `fairsort eval`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub input: FormulaInput,
    /// Bind a keyword or resource: NAME=VALUE; a number (sizes in KB, times in seconds) or a PBS
    /// size or time as qsub takes it (`mem=4gb`, `walltime=01:00:00`).
    #[arg(short = 'D', long = "define", value_name = "NAME=VALUE")]
    pub defines: Vec<String>,
    /// Declare a custom resource the formula may use: NAME=TYPE (long, float, size, time,
    /// boolean, string).
    #[arg(short = 'R', long = "resource", value_name = "NAME=TYPE")]
    pub resources: Vec<String>,
    /// Print one JSON object instead of the bare value.
    #[arg(long)]
    pub json: bool,
}

/// Where the formula comes from: the command line, or a file (`-` for standard input).
#[derive(Debug, clap::Args)]
pub struct FormulaInput {
    /// The formula, e.g. 'pow(2, -(fairshare_tree_usage/fairshare_perc))'.
    #[arg(allow_hyphen_values = true, required_unless_present = "file")]
    pub formula: Option<std::ffi::OsString>,
    /// Read the formula from a file instead (`-` for standard input). A PBS `sched_formula`
    /// file works as is: its `### PBS INTERNAL FILE DO NOT MODIFY ###` header line is skipped.
    #[arg(
        short = 'f',
        long = "file",
        value_name = "PATH",
        conflicts_with = "formula"
    )]
    pub file: Option<std::path::PathBuf>,
}

const PBS_HEADER: &str = "### PBS INTERNAL FILE DO NOT MODIFY ###";

/// Most bytes a formula file may hold: the longest formula, PBS's header line and line ends.
const MAX_FILE_BYTES: usize = formula::limits::MAX_LEN + PBS_HEADER.len() + 4;

/// Reads at most [`MAX_FILE_BYTES`] (+1 to tell a longer input), never the whole of a huge
/// file or an endless stream.
fn read_capped(r: &mut dyn std::io::Read, name: &Path) -> Result<Vec<u8>, Failure> {
    let mut buf = Vec::new();
    r.take(MAX_FILE_BYTES as u64 + 1)
        .read_to_end(&mut buf)
        .map_err(|e| Failure::user(format!("cannot read {}: {e}", name.display())))?;
    if buf.len() > MAX_FILE_BYTES {
        return Err(Failure::user(format!(
            "{}: longer than {MAX_FILE_BYTES} bytes; a formula is at most {} bytes",
            name.display(),
            formula::limits::MAX_LEN
        )));
    }
    Ok(buf)
}

impl FormulaInput {
    /// The formula text (must be UTF-8; a trailing newline is dropped, as PBS does).
    pub fn read(&self) -> Result<String, Failure> {
        let bytes = match (&self.formula, &self.file) {
            (Some(f), _) => f.as_encoded_bytes().to_vec(),
            (None, Some(p)) if p.as_os_str() == "-" => {
                read_capped(&mut std::io::stdin().lock(), Path::new("standard input"))?
            }
            (None, Some(p)) => {
                let cannot =
                    |e: std::io::Error| Failure::user(format!("cannot read {}: {e}", p.display()));
                let mut f = std::fs::File::open(p).map_err(cannot)?;
                read_capped(&mut f, p)?
            }
            (None, None) => return Err(Failure::usage("give a formula or --file PATH")),
        };
        let text = String::from_utf8(bytes)
            .map_err(|_| Failure::user("the formula is not valid UTF-8 text"))?;
        let text = match text.strip_prefix(PBS_HEADER) {
            Some(rest) => rest.trim_start_matches(['\r', '\n']).to_string(),
            None => text,
        };
        Ok(text
            .strip_suffix('\n')
            .map(|t| t.trim_end_matches('\r').to_string())
            .unwrap_or(text))
    }
}

/// Runs `fairsort eval`.
pub fn run(args: Args, global: &Global) -> CliResult {
    let resources = resource_table(&args.resources, global)?;
    let src = args.input.read()?;
    let program =
        formula::compile(&src, &resources).map_err(|e| formula_failure(&src, &e, args.json))?;
    let mut slots = vec![0.0; program.keywords().len()];
    for d in &args.defines {
        let (name, value) = d
            .split_once('=')
            .ok_or_else(|| Failure::usage(format!("-D expects NAME=VALUE, got `{d}`")))?;
        let (name, value) = (name.trim(), value.trim());
        let v = fairsort::pbs::units::typed_value(value).ok_or_else(|| {
            Failure::user(format!(
                "-D {name}: `{value}` is not a number or a PBS size or time (`4gb`, `01:00:00`)"
            ))
        })?;
        match program.slot(name) {
            Some(i) => slots[i] = v,
            None => check_known(name, &resources)?,
        }
    }
    let e = program.eval(&slots);
    if args.json {
        let out = json!({
            "formula": src,
            "value": e.value,
            "error": e.error,
        });
        crate::outln!("{out}");
    } else {
        crate::outln!("{:?}", e.value);
        if let Some(msg) = &e.error {
            eprintln!("fairsort: Formula evaluation had an error.  Zero value will be used: {msg}");
        }
    }
    Ok(())
}

/// A `-D` name the formula does not use must still be a name PBS knows (catches typos).
fn check_known(name: &str, resources: &ResourceTable) -> CliResult {
    match formula::names::resolve(name, &(0..name.len()), resources) {
        Ok(formula::names::Resolved::Slot) => Ok(()),
        Ok(_) => Err(Failure::user(format!(
            "-D {name}: `{name}` is a math name, not a keyword or resource"
        ))),
        Err(e) => {
            let hint = e.hint().map(|h| format!(" ({h})")).unwrap_or_default();
            Err(Failure::user(format!("-D {name}: {e}{hint}")))
        }
    }
}

/// The resources a formula may use: PBS's built-ins, the server home's custom resources when
/// a home exists (`--home`, `FAIRSORT_HOME`, or the default place), then `-R NAME=TYPE`
/// declarations, which override a home definition of the same name.
pub(crate) fn resource_table(decls: &[String], global: &Global) -> Result<ResourceTable, Failure> {
    let mut table = home_resources(global)?;
    for d in decls {
        let (name, ty) = d
            .split_once('=')
            .ok_or_else(|| Failure::usage(format!("-R expects NAME=TYPE, got `{d}`")))?;
        let ty: ResourceType = ty
            .trim()
            .parse()
            .map_err(|e| Failure::usage(format!("-R {d}: {e}")))?;
        table
            .define(name.trim(), ty)
            .map_err(|e| Failure::user(e.to_string()))?;
    }
    Ok(table)
}

/// The built-in resources plus the custom ones of the server home, if there is one (the
/// Scenario of the home; never creates one, and an explicit `--home` that is no home is an
/// error, as a typo there would silently drop the custom resources).
fn home_resources(global: &Global) -> Result<ResourceTable, Failure> {
    ScenarioBuilder::new(Base::FindHome(global.home.clone()))
        .jobs_optional()
        .without_tree()
        .build()
        .map(|sc| sc.resources)
        .map_err(|e| Failure::user(e.to_string()))
}

/// Reports a formula that does not compile: the rendered message (caret, hint) on stderr, and
/// with `--json` also a JSON object on stdout.
pub(crate) fn formula_failure(src: &str, e: &FormulaError, json_out: bool) -> Failure {
    if json_out {
        let (line, column) = e
            .span()
            .map(|s| line_col(src, s.start))
            .map_or((None, None), |(l, c)| (Some(l), Some(c)));
        let out = json!({
            "formula": src,
            "error": e.to_string(),
            "code": e.code(),
            "pbs_message": e.pbs_message(),
            "line": line,
            "column": column,
            "span": e.span().map(|s| [s.start, s.end]),
            "hint": e.hint(),
        });
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout().lock(), "{out}") {
            return Failure::from(e);
        }
    }
    Failure::user(e.render(src))
}

pub(crate) fn line_col(src: &str, at: usize) -> (usize, usize) {
    let mut at = at.min(src.len());
    while !src.is_char_boundary(at) {
        at -= 1;
    }
    let before = &src[..at];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, col)
}
