//! Validation exactly as PBS's server does it (`validate_job_formula`, reference/openpbs.md
//! §2.1): the formula is evaluated twice with every keyword and resource bound to the int 1 —
//! first with every resource (`globals1`), then with the numeric ones only (`globals2`). A
//! `NameError` in the first pass is 15124 (`Formula contains invalid keyword`), in the second
//! 15125 (`Formula contains a resource of an invalid type`); a syntax error is 15123; any other
//! error (a division by zero, a math domain error) is accepted. So a name in a branch that the
//! all-ones evaluation does not reach is accepted, as PBS accepts it: a job that reaches it
//! gets 0 (`name 'x' is not defined`). [`check`] also reports those names, and fairsort's own
//! keywords, as [`Warning`]s.

use crate::formula::ast::{Expr, ExprKind, Span};
use crate::formula::compile::{compile_nodes, Policy};
use crate::formula::error::FormulaError;
use crate::formula::exact::eval_node;
use crate::formula::ir::{name_error_message, Node};
use crate::formula::names::suggest;
use crate::formula::program::Program;
use crate::formula::resources::ResourceTable;
use crate::pbs::defs::keywords;
use crate::snippet;
use crate::snippet::{Layout, Spot};

/// PBS's server's verdict on a parsed formula: `Ok` when it accepts it. With
/// `fairsort_keywords`, fairsort's own keywords count as known (fairsort's verdict); without,
/// they are unknown names, as on a PBS server.
pub fn server_verdict(
    expr: &Expr,
    resources: &ResourceTable,
    fairsort_keywords: bool,
) -> Result<(), FormulaError> {
    for all_resources in [true, false] {
        let policy = Policy::Ones {
            all_resources,
            fairsort_keywords,
        };
        let (nodes, root, _) = compile_nodes(expr, resources, policy)?;
        let Err(message) = eval_node(&nodes, root, &[], &[]) else {
            continue;
        };
        // Only a NameError refuses; it names one of the raising nodes.
        let Some((name, span)) = raised_name(&nodes, &message) else {
            continue;
        };
        return Err(match resources.get(&name).filter(|t| !t.is_numeric()) {
            Some(ty) if !all_resources => FormulaError::InvalidType { name, ty, span },
            _ => FormulaError::InvalidKeyword {
                suggestion: suggest(&name, resources),
                name,
                span,
            },
        });
    }
    Ok(())
}

/// The name and place of the `NameError` whose message is `message`, if it is one.
fn raised_name(nodes: &[Node], message: &str) -> Option<(String, Span)> {
    nodes.iter().find_map(|n| match n {
        Node::Raise(r) => r
            .name
            .as_ref()
            .filter(|name| name_error_message(name) == message)
            .map(|name| (name.clone(), r.span.clone())),
        _ => None,
    })
}

/// Something fairsort notices in a formula PBS accepts.
#[derive(Debug, Clone, PartialEq)]
pub struct Warning {
    /// The name concerned.
    pub name: String,
    /// Where it is written (its first place).
    pub span: Span,
    /// One line for people.
    pub message: String,
    /// A hint line ("did you mean `walltime`?").
    pub hint: Option<String>,
}

impl Warning {
    /// The message, `at line L, column C`, the source line with a caret, and the hint.
    pub fn render(&self, src: &str) -> String {
        let mut out = self.message.clone();
        out.push_str(&snippet::render(
            &Spot::locate(src, self.span.clone()),
            Layout::Indented,
            true,
        ));
        if let Some(h) = &self.hint {
            out.push('\n');
            out.push_str(h);
        }
        out
    }
}

/// A formula checked as `fairsort check` reports it.
#[derive(Debug, Clone)]
pub struct Checked {
    /// The formula, compiled (fairsort accepts it).
    pub program: Program,
    /// What a PBS server says: it does not know fairsort's keywords, so a formula that
    /// reaches one is refused there (15124) although fairsort accepts it.
    pub pbs_verdict: Result<(), FormulaError>,
    /// fairsort's findings: names the server's validation does not reach (a job that reaches
    /// them gets 0), and fairsort's own keywords. In the order they are written.
    pub warnings: Vec<Warning>,
}

/// Checks a parsed formula: `Err` when fairsort refuses it (PBS's 15123/15124/15125 with
/// fairsort's keywords known, or one of fairsort's own refusals), else the compiled program,
/// a PBS server's verdict and the warnings.
pub fn check(src: &str, expr: &Expr, resources: &ResourceTable) -> Result<Checked, FormulaError> {
    let program = crate::formula::compile::compile_expr(src, expr, resources)?;
    server_verdict(expr, resources, true)?;
    let pbs_verdict = server_verdict(expr, resources, false);
    let (nodes, _, _) = compile_nodes(expr, resources, Policy::Runtime)?;
    let mut warnings: Vec<Warning> = Vec::new();
    for n in &nodes {
        let Node::Raise(r) = n else { continue };
        let Some(name) = &r.name else { continue };
        if warnings.iter().any(|w| &w.name == name) {
            continue;
        }
        let (what, hint) = match resources.get(name) {
            Some(ty) => (format!("a {ty} resource"), None),
            None => (
                "not a keyword, resource or function".to_string(),
                suggest(name, resources).map(|s| format!("did you mean `{s}`?")),
            ),
        };
        warnings.push(Warning {
            name: name.clone(),
            span: r.span.clone(),
            message: format!(
                "`{name}` is {what}: PBS accepts the formula because its validation (every \
                 keyword and resource = 1) does not reach it, but a job that reaches it gets 0 \
                 ({})",
                name_error_message(name)
            ),
            hint,
        });
    }
    for (name, span) in names_in(expr) {
        if !keywords::is_fairsort_keyword(&name)
            || resources.get(&name).is_some()
            || warnings.iter().any(|w| w.name == name)
        {
            continue;
        }
        let consequence = match &pbs_verdict {
            Err(e) => match e.pbs_code() {
                Some(c) => format!(
                    "a PBS server refuses this formula ({} {})",
                    c.number, c.message
                ),
                None => "a PBS server refuses this formula".to_string(),
            },
            Ok(()) => format!(
                "a PBS scheduler gives 0 to a job that reaches it ({})",
                name_error_message(&name)
            ),
        };
        let message =
            format!("`{name}` is a fairsort keyword, not valid on a PBS server: {consequence}");
        warnings.push(Warning {
            name,
            span,
            message,
            hint: None,
        });
    }
    warnings.sort_by_key(|w| w.span.start);
    Ok(Checked {
        program,
        pbs_verdict,
        warnings,
    })
}

/// The names an expression uses as values, with their places, in the order they are written.
fn names_in(expr: &Expr) -> Vec<(String, Span)> {
    fn walk(e: &Expr, out: &mut Vec<(String, Span)>) {
        match &e.kind {
            ExprKind::Number(_) | ExprKind::Bool(_) => {}
            ExprKind::Name(n) => out.push((n.clone(), e.span.clone())),
            ExprKind::Unary(_, a) => walk(a, out),
            ExprKind::Chain(a, rest) => {
                walk(a, out);
                rest.iter().for_each(|(_, b)| walk(b, out));
            }
            ExprKind::Compare(a, rest) => {
                walk(a, out);
                rest.iter().for_each(|(_, b)| walk(b, out));
            }
            ExprKind::Logic(_, items) => items.iter().for_each(|i| walk(i, out)),
            ExprKind::IfElse {
                then,
                cond,
                otherwise,
            } => {
                walk(then, out);
                walk(cond, out);
                walk(otherwise, out);
            }
            ExprKind::Call { args, .. } => args.iter().for_each(|a| walk(a, out)),
        }
    }
    let mut out = Vec::new();
    walk(expr, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formula::parse::parse;
    use crate::pbs::defs::ResourceType;

    fn verdict(src: &str, fairsort_keywords: bool) -> Option<u32> {
        let r = ResourceTable::builtin();
        let expr = parse(src).unwrap_or_else(|e| panic!("{src}: {e}"));
        server_verdict(&expr, &r, fairsort_keywords)
            .err()
            .and_then(|e| e.code())
    }

    #[test]
    fn the_server_evaluates_with_every_name_one() {
        // accepted: the all-ones evaluation does not reach the bad name
        assert_eq!(verdict("1 if walltime else nosuchname", true), None);
        assert_eq!(verdict("0 and nosuch", true), None);
        assert_eq!(verdict("1 or arch", true), None);
        // any other error at that point is accepted too
        assert_eq!(verdict("1/(ncpus-1)", true), None);
        assert_eq!(verdict("1/0 + nosuch", true), None);
        assert_eq!(verdict("sqrt(-ncpus) + arch", true), None);
        // reached: 15124 for an unknown name, 15125 for a string or boolean resource
        assert_eq!(verdict("nosuchname", true), Some(15124));
        assert_eq!(verdict("1 if 0 else walltim", true), Some(15124));
        assert_eq!(verdict("foo(1)", true), Some(15124));
        assert_eq!(verdict("arch + 1", true), Some(15125));
        assert_eq!(verdict("accelerator", true), Some(15125));
        // the first pass binds string resources to 1: the unknown name after one is 15124
        assert_eq!(verdict("arch + nosuch", true), Some(15124));
        // the second pass runs after a non-NameError in the first
        assert_eq!(verdict("arch/0", true), Some(15125));
        // PBS's built-ins (openpbs master_resc_def_all.xml), not ngpus
        assert_eq!(
            verdict("cpupercent + nodect + pcput + pmem + pvmem + vmem", true),
            None
        );
        assert_eq!(
            verdict("mpiprocs * ompthreads + nchunk + energy", true),
            None
        );
        assert_eq!(verdict("ngpus", true), Some(15124));
        // fairsort's keywords: known to fairsort, unknown to a PBS server
        assert_eq!(verdict("level_fs", true), None);
        assert_eq!(verdict("level_fs", false), Some(15124));
        assert_eq!(verdict("1 if ncpus else level_fs", false), None);
    }

    #[test]
    fn custom_resources_are_known_once_defined() {
        let mut r = ResourceTable::builtin();
        let expr = parse("ngpus * 2").unwrap_or_else(|e| panic!("{e}"));
        assert!(server_verdict(&expr, &r, true).is_err());
        r.define("ngpus", ResourceType::Long).unwrap_or(());
        assert!(server_verdict(&expr, &r, true).is_ok());
        // a custom resource named like a fairsort keyword is known to a PBS server
        let expr = parse("level_fs").unwrap_or_else(|e| panic!("{e}"));
        assert!(server_verdict(&expr, &r, false).is_err());
        r.define("level_fs", ResourceType::Float).unwrap_or(());
        assert!(server_verdict(&expr, &r, false).is_ok());
        r.define("label", ResourceType::String).unwrap_or(());
        let expr = parse("label").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            server_verdict(&expr, &r, true).err().and_then(|e| e.code()),
            Some(15125)
        );
    }

    #[test]
    fn warnings_and_runtime_name_errors() {
        let r = ResourceTable::builtin();
        let src = "1 if walltime else nosuchname + arch + level_fs";
        let expr = parse(src).unwrap_or_else(|e| panic!("{e}"));
        let c = check(src, &expr, &r).unwrap_or_else(|e| panic!("{e}"));
        let names: Vec<&str> = c.warnings.iter().map(|w| w.name.as_str()).collect();
        assert_eq!(names, ["nosuchname", "arch", "level_fs"]);
        assert!(c.pbs_verdict.is_ok(), "level_fs is not reached");
        assert!(c.warnings[0].render(src).contains("at line 1, column 20"));
        // a job that reaches the name gets 0 and Python's NameError message
        let e = c.program.eval(&[0.0]);
        assert_eq!(e.value, 0.0);
        assert_eq!(e.error.as_deref(), Some("name 'nosuchname' is not defined"));
        assert_eq!(c.program.eval(&[5.0]).value, 1.0);
        let src = "level_fs";
        let expr = parse(src).unwrap_or_else(|e| panic!("{e}"));
        let c = check(src, &expr, &r).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(c.pbs_verdict.err().and_then(|e| e.code()), Some(15124));
        assert!(c.warnings[0].message.contains("not valid on a PBS server"));
    }
}
