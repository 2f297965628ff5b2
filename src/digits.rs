//! Decimal digits of an integer without core's formatter: the one digit writer of the
//! million-row outputs (share tables and JSON, order rows, usage records).

/// The decimal digits of `n`, written into the end of `buf` (as `format!("{n}")` writes them).
#[inline]
pub fn decimal(n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    let mut x = n;
    loop {
        i -= 1;
        if let Some(d) = buf.get_mut(i) {
            *d = b'0' + (x % 10) as u8;
        }
        x /= 10;
        if x == 0 || i == 0 {
            break;
        }
    }
    buf.get(i..).unwrap_or_default()
}

/// How many decimal digits `n` has (1 for 0): a column's width without formatting it.
#[inline]
pub fn count(n: u64) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

/// Appends `v` as `Display` writes it.
pub fn push_int(buf: &mut String, v: i64) {
    let mut digits = [0u8; 20];
    let text = decimal(v.unsigned_abs(), &mut digits);
    if v < 0 {
        buf.push('-');
    }
    // ASCII digits: one copy instead of a `char` push per digit.
    buf.push_str(std::str::from_utf8(text).unwrap_or_default());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_and_counts_match_the_formatter() {
        let mut buf = [0u8; 20];
        for n in [
            0,
            1,
            9,
            10,
            99,
            100,
            12345,
            u64::from(u32::MAX),
            u64::MAX - 1,
            u64::MAX,
        ] {
            let text = n.to_string();
            assert_eq!(decimal(n, &mut buf), text.as_bytes());
            assert_eq!(count(n), text.len());
        }
        for k in 0..20u32 {
            let n = 10u64.pow(k);
            assert_eq!(decimal(n - 1, &mut buf), (n - 1).to_string().as_bytes());
            assert_eq!(count(n - 1), (n - 1).to_string().len());
            assert_eq!(count(n), n.to_string().len());
        }
    }
}
