//! Reading an accounting log line by line with a bound on the memory one line may take, so a
//! corrupt log with a 100 MB "line" is reported and skipped, never held in memory.

use std::io::{self, BufRead};

/// Longest line the accounting-log readers accept (1 MiB); a longer one is a malformed record.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// The message for a line longer than [`MAX_LINE_BYTES`].
pub fn too_long_message() -> String {
    format!("line is longer than {MAX_LINE_BYTES} bytes")
}

/// The number (1-based) of the first line of `text` longer than [`MAX_LINE_BYTES`]: the bound
/// for inputs parsed whole (CSV job lists, `fairsort test` files, qmgr scripts), so one
/// oversize record is reported instead of parsed.
pub fn first_overlong_line(text: &[u8]) -> Option<usize> {
    text.split(|&b| b == b'\n')
        .position(|line| line.len() > MAX_LINE_BYTES)
        .map(|i| i + 1)
}

/// Reads up to and including the next `\n` into `buf` (cleared first) and returns the number of
/// bytes consumed (0 at the end of the input) and whether the line (without its `\n`) was longer
/// than `max` bytes. A longer line is consumed to its end but `buf` keeps only its first bytes.
pub(crate) fn read_line(
    r: &mut dyn BufRead,
    buf: &mut Vec<u8>,
    max: usize,
) -> io::Result<(usize, bool)> {
    buf.clear();
    let limit = max.saturating_add(1); // room for the `\n`
    let mut consumed = 0usize;
    let mut too_long = false;
    loop {
        let chunk = match r.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            break;
        }
        let (part, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (chunk.get(..=i).unwrap_or(chunk), true),
            None => (chunk, false),
        };
        let n = part.len();
        if !too_long {
            let room = limit.saturating_sub(buf.len());
            if n > room {
                too_long = true;
                buf.extend_from_slice(part.get(..room).unwrap_or(&[]));
            } else {
                buf.extend_from_slice(part);
            }
        }
        r.consume(n);
        consumed += n;
        if done {
            break;
        }
    }
    // A line of exactly `max` bytes without a final `\n` filled the `\n`'s room: still fine.
    if too_long || buf.len() > max && buf.last() != Some(&b'\n') {
        too_long = true;
    }
    Ok((consumed, too_long))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(input: &[u8], max: usize) -> Vec<(Vec<u8>, usize, bool)> {
        let mut r = io::BufReader::with_capacity(4, input);
        let mut buf = Vec::new();
        let mut out = Vec::new();
        loop {
            let (n, long) = read_line(&mut r, &mut buf, max).unwrap();
            if n == 0 {
                return out;
            }
            out.push((buf.clone(), n, long));
        }
    }

    #[test]
    fn splits_lines_and_flags_long_ones() {
        let got = all(b"abc\n0123456789\nxy", 5);
        assert_eq!(got.len(), 3);
        assert_eq!(got[0], (b"abc\n".to_vec(), 4, false));
        assert_eq!(got[1].1, 11);
        assert!(got[1].2);
        assert!(got[1].0.len() <= 6);
        assert_eq!(got[2], (b"xy".to_vec(), 2, false));
    }

    #[test]
    fn exact_length_lines_fit() {
        let got = all(b"12345\n12345", 5);
        assert_eq!(got[0], (b"12345\n".to_vec(), 6, false));
        assert_eq!(got[1], (b"12345".to_vec(), 5, false));
        let got = all(b"123456", 5);
        assert!(got[0].2);
    }
}
