//! Executing parsed qmgr requests against a home: changes run inside `Home::update` (exclusive
//! lock, all-or-nothing, audited) after the manager check; `print`/`list` read a snapshot.

use crate::home::dir::Home;
use crate::home::engine;
use crate::home::error::{HomeError, Rejection};
use crate::home::permissions::{is_manager, unauthorized};
use crate::home::state::{
    check_object_name, resource_type_message, HomeState, Queue, ResourceDef, SchedAttrs,
    QUEUE_MODELLED, SCHED_MODELLED, SERVER_MODELLED,
};
use crate::pbs::defs::codes;
use crate::pbs::defs::codes::invalid_decay_factor;
use crate::pbs::defs::object_attributes;
use crate::pbs::defs::resources;
use crate::pbs::defs::resources::RESOURCE_FLAGS;
use crate::pbs::defs::units::decay_time;
use crate::pbs::defs::ResourceType;
use crate::qmgr::attrs;
use crate::qmgr::attrs::{canonical, parse_bool, Value};
use crate::qmgr::kept;
use crate::qmgr::kept::Kept;
use crate::qmgr::lexer::Op;
use crate::qmgr::parser::{AttrOp, Command, Object, Verb};
use crate::qmgr::print;
use std::collections::BTreeMap;

/// What a request produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// Text for standard output (print, list, help).
    Output(String),
    /// A change was applied (or was a no-op); nothing to print.
    Done,
    /// `quit`: stop reading the script.
    Quit,
}

/// Runs one parsed request as `user` on `host`; with `json`, `list`/`print` answer with a JSON
/// array of objects (see [`Block::to_json`]) instead of qmgr's text.
pub fn execute(
    home: &Home,
    user: &str,
    host: &str,
    cmd: &Command,
    text: &str,
    json: bool,
) -> Result<Reply, HomeError> {
    let Some(object) = cmd.object else {
        return Ok(match cmd.verb {
            Verb::Quit => Reply::Quit,
            _ => Reply::Output(HELP.to_string()),
        });
    };
    if cmd.verb.is_change() {
        // Permission before the lock: a refused user never waits for, nor holds, the writers'
        // lock (checked again under the lock, as the managers may have changed meanwhile).
        let managers = home.load()?.server.managers;
        if !is_manager(user, host, &managers) {
            return Err(unauthorized(&object_label(object, cmd), user, host, &managers).into());
        }
        home.update(user, text.trim(), |st| {
            if !is_manager(user, host, &st.server.managers) {
                let label = object_label(object, cmd);
                return Err(unauthorized(&label, user, host, &st.server.managers).into());
            }
            apply(st, object, cmd, host).map_err(HomeError::from)
        })?;
        Ok(Reply::Done)
    } else {
        let st = home.load()?;
        if json {
            let blocks = select(&st, cmd, host)?;
            let arr: Vec<serde_json::Value> = blocks.iter().map(Block::to_json).collect();
            let text = serde_json::to_string_pretty(&arr)
                .map_err(|e| HomeError::Tree(format!("JSON output: {e}")))?;
            return Ok(Reply::Output(format!("{text}\n")));
        }
        show(&st, object, cmd, host)
            .map(Reply::Output)
            .map_err(HomeError::from)
    }
}

/// Short help text for `help`.
pub const HELP: &str = "fairsort qmgr: commands are VERB OBJECT [NAME[,NAME]] [ATTR OP VALUE[,ATTR OP VALUE]]
  verbs:   create (c), delete (d), set (s), unset (u), list (l), print (p), help (h, ?), quit (q, exit)
  objects: server (s), sched, queue (q), resource (r)
  ops:     =  +=  -=   (values with spaces or commas must be quoted: \"...\" or '...')
  e.g.     set server job_sort_formula = \"pow(2, -(fairshare_tree_usage/fairshare_perc))\"
";

/// The `obj=` label qmgr shows: the names the request gave (empty for the server, and for the
/// scheduler when none was named, as real qmgr prints `obj= svr=default`).
fn object_label(object: Object, cmd: &Command) -> String {
    match object {
        Object::Server => String::new(),
        _ => cmd.names.join(","),
    }
}

/// Server/sched names: only `default` (or, for the server, this host's name) exist.
fn check_singleton(object: Object, cmd: &Command, host: &str) -> Result<(), Rejection> {
    for n in &cmd.names {
        let ok = n == "default" || (object == Object::Server && n.eq_ignore_ascii_case(host));
        if !ok {
            return Err(match object {
                Object::Sched => Rejection::pbs(codes::UNKSCHED, n),
                _ => Rejection::pbs(codes::NOSERVER, "")
                    .with_detail(format!("fairsort serves one server, `default` (or {host})")),
            });
        }
    }
    Ok(())
}

fn apply(st: &mut HomeState, object: Object, cmd: &Command, host: &str) -> Result<(), Rejection> {
    match object {
        Object::Server | Object::Sched => {
            check_singleton(object, cmd, host)?;
            match cmd.verb {
                Verb::Set | Verb::Unset => {
                    for a in &cmd.attrs {
                        if object == Object::Server {
                            server_attr(st, a)?;
                        } else {
                            sched_attr(st, a, &object_label(object, cmd))?;
                        }
                    }
                    Ok(())
                }
                // PBS's `mgr_sched_create`: the default scheduler always exists.
                Verb::Create if object == Object::Sched => {
                    Err(Rejection::pbs(codes::SCHEDEXIST, object_label(object, cmd)))
                }
                _ => Err(
                    Rejection::pbs(codes::IVALREQ, object_label(object, cmd)).with_detail(format!(
                        "the {} object cannot be created or deleted",
                        name_of(object)
                    )),
                ),
            }
        }
        Object::Queue => {
            for name in &cmd.names {
                queue(st, cmd, name)?;
            }
            Ok(())
        }
        Object::Resource => {
            for name in &cmd.names {
                resource(st, cmd, name)?;
            }
            revalidate_formulas(st, &cmd.names)
        }
    }
}

fn name_of(object: Object) -> &'static str {
    match object {
        Object::Server => "server",
        Object::Sched => "sched",
        Object::Queue => "queue",
        Object::Resource => "resource",
    }
}

fn bad_value(obj: &str, detail: impl Into<String>) -> Rejection {
    Rejection::pbs(codes::BADATVAL, obj).with_detail(detail)
}

/// The value of a `=` assignment; `+=`/`-=` are only for list attributes.
fn single<'a>(a: &'a AttrOp, obj: &str) -> Result<Option<&'a str>, Rejection> {
    match &a.value {
        None => Ok(None),
        Some((Op::Set, v)) => Ok(Some(v)),
        Some(_) => Err(bad_value(
            obj,
            format!("{} is not a list attribute: use =", a.name),
        )),
    }
}

/// PBS's 15226 rule (`validate_job_formula`, checked before the formula itself): the server's
/// and the scheduler's `job_sort_formula` must be the same text when the other one is set.
fn check_compatible(other: Option<&str>, new: &str, obj: &str) -> Result<(), Rejection> {
    match other {
        Some(o) if o != new => Err(
            Rejection::pbs(codes::SVR_SCHED_JSF_INCOMPAT, obj).with_detail(format!(
                "the other job_sort_formula is {o}; unset it or set the same"
            )),
        ),
        _ => Ok(()),
    }
}

/// Validates a `job_sort_formula` as PBS's server does. `""` (an empty Python string) is one
/// PBS's server accepts and fairsort stores as written, though no job can be sorted by it.
fn check_job_sort_formula(v: &str, st: &HomeState, obj: &str) -> Result<(), Rejection> {
    if engine::is_empty_string_formula(v) {
        return Ok(());
    }
    check_formula(v, st, obj)
}

/// Validates a formula with the formula engine; failures carry PBS's code and a caret.
fn check_formula(src: &str, st: &HomeState, obj: &str) -> Result<(), Rejection> {
    engine::check_formula(src, &st.resource_table())
        .map(|_| ())
        .map_err(|p| Rejection::new(p.code, obj, p.message).with_detail(p.detail))
}

/// A PBS attribute fairsort keeps but does not model ([`kept`]); 15002 when PBS has no
/// attribute of that name for the object either.
fn kept_attr(
    kept: Kept<'_>,
    resource_defs: &BTreeMap<String, ResourceDef>,
    a: &AttrOp,
    obj: &str,
) -> Result<(), Rejection> {
    let is_resource = |r: &str| resources::is_builtin(r) || resource_defs.contains_key(r);
    if kept::apply(kept, a, obj, is_resource)? {
        Ok(())
    } else {
        Err(Rejection::pbs(codes::NOATTR, obj))
    }
}

fn server_attr(st: &mut HomeState, a: &AttrOp) -> Result<(), Rejection> {
    let obj = "";
    let Some(name) = canonical(&a.name, &attrs::SERVER_ATTRS) else {
        let kept = Kept {
            defs: object_attributes::SERVER,
            modelled: SERVER_MODELLED,
            other: &mut st.server.other,
        };
        return kept_attr(kept, &st.resources, a, obj);
    };
    match name {
        // An empty value unsets, as PBS's server stores no empty string.
        "job_sort_formula" => match single(a, obj)?.filter(|v| !v.is_empty()) {
            Some(v) => {
                check_compatible(st.sched.job_sort_formula.as_deref(), v, obj)?;
                check_job_sort_formula(v, st, obj)?;
                // ftest: the opt-in guard — with job_sort_formula_tests set, the
                // formula must pass that test file before it is stored.
                if let Some(tests) = &st.server.job_sort_formula_tests {
                    crate::ftest::guard(std::path::Path::new(tests), v, &st.resource_table())
                        .map_err(|e| bad_value(obj, e.to_string()))?;
                }
                st.server.job_sort_formula = Some(v.to_string());
            }
            None => st.server.job_sort_formula = None,
        },
        "job_sort_formula_tests" => {
            st.server.job_sort_formula_tests = single(a, obj)?.map(str::to_string);
        }
        "replay_nodes" | "replay_cores_per_node" => {
            let range = if name == "replay_nodes" {
                &crate::home::state::REPLAY_NODES_RANGE
            } else {
                &crate::home::state::REPLAY_CORES_RANGE
            };
            let v = match single(a, obj)? {
                None => None,
                Some(v) => {
                    let n: u64 = v.trim().parse().map_err(|_| {
                        bad_value(obj, format!("{name}: {v} is not a positive integer"))
                    })?;
                    crate::home::state::check_replay_count(name, n, range)
                        .map_err(|m| bad_value(obj, m))?;
                    Some(n)
                }
            };
            if name == "replay_nodes" {
                st.server.replay_nodes = v;
            } else {
                st.server.replay_cores_per_node = v;
            }
        }
        "replay_mem_per_node" => {
            st.server.replay_mem_per_node = match single(a, obj)? {
                None => None,
                Some(v) => {
                    crate::home::state::replay_mem_kb(v).map_err(|m| bad_value(obj, m))?;
                    Some(v.trim().to_string())
                }
            };
        }
        _ => {
            // managers: a list of user@host patterns.
            let Some((op, v)) = &a.value else {
                st.server.managers.clear();
                return Ok(());
            };
            let items: Vec<String> = v
                .split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect();
            for i in &items {
                crate::home::permissions::check_pattern(i).map_err(|m| bad_value(obj, m))?;
            }
            let list = &mut st.server.managers;
            match op {
                Op::Set => *list = items,
                Op::Add => {
                    for i in items {
                        if !list.contains(&i) {
                            list.push(i);
                        }
                    }
                }
                Op::Remove => list.retain(|m| !items.contains(m)),
            }
        }
    }
    Ok(())
}

fn sched_attr(st: &mut HomeState, a: &AttrOp, obj: &str) -> Result<(), Rejection> {
    let Some(name) = canonical(&a.name, &attrs::SCHED_ATTRS) else {
        let kept = Kept {
            defs: object_attributes::SCHED,
            modelled: SCHED_MODELLED,
            other: &mut st.sched.other,
        };
        return kept_attr(kept, &st.resources, a, obj);
    };
    let value = single(a, obj)?;
    if name == "job_sort_formula" {
        return match value.filter(|v| !v.is_empty()) {
            None => {
                st.sched.job_sort_formula = None;
                Ok(())
            }
            Some(v) => {
                check_compatible(st.server.job_sort_formula.as_deref(), v, obj)?;
                check_job_sort_formula(v, st, obj)?;
                st.sched.job_sort_formula = Some(v.to_string());
                Ok(())
            }
        };
    }
    let d = SchedAttrs::default();
    let s = &mut st.sched;
    let Some(v) = value else {
        match name {
            "job_sort_formula_threshold" => s.job_sort_formula_threshold = None,
            "fair_share" => s.fair_share = d.fair_share,
            "fairshare_entity" => s.fairshare_entity = d.fairshare_entity,
            "fairshare_usage_res" => s.fairshare_usage_res = d.fairshare_usage_res,
            "fairshare_decay_time" => s.fairshare_decay_time = d.fairshare_decay_time,
            "fairshare_decay_factor" => s.fairshare_decay_factor = d.fairshare_decay_factor,
            "unknown_shares" => s.unknown_shares = d.unknown_shares,
            _ => s.fairshare_algorithm = d.fairshare_algorithm,
        }
        return Ok(());
    };
    match name {
        "job_sort_formula_threshold" => {
            // Stored as PBS stores it: a C float, as the scheduler reads it back.
            let t = crate::pbs::defs::threshold::parse(v).map_err(|m| bad_value(obj, m))?;
            s.job_sort_formula_threshold = Some(t);
        }
        "fair_share" => {
            s.fair_share = parse_bool(v)
                .ok_or_else(|| bad_value(obj, format!("fair_share: {v} is not True or False")))?;
        }
        "fairshare_entity" => {
            s.fairshare_entity = v.parse().map_err(|m: String| bad_value(obj, m))?
        }
        "fairshare_usage_res" => {
            check_formula(v, st, obj)?;
            st.sched.fairshare_usage_res = v.to_string();
        }
        "fairshare_decay_time" => {
            s.fairshare_decay_time = decay_time(v).map_err(|m| bad_value(obj, m))?;
        }
        "fairshare_decay_factor" => {
            let f: f64 = v
                .trim()
                .parse()
                .map_err(|_| bad_value(obj, "Invalid fairshare_decay_factor"))?;
            if !(f > 0.0 && f < 1.0) {
                return Err(bad_value(obj, invalid_decay_factor(f)));
            }
            s.fairshare_decay_factor = f;
        }
        "unknown_shares" => {
            s.unknown_shares = v.trim().parse().map_err(|_| {
                bad_value(
                    obj,
                    format!("unknown_shares: {v} is not a non-negative integer"),
                )
            })?;
        }
        _ => s.fairshare_algorithm = v.parse().map_err(|m: String| bad_value(obj, m))?,
    }
    Ok(())
}

fn queue(st: &mut HomeState, cmd: &Command, name: &str) -> Result<(), Rejection> {
    match cmd.verb {
        Verb::Create => {
            check_object_name(name)
                .map_err(|m| Rejection::pbs(codes::IVAL_OBJ_NAME, name).with_detail(m))?;
            if st.queues.contains_key(name) {
                return Err(Rejection::pbs(codes::QUEEXIST, name));
            }
            st.queues.insert(name.to_string(), Queue::default());
        }
        Verb::Delete => {
            st.queues
                .remove(name)
                .ok_or_else(|| Rejection::pbs(codes::UNKQUE, name))?;
            return Ok(());
        }
        _ => {}
    }
    let q = st
        .queues
        .get_mut(name)
        .ok_or_else(|| Rejection::pbs(codes::UNKQUE, name))?;
    for a in &cmd.attrs {
        let Some(attr) = canonical(&a.name, &attrs::QUEUE_ATTRS) else {
            let kept = Kept {
                defs: object_attributes::QUEUE,
                modelled: QUEUE_MODELLED,
                other: &mut q.other,
            };
            kept_attr(kept, &st.resources, a, name)?;
            continue;
        };
        let v = single(a, name)?;
        match attr {
            "Priority" => {
                q.priority = v
                    .map(|v| {
                        v.trim()
                            .parse::<i64>()
                            .ok()
                            .filter(|p| (-1024..=1023).contains(p))
                            .ok_or_else(|| {
                                bad_value(
                                    name,
                                    format!("Priority: {v} is not an integer from -1024 to 1023"),
                                )
                            })
                    })
                    .transpose()?
            }
            "queue_type" => {
                q.queue_type = v
                    .map(|v| match v.to_ascii_lowercase().as_str() {
                        "e" | "execution" => Ok("Execution".to_string()),
                        "r" | "route" => Ok("Route".to_string()),
                        _ => Err(bad_value(
                            name,
                            format!("queue_type: {v} is not Execution or Route"),
                        )),
                    })
                    .transpose()?
            }
            enabled_or_started => {
                let b = v
                    .map(|v| {
                        parse_bool(v).ok_or_else(|| {
                            bad_value(name, format!("{attr}: {v} is not True or False"))
                        })
                    })
                    .transpose()?;
                if enabled_or_started == "enabled" {
                    q.enabled = b;
                } else {
                    q.started = b;
                }
            }
        }
    }
    Ok(())
}

fn resource(st: &mut HomeState, cmd: &Command, name: &str) -> Result<(), Rejection> {
    match cmd.verb {
        Verb::Create => {
            check_object_name(name)
                .map_err(|m| Rejection::pbs(codes::IVAL_OBJ_NAME, name).with_detail(m))?;
            if st.resources.contains_key(name) || resources::is_builtin(name) {
                return Err(Rejection::pbs(codes::DUPLIST, name));
            }
            st.resources.insert(
                name.to_string(),
                ResourceDef {
                    kind: "long".to_string(),
                    flag: None,
                },
            );
        }
        Verb::Delete => {
            if resources::is_builtin(name) {
                return Err(Rejection::pbs(codes::IVALREQ, name)
                    .with_detail(format!("{name} is a built-in resource")));
            }
            st.resources
                .remove(name)
                .ok_or_else(|| Rejection::pbs(codes::UNKRESC, name))?;
            return Ok(());
        }
        _ => {
            if resources::is_builtin(name) {
                return Err(Rejection::pbs(codes::IVALREQ, name)
                    .with_detail(format!("{name} is a built-in resource")));
            }
        }
    }
    let r = st
        .resources
        .get_mut(name)
        .ok_or_else(|| Rejection::pbs(codes::UNKRESC, name))?;
    for a in &cmd.attrs {
        let attr = canonical(&a.name, &attrs::RESOURCE_ATTRS)
            .ok_or_else(|| Rejection::pbs(codes::NOATTR, name))?;
        let v = single(a, name)?;
        match (attr, v) {
            ("type", Some(v)) => {
                if v.parse::<ResourceType>().is_err() {
                    return Err(bad_value(name, resource_type_message(v)));
                }
                r.kind = v.to_string();
            }
            ("type", None) => return Err(bad_value(name, "a resource always has a type")),
            (_, Some(v)) => {
                if let Some(c) = v.chars().find(|c| !RESOURCE_FLAGS.contains(*c)) {
                    return Err(bad_value(
                        name,
                        format!("resource flag '{c}' is not one of {RESOURCE_FLAGS}"),
                    ));
                }
                r.flag = (!v.is_empty()).then(|| v.to_string());
            }
            (_, None) => r.flag = None,
        }
    }
    Ok(())
}

/// After a resource change the stored formulas must still validate, and may not be left
/// naming a changed resource as something a job would fail on (a deleted resource in a branch
/// PBS's validation does not reach); otherwise the change is refused.
fn revalidate_formulas(st: &HomeState, names: &[String]) -> Result<(), Rejection> {
    let obj = &names.join(",");
    let stored = [
        ("job_sort_formula", st.server.job_sort_formula.as_deref()),
        (
            "sched job_sort_formula",
            st.sched.job_sort_formula.as_deref(),
        ),
        (
            "fairshare_usage_res",
            Some(st.sched.fairshare_usage_res.as_str()),
        ),
    ];
    for (attr, formula) in stored {
        if let Some(f) = formula.filter(|f| !engine::is_empty_string_formula(f)) {
            if let Err(p) = engine::check_formula(f, &st.resource_table()) {
                return Err(Rejection::pbs(codes::RESCBUSY, obj).with_detail(format!(
                    "{attr} = {f} would no longer be valid ({}); change or unset it first",
                    p.message
                )));
            }
            if let Some(n) = engine::unreached_names(f, &st.resource_table())
                .into_iter()
                .find(|n| names.contains(n))
            {
                return Err(Rejection::pbs(codes::RESCBUSY, obj).with_detail(format!(
                    "{attr} = {f} uses {n}, which would no longer be a numeric resource; \
                     change or unset it first"
                )));
            }
        }
    }
    Ok(())
}

/// One object's attributes as `list` shows them (also the unit of `--json` output).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// `Server`, `Sched`, `Queue` or `Resource`.
    pub kind: &'static str,
    /// The object's name.
    pub name: String,
    /// Its attributes, in print order.
    pub values: attrs::Values,
}

impl Block {
    /// JSON form: `{"object": kind, "name": name, "attributes": {attr: "v" or ["v", ...]}}`.
    pub fn to_json(&self) -> serde_json::Value {
        let attrs: serde_json::Map<String, serde_json::Value> = self
            .values
            .iter()
            .map(|(n, v)| {
                let j = match v {
                    Value::Single(s) => serde_json::Value::String(s.clone()),
                    Value::List(items) => serde_json::Value::from(items.clone()),
                };
                (n.clone(), j)
            })
            .collect();
        serde_json::json!({"object": self.kind, "name": self.name, "attributes": attrs})
    }
}

/// The objects a `list`/`print` request selects, with its attribute filter applied.
pub fn select(st: &HomeState, cmd: &Command, host: &str) -> Result<Vec<Block>, Rejection> {
    let Some(object) = cmd.object else {
        return Ok(vec![]);
    };
    let filter: Vec<String> = cmd.attrs.iter().map(|a| a.name.clone()).collect();
    let known: &[&str] = match object {
        Object::Server => &attrs::SERVER_ATTRS,
        Object::Sched => &attrs::SCHED_ATTRS,
        Object::Queue => &attrs::QUEUE_ATTRS,
        Object::Resource => &attrs::RESOURCE_ATTRS,
    };
    if filter
        .iter()
        .any(|f| canonical(f, known).is_none() && !is_kept_name(object, f))
    {
        return Err(Rejection::pbs(codes::NOATTR, object_label(object, cmd)));
    }
    let block = |kind, name: &str, values| Block {
        kind,
        name: name.to_string(),
        values: print::filtered(values, &filter),
    };
    let wanted = |n: &str| cmd.names.is_empty() || cmd.names.iter().any(|x| x == n);
    match object {
        Object::Server => {
            check_singleton(object, cmd, host)?;
            Ok(vec![block(
                "Server",
                host,
                attrs::server_values(&st.server),
            )])
        }
        Object::Sched => {
            check_singleton(object, cmd, host)?;
            Ok(vec![block(
                "Sched",
                "default",
                attrs::sched_values(&st.sched),
            )])
        }
        Object::Queue => {
            if let Some(n) = cmd.names.iter().find(|n| !st.queues.contains_key(*n)) {
                return Err(Rejection::pbs(codes::UNKQUE, n));
            }
            Ok(st
                .queues
                .iter()
                .filter(|(n, _)| wanted(n))
                .map(|(n, q)| block("Queue", n, attrs::queue_values(q)))
                .collect())
        }
        Object::Resource => {
            if let Some(n) = cmd
                .names
                .iter()
                .find(|n| !st.resources.contains_key(*n) && !resources::is_builtin(n))
            {
                return Err(Rejection::pbs(codes::UNKRESC, n));
            }
            let mut out: Vec<Block> = (resources::BUILTIN_RESOURCES.iter())
                .filter(|(n, _)| wanted(n))
                .map(|(n, kind)| {
                    block(
                        "Resource",
                        n,
                        vec![("type".to_string(), Value::Single(kind.to_string()))],
                    )
                })
                .collect();
            out.extend(
                st.resources
                    .iter()
                    .filter(|(n, _)| wanted(n))
                    .map(|(n, def)| block("Resource", n, attrs::resource_values(def))),
            );
            Ok(out)
        }
    }
}

fn show(st: &HomeState, object: Object, cmd: &Command, host: &str) -> Result<String, Rejection> {
    let blocks = select(st, cmd, host)?;
    if cmd.verb == Verb::List {
        return Ok(blocks
            .iter()
            .map(|b| print::list_block(b.kind, &b.name, &b.values))
            .collect::<Vec<_>>()
            .join("\n"));
    }
    let filter: Vec<String> = cmd.attrs.iter().map(|a| a.name.clone()).collect();
    let mut out = String::new();
    match object {
        Object::Server => out = print::print_server(st, &filter),
        Object::Sched => out = print::print_sched(st, &filter),
        Object::Queue => print::print_queues(st, &cmd.names, &filter, &mut out),
        Object::Resource => print::print_resources(st, &cmd.names, &mut out),
    }
    Ok(out)
}

/// Whether `name` is a PBS attribute of `object` that fairsort keeps without modelling it.
pub(crate) fn is_kept_name(object: Object, name: &str) -> bool {
    match object {
        Object::Server => kept::is_kept_name(object_attributes::SERVER, SERVER_MODELLED, name),
        Object::Sched => kept::is_kept_name(object_attributes::SCHED, SCHED_MODELLED, name),
        Object::Queue => kept::is_kept_name(object_attributes::QUEUE, QUEUE_MODELLED, name),
        Object::Resource => false,
    }
}
