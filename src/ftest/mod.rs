//! Formula unit tests (`fairsort test`): a TOML test-file format whose cases evaluate formulas,
//! order small queues, compute fair-share values or compare two formulas; a runner that checks
//! each case against its expectation; reports; `--record` (snapshot the current results into
//! the file); and the qmgr guard that refuses a formula failing a configured test file.

pub mod case;
pub mod error;
pub mod file;
pub mod file_queue;
pub mod guard;
pub mod location;
pub mod outcome;
pub mod queue_case;
pub mod record;
pub mod run;
pub mod run_queue;

pub use case::{Case, CaseBody, CaseKind, EvalCase, EvalExpect, FormulaRef, TestFile, Tolerance};
pub use error::TestFileError;
pub use file::{load, parse};
pub use guard::{guard, GuardFailure};
pub use outcome::{CaseResult, FileResult, Problem, Status, Summary};
pub use queue_case::{
    CompareCase, CompareExpect, OrderCase, OrderExpect, QueueSetup, ShareCase, TreeDef, TreeOrigin,
};
pub use run::{run_file, Context};
pub use run_queue::load_tree;
