//! A cheaper freshness check for `snapshot.bin` than hashing 7 MB of text each run: the
//! *identity* of the text files (device, inode, size, mtime and ctime to the nanosecond, as
//! `fstat` gives them), with git's rule for "racily clean" files made strict.
//!
//! A write to a file sets its ctime to the kernel's clock at that moment (which no user can set
//! back: `utimes` sets mtime but ctime to now), so once a file's ctime is older than the
//! timestamp granularity, any later change changes its identity. The snapshot records an
//! identity only when that holds at the moment it is checked ([`Ident::of`]'s `settled`):
//! every file's ctime older than `now` minus a margin ([`margin`]: 50 ms where timestamps
//! have sub-second parts, which covers the kernel's coarse clock tick; 2 s where they are whole
//! seconds), and the content hashed *after* the identity was taken equal to the snapshot's key.
//! A change made before that moment shows in the content; one made after, in the identity.
//! Until then (a file changed within the margin) readers hash the text as before.
//! What this trusts beyond the content key: that the system clock does not step back by more
//! than the margin, and that the filesystem updates ctime on writes (every local Linux one
//! does).

use std::fs::File;
use std::os::unix::fs::MetadataExt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A hash of the text files' identities (and of what else the snapshot's key covers but
/// their content).
pub type Ident = [u8; 32];

/// The margin a file's ctime must be older than `now` by: one that covers the timestamp
/// granularity (a coarse clock tick of 1-10 ms where timestamps have sub-second parts; whole
/// seconds, or FAT's two, where they do not).
fn margin(m: &std::fs::Metadata) -> Duration {
    if m.ctime_nsec() == 0 && m.mtime_nsec() == 0 {
        Duration::from_secs(2)
    } else {
        Duration::from_millis(50)
    }
}

/// The identity of the text files (`tree`: the tree file's name and the file; `usage`:
/// `usage.toml` if it exists) for `unknown_shares`, and whether it is settled: every file's
/// ctime older than now by the margin, so any later change changes the identity.
pub fn of(
    tree: (&str, &File),
    usage: Option<&File>,
    unknown_shares: u64,
) -> std::io::Result<(Ident, bool)> {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let mut h = blake3::Hasher::new();
    h.update(b"fairsort home snapshot identity\0");
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    h.update(&crate::home::snapshot_layout::LAYOUT.to_le_bytes());
    h.update(&(tree.0.len() as u64).to_le_bytes());
    h.update(tree.0.as_bytes());
    let mut settled = true;
    let mut file = |h: &mut blake3::Hasher, f: &File| -> std::io::Result<()> {
        let m = f.metadata()?;
        for v in [m.dev(), m.ino(), m.size()] {
            h.update(&v.to_le_bytes());
        }
        for v in [m.mtime(), m.mtime_nsec(), m.ctime(), m.ctime_nsec()] {
            h.update(&v.to_le_bytes());
        }
        let ctime = Duration::new(
            u64::try_from(m.ctime()).unwrap_or(0),
            u32::try_from(m.ctime_nsec()).unwrap_or(0),
        );
        // A ctime before 1970 or after `now` is not settled either.
        settled &= m.ctime() > 0 && ctime + margin(&m) < now;
        Ok(())
    };
    file(&mut h, tree.1)?;
    match usage {
        Some(f) => {
            h.update(&[1]);
            file(&mut h, f)?;
        }
        None => {
            h.update(&[0]);
        }
    }
    h.update(&unknown_shares.to_le_bytes());
    Ok((*h.finalize().as_bytes(), settled))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_change_of_a_file_changes_the_identity() {
        let dir = tempfile::tempdir().unwrap();
        let (t, u) = (dir.path().join("t"), dir.path().join("u"));
        std::fs::write(&t, b"tree").unwrap();
        std::fs::write(&u, b"usage").unwrap();
        let open = |p: &std::path::Path| File::open(p).unwrap();
        let id = |usage: bool| {
            let u = usage.then(|| open(&u));
            of(("resource_group", &open(&t)), u.as_ref(), 0).unwrap()
        };
        let (a, settled) = id(true);
        // Just written: within the margin.
        assert!(!settled);
        assert_eq!(id(true).0, a);
        assert_ne!(id(false).0, a);
        assert_ne!(
            of(("tree.toml", &open(&t)), Some(&open(&u)), 0).unwrap().0,
            a
        );
        assert_ne!(
            of(("resource_group", &open(&t)), Some(&open(&u)), 1)
                .unwrap()
                .0,
            a
        );
        // A same-size rewrite with the old mtime put back: the ctime tells.
        let meta = std::fs::metadata(&u).unwrap();
        std::thread::sleep(Duration::from_millis(20));
        std::fs::write(&u, b"USAGE").unwrap();
        let f = File::options().write(true).open(&u).unwrap();
        f.set_modified(meta.modified().unwrap()).unwrap();
        assert_eq!(std::fs::metadata(&u).unwrap().len(), meta.len());
        assert_ne!(id(true).0, a);
    }

    #[test]
    fn an_old_file_is_settled() {
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path().join("t");
        std::fs::write(&t, b"tree").unwrap();
        std::thread::sleep(Duration::from_millis(60));
        let m = std::fs::metadata(&t).unwrap();
        let (_, settled) = of(("resource_group", &File::open(&t).unwrap()), None, 0).unwrap();
        // Settled once the margin has passed (2 s on a filesystem of whole seconds).
        assert_eq!(settled, margin(&m) < Duration::from_millis(60));
    }
}
