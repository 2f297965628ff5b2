//! Formula unit tests (`fairsort test`): a TOML test-file format whose cases evaluate formulas,
//! order small queues, compute fair-share values or compare two formulas; a runner that checks
//! each case against its expectation; reports; `--record` (snapshot the current results into
//! the file); and the qmgr guard that refuses a formula failing a configured test file.
//!
//! Layout, lowest first: `case` (the model), `error`, `outcome` (results), `syntax` (what every
//! case kind reads alike), `setup` (a case's cluster → `Scenario`); one module per kind of
//! case, each parsing and running its own cases — `value` (`[[eval]]`: a value or an error),
//! `order`, `compare`, `share`; then `file` (a whole file), `runner` (a whole run), `record`
//! and `guard`.

pub mod case;
pub mod compare;
pub mod error;
pub mod file;
pub mod guard;
pub mod order;
pub mod outcome;
pub mod record;
pub mod runner;
pub mod setup;
pub mod share;
mod syntax;
pub mod value;
pub use case::{
    Case, CaseBody, CaseKind, CompareCase, CompareExpect, Context, EvalCase, EvalExpect,
    FormulaRef, OrderCase, OrderExpect, QueueSetup, ShareCase, TestFile, Tolerance, TreeDef,
    TreeOrigin,
};
pub use error::TestFileError;
pub use file::{load, parse};
pub use guard::{guard, GuardFailure};
pub use outcome::{CaseResult, FileResult, Problem, Status, Summary};
pub use runner::run_file;
pub use setup::load_tree;
