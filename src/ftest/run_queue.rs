//! Running the queue-side cases through exactly the code `fairsort order` and `fairsort share`
//! use: `queue::read_job_list_json`, `queue::dry_run::{prepare_shares, order_options,
//! dry_run_with}`, `queue::compare::compare` and `fairshare::compute`.

use super::case::{Case, Tolerance};
use super::outcome::{first_difference, Problem, ValueDiff};
use super::queue_case::{CompareCase, OrderCase, QueueSetup, ShareCase, TreeDef, TreeOrigin};
use super::run::{formula_text, Context, Ran};
use crate::fairshare::{self, NodeId, NodeKind, Options, ShareResult, Tree};
use crate::formula::{compile, Program, ResourceTable};
use crate::queue::dry_run::{dry_run_with, order_options, prepare_shares, DryRun};
use crate::queue::{compare, read_job_list_json, JobSet, Setup, ShareEngine, SortFormula};
use std::collections::BTreeSet;
use toml::Value;

/// The fair-share engine `fairsort order` runs with.
const ENGINE: ShareEngine = ShareEngine {
    compute: &fairshare::compute,
    compare_path: Some(&fairshare::pbs::compare_path),
};

/// Reads a case's tree (inline or a file in any supported format) and applies its usage.
pub fn load_tree(def: &TreeDef) -> Result<Tree, String> {
    let mut spec = match &def.origin {
        TreeOrigin::Inline(text) => {
            crate::formats::native::read_toml(text).map_err(|e| e.to_string())?
        }
        TreeOrigin::File { path, format } => {
            crate::formats::read_tree(path, *format).map_err(|e| e.to_string())?
        }
    };
    if def.unknown_shares.is_some() {
        spec.unknown_shares = def.unknown_shares;
    }
    for (who, usage) in &def.usage {
        let (account, user) = match who.split_once('/') {
            Some((a, u)) => (Some(a), u),
            None => (None, who.as_str()),
        };
        let mut found = false;
        for n in spec.nodes.iter_mut() {
            let account_ok = account.is_none() || n.parent.as_deref() == account;
            if n.kind == NodeKind::User && n.name == user && account_ok {
                n.usage = Some(*usage);
                found = true;
            }
        }
        if !found {
            return Err(format!("usage: no user `{who}` in the tree"));
        }
    }
    Tree::build(spec).map_err(|e| e.to_string())
}

fn setup(q: &QueueSetup) -> Result<Setup, String> {
    let jobs = read_job_list_json(&q.jobs_json).map_err(|e| format!("jobs: {e}"))?;
    let tree = q.tree.as_ref().map(load_tree).transpose()?;
    Ok(Setup {
        jobs,
        tree,
        entity: q.entity,
        options: Options::default(),
        fair_share: q.fair_share,
        threshold: q.threshold,
        pbs_compat: q.pbs_compat,
        queues: q.queues.clone(),
    })
}

fn compiled(text: &str, resources: &ResourceTable) -> Result<Program, String> {
    compile(text, resources).map_err(|e| format!("formula `{text}` rejected: {e}"))
}

/// Runs one or two formulas over the setup as `fairsort order` (and `--against`) does.
fn dry_runs(setup: &Setup, formulas: &[&Program]) -> Result<Vec<DryRun>, String> {
    let all: Vec<&dyn SortFormula> = formulas.iter().map(|p| *p as &dyn SortFormula).collect();
    let shares = prepare_shares(setup, &all, &ENGINE).map_err(|e| e.to_string())?;
    let options = order_options(setup, shares.as_ref(), &ENGINE);
    formulas
        .iter()
        .map(|p| {
            dry_run_with(setup, *p, shares.clone(), options.clone()).map_err(|e| e.to_string())
        })
        .collect()
}

fn ids_of(jobs: &JobSet, run: &DryRun) -> Vec<String> {
    run.order
        .ranked
        .iter()
        .map(|r| job_id(jobs, r.job))
        .collect()
}

fn job_id(jobs: &JobSet, job: u32) -> String {
    jobs.jobs
        .get(job as usize)
        .map_or_else(|| format!("#{job}"), |j| j.id.clone())
}

fn strings(v: &[String]) -> Value {
    Value::Array(v.iter().map(|s| Value::String(s.clone())).collect())
}

fn no_job(id: &str) -> String {
    format!("no job `{id}` in the queue")
}

/// An `[[order]]` case.
pub fn run_order(
    case: &Case,
    o: &OrderCase,
    ctx: &Context,
    resources: &ResourceTable,
) -> Result<Ran, String> {
    let program = compiled(formula_text(&o.formula, ctx)?, resources)?;
    let s = setup(&o.setup)?;
    let runs = dry_runs(&s, &[&program])?;
    let run = runs.first().ok_or("no dry run")?;
    let order = ids_of(&s.jobs, run);
    let eligible: Vec<String> = run
        .order
        .ranked
        .iter()
        .filter(|r| r.eligible)
        .map(|r| job_id(&s.jobs, r.job))
        .collect();
    let mut actual = toml::Table::new();
    actual.insert("order".into(), strings(&order));
    if s.threshold.is_some() {
        actual.insert("eligible".into(), strings(&eligible));
    }
    let verdict = o
        .expect
        .as_ref()
        .map(|e| check_order(case.tolerance, e, &order, &eligible, run, &s.jobs));
    Ok((Some(Value::Table(actual)), verdict))
}

fn check_order(
    tolerance: Tolerance,
    e: &super::queue_case::OrderExpect,
    order: &[String],
    eligible: &[String],
    run: &DryRun,
    jobs: &JobSet,
) -> Result<(), Problem> {
    if let Some(x) = &e.order {
        if let Some(i) = first_difference(x, order) {
            return Err(Problem::Order {
                expected: x.clone(),
                actual: order.to_vec(),
                first_difference: i,
            });
        }
    }
    if let Some(top) = &e.top {
        let head = &order[..top.len().min(order.len())];
        if let Some(i) = first_difference(top, head) {
            return Err(Problem::Order {
                expected: top.clone(),
                actual: order.to_vec(),
                first_difference: i,
            });
        }
    }
    let rank = |id: &str| order.iter().position(|x| x == id);
    let mut violated = Vec::new();
    for (a, b) in &e.before {
        match (rank(a), rank(b)) {
            (Some(ra), Some(rb)) if ra < rb => {}
            (Some(ra), Some(rb)) => violated.push(format!(
                "{a} before {b}: {a} is rank {}, {b} is rank {}",
                ra + 1,
                rb + 1
            )),
            (None, _) => violated.push(no_job(a)),
            (_, None) => violated.push(no_job(b)),
        }
    }
    if let Some(x) = &e.eligible {
        let want: BTreeSet<&String> = x.iter().collect();
        let got: BTreeSet<&String> = eligible.iter().collect();
        if want != got {
            violated.push(format!(
                "eligible: expected [{}], actual [{}]",
                join(&want),
                join(&got)
            ));
        }
    }
    if !violated.is_empty() {
        return Err(Problem::Constraints { violated });
    }
    let mut entries = Vec::new();
    for (id, want) in &e.values {
        let value = jobs
            .jobs
            .iter()
            .position(|j| &j.id == id)
            .and_then(|i| run.order.ranked.iter().find(|r| r.job as usize == i))
            .map(|r| r.value);
        if !value.is_some_and(|v| tolerance.accepts(*want, v)) {
            entries.push(ValueDiff {
                name: id.clone(),
                expected: *want,
                actual: value,
            });
        }
    }
    if entries.is_empty() {
        Ok(())
    } else {
        Err(Problem::Values { entries, tolerance })
    }
}

fn join(s: &BTreeSet<&String>) -> String {
    s.iter().map(|x| x.as_str()).collect::<Vec<_>>().join(", ")
}

/// A `[[compare]]` case.
pub fn run_compare(
    c: &CompareCase,
    ctx: &Context,
    resources: &ResourceTable,
) -> Result<Ran, String> {
    let a = compiled(formula_text(&c.formula, ctx)?, resources)?;
    let b = compiled(formula_text(&c.against, ctx)?, resources)?;
    let s = setup(&c.setup)?;
    let runs = dry_runs(&s, &[&a, &b])?;
    let (Some(ra), Some(rb)) = (runs.first(), runs.get(1)) else {
        return Err("no dry run".into());
    };
    let cmp = compare(&ra.order, &rb.order);
    let moved = |f: fn(i64) -> bool| -> Vec<String> {
        cmp.moves
            .iter()
            .filter(|m| f(m.delta()))
            .map(|m| job_id(&s.jobs, m.job))
            .collect()
    };
    let changed = moved(|d| d != 0);
    let up = moved(|d| d > 0);
    let down = moved(|d| d < 0);
    let order_a = ids_of(&s.jobs, ra);
    let order_b = ids_of(&s.jobs, rb);
    let mut actual = toml::Table::new();
    actual.insert("changed".into(), strings(&changed));
    let verdict = c.expect.as_ref().map(|e| {
        let mut violated = Vec::new();
        if let Some(x) = &e.changed {
            let want: BTreeSet<&String> = x.iter().collect();
            let got: BTreeSet<&String> = changed.iter().collect();
            if want != got {
                violated.push(format!(
                    "changed rank: expected [{}], actual [{}]",
                    join(&want),
                    join(&got)
                ));
            }
        }
        for (want, got, dir) in [(&e.up, &up, "up"), (&e.down, &down, "down")] {
            for id in want {
                if !order_a.contains(id) {
                    violated.push(no_job(id));
                } else if !got.contains(id) {
                    violated.push(format!("{id} moves {dir}: it does not"));
                }
            }
        }
        if let Some(x) = &e.order {
            if first_difference(x, &order_b).is_some() {
                violated.push(format!(
                    "order under {}: expected [{}]",
                    c.against.label(),
                    x.join(", ")
                ));
            }
        }
        if violated.is_empty() {
            Ok(())
        } else {
            Err(Problem::Compare {
                violated,
                current: order_a.clone(),
                against: order_b.clone(),
                first_difference: first_difference(&order_a, &order_b),
            })
        }
    });
    Ok((Some(Value::Table(actual)), verdict))
}

/// A node by `user`, `account/user` or account name.
fn find(tree: &Tree, name: &str) -> Result<Option<NodeId>, String> {
    if let Some((a, u)) = name.split_once('/') {
        return Ok(tree.find_user(Some(a), u));
    }
    match tree.users_named(name) {
        [one] => Ok(Some(*one)),
        [] => Ok(tree.find_account(name)),
        _ => Err(format!(
            "`{name}` has several associations in the tree: write `account/{name}`"
        )),
    }
}

fn column(result: &ShareResult, id: NodeId, column: &str) -> Option<f64> {
    let r = result.row(id);
    match column {
        "factor" => result.factor(id),
        "fairshare" => r.fairshare,
        "fairshare_perc" => r.fairshare_perc,
        "fairshare_tree_usage" => r.fairshare_tree_usage,
        "fairshare_factor" => r.fairshare_factor,
        "norm_shares" => r.norm_shares,
        "norm_usage" => r.norm_usage,
        "effective_usage" => r.effective_usage,
        "level_fs" => r.level_fs,
        "tickets" => r.tickets,
        "weight" => r.weight,
        _ => None,
    }
}

/// A `[[share]]` case.
pub fn run_share(case: &Case, s: &ShareCase) -> Result<Ran, String> {
    let tree = load_tree(&s.tree)?;
    let mut options = Options {
        flux_compat: s.flux_compat,
        ..Options::default()
    };
    if let Some(d) = s.dampening {
        options.dampening = d;
    }
    let result = fairshare::compute(&tree, s.algorithm, &options).map_err(|e| e.to_string())?;
    let mut actual = toml::Table::new();
    for id in tree.users() {
        let name = &tree.node(id).name;
        let key = if tree.users_named(name).len() == 1 {
            name.clone()
        } else {
            tree.label(id)
        };
        if let Some(v) = column(&result, id, &s.column) {
            actual.insert(key, Value::Float(v));
        }
    }
    let verdict = match &s.expect {
        None => None,
        Some(expect) => {
            let mut entries = Vec::new();
            for (name, want) in expect {
                let got = find(&tree, name)?.and_then(|id| column(&result, id, &s.column));
                if !got.is_some_and(|v| case.tolerance.accepts(*want, v)) {
                    entries.push(ValueDiff {
                        name: name.clone(),
                        expected: *want,
                        actual: got,
                    });
                }
            }
            Some(if entries.is_empty() {
                Ok(())
            } else {
                Err(Problem::Values {
                    entries,
                    tolerance: case.tolerance,
                })
            })
        }
    };
    Ok((Some(Value::Table(actual)), verdict))
}

#[cfg(test)]
mod tests {
    use super::super::file::parse;
    use super::super::outcome::Status;
    use super::super::run::run_file;
    use super::*;

    fn tree(text: &str, usage: &[(&str, f64)]) -> TreeDef {
        TreeDef {
            origin: TreeOrigin::Inline(text.into()),
            unknown_shares: None,
            usage: usage.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        }
    }

    const TWO_BANKS: &str = "accounts = [{ name = \"x\", shares = 1, users = [{ name = \"u\", shares = 1 }] }, { name = \"y\", shares = 1, users = [{ name = \"u\", shares = 1 }] }]\n";

    #[test]
    fn usage_overrides_and_name_lookup() {
        let t = load_tree(&tree(TWO_BANKS, &[("y/u", 5.0)])).unwrap();
        let y = find(&t, "y/u").unwrap().unwrap();
        assert_eq!(t.node(y).raw_usage, 5.0);
        assert!(find(&t, "u").unwrap_err().contains("account/u"));
        assert_eq!(find(&t, "x").unwrap(), t.find_account("x"));
        assert_eq!(find(&t, "nobody").unwrap(), None);
        let e = load_tree(&tree(TWO_BANKS, &[("z/u", 1.0)])).unwrap_err();
        assert_eq!(e, "usage: no user `z/u` in the tree");
    }

    #[test]
    fn order_values_eligibility_and_missing_jobs() {
        let text = "[[order]]\nformula = \"ncpus\"\nthreshold = 1\njobs = [{ id = \"a\", user = \"u\", resources = { ncpus = 1 } }, { id = \"b\", user = \"u\", resources = { ncpus = 2 } }]\nexpect = { order = [\"b\", \"a\"], eligible = [\"b\"], values = { a = 1, b = 2 } }\n[[order]]\nformula = \"ncpus\"\njobs = [{ id = \"a\", user = \"u\" }]\nexpect = { before = [[\"a\", \"zz\"]] }\n[[order]]\nformula = \"ncpus\"\njobs = [{ id = \"a\", user = \"u\" }]\nexpect = { values = { a = 1 } }\n";
        let f = parse("t.toml", text).unwrap();
        let (r, _) = run_file(&f, &Context::with_formula("1"), false);
        let s: Vec<Status> = r.cases.iter().map(|c| c.status).collect();
        assert_eq!(s, vec![Status::Ok, Status::Failed, Status::Failed]);
        assert_eq!(
            r.cases[1].problem,
            Some(Problem::Constraints {
                violated: vec!["no job `zz` in the queue".into()]
            })
        );
        match &r.cases[2].problem {
            Some(Problem::Values { entries, .. }) => {
                assert_eq!(entries[0].name, "a");
                assert_eq!(entries[0].actual, Some(0.0));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn fair_share_keywords_without_a_tree_fail_clearly() {
        let text = "[[order]]\nformula = \"fairshare_factor\"\njobs = [{ id = \"a\", user = \"u\" }]\nexpect = [\"a\"]\n";
        let f = parse("t.toml", text).unwrap();
        let (r, _) = run_file(&f, &Context::with_formula("1"), false);
        match &r.cases[0].problem {
            Some(Problem::Error { message }) => assert!(!message.is_empty()),
            other => panic!("{other:?}"),
        }
    }
}
