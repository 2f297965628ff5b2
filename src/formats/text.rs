//! Helpers shared by the text readers: UTF-8 and line-length checks, numbered lines, and the
//! number parsers that reject negative, non-numeric, NaN and infinite values.

use super::FormatError;
use crate::fairshare::spec::Shares;

/// Longest line any text reader accepts (1 MiB).
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Checks that `bytes` is UTF-8, naming the line of the first bad byte.
pub(crate) fn utf8<'a>(bytes: &'a [u8], file: &str) -> Result<&'a str, FormatError> {
    std::str::from_utf8(bytes).map_err(|e| {
        let upto = e.valid_up_to();
        let line = 1 + bytes
            .get(..upto)
            .map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count());
        FormatError::line(file, line, "not valid UTF-8 text")
    })
}

/// The lines of `text` with their 1-based numbers, a trailing `\r` removed; fails on a line
/// longer than [`MAX_LINE_BYTES`].
pub fn lines<'a>(
    text: &'a str,
    file: &'a str,
) -> impl Iterator<Item = Result<(usize, &'a str), FormatError>> + 'a {
    // A final newline yields one empty last piece; readers skip blank lines anyway.
    text.split('\n').enumerate().map(move |(i, raw)| {
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

/// Reads a line-oriented text file, failing as soon as a line is longer than
/// [`MAX_LINE_BYTES`] (naming it) without reading the rest: one bad line of a huge file costs
/// at most one chunk past the limit, never the whole file.
pub fn read_file(path: &std::path::Path, file: &str) -> Result<Vec<u8>, FormatError> {
    use std::io::Read;
    /// Bytes read (and checked) at a time.
    const CHUNK: u64 = 1 << 20;
    let io = |source| FormatError::Io {
        file: file.to_string(),
        source,
    };
    let mut f = std::fs::File::open(path).map_err(io)?;
    // Read straight into the result, sized once from the file's length (a regular file).
    let size = f
        .metadata()
        .map_or(0, |m| if m.is_file() { m.len() } else { 0 });
    let mut out = Vec::with_capacity(usize::try_from(size).unwrap_or(0).saturating_add(1));
    let too_long = |line: usize| {
        FormatError::line(
            file,
            line,
            format!("line is longer than {MAX_LINE_BYTES} bytes"),
        )
    };
    let (mut line, mut line_len) = (1usize, 0usize);
    loop {
        let start = out.len();
        let n = match (&mut f).take(CHUNK).read_to_end(&mut out) {
            Ok(0) => return Ok(out),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io(e)),
        };
        let got = out.get(start..start + n).unwrap_or(&[]);
        // Lines in order: the first one too long is named, without reading further.
        let mut from = 0usize;
        for nl in memchr::memchr_iter(b'\n', got) {
            if line_len + (nl - from) > MAX_LINE_BYTES {
                return Err(too_long(line));
            }
            line += 1;
            line_len = 0;
            from = nl + 1;
        }
        line_len += got.len() - from;
        if line_len > MAX_LINE_BYTES {
            return Err(too_long(line));
        }
    }
}

/// An upper bound on the number of lines of `text` (newlines + 1), to size vectors and maps
/// once instead of growing them line by line (a vectorised byte count).
pub(crate) fn line_count_hint(text: &str) -> usize {
    1 + text.bytes().filter(|&b| b == b'\n').count()
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
        assert_eq!(e.to_string(), "f: line 2: not valid UTF-8 text");
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
        assert_eq!(read_file(&p, "t").unwrap(), text.as_bytes());
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

    #[test]
    fn long_line_refused() {
        let long = "a".repeat(MAX_LINE_BYTES + 1);
        let text = format!("x\n{long}\n");
        let r: Result<Vec<_>, _> = lines(&text, "f").collect();
        assert_eq!(r.unwrap_err().line_number(), Some(2));
    }
}
