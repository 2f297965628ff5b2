//! Read-only mappings of files that cannot change under the process, and the rule that says
//! which files those are (docs/security.md, "Files fairsort maps").
//!
//! A mapping is not a copy: memmap2's `Mmap` is a `MAP_SHARED` mapping, so a write to the file
//! by any process shows through it at once, and `MAP_PRIVATE` would not help on Linux (a page
//! this process has not written shows the file's current contents too). The bytes of a mapping
//! are handed out as `&[u8]` and, once checked, as `&str`: if another program could rewrite them
//! after the check, text validated as UTF-8 could stop being UTF-8 under a `&str`, which is
//! undefined behaviour, not just a wrong answer. fairsort runs as root over files that users
//! partly write (job names, accounts, comments), so a file is mapped only when nobody but root
//! and the process's own user could change it ([`may_map`]); anything else is read into the
//! process's own memory, where a concurrent rewrite gives at worst a torn copy that is checked
//! like any input (and is detected by the readers: `read_file::Stamp`).
//!
//! The one hazard left is that of any mapping: a writer who may change the file (root, or the
//! process's user, the owner) truncating it while it is read kills the reader with `SIGBUS`.
//! Files replaced by a rename (`qstat … > tmp && mv tmp jobs.json`, PBS's own logs, which it only
//! appends to) never are.

use std::fs::File;
use std::ops::{Deref, Range};
use std::os::unix::fs::MetadataExt;

/// A read-only mapping of a whole file that only root or this process's user can write
/// ([`may_map`]). Derefs to the file's bytes.
#[derive(Debug)]
pub struct Mapping(pub(super) memmap2::Mmap);

impl Deref for Mapping {
    type Target = [u8];
    #[inline]
    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl AsRef<[u8]> for Mapping {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

/// Whether a file whose `fstat` is `meta` may be mapped: a regular file, owned by root, by the
/// process's effective user or by `also_owner` (the home's owner, trusted with the home), and
/// writable by neither its group nor others. The group bits are an ACL's mask when the file has
/// one, so no named user or group of an ACL can write it either. Only the owner and root can
/// then open it for writing or change its mode; both are trusted with what the process reads
/// (root anyway, the owner because it is the process's own user or the home's owner).
///
/// Not covered: a descriptor opened for writing *before* the file got its present owner and
/// mode (root handing a user's file to root, say, while the user's program still holds it
/// open). Write the file whole and rename it into place instead of changing its owner.
pub fn may_map(meta: &std::fs::Metadata, also_owner: Option<u32>) -> bool {
    let owner = meta.uid();
    meta.is_file()
        && meta.mode() & 0o022 == 0
        && (owner == 0 || owner == rustix::process::geteuid().as_raw() || Some(owner) == also_owner)
}

impl Mapping {
    /// `file` mapped read-only when [`may_map`] allows it (checked on `file` itself, the
    /// descriptor that is mapped, so the file checked is the file mapped), its pages faulted in
    /// at once when `populate`; `None` when the rule refuses, the file is empty, or the system
    /// refuses the mapping (the caller then reads the file).
    pub fn of(file: &File, also_owner: Option<u32>, populate: bool) -> Option<Mapping> {
        let meta = file.metadata().ok()?;
        if !may_map(&meta, also_owner) || meta.len() == 0 {
            return None;
        }
        let mut options = memmap2::MmapOptions::new();
        if populate {
            options.populate();
        }
        // SAFETY: memmap2 requires that the mapped file not be changed while the mapping
        // lives. `may_map` has just checked, on this descriptor, that only root and the owner
        // (this process's user or the home's owner) can open the file for writing or change
        // its mode: no other program can change the bytes. What those writers do is theirs:
        // fairsort's own writers and the schedulers' replace such files by a rename (the
        // mapping keeps the old inode) or append to them (bytes past the mapping), and a
        // truncation raises SIGBUS (module doc), never a changed byte behind a checked view.
        let map = unsafe { options.map(file) }.ok()?;
        Some(Mapping(map))
    }

    /// Asks for the pages to be read ahead (advice only).
    pub fn sequential(&self) {
        let _ = self.0.advise(memmap2::Advice::Sequential);
    }

    /// Faults in bytes `range` now (`MADV_POPULATE_READ`, Linux 5.14+), or else asks for them
    /// to be read ahead (advice only; out-of-range bytes are ignored).
    pub fn populate(&self, range: Range<usize>) {
        populate(&self.0, range);
    }

    /// Faults in the whole mapping now, or asks for it to be read ahead.
    pub fn populate_all(&self) {
        if self.0.advise(memmap2::Advice::PopulateRead).is_err() {
            self.sequential();
        }
    }

    /// Gives back the pages of bytes `range` (`MADV_DONTNEED`): a parser done with them holds
    /// a few windows of a huge file, not the whole file. Advice only: the bytes keep their
    /// values (out-of-range bytes are ignored).
    pub fn release(&self, range: Range<usize>) {
        release(&self.0, range);
    }
}

/// [`Mapping::populate`] of any read-only mapping.
pub(super) fn populate(map: &memmap2::Mmap, range: Range<usize>) {
    let range = clamp(map, range);
    if range.is_empty() {
        return;
    }
    let (at, len) = (range.start, range.len());
    if map
        .advise_range(memmap2::Advice::PopulateRead, at, len)
        .is_err()
    {
        let _ = map.advise_range(memmap2::Advice::WillNeed, at, len);
    }
}

/// [`Mapping::release`] of any read-only mapping.
pub(super) fn release(map: &memmap2::Mmap, range: Range<usize>) {
    let range = clamp(map, range);
    if range.is_empty() {
        return;
    }
    // SAFETY: MADV_DONTNEED on a read-only file mapping drops the process's page table entries
    // only: the next access faults the same bytes in again from the page cache (it never
    // zeroes file pages, as it does anonymous ones), so every byte a borrower still reads keeps
    // its value.
    let _ = unsafe {
        map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, range.start, range.len())
    };
}

/// `range` cut to the mapping.
fn clamp(map: &memmap2::Mmap, range: Range<usize>) -> Range<usize> {
    let end = map.len();
    range.start.min(end)..range.end.min(end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// Own files not writable by group or others are mapped; a group- or world-writable one,
    /// a directory and an empty file are not.
    #[test]
    fn only_files_nobody_else_can_write_are_mapped() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, b"bytes\n").unwrap();
        let set = |mode: u32| {
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
            File::open(&p).unwrap()
        };
        for mode in [0o644, 0o600, 0o444, 0o755] {
            let m = Mapping::of(&set(mode), None, false).expect("an own file is mapped");
            assert_eq!(&*m, b"bytes\n");
            m.populate(0..100);
            m.release(0..4096);
            assert_eq!(&*m, b"bytes\n", "released pages read the same bytes");
        }
        for mode in [0o664, 0o646, 0o666, 0o620, 0o602] {
            assert!(Mapping::of(&set(mode), None, true).is_none(), "{mode:o}");
        }
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).unwrap();
        std::fs::write(&p, b"").unwrap();
        assert!(Mapping::of(&File::open(&p).unwrap(), None, false).is_none());
        assert!(Mapping::of(&File::open(dir.path()).unwrap(), None, false).is_none());
    }

    /// A file owned by another user is mapped only when that user is the trusted extra owner.
    #[test]
    fn another_users_file_is_mapped_only_for_the_trusted_owner() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, b"x").unwrap();
        let meta = std::fs::metadata(&p).unwrap();
        let me = meta.uid();
        assert!(may_map(&meta, None));
        if rustix::process::geteuid().is_root() {
            // As root: a file of `nobody` (65534) is another user's.
            std::os::unix::fs::chown(&p, Some(65534), None).unwrap();
            let meta = std::fs::metadata(&p).unwrap();
            assert!(!may_map(&meta, None));
            assert!(!may_map(&meta, Some(me + 1)));
            assert!(may_map(&meta, Some(65534)));
            assert!(Mapping::of(&File::open(&p).unwrap(), None, false).is_none());
        }
    }
}
