//! `PyErr`, a Python exception as `str(exception)`, apart so the number types (`value`,
//! `bigint`, `complex`) all name it without importing each other.

use std::borrow::Cow;

/// A Python exception, as `str(exception)`.
pub type PyErr = Cow<'static, str>;
