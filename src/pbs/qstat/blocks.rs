//! Stage 1 of the qstat JSON scanner (`json_scan`): bitmasks over 64-byte blocks of the text,
//! one bit per byte, computed 1 KiB at a time with the widest vectors the CPU has (AVX-512BW,
//! AVX2, else SSE2, the x86-64 baseline; a byte loop on other targets). The end of a string's
//! plain run, the end of a run of whitespace and "is this string all ASCII" then become a
//! `tzcnt` or a test on a mask instead of a loop over the bytes of each token.
//!
//! The masks are only a faster way to find bytes: every decision (what a string may hold, which
//! escapes are valid, what a number is) is still the scanner's, byte for byte as before.

/// Blocks of 64 bytes computed per refill (1 KiB of text).
pub(super) const BATCH: usize = 16;

/// The masks of one 64-byte block; bit `i` stands for byte `i` of the block.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Masks {
    /// `"`, backslash or a control byte (below 0x20): where a string's plain run stops.
    pub(super) stops: u64,
    /// JSON whitespace: space, tab, line feed, carriage return.
    pub(super) ws: u64,
    /// Bytes 0x80 and above (parts of multi-byte UTF-8 characters, or not UTF-8 at all).
    pub(super) high: u64,
}

/// A block wholly past the end of the text: its bytes read as zero bytes do (a control byte
/// stops a string, is not whitespace, is ASCII), so every scan ends at the text's end.
const PAST_END: Masks = Masks {
    stops: !0,
    ws: 0,
    high: 0,
};

/// The masks of 64 bytes, one byte at a time: the reference the vector kernels are tested
/// against, and the kernel of targets other than x86-64.
fn block_portable(b: &[u8; 64]) -> Masks {
    let mut m = Masks::default();
    for (i, &c) in b.iter().enumerate() {
        let bit = 1u64 << i;
        if c == b'"' || c == b'\\' || c < 0x20 {
            m.stops |= bit;
        }
        if matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
            m.ws |= bit;
        }
        if c >= 0x80 {
            m.high |= bit;
        }
    }
    m
}

/// The vector kernels (x86-64 only).
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::Masks;
    use std::arch::x86_64::*;

    /// Sixteen bytes' (stops, ws, high) bits. SSE2 is part of the x86-64 baseline.
    #[inline]
    fn sse2_16(chunk: &[u8; 16]) -> (u64, u64, u64) {
        // SAFETY: SSE2 is part of every x86-64 CPU (the target enables it); `chunk` is 16
        // readable bytes and the load is unaligned.
        unsafe {
            let v = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
            let eq = |c: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8));
            // Unsigned `v < 0x20` is `min(v, 0x1f) == v`.
            let control = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
            let stops = _mm_or_si128(_mm_or_si128(eq(b'"'), eq(b'\\')), control);
            let ws = _mm_or_si128(
                _mm_or_si128(eq(b' '), eq(b'\n')),
                _mm_or_si128(eq(b'\t'), eq(b'\r')),
            );
            (
                _mm_movemask_epi8(stops) as u32 as u64,
                _mm_movemask_epi8(ws) as u32 as u64,
                _mm_movemask_epi8(v) as u32 as u64,
            )
        }
    }

    /// A block with four SSE2 steps.
    #[inline]
    pub(super) fn block_sse2(b: &[u8; 64]) -> Masks {
        let mut m = Masks::default();
        let (parts, _) = b.as_chunks::<16>();
        for (k, part) in parts.iter().enumerate() {
            let (s, w, h) = sse2_16(part);
            m.stops |= s << (16 * k);
            m.ws |= w << (16 * k);
            m.high |= h << (16 * k);
        }
        m
    }

    /// A block with two AVX2 steps.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(super) fn block_avx2(b: &[u8; 64]) -> Masks {
        let mut m = Masks::default();
        for k in 0..2 {
            // SAFETY: bytes 32k..32k+32 of the 64-byte block are readable; the load is
            // unaligned; AVX2 is enabled on this function (checked by the caller at run time).
            let v = unsafe { _mm256_loadu_si256(b.as_ptr().add(32 * k).cast::<__m256i>()) };
            let quote = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'"' as i8));
            let backslash = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\\' as i8));
            let control = _mm256_cmpeq_epi8(_mm256_min_epu8(v, _mm256_set1_epi8(0x1f)), v);
            let stops = _mm256_or_si256(_mm256_or_si256(quote, backslash), control);
            let space = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b' ' as i8));
            let lf = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\n' as i8));
            let tab = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\t' as i8));
            let cr = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\r' as i8));
            let ws = _mm256_or_si256(_mm256_or_si256(space, lf), _mm256_or_si256(tab, cr));
            m.stops |= u64::from(_mm256_movemask_epi8(stops) as u32) << (32 * k);
            m.ws |= u64::from(_mm256_movemask_epi8(ws) as u32) << (32 * k);
            m.high |= u64::from(_mm256_movemask_epi8(v) as u32) << (32 * k);
        }
        m
    }

    /// A block in one AVX-512BW step.
    #[target_feature(enable = "avx512f,avx512bw")]
    #[inline]
    pub(super) fn block_avx512(b: &[u8; 64]) -> Masks {
        // SAFETY: the 64 bytes of the block are readable; the load is unaligned; AVX-512F and
        // BW are enabled on this function (checked by the caller at run time).
        let v = unsafe { _mm512_loadu_si512(b.as_ptr().cast::<__m512i>()) };
        let quote = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'"' as i8));
        let backslash = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'\\' as i8));
        let control = _mm512_cmplt_epu8_mask(v, _mm512_set1_epi8(0x20));
        let space = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b' ' as i8));
        let lf = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'\n' as i8));
        let tab = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'\t' as i8));
        let cr = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'\r' as i8));
        Masks {
            stops: quote | backslash | control,
            ws: space | lf | tab | cr,
            high: _mm512_movepi8_mask(v),
        }
    }
}

/// Which kernel computes the masks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Level {
    /// One byte at a time (targets other than x86-64; on x86-64 only the tests use it).
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
    Portable,
    /// Four 16-byte steps (every x86-64 CPU).
    #[cfg(target_arch = "x86_64")]
    Sse2,
    /// Two 32-byte steps.
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// One 64-byte step.
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

impl Level {
    /// The widest kernel this CPU runs (detected at run time; the result is cached by std).
    pub(super) fn detect() -> Level {
        #[cfg(target_arch = "x86_64")]
        {
            if is_x86_feature_detected!("avx512bw") && is_x86_feature_detected!("avx512f") {
                return Level::Avx512;
            }
            if is_x86_feature_detected!("avx2") {
                return Level::Avx2;
            }
            Level::Sse2
        }
        #[cfg(not(target_arch = "x86_64"))]
        Level::Portable
    }

    /// Every level this CPU can run (for the tests that compare them).
    #[cfg(test)]
    pub(super) fn all() -> Vec<Level> {
        let mut all = vec![Level::Portable];
        #[cfg(target_arch = "x86_64")]
        {
            all.push(Level::Sse2);
            if is_x86_feature_detected!("avx2") {
                all.push(Level::Avx2);
            }
            if is_x86_feature_detected!("avx512bw") && is_x86_feature_detected!("avx512f") {
                all.push(Level::Avx512);
            }
        }
        all
    }
}

/// The masks of [`BATCH`] consecutive blocks of a text, refilled as a scanner moves on.
pub(super) struct Blocks {
    level: Level,
    /// The block number (byte offset / 64) of `masks[0]`.
    first: usize,
    masks: [Masks; BATCH],
}

impl Blocks {
    /// No blocks computed yet, with the CPU's widest kernel.
    pub(super) fn new() -> Blocks {
        Blocks::with_level(Level::detect())
    }

    /// No blocks computed yet, with the kernel `level` (which the CPU must run).
    pub(super) fn with_level(level: Level) -> Blocks {
        Blocks {
            level,
            // No block `b` has `b - first` (wrapping) below BATCH: `b + BATCH + 1`.
            first: usize::MAX - BATCH,
            masks: [Masks::default(); BATCH],
        }
    }

    /// The masks of the block holding byte `pos` of `bytes` (past the end: as if the text went
    /// on with zero bytes).
    #[inline]
    pub(super) fn at(&mut self, bytes: &[u8], pos: usize) -> Masks {
        let block = pos / 64;
        let i = block.wrapping_sub(self.first);
        match self.masks.get(i) {
            Some(m) => *m,
            None => {
                self.fill(bytes, block);
                self.masks[0]
            }
        }
    }

    /// Computes the masks of blocks `block..block + BATCH`.
    #[inline(never)]
    fn fill(&mut self, bytes: &[u8], block: usize) {
        self.first = block;
        let out = &mut self.masks;
        match self.level {
            Level::Portable => fill_with(bytes, block, out, block_portable),
            #[cfg(target_arch = "x86_64")]
            Level::Sse2 => fill_with(bytes, block, out, x86::block_sse2),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Level::Avx2` is only chosen when the CPU has AVX2 (`Level::detect`,
            // `Level::all`).
            Level::Avx2 => unsafe { fill_avx2(bytes, block, out) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Level::Avx512` is only chosen when the CPU has AVX-512F and BW.
            Level::Avx512 => unsafe { fill_avx512(bytes, block, out) },
        }
    }
}

/// Fills `out` with the masks of the blocks from `block` on, each computed by `kernel`; the
/// block holding the text's end is padded with zero bytes, the blocks after it are
/// [`PAST_END`].
#[inline(always)]
fn fill_with(
    bytes: &[u8],
    block: usize,
    out: &mut [Masks; BATCH],
    kernel: impl Fn(&[u8; 64]) -> Masks,
) {
    for (k, m) in out.iter_mut().enumerate() {
        let at = (block + k).saturating_mul(64);
        *m = match bytes.get(at..).and_then(<[u8]>::first_chunk::<64>) {
            Some(b) => kernel(b),
            None => match bytes.get(at..) {
                Some(rest) if !rest.is_empty() => {
                    let mut padded = [0u8; 64];
                    padded[..rest.len()].copy_from_slice(rest);
                    kernel(&padded)
                }
                _ => PAST_END,
            },
        };
    }
}

/// [`fill_with`] compiled for AVX2, so that its kernel is inlined.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn fill_avx2(bytes: &[u8], block: usize, out: &mut [Masks; BATCH]) {
    fill_with(bytes, block, out, |b| x86::block_avx2(b));
}

/// [`fill_with`] compiled for AVX-512BW, so that its kernel is inlined.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
fn fill_avx512(bytes: &[u8], block: usize, out: &mut [Masks; BATCH]) {
    fill_with(bytes, block, out, |b| x86::block_avx512(b));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kernel gives the byte loop's masks, on every byte value at every position, and at
    /// the text's end (a partial block, blocks past the end).
    #[test]
    fn every_kernel_matches_the_byte_loop() {
        let mut text: Vec<u8> = (0..=255u8).collect();
        text.extend((0..700u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8));
        text.extend_from_slice(b"  \t\r\n\"\\ \x1f\x20\x7f\x80\xff");
        for len in [0, 1, 63, 64, 65, 900, text.len()] {
            let text = &text[..len];
            for level in Level::all() {
                let mut blocks = Blocks::with_level(level);
                for pos in (0..len + 200).step_by(7) {
                    let got = blocks.at(text, pos);
                    let start = pos / 64 * 64;
                    let mut padded = [0u8; 64];
                    if let Some(rest) = text.get(start..) {
                        let n = rest.len().min(64);
                        padded[..n].copy_from_slice(&rest[..n]);
                    }
                    let want = if start >= len {
                        PAST_END
                    } else {
                        block_portable(&padded)
                    };
                    assert_eq!(got, want, "{level:?} len {len} pos {pos}");
                }
            }
        }
    }

    #[test]
    fn the_detected_level_is_one_the_cpu_runs() {
        assert!(Level::all().contains(&Level::detect()));
    }
}
