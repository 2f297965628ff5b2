//! Memory machinery, apart from the domain code: files mapped or read into memory, huge pages
//! for large arrays, cache prefetches, byte-class masks of 64-byte blocks (SSE2, AVX2 or
//! AVX-512, chosen at run time), ASCII bytes as text, buffers reused in place, short strings
//! held in place, and the seeded hasher of the crate's tables. The crate's unsafe memory code
//! lives here, and only here (the crate root denies `unsafe` everywhere else but in the libm
//! bindings, `formula::float_math`).

pub(crate) mod ascii;
pub(crate) mod byte_masks;
pub mod hash;
pub(crate) mod huge_pages;
pub mod map;
pub mod prefetch;
pub mod read_file;
pub(crate) mod reuse;
pub(crate) mod short_str;
pub use map::Mapping;
pub use prefetch::{prefetch, prefetch_all};
pub use read_file::{read_file, FileBytes, Pages};
