//! Files for the benchmarks: a pattern file of a given size, dropping a
//! file's cached pages so that the next read reads the disk, and the kind
//! of filesystem a path is on.

use std::fs::File;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::path::Path;

/// Writes `bytes` bytes of a cheap pseudo-random pattern (not zeros, not
/// repeating within a block) to `path`.
pub fn pattern_file(path: &Path, bytes: u64) {
    let mut file = File::create(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut chunk = vec![0u8; 1 << 20];
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut left = bytes;
    while left > 0 {
        for word in chunk.chunks_exact_mut(8) {
            // splitmix64
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            word.copy_from_slice(&(z ^ (z >> 31)).to_le_bytes());
        }
        let n = left.min(chunk.len() as u64) as usize;
        file.write_all(&chunk[..n])
            .expect("writing the pattern file");
        left -= n as u64;
    }
    file.sync_all().expect("fsync of the pattern file");
}

/// Drops `path`'s pages from the page cache: fsync, then
/// POSIX_FADV_DONTNEED (which must succeed), then, where this process may,
/// `3 > /proc/sys/vm/drop_caches`. Returns whether that last one worked.
pub fn drop_cached(path: &Path) -> bool {
    let file = File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    file.sync_all().expect("fsync before dropping the cache");
    // SAFETY: a plain advice call on a descriptor we own.
    let advised = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    assert_eq!(advised, 0, "posix_fadvise(DONTNEED) failed");
    std::fs::write("/proc/sys/vm/drop_caches", "3\n").is_ok()
}

/// `tmpfs`, `ext4`, `xfs`, `btrfs` or the magic number, of the
/// filesystem holding `path`.
pub fn filesystem_type(path: &Path) -> String {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: an all-zero statfs is a valid value for statfs to overwrite.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: a valid C string and out-pointer.
    let r = unsafe { libc::statfs(c.as_ptr(), &mut st) };
    assert_eq!(r, 0, "statfs {}", path.display());
    match st.f_type {
        libc::TMPFS_MAGIC => "tmpfs".into(),
        libc::EXT4_SUPER_MAGIC => "ext4".into(),
        libc::XFS_SUPER_MAGIC => "xfs".into(),
        libc::BTRFS_SUPER_MAGIC => "btrfs".into(),
        other => format!("filesystem {other:#x}"),
    }
}
