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
fn encode_part(
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
/// every sample, rows in order. The chunk holding the first row with a sample keeps the
/// descriptor the crate wrote; every later chunk drops it.
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
        let skip = if range.start == first { 0 } else { head.len() };
        encode_part(desc, &rows, range, skip, buf)
    })
}
