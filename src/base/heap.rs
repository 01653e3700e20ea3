//! How much freed heap the process keeps for reuse.
//!
//! glibc hands the free top of a thread's arena back to the kernel once it
//! passes 128 KiB (`M_TRIM_THRESHOLD`). A thread that frees and allocates
//! a block's worth of memory for every block, as rustls does for the
//! records of a private stream, then pays a page fault and a zeroed page
//! per 4 KiB, over and over: measured on a TLS sender here, 0.65 s of
//! system time per GiB, more than the encryption. Keeping up to
//! `KEEP_BYTES` of freed heap ends that. What is kept is memory the process
//! used at once before, so its peak does not grow.
//!
//! Setting the threshold also fixes glibc's mmap threshold at its 128 KiB
//! default (mallopt(3)): an allocation that large is always a fresh
//! mapping. Nothing on the data path allocates that much per block (the
//! ring is allocated once, rustls's records are 16 KiB); a change that
//! does would pay the fault-and-zero cost this module removes.

/// The most freed heap kept for reuse.
const KEEP_BYTES: i32 = 64 << 20;

/// Tells the C allocator to keep up to `KEEP_BYTES` of freed heap. Called
/// once, before any thread starts.
pub fn keep_freed_heap() {
    #[cfg(target_env = "gnu")]
    // SAFETY: mallopt only sets an allocator parameter; called before any
    // other thread exists.
    unsafe {
        libc::mallopt(libc::M_TRIM_THRESHOLD, KEEP_BYTES);
    }
}
