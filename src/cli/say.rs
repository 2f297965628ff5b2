//! Lines for stderr that never panic: `eprintln!` panics when stderr is closed (`2>&1 | head`),
//! which would end a run after its work was done, or before a committed record was reported.
//! Every warning and note of the command line goes through [`line`] and [`Capped`].

use std::fmt;
use std::io::Write;

/// Writes one line on stderr; a closed or failing stderr is ignored (the run goes on).
pub fn line(text: impl fmt::Display) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{text}");
}

/// Prints `fairsort: warning: TEXT`.
pub fn warning(text: impl fmt::Display) {
    line(format_args!("fairsort: warning: {text}"));
}

/// How many lines of one kind of per-record warning are printed before the rest are counted.
pub const CAP: usize = 10;

/// Per-record warnings of one kind: the first [`CAP`] are printed, the rest counted and said in
/// one closing line (`… and 1,234 more like it`), so a bad file of a million records cannot flood
/// stderr.
#[derive(Debug)]
pub struct Capped {
    kind: &'static str,
    seen: usize,
}

impl Capped {
    /// A counter for warnings of `kind` (its words in the closing line).
    pub fn new(kind: &'static str) -> Self {
        Capped { kind, seen: 0 }
    }

    /// Prints `text` as a warning if fewer than [`CAP`] were printed, else counts it.
    pub fn warn(&mut self, text: impl fmt::Display) {
        if self.seen < CAP {
            warning(text);
        }
        self.seen += 1;
    }
}

impl Drop for Capped {
    fn drop(&mut self) {
        if self.seen > CAP {
            warning(format_args!(
                "… and {} more {} (not shown)",
                self.seen - CAP,
                self.kind
            ));
        }
    }
}

/// The one line a command that writes a file (`metrics -o`, `report -o`) prints when done: the
/// file, its size and the run's time, what a service's journal keeps of each run.
pub fn written(path: &std::path::Path, took: Option<std::time::Duration>) -> String {
    let bytes = std::fs::metadata(path).map_or(0, |m| m.len());
    match took {
        Some(t) => format!(
            "{}: {bytes} bytes written in {:.3} s",
            path.display(),
            t.as_secs_f64()
        ),
        None => format!("{}: {bytes} bytes written", path.display()),
    }
}
