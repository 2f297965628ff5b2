//! PBS concepts, each defined once, for every reader and command above: size and time units
//! (`res_to_num`), resource types and the built-in resources, the formula keywords, the
//! fair-share entity kinds, and PBS's error codes and messages.
//!
//! The lowest layer of the crate: nothing here uses another module of fairsort.

pub mod codes;
pub mod entity;
pub mod keywords;
pub mod resources;
pub mod threshold;
pub mod units;

pub use codes::Code;
pub use entity::FairshareEntity;
pub use keywords::Keyword;
pub use resources::{ResourceType, UnknownResourceType};
