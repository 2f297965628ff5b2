//! The one reader of PBS accounting records, shared by `usage record` (charging `E` records) and
//! `replay` (jobs of a trace): a log's lines, each `date;type;id;message` split into an
//! [`AcctRecord`] (the date as epoch seconds), and a message's `key=value` attributes split by
//! the quote-aware splitter (`key="a value with spaces"` is one attribute).

use crate::pbs::accounting::attr_scan::{for_each_attr, Masks};
use crate::usage::units::pbs_log_date;

/// One accounting record, borrowed from its line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AcctRecord<'a> {
    /// The record's date (`MM/DD/YYYY HH:MM:SS`), epoch seconds.
    pub date: i64,
    /// The record type (`Q`, `S`, `E`, ...).
    pub kind: &'a [u8],
    /// The job id (or reservation id), as the line spells it.
    pub id: &'a [u8],
    /// The message: the record's attributes (empty when the line has no fourth field).
    pub message: &'a [u8],
}

impl AcctRecord<'_> {
    /// Whether this is a record of type `kind` (`b"E"`).
    pub fn is(&self, kind: &[u8]) -> bool {
        self.kind == kind
    }
}

/// Why a line is not an accounting record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordError {
    /// Fewer than three `;`-separated fields.
    NotARecord,
    /// The first field is not a date (its text, lossily decoded).
    BadDate(String),
}

impl std::fmt::Display for RecordError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RecordError::NotARecord => {
                f.write_str("not a PBS accounting record (expected `date;type;id;message`)")
            }
            RecordError::BadDate(d) => {
                write!(f, "bad record date `{d}` (expected MM/DD/YYYY HH:MM:SS)")
            }
        }
    }
}

/// Reads records one line at a time, reusing its scratch space (the last date read, the
/// attribute splitter's masks) from line to line.
#[derive(Debug, Default)]
pub struct RecordReader {
    /// The last record date read and its value: consecutive records mostly share it.
    last_date: Option<([u8; 19], i64)>,
    /// The zone the log's dates are in (PBS writes the server's local time); None is UTC.
    zone: Option<jiff::tz::TimeZone>,
    /// Scratch space of the attribute splitter.
    masks: Masks,
}

impl RecordReader {
    /// A reader of a log whose dates are in `zone` (the server's local time, `TZ` on the
    /// scheduler host).
    pub fn in_zone(zone: jiff::tz::TimeZone) -> Self {
        RecordReader {
            zone: Some(zone),
            ..RecordReader::default()
        }
    }

    /// Splits one line (without its line end) into a record.
    #[inline]
    pub fn record<'a>(&mut self, line: &'a [u8]) -> Result<AcctRecord<'a>, RecordError> {
        let mut parts = line.splitn(4, |c| *c == b';');
        let date = parts.next().unwrap_or_default();
        let (Some(kind), Some(id)) = (parts.next(), parts.next()) else {
            return Err(RecordError::NotARecord);
        };
        let Some(date) = self.date(date) else {
            return Err(RecordError::BadDate(
                String::from_utf8_lossy(date).into_owned(),
            ));
        };
        Ok(AcctRecord {
            date,
            kind,
            id,
            message: parts.next().unwrap_or_default(),
        })
    }

    /// [`pbs_log_date`], remembering the last date read.
    #[inline]
    fn date(&mut self, text: &[u8]) -> Option<i64> {
        let raw = <[u8; 19]>::try_from(text).ok()?;
        match self.last_date {
            Some((last, t)) if last == raw => Some(t),
            _ => {
                let t = pbs_log_date(text)?;
                let t = match &self.zone {
                    Some(zone) => crate::jobs::dates::in_zone(t, zone)?,
                    None => t,
                };
                self.last_date = Some((raw, t));
                Some(t)
            }
        }
    }

    /// Calls `f` with each attribute of a record's message, in order (a quoted value without
    /// its quotes). The first complaint (an attribute without `=`, an unterminated quote, or
    /// `f`'s) ends it.
    #[inline]
    pub fn attrs<'a>(
        &mut self,
        message: &'a [u8],
        f: impl FnMut(&'a [u8], &'a [u8]) -> Result<(), String>,
    ) -> Result<(), String> {
        for_each_attr(message, &mut self.masks, f)
    }
}

/// What a line of a log holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineText<'a> {
    /// The line without its line end (`\n`, `\r\n`).
    Text(&'a [u8]),
    /// Nothing but white space: not a record.
    Blank,
    /// Longer than [`crate::files::lines::MAX_LINE_BYTES`]: never parsed.
    TooLong,
}

/// A raw line (without its `\n`) as a record reader sees it.
#[inline]
pub fn line_text(raw: &[u8]) -> LineText<'_> {
    if raw.len() > crate::files::lines::MAX_LINE_BYTES {
        return LineText::TooLong;
    }
    let mut line = raw;
    while let Some((last, rest)) = line.split_last() {
        if *last == b'\n' || *last == b'\r' {
            line = rest;
        } else {
            break;
        }
    }
    if line.iter().all(u8::is_ascii_whitespace) {
        LineText::Blank
    } else {
        LineText::Text(line)
    }
}

/// One line of a log text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'a> {
    /// 1-based line number in the text.
    pub number: u64,
    /// Offset of the line's first byte in the text.
    pub start: usize,
    /// What it holds.
    pub text: LineText<'a>,
}

/// The lines of a log text (the last may lack its `\n`).
pub fn lines(text: &[u8]) -> Lines<'_> {
    Lines {
        text,
        pos: 0,
        number: 0,
    }
}

/// See [`lines`].
#[derive(Debug, Clone)]
pub struct Lines<'a> {
    text: &'a [u8],
    pos: usize,
    number: u64,
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;

    #[inline]
    fn next(&mut self) -> Option<Line<'a>> {
        let text = self.text;
        let rest = text.get(self.pos..).filter(|r| !r.is_empty())?;
        let start = self.pos;
        let raw = match memchr::memchr(b'\n', rest) {
            Some(i) => {
                self.pos += i + 1;
                rest.get(..i).unwrap_or_default()
            }
            None => {
                self.pos = text.len();
                rest
            }
        };
        self.number += 1;
        Some(Line {
            number: self.number,
            start,
            text: line_text(raw),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_lines_and_attributes() {
        let log = b"04/13/2024 11:00:00;E;1.srv;user=a account=\"big project\" Resource_List.select=\"1:ncpus=2:mem=1gb\"\r\n\n  \n04/13/2024 11:00:00;Q;2.srv\nno record\n13/13/2024 11:00:00;Q;3;\n";
        let got: Vec<Line<'_>> = lines(log).collect();
        assert_eq!(got.len(), 6);
        assert_eq!(
            (got[1].text, got[2].text),
            (LineText::Blank, LineText::Blank)
        );
        assert_eq!(
            got[3].start,
            log.iter().position(|c| *c == b'\n').unwrap() + 5
        );
        let mut r = RecordReader::default();
        let LineText::Text(first) = got[0].text else {
            panic!("{:?}", got[0])
        };
        let rec = r.record(first).unwrap();
        assert!(rec.is(b"E") && !rec.is(b"Q"));
        assert_eq!((rec.date, rec.id), (1_713_006_000, &b"1.srv"[..]));
        let mut attrs = Vec::new();
        r.attrs(rec.message, |k, v| {
            attrs.push((k, v));
            Ok(())
        })
        .unwrap();
        assert_eq!(
            attrs,
            [
                (&b"user"[..], &b"a"[..]),
                (b"account", b"big project"),
                (b"Resource_List.select", b"1:ncpus=2:mem=1gb"),
            ]
        );
        let LineText::Text(q) = got[3].text else {
            panic!()
        };
        assert_eq!(r.record(q).unwrap().message, b"");
        let LineText::Text(bad) = got[4].text else {
            panic!()
        };
        assert_eq!(r.record(bad), Err(RecordError::NotARecord));
        let LineText::Text(date) = got[5].text else {
            panic!()
        };
        assert_eq!(
            r.record(date).unwrap_err().to_string(),
            "bad record date `13/13/2024 11:00:00` (expected MM/DD/YYYY HH:MM:SS)"
        );
        let long = vec![b'x'; crate::files::lines::MAX_LINE_BYTES + 1];
        assert_eq!(line_text(&long), LineText::TooLong);
        assert_eq!(lines(b"").count(), 0);
        assert_eq!(
            lines(b"a").next().map(|l| l.text),
            Some(LineText::Text(b"a"))
        );
    }

    #[test]
    fn dates_are_read_in_the_servers_zone() {
        let paris = jiff::tz::TimeZone::posix("CET-1CEST,M3.5.0,M10.5.0/3").unwrap();
        let line = |d: &str| format!("{d};E;1.srv;user=amy");
        let mut utc = RecordReader::default();
        let mut local = RecordReader::in_zone(paris);
        // 12:00 in Paris in April (CEST, +02:00) is 10:00 UTC.
        let l = line("04/13/2024 12:00:00");
        assert_eq!(utc.record(l.as_bytes()).unwrap().date, 1_713_009_600);
        assert_eq!(
            local.record(l.as_bytes()).unwrap().date,
            1_713_009_600 - 7200
        );
        // In January (CET, +01:00), one hour; the cached date is the zone's too.
        let l = line("01/13/2024 12:00:00");
        let t = local.record(l.as_bytes()).unwrap().date;
        assert_eq!(t, utc.record(l.as_bytes()).unwrap().date - 3600);
        assert_eq!(local.record(l.as_bytes()).unwrap().date, t);
    }
}
