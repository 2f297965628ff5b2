//! The work queue of `usage record`'s PBS log reader: a log is cut into small chunks
//! of whole lines; every worker takes the next chunk to parse as it comes free, and the calling
//! thread also consumes (charges) the parsed chunks strictly in file order, parsing whenever the
//! next one in order is not ready. No worker waits for a fixed share of a round, so the
//! serial charging no longer leaves the other workers idle (or itself behind).

use std::ops::Range;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// A text cut into chunks of about `size` bytes, each ending at a line end (the last at the
/// text's end): chunk `i` runs from the end of the line holding byte `start + i·size` of the
/// previous cut to the next. A line longer than `size` leaves empty chunks behind it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Chunks<'t> {
    text: &'t [u8],
    start: usize,
    size: usize,
    count: usize,
}

impl<'t> Chunks<'t> {
    /// The chunks of `text[start..]`, of about `size` bytes (at least 1).
    pub fn new(text: &'t [u8], start: usize, size: usize) -> Chunks<'t> {
        let size = size.max(1);
        let rest = text.len().saturating_sub(start);
        Chunks {
            text,
            start,
            size,
            count: rest.div_ceil(size),
        }
    }

    /// How many chunks there are.
    pub fn len(&self) -> usize {
        self.count
    }

    /// The offset where chunk `i` starts (`i == len()`: the text's end).
    fn cut(&self, i: usize) -> usize {
        if i == 0 {
            return self.start.min(self.text.len());
        }
        if i >= self.count {
            return self.text.len();
        }
        let at = self.start.saturating_add(i.saturating_mul(self.size));
        line_end_after(self.text, at)
    }

    /// The byte range of chunk `i` in the text.
    pub fn range(&self, i: usize) -> Range<usize> {
        self.cut(i)..self.cut(i + 1)
    }
}

/// The offset just past the end of the line holding `at` (`text.len()` at the end).
pub(crate) fn line_end_after(text: &[u8], at: usize) -> usize {
    match text.get(at..).and_then(|r| memchr::memchr(b'\n', r)) {
        Some(i) => at + i + 1,
        None => text.len(),
    }
}

/// What the consuming thread does next ([`Queue::next`]).
pub(crate) enum Next<T> {
    /// Consume the next item in order (then hand its buffers back with [`Queue::consumed`]).
    Consume(T),
    /// Produce item `.0` into the buffers `.1` (recycled), then [`Queue::publish`] it.
    Produce(usize, T),
    /// Every item is consumed, or a helper stopped (a panic) before publishing the next one.
    Done,
}

/// Items `0..count` produced by any worker in any order, each at most `ahead` past the next
/// to consume, and consumed by one thread in order. Items' buffers are recycled.
pub(crate) struct Queue<T> {
    state: Mutex<State<T>>,
    changed: Condvar,
    count: usize,
    ahead: usize,
}

struct State<T> {
    /// The next item to claim.
    next: usize,
    /// Items consumed (the next to consume).
    consumed: usize,
    /// Produced items not consumed yet: item `i` at `i % ahead`.
    ring: Vec<Option<T>>,
    /// Buffers of consumed items, to produce into.
    spare: Vec<T>,
    /// The consumer left (done, or a panic): the helpers stop claiming.
    consumer_gone: bool,
    /// A helper left while unwinding (a panic), maybe without publishing an item it claimed.
    helper_failed: bool,
}

impl<T: Default> Queue<T> {
    /// A queue of `count` items, at most `ahead` (≥ 1) produced ahead of consumption.
    pub fn new(count: usize, ahead: usize) -> Queue<T> {
        let ahead = ahead.max(1);
        Queue {
            state: Mutex::new(State {
                next: 0,
                consumed: 0,
                ring: (0..ahead).map(|_| None).collect(),
                spare: Vec::new(),
                consumer_gone: false,
                helper_failed: false,
            }),
            changed: Condvar::new(),
            count,
            ahead,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State<T>> {
        // A poisoned lock means another thread panicked; its panic reaches the caller anyway.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn wait<'a>(&self, st: MutexGuard<'a, State<T>>) -> MutexGuard<'a, State<T>> {
        self.changed
            .wait(st)
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Claims the next item for whoever asks (`None` when none may be claimed now).
    fn claim(&self, st: &mut State<T>) -> Option<(usize, T)> {
        if st.next >= self.count || st.next >= st.consumed + self.ahead {
            return None;
        }
        let i = st.next;
        st.next += 1;
        Some((i, st.spare.pop().unwrap_or_default()))
    }

    /// The consumer's next step: the next item in order once produced, else an item to produce
    /// itself, else it waits for the helpers.
    pub fn next(&self) -> Next<T> {
        let mut st = self.lock();
        loop {
            if st.consumed >= self.count {
                return Next::Done;
            }
            let slot = st.consumed % self.ahead;
            if let Some(t) = st.ring.get_mut(slot).and_then(Option::take) {
                return Next::Consume(t);
            }
            if let Some((i, t)) = self.claim(&mut st) {
                return Next::Produce(i, t);
            }
            if st.helper_failed {
                // The next item was maybe claimed by the helper that failed, which left without it.
                return Next::Done;
            }
            st = self.wait(st);
        }
    }

    /// The consumer is done with the item it last took: its buffers go back for reuse.
    pub fn consumed(&self, t: T) {
        let mut st = self.lock();
        st.consumed += 1;
        st.spare.push(t);
        drop(st);
        self.changed.notify_all();
    }

    /// Item `i` is produced.
    pub fn publish(&self, i: usize, t: T) {
        let mut st = self.lock();
        if let Some(slot) = st.ring.get_mut(i % self.ahead) {
            *slot = Some(t);
        }
        drop(st);
        self.changed.notify_all();
    }

    /// The helper's next item to produce, waiting while it is `ahead` items in front; `None`
    /// once every item is claimed or the consumer left.
    pub fn claim_for_helper(&self) -> Option<(usize, T)> {
        let mut st = self.lock();
        loop {
            if st.consumer_gone || st.next >= self.count {
                return None;
            }
            if let Some(claimed) = self.claim(&mut st) {
                return Some(claimed);
            }
            st = self.wait(st);
        }
    }

    /// Marks one side as gone when dropped (also while unwinding), so the other never waits
    /// for it forever.
    pub fn leaving(&self, helper: bool) -> Leaving<'_, T> {
        Leaving {
            queue: self,
            helper,
        }
    }
}

/// See [`Queue::leaving`].
pub(crate) struct Leaving<'q, T: Default> {
    queue: &'q Queue<T>,
    helper: bool,
}

impl<T: Default> Drop for Leaving<'_, T> {
    fn drop(&mut self) {
        let mut st = self.queue.lock();
        if self.helper {
            // A helper that leaves normally published every item it claimed; the others may
            // still be producing theirs.
            st.helper_failed |= std::thread::panicking();
        } else {
            st.consumer_gone = true;
        }
        drop(st);
        self.queue.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(text: &[u8], start: usize, size: usize) -> Vec<&[u8]> {
        let c = Chunks::new(text, start, size);
        (0..c.len()).map(|i| &text[c.range(i)]).collect()
    }

    #[test]
    fn chunks_are_whole_lines_that_cover_the_text_once() {
        let text = b"a;1\nbb;22\n\nccc;333\r\nlast without newline";
        for start in [0, 4, 10, 11] {
            for size in 1..=text.len() + 2 {
                let got = pieces(text, start, size);
                assert_eq!(got.concat(), &text[start..], "start {start} size {size}");
                // every piece is whole lines: empty, up to a newline, or up to the text's end
                let mut at = start;
                for p in &got {
                    at += p.len();
                    let whole = p.is_empty() || p.ends_with(b"\n") || at == text.len();
                    assert!(whole, "{start} {size} {p:?}");
                }
            }
        }
        assert!(pieces(b"", 0, 5).is_empty());
        assert!(pieces(b"abc\n", 4, 5).is_empty());
        // a line longer than a chunk leaves empty chunks, nothing is split
        let long = format!("{}\nx\n", "y".repeat(100));
        let p = pieces(long.as_bytes(), 0, 7);
        assert_eq!(p.iter().filter(|p| !p.is_empty()).count(), 2);
    }

    /// Every worker produces (the consumer and three helpers), the consumer sees every item
    /// once and in order, whatever the window and however the work is spread.
    #[test]
    fn the_consumer_sees_every_item_in_order() {
        for (count, ahead) in [(0, 4), (1, 1), (5, 1), (100, 3), (1000, 16)] {
            let q: Queue<Vec<usize>> = Queue::new(count, ahead);
            let work = |i: usize, mut v: Vec<usize>| {
                v.clear();
                v.extend(std::iter::repeat_n(i, i % 7 + 1));
                if i.is_multiple_of(5) {
                    std::thread::yield_now();
                }
                v
            };
            let mut seen = Vec::new();
            let mut by_consumer = 0;
            std::thread::scope(|s| {
                for _ in 0..3 {
                    s.spawn(|| {
                        let _gone = q.leaving(true);
                        while let Some((i, v)) = q.claim_for_helper() {
                            q.publish(i, work(i, v));
                        }
                    });
                }
                let _gone = q.leaving(false);
                loop {
                    match q.next() {
                        Next::Consume(v) => {
                            seen.push(v.clone());
                            q.consumed(v);
                        }
                        Next::Produce(i, v) => {
                            by_consumer += 1;
                            q.publish(i, work(i, v));
                        }
                        Next::Done => break,
                    }
                }
            });
            let want: Vec<Vec<usize>> = (0..count).map(|i| work(i, Vec::new())).collect();
            assert_eq!(seen, want, "{count} {ahead}");
            assert!(by_consumer <= count);
        }
    }

    #[test]
    fn a_helper_that_leaves_without_its_item_does_not_hang_the_consumer() {
        let q: Queue<u8> = Queue::new(3, 2);
        let claimed = q.claim_for_helper();
        assert_eq!(claimed.map(|c| c.0), Some(0));
        // The helper panics while parsing its item.
        let failed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _gone = q.leaving(true);
            panic!("helper failed");
        }));
        assert!(failed.is_err());
        // item 1 the consumer may claim itself; item 0 never comes
        assert!(matches!(q.next(), Next::Produce(1, _)));
        assert!(matches!(q.next(), Next::Done));
    }

    #[test]
    fn a_consumer_that_leaves_stops_the_helper() {
        let q: Queue<u8> = Queue::new(10, 1);
        assert!(q.claim_for_helper().is_some());
        drop(q.leaving(false));
        assert!(q.claim_for_helper().is_none());
    }
}
