//! Cache prefetch hints for passes that visit memory out of order: a hint never faults and
//! changes no result.

/// Asks the CPU to bring `x`'s cache line in (a hint: no effect on results), for passes that
/// visit memory in rank order.
#[inline(always)]
pub fn prefetch<T>(x: Option<&T>) {
    #[cfg(target_arch = "x86_64")]
    if let Some(x) = x {
        // SAFETY: a prefetch never faults and reads nothing the program sees; SSE is part of
        // the x86-64 baseline.
        #[allow(unused_unsafe)]
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            _mm_prefetch::<_MM_HINT_T0>((x as *const T).cast::<i8>());
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// [`prefetch`] of every cache line `x` spans (a record of more than one line, visited at
/// random).
#[inline(always)]
pub fn prefetch_all<T>(x: Option<&T>) {
    #[cfg(target_arch = "x86_64")]
    if let Some(x) = x {
        let start = (x as *const T).cast::<i8>();
        let mut offset = 0;
        while offset < std::mem::size_of::<T>() + 63 {
            // SAFETY: as in `prefetch`: a hint that never faults, whatever the address.
            #[allow(unused_unsafe)]
            unsafe {
                use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
                _mm_prefetch::<_MM_HINT_T0>(
                    start.wrapping_add(offset.min(std::mem::size_of::<T>().saturating_sub(1))),
                );
            }
            offset += 64;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}
