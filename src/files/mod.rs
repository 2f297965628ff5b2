//! What every reader and writer of files shares: `FormatError` (one line naming the file and,
//! for text, the line), UTF-8 and line-length checks, lines read with a bound, the spot of a
//! value in a hand-edited TOML file, the line of each record of a JSON list, and all-or-nothing
//! writes.

pub mod atomic;
mod error;
pub mod json_lines;
pub mod lines;
pub(crate) mod text;
pub mod toml_spans;
pub use atomic::{write_atomic, write_atomic_with, WriteError};
pub use error::FormatError;
