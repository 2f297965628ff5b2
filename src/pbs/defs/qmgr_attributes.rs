//! The attribute names real qmgr knows (OpenPBS 23.06's client-side tables,
//! `src/lib/Libpbs/ecl_{svr,node,queue,sched}_attr_def.c`): qmgr refuses any other name with
//! `qmgr: Syntax error` before asking the server, whatever object the request names.

/// Every server, node, queue and scheduler attribute name, sorted case-insensitively.
#[rustfmt::skip]
pub const QMGR_ATTRIBUTES: &[&str] = &[
    "acl_group_enable", "acl_groups", "acl_host_enable", "acl_host_moms_enable", "acl_hosts",
    "acl_krb_realm_enable", "acl_krb_realms", "acl_krb_submit_realms", "acl_resv_group_enable",
    "acl_resv_groups", "acl_resv_host_enable", "acl_resv_hosts", "acl_resv_user_enable",
    "acl_resv_users", "acl_roots", "acl_user_enable", "acl_users", "alt_router",
    "attr_update_period", "backfill_depth", "checkpoint_min", "clear_topjob_estimates_enable",
    "comment", "cred_renew_cache_period", "cred_renew_enable", "cred_renew_period",
    "cred_renew_tool", "current_aoe", "current_eoe", "default_chunk", "default_node",
    "default_qdel_arguments", "default_qsub_arguments", "default_queue", "do_not_span_psets",
    "eligible_time_enable", "enabled", "flatuid", "from_route_only", "has_runjob_hook", "hasnodes",
    "in_multivnode_host", "job_history_duration", "job_history_enable", "job_requeue_timeout",
    "job_run_wait", "job_sort_formula", "job_sort_formula_threshold", "jobs", "jobscript_max_size",
    "kill_delay", "last_state_change_time", "last_used_time", "license_count", "log_events",
    "mail_from", "mailer", "maintenance_jobs", "managers", "max_array_size",
    "max_concurrent_provision", "max_group_res", "max_group_res_soft", "max_group_run",
    "max_group_run_soft", "max_job_sequence_id", "max_queuable", "max_queued", "max_queued_res",
    "max_run", "max_run_res", "max_run_res_soft", "max_run_soft", "max_running", "max_user_res",
    "max_user_res_soft", "max_user_run", "max_user_run_soft", "Mom", "no_multinode_jobs",
    "no_tasks", "node_fail_requeue", "node_group_enable", "node_group_key", "node_pack", "ntype",
    "only_explicit_psets", "operators", "opt_backfill_fuzzy", "partition", "pbs_license_info",
    "pbs_license_linger_time", "pbs_license_max", "pbs_license_min", "pbs_version", "pcpus",
    "pnames", "Port", "power_provisioning", "poweroff_eligible", "preempt_order", "preempt_prio",
    "preempt_queue_prio", "preempt_sort", "preempt_targets_enable", "Priority", "provision_enable",
    "provision_timeout",
    "python_restart_max_hooks", "python_restart_max_objects", "python_restart_min_interval",
    "query_other_jobs", "queue", "queue_type", "queued_jobs_threshold",
    "queued_jobs_threshold_res", "rendezvous_retry", "require_cred", "require_cred_enable",
    "resend_term_delay", "reserve_retry_init", "reserve_retry_time", "reserved_expedite",
    "reserved_sync", "resources_assigned", "resources_available", "resources_cost",
    "resources_default", "resources_max", "resources_min",
    "restrict_res_to_release_on_suspend", "resv", "resv_enable",
    "resv_post_processing_time", "route_destinations", "route_held_jobs", "route_lifetime",
    "route_retry_time", "route_waiting_jobs", "rpp_highwater", "rpp_max_pkt_check", "rpp_retry",
    "sched_cycle_length", "sched_host", "sched_log", "sched_preempt_enforce_resumption",
    "sched_priv", "sched_user", "scheduler_iteration", "scheduling", "server_dyn_res_alarm",
    "server_host", "server_state", "sharing", "show_hidden_attribs", "started", "state",
    "state_count", "sync_mom_hookfiles_timeout", "system_cost", "throughput_mode", "total_jobs",
    "vnode_pool",
];

/// Whether real qmgr lets `name` through to the server: it starts with a known attribute name
/// followed by nothing or a `.` (`resources_default.ncpus`), any case, as `is_attr` matches.
pub fn is_qmgr_attribute(name: &str) -> bool {
    let base = name.split('.').next().unwrap_or(name);
    QMGR_ATTRIBUTES.iter().any(|a| a.eq_ignore_ascii_case(base))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_as_qmgr_matches_them() {
        for n in [
            "job_sort_formula",
            "Priority",
            "priority",
            "resources_default.ncpus",
            "managers",
            "preempt_prio",
        ] {
            assert!(is_qmgr_attribute(n), "{n}");
        }
        for n in [
            "no_such_attribute",
            "replay_nodes",
            "fairshare_usage_res",
            "",
        ] {
            assert!(!is_qmgr_attribute(n), "{n}");
        }
        let mut sorted = QMGR_ATTRIBUTES.to_vec();
        sorted.sort_by_key(|a| a.to_ascii_lowercase());
        assert_eq!(sorted, QMGR_ATTRIBUTES);
    }
}
