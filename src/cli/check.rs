//! `fairsort check`: validate a job_sort_formula as PBS's server would and list the keywords
//! and resources it uses (each bound per job).

use super::eval::{formula_failure, line_col, resource_table, FormulaInput};
use super::table::{Align, Table};
use super::{CliResult, Global};
use fairsort::formula;
use fairsort::formula::{validate, ResourceTable};
use fairsort::pbs::defs::keywords;
use serde_json::json;

/// Arguments of `fairsort check`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub input: FormulaInput,
    /// Declare a custom resource the formula may use: NAME=TYPE.
    #[arg(short = 'R', long = "resource", value_name = "NAME=TYPE")]
    pub resources: Vec<String>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// What a used name is, for people: "PBS keyword", "fairsort keyword" or "<type> resource".
fn kind_of(name: &str, resources: &ResourceTable) -> String {
    if keywords::PBS_KEYWORDS.contains(&name) {
        "PBS keyword".into()
    } else if keywords::FAIRSORT_KEYWORDS.contains(&name) {
        "fairsort keyword".into()
    } else {
        resources
            .get(name)
            .map(|t| format!("{t} resource"))
            .unwrap_or_default()
    }
}

/// Runs `fairsort check`: PBS's verdict (exit 0 when the server accepts the formula, 1 with
/// PBS's code and message when it refuses it), then fairsort's own findings as warnings on
/// standard error (names the server's validation does not reach, fairsort's own keywords).
pub fn run(args: Args, global: &Global) -> CliResult {
    let resources = resource_table(&args.resources, global)?;
    let src = args.input.read()?;
    // What would bring the real pbs_sched down on this text, whatever fairsort's verdict.
    let hazards: Vec<String> = fairsort::formula::pbs_hazards::static_hazards(&src)
        .iter()
        .map(|h| h.render())
        .collect();
    let fail = |e: &formula::FormulaError| {
        let mut f = formula_failure(&src, e, args.json);
        if e.code().is_none() && e.hint().is_none() {
            f.message.push_str(
                "\n(fairsort's own refusal, not PBS's: see \"Where fairsort differs from PBS\" \
                 in docs/formula.md)",
            );
        }
        if !args.json {
            for h in &hazards {
                f.message.push_str(&format!("\nwarning: {h}"));
            }
        }
        f
    };
    let expr = formula::parse(&src).map_err(|e| fail(&e))?;
    let checked = validate::check(&src, &expr, &resources).map_err(|e| fail(&e))?;
    let program = &checked.program;
    let rows: Vec<(String, String, &str)> = program
        .keywords()
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let py = if program.slot_is_float(i) {
                "float"
            } else {
                "int if integral"
            };
            (k.clone(), kind_of(k, &resources), py)
        })
        .collect();
    if args.json {
        let kws: Vec<_> = rows
            .iter()
            .map(|(n, k, t)| json!({"name": n, "kind": k, "python_type": t}))
            .collect();
        let warnings: Vec<_> = checked
            .warnings
            .iter()
            .map(|w| {
                let (line, column) = line_col(&src, w.span.start);
                json!({
                    "name": w.name,
                    "message": w.message,
                    "hint": w.hint,
                    "line": line,
                    "column": column,
                    "span": [w.span.start, w.span.end],
                })
            })
            .collect();
        let pbs = match &checked.pbs_verdict {
            Ok(()) => json!({"accepted": true, "code": null, "message": null}),
            Err(e) => json!({"accepted": false, "code": e.code(), "message": e.pbs_message()}),
        };
        let out = json!({
            "formula": src,
            "valid": true,
            "pbs": pbs,
            "keywords": kws,
            "warnings": warnings,
            "pbs_sched_hazards": hazards,
            "parsed": expr.to_string(),
        });
        crate::outln!("{out}");
        return pbs_refusal(&checked.pbs_verdict);
    }
    match &checked.pbs_verdict {
        Ok(()) => crate::outln!("valid: {}", expr),
        Err(_) => crate::outln!(
            "valid for fairsort only (a PBS server refuses it): {}",
            expr
        ),
    }
    if rows.is_empty() {
        crate::outln!("uses no keywords or resources (the value is the same for every job)");
    } else {
        let mut t = Table::new(&[
            ("keyword", Align::Left),
            ("kind", Align::Left),
            ("python type", Align::Left),
        ]);
        for (n, k, p) in rows {
            t.row(vec![n, k, p.to_string()]);
        }
        crate::out!("{}", t.render());
    }
    for w in &checked.warnings {
        crate::cli::say::line(format_args!("fairsort: warning: {}", w.render(&src)));
    }
    for h in &hazards {
        crate::cli::say::line(format_args!("fairsort: warning: {h}"));
    }
    pbs_refusal(&checked.pbs_verdict)
}

/// Exit status 1 when a PBS server would refuse the formula (fairsort's own keywords): "valid"
/// with status 0 would tell a script that `qmgr -c "set server job_sort_formula=…"` will work.
fn pbs_refusal(verdict: &Result<(), formula::FormulaError>) -> CliResult {
    match verdict {
        Ok(()) => Ok(()),
        Err(e) => Err(super::Failure::user(format!(
            "a PBS server refuses this formula ({}); fairsort's order, replay and test evaluate it",
            match (e.code(), e.pbs_message()) {
                (Some(c), Some(m)) => format!("{c} {m}"),
                _ => e.to_string(),
            }
        ))),
    }
}
