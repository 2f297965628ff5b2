//! `fairsort eval`: evaluate a job_sort_formula once with given keyword values, as PBS would
//! for one job (unbound keywords and resources are 0, like an unrequested resource).

use super::{CliResult, Failure, Global};
use fairsort::formula;
use fairsort::formula::{FormulaError, ResourceTable, Value};
use fairsort::pbs::defs::ResourceType;
use fairsort::scenario::{Base, ScenarioBuilder};
use serde_json::{json, Value as Json};
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
        let v = fairsort::pbs::defs::units::typed_value(value).ok_or_else(|| {
            Failure::user(format!(
                "-D {name}: `{value}` is not a number or a PBS size or time (`4gb`, `01:00:00`)"
            ))
        })?;
        match program.slot(name) {
            Some(i) => slots[i] = v,
            None => check_known(name, &resources)?,
        }
    }
    let result = program.eval_python(&slots);
    let sort = formula::sort_value(&result);
    if args.json {
        let mut out = serde_json::Map::new();
        out.insert("formula".into(), json!(src));
        match &result {
            Ok(v) => {
                out.insert("value".into(), json_value(v));
                out.insert("type".into(), json!(v.type_name()));
                out.insert("repr".into(), json!(v.to_string()));
            }
            Err(msg) => {
                out.insert("error".into(), json!(msg));
            }
        }
        out.insert("sort_value".into(), json_float(sort));
        crate::outln!("{}", Json::Object(out));
    } else {
        match &result {
            Ok(v) => {
                crate::outln!("{v}");
                if let Err(why) = v.to_f64() {
                    crate::outln!(
                        "sort value: {} (PBS reads the result with PyFloat_AsDouble, which fails \
                         without a log line: {why})",
                        formula::repr::float(sort)
                    );
                }
            }
            Err(msg) => {
                crate::outln!("{}", formula::repr::float(sort));
                crate::cli::say::line(format_args!(
                    "fairsort: Formula evaluation had an error.  Zero value will be used: {msg}"
                ));
            }
        }
    }
    Ok(())
}

/// A float in JSON: a number, or `"inf"`, `"-inf"`, `"nan"` (JSON has no such numbers, and
/// `eval --json` never prints `null`).
fn json_float(x: f64) -> Json {
    if x.is_finite() {
        json!(x)
    } else {
        json!(formula::repr::float(x))
    }
}

/// Python's result in JSON: a bool, an int (a string of digits beyond 64 bits, which JSON
/// readers would round), a float ([`json_float`]), or a complex number's repr as a string.
fn json_value(v: &Value) -> Json {
    match v {
        Value::Bool(b) => json!(b),
        Value::Int(i) => i64::try_from(*i)
            .map(Json::from)
            .or_else(|_| u64::try_from(*i).map(Json::from))
            .unwrap_or_else(|_| json!(i.to_string())),
        Value::Float(x) => json_float(*x),
        Value::Big(_) | Value::Complex(..) => json!(v.to_string()),
    }
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

/// The resources a formula may use: PBS's built-ins, the home's custom resources when
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

/// The built-in resources plus the custom ones of the home, if there is one (the
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
        let mut out = json!({
            "formula": src,
            "error": e.to_string(),
            "code": e.code(),
            "pbs_message": e.pbs_message(),
            "line": line,
            "column": column,
            "span": e.span().map(|s| [s.start, s.end]),
            "hint": e.hint(),
        });
        // absent rather than `null` (a refusal without a PBS code, span or hint)
        if let Json::Object(fields) = &mut out {
            fields.retain(|_, v| !v.is_null());
        }
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
