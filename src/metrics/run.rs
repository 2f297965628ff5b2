//! The run's own families: when the home's usage was last recorded and decayed, how long ago
//! the last record was, and this run's moment and duration.

use crate::metrics::encode::{write_family, Descriptor, Rows};
use crate::metrics::{names, SiteLabels};
use prometheus_client::encoding::MetricEncoder;
use std::io;
use std::ops::Range;
use std::sync::Arc;
use std::time::Instant;

/// The home's usage state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UsageState {
    /// When `fairsort usage record` last ran (epoch seconds; `None`: never, or no home).
    pub last_record: Option<i64>,
    /// When the usage was last decayed (epoch seconds).
    pub last_decay: Option<i64>,
}

/// One value with the site's labels (a single series).
struct One {
    site: Arc<SiteLabels>,
    value: Option<f64>,
}

impl Rows for One {
    fn len(&self) -> usize {
        1
    }

    fn has_sample(&self, _: usize) -> bool {
        self.value.is_some()
    }

    fn encode(&self, range: Range<usize>, enc: &mut MetricEncoder<'_>) -> std::fmt::Result {
        if let (Some(v), false) = (self.value, range.is_empty()) {
            let labels = [
                ("site", self.site.site.as_str()),
                ("scheduler", self.site.scheduler.as_str()),
            ];
            enc.encode_family(&labels)?.encode_gauge(&v)?;
        }
        Ok(())
    }
}

fn one(
    out: &mut (impl io::Write + Send),
    desc: Descriptor,
    site: &Arc<SiteLabels>,
    value: Option<f64>,
) -> io::Result<()> {
    let rows = One {
        site: Arc::clone(site),
        value,
    };
    write_family(out, desc, Arc::new(rows))
}

/// Writes the usage state, then the run's moment and its duration from `started` (read last,
/// so it covers every family written before it).
pub(crate) fn write(
    out: &mut (impl io::Write + Send),
    usage: UsageState,
    now: i64,
    started: Instant,
    site: &Arc<SiteLabels>,
) -> io::Result<()> {
    let secs = |t: Option<i64>| t.map(|t| t as f64);
    one(out, names::USAGE_LAST_RECORD, site, secs(usage.last_record))?;
    one(out, names::USAGE_LAST_DECAY, site, secs(usage.last_decay))?;
    let lag = usage
        .last_record
        .map(|t| now.saturating_sub(t).max(0) as f64);
    one(out, names::USAGE_RECORD_LAG, site, lag)?;
    one(out, names::RUN_TIMESTAMP, site, Some(now as f64))?;
    let duration = started.elapsed().as_secs_f64();
    one(out, names::RUN_DURATION, site, Some(duration))
}
