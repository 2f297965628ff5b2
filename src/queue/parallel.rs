//! Two pieces of work at once: the large-queue paths (a million-job file's two halves, its
//! columns, its duplicate check) split their work in two for the machine's two cores.

/// Below this many jobs the large-queue paths stay on the calling thread (a thread costs more
/// than it saves): evaluation and sorting, the columns, the duplicate-id check, the append.
pub const PARALLEL_MIN_JOBS: usize = 1 << 16;

/// Runs `back` on a second thread while `front` runs on this one, and returns both results.
/// A panic in `back` (a bug) is resumed on this thread, as if both had run here.
pub fn join<A, B>(front: impl FnOnce() -> A, back: impl FnOnce() -> B + Send) -> (A, B)
where
    B: Send,
{
    std::thread::scope(|s| {
        let back = s.spawn(back);
        let front = front();
        match back.join() {
            Ok(back) => (front, back),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn both_results_in_order() {
        let data = [1, 2, 3, 4];
        let (a, b) = super::join(
            || data[..2].iter().sum::<i32>(),
            || data[2..].iter().sum::<i32>(),
        );
        assert_eq!((a, b), (3, 7));
    }
}
