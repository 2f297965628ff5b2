//! All-or-nothing file writes (temporary file, fsync, rename, fsync of the directory), for
//! every writer: the home's state files and the schedulers' files fairsort exports.
//!
//! Nothing here follows a symbolic link inside the directory written to: the directory is opened
//! once and every file is opened relative to that handle with `O_NOFOLLOW`; the temporary has an
//! unpredictable name and is created with `O_EXCL` (a planted file or link at that name makes the
//! creation fail and another name is drawn); the rename replaces a link at the target instead of
//! writing through it. A replaced file keeps its mode and, where the process may, its owner and
//! group. A write that fails at any step removes its temporary.

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use std::fs::File;
use std::io::Write;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};

/// A write that failed, with the file it failed on (the temporary or the target).
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}", path.display())]
pub struct WriteError {
    /// The file involved.
    pub path: PathBuf,
    /// The OS error.
    #[source]
    pub source: std::io::Error,
}

/// Replaces `path` with `contents` atomically: readers see the old or the new file, never a
/// mix, even if this process is killed at any moment. The directory part of `path` is taken as
/// given (an admin may keep a scheduler's directory behind a link); the file itself is never
/// followed: a link at `path` is replaced by the new file. A new file gets mode 0644; a replaced
/// one keeps its mode and owner.
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<(), WriteError> {
    let (dir_path, name) = split(path)?;
    let dir = open_dir(&dir_path).map_err(|source| WriteError {
        path: dir_path.clone(),
        source,
    })?;
    let at = |source| WriteError {
        path: path.to_path_buf(),
        source,
    };
    let staged = stage_at(dir.as_fd(), &name, contents, 0o644).map_err(at)?;
    commit_at(dir.as_fd(), staged, &name).map_err(at)
}

/// [`write_atomic`] with the contents written by `write` into the temporary as they are made
/// (a large output is never held whole); the target is replaced only when `write` succeeds.
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut (dyn Write + Send)) -> std::io::Result<()>,
) -> Result<(), WriteError> {
    let (dir_path, name) = split(path)?;
    let dir = open_dir(&dir_path).map_err(|source| WriteError {
        path: dir_path.clone(),
        source,
    })?;
    let at = |source| WriteError {
        path: path.to_path_buf(),
        source,
    };
    let staged = stage_with(dir.as_fd(), &name, 0o644, |file| {
        let mut out = std::io::BufWriter::with_capacity(1 << 16, file);
        write(&mut out)?;
        out.flush()
    })
    .map_err(at)?;
    commit_at(dir.as_fd(), staged, &name).map_err(at)
}

/// The directory and the file name of `path` (`.` when it has no directory part).
pub fn split(path: &Path) -> Result<(PathBuf, String), WriteError> {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .map(str::to_string)
        .ok_or_else(|| WriteError {
            path: path.to_path_buf(),
            source: std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "not a file name (or not UTF-8)",
            ),
        })?;
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    Ok((dir, name))
}

/// Opens a directory as a handle for the `*_at` calls (the path itself is resolved as given).
pub fn open_dir(path: &Path) -> std::io::Result<OwnedFd> {
    Ok(rustix::fs::open(
        path,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )?)
}

/// A temporary file, written and synced, waiting to be renamed over its target.
#[derive(Debug)]
pub struct Staged {
    /// The temporary's name in the directory.
    pub temp: String,
    /// Its device and inode: after the rename the target has them (how a crash is told apart
    /// from a commit).
    pub dev: u64,
    /// See `dev`.
    pub ino: u64,
}

/// An unpredictable 64-bit number (std's per-process random hash keys, the pid, the time and a
/// counter).
pub fn random_u64() -> u64 {
    use std::hash::BuildHasher;
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    std::collections::hash_map::RandomState::new().hash_one((
        std::process::id(),
        nanos,
        COUNTER.fetch_add(1, Ordering::Relaxed),
    ))
}

/// Creates a new file `name` in `dir` that did not exist (`O_CREAT|O_EXCL|O_NOFOLLOW`), mode
/// `mode` (before the umask).
pub fn create_new_at(dir: BorrowedFd<'_>, name: &str, mode: u32) -> std::io::Result<File> {
    let fd = rustix::fs::openat(
        dir,
        name,
        OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::from_raw_mode(mode),
    )?;
    Ok(File::from(fd))
}

/// Writes `contents` to a new temporary beside `name` in `dir`, with the mode and owner the
/// target has (or `new_mode` for a new target), synced to disk. Nothing is left behind on error.
pub fn stage_at(
    dir: BorrowedFd<'_>,
    name: &str,
    contents: &[u8],
    new_mode: u32,
) -> std::io::Result<Staged> {
    stage_with(dir, name, new_mode, |file| file.write_all(contents))
}

/// [`stage_at`] with the contents written by `write`.
fn stage_with(
    dir: BorrowedFd<'_>,
    name: &str,
    new_mode: u32,
    write: impl FnOnce(&mut File) -> std::io::Result<()>,
) -> std::io::Result<Staged> {
    // What the target is now (never following a link): its mode and owner are kept.
    let old = match rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st) if FileType::from_raw_mode(st.st_mode) == FileType::RegularFile => Some(st),
        Ok(_) => None,
        Err(rustix::io::Errno::NOENT) => None,
        Err(e) => return Err(e.into()),
    };
    let (file, temp) = create_temp(dir, name)?;
    let result = (|| -> std::io::Result<Staged> {
        let mut file = file;
        write(&mut file)?;
        // The permission bits only: a set-uid, set-gid or sticky bit is never carried over.
        let mode = match &old {
            Some(st) => st.st_mode & 0o777,
            None => new_mode,
        };
        if let Some(st) = &old {
            keep_owner(&file, st.st_uid, st.st_gid);
        }
        rustix::fs::fchmod(&file, Mode::from_raw_mode(mode))?;
        file.sync_all()?;
        let st = rustix::fs::fstat(&file)?;
        Ok(Staged {
            temp: temp.clone(),
            dev: st.st_dev,
            ino: st.st_ino,
        })
    })();
    if result.is_err() {
        let _ = rustix::fs::unlinkat(dir, temp.as_str(), AtFlags::empty());
    }
    result
}

/// Gives `file` the owner and group `uid`/`gid` where the process may (root may; others may
/// set a group they belong to); otherwise the file stays the writer's.
fn keep_owner(file: &File, uid: u32, gid: u32) {
    let Ok(st) = rustix::fs::fstat(file) else {
        return;
    };
    if st.st_uid == uid && st.st_gid == gid {
        return;
    }
    let u = rustix::fs::Uid::from_raw(uid);
    let g = rustix::fs::Gid::from_raw(gid);
    if rustix::fs::fchown(file, Some(u), Some(g)).is_err() {
        let _ = rustix::fs::fchown(file, None, Some(g));
    }
}

/// `.NAME.<16 hex digits>.tmp`, created exclusively; a name that exists (a planted file or link)
/// is skipped.
fn create_temp(dir: BorrowedFd<'_>, name: &str) -> std::io::Result<(File, String)> {
    let mut last = None;
    for _ in 0..16 {
        let temp = format!(".{name}.{:016x}.tmp", random_u64());
        match create_new_at(dir, &temp, 0o600) {
            Ok(f) => return Ok((f, temp)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("cannot create a temporary file")))
}

/// Renames a staged temporary over `name` (replacing a file or a link there, never writing
/// through it), then syncs the directory; the temporary is removed if the rename fails.
pub fn commit_at(dir: BorrowedFd<'_>, staged: Staged, name: &str) -> std::io::Result<()> {
    if let Err(e) = rustix::fs::renameat(dir, staged.temp.as_str(), dir, name) {
        discard_at(dir, &staged);
        return Err(e.into());
    }
    // Make the rename itself durable; not all file systems allow fsync on a directory.
    let _ = rustix::fs::fsync(dir);
    Ok(())
}

/// Removes a staged temporary that will not be committed.
pub fn discard_at(dir: BorrowedFd<'_>, staged: &Staged) {
    let _ = rustix::fs::unlinkat(dir, staged.temp.as_str(), AtFlags::empty());
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.toml");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "two");
        assert_eq!(names(dir.path()), ["f.toml"]);
    }

    #[test]
    fn new_file_is_0644_and_a_rewrite_keeps_the_mode() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        write_atomic(&p, b"one").unwrap();
        assert_eq!(std::fs::metadata(&p).unwrap().mode() & 0o7777, 0o644);
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600)).unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::metadata(&p).unwrap().mode() & 0o7777, 0o600);
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o4755)).unwrap();
        write_atomic(&p, b"three").unwrap();
        assert_eq!(std::fs::metadata(&p).unwrap().mode() & 0o7777, 0o755);
    }

    #[test]
    fn a_link_at_the_target_or_the_old_temporary_is_never_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "precious").unwrap();
        let p = dir.path().join("f");
        std::os::unix::fs::symlink(&victim, dir.path().join(".f.tmp")).unwrap();
        std::os::unix::fs::symlink(&victim, &p).unwrap();
        write_atomic(&p, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert!(!std::fs::symlink_metadata(&p).unwrap().is_symlink());
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new");
    }

    #[test]
    fn temporaries_have_unpredictable_names() {
        let a = random_u64();
        let b = random_u64();
        assert_ne!(a, b);
    }
}
