//! Huge pages for a large array about to be filled: a page fault costs more than a microsecond
//! on a virtual machine, and reading a 100 000-user home's `snapshot.bin` fills about 20 MB of
//! fresh memory, one 4 KiB fault each; with transparent huge pages in `madvise` mode (the
//! common default) a region marked here is faulted 2 MiB at a time.

/// The largest spare capacity [`advise`] asks huge pages for. Above it the kernel's direct
/// compaction (THP `defrag` is `madvise` by default: a fault in a marked region compacts memory
/// to find a free 2 MiB page) cost more than the faults saved: `share -a pbs` over a million
/// users (a 136 MB node array and 112 MB of specs) took 0.8–1.2 s of system time with the
/// advice and 0.46–0.55 s without, 0.2–0.4 s more wall (session 9, docs/perf.md); the 100 000-
/// user home's 13.6 MB node array gains from it (snapshot read 33–37 ms against 45–49).
pub(crate) const MAX_ADVISED: usize = 32 << 20;

/// Asks the kernel to back `v`'s spare capacity with transparent huge pages (Linux; elsewhere,
/// or when refused, nothing changes), when that capacity is at most [`MAX_ADVISED`] bytes
/// (`FAIRSORT_THP_MAX_MB` sets another limit, `FAIRSORT_NO_THP` none at all: to measure them).
/// Only a hint: the contents and the allocation stay as they are.
pub(crate) fn advise<T>(v: &mut Vec<T>) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        if std::env::var_os("FAIRSORT_NO_THP").is_some() {
            return;
        }
        let spare = v.spare_capacity_mut();
        let start = spare.as_mut_ptr() as usize;
        let end = start + std::mem::size_of_val(spare);
        // FAIRSORT_THP_MAX_MB: another limit, to measure it.
        let max = std::env::var("FAIRSORT_THP_MAX_MB")
            .ok()
            .and_then(|m| m.parse::<usize>().ok())
            .map_or(MAX_ADVISED, |m| m.saturating_mul(1 << 20));
        if end - start > max {
            return;
        }
        // Only whole huge pages inside the allocation: smaller ones gain nothing.
        let (from, to) = (start.next_multiple_of(HUGE), end / HUGE * HUGE);
        if to > from {
            // SAFETY: [from, to) lies inside `v`'s allocation, which this function borrows
            // mutably, and MADV_HUGEPAGE changes neither the mapping's contents nor its
            // validity, only how the kernel backs it; any error is ignored.
            unsafe {
                let _ = rustix::mm::madvise(
                    from as *mut std::ffi::c_void,
                    to - from,
                    rustix::mm::Advice::LinuxHugepage,
                );
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = v;
}

/// The address range of a vector's spare capacity, for [`Spare::populate`]: one stage of a
/// reader faults in the memory that the other stage is about to fill (the faults were most of
/// the filling stage's time on a virtual machine).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Spare {
    start: usize,
    len: usize,
}

/// The spare capacity of `v`, as it is now (only its address is kept: no borrow).
pub(crate) fn spare_of<T>(v: &mut Vec<T>) -> Spare {
    let spare = v.spare_capacity_mut();
    Spare {
        start: spare.as_mut_ptr() as usize,
        len: std::mem::size_of_val(spare),
    }
}

/// The memory of `s`, as it is now (only its address is kept: no borrow), for a table that
/// another thread is about to fill: populated first, its pages are not the kernel's shared
/// zero page that a read maps and the first write then replaces (a fault and a TLB flush on
/// every core each).
pub(crate) fn range_of<T>(s: &mut [T]) -> Spare {
    Spare {
        start: s.as_mut_ptr() as usize,
        len: std::mem::size_of_val(s),
    }
}

impl Spare {
    /// Its length in bytes.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Faults in bytes `from..to` of the range now, as a write would (Linux 5.14+; elsewhere,
    /// or when refused, nothing happens and the writes fault as before).
    pub(crate) fn populate(&self, from: usize, to: usize) {
        #[cfg(target_os = "linux")]
        {
            const PAGE: usize = 4096;
            let to = to.min(self.len);
            let first = (self.start + from).next_multiple_of(PAGE);
            let end = (self.start + to) / PAGE * PAGE;
            if end > first {
                // SAFETY: MADV_POPULATE_WRITE changes no byte of memory: it maps the pages of
                // the range as a write fault would, without writing. The range was the spare
                // capacity of a vector: if that memory was freed since, the call fails (not
                // mapped) or populates memory now used elsewhere, unchanged; errors are ignored.
                unsafe {
                    let _ = rustix::mm::madvise(
                        first as *mut std::ffi::c_void,
                        end - first,
                        rustix::mm::Advice::LinuxPopulateWrite,
                    );
                }
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = (from, to);
    }
}
