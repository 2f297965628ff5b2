//! Huge pages for a large array about to be filled: a page fault costs more than a microsecond
//! on a virtual machine, and reading a 100 000-user home's `snapshot.bin` fills about 20 MB of
//! fresh memory, one 4 KiB fault each; with transparent huge pages in `madvise` mode (the
//! common default) a region marked here is faulted 2 MiB at a time.

/// The largest spare capacity [`advise`] asks huge pages for. Above it the kernel's direct
/// compaction (THP `defrag` is `madvise` by default: a fault in a marked region compacts memory
/// to find a free 2 MiB page) cost more than the faults saved: `share -a pbs` over a million
/// users (a 136 MB node array and 112 MB of specs) took 0.8–1.2 s of system time with the
/// advice and 0.46–0.55 s without, 0.2–0.4 s more wall (docs/perf.md); the 100 000-
/// user home's 13.6 MB node array gains from it (snapshot read 33–37 ms against 45–49).
pub(crate) const MAX_ADVISED: usize = 32 << 20;

/// Asks the kernel to back `v`'s spare capacity with transparent huge pages (Linux; elsewhere,
/// or when refused, nothing changes), when that capacity is at most [`MAX_ADVISED`] bytes.
/// Only a hint: the contents and the allocation stay as they are.
pub(crate) fn advise<T>(v: &mut Vec<T>) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let spare = v.spare_capacity_mut();
        let start = spare.as_mut_ptr() as usize;
        let end = start + std::mem::size_of_val(spare);
        if end - start > MAX_ADVISED {
            return;
        }
        // Only whole huge pages inside the allocation: smaller ones gain nothing.
        let (from, to) = (start.next_multiple_of(HUGE), end / HUGE * HUGE);
        if to > from {
            // SAFETY: [from, to) lies inside `v`'s allocation, which this function borrows
            // mutably (so it is neither freed nor moved during the call), and MADV_HUGEPAGE
            // changes neither the memory's contents nor its validity, only how the kernel
            // backs it; any error is ignored.
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

/// Faults in the first `bytes` of `v`'s spare capacity now, as writes would (one
/// `MADV_POPULATE_WRITE`, Linux 5.14+, instead of a fault per 4 KiB page as the vector is
/// filled; elsewhere, or when refused, nothing happens and the writes fault as before). The
/// vector is borrowed for the call: the memory populated is its own, alive and unmoved.
pub(crate) fn populate_spare<T>(v: &mut Vec<T>, bytes: usize) {
    let spare = v.spare_capacity_mut();
    let len = std::mem::size_of_val(spare).min(bytes);
    populate(spare.as_mut_ptr() as usize, len);
}

/// [`populate_spare`] of a whole slice, for a table about to be filled: populated first, its
/// pages are not the kernel's shared zero page that a read maps and the first write then
/// replaces (a fault and a TLB flush on every core each).
pub(crate) fn populate_slice<T>(s: &mut [T]) {
    populate(s.as_mut_ptr() as usize, std::mem::size_of_val(s));
}

/// Populates the whole pages of `[start, start + len)`, memory that the caller borrows
/// mutably for the call.
fn populate(start: usize, len: usize) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let first = start.next_multiple_of(PAGE);
        let end = (start + len) / PAGE * PAGE;
        if end > first {
            // SAFETY: the range lies inside an allocation the caller borrows mutably for this
            // call (a vector's spare capacity or a slice): it is mapped, writable and owned by
            // that borrow. MADV_POPULATE_WRITE changes no byte: it maps the pages as a write
            // fault would, without writing. Errors (old kernels) are ignored.
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
    let _ = (start, len);
}
