//! CPU time per pass, for benchmarks run on a shared machine: wall time there includes the
//! time other processes hold the cores, the thread's own CPU time does not. Read from
//! `/proc/thread-self/schedstat` (nanoseconds on CPU, user + system, page faults included).

use std::time::Duration;

/// CPU time this thread has used so far (None where the kernel does not expose it).
pub fn thread_cpu() -> Option<Duration> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// How many passes `report` times: `CPU_RUNS` from the environment (0 turns the reports off),
/// default 5.
pub fn runs() -> usize {
    std::env::var("CPU_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5)
}

/// Runs `pass` `runs` times and prints the best and median CPU time of one pass, labelled.
pub fn report<T>(label: &str, runs: usize, mut pass: impl FnMut() -> T) {
    if runs == 0 {
        return;
    }
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = thread_cpu();
        drop(std::hint::black_box(pass()));
        let (Some(a), Some(b)) = (start, thread_cpu()) else {
            println!("{label}: CPU time not available");
            return;
        };
        times.push(b.saturating_sub(a));
    }
    times.sort();
    if let (Some(best), Some(median)) = (times.first(), times.get(times.len() / 2)) {
        println!(
            "cpu/pass {label:<40} best {:>8.1} ms   median {:>8.1} ms",
            best.as_secs_f64() * 1e3,
            median.as_secs_f64() * 1e3
        );
    }
}
