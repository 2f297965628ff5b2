//! The one path every metric family takes to the output: a `prometheus-client` collector
//! encodes a range of the family's rows with the crate's Prometheus text encoder (format
//! 0.0.4, what node_exporter's textfile collector reads); a large family is cut in chunks
//! encoded on every worker and written in order (`parallel::write_ordered`), each chunk after
//! the first without the `# HELP`/`# TYPE` lines the crate writes before every collector's
//! samples, so a million rows are never held at once.

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, MetricEncoder};
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::Registry;
use std::io;
use std::ops::Range;
use std::sync::Arc;

/// The rows of one metric family, encoded a range at a time (so chunks can be encoded apart).
pub(crate) trait Rows: Send + Sync + 'static {
    /// How many rows there are (a row may write no sample: a blank value).
    fn len(&self) -> usize;
    /// Encodes the samples of rows `range` with `enc` (the family's descriptor is written).
    fn encode(&self, range: Range<usize>, enc: &mut MetricEncoder<'_>) -> std::fmt::Result;
    /// Whether row `i` writes a sample.
    fn has_sample(&self, i: usize) -> bool;
    /// Appends the samples of rows `range` of family `name` to `out` without the crate,
    /// byte for byte what [`Rows::encode`] gives through it (`text::gauge`); `false`, with
    /// nothing appended, for a family that has no such writer.
    fn write_text(&self, _name: &str, _range: Range<usize>, _out: &mut Vec<u8>) -> bool {
        false
    }
}

/// A family's name, help and type: what its `# HELP` and `# TYPE` lines say ([`names`](crate::metrics::names) has every one).
#[derive(Debug, Clone, Copy)]
pub struct Descriptor {
    /// The metric name, `fairsort_` first.
    pub name: &'static str,
    /// The `# HELP` text.
    pub help: &'static str,
    /// Gauge or histogram.
    pub kind: MetricType,
}

/// One range of one family as a `prometheus-client` collector.
struct Part {
    desc: Descriptor,
    rows: Arc<dyn Rows>,
    range: Range<usize>,
}

impl std::fmt::Debug for Part {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Part")
            .field("name", &self.desc.name)
            .field("range", &self.range)
            .finish()
    }
}

impl Collector for Part {
    fn encode(&self, mut encoder: DescriptorEncoder<'_>) -> std::fmt::Result {
        let mut enc =
            encoder.encode_descriptor(self.desc.name, self.desc.help, None, self.desc.kind)?;
        self.rows.encode(self.range.clone(), &mut enc)
    }
}

/// Rows per chunk: about 400 KB of text for the association families.
const CHUNK: usize = 1 << 12;

/// Bytes a row's sample takes at most in the common case (the chunk's buffer is sized once).
const ROW_BYTES: usize = 160;

/// A `fmt::Write` into a byte buffer that drops the first `skip` bytes written (the
/// descriptor lines of a chunk after the first, which are ASCII).
struct Sink<'a> {
    out: &'a mut Vec<u8>,
    skip: usize,
}

impl std::fmt::Write for Sink<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let b = s.as_bytes();
        let k = self.skip.min(b.len());
        self.skip -= k;
        self.out.extend_from_slice(b.get(k..).unwrap_or_default());
        Ok(())
    }
}

/// Appends the text of rows `range` of a family to `out`, its first `skip` bytes (the
/// descriptor lines, or none) left out.
pub(super) fn encode_part(
    desc: Descriptor,
    rows: &Arc<dyn Rows>,
    range: Range<usize>,
    skip: usize,
    out: &mut Vec<u8>,
) -> io::Result<()> {
    let mut registry = Registry::default();
    out.reserve(range.len() * ROW_BYTES);
    registry.register_collector(Box::new(Part {
        desc,
        rows: Arc::clone(rows),
        range,
    }));
    prometheus_client::encoding::prometheus_text::encode(&mut Sink { out, skip }, &registry)
        .map_err(|_| io::Error::other("the metrics could not be encoded"))
}

/// Writes one family to `out`: nothing when it has no sample, else its descriptor once and
/// every sample, rows in order. The chunk holding the first row with a sample starts with the
/// descriptor the crate wrote; each chunk's samples are the family's own text where it has a
/// writer ([`Rows::write_text`]), else the crate's.
pub(crate) fn write_family(
    out: &mut (impl io::Write + Send),
    desc: Descriptor,
    rows: Arc<dyn Rows>,
) -> io::Result<()> {
    let n = rows.len();
    let Some(first) = (0..n).find(|&i| rows.has_sample(i)) else {
        return Ok(());
    };
    // The descriptor's length: what the crate writes for no row.
    let mut head = Vec::new();
    encode_part(desc, &rows, first..first, 0, &mut head)?;
    let parallel = n - first >= crate::parallel::PARALLEL_MIN_JOBS;
    crate::parallel::write_ordered(out, n - first, CHUNK, parallel, |range, buf| {
        let range = range.start + first..range.end + first;
        let start = buf.len();
        if range.start == first {
            buf.extend_from_slice(&head);
        }
        if rows.write_text(desc.name, range.clone(), buf) {
            return Ok(());
        }
        buf.truncate(start);
        let skip = if range.start == first { 0 } else { head.len() };
        encode_part(desc, &rows, range, skip, buf)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Row i writes `i` when i is not a multiple of 3.
    struct Numbers(usize);

    impl Rows for Numbers {
        fn len(&self) -> usize {
            self.0
        }
        fn has_sample(&self, i: usize) -> bool {
            !i.is_multiple_of(3)
        }
        fn encode(&self, range: Range<usize>, enc: &mut MetricEncoder<'_>) -> std::fmt::Result {
            for i in range.filter(|&i| self.has_sample(i)) {
                let v = i.to_string();
                enc.encode_family(&[("row", v.as_str())])?
                    .encode_gauge(&(i as f64))?;
            }
            Ok(())
        }
    }

    /// Samples with any label text and any value, through the crate and through `text::gauge`.
    struct Samples(Vec<(String, f64)>);

    impl Rows for Samples {
        fn len(&self) -> usize {
            self.0.len()
        }
        fn has_sample(&self, _: usize) -> bool {
            true
        }
        fn encode(&self, range: Range<usize>, enc: &mut MetricEncoder<'_>) -> std::fmt::Result {
            for (label, v) in self.0.get(range).unwrap_or_default() {
                enc.encode_family(&[("site", "s"), ("user", label.as_str())])?
                    .encode_gauge(v)?;
            }
            Ok(())
        }
        fn write_text(&self, name: &str, range: Range<usize>, out: &mut Vec<u8>) -> bool {
            for (label, v) in self.0.get(range).unwrap_or_default() {
                crate::metrics::text::gauge(out, name, &[("site", "s"), ("user", label)], *v);
            }
            true
        }
    }

    /// The crate's bytes and the hand-written ones for the same samples.
    fn both(samples: Vec<(String, f64)>) -> (Vec<u8>, Vec<u8>) {
        let desc = Descriptor {
            name: "fairsort_test",
            help: "A test.",
            kind: MetricType::Gauge,
        };
        let n = samples.len();
        let rows: Arc<dyn Rows> = Arc::new(Samples(samples));
        let mut head = Vec::new();
        encode_part(desc, &rows, 0..0, 0, &mut head).unwrap();
        let mut by_crate = Vec::new();
        encode_part(desc, &rows, 0..n, head.len(), &mut by_crate).unwrap();
        let mut by_hand = Vec::new();
        assert!(rows.write_text(desc.name, 0..n, &mut by_hand));
        (by_crate, by_hand)
    }

    /// The values and label texts where a writer could differ from the crate: non-finite
    /// values, signed zero, the ends of the double range, integers, exponents, and labels with
    /// every escaped byte, a lone one, and non-ASCII text.
    #[test]
    fn hand_written_samples_are_the_crate_s_bytes_at_the_edges() {
        let values = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.1,
            1.0 / 3.0,
            1e15,
            1e16,
            1e17,
            1e21,
            1e22,
            123456789012345680.0,
            1e-5,
            1e-7,
            f64::MIN_POSITIVE,
            5e-324,
            f64::MAX,
            f64::MIN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            9_007_199_254_740_993.0,
        ];
        let labels = [
            "",
            "amy",
            "a\\b",
            "q\"uote",
            "new\nline",
            "\\",
            "\"",
            "\n",
            "é✓",
            "a b=c,d}",
        ];
        let samples = values
            .iter()
            .enumerate()
            .map(|(i, &v)| (labels[i % labels.len()].to_string(), v))
            .collect();
        let (by_crate, by_hand) = both(samples);
        assert!(!by_crate.is_empty());
        assert_eq!(
            String::from_utf8_lossy(&by_hand),
            String::from_utf8_lossy(&by_crate)
        );
    }

    proptest::proptest! {
        /// Any double (every bit pattern) and any label text: the same bytes as the crate.
        #[test]
        fn hand_written_samples_are_the_crate_s_bytes(
            samples in proptest::collection::vec((".{0,12}", proptest::num::f64::ANY), 1..40)
        ) {
            let (by_crate, by_hand) = both(samples);
            proptest::prop_assert_eq!(by_hand, by_crate);
        }
    }

    /// One descriptor and every sample in row order, on one thread and on every worker, for
    /// sizes around the chunk and the parallel threshold.
    #[test]
    fn one_descriptor_and_every_sample_in_order() {
        let desc = Descriptor {
            name: "fairsort_test",
            help: "A test.",
            kind: MetricType::Gauge,
        };
        for n in [
            0,
            1,
            2,
            CHUNK + 1,
            crate::parallel::PARALLEL_MIN_JOBS + 2 * CHUNK + 5,
        ] {
            let mut out = Vec::new();
            write_family(&mut out, desc, Arc::new(Numbers(n))).unwrap();
            let text = String::from_utf8(out).unwrap();
            if n < 2 {
                assert_eq!(text, "", "no sample, no descriptor");
                continue;
            }
            let mut lines = text.lines();
            assert_eq!(lines.next(), Some("# HELP fairsort_test A test."));
            assert_eq!(lines.next(), Some("# TYPE fairsort_test gauge"));
            let rows: Vec<usize> = lines
                .map(|l| {
                    let v = l.rsplit_once(' ').unwrap().1;
                    v.trim_end_matches(".0").parse().unwrap()
                })
                .collect();
            let want: Vec<usize> = (0..n).filter(|i| !i.is_multiple_of(3)).collect();
            assert_eq!(rows, want, "n = {n}");
        }
    }
}
