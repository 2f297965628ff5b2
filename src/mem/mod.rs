//! Memory machinery, apart from the domain code: files mapped or read into memory, huge pages
//! for large arrays. The crate's unsafe memory code lives here.

pub(crate) mod huge_pages;
pub mod prefetch;
pub mod read_file;
pub use prefetch::{prefetch, prefetch_all};
pub use read_file::{read_file, FileBytes, Pages};
