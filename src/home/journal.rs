//! Committing a change together with its audit record: both or neither, even if the process is
//! killed at any instant or the audit log cannot be written. Called with the writers' lock held.
//!
//! 1. the new file is written to a temporary (unpredictable name) and synced;
//! 2. `audit.pending` (mode 0600) records, atomically: the audit log's length, the target, the
//!    temporary and its inode, and the audit line;
//! 3. the audit line is appended to `audit.log` and synced: if that fails, the log is cut back
//!    and nothing is applied;
//! 4. the temporary is renamed over the target: the commit point;
//! 5. `audit.pending` is removed.
//!
//! The next writer (before its own change, under the lock) finishes an interrupted one: the
//! change was committed exactly when the target now has the recorded inode; then the audit log
//! must end with the line (it is rewritten at the recorded length if not), else the log is cut
//! back to the recorded length and the temporary removed. A change that only writes outside the
//! home (an export) has no target: its line is kept once it is whole.

use crate::home::error::HomeError;
use crate::home::fsio::{modes, HomeDir};
use std::io::Write;

/// The intent record's name.
pub const PENDING: &str = "audit.pending";
/// The audit log's name.
pub const AUDIT: &str = "audit.log";

const MAGIC: &str = "fairsort audit.pending 1";

/// An intent record.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Pending {
    audit_len: u64,
    /// (target name, temporary name, dev, ino).
    target: Option<(String, String, u64, u64)>,
    /// More targets, renamed after the first (same fields).
    also: Vec<(String, String, u64, u64)>,
    /// Files removed after the targets: (name, dev, ino of the file removed).
    removes: Vec<(String, u64, u64)>,
    line: String,
}

/// One file of a change: replaced with new contents (mode of a new file), or removed.
#[derive(Debug, Clone, Copy)]
pub enum Op<'a> {
    /// `name` replaced with these bytes (a new file gets the mode).
    Write(&'a str, &'a [u8], u32),
    /// `name` removed (nothing if it does not exist).
    Remove(&'a str),
}

/// A name the intent record can hold (one word, no directory).
fn plain(name: &str) -> bool {
    !name.is_empty() && !name.contains(['/', ' ', '\n'])
}

impl Pending {
    fn render(&self) -> String {
        let mut s = format!("{MAGIC}\naudit_len {}\n", self.audit_len);
        if let Some((name, temp, dev, ino)) = &self.target {
            s.push_str(&format!("target {name} {temp} {dev} {ino}\n"));
        }
        for (name, temp, dev, ino) in &self.also {
            s.push_str(&format!("also {name} {temp} {dev} {ino}\n"));
        }
        for (name, dev, ino) in &self.removes {
            s.push_str(&format!("remove {name} {dev} {ino}\n"));
        }
        s.push_str("line ");
        s.push_str(self.line.trim_end_matches('\n'));
        s.push('\n');
        s
    }

    fn parse(text: &str) -> Option<Pending> {
        let mut lines = text.lines();
        if lines.next()? != MAGIC {
            return None;
        }
        let audit_len = lines.next()?.strip_prefix("audit_len ")?.parse().ok()?;
        let staged = |t: &str| -> Option<(String, String, u64, u64)> {
            let f: Vec<&str> = t.split(' ').collect();
            if f.len() != 4 || f[0].contains('/') || f[1].contains('/') {
                return None;
            }
            Some((
                f[0].to_string(),
                f[1].to_string(),
                f[2].parse().ok()?,
                f[3].parse().ok()?,
            ))
        };
        let mut target = None;
        let mut also = Vec::new();
        let mut removes = Vec::new();
        let mut rest = lines.next()?;
        if let Some(t) = rest.strip_prefix("target ") {
            target = Some(staged(t)?);
            rest = lines.next()?;
        }
        while let Some(t) = rest.strip_prefix("also ") {
            also.push(staged(t)?);
            rest = lines.next()?;
        }
        while let Some(t) = rest.strip_prefix("remove ") {
            let f: Vec<&str> = t.split(' ').collect();
            if f.len() != 3 || f[0].contains('/') {
                return None;
            }
            removes.push((f[0].to_string(), f[1].parse().ok()?, f[2].parse().ok()?));
            rest = lines.next()?;
        }
        let line = format!("{}\n", rest.strip_prefix("line ")?);
        Some(Pending {
            audit_len,
            target,
            also,
            removes,
            line,
        })
    }
}

/// Applies one change: `target` (file name, new contents, mode of a new file) replaced and
/// `line` appended to the audit log, both or neither. With no target only the line is written.
pub fn commit(
    dir: &HomeDir,
    target: Option<(&str, &[u8], u32)>,
    line: &str,
) -> Result<(), HomeError> {
    match target {
        Some((name, bytes, mode)) => commit_all(dir, &[Op::Write(name, bytes, mode)], line),
        None => commit_all(dir, &[], line),
    }
}

/// Applies one change of several files (`ops`, in order: writes first, then removals) with
/// `line` appended to the audit log: all or nothing (see the module's documentation).
pub fn commit_all(dir: &HomeDir, ops: &[Op<'_>], line: &str) -> Result<(), HomeError> {
    let mut staged: Vec<(&str, crate::files::atomic::Staged)> = Vec::new();
    let discard = |staged: &[(&str, crate::files::atomic::Staged)]| {
        for (_, s) in staged {
            crate::files::atomic::discard_at(dir.fd(), s);
        }
    };
    let mut removes: Vec<(&str, u64, u64)> = Vec::new();
    for op in ops {
        let name = match op {
            Op::Write(name, _, _) | Op::Remove(name) => *name,
        };
        if !plain(name) {
            discard(&staged);
            return Err(HomeError::io(
                dir.file(name),
                std::io::Error::other("not a file name of the home"),
            ));
        }
        let step = match op {
            Op::Write(name, bytes, mode) => dir.stage(name, bytes, *mode).map(|s| {
                staged.push((name, s));
            }),
            // A file that is not there needs no removal.
            Op::Remove(name) => dir.identity(name).map(|id| {
                if let Some((dev, ino)) = id {
                    removes.push((name, dev, ino));
                }
            }),
        };
        if let Err(e) = step {
            discard(&staged);
            return Err(e);
        }
    }
    let mut audit = match dir.open_append(AUDIT, modes::AUDIT) {
        Ok(f) => f,
        Err(e) => {
            discard(&staged);
            return Err(e);
        }
    };
    let audit_len = match audit.metadata() {
        Ok(m) => m.len(),
        Err(e) => {
            discard(&staged);
            return Err(HomeError::io(dir.file(AUDIT), e));
        }
    };
    let record = |(name, s): &(&str, crate::files::atomic::Staged)| {
        (name.to_string(), s.temp.clone(), s.dev, s.ino)
    };
    let pending = Pending {
        audit_len,
        target: staged.first().map(record),
        also: staged.iter().skip(1).map(record).collect(),
        removes: removes
            .iter()
            .map(|(n, dev, ino)| (n.to_string(), *dev, *ino))
            .collect(),
        line: line.to_string(),
    };
    if let Err(e) = dir.write(PENDING, pending.render().as_bytes(), modes::PRIVATE) {
        discard(&staged);
        return Err(e);
    }
    let undo = |audit: &std::fs::File| {
        let _ = audit.set_len(audit_len);
        let _ = audit.sync_data();
        let _ = dir.remove(PENDING);
        dir.sync();
    };
    if let Err(e) = audit
        .write_all(line.as_bytes())
        .and_then(|()| audit.sync_data())
    {
        discard(&staged);
        undo(&audit);
        return Err(HomeError::io(dir.file(AUDIT), e));
    }
    let mut staged = staged.into_iter();
    // The commit point: the first target renamed in place, or else the first file removed.
    match staged.next() {
        Some((name, s)) => {
            if let Err(e) = dir.commit(s, name) {
                let rest: Vec<_> = staged.collect();
                discard(&rest);
                undo(&audit);
                return Err(e);
            }
        }
        None => {
            if let Some((name, _, _)) = removes.first() {
                if let Err(e) = dir.remove(name) {
                    undo(&audit);
                    return Err(e);
                }
            }
        }
    }
    // Committed: what follows is rolled forward by the next writer if this one dies.
    for (name, s) in staged {
        dir.commit(s, name)?;
    }
    for (name, _, _) in &removes {
        dir.remove(name)?;
    }
    // No directory sync for this removal: if it is lost in a power cut, the next writer finds
    // the record, sees the target has the new inode and keeps the line (one fsync saved).
    dir.remove(PENDING)?;
    Ok(())
}

/// Finishes a change interrupted by a crash (see the module's documentation); true if there was
/// one. Called with the writers' lock held, before any change. `files`: every file the home
/// holds, whose leftover temporaries are swept.
pub fn recover(dir: &HomeDir, files: &[&str]) -> Result<bool, HomeError> {
    let done = finish_pending(dir)?;
    // A writer killed before its intent record was written leaves only a temporary.
    dir.sweep_temporaries(files)?;
    Ok(done)
}

fn finish_pending(dir: &HomeDir) -> Result<bool, HomeError> {
    let Some((text, _)) = dir.read(PENDING)? else {
        return Ok(false);
    };
    let p = Pending::parse(&text).ok_or_else(|| HomeError::Corrupt {
        path: dir.file(PENDING),
        line: 1,
        column: 1,
        message: "not an intent record of fairsort (remove it only after checking audit.log)"
            .into(),
    })?;
    let audit = dir.open_append(AUDIT, modes::AUDIT)?;
    let audit_err = |e| HomeError::io(dir.file(AUDIT), e);
    let len = audit.metadata().map_err(audit_err)?.len();
    let line_len = p.line.len() as u64;
    // What follows the recorded length must be this change's line or a start of it: anything
    // else is history written after the record (a stale or restored intent record), which
    // recovery must never cut.
    let tail_is_ours = (p.audit_len..=p.audit_len + line_len).contains(&len) && {
        let mut buf = vec![0u8; (len - p.audit_len) as usize];
        rustix::io::pread(&audit, &mut buf, p.audit_len).ok() == Some(buf.len())
            && p.line.as_bytes().starts_with(&buf)
    };
    if !tail_is_ours {
        return Err(HomeError::Corrupt {
            path: dir.file(PENDING),
            line: 1,
            column: 1,
            message: format!(
                "a stale intent record: audit.log is {len} bytes, the record expects {} plus its \
                 own line; nothing was changed or cut. Check the end of audit.log (`fairsort \
                 audit`), then remove audit.pending",
                p.audit_len
            ),
        });
    }
    let whole = len == p.audit_len + line_len;
    let committed = match (&p.target, p.removes.first()) {
        (Some((name, _, dev, ino)), _) => dir.identity(name)? == Some((*dev, *ino)),
        (None, Some((name, dev, ino))) => whole && dir.identity(name)? != Some((*dev, *ino)),
        (None, None) => whole,
    };
    let temporary = |temp: &str| temp.starts_with('.') && temp.ends_with(".tmp");
    if committed {
        // Roll the rest of the change forward: the temporaries still there, the files still
        // there with the inode the change removes.
        for (name, temp, dev, ino) in &p.also {
            if temporary(temp) && dir.identity(temp)? == Some((*dev, *ino)) {
                rustix::fs::renameat(dir.fd(), temp.as_str(), dir.fd(), name.as_str())
                    .map_err(|e| HomeError::io(dir.file(name), e.into()))?;
            }
        }
        for (name, dev, ino) in &p.removes {
            if dir.identity(name)? == Some((*dev, *ino)) {
                dir.remove(name)?;
            }
        }
        if !whole {
            // Only a start of this change's own line is there: it is completed.
            audit.set_len(p.audit_len).map_err(audit_err)?;
            (&audit).write_all(p.line.as_bytes()).map_err(audit_err)?;
        }
    } else {
        if len > p.audit_len {
            // Only this change's own (whole or partial) line is cut.
            audit.set_len(p.audit_len).map_err(audit_err)?;
        }
        for (_, temp, _, _) in p.target.iter().chain(&p.also) {
            if temporary(temp) {
                dir.remove(temp)?;
            }
        }
    }
    audit.sync_data().map_err(audit_err)?;
    dir.remove(PENDING)?;
    dir.sync();
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(dir: &std::path::Path, name: &str) -> String {
        std::fs::read_to_string(dir.join(name)).unwrap_or_default()
    }

    #[test]
    fn pending_round_trip() {
        let p = Pending {
            audit_len: 12,
            target: Some(("server.toml".into(), ".server.toml.ab.tmp".into(), 3, 4)),
            also: vec![("site.toml".into(), ".site.toml.cd.tmp".into(), 3, 5)],
            removes: vec![("slurm.toml".into(), 3, 6)],
            line: "t\tu@h\tset server a = 1\n".into(),
        };
        assert_eq!(Pending::parse(&p.render()), Some(p.clone()));
        let q = Pending {
            target: None,
            also: Vec::new(),
            ..p
        };
        assert_eq!(Pending::parse(&q.render()), Some(q.clone()));
        let q = Pending {
            removes: Vec::new(),
            ..q
        };
        assert_eq!(Pending::parse(&q.render()), Some(q));
        assert_eq!(Pending::parse("junk"), None);
    }

    #[test]
    fn a_stale_intent_record_never_cuts_the_history_written_after_it() {
        let d = tempfile::tempdir().unwrap();
        let dir = HomeDir::open(d.path()).unwrap();
        commit(&dir, Some(("f", b"old", 0o644)), "l1\n").unwrap();
        let s = dir.stage("f", b"new", 0o644).unwrap();
        let p = Pending {
            audit_len: 3,
            target: Some(("f".into(), s.temp.clone(), s.dev, s.ino)),
            also: Vec::new(),
            removes: Vec::new(),
            line: "l2\n".into(),
        };
        let record = p.render();
        // Later changes were audited after the record was made (it was restored from a backup).
        for log in ["l1\nl2\nl3\nl4\n", "l1\nlX\n", "l1\nl2\nl", "l"] {
            dir.write(PENDING, record.as_bytes(), 0o600).unwrap();
            std::fs::write(d.path().join(AUDIT), log).unwrap();
            let e = recover(&dir, &crate::home::dir::files::ALL).unwrap_err();
            assert!(
                e.to_string()
                    .contains("audit.pending:1:1: a stale intent record"),
                "{e}"
            );
            assert_eq!(read(d.path(), AUDIT), log, "history kept");
            assert!(
                d.path().join(PENDING).exists(),
                "the record is left for the admin"
            );
        }
    }

    #[test]
    fn commit_writes_both_and_leaves_nothing_else() {
        let d = tempfile::tempdir().unwrap();
        let dir = HomeDir::open(d.path()).unwrap();
        commit(&dir, Some(("f", b"one", 0o644)), "l1\n").unwrap();
        commit(&dir, None, "l2\n").unwrap();
        assert_eq!(read(d.path(), "f"), "one");
        assert_eq!(read(d.path(), AUDIT), "l1\nl2\n");
        let mut names: Vec<_> = std::fs::read_dir(d.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["audit.log", "f"]);
        use std::os::unix::fs::PermissionsExt;
        let m = std::fs::metadata(d.path().join(AUDIT))
            .unwrap()
            .permissions();
        assert_eq!(m.mode() & 0o077, 0o040 & m.mode());
    }

    #[test]
    fn recovery_keeps_a_committed_change_and_drops_an_uncommitted_one() {
        let d = tempfile::tempdir().unwrap();
        let dir = HomeDir::open(d.path()).unwrap();
        commit(&dir, Some(("f", b"old", 0o644)), "l1\n").unwrap();
        // Crash after the audit append, before the rename: the line goes, the file stays.
        let s = dir.stage("f", b"new", 0o644).unwrap();
        let p = Pending {
            audit_len: 3,
            target: Some(("f".into(), s.temp.clone(), s.dev, s.ino)),
            also: Vec::new(),
            removes: Vec::new(),
            line: "l2\n".into(),
        };
        dir.write(PENDING, p.render().as_bytes(), 0o600).unwrap();
        std::fs::write(d.path().join(AUDIT), "l1\nl2\n").unwrap();
        assert!(recover(&dir, &crate::home::dir::files::ALL).unwrap());
        assert_eq!(read(d.path(), "f"), "old");
        assert_eq!(read(d.path(), AUDIT), "l1\n");
        assert!(!d.path().join(&s.temp).exists());
        // Crash after the rename, before the pending record is removed: both stay.
        let s = dir.stage("f", b"new", 0o644).unwrap();
        let p = Pending {
            audit_len: 3,
            target: Some(("f".into(), s.temp.clone(), s.dev, s.ino)),
            also: Vec::new(),
            removes: Vec::new(),
            line: "l2\n".into(),
        };
        dir.write(PENDING, p.render().as_bytes(), 0o600).unwrap();
        std::fs::write(d.path().join(AUDIT), "l1\nl").unwrap();
        dir.commit(s, "f").unwrap();
        assert!(recover(&dir, &crate::home::dir::files::ALL).unwrap());
        assert_eq!(read(d.path(), "f"), "new");
        assert_eq!(read(d.path(), AUDIT), "l1\nl2\n");
        assert!(!recover(&dir, &crate::home::dir::files::ALL).unwrap());
    }

    #[test]
    fn a_change_of_several_files_is_rolled_forward_once_its_first_file_is_in_place() {
        let d = tempfile::tempdir().unwrap();
        let dir = HomeDir::open(d.path()).unwrap();
        commit_all(
            &dir,
            &[
                Op::Write("a", b"a1", 0o644),
                Op::Write("b", b"b1", 0o644),
                Op::Write("c", b"c1", 0o644),
            ],
            "l1\n",
        )
        .unwrap();
        assert_eq!(
            (
                read(d.path(), "a"),
                read(d.path(), "b"),
                read(d.path(), "c")
            ),
            ("a1".into(), "b1".into(), "c1".into())
        );
        // Killed after the first rename: the second target and the removal are finished.
        let sa = dir.stage("a", b"a2", 0o644).unwrap();
        let sb = dir.stage("b", b"b2", 0o644).unwrap();
        let (dev, ino) = dir.identity("c").unwrap().unwrap();
        let p = Pending {
            audit_len: 3,
            target: Some(("a".into(), sa.temp.clone(), sa.dev, sa.ino)),
            also: vec![("b".into(), sb.temp.clone(), sb.dev, sb.ino)],
            removes: vec![("c".into(), dev, ino)],
            line: "l2\n".into(),
        };
        dir.write(PENDING, p.render().as_bytes(), 0o600).unwrap();
        std::fs::write(d.path().join(AUDIT), "l1\nl2\n").unwrap();
        dir.commit(sa, "a").unwrap();
        assert!(recover(&dir, &crate::home::dir::files::ALL).unwrap());
        assert_eq!(read(d.path(), "a"), "a2");
        assert_eq!(read(d.path(), "b"), "b2");
        assert!(!d.path().join("c").exists());
        assert!(!d.path().join(&sb.temp).exists());
        assert_eq!(read(d.path(), AUDIT), "l1\nl2\n");
        // Killed before the first rename: nothing changes, the temporaries go.
        let sa = dir.stage("a", b"a3", 0o644).unwrap();
        let sb = dir.stage("b", b"b3", 0o644).unwrap();
        let p = Pending {
            audit_len: 6,
            target: Some(("a".into(), sa.temp.clone(), sa.dev, sa.ino)),
            also: vec![("b".into(), sb.temp.clone(), sb.dev, sb.ino)],
            removes: Vec::new(),
            line: "l3\n".into(),
        };
        dir.write(PENDING, p.render().as_bytes(), 0o600).unwrap();
        std::fs::write(d.path().join(AUDIT), "l1\nl2\nl3\n").unwrap();
        assert!(recover(&dir, &crate::home::dir::files::ALL).unwrap());
        assert_eq!(
            (read(d.path(), "a"), read(d.path(), "b")),
            ("a2".into(), "b2".into())
        );
        assert!(!d.path().join(&sa.temp).exists() && !d.path().join(&sb.temp).exists());
        assert_eq!(read(d.path(), AUDIT), "l1\nl2\n");
        // A removal only: its first removal is the commit point.
        std::fs::write(d.path().join("c"), "c2").unwrap();
        commit_all(
            &dir,
            &[Op::Remove("c"), Op::Remove("b"), Op::Remove("none")],
            "l4\n",
        )
        .unwrap();
        assert!(!d.path().join("c").exists() && !d.path().join("b").exists());
        assert_eq!(read(d.path(), AUDIT), "l1\nl2\nl4\n");
    }
}
