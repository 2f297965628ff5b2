//! The forecast's family: the predicted wait of each pending job, as a histogram per queue (or
//! partition) and account, and the pending jobs it predicts no start for.

use crate::metrics::encode::{write_family, Rows};
use crate::metrics::{names, SiteLabels};
use prometheus_client::encoding::{MetricEncoder, NoLabelSet};
use std::collections::BTreeMap;
use std::io;
use std::ops::Range;
use std::sync::Arc;

/// One pending job's forecast wait.
#[derive(Debug, Clone, PartialEq)]
pub struct Wait {
    /// Its queue (Slurm: partition).
    pub queue: String,
    /// Its account (empty when unknown).
    pub account: String,
    /// Seconds from the snapshot's moment to its predicted start (`None`: no start predicted).
    pub seconds: Option<f64>,
}

/// The histogram's upper bounds in seconds: a minute to a week (then `+Inf`).
pub const BUCKETS: [f64; 12] = [
    60.0, 300.0, 900.0, 1800.0, 3600.0, 7200.0, 14400.0, 28800.0, 43200.0, 86400.0, 172800.0,
    604800.0,
];

/// One (queue, account)'s waits: per-bucket counts (the last one past every bound), their sum
/// and count, and the jobs with no start.
#[derive(Debug, Clone, Default)]
struct Cell {
    buckets: [u64; BUCKETS.len() + 1],
    sum: f64,
    count: u64,
    unplanned: u64,
}

type Cells = Vec<((String, String), Cell)>;

fn cells(waits: &[Wait]) -> Cells {
    let mut m: BTreeMap<(String, String), Cell> = BTreeMap::new();
    for w in waits {
        let c = m.entry((w.queue.clone(), w.account.clone())).or_default();
        match w.seconds {
            Some(s) if s.is_finite() => {
                let s = s.max(0.0);
                let k = BUCKETS.partition_point(|&b| b < s);
                if let Some(b) = c.buckets.get_mut(k) {
                    *b += 1;
                }
                c.sum += s;
                c.count += 1;
            }
            _ => c.unplanned += 1,
        }
    }
    m.into_iter().collect()
}

struct WaitRows {
    site: Arc<SiteLabels>,
    cells: Arc<Cells>,
    /// The histogram (true) or the unplanned counts.
    histogram: bool,
}

impl Rows for WaitRows {
    fn len(&self) -> usize {
        self.cells.len()
    }

    fn has_sample(&self, i: usize) -> bool {
        self.cells.get(i).is_some_and(|(_, c)| {
            if self.histogram {
                c.count > 0
            } else {
                c.unplanned > 0
            }
        })
    }

    fn encode(&self, range: Range<usize>, enc: &mut MetricEncoder<'_>) -> std::fmt::Result {
        for ((queue, account), c) in self.cells.get(range).unwrap_or_default() {
            let labels = [
                ("site", self.site.site.as_str()),
                ("scheduler", self.site.scheduler.as_str()),
                (self.site.queue_label(), queue.as_str()),
                ("account", account.as_str()),
            ];
            if self.histogram {
                if c.count == 0 {
                    continue;
                }
                let buckets: Vec<(f64, u64)> = BUCKETS
                    .iter()
                    .copied()
                    .chain([f64::INFINITY])
                    .zip(c.buckets.iter().copied())
                    .collect();
                enc.encode_family(&labels)?
                    .encode_histogram::<NoLabelSet>(c.sum, c.count, &buckets, None)?;
            } else if c.unplanned > 0 {
                enc.encode_family(&labels)?
                    .encode_gauge(&(c.unplanned as f64))?;
            }
        }
        Ok(())
    }
}

/// Writes the forecast's families.
pub(crate) fn write(
    out: &mut (impl io::Write + Send),
    waits: &[Wait],
    site: &Arc<SiteLabels>,
) -> io::Result<()> {
    let cells = Arc::new(cells(waits));
    for (desc, histogram) in [
        (names::FORECAST_WAIT, true),
        (names::FORECAST_UNPLANNED, false),
    ] {
        let rows = WaitRows {
            site: Arc::clone(site),
            cells: Arc::clone(&cells),
            histogram,
        };
        write_family(out, desc, Arc::new(rows))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_fall_in_their_buckets() {
        let w = |s: Option<f64>| Wait {
            queue: "q".into(),
            account: "a".into(),
            seconds: s,
        };
        let c = cells(&[
            w(Some(0.0)),
            w(Some(60.0)),
            w(Some(61.0)),
            w(Some(1e9)),
            w(None),
        ]);
        let (_, c) = &c[0];
        assert_eq!(c.buckets[0], 2, "le 60 holds 0 and 60");
        assert_eq!(c.buckets[1], 1);
        assert_eq!(c.buckets[BUCKETS.len()], 1, "past a week");
        assert_eq!((c.count, c.unplanned), (4, 1));
    }
}
