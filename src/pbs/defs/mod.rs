//! PBS concepts, each defined once: size and time units (`res_to_num`), resource types and the
//! built-in resources, the formula keywords, the fair-share entity kinds, PBS's error codes and
//! messages, and the threshold.
//!
//! The vocabulary of the `job_sort_formula` language, which is PBS's: the one part of the PBS
//! adapter that sits below the core (nothing here uses another module of fairsort).

pub mod codes;
pub mod entity;
pub mod keywords;
pub mod object_attributes;
pub mod qmgr_attributes;
pub mod resources;
pub mod threshold;
pub mod tree;
pub mod units;
pub use codes::Code;
pub use entity::FairshareEntity;
pub use keywords::Keyword;
pub use resources::{ResourceType, UnknownResourceType};
