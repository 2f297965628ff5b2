//! Writing a picture: an SVG to a file, or to standard output for `-` (`plot`, `replay`).

use super::{CliResult, Failure};

/// Writes the SVG to `path`, or to standard output for `-`.
pub(super) fn write(path: &std::path::Path, svg: &str) -> CliResult {
    if path.as_os_str() == "-" {
        crate::out!("{svg}");
        return Ok(());
    }
    std::fs::write(path, svg)
        .map_err(|e| Failure::user(format!("cannot write {}: {e}", path.display())))
}
