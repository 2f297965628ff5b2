//! PBS accounting logs (`date;E;jobid;key=value ...`): the record reader, its attribute
//! splitter, and `usage record`'s parallel pass over large logs.

mod attr_scan;
mod chunks;
pub mod log;
pub mod reader;
pub(crate) mod record;
pub(crate) mod span;
pub use log::{PbsLogReader, ReadStats};
pub use reader::{lines, AcctRecord, Line, LineText, RecordError, RecordReader};
