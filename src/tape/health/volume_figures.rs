//! A volume's figures from two looks at its drive: the counters at its
//! start subtracted from those at its end, the compression the drive
//! achieved, and what kind of cartridge it was (for comparing capacity
//! only between cartridges of one kind).

use super::record::VolumeHealth;
use super::snapshot::Snapshot;
use crate::tape::media::media;
use crate::tape::scsi::pages::counters::Compression;

/// Fills `v`'s error counts and compression from the looks at the
/// volume's `start` (if there was one) and `end`, for a volume written
/// or read.
pub fn counters(v: &mut VolumeHealth, start: Option<&Snapshot>, end: &Snapshot, writing: bool) {
    let pick = |s: &Snapshot| {
        if writing {
            s.write_errors
        } else {
            s.read_errors
        }
    };
    if let Some(now) = pick(end) {
        let counted = match start.and_then(pick) {
            Some(before) => now.since(&before),
            None => now,
        };
        v.corrected_errors = counted.corrected;
        v.retries = counted.retries;
        v.uncorrected_errors = counted.uncorrected;
    }
    v.compression_percent = compression(start, end, writing);
}

/// Host bytes per medium byte over the volume, times 100, from the
/// compression page's byte counts; else the drive's own ratio.
fn compression(start: Option<&Snapshot>, end: &Snapshot, writing: bool) -> Option<u64> {
    let c = end.compression?;
    let before = start.and_then(|s| s.compression).unwrap_or_default();
    // One direction's host bytes, medium bytes and ratio.
    let side = |c: &Compression| match writing {
        true => (
            c.host_written_bytes,
            c.medium_written_bytes,
            c.write_ratio_percent,
        ),
        false => (c.host_read_bytes, c.medium_read_bytes, c.read_ratio_percent),
    };
    let ((host, medium, ratio), (host_before, medium_before, _)) = (side(&c), side(&before));
    let host = host?.checked_sub(host_before.unwrap_or(0));
    let medium = medium?.checked_sub(medium_before.unwrap_or(0));
    match (host, medium) {
        (Some(h), Some(m)) if m > 0 => Some(h.saturating_mul(100) / m),
        _ => ratio.filter(|&r| r > 0),
    }
}

/// The cartridge's kind: its LTO media from the barcode in its memory
/// ("LTO-6", "LTO-6 WORM", "LTO-8 Type M"), else its native capacity.
pub fn medium_kind(v: &VolumeHealth) -> Option<String> {
    let mam = v.cartridge.as_ref()?;
    if let Some(m) = mam.barcode.as_deref().and_then(media) {
        let kind = if m.type_m {
            "LTO-8 Type M".to_string()
        } else {
            format!("LTO-{}", m.generation)
        };
        return Some(if m.worm { format!("{kind} WORM") } else { kind });
    }
    mam.capacity_bytes.map(|c| format!("{c} bytes native"))
}
