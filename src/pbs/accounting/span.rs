//! A span of a PBS accounting log parsed on a worker thread into what charging needs and
//! nothing more: per finished job its ledger line (already formatted), its fingerprint, its
//! entity and charge, all in one reused buffer; per malformed record its complaint. Charging
//! (in file order, on one thread) then only looks up, adds and copies.

use crate::digits::push_int;
use crate::pbs::accounting::log::{EntityName, JobParts, PbsLogReader, ReadStats};
use crate::pbs::accounting::reader::LineText;
use crate::usage::job::{fingerprint, Source};
use crate::usage::settings::check_time;
use crate::usage::store::{check_name, check_usage};
use std::fmt::Write as _;

/// One record of a parsed span, in file order.
#[derive(Debug)]
pub(crate) struct Rec {
    /// 1-based line in the span.
    pub line: u64,
    /// Offset of the line's first byte in the span.
    pub start: u64,
    /// The charge failed to evaluate (the job is charged 0, as PBS does).
    pub eval_error: bool,
    /// The job, or why the record is malformed.
    pub kind: Result<JobAt, String>,
}

/// A checked job of a span: where its ledger line and entity are in [`PbsSpan::buf`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct JobAt {
    /// [`fingerprint`] of (pbs, id, end).
    pub fp: u128,
    /// The charge.
    pub charge: f64,
    /// The ledger line (with its `\n`): `buf[line.0..line.1]`.
    pub line: (usize, usize),
    /// The entity's name: `buf[entity.0..entity.1]`.
    pub entity: (usize, usize),
}

/// A parsed span of whole lines, reused from round to round (its buffers keep their capacity).
#[derive(Debug, Default)]
pub(crate) struct PbsSpan {
    /// Jobs and malformed records, in order.
    pub recs: Vec<Rec>,
    /// The jobs' ledger lines, one after the other.
    pub buf: String,
    /// Lines in the span.
    pub lines: u64,
    /// Bytes in the span.
    pub bytes: u64,
}

impl PbsSpan {
    /// Empties the span, keeping its buffers.
    pub fn clear(&mut self) {
        self.recs.clear();
        self.buf.clear();
        self.lines = 0;
        self.bytes = 0;
    }

    /// Parses `text` (whole lines; the last may lack its `\n`) into this span, exactly as
    /// [`PbsLogReader::read`] reads them line by line: the same jobs, the same checks
    /// (`tally::check_job`) and the same complaints, each with its line.
    pub fn parse(&mut self, reader: &mut PbsLogReader<'_>, text: &[u8]) {
        self.clear();
        self.recs.reserve(text.len() / 1024);
        self.buf.reserve(text.len() / 24);
        let mut lines = 0u64;
        for l in crate::pbs::accounting::reader::lines(text) {
            lines = l.number;
            let at = |kind, eval_error| Rec {
                line: l.number,
                start: l.start as u64,
                eval_error,
                kind,
            };
            let line = match l.text {
                LineText::Text(line) => line,
                LineText::Blank => continue,
                LineText::TooLong => {
                    self.recs
                        .push(at(Err(crate::files::lines::too_long_message()), false));
                    continue;
                }
            };
            let mut one = ReadStats::default();
            match reader.line_parts(line, &mut one) {
                Ok(None) => {}
                Ok(Some(job)) => {
                    let kind = self.push_job(&job);
                    self.recs.push(at(kind, one.eval_errors > 0));
                }
                Err(m) => self.recs.push(at(Err(m), false)),
            }
        }
        self.lines = lines;
        self.bytes = text.len() as u64;
    }

    /// Checks a job as `tally::check_job` does and writes its ledger line (as
    /// `Ledger::admit` would) into the buffer.
    fn push_job(&mut self, job: &JobParts<'_>) -> Result<JobAt, String> {
        check_name(job.id).map_err(|m| format!("job id: {m}"))?;
        let from = self.buf.len();
        self.buf.push_str(Source::Pbs.name());
        self.buf.push('\t');
        self.buf.push_str(job.id);
        self.buf.push('\t');
        push_int(&mut self.buf, job.end);
        self.buf.push('\t');
        let e0 = self.buf.len();
        match job.entity {
            EntityName::One(s) => self.buf.push_str(s),
            EntityName::Pair(g, u) => {
                self.buf.push_str(g);
                self.buf.push(':');
                self.buf.push_str(u);
            }
        }
        let e1 = self.buf.len();
        let checked = check_name(self.buf.get(e0..e1).unwrap_or_default())
            .map_err(|m| format!("entity: {m}"))
            .and_then(|()| check_usage(job.charge).map_err(|m| format!("charge: {m}")))
            .and_then(|()| check_time("end time", job.end).map_err(|e| e.to_string()));
        if let Err(m) = checked {
            self.buf.truncate(from);
            return Err(m);
        }
        // A checked name has no tab or line break: the ledger keeps it as it is.
        self.buf.push_str("\t-\t");
        push_charge(&mut self.buf, job.charge);
        self.buf.push('\n');
        Ok(JobAt {
            fp: fingerprint(Source::Pbs, job.id, job.end),
            charge: job.charge,
            line: (from, self.buf.len()),
            entity: (e0, e1),
        })
    }
}

/// Appends a charge as `Display` writes an `f64`: an integral value from 1 to 2^53 prints as the
/// integer it is (the shortest decimal that reads back as it); anything else through `Display`.
fn push_charge(buf: &mut String, c: f64) {
    if (1.0..9_007_199_254_740_992.0).contains(&c) && c.fract() == 0.0 {
        push_int(buf, c as i64);
    } else {
        let _ = write!(buf, "{c}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pbs::defs::FairshareEntity;
    use crate::usage::charge::ResourceCharge;
    use crate::usage::job::FinishedJob;
    use crate::usage::Malformed;
    use std::path::Path;

    const LOG: &str = "\
04/13/2024 10:00:00;Q;101.srv;queue=workq
04/13/2024 11:00:00;E;101.srv;user=alice group=users jobname=\"my job\" queue=workq end=1713006000 Resource_List.ncpus=2 resources_used.cput=01:30:00 resources_used.walltime=00:50:00
04/13/2024 11:05:00;E;102.srv;user=bob group=staff account=proj1 queue=long Resource_List.ncpus=4 Resource_List.walltime=01:00:00 resources_used.walltime=00:10:00\r
garbage without separators

04/13/2024 11:06:00;E;103.srv;user=carol group=users resources_used.cput=abc
04/13/2024 11:06:00;E;104.srv;user=da\tve group=users resources_used.cput=5
04/13/2024 11:06:00;E;105.srv;user=erin group=users end=99999999999999 resources_used.cput=5
04/13/2024 11:06:00;E;106.srv;user=fay group=g\u{1}x account=a queue=q resources_used.walltime=7 resources_used.cput=1.5
04/13/2024 11:07:00;S;107.srv;user=x
04/13/2024 11:08:00;E;108.srv;user=gil group=users queue=\"q q\" resources_used.walltime=3";

    #[test]
    fn a_span_holds_what_the_line_reader_and_the_ledger_make() {
        for entity in [
            FairshareEntity::Euser,
            FairshareEntity::Egroup,
            FairshareEntity::AccountName,
            FairshareEntity::Queue,
            FairshareEntity::EgroupEuser,
        ] {
            for res in ["cput", "walltime", "ncpus"] {
                let c = ResourceCharge::new(res);
                let mut jobs: Vec<FinishedJob> = Vec::new();
                let mut bad: Vec<Malformed> = Vec::new();
                let mut r = PbsLogReader::new(entity, &c);
                r.read(
                    &mut LOG.as_bytes(),
                    Path::new("f"),
                    &mut |j| {
                        jobs.push(j);
                        Ok(())
                    },
                    &mut bad,
                )
                .unwrap();
                let mut span = PbsSpan::default();
                let mut r2 = PbsLogReader::new(entity, &c);
                span.parse(&mut r2, LOG.as_bytes());
                let mut ok = Vec::new();
                let mut errs = Vec::new();
                for rec in &span.recs {
                    match &rec.kind {
                        Ok(j) => ok.push((rec.line, j)),
                        Err(m) => errs.push((rec.line, m.clone())),
                    }
                }
                assert_eq!(span.lines, LOG.lines().count() as u64);
                let want_errs: Vec<(u64, String)> =
                    bad.iter().map(|m| (m.line, m.message.clone())).collect();
                assert_eq!(
                    errs.len(),
                    want_errs.len(),
                    "{entity} {res}: {errs:?} {want_errs:?}"
                );
                for ((l, m), (_, w)) in errs.iter().zip(&want_errs) {
                    assert_eq!(m, w, "{entity} {res} line {l}");
                }
                assert_eq!(ok.len(), jobs.len(), "{entity} {res}");
                for ((_, j), want) in ok.iter().zip(&jobs) {
                    let line = &span.buf[j.line.0..j.line.1];
                    let entity_text = &span.buf[j.entity.0..j.entity.1];
                    assert_eq!(entity_text, want.entity);
                    assert_eq!(j.charge.to_bits(), want.charge.to_bits());
                    assert_eq!(j.fp, fingerprint(Source::Pbs, &want.id, want.end));
                    let mut l = crate::usage::Ledger::default();
                    assert!(l.admit(want));
                    let dir = tempfile::tempdir().unwrap();
                    let p = dir.path().join("l");
                    l.append(&p, 0).unwrap();
                    assert_eq!(line, std::fs::read_to_string(&p).unwrap());
                }
            }
        }
    }

    #[test]
    fn numbers_print_as_display_prints_them() {
        for v in [
            0i64,
            7,
            -7,
            10,
            1_713_017_157,
            i64::MAX,
            i64::MIN,
            -1_000_000_000_000,
        ] {
            let mut s = String::new();
            push_int(&mut s, v);
            assert_eq!(s, v.to_string());
        }
        for c in [
            0.0,
            -0.0,
            0.5,
            1.0,
            71333.0,
            1e15,
            9_007_199_254_740_991.0,
            9_007_199_254_740_992.0,
            1.5e16,
            1e300,
            123.456,
            f64::MIN_POSITIVE,
        ] {
            let mut s = String::new();
            push_charge(&mut s, c);
            assert_eq!(s, c.to_string(), "{c:e}");
        }
    }
}
