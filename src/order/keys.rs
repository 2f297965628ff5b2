//! The sort keys of the queue order: a job's value, fair-share rank and index packed so one
//! integer comparison is PBS's whole comparison.

use std::cmp::Ordering;

/// A total order key for "value descending" over f64: larger values get smaller keys; NaN sorts
/// after every number; -0.0 equals 0.0.
pub(crate) fn descending_key(v: f64) -> u64 {
    if v.is_nan() {
        return u64::MAX;
    }
    let v = if v == 0.0 { 0.0 } else { v };
    let bits = v.to_bits();
    let ascending = if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    };
    !ascending
}

/// The value a [`descending_key`] was made from (NaN for NaN's key).
pub(crate) fn value_of_key(key: u64) -> f64 {
    let ascending = !key;
    f64::from_bits(if ascending >> 63 == 1 {
        ascending & !(1 << 63)
    } else {
        !ascending
    })
}

/// One job's sort key packed into a `u128`: bits 64..128 the descending value key, 32..64 the
/// fair-share rank, 0..32 the job index (submission order, the last tie-break).
pub(crate) fn pack(value_key: u64, fs_rank: u32, job: u32) -> u128 {
    (value_key as u128) << 64 | (fs_rank as u128) << 32 | job as u128
}

/// A [`pack`]ed key in two words: ordered as the `u128`, but 8-byte aligned, so that the ranked
/// entries (16 bytes, 8-aligned) are written over the sorted keys in their allocation
/// (`mem::reuse::map_in_place`, from `order::sort::order_keyed`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[repr(C)]
pub(crate) struct Key {
    hi: u64,
    lo: u64,
}

impl Key {
    /// The key of packed value `k`.
    #[inline]
    pub(crate) fn new(k: u128) -> Key {
        Key {
            hi: (k >> 64) as u64,
            lo: k as u64,
        }
    }

    /// The packed value.
    #[inline]
    pub(crate) fn get(self) -> u128 {
        (self.hi as u128) << 64 | self.lo as u128
    }
}

impl Ord for Key {
    #[inline]
    fn cmp(&self, other: &Key) -> Ordering {
        self.get().cmp(&other.get())
    }
}

impl PartialOrd for Key {
    #[inline]
    fn partial_cmp(&self, other: &Key) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
