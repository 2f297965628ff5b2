//! The lines of a Slurm configuration with its `Include` files' lines in their place, each
//! line knowing its file and 1-based number, as slurmctld reads them: an `Include PATH` is
//! followed relative to the including file's directory (an absolute path as it is), at most
//! [`MAX_INCLUDE_DEPTH`] deep, a cycle refused, [`MAX_CONF_BYTES`] in all.

use crate::files::FormatError;
use std::path::{Path, PathBuf};

/// Deepest chain of `Include` files followed (slurm.conf → a.conf → b.conf is 2).
pub const MAX_INCLUDE_DEPTH: usize = 16;
/// Most bytes a configuration and its included files may hold together (256 MiB).
pub const MAX_CONF_BYTES: usize = 256 << 20;

/// One line and where it comes from.
#[derive(Debug, Clone)]
pub struct ConfLine {
    /// Index into [`ConfSource::files`].
    pub file: usize,
    /// 1-based line number in that file.
    pub line: usize,
    /// The line as written.
    pub text: String,
}

/// A configuration's lines, `Include`s followed.
#[derive(Debug, Clone, Default)]
pub struct ConfSource {
    /// The files' names as errors give them (the first is the configuration itself).
    pub files: Vec<String>,
    /// Every line, in the order slurmctld reads them.
    pub lines: Vec<ConfLine>,
}

/// The path an `Include` line names, if the line is one (`Include /etc/slurm/nodes.conf`).
pub(crate) fn include_target(line: &str) -> Option<&str> {
    let t = line.split('#').next().unwrap_or("").trim();
    let (word, rest) = t.split_once(char::is_whitespace).unwrap_or((t, ""));
    word.eq_ignore_ascii_case("include").then(|| rest.trim())
}

impl ConfSource {
    /// `text`, read from `file` (a path: the directory `Include`s are found in).
    pub(crate) fn load(text: &str, file: &str) -> Result<ConfSource, FormatError> {
        let mut src = ConfSource::default();
        let mut stack = Vec::new();
        if let Ok(p) = std::fs::canonicalize(file) {
            stack.push(p);
        }
        let mut bytes = text.len();
        if bytes > MAX_CONF_BYTES {
            return Err(FormatError::file(
                file,
                format!("more than {MAX_CONF_BYTES} bytes of configuration"),
            ));
        }
        src.add(text, file, &mut stack, &mut bytes)?;
        Ok(src)
    }

    fn add(
        &mut self,
        text: &str,
        file: &str,
        stack: &mut Vec<PathBuf>,
        bytes: &mut usize,
    ) -> Result<(), FormatError> {
        let idx = self.files.len();
        self.files.push(file.to_string());
        let dir = Path::new(file).parent().unwrap_or(Path::new(""));
        let mut continued = false;
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let target = if continued { None } else { include_target(raw) };
            continued = raw
                .split('#')
                .next()
                .unwrap_or("")
                .trim_end()
                .ends_with('\\');
            let Some(target) = target else {
                self.lines.push(ConfLine {
                    file: idx,
                    line,
                    text: raw.to_string(),
                });
                continue;
            };
            let err = |m: String| FormatError::line(file, line, format!("Include {target}: {m}"));
            if target.is_empty() {
                return Err(FormatError::line(file, line, "Include without a file"));
            }
            if stack.len() > MAX_INCLUDE_DEPTH {
                return Err(err(format!(
                    "more than {MAX_INCLUDE_DEPTH} Include files deep"
                )));
            }
            let path = if Path::new(target).is_absolute() {
                PathBuf::from(target)
            } else {
                dir.join(target)
            };
            let shown = path.display().to_string();
            let canonical = std::fs::canonicalize(&path)
                .map_err(|e| err(format!("not found ({shown}: {e})")))?;
            if stack.contains(&canonical) {
                return Err(err(format!("{shown} includes itself (a cycle)")));
            }
            let included = std::fs::read(&path).map_err(|e| err(format!("{shown}: {e}")))?;
            *bytes = bytes.saturating_add(included.len());
            if *bytes > MAX_CONF_BYTES {
                return Err(err(format!(
                    "the configuration and its Include files pass {MAX_CONF_BYTES} bytes"
                )));
            }
            let included =
                String::from_utf8(included).map_err(|_| err(format!("{shown}: not UTF-8 text")))?;
            stack.push(canonical);
            self.add(&included, &shown, stack, bytes)?;
            stack.pop();
        }
        Ok(())
    }

    /// The whole configuration as one text, each `Include` replaced by its file's lines (what
    /// `fairsort slurm import` stores).
    pub(crate) fn flattened(&self) -> String {
        let mut out = String::new();
        for l in &self.lines {
            out.push_str(&l.text);
            out.push('\n');
        }
        out
    }
}
