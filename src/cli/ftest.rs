//! `fairsort test FILE... [--formula F] [--json] [--record]`: run formula unit-test files
//! (format: docs/ftest.md). Prints `ok`/`FAILED` per case with a diff, then `N passed, M failed`;
//! exits 0 only if every case of every file passes.

use super::{CliResult, Failure, Global};
use fairsort::formula::ResourceTable;
use fairsort::ftest;
use fairsort::ftest::{record, Context, FileResult, Summary};
use std::path::{Path, PathBuf};

/// Arguments of `fairsort test`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Test files (TOML: [[eval]], [[order]], [[compare]] and [[share]] cases; see the example
    /// examples/formula-tests.toml).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// The formula under test: what cases with `@current` (or no `formula`) run.
    #[arg(long, value_name = "FORMULA", allow_hyphen_values = true)]
    pub formula: Option<String>,
    /// Fill in `expect` of cases that have none from their current results, in place.
    #[arg(long)]
    pub record: bool,
    /// Machine-readable output: {"files": [...], "passed": N, "failed": M}.
    #[arg(long)]
    pub json: bool,
}

/// Runs `fairsort test`.
pub fn run(args: Args, global: &Global) -> CliResult {
    let ctx = context(args.formula.clone(), global);
    let mut files = Vec::with_capacity(args.files.len());
    for path in &args.files {
        files.push(run_one(path, &ctx, args.record));
    }
    let summary = Summary::of(&files);
    if args.json {
        let out = serde_json::json!({
            "files": files,
            "passed": summary.passed,
            "failed": summary.failed,
        });
        crate::outln!("{out:#}");
    } else {
        crate::out!("{}", super::ftest_report::render(&files));
    }
    if summary.all_passed() {
        Ok(())
    } else {
        Err(Failure::silent(1))
    }
}

/// The current formula and resources: `--formula`, else the home's `job_sort_formula`;
/// built-in resources plus the home's custom ones. A home is only read if its directory
/// exists (`fairsort test` never creates one); a home that cannot be read only fails the cases
/// that need `@current`.
fn context(formula: Option<String>, global: &Global) -> Context {
    use fairsort::home::Home;
    use fairsort::scenario::Scenario;
    let home = match Home::find(global.home.as_deref()) {
        Ok(Some(home)) => Some(
            Scenario::settings_from_home(&home)
                .map_err(|e| format!("cannot read the home {}: {e}", home.path().display())),
        ),
        Ok(None) => None,
        Err(e) => Some(Err(e.to_string())),
    };
    let resources = match &home {
        Some(Ok(sc)) => sc.resources.clone(),
        _ => ResourceTable::builtin(),
    };
    let current = match (formula, home) {
        (Some(f), _) => Ok(f),
        (None, Some(Ok(sc))) => sc.formula.ok_or_else(|| {
            "no current formula for `@current`: the server has no job_sort_formula; pass --formula"
                .to_string()
        }),
        (None, Some(Err(e))) => Err(format!("no current formula for `@current`: {e}")),
        (None, None) => {
            Err("no current formula for `@current`: pass --formula (no home found)".to_string())
        }
    };
    Context { current, resources }
}

/// Loads, runs and (with `record`) updates one file.
fn run_one(path: &Path, ctx: &Context, record_missing: bool) -> FileResult {
    let shown = path.display().to_string();
    let failed = |error: String| FileResult {
        path: shown.clone(),
        error: Some(error),
        cases: Vec::new(),
    };
    let file = match ftest::load(path) {
        Ok(f) => f,
        Err(e) => return failed(e.render()),
    };
    let (result, recordings) = ftest::run_file(&file, ctx, record_missing);
    if recordings.is_empty() {
        return result;
    }
    let written = std::fs::read_to_string(path)
        .map_err(|e| format!("{shown}: cannot re-read for --record: {e}"))
        .and_then(|text| record::record(&text, &recordings).map_err(|e| format!("{shown}: {e}")))
        .and_then(|text| {
            write_atomically(path, &text).map_err(|e| format!("{shown}: cannot write: {e}"))
        });
    match written {
        Ok(()) => result,
        Err(e) => FileResult {
            error: Some(e),
            ..result
        },
    }
}

/// Replaces `path` with `text` via a temporary file with an unpredictable name in the same
/// directory and a rename (`formats::write_atomic`: no link followed, the file's mode kept), so
/// an interrupted `--record` never leaves a half-written test file.
fn write_atomically(path: &Path, text: &str) -> Result<(), fairsort::files::WriteError> {
    fairsort::files::write_atomic(path, text.as_bytes())
}
