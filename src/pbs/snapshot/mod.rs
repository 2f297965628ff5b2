//! Readers of a PBS site's live state, for a forecast: `pbsnodes -av -F json` (each vnode's
//! resources, what is assigned, its state) and `pbs_rstat -f` (advance reservations). The
//! running jobs themselves come from `qstat -f -F json` (`pbs::qstat`, with `stime`).

pub mod pbsnodes;
pub mod rstat;

pub use pbsnodes::{read_pbsnodes_json, Vnode};
pub use rstat::{read_pbs_rstat, Reservation};
