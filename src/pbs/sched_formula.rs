//! `sched_priv/sched_formula`, the file PBS's server writes for the scheduler when a
//! `job_sort_formula` is set: a header line, then the formula on one line. Read so that an admin
//! orders with the formula the scheduler really uses (`order --formula-file`).

use crate::files::text::{lines, utf8};
use crate::files::FormatError;

/// The header line the server writes first (OpenPBS `src/server/sched_func.c`).
pub const SCHED_FORMULA_HEADER: &str = "### PBS INTERNAL FILE DO NOT MODIFY ###";

/// The formula of a `sched_formula` file (`file` names it in errors): the one line that is not
/// the header, blank or a `#` comment. A file without one, or with two, is an error.
pub fn read_sched_formula(bytes: &[u8], file: &str) -> Result<String, FormatError> {
    let text = utf8(bytes, file)?;
    let mut formula: Option<(usize, &str)> = None;
    for line in lines(text, file) {
        let (n, line) = line?;
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if let Some((first, _)) = formula {
            return Err(FormatError::line(
                file,
                n,
                format!(
                    "a second formula line (the first is line {first}): sched_formula holds one"
                ),
            ));
        }
        formula = Some((n, t));
    }
    match formula {
        Some((_, f)) => Ok(f.to_string()),
        None => Err(FormatError::file(
            file,
            "no formula in it (a sched_formula file holds its header line, then the formula)",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_formula_after_the_header() {
        let text = format!("{SCHED_FORMULA_HEADER}\nncpus + (1 if \"a\" else 0)\n");
        assert_eq!(
            read_sched_formula(text.as_bytes(), "f").unwrap(),
            "ncpus + (1 if \"a\" else 0)"
        );
    }

    #[test]
    fn none_or_two_formulas_are_errors() {
        let e = read_sched_formula(SCHED_FORMULA_HEADER.as_bytes(), "f").unwrap_err();
        assert!(e.to_string().starts_with("f: no formula"), "{e}");
        let e = read_sched_formula(b"ncpus\n\nwalltime\n", "f").unwrap_err();
        assert!(
            e.to_string().starts_with("f:3: a second formula line"),
            "{e}"
        );
        assert!(read_sched_formula(b"\xff\n", "f").is_err());
    }
}
