//! Compute threads yield to communication.
//!
//! On a real accelerator the interconnect moves data while the cores
//! compute; here a device's async stream is a thread that shares the host's
//! cores with every device's compute thread. When a stream thread wakes (a
//! job arrived, a transfer's modelled time is up) while every core is busy
//! with compute, a fair scheduler lets it wait for the running slices to end
//! — milliseconds, which the timeline would then show as communication that
//! the program could not hide. So each device's compute thread lowers its
//! own priority: threads that run communication (and the device threads of
//! a one-device run) keep the default, and a waking stream thread gets a core
//! at once. Only the calling thread changes, and raising one's niceness
//! needs no privilege.

/// How much lower than the default a compute thread runs (a niceness).
const COMPUTE_NICENESS: i32 = 10;

/// Lowers the calling thread's scheduling priority (Linux; elsewhere it does
/// nothing). Failure is harmless, so it is ignored.
pub(crate) fn lower_for_compute() {
    #[cfg(target_os = "linux")]
    // SAFETY: `gettid` has no preconditions; `setpriority` on the calling
    // thread's id only changes that thread's niceness.
    unsafe {
        let thread = libc::gettid();
        libc::setpriority(libc::PRIO_PROCESS, thread as libc::id_t, COMPUTE_NICENESS);
    }
}
