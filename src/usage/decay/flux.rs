//! flux-accounting decay (flux.md §2, `job_usage_calculation.py`): per association a list of
//! half-life bins (period 0 = current); each new half-life period shifts the bins one step older,
//! multiplying by `decay_factor`, and the oldest falls off.

use crate::usage::decay::DecayError;

/// Most half-life bins a flux association may keep (`reset_period / half_life`); flux-accounting's
/// default is 4. Bounded so a tiny half-life cannot allocate millions of bins per association.
pub const MAX_FLUX_BINS: i64 = 1024;

/// Shifts formed one multiplication at a time by [`FluxDecay::shift_by`].
pub const EXACT_SHIFTS: u64 = 64;

/// flux-accounting's decay settings (`config_table`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FluxDecay {
    /// `priority_decay_half_life` in seconds (default 604800).
    pub half_life: i64,
    /// `priority_usage_reset_period` in seconds (default 2419200).
    pub reset_period: i64,
    /// `decay_factor` D, 0 < D < 1 (default 0.5).
    pub factor: f64,
}

impl Default for FluxDecay {
    /// flux-accounting's defaults: 4 weekly bins, D = 0.5.
    fn default() -> Self {
        FluxDecay {
            half_life: 604_800,
            reset_period: 2_419_200,
            factor: 0.5,
        }
    }
}

/// Which branch of `calc_usage_factor` ran for an association.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FluxCase {
    /// A: no new jobs, same period: nothing written.
    A,
    /// B: no new jobs, new period: shift; job_usage = Σ bins[1..].
    B,
    /// C: new jobs, same period: bins[0] += U; job_usage = Σ bins.
    C,
    /// D: new jobs, new period: shift; job_usage = U + Σ bins[1..]; bins[0] = job_usage (flux's quirk).
    D,
}

impl FluxDecay {
    /// Validated settings (`decay_factor` must be 0 < D < 1, as `create-db` demands).
    pub fn new(half_life: i64, reset_period: i64, factor: f64) -> Result<Self, DecayError> {
        if half_life <= 0 {
            return Err(DecayError::Period(format!(
                "priority_decay_half_life must be positive, got {half_life}"
            )));
        }
        if !(factor > 0.0 && factor < 1.0) {
            return Err(DecayError::Factor(format!(
                "decay_factor must be between 0 and 1, got {factor}"
            )));
        }
        let bins = reset_period.checked_div(half_life).unwrap_or(0);
        if bins > MAX_FLUX_BINS {
            return Err(DecayError::Period(format!(
                "priority_usage_reset_period {reset_period} / priority_decay_half_life {half_life} \
                 gives {bins} bins; at most {MAX_FLUX_BINS} (raise the half-life or lower the reset period)"
            )));
        }
        Ok(FluxDecay {
            half_life,
            reset_period,
            factor,
        })
    }

    /// Number of bins: `int(reset_period / half_life)`, or 4 when that is ≤ 0.
    pub fn bins(&self) -> usize {
        let n = self.reset_period.checked_div(self.half_life).unwrap_or(0);
        if n <= 0 {
            4
        } else {
            n.min(MAX_FLUX_BINS) as usize
        }
    }

    /// `apply_decay_factor`: bins[p+1] = bins[p]·D from oldest to newest, bins[0] = 0.
    pub(crate) fn shift(&self, bins: &mut [f64]) {
        for p in (1..bins.len()).rev() {
            bins[p] = bins[p - 1] * self.factor;
        }
        if let Some(b0) = bins.first_mut() {
            *b0 = 0.0;
        }
    }

    /// `k` shifts at once: bins[p] = bins[p−k]·D^k, the first `k` bins 0. The product is formed
    /// one factor at a time (as `k` calls of [`FluxDecay::shift`] would, bit for bit) up to
    /// [`EXACT_SHIFTS`], and as `D^k` beyond; the cost is bounded by the bin count, not by `k`.
    pub(crate) fn shift_by(&self, bins: &mut [f64], k: u64) {
        let n = bins.len();
        let k = usize::try_from(k).unwrap_or(usize::MAX).min(n);
        if k == 0 {
            return;
        }
        let d = self.factor;
        for p in (k..n).rev() {
            let mut v = bins[p - k];
            if k as u64 <= EXACT_SHIFTS {
                for _ in 0..k {
                    v *= d;
                }
            } else {
                v *= d.powi(i32::try_from(k).unwrap_or(i32::MAX));
            }
            bins[p] = v;
        }
        bins[..k].iter_mut().for_each(|b| *b = 0.0);
    }

    /// One `calc_usage_factor` run for one association: `new_usage` is the summed usage of its
    /// new jobs (None when it has none), `new_period` whether a half-life period has passed.
    /// Returns the case taken and the new `job_usage` (None for case A: unchanged).
    pub fn update(
        &self,
        bins: &mut [f64],
        new_usage: Option<f64>,
        new_period: bool,
    ) -> (FluxCase, Option<f64>) {
        let older = |b: &[f64]| b.iter().skip(1).sum::<f64>();
        match (new_usage, new_period) {
            (None, false) => (FluxCase::A, None),
            (None, true) => {
                self.shift(bins);
                (FluxCase::B, Some(older(bins)))
            }
            (Some(u), false) => {
                if let Some(b0) = bins.first_mut() {
                    *b0 += u;
                }
                (FluxCase::C, Some(bins.iter().sum()))
            }
            (Some(u), true) => {
                self.shift(bins);
                let total = u + older(bins);
                if let Some(b0) = bins.first_mut() {
                    *b0 = total;
                }
                (FluxCase::D, Some(total))
            }
        }
    }
}

/// A job's usage as flux computes it: `round((nnodes·wn + ncores·wc + ngpus·wg)·(t_inactive − t_run), 5)`.
pub fn job_usage(
    nnodes: f64,
    ncores: f64,
    ngpus: f64,
    weights: (f64, f64, f64),
    t_run: f64,
    t_inactive: f64,
) -> f64 {
    let raw = (nnodes * weights.0 + ncores * weights.1 + ngpus * weights.2) * (t_inactive - t_run);
    round_half_even(raw, 5)
}

/// Python's `round(x, n)` for the values flux produces (half to even on the scaled value).
pub(crate) fn round_half_even(x: f64, digits: i32) -> f64 {
    if !x.is_finite() {
        return x;
    }
    let scale = 10f64.powi(digits);
    let y = x * scale;
    if !y.is_finite() || y.abs() >= 2f64.powi(52) {
        return x;
    }
    let r = y.round();
    let r = if (y - y.trunc()).abs() == 0.5 && r % 2.0 != 0.0 {
        r - y.signum()
    } else {
        r
    };
    r / scale
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    const TOL: f64 = 1e-9;

    fn check(
        before: [f64; 4],
        new: Option<f64>,
        new_period: bool,
        case: FluxCase,
        after: [f64; 4],
        usage: f64,
    ) {
        let d = FluxDecay::default();
        let mut bins = before;
        let (c, u) = d.update(&mut bins, new, new_period);
        assert_eq!(c, case);
        for (a, b) in bins.iter().zip(after) {
            assert_relative_eq!(*a, b, epsilon = TOL);
        }
        assert_relative_eq!(u.unwrap_or(f64::NAN), usage, epsilon = TOL);
    }

    #[test]
    fn t1006_vectors() {
        // flux.md §6 Usage/decay vectors, D = 0.5, 4 bins.
        let new11 = 2.0 * (2000.0 + 2100.0 + 2200.0) + 2000.0 + 2100.0;
        assert_eq!(new11, 16_700.0);
        check(
            [256., 64., 16., 8.],
            Some(new11),
            false,
            FluxCase::C,
            [16956., 64., 16., 8.],
            17044.,
        );
        check(
            [4096., 256., 32., 16.],
            Some(4100.),
            false,
            FluxCase::C,
            [8196., 256., 32., 16.],
            8500.,
        );
        check(
            [8196., 256., 32., 16.],
            Some(200.),
            true,
            FluxCase::D,
            [4442., 4098., 128., 16.],
            4442.,
        );
        check(
            [4442., 4098., 128., 16.],
            None,
            true,
            FluxCase::B,
            [0., 2221., 2049., 64.],
            4334.,
        );
        check(
            [16956., 64., 16., 8.],
            None,
            true,
            FluxCase::B,
            [0., 8478., 32., 8.],
            8518.,
        );
    }

    #[test]
    fn t1015_issue815_three_periods() {
        let d = FluxDecay::default();
        let mut bins = [100.0, 0.0, 0.0, 0.0];
        let mut seen = Vec::new();
        for _ in 0..3 {
            let (c, u) = d.update(&mut bins, None, true);
            assert_eq!(c, FluxCase::B);
            seen.push(u.unwrap_or(f64::NAN));
        }
        assert_eq!(bins, [0.0, 0.0, 0.0, 12.5]);
        assert_eq!(seen, vec![50.0, 25.0, 12.5]);
    }

    #[test]
    fn shift_by_matches_repeated_shifts() {
        let d = FluxDecay::new(10, 100, 0.7).unwrap();
        for k in 0..12u64 {
            let start: Vec<f64> = (0..10).map(|i| 1000.0 / (i as f64 + 1.3)).collect();
            let mut one = start.clone();
            for _ in 0..k {
                d.shift(&mut one);
            }
            let mut all = start.clone();
            d.shift_by(&mut all, k);
            assert_eq!(one, all, "k = {k}");
        }
        let mut b = vec![1.0; 10];
        d.shift_by(&mut b, u64::MAX);
        assert_eq!(b, vec![0.0; 10]);
    }

    #[test]
    fn too_many_bins_is_refused() {
        assert!(FluxDecay::new(1, 2_419_200, 0.5).is_err());
        assert_eq!(FluxDecay::new(1, 1024, 0.5).unwrap().bins(), 1024);
    }

    #[test]
    fn case_a_changes_nothing() {
        let d = FluxDecay::default();
        let mut bins = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(d.update(&mut bins, None, false), (FluxCase::A, None));
        assert_eq!(bins, [1.0, 2.0, 3.0, 4.0]);
    }

    #[test]
    fn bin_count() {
        assert_eq!(FluxDecay::default().bins(), 4);
        assert_eq!(FluxDecay::new(100, 50, 0.5).unwrap().bins(), 4);
        assert_eq!(FluxDecay::new(100, 1000, 0.5).unwrap().bins(), 10);
        assert!(FluxDecay::new(100, 1000, 1.5).is_err());
    }

    #[test]
    fn t1023_weighted_job_usage() {
        let defaults = (1.0, 0.0, 0.0);
        assert_eq!(job_usage(1., 4., 1., defaults, 0., 100.), 100.0);
        assert_eq!(job_usage(1., 4., 0., (1.0, 1.0, 0.0), 0., 100.), 500.0);
        assert_eq!(job_usage(1., 4., 2., (1.0, 0.0, 10.0), 0., 100.), 2100.0);
        assert_eq!(job_usage(1., 8., 2., (1.0, 0.5, 5.0), 0., 100.), 1500.0);
        assert_eq!(job_usage(1., 1., 0., defaults, 1000., 5000.), 4000.0);
        assert_eq!(round_half_even(0.125, 2), 0.12);
        assert_eq!(round_half_even(1.234567, 5), 1.23457);
    }
}
