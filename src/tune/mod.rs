//! `fairsort tune`: the policy that meets a site's goals, found by replaying its own traces
//! (docs/tune.md). `space` and `template` say what is searched (a formula's parameters,
//! slurm.conf's weights, flux's factor weights, the half-life), `goals` what is wanted
//! (objectives and constraints over the replay's report), `eval` replays one point on every
//! trace, `search` walks the space (grid, Latin hypercube, Nelder–Mead), `pareto` draws the
//! trade-off of two goals, `change` writes the ready change and `array` runs the evaluations
//! as the site's own job array (plan, tasks, collect).

pub mod array;
pub mod change;
pub mod error;
pub mod eval;
pub mod goals;
pub mod pareto;
pub mod rng;
pub mod search;
pub mod space;
pub mod template;

pub use change::ready_change;
pub use error::TuneError;
pub use eval::{Case, Evaluation, Policy, Problem};
pub use goals::{Constraint, Goal, Measured, Metric};
pub use search::{search, Aim, Found, Method};
pub use space::{Param, Space};
pub use template::Template;
