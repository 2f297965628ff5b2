//! Reading a large job file. A million-job `qstat -f -F json` file is 1.5 GB: copying it out of
//! the page cache into a fresh buffer cost 0.7–1.2 s of wall time on a 2-core machine (the kernel
//! zeroes and faults in 400 000 new pages, then copies 1.5 GB into them) — a quarter of the whole
//! read. Mapping the file instead shares the page cache's pages.
//!
//! The mapping is walked window by window ([`Pages`]): the parser faults in the next window with
//! one `madvise(MADV_POPULATE_READ)` and drops the pages it has finished with
//! (`MADV_DONTNEED`; the file's pages stay in the page cache and a later read of them simply
//! faults them in again), so the process holds a few windows of the file, not the whole file:
//! memory grows with the jobs, not with the file's size.
//!
//! Only a file that nobody but root and the process's user can write is mapped
//! ([`Mapping`](super::map::Mapping): the common case of root's or one's own `qstat` output);
//! any other, and small files and anything that is not a regular file, are read into memory,
//! and a regular file that changes while it is read (its size, mtime or ctime: [`Stamp`]) is an
//! error instead of a torn copy. A mapped file truncated *while* fairsort reads it (by root or
//! its owner) kills the process with `SIGBUS`; files written whole and renamed into place (as
//! `qstat … > tmp && mv tmp jobs.json` does) are never affected.

use std::fs::File;
use std::io;
use std::ops::{Deref, Range};
use std::path::Path;

use super::map::Mapping;

/// Below this size the file is read into memory (a mapping saves nothing there).
const MAP_MIN_BYTES: u64 = 64 << 20;

/// How much of a mapped file a parser faults in at a time (and about how much it keeps).
pub const PAGE_WINDOW: usize = 16 << 20;

/// The bytes of a whole file: mapped or read. Derefs to the file's bytes.
#[derive(Debug)]
pub enum FileBytes {
    /// A read-only mapping of the file (large regular files nobody else can write).
    Mapped(Mapping),
    /// The file read into memory.
    Read(Vec<u8>),
}

impl Deref for FileBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            FileBytes::Mapped(m) => m,
            FileBytes::Read(v) => v,
        }
    }
}

impl AsRef<[u8]> for FileBytes {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl FileBytes {
    /// The window keeper of these bytes (does nothing when they were read into memory).
    pub fn pages(&self) -> Pages<'_> {
        match self {
            FileBytes::Mapped(m) => Pages::of(&m.0),
            FileBytes::Read(_) => Pages::none(),
        }
    }
}

/// Keeps a parser's view of a mapped file to a few windows: faults in what it reads next,
/// drops what it has read. Advice only: the bytes stay readable whatever is dropped.
#[derive(Debug, Clone, Copy, Default)]
pub struct Pages<'m> {
    map: Option<&'m memmap2::Mmap>,
}

impl<'m> Pages<'m> {
    /// The window keeper of a mapping (a [`Mapping`]'s, or a test's own).
    pub(crate) fn of(map: &'m memmap2::Mmap) -> Pages<'m> {
        Pages { map: Some(map) }
    }

    /// For bytes that are not a mapping: every call does nothing.
    pub fn none() -> Pages<'static> {
        Pages { map: None }
    }

    /// The parser is done with `done` and reads `next` soon (byte offsets in the file).
    pub fn advance(&self, done: Range<usize>, next: Range<usize>) {
        let Some(map) = self.map else { return };
        super::map::release(map, done);
        super::map::populate(map, next);
    }
}

/// What identifies a file's contents cheaply: its inode, size, and modification and change
/// times to the nanosecond. Taken before and after a file is read into memory: a different
/// stamp means somebody wrote the file meanwhile and the bytes read may be torn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    dev: u64,
    ino: u64,
    len: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Stamp {
    /// The stamp of `meta`.
    pub fn of(meta: &std::fs::Metadata) -> Stamp {
        use std::os::unix::fs::MetadataExt;
        Stamp {
            dev: meta.dev(),
            ino: meta.ino(),
            len: meta.len(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        }
    }

    /// `Ok` when `file` (a regular file) still has this stamp, else the error a reader reports.
    pub fn check(&self, file: &File) -> io::Result<()> {
        let now = Stamp::of(&file.metadata()?);
        if now == *self {
            Ok(())
        } else {
            Err(changed_while_read())
        }
    }
}

/// The error of a file written to while it was read into memory.
pub fn changed_while_read() -> io::Error {
    io::Error::other(
        "the file changed while it was read (written in place meanwhile); write it whole and \
         rename it into place, or read a copy",
    )
}

/// The whole file, as `std::fs::read` reads it: a large regular file that nobody else can
/// write is mapped into memory ([`Mapping`]); any other is read, and a regular file written to
/// while it is read is an error ([`Stamp`]).
pub fn read_file(path: &Path) -> io::Result<FileBytes> {
    let mut file = File::open(path)?;
    let meta = file.metadata()?;
    if meta.is_file() && meta.len() >= MAP_MIN_BYTES {
        if let Some(map) = Mapping::of(&file, None, false) {
            map.sequential();
            return Ok(FileBytes::Mapped(map));
        }
    }
    read_open(&mut file, &meta).map(FileBytes::Read)
}

/// The rest of the open `file` (whose metadata is `meta`), read into memory; for a regular
/// file, an error if it changed meanwhile.
pub fn read_open(file: &mut File, meta: &std::fs::Metadata) -> io::Result<Vec<u8>> {
    use std::io::Read;
    let size = if meta.is_file() { meta.len() } else { 0 };
    let mut out = Vec::with_capacity(usize::try_from(size).unwrap_or(0).saturating_add(1));
    file.read_to_end(&mut out)?;
    if meta.is_file() {
        Stamp::of(meta).check(file)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_small_and_large_files_whole() {
        let dir = tempfile::tempdir().unwrap();
        let small = dir.path().join("small");
        std::fs::write(&small, b"abc").unwrap();
        let bytes = read_file(&small).unwrap();
        assert!(matches!(bytes, FileBytes::Read(_)));
        assert_eq!(&*bytes, b"abc");
        let large = dir.path().join("large");
        let data: Vec<u8> = (0..(MAP_MIN_BYTES as usize + 12_345))
            .map(|i| (i * 31 % 251) as u8)
            .collect();
        std::fs::write(&large, &data).unwrap();
        let bytes = read_file(&large).unwrap();
        assert!(matches!(bytes, FileBytes::Mapped(_)));
        assert!(*bytes == *data);
        assert!(read_file(&dir.path().join("missing")).is_err());
        assert!(read_file(dir.path()).is_err(), "a directory is not a file");
        // Writable by its group: another user could change it under a mapping; read instead.
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&large, std::fs::Permissions::from_mode(0o664)).unwrap();
        let bytes = read_file(&large).unwrap();
        assert!(matches!(bytes, FileBytes::Read(_)));
        assert!(*bytes == *data);
    }

    /// A write between the two looks at a file is seen: in place at the same size, appended,
    /// or the file replaced by a rename (another inode); an untouched file passes.
    #[test]
    fn a_stamp_sees_every_write_made_after_it() {
        use std::os::unix::fs::FileExt;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, b"0123456789").unwrap();
        let f = File::open(&p).unwrap();
        let stamp = || Stamp::of(&f.metadata().unwrap());
        // Past the coarsest timestamp tick of kernels without fine-grained ones.
        let tick = || std::thread::sleep(std::time::Duration::from_millis(20));
        let before = stamp();
        assert!(before.check(&f).is_ok());
        let w = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
        tick();
        w.write_all_at(b"abc", 2).unwrap();
        let e = before.check(&f).unwrap_err();
        assert!(e.to_string().contains("changed while it was read"), "{e}");
        let before = stamp();
        tick();
        w.write_all_at(b"more", 10).unwrap();
        assert!(before.check(&f).is_err());
        let before = stamp();
        let other = dir.path().join("g");
        std::fs::write(&other, std::fs::read(&p).unwrap()).unwrap();
        std::fs::rename(&other, &p).unwrap();
        let renamed = File::open(&p).unwrap();
        assert_ne!(Stamp::of(&renamed.metadata().unwrap()), before);
    }
}
