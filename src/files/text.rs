//! Helpers shared by the text readers: UTF-8 and line-length checks, numbered lines, and the
//! number parsers that reject negative, non-numeric, NaN and infinite values.

use crate::fairshare::spec::Shares;
use crate::files::FormatError;

/// Longest line any text reader accepts (1 MiB).
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Inputs from this size up have their lines counted in parts on every worker.
const PARTS_MIN_BYTES: usize = 1 << 22;

/// `bytes` cut after newlines into parts for the workers, or one part when small.
fn parts(bytes: &[u8]) -> Vec<&[u8]> {
    let count = crate::parallel::part_count(bytes.len(), PARTS_MIN_BYTES);
    crate::parallel::line_parts(bytes, count)
}

/// Checks that `bytes` is UTF-8, naming the line of the first bad byte. One checked pass
/// (std's validator, with its ASCII fast path): a check in parts would need an unchecked
/// conversion to join them, and one pass over a 62 MB `sshare` capture is a few milliseconds of
/// one core (`share -a classic` over a million users: 0.4 % more
/// instructions, with the seeded hash, callgrind).
pub(crate) fn utf8<'a>(bytes: &'a [u8], file: &str) -> Result<&'a str, FormatError> {
    std::str::from_utf8(bytes).map_err(|e| bad_utf8(bytes, e.valid_up_to(), file))
}

/// The error for `bytes`, UTF-8 up to `upto`.
fn bad_utf8(bytes: &[u8], upto: usize, file: &str) -> FormatError {
    let line = 1 + bytes
        .get(..upto)
        .map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count());
    FormatError::line(file, line, "not valid UTF-8 text")
}

/// The lines of `text` with their 1-based numbers, a trailing `\r` removed; fails on a line
/// longer than [`MAX_LINE_BYTES`].
pub fn lines<'a>(
    text: &'a str,
    file: &'a str,
) -> impl Iterator<Item = Result<(usize, &'a str), FormatError>> + 'a {
    // A final newline yields one empty last piece; readers skip blank lines anyway. The
    // newlines are found by one SIMD scan (`str::split` starts a search per line).
    let mut newlines = memchr::memchr_iter(b'\n', text.as_bytes());
    let mut start = Some(0);
    let pieces = std::iter::from_fn(move || {
        let from = start?;
        let end = newlines.next();
        start = end.map(|e| e + 1);
        // Cut at a `\n` byte, always a character boundary.
        text.get(from..end.unwrap_or(text.len()))
    });
    pieces.enumerate().map(move |(i, raw)| {
        let n = i + 1;
        if raw.len() > MAX_LINE_BYTES {
            return Err(FormatError::line(
                file,
                n,
                format!("line is longer than {MAX_LINE_BYTES} bytes"),
            ));
        }
        Ok((n, raw.strip_suffix('\r').unwrap_or(raw)))
    })
}

/// Below this size a text file is read into memory; from it up, mapped when nobody but root and
/// the caller can write it ([`FileText`]).
const MAP_MIN_BYTES: u64 = 1 << 20;

/// The bytes of a whole text file: mapped or read ([`crate::mem::FileBytes`]). Derefs to the
/// bytes.
///
/// Reading a 62 MB `sshare` capture into a fresh buffer cost a tenth of `fairsort share`: the
/// kernel zeroes and faults in 15 000 new pages, then copies the file into them; a mapping
/// shares the page cache's pages instead. A file is mapped only when nobody but root and the
/// process's user can write it (`mem::map`: a mapping shows other writers' changes, and the
/// text is handed out as `&str`); others are read, and one written to while it is read is an
/// error. A mapped file truncated *while* fairsort reads it (by root or its owner) kills the
/// process with `SIGBUS` (files replaced by a rename, as `sshare ... > tmp && mv tmp f` does,
/// are never affected). Anything that is not a regular file, and small files, are read the
/// plain way.
pub type FileText = crate::mem::FileBytes;

/// Reads a line-oriented text file, failing on the first line longer than [`MAX_LINE_BYTES`]
/// (naming it). A large regular file that nobody else can write is mapped ([`FileText`]); any
/// other is read in chunks, stopping at the first long line without reading the rest: one bad
/// line of a huge stream costs at most one chunk past the limit, never the whole stream. A
/// regular file written to while it is read is an error (`mem::read_file::Stamp`), not a torn
/// text.
pub fn read_file(path: &std::path::Path, file: &str) -> Result<FileText, FormatError> {
    use std::io::Read;
    /// Bytes read (and checked) at a time.
    const CHUNK: u64 = 1 << 20;
    let io = |source| FormatError::Io {
        file: file.to_string(),
        source,
    };
    let mut f = std::fs::File::open(path).map_err(io)?;
    let meta = f.metadata().map_err(io)?;
    // Read straight into the result, sized once from the file's length (a regular file).
    let size = if meta.is_file() { meta.len() } else { 0 };
    if size >= MAP_MIN_BYTES {
        if let Some(map) = crate::mem::Mapping::of(&f, None, false) {
            // One call maps every page (the file is read whole, front to back), instead of a
            // fault per 64 KiB; kernels before 5.14 read ahead instead.
            map.populate_all();
            check_line_lengths(&map, file)?;
            return Ok(FileText::Mapped(map));
        }
    }
    let stamp = meta
        .is_file()
        .then(|| crate::mem::read_file::Stamp::of(&meta));
    let mut out = Vec::with_capacity(usize::try_from(size).unwrap_or(0).saturating_add(1));
    let mut lengths = LineLengths::default();
    loop {
        let start = out.len();
        let n = match (&mut f).take(CHUNK).read_to_end(&mut out) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io(e)),
        };
        let got = out.get(start..start + n).unwrap_or(&[]);
        lengths.check(got, file)?;
    }
    if let Some(stamp) = stamp {
        stamp.check(&f).map_err(io)?;
    }
    Ok(FileText::Read(out))
}

/// Fails on the first line of `bytes` longer than [`MAX_LINE_BYTES`], naming it.
fn check_line_lengths(bytes: &[u8], file: &str) -> Result<(), FormatError> {
    match first_long_line(bytes, MAX_LINE_BYTES) {
        None => Ok(()),
        Some(line) => Err(FormatError::line(
            file,
            line,
            format!("line is longer than {MAX_LINE_BYTES} bytes"),
        )),
    }
}

/// The 1-based number of the first line of `bytes` longer than `max` bytes. From the start of
/// a line, the next `max + 1` bytes hold its newline unless it is too long, and every line
/// before their last newline is short: one backward search per `max` bytes instead of one
/// search per line (a million-line capture was a fifth of a second of searching).
fn first_long_line(bytes: &[u8], max: usize) -> Option<usize> {
    let mut from = 0;
    while bytes.len() - from > max {
        let window = bytes.get(from..from + max + 1)?;
        match memchr::memrchr(b'\n', window) {
            Some(last) => from += last + 1,
            None => {
                let before = bytes.get(..from).unwrap_or(&[]);
                return Some(1 + memchr::memchr_iter(b'\n', before).count());
            }
        }
    }
    None
}

/// The line-length check over a file given in pieces, in order.
struct LineLengths {
    /// 1-based number of the current line.
    line: usize,
    /// Bytes of the current line seen so far.
    len: usize,
}

impl Default for LineLengths {
    fn default() -> Self {
        LineLengths { line: 1, len: 0 }
    }
}

impl LineLengths {
    /// Checks the next piece of the file.
    fn check(&mut self, got: &[u8], file: &str) -> Result<(), FormatError> {
        let too_long = |line: usize| {
            FormatError::line(
                file,
                line,
                format!("line is longer than {MAX_LINE_BYTES} bytes"),
            )
        };
        // Lines in order: the first one too long is named.
        let mut from = 0usize;
        for nl in memchr::memchr_iter(b'\n', got) {
            if self.len + (nl - from) > MAX_LINE_BYTES {
                return Err(too_long(self.line));
            }
            self.line += 1;
            self.len = 0;
            from = nl + 1;
        }
        self.len += got.len() - from;
        if self.len > MAX_LINE_BYTES {
            return Err(too_long(self.line));
        }
        Ok(())
    }
}

/// An upper bound on the number of lines of `text` (newlines + 1), to size vectors and maps
/// once instead of growing them line by line (a vectorised byte count).
pub(crate) fn line_count_hint(text: &str) -> usize {
    let count = |b: &[u8]| b.iter().filter(|&&c| c == b'\n').count();
    let counts = crate::parallel::run_parts(parts(text.as_bytes()), count);
    1 + counts.into_iter().sum::<usize>()
}

/// A share count: a non-negative integer.
pub(crate) fn parse_count(s: &str, what: &str) -> Result<u64, String> {
    let t = s.trim();
    if let Some(digits) = t.strip_prefix('-') {
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("{what} `{t}` is negative"));
        }
    }
    let digits = t.strip_prefix('+').unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{what} `{t}` is not a non-negative integer"));
    }
    digits
        .parse::<u64>()
        .map_err(|_| format!("{what} `{t}` is too large"))
}

/// Shares as Slurm prints them: an integer or `parent`.
pub(crate) fn parse_shares(s: &str, what: &str) -> Result<Shares, String> {
    if s.trim().eq_ignore_ascii_case("parent") {
        Ok(Shares::Parent)
    } else {
        parse_count(s, what).map(Shares::Count)
    }
}

/// A usage value: a finite, non-negative number.
pub(crate) fn parse_usage(s: &str, what: &str) -> Result<f64, String> {
    let t = s.trim();
    let v: f64 = t
        .parse()
        .map_err(|_| format!("{what} `{t}` is not a number"))?;
    check_usage(v, what)
}

/// Rejects NaN, infinities and negative usage.
pub(crate) fn check_usage(v: f64, what: &str) -> Result<f64, String> {
    if v.is_nan() {
        Err(format!("{what} is NaN"))
    } else if v.is_infinite() {
        Err(format!("{what} is infinite"))
    } else if v < 0.0 {
        Err(format!("{what} {v} is negative"))
    } else {
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first long line is the first line of `split('\n')` longer than the limit, for every
    /// text of up to 9 bytes of `a` and `\n` and limits 0 to 4.
    #[test]
    fn first_long_line_is_the_first_line_over_the_limit() {
        for len in 0..=9u32 {
            for bits in 0..1u32 << len {
                let text: Vec<u8> = (0..len)
                    .map(|i| if bits >> i & 1 == 1 { b'\n' } else { b'a' })
                    .collect();
                for max in 0..=4 {
                    let want = (text.split(|&b| b == b'\n'))
                        .position(|l| l.len() > max)
                        .map(|i| i + 1);
                    assert_eq!(first_long_line(&text, max), want, "{text:?} max {max}");
                }
            }
        }
        let ok = format!(
            "{}\n{}",
            "x".repeat(MAX_LINE_BYTES),
            "y".repeat(MAX_LINE_BYTES)
        );
        assert!(check_line_lengths(ok.as_bytes(), "f").is_ok());
        let bad = format!("a\nb\n{}", "x".repeat(MAX_LINE_BYTES + 1));
        let e = check_line_lengths(bad.as_bytes(), "f")
            .unwrap_err()
            .to_string();
        assert!(e.contains("f:3:") && e.contains("longer than"), "{e}");
    }

    /// Large inputs (whose lines are counted in parts): the same text, or the same first bad
    /// line, wherever it is; and the same line count.
    #[test]
    fn parts_check_and_count_as_one_pass() {
        let line = "  acct|us\u{e9}r|1|0.5|10|\n";
        let n = 3 * PARTS_MIN_BYTES / line.len() + 9;
        let text = line.repeat(n);
        assert!(parts(text.as_bytes()).len() > 1 || crate::parallel::workers() == 1);
        assert_eq!(utf8(text.as_bytes(), "f").unwrap(), text);
        assert_eq!(line_count_hint(&text), n + 1);
        for bad_line in [3, n / 3, n / 2, n / 2 + 1, n - 1] {
            let mut bytes = text.clone().into_bytes();
            let at = (bad_line - 1) * line.len() + 10; // the second byte of `é`
            bytes[at] = b'x';
            let mut second = bytes.clone();
            second[(n - 1) * line.len() + 10] = b'x';
            let want = format!("f:{bad_line}:");
            for b in [&bytes, &second] {
                let e = utf8(b, "f").unwrap_err().to_string();
                assert!(
                    e.contains(&want) && e.contains("UTF-8"),
                    "{e} (want {want})"
                );
            }
        }
        // Small inputs: one pass, the same answers.
        assert_eq!(utf8(line.as_bytes(), "f").unwrap(), line);
        assert_eq!(line_count_hint(line), 2);
        assert!(utf8(b"ok\n\xff", "f")
            .unwrap_err()
            .to_string()
            .contains("f:2:"));
    }

    /// `lines` cuts where `str::split('\n')` cuts, with the same numbers and `\r` removal.
    #[test]
    fn lines_are_the_split_at_newlines() {
        for text in [
            "",
            "\n",
            "a",
            "a\n",
            "a\nb",
            "a\r\nb\r\n",
            "\n\n\nx\n\n",
            "j\u{e9}r\u{f4}me\n\u{4e2d}\r\n\r",
            " root|||1|\n  a|u|1|2|\n",
        ] {
            let want: Vec<(usize, &str)> = (text.split('\n').enumerate())
                .map(|(i, raw)| (i + 1, raw.strip_suffix('\r').unwrap_or(raw)))
                .collect();
            let got: Vec<(usize, &str)> = lines(text, "f").map(Result::unwrap).collect();
            assert_eq!(got, want, "{text:?}");
        }
        let long = format!("ok\n{}\n", "x".repeat(MAX_LINE_BYTES + 1));
        let got: Vec<_> = lines(&long, "f").collect();
        assert!(got[0].is_ok() && got[2].is_ok(), "{got:?}");
        let e = got[1].as_ref().unwrap_err().to_string();
        assert!(e.contains("f:2:") && e.contains("longer than"), "{e}");
    }

    #[test]
    fn counts() {
        assert_eq!(parse_count("40", "shares"), Ok(40));
        assert_eq!(parse_count(" +7 ", "shares"), Ok(7));
        assert!(parse_count("-3", "shares")
            .unwrap_err()
            .contains("negative"));
        assert!(parse_count("1.5", "shares").is_err());
        assert!(parse_count("", "shares").is_err());
        assert!(parse_count("x", "shares").is_err());
        assert!(parse_count("99999999999999999999999", "shares").is_err());
    }

    #[test]
    fn usages() {
        assert_eq!(parse_usage("1e3", "usage"), Ok(1000.0));
        assert!(parse_usage("nan", "usage").unwrap_err().contains("NaN"));
        assert!(parse_usage("inf", "usage")
            .unwrap_err()
            .contains("infinite"));
        assert!(parse_usage("-1", "usage").unwrap_err().contains("negative"));
        assert!(parse_usage("abc", "usage").is_err());
    }

    #[test]
    fn utf8_error_names_line() {
        let e = utf8(b"ok\nbad \xff\n", "f").unwrap_err();
        assert_eq!(e.to_string(), "f:2: not valid UTF-8 text");
    }

    #[test]
    fn read_file_keeps_the_bytes_and_names_the_first_long_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t");
        // Lines across the 1 MiB reads, the last one without a newline.
        let mut text = String::new();
        for i in 0..200_000 {
            text += &format!("line {i} {}\n", "x".repeat(i % 13));
        }
        text += "end";
        std::fs::write(&p, &text).unwrap();
        assert_eq!(&*read_file(&p, "t").unwrap(), text.as_bytes());
        assert!(matches!(read_file(&p, "t"), Ok(FileText::Mapped(_))));
        // A small file is read, with the same check.
        std::fs::write(&p, "a\nb").unwrap();
        assert!(matches!(read_file(&p, "t"), Ok(FileText::Read(b)) if b == b"a\nb"));
        // A long line that straddles a read, after short ones; then one at the very end.
        let long = "a".repeat(MAX_LINE_BYTES + 1);
        for (body, want) in [
            (
                format!("{}\n{long}\nshort\n", "b".repeat(MAX_LINE_BYTES - 5)),
                2,
            ),
            (format!("x\ny\n{long}"), 3),
            (format!("{}\n", "c".repeat(MAX_LINE_BYTES)), 0),
        ] {
            std::fs::write(&p, &body).unwrap();
            match read_file(&p, "t") {
                Ok(b) => assert_eq!((want, b.len()), (0, body.len())),
                Err(e) => assert_eq!(e.line_number(), Some(want)),
            }
        }
    }

    /// A large text file that another user could write (here: its group) is read, not mapped,
    /// and rewritten in place while it is read over and over: each read gives one version
    /// whole, or the error that the file changed while it was read, or (a write already under
    /// way when the read began) a copy in the process's own memory whose every byte is one of
    /// the two versions' bytes at that place, to be checked like any input. Never a crash or
    /// a view of bytes that change after they were checked.
    #[test]
    fn a_file_rewritten_in_place_while_it_is_read_gives_a_version_or_an_error() {
        use std::os::unix::fs::{FileExt, PermissionsExt};
        use std::sync::atomic::{AtomicBool, Ordering};
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("tree");
        let version = |c: char| format!("{} 7 root 1\n", c.to_string().repeat(12)).repeat(150_000);
        let (a, b) = (version('a'), version('b'));
        assert!(a.len() as u64 > MAP_MIN_BYTES);
        std::fs::write(&p, &a).unwrap();
        assert!(matches!(read_file(&p, "tree"), Ok(FileText::Mapped(_))));
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o664)).unwrap();
        assert!(matches!(read_file(&p, "tree"), Ok(FileText::Read(_))));
        let done = AtomicBool::new(false);
        let (mut whole, mut changed, mut torn, mut reads) = (0, 0, 0, 0);
        std::thread::scope(|s| {
            s.spawn(|| {
                let w = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
                for i in 0..40 {
                    let v = if i % 2 == 0 { &b } else { &a };
                    w.write_all_at(v.as_bytes(), 0).unwrap();
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
                done.store(true, Ordering::Release);
            });
            // Reads while the writer writes, then three after it is done.
            let mut after = 0;
            while after < 3 {
                if done.load(Ordering::Acquire) {
                    after += 1;
                }
                reads += 1;
                match read_file(&p, "tree") {
                    Ok(FileText::Read(got)) => {
                        assert_eq!(got.len(), a.len());
                        if got == a.as_bytes() || got == b.as_bytes() {
                            whole += 1;
                        } else {
                            let mixed = (got.iter().zip(a.bytes().zip(b.bytes())))
                                .all(|(&g, (x, y))| g == x || g == y);
                            assert!(mixed, "a byte of neither version");
                            torn += 1;
                        }
                    }
                    Ok(FileText::Mapped(_)) => panic!("a group-writable file was mapped"),
                    Err(e) => {
                        let e = e.to_string();
                        assert!(
                            e.starts_with("tree: ") && e.contains("changed while it was read"),
                            "{e}"
                        );
                        changed += 1;
                    }
                }
            }
        });
        assert_eq!(whole + changed + torn, reads);
        // The reads after the last write see one version whole.
        assert!(whole >= 3, "{whole} whole, {changed} changed, {torn} torn");
    }

    #[test]
    fn long_line_refused() {
        let long = "a".repeat(MAX_LINE_BYTES + 1);
        let text = format!("x\n{long}\n");
        let r: Result<Vec<_>, _> = lines(&text, "f").collect();
        assert_eq!(r.unwrap_err().line_number(), Some(2));
    }
}
