//! Slurm `sshare -a -l -P` / `-p` captures (slurm.md §6): the tree from the indentation of the
//! Account column, RawShares (including `parent`) and RawUsage, plus every printed value so tests
//! can compare the algorithms with a real capture.

use crate::fairshare::spec::{NodeKind, NodeSpec, Shares, TreeSource, TreeSpec};
use crate::files::text;
use crate::files::FormatError;
use crate::parallel::stages;
use crate::slurm::columns::PipeRows;

/// Label used in messages when no path is known.
pub const FILE: &str = "sshare";

/// One row of an sshare capture with the values it prints (`None` where sshare prints blank).
#[derive(Debug, Clone, PartialEq)]
pub struct SshareRow {
    /// 1-based line of the capture.
    pub line: usize,
    /// Depth from the Account column's leading spaces (root 0; a user row is one deeper than
    /// its account).
    pub depth: usize,
    /// Account name (for user rows, the user's account).
    pub account: String,
    /// User name; `None` on account rows.
    pub user: Option<String>,
    /// Partition of a per-partition user association.
    pub partition: Option<String>,
    /// RawShares (`None` for root).
    pub raw_shares: Option<Shares>,
    /// RawUsage.
    pub raw_usage: Option<f64>,
    /// NormShares.
    pub norm_shares: Option<f64>,
    /// NormUsage.
    pub norm_usage: Option<f64>,
    /// EffectvUsage.
    pub effective_usage: Option<f64>,
    /// FairShare.
    pub fairshare: Option<f64>,
    /// LevelFS (`inf` → +∞).
    pub level_fs: Option<f64>,
}

/// A printed double: blank → `None`, `inf`/`nan` as printed by `%f`. With `keep` false the
/// value is only checked (same errors) and `None` returned.
fn printed(
    fields: &[&str],
    col: Option<usize>,
    what: &str,
    line: usize,
    keep: bool,
) -> Result<Option<f64>, FormatError> {
    let Some(s) = col.and_then(|c| fields.get(c)).map(|s| s.trim()) else {
        return Ok(None);
    };
    if s.is_empty() {
        return Ok(None);
    }
    let bad = || FormatError::line(FILE, line, format!("{what} `{s}` is not a number"));
    if !keep {
        return if plain_decimal(s) || s.parse::<f64>().is_ok() {
            Ok(None)
        } else {
            Err(bad())
        };
    }
    s.parse::<f64>().map(Some).map_err(|_| bad())
}

/// `digits[.digits]`, what sshare prints with `%f`: always a valid `f64` for `str::parse`,
/// recognised without converting it.
fn plain_decimal(s: &str) -> bool {
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    !int.is_empty()
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.bytes().all(|b| b.is_ascii_digit())
}

/// One row of a capture as read, borrowing the text (a tree read keeps no row).
struct RowRef<'a> {
    line: usize,
    depth: usize,
    account: &'a str,
    user: Option<&'a str>,
    partition: Option<&'a str>,
    raw_shares: Option<Shares>,
    raw_usage: Option<f64>,
    printed: [Option<f64>; 5],
}

impl RowRef<'_> {
    fn owned(self) -> SshareRow {
        let [norm_shares, norm_usage, effective_usage, fairshare, level_fs] = self.printed;
        SshareRow {
            line: self.line,
            depth: self.depth,
            account: self.account.to_string(),
            user: self.user.map(str::to_string),
            partition: self.partition.map(str::to_string),
            raw_shares: self.raw_shares,
            raw_usage: self.raw_usage,
            norm_shares,
            norm_usage,
            effective_usage,
            fairshare,
            level_fs,
        }
    }
}

/// The columns a capture is read by.
struct Cols {
    acct: usize,
    user: usize,
    raw_shares: usize,
    raw_usage: usize,
    partition: Option<usize>,
    /// NormShares, NormUsage, EffectvUsage, FairShare, LevelFS.
    printed: [Option<usize>; 5],
}

impl Cols {
    fn of(rows: &PipeRows<'_>) -> Result<Cols, FormatError> {
        let need = |names: &[&str], label: &str| {
            rows.col(names).ok_or_else(|| {
                FormatError::line(
                    FILE,
                    1,
                    format!("the header has no {label} column (use sshare -a -l -P)"),
                )
            })
        };
        Ok(Cols {
            acct: need(&["account"], "Account")?,
            user: need(&["user"], "User")?,
            raw_shares: need(&["rawshares"], "RawShares")?,
            raw_usage: need(&["rawusage"], "RawUsage")?,
            partition: rows.col(&["partition"]),
            printed: [
                rows.col(&["normshares"]),
                rows.col(&["normusage"]),
                rows.col(&["effectvusage", "effectiveusage"]),
                rows.col(&["fairshare"]),
                rows.col(&["levelfs"]),
            ],
        })
    }
}

/// Names of the printed columns, in `Cols::printed` order, for messages.
const PRINTED: [&str; 5] = [
    "NormShares",
    "NormUsage",
    "EffectvUsage",
    "FairShare",
    "LevelFS",
];

/// One row; the printed values (NormShares … LevelFS) only when `printed_values` (building a
/// tree needs none of them, only checked; converting five floats per row was most of the work).
fn row_of<'a>(
    fields: &[&'a str],
    line: usize,
    c: &Cols,
    printed_values: bool,
) -> Result<RowRef<'a>, FormatError> {
    let get = |c: usize| fields.get(c).copied().unwrap_or("");
    let acct_raw = get(c.acct);
    let account = acct_raw.trim_start_matches(' ');
    let depth = acct_raw.len() - account.len();
    let account = account.trim_end();
    if account.is_empty() {
        return Err(FormatError::line(FILE, line, "empty Account"));
    }
    let user = Some(get(c.user).trim()).filter(|u| !u.is_empty());
    let partition = c
        .partition
        .map(get)
        .map(str::trim)
        .filter(|p| !p.is_empty());
    let rsh = get(c.raw_shares).trim();
    let raw_shares = if rsh.is_empty() {
        None
    } else {
        Some(text::parse_shares(rsh, "RawShares").map_err(|m| FormatError::line(FILE, line, m))?)
    };
    let ru = get(c.raw_usage).trim();
    let raw_usage = if ru.is_empty() {
        None
    } else {
        Some(text::parse_usage(ru, "RawUsage").map_err(|m| FormatError::line(FILE, line, m))?)
    };
    let mut values = [None; 5];
    for (i, v) in values.iter_mut().enumerate() {
        *v = printed(fields, c.printed[i], PRINTED[i], line, printed_values)?;
    }
    Ok(RowRef {
        line,
        depth,
        account,
        user,
        partition,
        raw_shares,
        raw_usage,
        printed: values,
    })
}

/// Every row of an `sshare -P`/`-p` capture with its printed values, in capture order.
/// Errors come as a reader of the whole table would give them: the first layout error (field
/// count, `-p` bar) of the file, else the first missing column or bad value.
pub fn parse_sshare_rows(text: &str) -> Result<Vec<SshareRow>, FormatError> {
    let mut rows = PipeRows::new(text, FILE)?;
    let cols = match Cols::of(&rows) {
        Ok(c) => c,
        Err(e) => return Err(rows.first_layout_error().unwrap_or(e)),
    };
    let mut out = Vec::new();
    while let Some(row) = rows.next_row() {
        let (line, fields) = row?;
        match row_of(fields, line, &cols, true) {
            Ok(r) => out.push(r.owned()),
            Err(e) => return Err(rows.first_layout_error().unwrap_or(e)),
        }
    }
    Ok(out)
}

/// The name a user association gets in the tree: the user, or `user@partition` for a
/// per-partition association (Slurm counts each as its own association).
pub fn association_name(user: &str, partition: Option<&str>) -> String {
    match partition {
        Some(p) => format!("{user}@{p}"),
        None => user.to_string(),
    }
}

/// Builds the share tree of an sshare capture: accounts nest by the indentation of the Account
/// column, a user row sits under the account it names (which must be the enclosing account one
/// level up), RawShares become shares (`parent` kept), RawUsage becomes usage on users and
/// accounts (Slurm accounts can hold usage of deleted children) and the root's RawUsage the
/// tree's `root_usage`.
///
/// A large capture is read in two stages at once ([`stages`]): this thread splits and checks
/// the rows, a pool thread adds them to the tree; the errors are those of one thread doing
/// both (see [`SpecBuilder`]).
pub fn parse_sshare(text: &str) -> Result<TreeSpec, FormatError> {
    parse_sshare_from(text, PIPELINE_MIN_BYTES)
}

/// [`parse_sshare`], in two stages from `pipeline_min` bytes of text up.
fn parse_sshare_from<'t>(text: &'t str, pipeline_min: usize) -> Result<TreeSpec, FormatError> {
    let mut rows = PipeRows::new(text, FILE)?;
    let cols = match Cols::of(&rows) {
        Ok(c) => c,
        Err(e) => return Err(rows.first_layout_error().unwrap_or(e)),
    };
    let mut builder = SpecBuilder::new(text::line_count_hint(text));
    let make = |buf: &mut Vec<RowRef<'t>>| {
        while buf.len() < stages::ROUND {
            let Some(row) = rows.next_row() else {
                return Ok(false);
            };
            let (line, fields) = row?;
            match row_of(fields, line, &cols, false) {
                Ok(r) => buf.push(r),
                Err(e) => return Err(rows.first_layout_error().unwrap_or(e)),
            }
        }
        Ok(true)
    };
    // The building stage never fails: a wrong shape is reported after every row was read.
    stages::run(text.len() >= pipeline_min, make, |row| {
        builder.add(row);
        Ok(())
    })?;
    builder.finish()
}

/// Captures from this size up are read in two stages at once ([`parse_sshare`]).
const PIPELINE_MIN_BYTES: usize = 1 << 20;

/// The tree of a capture as its rows come, in order. The first error of the tree's shape is
/// kept and reported once the whole file has been read, unless a row of it is unreadable (as
/// when every row was read before the tree was built).
struct SpecBuilder<'a> {
    spec: TreeSpec,
    /// `stack[d]` = the account at depth `d`.
    stack: Vec<&'a str>,
    seen_root: bool,
    shape_error: Option<FormatError>,
}

impl<'a> SpecBuilder<'a> {
    /// A builder for about `rows` rows.
    fn new(rows: usize) -> Self {
        SpecBuilder {
            spec: TreeSpec {
                source: TreeSource::Slurm,
                root_name: "root".to_string(),
                nodes: Vec::with_capacity(rows),
                ..TreeSpec::default()
            },
            stack: Vec::new(),
            seen_root: false,
            shape_error: None,
        }
    }

    /// Adds the next row (nothing once the shape is known to be wrong).
    fn add(&mut self, row: RowRef<'a>) {
        if self.shape_error.is_none() {
            if let Err(e) = add_row(&mut self.spec, &mut self.stack, &mut self.seen_root, row) {
                self.shape_error = Some(e);
            }
        }
    }

    /// The tree, or its first shape error.
    fn finish(self) -> Result<TreeSpec, FormatError> {
        if let Some(e) = self.shape_error {
            return Err(e);
        }
        if !self.seen_root {
            return Err(FormatError::file(
                FILE,
                "no root row (use sshare -a so the root is listed)",
            ));
        }
        Ok(self.spec)
    }
}

/// Adds one row to the tree being read: `stack[d]` is the account at depth `d`.
fn add_row<'a>(
    spec: &mut TreeSpec,
    stack: &mut Vec<&'a str>,
    seen_root: &mut bool,
    row: RowRef<'a>,
) -> Result<(), FormatError> {
    let line = row.line;
    let err = |m: String| FormatError::line(FILE, line, m);
    match row.user {
        None if row.depth == 0 => {
            if *seen_root {
                return Err(err(format!(
                    "a second top-level account `{}` (one cluster per capture; sshare -M one cluster)",
                    row.account
                )));
            }
            *seen_root = true;
            spec.root_name = row.account.to_string();
            spec.root_usage = row.raw_usage;
            stack.clear();
            stack.push(row.account);
        }
        None => {
            if row.depth > stack.len() {
                return Err(err(format!(
                    "account `{}` is indented {} levels but the enclosing account is at level {}",
                    row.account,
                    row.depth,
                    stack.len().saturating_sub(1)
                )));
            }
            stack.truncate(row.depth);
            let parent = stack
                .last()
                .filter(|_| row.depth > 1)
                .map(|p| p.to_string());
            if stack.is_empty() {
                return Err(err("account row before the root row".to_string()));
            }
            let shares = row
                .raw_shares
                .ok_or_else(|| err(format!("account `{}` has no RawShares", row.account)))?;
            let mut node = NodeSpec::new(row.account, parent, NodeKind::Account, shares);
            node.usage = row.raw_usage;
            node.line = Some(line);
            spec.nodes.push(node);
            stack.push(row.account);
        }
        Some(user) => {
            let enclosing = row.depth.checked_sub(1).and_then(|d| stack.get(d));
            if enclosing != Some(&row.account) {
                return Err(err(format!(
                    "user `{user}` of account `{}` is not indented one level below that account",
                    row.account
                )));
            }
            let shares = row
                .raw_shares
                .ok_or_else(|| err(format!("user `{user}` has no RawShares")))?;
            let name = association_name(user, row.partition);
            let parent = (row.depth > 1).then(|| row.account.to_string());
            let mut node = NodeSpec::new(name, parent, NodeKind::User, shares);
            node.usage = Some(row.raw_usage.unwrap_or(0.0));
            node.line = Some(line);
            spec.nodes.push(node);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{parse_sshare_from, plain_decimal};
    use crate::parallel::stages::ROUND as PIPELINE_CHUNK;

    /// A capture of `accounts` accounts of `users` users each, with `edit` applied to its lines.
    fn capture(accounts: usize, users: usize, edit: impl Fn(&mut Vec<String>)) -> String {
        let mut lines = vec![
            "Account|User|RawShares|NormShares|RawUsage|FairShare".to_string(),
            "root|||1.000000|1000|".to_string(),
        ];
        for a in 0..accounts {
            lines.push(format!(" a{a}||1|0.5|10|"));
            for u in 0..users {
                lines.push(format!("  a{a}|u{u}|2|0.25|{u}|0.5"));
            }
        }
        edit(&mut lines);
        lines.join("\n") + "\n"
    }

    /// The two-stage reader gives what one thread gives: the tree, or the same first error
    /// (a layout error anywhere beats a bad value or a wrong shape before it; a bad value
    /// beats a wrong shape before it), with the errors on either side of a chunk's edge.
    #[test]
    fn two_stages_read_as_one() {
        let n = 3 * PIPELINE_CHUNK;
        type Edit<'a> = Box<dyn Fn(&mut Vec<String>) + 'a>;
        let edits: Vec<Edit> = vec![
            Box::new(|_| {}),
            Box::new(move |l| l[PIPELINE_CHUNK + 7] = "  a1|u3|x|0.25|1|0.5".into()),
            Box::new(move |l| l[PIPELINE_CHUNK - 1] = "  a9|u3|2|0.25|1|0.5".into()),
            Box::new(move |l| {
                l[20] = "  a9|u3|2|0.25|1|0.5".into();
                l[n] = "  a1|u3|2|0.25|1".into();
            }),
            Box::new(move |l| {
                l[20] = "  a9|u3|2|0.25|1|0.5".into();
                l[n] = "  a1|u3|2|0.25|1|y".into();
            }),
            Box::new(move |l| {
                l[30] = "  a0|u3|2|zz|1|0.5".into();
                l[n + 1] = "  a1|u3|2|0.25|1".into();
            }),
            Box::new(move |l| l[2 * PIPELINE_CHUNK] = "other|||1.0|1|".into()),
            Box::new(move |l| l[PIPELINE_CHUNK] = "   a1||1|0.5|10|".into()),
            Box::new(move |l| {
                l.remove(1);
            }),
        ];
        for (i, edit) in edits.iter().enumerate() {
            let text = capture(4, n / 4, edit);
            let one = parse_sshare_from(&text, usize::MAX);
            let two = parse_sshare_from(&text, 0);
            assert_eq!(
                one.as_ref().map_err(ToString::to_string),
                two.as_ref().map_err(ToString::to_string),
                "edit {i}"
            );
            assert_eq!(one.is_ok(), i == 0, "edit {i}: {one:?}");
        }
    }

    #[test]
    fn plain_decimals_are_exactly_what_parse_accepts_in_that_shape() {
        for s in ["0", "1.", "0.001000", "123456789", "42.5"] {
            assert!(plain_decimal(s), "{s}");
            assert!(s.parse::<f64>().is_ok(), "{s}");
        }
        for s in ["", ".", ".5", "1.2.3", "-1", "1e3", "inf", "x"] {
            assert!(!plain_decimal(s), "{s}");
        }
    }
}
