//! PBS accounting logs (`date;E;jobid;key=value ...`): the one record reader (`reader`: lines,
//! records, quote-aware attributes) that `usage record` and `replay` both read logs with, the
//! charging of `E` records (`log`), and `usage record`'s parallel pass over large logs
//! (`record`, `span`, `chunks`).

mod attr_scan;
mod chunks;
pub mod log;
pub mod reader;
pub(crate) mod record;
pub(crate) mod span;
pub use log::{PbsLogReader, ReadStats};
pub use reader::{lines, AcctRecord, Line, LineText, RecordError, RecordReader};
