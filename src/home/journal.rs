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
    line: String,
}

impl Pending {
    fn render(&self) -> String {
        let mut s = format!("{MAGIC}\naudit_len {}\n", self.audit_len);
        if let Some((name, temp, dev, ino)) = &self.target {
            s.push_str(&format!("target {name} {temp} {dev} {ino}\n"));
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
        let mut target = None;
        let mut rest = lines.next()?;
        if let Some(t) = rest.strip_prefix("target ") {
            let f: Vec<&str> = t.split(' ').collect();
            if f.len() != 4 || f[0].contains('/') || f[1].contains('/') {
                return None;
            }
            target = Some((
                f[0].to_string(),
                f[1].to_string(),
                f[2].parse().ok()?,
                f[3].parse().ok()?,
            ));
            rest = lines.next()?;
        }
        let line = format!("{}\n", rest.strip_prefix("line ")?);
        Some(Pending {
            audit_len,
            target,
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
    let staged = match target {
        Some((name, bytes, mode)) => Some((name, dir.stage(name, bytes, mode)?)),
        None => None,
    };
    let discard = |staged: &Option<(&str, crate::files::atomic::Staged)>| {
        if let Some((_, s)) = staged {
            crate::files::atomic::discard_at(dir.fd(), s);
        }
    };
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
    let pending = Pending {
        audit_len,
        target: staged
            .as_ref()
            .map(|(name, s)| (name.to_string(), s.temp.clone(), s.dev, s.ino)),
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
    if let Some((name, s)) = staged {
        if let Err(e) = dir.commit(s, name) {
            undo(&audit);
            return Err(e);
        }
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
    let whole = len >= p.audit_len + line_len && {
        let mut buf = vec![0u8; p.line.len()];
        rustix::io::pread(&audit, &mut buf, p.audit_len).ok() == Some(buf.len())
            && buf == p.line.as_bytes()
    };
    let committed = match &p.target {
        Some((name, _, dev, ino)) => dir.identity(name)? == Some((*dev, *ino)),
        None => whole,
    };
    if committed {
        if !whole {
            audit.set_len(p.audit_len).map_err(audit_err)?;
            (&audit).write_all(p.line.as_bytes()).map_err(audit_err)?;
        } else if len > p.audit_len + line_len {
            audit.set_len(p.audit_len + line_len).map_err(audit_err)?;
        }
    } else {
        if len > p.audit_len {
            audit.set_len(p.audit_len).map_err(audit_err)?;
        }
        if let Some((_, temp, _, _)) = &p.target {
            if temp.starts_with('.') && temp.ends_with(".tmp") {
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
            line: "t\tu@h\tset server a = 1\n".into(),
        };
        assert_eq!(Pending::parse(&p.render()), Some(p.clone()));
        let q = Pending { target: None, ..p };
        assert_eq!(Pending::parse(&q.render()), Some(q));
        assert_eq!(Pending::parse("junk"), None);
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
}
