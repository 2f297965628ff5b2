//! The keywords a formula may use besides resources, and how PBS types their values.

/// PBS's job_sort_formula keywords (openpbs.md §1.2), bound per job by the scheduler.
pub const PBS_KEYWORDS: &[&str] = &[
    "eligible_time",
    "queue_priority",
    "job_priority",
    "fairshare_perc",
    "fair_share_perc",
    "fairshare_tree_usage",
    "fairshare_factor",
    "accrue_type",
];

/// fairsort's own keywords: the per-entity factors of the other fair-share algorithms.
pub const FAIRSORT_KEYWORDS: &[&str] = &[
    "fairtree_factor",
    "level_fs",
    "classic_factor",
    "depth_oblivious_factor",
    "ticket_factor",
    "flux_fairshare",
];

/// PBS prints these keywords with `%f`, so Python always sees a float; fairsort's fair-share
/// keywords are fractions too and are bound the same way. Every other keyword and resource is
/// printed with at most 4 decimals, so an integral value is a Python `int`.
const FLOAT_KEYWORDS: &[&str] = &[
    "fairshare_perc",
    "fair_share_perc",
    "fairshare_tree_usage",
    "fairshare_factor",
];

/// Whether `name` is a PBS or fairsort keyword.
pub fn is_keyword(name: &str) -> bool {
    PBS_KEYWORDS.contains(&name) || FAIRSORT_KEYWORDS.contains(&name)
}

/// Whether the keyword's value is always a Python float (see [`FLOAT_KEYWORDS`]).
pub fn is_float_keyword(name: &str) -> bool {
    FLOAT_KEYWORDS.contains(&name) || FAIRSORT_KEYWORDS.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typing() {
        assert!(is_float_keyword("fairshare_factor"));
        assert!(is_float_keyword("level_fs"));
        assert!(!is_float_keyword("queue_priority"));
        assert!(is_keyword("accrue_type"));
        assert!(!is_keyword("fair_share_factor"));
    }
}
