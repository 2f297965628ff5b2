//! How the home touches its files (docs/security.md): the home directory is opened once as a
//! handle and every file is opened relative to it without following links; the directory and
//! its files are checked like sshd's StrictModes before they are trusted; writers serialise on an
//! owner-only `lock` file with a bounded wait; readers take no lock at all (see
//! `Home::with_shared`).

use crate::files::atomic;
use crate::home::error::HomeError;
use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Modes of the files a home creates (a rewritten file keeps the mode it has).
pub mod modes {
    /// The home directory: everyone may read, only its owner writes.
    pub const DIR: u32 = 0o755;
    /// `server.toml`, `resource_group`, `usage.toml`, `usage.ledger`: readable by all, as PBS's
    /// attributes are.
    pub const PUBLIC: u32 = 0o644;
    /// `audit.log`: who changed what is not for everyone.
    pub const AUDIT: u32 = 0o640;
    /// `lock` and `audit.pending`: only the owner (and root) may open them, so nobody else can
    /// hold the writers' lock.
    pub const PRIVATE: u32 = 0o600;
}

/// How long a writer waits for the writers' lock by default (seconds).
pub const LOCK_TIMEOUT_SECS: f64 = 10.0;
/// The environment variable that changes [`LOCK_TIMEOUT_SECS`] (seconds, decimals allowed).
pub const LOCK_TIMEOUT_ENV: &str = "FAIRSORT_LOCK_TIMEOUT";

/// A file's (device, inode): which file a name named when it was read.
pub type FileId = (u64, u64);

/// An opened home directory.
#[derive(Debug)]
pub struct HomeDir {
    path: PathBuf,
    fd: OwnedFd,
    owner: u32,
}

impl HomeDir {
    /// Opens `path` (resolved as given: the admin named it) as a directory handle.
    pub fn open(path: &Path) -> Result<HomeDir, HomeError> {
        let fd = atomic::open_dir(path).map_err(|e| HomeError::io(path, e))?;
        let st = rustix::fs::fstat(&fd).map_err(|e| HomeError::io(path, e.into()))?;
        Ok(HomeDir {
            path: path.to_path_buf(),
            fd,
            owner: st.st_uid,
        })
    }

    /// Creates the directory `path` (and its parents) with mode 0755 if it does not exist.
    pub fn create(path: &Path) -> Result<(), HomeError> {
        if path.is_dir() {
            return Ok(());
        }
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| HomeError::io(parent, e))?;
        }
        match std::fs::create_dir(path) {
            Ok(()) => {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(path, std::fs::Permissions::from_mode(modes::DIR))
                    .map_err(|e| HomeError::io(path, e))
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
            Err(e) => Err(HomeError::io(path, e)),
        }
    }

    /// The directory's path (for messages).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The uid owning the directory (when it was opened).
    pub fn owner(&self) -> u32 {
        self.owner
    }

    /// The handle.
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// `path/name`, for messages.
    pub fn file(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    fn err(&self, name: &str, e: impl Into<std::io::Error>) -> HomeError {
        HomeError::io(self.file(name), e.into())
    }

    /// Refuses a home that someone other than its owner and root could change (like sshd's
    /// StrictModes): the directory must be owned by root or the current user and not writable by
    /// group or others; each of `names` that exists must be a regular file (not a link), owned by
    /// root, the directory's owner or the current user, and not writable by group or others.
    pub fn check_safe(&self, names: &[&str]) -> Result<(), HomeError> {
        let me = rustix::process::geteuid().as_raw();
        let st = rustix::fs::fstat(&self.fd).map_err(|e| HomeError::io(&self.path, e.into()))?;
        let shown = self.path.display().to_string();
        if st.st_uid != 0 && st.st_uid != me {
            return Err(HomeError::Unsafe {
                path: self.path.clone(),
                problem: format!("is owned by uid {} (neither root nor you)", st.st_uid),
                fix: format!("run `chown root {shown}` (or give it to the user who runs fairsort)"),
            });
        }
        if st.st_mode & 0o022 != 0 {
            return Err(HomeError::Unsafe {
                path: self.path.clone(),
                problem: format!(
                    "is writable by its group or others (mode {:04o})",
                    st.st_mode & 0o7777
                ),
                fix: format!("run `chmod go-w {shown}`"),
            });
        }
        for name in names {
            let st = match rustix::fs::statat(&self.fd, *name, AtFlags::SYMLINK_NOFOLLOW) {
                Ok(st) => st,
                Err(rustix::io::Errno::NOENT) => continue,
                Err(e) => return Err(self.err(name, e)),
            };
            let path = self.file(name);
            let shown = path.display().to_string();
            match FileType::from_raw_mode(st.st_mode) {
                FileType::RegularFile => {}
                FileType::Symlink => {
                    return Err(HomeError::Unsafe {
                        path,
                        problem: "is a symbolic link (fairsort never follows links in its home)"
                            .into(),
                        fix: format!(
                            "remove the link (`rm {shown}`) and put the file itself there"
                        ),
                    })
                }
                _ => {
                    return Err(HomeError::Unsafe {
                        path,
                        problem: "is not a regular file".into(),
                        fix: format!("remove it (`rm {shown}`)"),
                    })
                }
            }
            if st.st_uid != 0 && st.st_uid != self.owner && st.st_uid != me {
                return Err(HomeError::Unsafe {
                    path,
                    problem: format!(
                        "is owned by uid {}, not by root or the home's owner (uid {})",
                        st.st_uid, self.owner
                    ),
                    fix: format!("run `chown {} {shown}`", self.owner),
                });
            }
            if st.st_mode & 0o022 != 0 {
                return Err(HomeError::Unsafe {
                    path,
                    problem: format!(
                        "is writable by its group or others (mode {:04o})",
                        st.st_mode & 0o7777
                    ),
                    fix: format!("run `chmod go-w {shown}`"),
                });
            }
        }
        Ok(())
    }

    /// Opens `name` for reading without following a link; `None` if it does not exist.
    pub fn open_read(&self, name: &str) -> Result<Option<File>, HomeError> {
        match rustix::fs::openat(
            &self.fd,
            name,
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK,
            Mode::empty(),
        ) {
            Ok(fd) => {
                let st = rustix::fs::fstat(&fd).map_err(|e| self.err(name, e))?;
                if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile {
                    return Err(self.err(
                        name,
                        std::io::Error::new(
                            std::io::ErrorKind::InvalidData,
                            "not a regular file; refusing to read it",
                        ),
                    ));
                }
                Ok(Some(File::from(fd)))
            }
            Err(rustix::io::Errno::NOENT) => Ok(None),
            Err(rustix::io::Errno::LOOP) => Err(self.err(
                name,
                std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    "is a symbolic link; fairsort never follows links in its home",
                ),
            )),
            Err(e) => Err(self.err(name, e)),
        }
    }

    /// Reads `name` as UTF-8 text with its (device, inode); `None` if it does not exist.
    pub fn read(&self, name: &str) -> Result<Option<(String, FileId)>, HomeError> {
        let Some(mut f) = self.open_read(name)? else {
            return Ok(None);
        };
        let st = rustix::fs::fstat(&f).map_err(|e| self.err(name, e))?;
        let mut bytes = Vec::new();
        f.read_to_end(&mut bytes).map_err(|e| self.err(name, e))?;
        let text = String::from_utf8(bytes).map_err(|e| HomeError::Corrupt {
            path: self.file(name),
            line: 1,
            column: 1,
            message: format!("not UTF-8 text ({e})"),
        })?;
        Ok(Some((text, (st.st_dev, st.st_ino))))
    }

    /// The (device, inode) `name` names now, `None` if it does not exist (never following a link).
    pub fn identity(&self, name: &str) -> Result<Option<FileId>, HomeError> {
        match rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) => Ok(Some((st.st_dev, st.st_ino))),
            Err(rustix::io::Errno::NOENT) => Ok(None),
            Err(e) => Err(self.err(name, e)),
        }
    }

    /// Replaces `name` with `contents` (temporary with an unpredictable name, fsync, rename,
    /// fsync of the directory); a new file gets `mode`, a rewritten one keeps its mode and owner.
    pub fn write(&self, name: &str, contents: &[u8], mode: u32) -> Result<(), HomeError> {
        let staged = self.stage(name, contents, mode)?;
        self.commit(staged, name)
    }

    /// The first half of [`HomeDir::write`]: the temporary, written and synced.
    pub fn stage(
        &self,
        name: &str,
        contents: &[u8],
        mode: u32,
    ) -> Result<atomic::Staged, HomeError> {
        atomic::stage_at(self.fd(), name, contents, mode).map_err(|e| self.err(name, e))
    }

    /// The second half of [`HomeDir::write`]: the rename (the temporary is removed on failure).
    pub fn commit(&self, staged: atomic::Staged, name: &str) -> Result<(), HomeError> {
        atomic::commit_at(self.fd(), staged, name).map_err(|e| self.err(name, e))
    }

    /// Opens `name` for appending and reading back (created with `mode` if missing), never following a link.
    pub fn open_append(&self, name: &str, mode: u32) -> Result<File, HomeError> {
        let fd = rustix::fs::openat(
            &self.fd,
            name,
            OFlags::RDWR | OFlags::APPEND | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(mode),
        )
        .map_err(|e| self.err(name, e))?;
        let st = rustix::fs::fstat(&fd).map_err(|e| self.err(name, e))?;
        if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile {
            return Err(self.err(name, std::io::Error::other("not a regular file")));
        }
        Ok(File::from(fd))
    }

    /// Removes `name` if it exists (a link is removed, not followed).
    pub fn remove(&self, name: &str) -> Result<(), HomeError> {
        match rustix::fs::unlinkat(&self.fd, name, AtFlags::empty()) {
            Ok(()) | Err(rustix::io::Errno::NOENT) => Ok(()),
            Err(e) => Err(self.err(name, e)),
        }
    }

    /// Removes the temporaries killed writers left (`.NAME.<16 hex digits>.tmp` for a file
    /// `NAME` of `names`); call with the writers' lock held, as only its holder makes them.
    pub fn sweep_temporaries(&self, names: &[&str]) -> Result<usize, HomeError> {
        let dir = rustix::fs::Dir::read_from(&self.fd)
            .map_err(|e| HomeError::io(&self.path, e.into()))?;
        let mut removed = 0;
        for entry in dir {
            let entry = entry.map_err(|e| HomeError::io(&self.path, e.into()))?;
            let Ok(name) = entry.file_name().to_str() else {
                continue;
            };
            if names.iter().any(|n| is_temporary_of(name, n)) {
                self.remove(name)?;
                removed += 1;
            }
        }
        Ok(removed)
    }

    /// Syncs the directory (after renames and removals).
    pub fn sync(&self) {
        let _ = rustix::fs::fsync(&self.fd);
    }
}

/// Whether `name` is a temporary of `target` as `formats::atomic` names them.
fn is_temporary_of(name: &str, target: &str) -> bool {
    name.strip_prefix('.')
        .and_then(|r| r.strip_prefix(target))
        .and_then(|r| r.strip_prefix('.'))
        .and_then(|r| r.strip_suffix(".tmp"))
        .is_some_and(|hex| hex.len() == 16 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The writers' lock: an exclusive `flock` on the home's `lock` file (mode 0600, so only the
/// home's owner and root can open it, hence hold it). Released on drop or when the process dies.
#[derive(Debug)]
pub struct WriteLock {
    _file: File,
}

impl WriteLock {
    /// Takes the lock, waiting at most [`lock_timeout`]; on timeout the error names the process
    /// holding it when the system tells (`/proc/locks`, else the pid its holder wrote in it).
    pub fn acquire(dir: &HomeDir, name: &str) -> Result<WriteLock, HomeError> {
        let fd = rustix::fs::openat(
            dir.fd(),
            name,
            OFlags::RDWR | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(modes::PRIVATE),
        )
        .map_err(|e| dir.err(name, e))?;
        let st = rustix::fs::fstat(&fd).map_err(|e| dir.err(name, e))?;
        if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile {
            return Err(dir.err(name, std::io::Error::other("not a regular file")));
        }
        // A lock file of an older fairsort may be readable by all (anyone could hold it): tighten.
        if st.st_mode & 0o077 != 0 {
            let _ = rustix::fs::fchmod(&fd, Mode::from_raw_mode(modes::PRIVATE));
        }
        let timeout = lock_timeout();
        let start = Instant::now();
        loop {
            match rustix::fs::flock(&fd, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => break,
                Err(rustix::io::Errno::WOULDBLOCK) | Err(rustix::io::Errno::INTR) => {}
                Err(e) => return Err(dir.err(name, e)),
            }
            if start.elapsed() >= timeout {
                return Err(HomeError::LockTimeout {
                    path: dir.file(name),
                    seconds: timeout.as_secs_f64(),
                    holder: describe_holder(st.st_dev, st.st_ino, &fd),
                });
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let mut file = File::from(fd);
        // Tell a waiting writer who holds it (best effort; /proc/locks is the authority).
        if file.set_len(0).is_ok() {
            use std::io::Seek;
            let _ = file.seek(std::io::SeekFrom::Start(0));
            let _ = writeln!(file, "{}", std::process::id());
        }
        Ok(WriteLock { _file: file })
    }
}

/// How long a writer waits for the lock: `FAIRSORT_LOCK_TIMEOUT` seconds (decimals allowed,
/// 0 to 3600), else 10 s.
pub fn lock_timeout() -> Duration {
    let secs = std::env::var(LOCK_TIMEOUT_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && (0.0..=3600.0).contains(s))
        .unwrap_or(LOCK_TIMEOUT_SECS);
    Duration::from_secs_f64(secs)
}

/// "pid 123 (fairsort, uid 1000)" for the holders of the lock on (dev, ino), from /proc/locks;
/// else the pid written in the lock file; else "unknown".
fn describe_holder(dev: u64, ino: u64, fd: &OwnedFd) -> String {
    let pids = std::fs::read_to_string("/proc/locks")
        .map(|t| lock_holders(&t, dev, ino))
        .unwrap_or_default();
    if !pids.is_empty() {
        return pids
            .iter()
            .map(|pid| describe_pid(*pid))
            .collect::<Vec<_>>()
            .join(", ");
    }
    let mut buf = [0u8; 32];
    let n = rustix::io::pread(fd, &mut buf, 0).unwrap_or(0);
    match std::str::from_utf8(&buf[..n])
        .ok()
        .and_then(|s| s.trim().parse::<u32>().ok())
    {
        Some(pid) => format!("{} (as written in the lock file)", describe_pid(pid)),
        None => "a process the system does not name".to_string(),
    }
}

fn describe_pid(pid: u32) -> String {
    let comm = std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    let uid = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Uid:"))
                .and_then(|r| r.split_whitespace().next())
                .map(str::to_string)
        });
    match (comm.is_empty(), uid) {
        (false, Some(uid)) => format!("pid {pid} ({comm}, uid {uid})"),
        (false, None) => format!("pid {pid} ({comm})"),
        _ => format!("pid {pid}"),
    }
}

/// The pids holding (not waiting for) a lock on the file (dev, ino) in a `/proc/locks` text:
/// `1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF` (major:minor in hex, inode in decimal);
/// waiters' lines have `->` after the number.
fn lock_holders(text: &str, dev: u64, ino: u64) -> Vec<u32> {
    let want = format!(
        "{:02x}:{:02x}:{ino}",
        rustix::fs::major(dev),
        rustix::fs::minor(dev)
    );
    let mut pids: Vec<u32> = text
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            if f.get(1) == Some(&"->") {
                return None;
            }
            let at = f.iter().position(|x| x.matches(':').count() == 2)?;
            (f[at].eq_ignore_ascii_case(&want))
                .then(|| f.get(at.checked_sub(1)?)?.parse().ok())
                .flatten()
        })
        .collect();
    pids.sort_unstable();
    pids.dedup();
    pids
}

/// Reads a file outside any home handle without following a link at its last component, to a
/// string; `None` if it does not exist.
pub(crate) fn read_optional(path: &Path) -> Result<Option<String>, HomeError> {
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(OFlags::NOFOLLOW.bits() as i32)
        .open(path);
    let mut f = match f {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(HomeError::io(path, e)),
    };
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes)
        .map_err(|e| HomeError::io(path, e))?;
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|e| HomeError::Corrupt {
            path: path.to_path_buf(),
            line: 1,
            column: 1,
            message: format!("not UTF-8 text ({e})"),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn missing_file_reads_as_none_and_errors_name_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let h = HomeDir::open(dir.path()).unwrap();
        assert!(h.read("missing").unwrap().is_none());
        h.write("f.toml", b"two", modes::PUBLIC).unwrap();
        assert_eq!(h.read("f.toml").unwrap().unwrap().0, "two");
        std::fs::write(dir.path().join("f.toml"), [0xff, 0xfe]).unwrap();
        assert!(h
            .read("f.toml")
            .unwrap_err()
            .to_string()
            .contains("not UTF-8"));
        assert_eq!(read_optional(&dir.path().join("nope")).unwrap(), None);
    }

    #[test]
    fn links_are_refused_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("secret"), "s").unwrap();
        std::os::unix::fs::symlink(dir.path().join("secret"), dir.path().join("l")).unwrap();
        let h = HomeDir::open(dir.path()).unwrap();
        let e = h.read("l").unwrap_err().to_string();
        assert!(e.contains("symbolic link"), "{e}");
        let e = h.check_safe(&["l"]).unwrap_err().to_string();
        assert!(e.contains("symbolic link"), "{e}");
        assert!(h.open_append("l", 0o600).is_err());
        assert_eq!(
            std::fs::read_to_string(dir.path().join("secret")).unwrap(),
            "s"
        );
    }

    #[test]
    fn group_or_world_writable_is_unsafe_with_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let h = HomeDir::open(dir.path()).unwrap();
        h.write("f", b"x", modes::PUBLIC).unwrap();
        assert!(h.check_safe(&["f", "missing"]).is_ok());
        std::fs::set_permissions(dir.path().join("f"), std::fs::Permissions::from_mode(0o666))
            .unwrap();
        let e = h.check_safe(&["f"]).unwrap_err().to_string();
        assert!(e.contains("chmod go-w"), "{e}");
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o775)).unwrap();
        let e = h.check_safe(&[]).unwrap_err().to_string();
        assert!(e.contains("(mode 0775)") && e.contains("chmod go-w"), "{e}");
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    }

    #[test]
    fn lock_is_private_and_times_out_naming_the_holder() {
        let dir = tempfile::tempdir().unwrap();
        let h = HomeDir::open(dir.path()).unwrap();
        let held = WriteLock::acquire(&h, "lock").unwrap();
        let mode = std::fs::metadata(dir.path().join("lock"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        // A second open file description in this process conflicts with the first (flock).
        let t = Instant::now();
        // lock_timeout() reads the environment; use a short wait through the holder text only.
        let st = std::fs::metadata(dir.path().join("lock")).unwrap();
        use std::os::unix::fs::MetadataExt;
        let locks = std::fs::read_to_string("/proc/locks").unwrap_or_default();
        let pids = lock_holders(&locks, st.dev(), st.ino());
        if !locks.is_empty() {
            assert_eq!(pids, [std::process::id()]);
        }
        drop(held);
        assert!(t.elapsed() < Duration::from_secs(5));
        let _again = WriteLock::acquire(&h, "lock").unwrap();
    }

    #[test]
    fn temporaries_are_recognised_and_swept() {
        assert!(is_temporary_of(
            ".server.toml.0123456789abcdef.tmp",
            "server.toml"
        ));
        assert!(!is_temporary_of(".server.toml.tmp", "server.toml"));
        assert!(!is_temporary_of(
            ".server.toml.0123456789abcdef.tmp",
            "usage.toml"
        ));
        assert!(!is_temporary_of("server.toml", "server.toml"));
        let dir = tempfile::tempdir().unwrap();
        let h = HomeDir::open(dir.path()).unwrap();
        std::fs::write(dir.path().join(".f.0123456789abcdef.tmp"), "x").unwrap();
        std::fs::write(dir.path().join(".f.tmp"), "mine").unwrap();
        assert_eq!(h.sweep_temporaries(&["f"]).unwrap(), 1);
        assert!(dir.path().join(".f.tmp").exists());
    }

    #[test]
    fn proc_locks_lines() {
        let text = "1: FLOCK  ADVISORY  WRITE 4242 08:01:1234 0 EOF\n1: -> FLOCK  ADVISORY  WRITE 77 08:01:1234 0 EOF\n2: POSIX  ADVISORY  READ 99 00:2a:1234 0 EOF\n";
        let dev = rustix::fs::makedev(8, 1);
        assert_eq!(lock_holders(text, dev, 1234), [4242]);
        assert_eq!(lock_holders(text, rustix::fs::makedev(0, 42), 1234), [99]);
        assert!(lock_holders(text, dev, 1).is_empty());
    }
}
