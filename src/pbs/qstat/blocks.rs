//! Stage 1 of the qstat JSON scanner (`scan`): the bitmasks of the text's 64-byte blocks
//! (`mem::byte_masks`: string stops, whitespace, non-ASCII bytes), computed 1 KiB at a time and
//! kept while the scanner moves through them.
//!
//! The masks are only a faster way to find bytes: every decision (what a string may hold, which
//! escapes are valid, what a number is) is still the scanner's, byte for byte.

use crate::mem::byte_masks::{self, Class, Classes, Kernel};

/// Blocks of 64 bytes computed per refill (1 KiB of text).
pub(super) const BATCH: usize = 16;

/// The byte classes of JSON text the scanner steps by, in the order of [`Masks`]' fields.
struct Json;

impl Classes for Json {
    const CLASSES: [Class; 3] = [
        // Where a string's plain run stops: `"`, backslash or a control byte.
        Class {
            equal: b"\"\\",
            below: 0x20,
            high: false,
        },
        // JSON whitespace (tab and carriage return side by side: one compare, `mem::byte_masks`).
        Class::of(b" \n\t\r"),
        // Parts of multi-byte UTF-8 characters (or not UTF-8 at all).
        Class {
            equal: &[],
            below: 0,
            high: true,
        },
    ];
}

/// The masks of one 64-byte block; bit `i` stands for byte `i` of the block.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Masks {
    /// `"`, backslash or a control byte (below 0x20): where a JSON string's plain run stops.
    pub(super) stops: u64,
    /// JSON whitespace: space, tab, line feed, carriage return.
    pub(super) ws: u64,
    /// Bytes 0x80 and above (parts of multi-byte UTF-8 characters, or not UTF-8 at all).
    pub(super) high: u64,
}

impl From<byte_masks::Masks> for Masks {
    #[inline(always)]
    fn from([stops, ws, high]: byte_masks::Masks) -> Masks {
        Masks { stops, ws, high }
    }
}

/// A block wholly past the end of the text: its bytes read as zero bytes do (a control byte
/// stops a string, is not whitespace, is ASCII), so every scan ends at the text's end.
#[cfg(test)]
pub(super) const PAST_END: Masks = Masks {
    stops: !0,
    ws: 0,
    high: 0,
};

/// The masks of [`BATCH`] consecutive blocks of a text, refilled as a scanner moves on.
pub(super) struct Blocks {
    kernel: Kernel,
    /// The block number (byte offset / 64) of `masks[0]`.
    first: usize,
    masks: [byte_masks::Masks; BATCH],
}

impl Blocks {
    /// No blocks computed yet, with the CPU's widest kernel.
    pub(super) fn new() -> Blocks {
        Blocks::with_kernel(Kernel::detect())
    }

    /// No blocks computed yet, with the kernel `kernel`.
    pub(super) fn with_kernel(kernel: Kernel) -> Blocks {
        Blocks {
            kernel,
            // No block `b` has `b - first` (wrapping) below BATCH: `b + BATCH + 1`.
            first: usize::MAX - BATCH,
            masks: [[0; 3]; BATCH],
        }
    }

    /// The masks of the block holding byte `pos` of `bytes` (past the end: as if the text went
    /// on with zero bytes).
    #[inline]
    pub(super) fn at(&mut self, bytes: &[u8], pos: usize) -> Masks {
        let block = pos / 64;
        let i = block.wrapping_sub(self.first);
        match self.masks.get(i) {
            Some(m) => Masks::from(*m),
            None => {
                self.fill(bytes, block);
                Masks::from(self.masks[0])
            }
        }
    }

    /// Computes the masks of blocks `block..block + BATCH`.
    #[inline(never)]
    fn fill(&mut self, bytes: &[u8], block: usize) {
        self.first = block;
        self.kernel.fill::<Json>(bytes, block, &mut self.masks);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The masks by the byte-by-byte definitions of [`Masks`]' fields.
    fn by_bytes(text: &[u8], block: usize) -> Masks {
        let mut m = Masks::default();
        for i in 0..64 {
            let c = text.get(block * 64 + i).copied().unwrap_or(0);
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

    /// The cache gives the masks of the block holding each position, refilled as needed,
    /// forwards, backwards and past the end, with every kernel; and the masks are the fields'
    /// definitions.
    #[test]
    fn each_position_gets_its_blocks_masks() {
        let text: Vec<u8> = (0..5000u32)
            .map(|i| b" \"a\\\n\xc3x\x01\t\r"[(i.wrapping_mul(2_654_435_761) >> 13) as usize % 10])
            .collect();
        for kernel in Kernel::all() {
            let mut blocks = Blocks::with_kernel(kernel);
            for pos in (0..6000).step_by(37).chain((0..6000).rev().step_by(53)) {
                assert_eq!(
                    blocks.at(&text, pos),
                    by_bytes(&text, pos / 64),
                    "{kernel:?} pos {pos}"
                );
            }
            assert_eq!(blocks.at(&text, 7000), PAST_END);
        }
    }
}
