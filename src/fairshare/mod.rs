//! The fair-share engine: one share tree, many algorithms over it.

pub mod spec;
