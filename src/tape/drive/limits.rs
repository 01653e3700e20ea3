//! The largest record a drive can move, and what to say when it refuses
//! one.
//!
//! Linux st refuses a read or write whose byte count is too large before
//! anything reaches the tape: EBUSY when the request is over the host
//! adapter's transfer limit, EINVAL when it is over the drive's READ BLOCK
//! LIMITS maximum, EOVERFLOW when st cannot allocate a bounce buffer that
//! large. Direct I/O pins the user's pages, one scatter-gather segment
//! each, so it stops at `max_sg_segs` (st's driver option) or the host's
//! `sg_tablesize` segments of one page: 1 MiB by default. These limits are
//! read from sysfs where they exist; MTIOCGET reports none of them (only
//! the block size), and the drive's READ BLOCK LIMITS is not exposed by st
//! at all. The invariant: the size suggested is never larger than a limit
//! that was found, and never larger than half the size refused.

use std::io;
use std::path::{Path, PathBuf};

use crate::base::errors::plain;
use crate::base::size::size_flag;

/// A size that nearly every drive and controller takes.
pub const WIDELY_SAFE_BYTES: u64 = 256 << 10;

/// What is known about the largest transfer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TransferLimits {
    /// The smallest limit found, in bytes.
    pub max_bytes: Option<u64>,
    /// Each limit found, as "NAME is VALUE (what it means)".
    pub facts: Vec<String>,
}

impl TransferLimits {
    /// The limits of the tape device at `path`, from /sys.
    pub fn of_device(path: &Path) -> TransferLimits {
        TransferLimits::of_device_in(Path::new("/sys"), path)
    }

    /// The same, with sysfs mounted at `sys` (tests give a fake tree).
    pub fn of_device_in(sys: &Path, path: &Path) -> TransferLimits {
        use std::os::unix::fs::MetadataExt;
        let mut limits = TransferLimits::default();
        let page = page_bytes();
        if let Some(segs) = read_number(&sys.join("bus/scsi/drivers/st/max_sg_segs")) {
            limits.add(
                segs * page,
                format!(
                    "st's max_sg_segs is {segs} (direct I/O up to {} per record)",
                    size_flag(segs * page)
                ),
            );
        }
        let Ok(meta) = std::fs::metadata(path) else {
            return limits;
        };
        let rdev = meta.rdev();
        let class = sys.join(format!(
            "dev/char/{}:{}/device",
            libc::major(rdev),
            libc::minor(rdev)
        ));
        let Ok(scsi_device) = class.canonicalize() else {
            return limits;
        };
        if let Some(kb) = read_number(&scsi_device.join("queue/max_sectors_kb")) {
            limits.add(kb << 10, format!("max_sectors_kb is {kb}"));
        }
        if let Some(host) = host_dir(sys, &scsi_device) {
            if let Some(segs) = read_number(&host.join("sg_tablesize")) {
                limits.add(
                    segs * page,
                    format!(
                        "the SCSI host's sg_tablesize is {segs} ({} in pages)",
                        size_flag(segs * page)
                    ),
                );
            }
            if let Some(sectors) = read_number(&host.join("max_sectors")) {
                limits.add(
                    sectors * 512,
                    format!(
                        "the SCSI host's max_sectors is {sectors} ({})",
                        size_flag(sectors * 512)
                    ),
                );
            }
        }
        limits
    }

    /// Records one limit.
    pub fn add(&mut self, bytes: u64, fact: String) {
        if bytes > 0 {
            self.max_bytes = Some(self.max_bytes.map_or(bytes, |m| m.min(bytes)));
        }
        self.facts.push(fact);
    }

    /// The `-s` to try after `refused_bytes` was refused: the largest
    /// power of two within every limit found and at most half the size
    /// refused, or, with no limit known, half the size refused.
    pub fn suggest_bytes(&self, refused_bytes: u64) -> u64 {
        let half = (refused_bytes / 2).max(512);
        let cap = self.max_bytes.map_or(half, |m| m.min(half));
        let mut size = 512;
        while size * 2 <= cap {
            size *= 2;
        }
        size
    }
}

/// True for the errors st gives for a byte count it cannot move: EBUSY,
/// EINVAL and EOVERFLOW.
pub fn is_refused_size(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EBUSY | libc::EINVAL | libc::EOVERFLOW)
    )
}

/// The error for the first write or read of a volume refused with `e`:
/// `what` is "record" or "read", `bytes` its size.
pub fn refused_error(
    limits: &TransferLimits,
    what: &str,
    bytes: usize,
    e: &io::Error,
) -> io::Error {
    let bytes = bytes as u64;
    let known = if limits.facts.is_empty() {
        "no transfer limit could be read from sysfs".to_string()
    } else {
        limits.facts.join(", ")
    };
    let try_bytes = limits.suggest_bytes(bytes);
    let then = if limits.max_bytes.is_none() && try_bytes > WIDELY_SAFE_BYTES {
        format!(
            " (halve it again if that fails too; {} works nearly everywhere)",
            size_flag(WIDELY_SAFE_BYTES)
        )
    } else {
        String::new()
    };
    io::Error::other(format!(
        "the drive or its controller refused a {} {what} ({}): it moves less per request; {known}; run again with -s {}{then}",
        size_flag(bytes),
        plain(e),
        size_flag(try_bytes)
    ))
}

fn page_bytes() -> u64 {
    // SAFETY: sysconf reads a constant of the running system.
    let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    u64::try_from(n).ok().filter(|&n| n > 0).unwrap_or(4096)
}

fn read_number(path: &Path) -> Option<u64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// The scsi_host directory of the host above `scsi_device`: the ancestor
/// named `hostN`, whose attributes live under class/scsi_host/hostN.
fn host_dir(sys: &Path, scsi_device: &Path) -> Option<PathBuf> {
    scsi_device.ancestors().find_map(|dir| {
        let name = dir.file_name()?.to_str()?;
        let n = name.strip_prefix("host")?;
        (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            .then(|| sys.join("class/scsi_host").join(name))
    })
}

/// The most records one MTBSR or MTFSR may space over: st sends it as SCSI
/// SPACE(6), whose count is 24 bits, signed.
pub const MAX_SPACE_RECORDS: u32 = 0x7F_FFFF;

/// The counts of the MTBSRs that space over `records` records, each
/// within what SPACE(6) can count.
pub fn space_steps(records: u64) -> impl Iterator<Item = u32> {
    let max = u64::from(MAX_SPACE_RECORDS);
    (0..records.div_ceil(max)).map(move |i| (records - i * max).min(max) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestion_is_within_the_limits_found_and_half_the_refused_size() {
        let mut limits = TransferLimits::default();
        assert_eq!(limits.suggest_bytes(1 << 20), 512 << 10);
        assert_eq!(limits.suggest_bytes(4 << 20), 2 << 20);
        limits.add(300 << 10, "a limit".into());
        assert_eq!(limits.suggest_bytes(1 << 20), 256 << 10);
        assert_eq!(limits.suggest_bytes(128 << 10), 64 << 10);
    }

    #[test]
    fn limits_are_read_from_a_sysfs_tree() {
        let sys = tempfile::tempdir().unwrap();
        let tape = tempfile::NamedTempFile::new().unwrap();
        use std::os::unix::fs::MetadataExt;
        let rdev = std::fs::metadata(tape.path()).unwrap().rdev();
        let s = sys.path();
        let write = |rel: &str, text: &str| {
            let p = s.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        write("bus/scsi/drivers/st/max_sg_segs", "256\n");
        write("class/scsi_host/host3/sg_tablesize", "64\n");
        let device = s.join("devices/pci0/host3/target3:0:0/3:0:0:0");
        std::fs::create_dir_all(&device).unwrap();
        let class = s.join(format!(
            "dev/char/{}:{}",
            libc::major(rdev),
            libc::minor(rdev)
        ));
        std::fs::create_dir_all(&class).unwrap();
        std::os::unix::fs::symlink(&device, class.join("device")).unwrap();
        let limits = TransferLimits::of_device_in(s, tape.path());
        let page = page_bytes();
        assert_eq!(limits.max_bytes, Some(64 * page));
        assert_eq!(limits.facts.len(), 2, "{:?}", limits.facts);
        assert!(limits.facts[1].contains("sg_tablesize is 64"));
        let e = refused_error(
            &limits,
            "record",
            1 << 20,
            &io::Error::from_raw_os_error(libc::EBUSY),
        );
        let text = e.to_string();
        assert!(
            text.starts_with(
                "the drive or its controller refused a 1M record (Device or resource busy)"
            ),
            "{text}"
        );
        assert!(text.contains("st's max_sg_segs is 256"), "{text}");
        assert!(
            text.ends_with(&format!("run again with -s {}", size_flag(64 * page))),
            "{text}"
        );
    }

    #[test]
    fn spacing_is_cut_into_counts_space6_can_send() {
        let max = MAX_SPACE_RECORDS;
        assert_eq!(space_steps(0).count(), 0);
        assert_eq!(space_steps(5).collect::<Vec<_>>(), vec![5]);
        let big = 2 * u64::from(max) + 3;
        assert_eq!(space_steps(big).collect::<Vec<_>>(), vec![max, max, 3]);
    }
}
