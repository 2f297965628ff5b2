//! Readers of the files a PBS site already has, one per format: `qmgr -c 'print server'`,
//! `qmgr -c 'list sched'` / `'print sched'`, `sched_config`, `pbsfs` output, `holidays` (prime
//! time); and the mapping of what they say to the rules of pbs_sched's cycle (`rules`).

pub mod holidays;
pub mod pbsfs;
pub mod print_server;
pub mod qmgr_print;
pub mod rules;
pub mod sched_attrs;
pub mod sched_config;

pub use holidays::{read_holidays, Day, DayStarts, Holidays, HolidaysNote, Start};
pub use pbsfs::{read_any_usage, read_pbsfs, read_pbsfs_entity, PbsfsEntity, PbsfsRow, PbsfsTree};
pub use print_server::{read_print_server, QueuePrint, ResourceDef, ServerPrint};
pub use qmgr_print::{pbs_bool, AttrValue, Attrs, QmgrObject};
pub use rules::cycle_rules;
pub use sched_attrs::{default_sched, read_sched_attrs, PreemptPrio, SchedAttrs};
pub use sched_config::{
    read_sched_config, ConfigLine, ConfigNote, Period, PeriodOptions, SchedConfig,
};
