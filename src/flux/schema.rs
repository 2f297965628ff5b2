//! flux-accounting's database schema as fairsort reads and writes it: every table and column
//! name and every SQL statement against it, in one place (flux.md §1.1–3). The readers
//! (`db`, `site`, `jobs_table`) and the usage writer run these statements and nothing else.

/// Associations: (username, bank) → userid, default_bank, shares, job_usage, fairshare, ...
pub const ASSOCIATION_TABLE: &str = "association_table";
/// Banks: bank, parent_bank, active, shares, job_usage, priority.
pub const BANK_TABLE: &str = "bank_table";
/// Queues: queue, priority.
pub const QUEUE_TABLE: &str = "queue_table";
/// The priority plugin's factor weights: factor, weight.
pub const PRIORITY_FACTOR_WEIGHT_TABLE: &str = "priority_factor_weight_table";
/// Settings: key, value (`node_weight`, `core_weight`, `gpu_weight`, `deny_unknown_queues`).
pub const CONFIG_TABLE: &str = "config_table";
/// Finished jobs: id, userid, t_submit, t_run, t_inactive, ranks, R, jobspec, project, bank.
pub const JOBS_TABLE: &str = "jobs";

/// The association columns the priority plugin cannot do without.
pub const SITE_ASSOCIATION_COLUMNS: [&str; 5] =
    ["username", "userid", "bank", "default_bank", "fairshare"];

/// The names of a database's tables.
pub const TABLES: &str = "SELECT name FROM sqlite_master WHERE type='table'";

/// The column names of table `?1`.
pub const TABLE_COLUMNS: &str = "SELECT name FROM pragma_table_info(?1)";

/// Whether the database has a `config_table` (a row when it has).
pub const HAS_CONFIG_TABLE: &str =
    "SELECT 1 FROM sqlite_master WHERE type='table' AND name='config_table'";

// ---- the bank/association tree (`db`) -------------------------------------------------------

/// The root bank: the first bank without a parent.
pub const ROOT_BANK: &str = "SELECT bank FROM bank_table WHERE parent_bank='' LIMIT 1";

/// The sub-banks of bank `?1`, in name order: bank, active, shares.
pub const SUB_BANKS: &str =
    "SELECT bank, active, shares FROM bank_table WHERE parent_bank=?1 ORDER BY bank";

/// Every association grouped by bank, users in name order: bank, username, shares, job_usage,
/// active.
pub const TREE_ASSOCIATIONS: &str = "SELECT bank, username, shares, job_usage, active \
     FROM association_table ORDER BY bank, username";

/// Sets an association's `job_usage`: ?1 usage, ?2 username, ?3 bank.
pub const SET_ASSOCIATION_USAGE: &str =
    "UPDATE association_table SET job_usage=?1 WHERE username=?2 AND bank=?3";

/// Sets a bank's `job_usage`: ?1 usage, ?2 bank.
pub const SET_BANK_USAGE: &str = "UPDATE bank_table SET job_usage=?1 WHERE bank=?2";

// ---- what the priority plugin holds (`site`) -------------------------------------------------

/// Every association as `flux account-priority-update` sends it (no ORDER BY, as the script:
/// table order decides which default_bank is last): username, userid, bank, default_bank,
/// fairshare, queues, active. A database without the `queues` or `active` column (`has_queues`,
/// `has_active` false) reads `''` and `1` in their place.
pub fn site_associations(has_queues: bool, has_active: bool) -> String {
    format!(
        "SELECT username, userid, bank, default_bank, fairshare, {}, {} FROM association_table",
        if has_queues { "queues" } else { "''" },
        if has_active { "active" } else { "1" }
    )
}

/// Every queue and its priority (`0` when the table has no `priority` column).
pub fn queue_priorities(has_priority: bool) -> String {
    format!(
        "SELECT queue, {} FROM queue_table",
        if has_priority { "priority" } else { "0" }
    )
}

/// Every bank's priority: bank, priority.
pub const BANK_PRIORITIES: &str = "SELECT bank, priority FROM bank_table";

/// The plugin's factor weights: factor, weight.
pub const FACTOR_WEIGHTS: &str = "SELECT factor, weight FROM priority_factor_weight_table";

/// `config_table`'s `deny_unknown_queues` value.
pub const DENY_UNKNOWN_QUEUES: &str =
    "SELECT value FROM config_table WHERE key='deny_unknown_queues'";

// ---- finished jobs (`jobs_table`) -------------------------------------------------------------

/// The charge weights and other settings: key, value.
pub const CONFIG_VALUES: &str = "SELECT key, value FROM config_table";

/// Each association's user name and default bank by userid (the first row of a userid wins):
/// userid, username, default_bank.
pub const JOB_USERS: &str = "SELECT userid, username, default_bank FROM association_table";

/// Every job, in the order `order_by` names (`t_inactive, id` or `t_submit, id`), its columns
/// at [`JobColumn`]'s positions.
pub fn jobs(order_by: &str) -> String {
    format!(
        "SELECT rowid, id, userid, t_run, t_inactive, R, bank, t_submit, jobspec FROM jobs \
         ORDER BY {order_by}"
    )
}

/// The columns of [`jobs`], by position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobColumn {
    /// SQLite's `rowid` (names the row in reports).
    RowId = 0,
    /// `id`, the flux job id.
    Id = 1,
    /// `userid`.
    UserId = 2,
    /// `t_run` (0: never ran).
    TRun = 3,
    /// `t_inactive`.
    TInactive = 4,
    /// `R`, the resource set (JSON).
    R = 5,
    /// `bank` (NULL or empty: the user's default bank).
    Bank = 6,
    /// `t_submit`.
    TSubmit = 7,
    /// `jobspec` (JSON).
    Jobspec = 8,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_statement_prepares_on_a_flux_accounting_schema() {
        let c = rusqlite::Connection::open_in_memory().unwrap();
        c.execute_batch(
            "CREATE TABLE association_table (username, userid, bank, default_bank, shares,
                 job_usage, fairshare, queues, active);
             CREATE TABLE bank_table (bank, parent_bank, active, shares, job_usage, priority);
             CREATE TABLE queue_table (queue, priority);
             CREATE TABLE priority_factor_weight_table (factor, weight);
             CREATE TABLE config_table (key, value);
             CREATE TABLE jobs (id, userid, t_submit, t_run, t_inactive, ranks, R, jobspec,
                 project, bank);",
        )
        .unwrap();
        let mut all: Vec<String> = [
            TABLES,
            TABLE_COLUMNS,
            HAS_CONFIG_TABLE,
            ROOT_BANK,
            SUB_BANKS,
            TREE_ASSOCIATIONS,
            SET_ASSOCIATION_USAGE,
            SET_BANK_USAGE,
            BANK_PRIORITIES,
            FACTOR_WEIGHTS,
            DENY_UNKNOWN_QUEUES,
            CONFIG_VALUES,
            JOB_USERS,
        ]
        .map(str::to_string)
        .to_vec();
        for (q, a) in [(false, false), (true, true)] {
            all.push(site_associations(q, a));
            all.push(queue_priorities(q));
        }
        all.push(jobs("t_inactive, id"));
        for sql in &all {
            assert!(c.prepare(sql).is_ok(), "{sql}");
        }
        let tables = [
            ASSOCIATION_TABLE,
            BANK_TABLE,
            QUEUE_TABLE,
            PRIORITY_FACTOR_WEIGHT_TABLE,
            CONFIG_TABLE,
            JOBS_TABLE,
        ];
        for t in tables {
            let n: i64 = c
                .query_row(
                    "SELECT count(*) FROM sqlite_master WHERE type='table' AND name=?1",
                    [t],
                    |r| r.get(0),
                )
                .unwrap();
            assert_eq!(n, 1, "{t}");
        }
        assert_eq!(JobColumn::Jobspec as usize, 8);
    }
}
