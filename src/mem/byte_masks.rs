//! Where the bytes of three classes occur in a text, as bit masks over its 64-byte blocks (bit
//! `i` of a block's mask: byte `i` of the block is in the class), for readers that then jump
//! from one byte of interest to the next with `trailing_zeros` instead of testing byte by byte:
//! the qstat scanner (`pbs::qstat::blocks`: where a JSON string's plain run or a run of
//! whitespace ends, whether a string is all ASCII) and the accounting reader's `key=value`
//! splitter (`pbs::accounting::attr_scan`: spaces, `=`, `"`).
//!
//! Each reader names its three classes at compile time ([`Classes`]), so every comparison is
//! against a constant. The masks are computed with the widest vectors the CPU has — AVX-512BW
//! (one step a block), AVX2 (two), else SSE2 (four; part of the x86-64 baseline) — chosen at
//! run time, or a byte loop on other targets. The SSE2 path saved `usage record` 216 million of
//! 1,152 million instructions over a 100 MB log against a word-at-a-time one (callgrind), and
//! the qstat scanner reads 1.38 GB per CPU-second with them (docs/perf.md, "The qstat reader").
//!
//! The API is safe: a [`Kernel`] can only be had from [`Kernel::detect`] or [`Kernel::all`],
//! which hand out only kernels the running CPU executes, so the `target_feature` functions
//! below are never called on a CPU without their features.

/// One class of bytes: those equal to one of `equal`, those below `below` (none when 0), and,
/// when `high`, those 0x80 and above. The compares of `equal` are joined in pairs, `(a | b) |
/// (c | d)`, so a pair that differs in one bit (tab and carriage return, 0x09 and 0x0d) becomes
/// one mask-and-compare: list such bytes next to each other.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Class {
    /// Bytes in the class, compared one by one.
    pub equal: &'static [u8],
    /// Every byte below this one is in the class too (0: none is).
    pub below: u8,
    /// Every byte 0x80 and above is in the class too.
    pub high: bool,
}

impl Class {
    /// The class of exactly the bytes `equal`.
    pub(crate) const fn of(equal: &'static [u8]) -> Class {
        Class {
            equal,
            below: 0,
            high: false,
        }
    }

    /// Whether byte `c` is in the class.
    const fn has(&self, c: u8) -> bool {
        let mut i = 0;
        while i < self.equal.len() {
            if self.equal[i] == c {
                return true;
            }
            i += 1;
        }
        c < self.below || (self.high && c >= 0x80)
    }
}

/// The three classes a reader wants the masks of, fixed at compile time.
pub(crate) trait Classes {
    /// Mask `k` of a block marks the bytes of class `CLASSES[k]`.
    const CLASSES: [Class; 3];
}

/// The masks of one 64-byte block: `masks[k]` marks the bytes of class `k`.
pub(crate) type Masks = [u64; 3];

/// The masks of a block past the end of the text: a text is taken to go on with zero bytes (so
/// the masks of the block holding its end and of every block after it are those of zero bytes).
pub(crate) const fn past_end<C: Classes>() -> Masks {
    let mut out = [0u64; 3];
    let mut k = 0;
    while k < 3 {
        if C::CLASSES[k].has(0) {
            out[k] = u64::MAX;
        }
        k += 1;
    }
    out
}

/// The masks of 64 bytes, one byte at a time: the reference the vector kernels are tested
/// against, and the kernel of targets other than x86-64.
#[inline(always)]
fn block_portable<C: Classes>(b: &[u8; 64]) -> Masks {
    let mut m = [0u64; 3];
    for (i, &c) in b.iter().enumerate() {
        for (mask, class) in m.iter_mut().zip(C::CLASSES) {
            *mask |= u64::from(class.has(c)) << i;
        }
    }
    m
}

/// The vector kernels (x86-64 only).
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{fill_with, Classes, Masks};
    use std::arch::x86_64::*;

    /// The masks of sixteen bytes (in their low 16 bits), with SSE2.
    #[inline(always)]
    fn sse2_16<C: Classes>(chunk: &[u8; 16]) -> Masks {
        let mut out = [0u64; 3];
        // SAFETY: SSE2 is part of every x86-64 CPU (the target enables it); `chunk` is 16
        // readable bytes and the load is unaligned.
        unsafe {
            let v = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
            for (mask, class) in out.iter_mut().zip(C::CLASSES) {
                let eq = |c: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8));
                let mut hit = _mm_setzero_si128();
                for pair in class.equal.chunks(2) {
                    let second = pair.get(1).map_or(_mm_setzero_si128(), |&c| eq(c));
                    hit = _mm_or_si128(hit, _mm_or_si128(eq(pair[0]), second));
                }
                if class.below > 0 {
                    // Unsigned `v < below` is `min(v, below - 1) == v`.
                    let top = _mm_set1_epi8((class.below - 1) as i8);
                    hit = _mm_or_si128(hit, _mm_cmpeq_epi8(_mm_min_epu8(v, top), v));
                }
                if class.high {
                    hit = _mm_or_si128(hit, v);
                }
                *mask = u64::from(_mm_movemask_epi8(hit) as u32);
            }
        }
        out
    }

    /// A block with four SSE2 steps.
    #[inline(always)]
    pub(super) fn block_sse2<C: Classes>(b: &[u8; 64]) -> Masks {
        let mut m = [0u64; 3];
        let (parts, _) = b.as_chunks::<16>();
        for (k, part) in parts.iter().enumerate() {
            for (mask, bits) in m.iter_mut().zip(sse2_16::<C>(part)) {
                *mask |= bits << (16 * k);
            }
        }
        m
    }

    /// A block with two AVX2 steps.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn block_avx2<C: Classes>(b: &[u8; 64]) -> Masks {
        let mut m = [0u64; 3];
        for k in 0..2 {
            // SAFETY: bytes 32k..32k+32 of the 64-byte block are readable; the load is
            // unaligned; AVX2 is enabled on this function (checked by the caller at run time).
            let v = unsafe { _mm256_loadu_si256(b.as_ptr().add(32 * k).cast::<__m256i>()) };
            for (mask, class) in m.iter_mut().zip(C::CLASSES) {
                let eq = |c: u8| _mm256_cmpeq_epi8(v, _mm256_set1_epi8(c as i8));
                let mut hit = _mm256_setzero_si256();
                for pair in class.equal.chunks(2) {
                    let second = pair.get(1).map_or(_mm256_setzero_si256(), |&c| eq(c));
                    hit = _mm256_or_si256(hit, _mm256_or_si256(eq(pair[0]), second));
                }
                if class.below > 0 {
                    let top = _mm256_set1_epi8((class.below - 1) as i8);
                    hit = _mm256_or_si256(hit, _mm256_cmpeq_epi8(_mm256_min_epu8(v, top), v));
                }
                if class.high {
                    hit = _mm256_or_si256(hit, v);
                }
                *mask |= u64::from(_mm256_movemask_epi8(hit) as u32) << (32 * k);
            }
        }
        m
    }

    /// A block in one AVX-512BW step.
    #[target_feature(enable = "avx512f,avx512bw")]
    #[inline]
    fn block_avx512<C: Classes>(b: &[u8; 64]) -> Masks {
        // SAFETY: the 64 bytes of the block are readable; the load is unaligned; AVX-512F and
        // BW are enabled on this function (checked by the caller at run time).
        let v = unsafe { _mm512_loadu_si512(b.as_ptr().cast::<__m512i>()) };
        let mut m = [0u64; 3];
        for (mask, class) in m.iter_mut().zip(C::CLASSES) {
            let eq = |c: u8| _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(c as i8));
            let mut hit = 0u64;
            for pair in class.equal.chunks(2) {
                hit |= eq(pair[0]) | pair.get(1).map_or(0, |&c| eq(c));
            }
            if class.below > 0 {
                hit |= _mm512_cmplt_epu8_mask(v, _mm512_set1_epi8(class.below as i8));
            }
            if class.high {
                hit |= _mm512_movepi8_mask(v);
            }
            *mask = hit;
        }
        m
    }

    /// [`fill_with`] compiled for AVX2, so that its kernel is inlined.
    #[target_feature(enable = "avx2")]
    pub(super) fn fill_avx2<C: Classes>(
        bytes: &[u8],
        block: usize,
        out: &mut (impl AsMut<[Masks]> + ?Sized),
    ) {
        fill_with::<C>(bytes, block, out.as_mut(), |b| block_avx2::<C>(b));
    }

    /// [`fill_with`] compiled for AVX-512BW, so that its kernel is inlined.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) fn fill_avx512<C: Classes>(
        bytes: &[u8],
        block: usize,
        out: &mut (impl AsMut<[Masks]> + ?Sized),
    ) {
        fill_with::<C>(bytes, block, out.as_mut(), |b| block_avx512::<C>(b));
    }
}

/// The kernels, by width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Width {
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

/// A kernel that computes the masks, one the running CPU executes (there is no other way to
/// make one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Kernel(Width);

impl Default for Kernel {
    /// [`Kernel::detect`].
    fn default() -> Kernel {
        Kernel::detect()
    }
}

impl Kernel {
    /// The widest kernel this CPU runs (detected at run time; the result is cached by std).
    pub(crate) fn detect() -> Kernel {
        #[cfg(target_arch = "x86_64")]
        {
            if is_x86_feature_detected!("avx512bw") && is_x86_feature_detected!("avx512f") {
                return Kernel(Width::Avx512);
            }
            if is_x86_feature_detected!("avx2") {
                return Kernel(Width::Avx2);
            }
            Kernel(Width::Sse2)
        }
        #[cfg(not(target_arch = "x86_64"))]
        Kernel(Width::Portable)
    }

    /// Every kernel this CPU runs, the byte loop first (for tests that compare them).
    #[cfg(test)]
    pub(crate) fn all() -> Vec<Kernel> {
        let mut all = vec![Kernel(Width::Portable)];
        #[cfg(target_arch = "x86_64")]
        {
            all.push(Kernel(Width::Sse2));
            if is_x86_feature_detected!("avx2") {
                all.push(Kernel(Width::Avx2));
            }
            if is_x86_feature_detected!("avx512bw") && is_x86_feature_detected!("avx512f") {
                all.push(Kernel(Width::Avx512));
            }
        }
        all
    }

    /// Fills `out` with the masks of classes `C` of the blocks from `block` on (block `b` is
    /// bytes `64b..64b + 64` of `bytes`); the block holding the text's end is padded with zero
    /// bytes, the blocks after it are [`past_end`]. `out` is any slice of masks; an array's
    /// length is known to the compiled loop.
    pub(crate) fn fill<C: Classes>(
        self,
        bytes: &[u8],
        block: usize,
        out: &mut (impl AsMut<[Masks]> + ?Sized),
    ) {
        match self.0 {
            Width::Portable => fill_with::<C>(bytes, block, out.as_mut(), block_portable::<C>),
            #[cfg(target_arch = "x86_64")]
            Width::Sse2 => fill_with::<C>(bytes, block, out.as_mut(), x86::block_sse2::<C>),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: a `Kernel` of width AVX2 is only made when the CPU has AVX2
            // (`detect`, `all`).
            Width::Avx2 => unsafe { x86::fill_avx2::<C>(bytes, block, out) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: a `Kernel` of width AVX-512 is only made when the CPU has AVX-512F and BW.
            Width::Avx512 => unsafe { x86::fill_avx512::<C>(bytes, block, out) },
        }
    }
}

/// [`Kernel::fill`] with the block kernel `kernel`.
#[inline(always)]
fn fill_with<C: Classes>(
    bytes: &[u8],
    block: usize,
    out: &mut [Masks],
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
                _ => const { past_end::<C>() },
            },
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Classes of every kind: bytes alone, bytes and a bound, the high bytes.
    struct Json;
    impl Classes for Json {
        const CLASSES: [Class; 3] = [
            Class {
                equal: b"\"\\",
                below: 0x20,
                high: false,
            },
            Class::of(b" \t\n\r"),
            Class {
                equal: &[],
                below: 0,
                high: true,
            },
        ];
    }

    /// Three single bytes, zero not among them.
    struct Three;
    impl Classes for Three {
        const CLASSES: [Class; 3] = [Class::of(b" "), Class::of(b"="), Class::of(b"\"")];
    }

    /// Edge bytes of each class: a bound at 1 and at 0x80, a byte 0x80 and above compared.
    struct Edges;
    impl Classes for Edges {
        const CLASSES: [Class; 3] = [
            Class {
                equal: &[0x80, 0xff],
                below: 1,
                high: false,
            },
            Class {
                equal: &[],
                below: 0x80,
                high: false,
            },
            Class {
                equal: &[0x7f, 0],
                below: 0,
                high: true,
            },
        ];
    }

    /// The byte-by-byte masks of `text` from block `first` on, zero bytes past the end.
    fn reference<C: Classes>(text: &[u8], first: usize, n: usize) -> Vec<Masks> {
        (first..first + n)
            .map(|b| {
                let mut padded = [0u8; 64];
                for (i, p) in padded.iter_mut().enumerate() {
                    *p = text.get(b * 64 + i).copied().unwrap_or(0);
                }
                let mut m = [0u64; 3];
                for (i, &c) in padded.iter().enumerate() {
                    for (k, class) in C::CLASSES.iter().enumerate() {
                        m[k] |= u64::from(class.has(c)) << i;
                    }
                }
                m
            })
            .collect()
    }

    /// Every kernel gives the byte-by-byte masks, for every byte value at every position among
    /// neighbours of the next value (a carry or a lane mix-up would show), and at the text's
    /// end (a partial block, blocks past the end).
    fn every_kernel_matches_the_bytes<C: Classes>() {
        let mut text: Vec<u8> = (0..=255u8).collect();
        text.extend((0..700u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8));
        text.extend_from_slice(b"  \t\r\n\"\\ \x1f\x20\x7f\x80\xff=");
        for kernel in Kernel::all() {
            for len in [0, 1, 63, 64, 65, 900, text.len()] {
                let text = &text[..len];
                for first in 0..(len / 64 + 3) {
                    let mut got = [[0u64; 3]; 5];
                    kernel.fill::<C>(text, first, &mut got);
                    let want = reference::<C>(text, first, 5);
                    assert_eq!(got.to_vec(), want, "{kernel:?} len {len} block {first}");
                }
            }
            for v in 0..=255u8 {
                for pos in 0..64 {
                    let mut block = [v.wrapping_add(1); 64];
                    block[pos] = v;
                    let mut got = [[0u64; 3]; 1];
                    kernel.fill::<C>(&block, 0, &mut got);
                    assert_eq!(
                        got.to_vec(),
                        reference::<C>(&block, 0, 1),
                        "{kernel:?} {block:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn every_kernel_gives_the_masks_of_each_class() {
        every_kernel_matches_the_bytes::<Json>();
        every_kernel_matches_the_bytes::<Three>();
        every_kernel_matches_the_bytes::<Edges>();
    }

    /// Past the end, the masks are those of zero bytes.
    #[test]
    fn past_the_end_reads_as_zero_bytes() {
        assert_eq!(past_end::<Json>(), [u64::MAX, 0, 0]);
        assert_eq!(past_end::<Three>(), [0, 0, 0]);
        assert_eq!(past_end::<Edges>(), [u64::MAX, u64::MAX, u64::MAX]);
        for kernel in Kernel::all() {
            let mut got = [[1u64; 3]; 2];
            kernel.fill::<Json>(b"ab", 1, &mut got);
            assert_eq!(got, [past_end::<Json>(); 2]);
        }
    }

    #[test]
    fn the_detected_kernel_is_one_the_cpu_runs() {
        assert!(Kernel::all().contains(&Kernel::detect()));
        assert_eq!(Kernel::all()[0], Kernel(Width::Portable));
        assert_eq!(Kernel::default(), Kernel::detect());
    }
}
