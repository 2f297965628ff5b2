//! Reading a large job file into memory on two threads. A million-job `qstat -f -F json` file
//! is 1.5 GB: `std::fs::read` spends about a second copying it from the page cache and
//! faulting in the fresh buffer on one core; reading the two halves at once (positioned reads
//! into the two halves of one zeroed, lazily-mapped buffer) splits that work between the cores.

use std::fs::File;
use std::io;
use std::path::Path;

/// Below this size the file is read on the calling thread.
const PARALLEL_MIN_BYTES: u64 = 64 << 20;

/// The whole file, as `std::fs::read` returns it. If the file changes size while it is read,
/// it is read again the plain way.
pub fn read_file(path: &Path) -> io::Result<Vec<u8>> {
    let file = File::open(path)?;
    let len = file.metadata()?.len();
    if len < PARALLEL_MIN_BYTES {
        return std::fs::read(path);
    }
    match read_halves(&file, len) {
        Some(buf) => Ok(buf),
        None => std::fs::read(path),
    }
}

#[cfg(unix)]
fn read_halves(file: &File, len: u64) -> Option<Vec<u8>> {
    use std::os::unix::fs::FileExt;
    let n = usize::try_from(len).ok()?;
    let mut buf = vec![0u8; n];
    let mid = n / 2;
    let (first, second) = buf.split_at_mut(mid);
    let (a, b) = std::thread::scope(|s| {
        let b = s.spawn(|| file.read_exact_at(second, mid as u64).is_ok());
        let a = file.read_exact_at(first, 0).is_ok();
        (a, b.join().unwrap_or(false))
    });
    // Grown since `metadata`: one more byte is there.
    let mut probe = [0u8; 1];
    let grown = file.read_at(&mut probe, len).map_or(true, |k| k > 0);
    (a && b && !grown).then_some(buf)
}

#[cfg(not(unix))]
fn read_halves(_file: &File, _len: u64) -> Option<Vec<u8>> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_small_and_large_files_whole() {
        let dir = tempfile::tempdir().unwrap();
        let small = dir.path().join("small");
        std::fs::write(&small, b"abc").unwrap();
        assert_eq!(read_file(&small).unwrap(), b"abc");
        let large = dir.path().join("large");
        let data: Vec<u8> = (0..(PARALLEL_MIN_BYTES as usize + 12_345))
            .map(|i| (i * 31 % 251) as u8)
            .collect();
        std::fs::write(&large, &data).unwrap();
        assert!(read_file(&large).unwrap() == data);
        assert!(read_file(&dir.path().join("missing")).is_err());
    }
}
