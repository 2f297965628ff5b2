//! Reading a large job file. A million-job `qstat -f -F json` file is 1.5 GB: copying it out of
//! the page cache into a fresh buffer cost 0.7–1.2 s of wall time on two cores (the kernel
//! zeroes and faults in 400 000 new pages, then copies 1.5 GB into them) — a quarter of the whole
//! read. Mapping the file instead shares the page cache's pages.
//!
//! The mapping is walked window by window ([`Pages`]): the parser faults in the next window with
//! one `madvise(MADV_POPULATE_READ)` and drops the pages it has finished with
//! (`MADV_DONTNEED`; the file's pages stay in the page cache and a later read of them simply
//! faults them in again), so the process holds a few windows of the file, not the whole file:
//! memory grows with the jobs, not with the file's size.
//!
//! The one cost of a mapping: if another program truncates the file *while* fairsort reads it,
//! the process is killed by `SIGBUS` instead of reporting a short file. Files written whole and
//! renamed into place (as `qstat … > tmp && mv tmp jobs.json` does) are never affected; a file
//! rewritten in place under a running `fairsort order` should be read from stdin
//! (`--jobs - < FILE`), which copies. Small files and anything that is not a regular file are
//! read the plain way.

use std::fs::File;
use std::io;
use std::ops::{Deref, Range};
use std::path::Path;

/// Below this size the file is read into memory (a mapping saves nothing there).
const MAP_MIN_BYTES: u64 = 64 << 20;

/// How much of a mapped file a parser faults in at a time (and about how much it keeps).
pub const PAGE_WINDOW: usize = 16 << 20;

/// The bytes of a whole file: mapped or read. Derefs to the file's bytes.
#[derive(Debug)]
pub enum FileBytes {
    /// A read-only shared mapping of the file (large regular files).
    Mapped(memmap2::Mmap),
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

impl FileBytes {
    /// The window keeper of these bytes (does nothing when they were read into memory).
    pub fn pages(&self) -> Pages<'_> {
        match self {
            FileBytes::Mapped(m) => Pages::of(m),
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
    /// The window keeper of a mapping.
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
        let end = map.len();
        let clamp = |r: Range<usize>| r.start.min(end)..r.end.min(end);
        let (done, next) = (clamp(done), clamp(next));
        if !done.is_empty() {
            // SAFETY: the mapping is a read-only mapping of a file: dropping its pages only
            // makes the next access fault them in again from the file (MADV_DONTNEED on file
            // mappings never zeroes them), so every byte a parser still borrows keeps its value.
            let _ = unsafe {
                map.unchecked_advise_range(
                    memmap2::UncheckedAdvice::DontNeed,
                    done.start,
                    done.len(),
                )
            };
        }
        if !next.is_empty()
            && map
                .advise_range(memmap2::Advice::PopulateRead, next.start, next.len())
                .is_err()
        {
            let _ = map.advise_range(memmap2::Advice::WillNeed, next.start, next.len());
        }
    }
}

/// The whole file, as `std::fs::read` reads it: a large regular file is mapped into memory.
pub fn read_file(path: &Path) -> io::Result<FileBytes> {
    let file = File::open(path)?;
    let meta = file.metadata()?;
    if meta.is_file() && meta.len() >= MAP_MIN_BYTES {
        if let Some(map) = map(&file) {
            return Ok(FileBytes::Mapped(map));
        }
    }
    std::fs::read(path).map(FileBytes::Read)
}

/// A populated read-only mapping of `file`, or `None` where the system refuses one.
fn map(file: &File) -> Option<memmap2::Mmap> {
    // SAFETY: the mapping is read-only and private to this process; its one hazard is another
    // program shrinking the file while it is mapped (SIGBUS), documented above and in
    // docs/order.md. Pages are faulted in window by window by the parser ([`Pages`]).
    let map = unsafe { memmap2::MmapOptions::new().map(file) };
    let map = map.ok()?;
    let _ = map.advise(memmap2::Advice::Sequential);
    Some(map)
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
    }
}
