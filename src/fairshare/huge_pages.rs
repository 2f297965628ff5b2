//! Huge pages for a large array about to be filled: a page fault costs more than a microsecond
//! on a virtual machine, and reading a 100 000-user home's `snapshot.bin` fills about 20 MB of
//! fresh memory, one 4 KiB fault each; with transparent huge pages in `madvise` mode (the
//! common default) a region marked here is faulted 2 MiB at a time.

/// Asks the kernel to back `v`'s spare capacity with transparent huge pages (Linux; elsewhere,
/// or when refused, nothing changes). Only a hint: the contents and the allocation stay as
/// they are.
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
