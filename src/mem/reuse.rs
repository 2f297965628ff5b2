//! Buffers reused in place where a second buffer would cost memory or page faults: merging two
//! sorted vectors into the first's allocation from the back, and appending from the back while
//! the source is given back, and turning a vector's items into items of another type of the same
//! layout in its own allocation. Safe Rust has no way to write a vector's slots out of order or
//! to change its item type; these three do it by hand, with their invariants stated and tested
//! here (items that own memory, so a lost item or a double drop would show).

/// How many bytes of items [`merge_by`] and [`append_from_back`] move between two releases
/// of the source's emptied end.
const RELEASE_BYTES: usize = 3 << 20;

/// [`RELEASE_BYTES`] as a count of `T`s.
fn release_every<T>() -> usize {
    (RELEASE_BYTES / std::mem::size_of::<T>().max(1)).max(1)
}

/// Merges `b` into `a`, both sorted, stably (`a`'s items first among equal ones), with
/// `after(x, y)` true when `x` goes after `y`: from the back, in place, each item moved once
/// and no second buffer. `b`'s emptied end is given back every [`RELEASE_BYTES`] while `a`'s
/// new end is written, so the pages `a` grows into are mostly the ones `b` just freed (a page
/// touched for the first time costs up to four times a recently freed one) and the peak holds
/// about `b`'s items less than `a` and `b` whole.
pub(crate) fn merge_by<T>(a: &mut Vec<T>, mut b: Vec<T>, after: impl Fn(&T, &T) -> bool) {
    let (n1, total, every) = (a.len(), a.len() + b.len(), release_every::<T>());
    a.reserve_exact(b.len());
    // From here `a`'s buffer is managed by hand: slots [0, i) hold `a`'s unmerged items, slots
    // [k, total) the merged ones, and the slots between are unused (moved out or never
    // written). `a`'s length is 0 meanwhile, so if anything below panicked the items would
    // leak, never be dropped twice.
    let base = a.as_mut_ptr();
    // SAFETY: shrinking the length to 0 drops nothing and leaves the items in place.
    unsafe { a.set_len(0) };
    let (mut i, mut k) = (n1, total);
    while let Some(last) = b.last() {
        k -= 1;
        // SAFETY: `i - 1 < i <= n1` is an initialized slot of `a` (items below `i` are never
        // moved out), and `k < total` is within the reserved capacity. `k - i == b.len() - 1`
        // here (it is `b.len()` before each step, and each step takes one item from `a` or
        // `b`), so `k >= i > i - 1`: the move from `i - 1` to `k` does not overlap, and a
        // slot written at `k` was unused.
        unsafe {
            if i > 0 && after(&*base.add(i - 1), last) {
                i -= 1;
                std::ptr::copy_nonoverlapping(base.add(i), base.add(k), 1);
            } else if let Some(item) = b.pop() {
                base.add(k).write(item);
                if b.len().is_multiple_of(every) {
                    b.shrink_to_fit();
                }
            }
        }
    }
    // `b` is empty: `k == i`, and slots [0, total) hold the merged items.
    // SAFETY: every slot below `total` is initialized (see above), within the capacity.
    unsafe { a.set_len(total) };
}

/// Appends `map` of each item of `src` to `dst`, writing from the back and giving back
/// `src`'s emptied end every [`RELEASE_BYTES`]: the pages `dst` grows into are mostly the ones
/// `src` just freed (see [`merge_by`]). `dst`'s order is `src`'s, as `extend` gives.
pub(crate) fn append_from_back<T: Copy>(dst: &mut Vec<T>, mut src: Vec<T>, map: impl Fn(T) -> T) {
    let (len, n, every) = (dst.len(), src.len(), release_every::<T>());
    dst.reserve_exact(n);
    let spare = &mut dst.spare_capacity_mut()[..n];
    let mut to = n;
    while to > 0 {
        let from = to.saturating_sub(every);
        for (slot, &x) in spare[from..to].iter_mut().zip(&src[from..to]) {
            slot.write(map(x));
        }
        src.truncate(from);
        src.shrink_to_fit();
        to = from;
    }
    // SAFETY: the loop wrote each of the `n` slots after `len` (within the reserved capacity).
    unsafe { dst.set_len(len + n) };
}

/// Items of a map's output per part of [`map_in_place`] (a part is converted by one worker).
const MAP_PART: usize = 1 << 14;

/// The first `len` of `items` turned into `B`s by `f(position, item)`, written over the items
/// in their own allocation (in parts on every worker of rayon's pool for a long vector), which
/// the result keeps: a million 16-byte sort keys become the ranked entries without a second
/// 16 MB buffer. `A` and `B` must have the same size and alignment (checked when compiled).
/// A panic in `f` leaks the allocation.
pub(crate) fn map_in_place<A, B, F>(items: Vec<A>, len: usize, f: F) -> Vec<B>
where
    A: Copy + Send,
    B: Copy + Send,
    F: Fn(usize, A) -> B + Sync,
{
    use rayon::prelude::*;
    const {
        assert!(
            std::mem::size_of::<A>() == std::mem::size_of::<B>()
                && std::mem::align_of::<A>() == std::mem::align_of::<B>()
        )
    };
    let mut items = std::mem::ManuallyDrop::new(items);
    let len = len.min(items.len());
    let cap = items.capacity();
    let slots = items.get_mut(..len).unwrap_or_default();
    let convert = |(part, chunk): (usize, &mut [A])| {
        let base = chunk.as_mut_ptr();
        for at in 0..chunk.len() {
            // SAFETY: `at < chunk.len()`, so slot `at` of this worker's own chunk holds an `A`
            // (initialised, `Copy`: no drop), read before the `B` (same size and alignment,
            // asserted above) is written over it; each slot is read once and written once.
            unsafe {
                let item = base.add(at).read();
                base.add(at)
                    .cast::<B>()
                    .write(f(part * MAP_PART + at, item));
            }
        }
    };
    if len < 4 * MAP_PART {
        slots.chunks_mut(MAP_PART).enumerate().for_each(convert);
    } else {
        slots.par_chunks_mut(MAP_PART).enumerate().for_each(convert);
    }
    let base = items.as_mut_ptr().cast::<B>();
    // SAFETY: the allocation was made for `cap` `A`s, which have the size and alignment of `B`,
    // so it holds `cap` `B`s with the same layout; its first `len` slots each had a `B` written
    // over them above (every chunk was converted: `for_each` returns after all of them); the
    // `A`s past `len` are `Copy` and simply forgotten; `items` is never dropped
    // (`ManuallyDrop`), so the allocation has one owner.
    unsafe { Vec::from_raw_parts(base, len, cap) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The merge and the append that give back their source's end as they go: the same
    /// result as the plain merge and `extend`, across many releases (large items, so that a
    /// release falls every few dozen), with items that own heap memory (a double drop or a
    /// lost item would show).
    #[test]
    fn merges_and_appends_that_release_their_source_give_the_plain_result() {
        type Big = (u32, String, [u64; 4096]);
        assert!(release_every::<Big>() < 100);
        let item =
            |key: u32, tag: usize| -> Big { (key, format!("{key}/{tag}"), [tag as u64; 4096]) };
        for (na, nb) in [(0, 0), (0, 250), (250, 0), (300, 500), (500, 300), (96, 96)] {
            let mut a: Vec<Big> = (0..na).map(|i| item((i * 7 % 50) as u32, i)).collect();
            let mut b: Vec<Big> = (0..nb)
                .map(|i| item((i * 11 % 50) as u32, 1000 + i))
                .collect();
            a.sort_by_key(|x| x.0);
            b.sort_by_key(|x| x.0);
            let mut want: Vec<Big> = a.iter().chain(&b).cloned().collect();
            want.sort_by_key(|x| x.0); // stable: `a`'s items first among equal keys
            merge_by(&mut a, b, |x, y| x.0 > y.0);
            assert!(a
                .iter()
                .map(|x| (x.0, &x.1))
                .eq(want.iter().map(|x| (x.0, &x.1))));
            assert!(a.iter().all(|x| x.2.iter().all(|&v| v == x.2[0])));
        }
        type Block = [u64; 8192];
        assert!(release_every::<Block>() < 64);
        for (na, nb) in [(0, 0), (3, 0), (0, 200), (7, 200), (10, 48)] {
            let block = |i: usize| -> Block { [i as u64; 8192] };
            let mut dst: Vec<Block> = (0..na).map(block).collect();
            let src: Vec<Block> = (100..100 + nb).map(block).collect();
            append_from_back(&mut dst, src, |mut x| {
                x[1] += 1;
                x
            });
            assert_eq!(dst.len(), na + nb);
            for (k, x) in dst.iter().enumerate() {
                let i = if k < na { k } else { 100 + k - na };
                assert_eq!(
                    (x[0], x[1], x[8191]),
                    (i as u64, i as u64 + u64::from(k >= na), i as u64)
                );
            }
        }
    }

    /// Every item converted once, in place, at every length around the parts' size, on one
    /// worker and on several; the allocation kept.
    #[test]
    fn map_in_place_converts_each_item_once_in_its_allocation() {
        #[derive(Clone, Copy, Debug, PartialEq)]
        struct Pair {
            pos: u32,
            twice: u16,
            flag: bool,
        }
        for n in [
            0,
            1,
            MAP_PART - 1,
            MAP_PART,
            4 * MAP_PART + 3,
            9 * MAP_PART + 1,
        ] {
            for keep in [n, n / 2] {
                let items: Vec<[u32; 2]> = (0..n as u32).map(|x| [x * 7, 0]).collect();
                let ptr = items.as_ptr() as usize;
                let out: Vec<Pair> = map_in_place(items, keep, |i, x| Pair {
                    pos: i as u32,
                    twice: (x[0] / 7 * 2) as u16,
                    flag: i % 3 == 0,
                });
                assert_eq!(out.len(), keep);
                if n > 0 {
                    assert_eq!(out.as_ptr() as usize, ptr, "same allocation");
                }
                for (i, p) in out.iter().enumerate() {
                    let want = Pair {
                        pos: i as u32,
                        twice: (2 * i) as u16,
                        flag: i % 3 == 0,
                    };
                    assert_eq!(*p, want, "{n} {keep} {i}");
                }
            }
        }
    }
}
