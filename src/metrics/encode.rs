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

/// The text of rows `range` of a family: its descriptor lines, then its samples.
fn encode_part(desc: Descriptor, rows: &Arc<dyn Rows>, range: Range<usize>) -> io::Result<String> {
    let mut registry = Registry::default();
    registry.register_collector(Box::new(Part {
        desc,
        rows: Arc::clone(rows),
        range,
    }));
    let mut text = String::new();
    prometheus_client::encoding::prometheus_text::encode(&mut text, &registry)
        .map_err(|_| io::Error::other("the metrics could not be encoded"))?;
    Ok(text)
}

/// `text` without its first two lines (the descriptor the crate writes for every collector).
fn samples_only(text: &str) -> &str {
    let mut rest = text;
    for _ in 0..2 {
        rest = rest.split_once('\n').map_or("", |(_, r)| r);
    }
    rest
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
    let parallel = n - first >= crate::parallel::PARALLEL_MIN_JOBS;
    crate::parallel::write_ordered(out, n - first, CHUNK, parallel, |range, buf| {
        let range = range.start + first..range.end + first;
        let text = encode_part(desc, &rows, range.clone())?;
        let text = if range.start == first {
            text.as_str()
        } else {
            samples_only(&text)
        };
        buf.extend_from_slice(text.as_bytes());
        Ok(())
    })
}
