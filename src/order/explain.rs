//! `--explain JOBID`: what the queue stage knows about one job's place — the bound value of every
//! keyword with where it came from, the value and any error, and why it sits above the next job
//! (runnable first, larger value, fair-share path, submission time, sequence number).

use crate::jobs::error::BindError;
use crate::jobs::job_set::JobSet;
use crate::order::bind::{Binder, Source};
use crate::order::sort::{OrderOptions, QueueOrder};
use serde::Serialize;

/// One keyword's bound value for the job.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BoundKeyword {
    /// The keyword.
    pub keyword: String,
    /// The value passed to the formula.
    pub value: f64,
    /// Where it came from, e.g. `Resource_List.mem (KB)`, `queue workq Priority`.
    pub source: String,
}

/// The explanation of one job's value and position.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JobExplanation {
    /// Job id.
    pub id: String,
    /// Rank (1-based).
    pub rank: usize,
    /// The sort value.
    pub value: f64,
    /// Evaluation error (value 0), if any.
    pub error: Option<String>,
    /// Eligible this cycle.
    pub eligible: bool,
    /// At or below the threshold.
    pub below_threshold: bool,
    /// Every keyword's bound value.
    pub keywords: Vec<BoundKeyword>,
    /// The next job in the order and why this one comes first.
    pub next: Option<NextJob>,
}

/// The job right after the explained one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NextJob {
    /// Its id.
    pub id: String,
    /// Its value.
    pub value: f64,
    /// Why the explained job sorts first.
    pub reason: String,
}

fn describe(source: &Source, keyword: &str, jobs: &JobSet, job: usize) -> String {
    let Some(j) = jobs.jobs.get(job) else {
        return String::new();
    };
    match source {
        Source::Resource(None) => format!("Resource_List.{keyword}: no job requests it (0)"),
        Source::Resource(Some(sym)) => match jobs.resource(j, *sym) {
            None => format!("Resource_List.{keyword}: not requested (0)"),
            Some(_) => format!("Resource_List.{keyword} (PBS units: size KB, time s)"),
        },
        Source::QueuePriority => format!("queue {} Priority", jobs.queue(j)),
        Source::JobPriority => "job Priority".into(),
        Source::EligibleTime => "job eligible_time (s)".into(),
        Source::AccrueType => "job accrue_type".into(),
        Source::Share { algorithm, .. } => format!("fair-share ({algorithm}) of the job's entity"),
    }
}

/// Explains job `job` (index into `jobs`) within `order`.
pub fn explain_job(
    jobs: &JobSet,
    binder: &Binder,
    keywords: &[String],
    order: &QueueOrder,
    opts: &OrderOptions,
    job: usize,
) -> Result<Option<JobExplanation>, BindError> {
    let Some(pos) = order.position(job) else {
        return Ok(None);
    };
    let Some(me) = order.ranked.get(pos) else {
        return Ok(None);
    };
    let mut row = vec![0.0; binder.sources().len()];
    binder.bind_job(jobs, job, &mut row)?;
    let bound = binder
        .sources()
        .iter()
        .zip(keywords)
        .zip(&row)
        .map(|((src, k), v)| BoundKeyword {
            keyword: k.clone(),
            value: *v,
            source: describe(src, k, jobs, job),
        })
        .collect();
    let id_of = |i: u32| {
        jobs.jobs
            .get(i as usize)
            .map(|j| j.id.to_string())
            .unwrap_or_default()
    };
    let next = order.ranked.get(pos + 1).map(|n| {
        let (a, b) = (jobs.jobs.get(me.job as usize), jobs.jobs.get(n.job as usize));
        let reason = match (a, b) {
            (Some(a), Some(b)) if a.state.is_runnable() != b.state.is_runnable() => format!(
                "it is runnable (state {}) and the next job is not (state {}): PBS sorts runnable jobs first",
                a.state.letter(),
                b.state.letter()
            ),
            _ if me.value > n.value => {
                format!("its value {} is higher than {}", fmt(me.value), fmt(n.value))
            }
            (Some(a), Some(b)) => {
                let fs = opts.fair_share_rank.as_ref().map(|r| {
                    (
                        r.get(me.job as usize).copied().unwrap_or(u32::MAX),
                        r.get(n.job as usize).copied().unwrap_or(u32::MAX),
                    )
                });
                let tie = if me.value == n.value {
                    "equal values".to_string()
                } else {
                    format!("values {} and {} compare in NaN order", fmt(me.value), fmt(n.value))
                };
                match fs {
                    Some((x, y)) if x < y => format!(
                        "{tie}; fair_share is on and its entity is more deserving by PBS's path comparison (usage/perc)"
                    ),
                    _ if a.qtime < b.qtime => format!("{tie}; submitted earlier (qtime)"),
                    _ => format!("{tie}; same qtime, lower job sequence number"),
                }
            }
            _ => String::new(),
        };
        NextJob {
            id: id_of(n.job),
            value: n.value,
            reason,
        }
    });
    Ok(Some(JobExplanation {
        id: id_of(me.job),
        rank: pos + 1,
        value: me.value,
        error: order.error(me.job).map(str::to_string),
        eligible: me.eligible,
        below_threshold: me.below_threshold,
        keywords: bound,
        next,
    }))
}

/// A value as PBS logs it (`Formula Evaluation = %.*f` with at most 4 decimals) — used for
/// display only.
pub fn fmt(v: f64) -> String {
    let mut s = String::new();
    fmt_into(v, &mut s);
    s
}

/// [`fmt`] appended to `out` (no allocation when `out` has room).
pub fn fmt_into(v: f64, out: &mut String) {
    use std::fmt::Write;
    let start = out.len();
    if !v.is_finite() {
        let _ = write!(out, "{v}");
        return;
    }
    crate::order::fixed::push_fixed(out, v, 4);
    let kept = out[start..]
        .trim_end_matches('0')
        .trim_end_matches('.')
        .len();
    out.truncate(start + kept);
    if &out[start..] == "-0" {
        out.truncate(start);
        out.push('0');
    }
}

/// Room for any text [`fmt_bytes`] writes: a sign, 16 integer digits (the scaled value fits a
/// `u64`, so the integer part is below 2^64 / 10^4), a point and 4 decimals.
pub const FMT_BYTES: usize = 24;

/// [`fmt`]'s text written into `buf` (and returned) without a `String`: a million-row table
/// formats every value once to measure it and once to print it. `None` for a value
/// outside the integer path (NaN, the infinities, |v| · 10^4 ≥ 2^64), which [`fmt_into`] writes.
#[inline]
pub fn fmt_bytes(v: f64, buf: &mut [u8; FMT_BYTES]) -> Option<&[u8]> {
    let n = u64::try_from(crate::order::fixed::scaled(v, 4)?).ok()?;
    let mut i = FMT_BYTES;
    let mut put = |b: u8| {
        i -= 1;
        if let Some(slot) = buf.get_mut(i) {
            *slot = b;
        }
    };
    if n == 0 {
        // `0.0000` and `-0.0000` both print as `0`.
        put(b'0');
    } else {
        let (mut int, mut frac) = (n / 10_000, n % 10_000);
        if frac != 0 {
            let mut digits = 4;
            while frac % 10 == 0 {
                frac /= 10;
                digits -= 1;
            }
            for _ in 0..digits {
                put(b'0' + (frac % 10) as u8);
                frac /= 10;
            }
            put(b'.');
        }
        loop {
            put(b'0' + (int % 10) as u8);
            int /= 10;
            if int == 0 {
                break;
            }
        }
        if v.is_sign_negative() {
            put(b'-');
        }
    }
    buf.get(i..)
}

/// The width of [`fmt`]'s text of `v` (its length: the text is ASCII), without a `String` for
/// the values of the integer path.
#[inline]
pub fn fmt_width(v: f64) -> usize {
    let mut buf = [0; FMT_BYTES];
    match fmt_bytes(v, &mut buf) {
        Some(text) => text.len(),
        None => fmt(v).len(),
    }
}

/// At least [`fmt_width`] of `v`, from its magnitude alone (a sign, the digits of its integer
/// part rounded up, a point and 4 decimals): a table's widths pass formats only the values
/// whose bound exceeds the widest found so far (a million values formatted twice).
#[inline]
pub fn fmt_width_bound(v: f64) -> usize {
    let a = v.abs();
    if a.is_nan() || a >= 1e15 {
        // NaN, the infinities and values beyond the integer path: measured.
        return fmt_width(v);
    }
    usize::from(v.is_sign_negative()) + crate::digits::count(a as u64 + 1) + 5
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::native::read_job_list_json;
    use crate::order::sort::run;
    use crate::order::testing::ClosureFormula;
    use crate::order::SortFormula;

    #[test]
    fn explains_keywords_and_the_next_job() {
        let jobs = read_job_list_json(
            br#"[{"id":"1","user":"a","qtime":1,"queue":"q","resources":{"mem":"2mb"}},
                 {"id":"2","user":"b","qtime":2,"queue":"q","resources":{"mem":"2mb"}},
                 {"id":"3","user":"c","qtime":3,"queue":"q","resources":{"mem":"1mb"}}]"#,
        )
        .unwrap();
        let f = ClosureFormula::new("mem + queue_priority", &["mem", "queue_priority"], |s| {
            Ok(s[0] + s[1])
        });
        let qp = |q: &str| (q == "q").then_some(10);
        let b = Binder::new(f.keywords(), &jobs, &qp, None, false).unwrap();
        let opts = OrderOptions::default();
        let o = run(&f, &b, &jobs, &opts).unwrap();
        let e = explain_job(&jobs, &b, f.keywords(), &o, &opts, 0)
            .unwrap()
            .unwrap();
        assert_eq!((e.rank, e.value), (1, 2058.0));
        assert_eq!(e.keywords[0].value, 2048.0);
        assert_eq!(e.keywords[1].value, 10.0);
        assert_eq!(e.keywords[1].source, "queue q Priority");
        let next = e.next.unwrap();
        assert_eq!(next.id, "2");
        assert_eq!(next.reason, "equal values; submitted earlier (qtime)");
        let e2 = explain_job(&jobs, &b, f.keywords(), &o, &opts, 1)
            .unwrap()
            .unwrap();
        assert_eq!(
            e2.next.unwrap().reason,
            "its value 2058 is higher than 1034"
        );
        let last = explain_job(&jobs, &b, f.keywords(), &o, &opts, 2)
            .unwrap()
            .unwrap();
        assert!(last.next.is_none());
    }

    /// `fmt_bytes` writes `fmt`'s text or declines, for edges and a million pseudo-random
    /// values (any bit pattern, moderate magnitudes, k / 10^4 give or take a few ulps, ties).
    #[test]
    fn fmt_bytes_is_fmt() {
        let check = |v: f64| {
            let mut buf = [0; FMT_BYTES];
            let want = fmt(v);
            match fmt_bytes(v, &mut buf) {
                Some(text) => assert_eq!(text, want.as_bytes(), "{v:e} ({:#x})", v.to_bits()),
                None => assert!(
                    !v.is_finite() || v.abs() * 1e4 >= 1.8e19,
                    "{v:e} declined ({want})"
                ),
            }
            assert_eq!(fmt_width(v), want.len(), "{v:e}");
            assert!(
                fmt_width_bound(v) >= want.len(),
                "{v:e}: bound below {want}"
            );
        };
        for v in [
            0.0,
            -0.0,
            -0.00001,
            0.00005,
            -0.00005,
            0.00015,
            0.5,
            -1.0,
            10.0,
            100.0,
            -100.25,
            0.1,
            9.99995,
            99999.99995,
            1e15,
            -1e15,
            1844674407370955.0,
            1844674407370955.2,
            1844674407370956.0,
            2e15,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::from_bits(1),
        ] {
            check(v);
        }
        for (v, _) in crate::order::fixed::test_values::values(1_000_000) {
            check(v);
        }
    }

    #[test]
    fn log_style_numbers() {
        assert_eq!(fmt(60.381553), "60.3816");
        assert_eq!(fmt(6.0), "6");
        assert_eq!(fmt(0.2), "0.2");
        assert_eq!(fmt(-0.00001), "0");
    }
}
