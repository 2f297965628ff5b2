//! The attributes each object has in PBS (OpenPBS 23.06's client tables, generated from
//! `src/lib/Libattr/master_{svr,sched,queue}_attr_def.xml` into
//! `src/lib/Libpbs/ecl_{svr,sched,que}_attr_def.c`), in PBS's definition order, which is the
//! order `qmgr print` shows them in, with whether a manager may set them.

/// How an attribute's value is shaped, as far as qmgr's language sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttrShape {
    /// One value (a string, time, size or a number PBS's client does not check).
    Text,
    /// A boolean, checked by PBS's client (`verify_datatype_bool`): `True`, `true`, `TRUE`,
    /// `t`, `T`, `1`, `y`, `Y` or the same for false; PBS stores and prints `True`/`False`.
    Bool,
    /// An integer, checked by PBS's client (`verify_datatype_long`): an optional sign, then
    /// digits; PBS stores and prints the number.
    Long,
    /// A list of strings or an access list (`=`, `+=`, `-=`; printed one entry a line).
    List,
    /// Resource values, named `ATTR.RESOURCE` (`resources_default.ncpus`).
    Resources,
    /// Entity limits (`max_run = [u:PBS_GENERIC=4]`); the `_res` ones also `ATTR.RESOURCE`.
    Entity,
}

/// One attribute of one kind of object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttrDef {
    /// PBS's spelling.
    pub name: &'static str,
    /// Whether a manager may set or unset it (`ATR_DFLAG_MGWR`); the others are read-only
    /// and PBS refuses them with 15003.
    pub writable: bool,
    /// The shape of its value.
    pub shape: AttrShape,
}

const fn a(name: &'static str, writable: bool, shape: AttrShape) -> AttrDef {
    AttrDef {
        name,
        writable,
        shape,
    }
}

use AttrShape::{Bool as B, Entity as E, List as L, Long as N, Resources as R, Text as T};

/// The server's attributes (`ecl_svr_attr_def`).
#[rustfmt::skip]
pub const SERVER: &[AttrDef] = &[
    a("server_state", false, T),
    a("server_host", false, T),
    a("scheduling", true, B),
    a("max_running", true, N),
    a("max_queued", true, E),
    a("max_queued_res", true, E),
    a("max_run", true, E),
    a("max_run_res", true, E),
    a("max_run_soft", true, E),
    a("max_run_res_soft", true, E),
    a("max_user_run", true, N),
    a("max_group_run", true, N),
    a("max_user_res", true, R),
    a("max_group_res", true, R),
    a("max_user_run_soft", true, N),
    a("max_group_run_soft", true, N),
    a("max_user_res_soft", true, R),
    a("max_group_res_soft", true, R),
    a("pnames", true, L),
    a("total_jobs", false, T),
    a("state_count", false, T),
    a("acl_host_enable", true, B),
    a("acl_hosts", true, L),
    a("acl_host_moms_enable", true, B),
    a("acl_resv_host_enable", true, B),
    a("acl_resv_hosts", true, L),
    a("acl_resv_group_enable", true, T),
    a("acl_resv_groups", true, L),
    a("acl_user_enable", true, B),
    a("acl_users", true, L),
    a("acl_resv_user_enable", true, B),
    a("acl_resv_users", true, L),
    a("acl_roots", true, L),
    a("managers", true, L),
    a("operators", true, L),
    a("default_queue", true, T),
    a("log_events", true, N),
    a("mailer", true, T),
    a("mail_from", true, T),
    a("query_other_jobs", true, B),
    a("resources_available", true, R),
    a("resources_default", true, R),
    a("default_chunk", true, R),
    a("resources_max", true, R),
    a("resources_assigned", false, R),
    a("resources_cost", true, R),
    a("system_cost", true, N),
    a("scheduler_iteration", true, N),
    a("comment", true, T),
    a("default_node", true, T),
    a("node_pack", true, B),
    a("flatuid", true, B),
    a("resv_enable", true, B),
    a("node_fail_requeue", true, N),
    a("max_array_size", true, N),
    a("resend_term_delay", true, N),
    a("require_cred_enable", true, B),
    a("require_cred", true, T),
    a("node_group_enable", true, B),
    a("node_group_key", true, L),
    a("default_qdel_arguments", true, T),
    a("default_qsub_arguments", true, T),
    a("rpp_retry", true, N),
    a("rpp_highwater", true, N),
    a("pbs_license_info", true, T),
    a("pbs_license_min", true, N),
    a("pbs_license_max", true, N),
    a("pbs_license_linger_time", true, N),
    a("license_count", false, T),
    a("pbs_version", false, T),
    a("job_sort_formula", true, T),
    a("eligible_time_enable", true, B),
    a("reserve_retry_time", true, N),
    a("reserve_retry_init", true, N),
    a("job_history_enable", true, B),
    a("job_history_duration", true, T),
    a("provision_enable", false, B),
    a("max_concurrent_provision", true, N),
    a("provision_timeout", false, T),
    a("resv_post_processing_time", true, T),
    a("backfill_depth", true, N),
    a("clear_topjob_estimates_enable", true, B),
    a("job_requeue_timeout", true, T),
    a("python_restart_max_hooks", true, N),
    a("python_restart_max_objects", true, N),
    a("python_restart_min_interval", true, T),
    a("queued_jobs_threshold", true, E),
    a("queued_jobs_threshold_res", true, E),
    a("jobscript_max_size", true, T),
    a("restrict_res_to_release_on_suspend", true, L),
    a("power_provisioning", false, T),
    a("show_hidden_attribs", true, B),
    a("sync_mom_hookfiles_timeout", true, N),
    a("rpp_max_pkt_check", true, N),
    a("max_job_sequence_id", true, N),
    a("has_runjob_hook", false, B),
    a("acl_krb_realm_enable", true, B),
    a("acl_krb_realms", true, L),
    a("acl_krb_submit_realms", true, L),
    a("cred_renew_enable", true, B),
    a("cred_renew_tool", true, T),
    a("cred_renew_period", true, T),
    a("cred_renew_cache_period", true, T),
];

/// A scheduler's attributes (`ecl_sched_attr_def`).
#[rustfmt::skip]
pub const SCHED: &[AttrDef] = &[
    a("sched_host", true, T),
    a("sched_cycle_length", true, T),
    a("do_not_span_psets", true, B),
    a("only_explicit_psets", true, B),
    a("sched_preempt_enforce_resumption", true, B),
    a("preempt_targets_enable", true, B),
    a("job_sort_formula_threshold", true, T),
    a("throughput_mode", true, B),
    a("job_run_wait", true, T),
    a("opt_backfill_fuzzy", true, T),
    a("partition", true, T),
    a("sched_priv", true, T),
    a("sched_log", true, T),
    a("scheduling", true, B),
    a("scheduler_iteration", true, N),
    a("sched_user", true, T),
    a("comment", true, T),
    a("state", false, T),
    a("preempt_queue_prio", true, T),
    a("preempt_prio", true, T),
    a("preempt_order", true, T),
    a("preempt_sort", true, T),
    a("log_events", true, N),
    a("job_sort_formula", true, T),
    a("server_dyn_res_alarm", true, N),
    a("attr_update_period", true, N),
];

/// A queue's attributes (`ecl_que_attr_def`).
#[rustfmt::skip]
pub const QUEUE: &[AttrDef] = &[
    a("queue_type", true, T),
    a("Priority", true, N),
    a("max_queuable", true, N),
    a("total_jobs", false, T),
    a("state_count", false, T),
    a("max_running", true, N),
    a("max_queued", true, E),
    a("max_queued_res", true, E),
    a("acl_host_enable", true, B),
    a("acl_hosts", true, L),
    a("acl_user_enable", true, B),
    a("acl_users", true, L),
    a("from_route_only", true, B),
    a("resources_max", true, R),
    a("resources_min", true, R),
    a("resources_default", true, R),
    a("require_cred_enable", true, B),
    a("require_cred", true, T),
    a("max_array_size", true, N),
    a("comment", true, T),
    a("acl_group_enable", true, B),
    a("acl_groups", true, L),
    a("checkpoint_min", true, N),
    a("rendezvous_retry", true, N),
    a("reserved_expedite", true, N),
    a("reserved_sync", true, N),
    a("default_chunk", true, R),
    a("resources_available", true, R),
    a("resources_assigned", false, R),
    a("kill_delay", true, N),
    a("max_user_run", true, N),
    a("max_group_run", true, N),
    a("max_run", true, E),
    a("max_run_res", true, E),
    a("max_run_soft", true, E),
    a("max_run_res_soft", true, E),
    a("hasnodes", false, T),
    a("max_user_res", true, R),
    a("max_group_res", true, R),
    a("max_user_run_soft", true, N),
    a("max_group_run_soft", true, N),
    a("max_user_res_soft", true, R),
    a("max_group_res_soft", true, R),
    a("node_group_key", true, L),
    a("backfill_depth", true, N),
    a("route_destinations", true, L),
    a("alt_router", true, B),
    a("route_held_jobs", true, B),
    a("route_waiting_jobs", true, B),
    a("route_retry_time", true, N),
    a("route_lifetime", true, N),
    a("enabled", true, B),
    a("started", true, B),
    a("queued_jobs_threshold", true, E),
    a("queued_jobs_threshold_res", true, E),
    a("partition", true, T),
];

/// The definition of `name` (any case) among `defs`; a `.RESOURCE` suffix names the attribute
/// before it.
pub fn find(defs: &'static [AttrDef], name: &str) -> Option<&'static AttrDef> {
    let base = name.split('.').next().unwrap_or(name);
    defs.iter().find(|d| d.name.eq_ignore_ascii_case(base))
}

/// `v` as PBS stores a value of `shape`, or None when PBS's client refuses it (15014).
pub fn normalize(shape: AttrShape, v: &str) -> Option<String> {
    match shape {
        AttrShape::Bool => match v {
            "True" | "TRUE" | "true" | "t" | "T" | "1" | "y" | "Y" => Some("True".into()),
            "False" | "FALSE" | "false" | "f" | "F" | "0" | "n" | "N" => Some("False".into()),
            _ => None,
        },
        AttrShape::Long => {
            let digits = v.strip_prefix(['+', '-']).unwrap_or(v);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            // strtol: out-of-range values saturate
            Some(match v.parse::<i64>() {
                Ok(n) => n.to_string(),
                Err(_) if v.starts_with('-') => i64::MIN.to_string(),
                Err(_) => i64::MAX.to_string(),
            })
        }
        _ => Some(v.to_string()),
    }
}

/// The position of `name`'s attribute in PBS's print order (after all others when unknown).
pub fn print_rank(defs: &[AttrDef], name: &str) -> usize {
    let base = name.split('.').next().unwrap_or(name);
    defs.iter()
        .position(|d| d.name.eq_ignore_ascii_case(base))
        .unwrap_or(defs.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_flags_as_pbs_defines_them() {
        assert_eq!(SERVER.len(), 103);
        assert_eq!(SCHED.len(), 26);
        assert_eq!(QUEUE.len(), 56);
        let d = find(SERVER, "resources_default.ncpus").unwrap();
        assert_eq!(
            (d.name, d.writable, d.shape),
            ("resources_default", true, R)
        );
        assert!(!find(SERVER, "pbs_version").unwrap().writable);
        assert!(!find(SERVER, "Resources_Assigned.ncpus").unwrap().writable);
        assert!(!find(SCHED, "state").unwrap().writable);
        assert!(find(SCHED, "sched_host").unwrap().writable);
        assert!(find(SCHED, "pbs_version").is_none());
        assert!(!find(QUEUE, "total_jobs").unwrap().writable);
        assert_eq!(find(QUEUE, "acl_users").unwrap().shape, L);
        assert!(find(QUEUE, "scheduling").is_none());
        assert_eq!(find(SERVER, "scheduling").unwrap().shape, B);
        assert_eq!(find(SERVER, "log_events").unwrap().shape, N);
        assert_eq!(find(SERVER, "max_job_sequence_id").unwrap().shape, N);
        assert_eq!(find(SCHED, "throughput_mode").unwrap().shape, B);
        assert_eq!(find(SCHED, "preempt_queue_prio").unwrap().shape, T);
        assert!(print_rank(SERVER, "scheduling") < print_rank(SERVER, "job_sort_formula"));
        assert_eq!(print_rank(SERVER, "nosuch"), SERVER.len());
    }

    #[test]
    fn values_as_pbs_decodes_them() {
        assert_eq!(normalize(B, "y").as_deref(), Some("True"));
        assert_eq!(normalize(B, "FALSE").as_deref(), Some("False"));
        assert_eq!(normalize(B, "yes"), None);
        assert_eq!(normalize(B, "3"), None);
        assert_eq!(normalize(N, "+007").as_deref(), Some("7"));
        assert_eq!(normalize(N, "-5").as_deref(), Some("-5"));
        assert_eq!(
            normalize(N, "99999999999999999999").as_deref(),
            Some("9223372036854775807")
        );
        assert_eq!(normalize(N, "abc"), None);
        assert_eq!(normalize(N, "-"), None);
        assert_eq!(normalize(N, "1.5"), None);
        assert_eq!(normalize(T, "any thing").as_deref(), Some("any thing"));
    }

    #[test]
    fn every_name_is_one_qmgr_knows() {
        for d in SERVER.iter().chain(SCHED).chain(QUEUE) {
            assert!(
                crate::pbs::defs::qmgr_attributes::is_qmgr_attribute(d.name),
                "{}",
                d.name
            );
        }
    }
}
