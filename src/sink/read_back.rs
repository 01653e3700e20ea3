//! `--verify`: each volume is read back after it is written and before it
//! is ejected or changed, and compared with the per-record checksums kept
//! while writing it, so that a difference names the volume and the byte
//! offset of the first bad record. A tape is spaced back over its
//! filemark and exactly its own records (not rewound: it may follow other
//! backups) and read record by record to the filemark, also after a
//! difference, so that it is left where the next backup may append; a file is read around the page cache (O_DIRECT where the
//! filesystem allows it, else after fsync and POSIX_FADV_DONTNEED), since a
//! re-read from the cache proves nothing. A failed read-back does not stop
//! the run: it is said at once, recorded in the manifest, and makes the
//! run's exit status 1.

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::time::Instant;

use crossbeam_channel::{bounded, Receiver, Sender};

use super::medium::WriteMedium;
use crate::base::block::Block;
use crate::base::console::{message, say};
use crate::base::size::{bytes_per_s, Bytes, Rate};
use crate::manifest::{Checker, Ledger, Verified};
use crate::tape::drive::limits::space_steps;
use crate::tape::protection::CRC_BYTES;
use crate::tape::{AtEnd, Drive, TapeOp};
use crate::volume::{Ends, Trailer};

/// Bytes read at a time from a file: large, since each O_DIRECT read is
/// one request to the disk and nothing reads ahead of it.
const FILE_READ_BYTES: usize = 16 << 20;
/// Buffers read ahead of the check (one is read while one is checked).
const READ_AHEAD: usize = 1;

/// Finishes volume `number` of `medium` with its `trailer` and `then`;
/// with a ledger, notes its end, and with `--verify` reads it back in
/// between (after the trailer is written), unless the run was stopped
/// (`stopping`): then it closes at once.
///
/// With `--catalog`, the last volume of a stream that ended (`Ends::Last`)
/// gets the catalog as a tape file of its own after its trailer, on a
/// local tape; a copy that fails is said in one line and fails nothing.
pub fn close_volume<M: WriteMedium + ?Sized>(
    medium: &mut M,
    ledger: Option<&Ledger>,
    trailer: &Trailer,
    then: AtEnd,
    stopping: bool,
) -> io::Result<()> {
    let catalog = ledger
        .filter(|_| trailer.ends == Ends::Last)
        .and_then(Ledger::catalog_file);
    let copying = catalog.is_some_and(|file| medium.copy_after_trailer(&file));
    let closed = end_and_check(medium, ledger, trailer, then, stopping);
    match medium.copied().filter(|_| copying) {
        Some(Ok(_)) => ledger.into_iter().for_each(Ledger::set_catalog_on_tape),
        Some(Err(e)) => say(&message!(
            "--catalog: no copy on the tape after volume {}'s trailer: {e}; the catalog beside the manifest is whole",
            trailer.volume
        )),
        None => {}
    }
    closed
}

/// `close_volume` without the catalog's copy.
fn end_and_check<M: WriteMedium + ?Sized>(
    medium: &mut M,
    ledger: Option<&Ledger>,
    trailer: &Trailer,
    then: AtEnd,
    stopping: bool,
) -> io::Result<()> {
    let number = trailer.volume;
    let verify = |l: &&Ledger| l.recording().verify && !stopping;
    let Some(ledger) = ledger.filter(verify) else {
        medium.end_volume(then, trailer)?;
        if let Some(ledger) = ledger {
            ledger.end_volume(medium.kind().filemarks());
        }
        return Ok(());
    };
    medium.end_for_read_back(trailer)?;
    if let Some((volume, sums)) = ledger.end_volume(medium.kind().filemarks()) {
        let recording = ledger.recording();
        let mut check = Checker::new(volume, recording.alg, sums);
        let started = Instant::now();
        let read = medium.read_back(number, &mut check);
        let millis = started.elapsed().as_millis() as f64;
        let verified = judge(check, read, millis / 1000.0);
        say_verified(
            number,
            &medium.volume_name(number),
            &verified,
            recording.quiet,
        );
        ledger.set_verified(number, verified);
    }
    medium.after_read_back(then)
}

/// What a read-back found.
fn judge(check: Checker, read: io::Result<String>, seconds: f64) -> Verified {
    let bytes = check.bytes();
    let (method, problem, first_bad_byte) = match read {
        Ok(method) => {
            let problem = check.finish();
            let first = problem.as_ref().and_then(|p| p.first_bad_byte());
            (method, problem.map(|p| p.describe()), first)
        }
        Err(e) => (
            "none".to_string(),
            Some(format!("cannot read it back after {bytes} bytes: {e}")),
            Some(bytes),
        ),
    };
    Verified {
        ok: problem.is_none(),
        method,
        seconds,
        problem,
        first_bad_byte,
    }
}

fn say_verified(number: u32, name: &str, v: &Verified, quiet: bool) {
    match &v.problem {
        Some(problem) => say(&message!(
            "volume {number} ({name}): verify FAILED: {problem}"
        )),
        None if !quiet => say(&message!(
            "volume {number} ({name}): verified in {:.1} s ({})",
            v.seconds,
            v.method
        )),
        None => {}
    }
}

/// The line after the run's summary: how many volumes were read back,
/// how many failed, how long that took on its own, and how fast it read.
pub fn verify_line(ledger: &Ledger) -> Option<String> {
    let (volumes, bytes, seconds) = ledger.verify_totals();
    let failed = ledger.verify_failures().len();
    (volumes > 0).then(|| {
        let result = match failed {
            0 => "all match".to_string(),
            n => format!("{n} FAILED"),
        };
        message!(
            "verify: {} of {}: {result}; read back {} in {seconds:.1} s, {}",
            crate::base::size::count(volumes as u64, "volume"),
            ledger.output(),
            Bytes(bytes),
            Rate(bytes_per_s(bytes, seconds))
        )
    })
}

/// Reads a tape back from where the volume began: back over the trailer's
/// filemark and the data's (`marks`, the filemarks written since the data
/// ended) and exactly the records written, then record by record up to
/// the data's filemark. Not a rewind: the volume may follow other backups
/// on the same tape.
pub fn read_back_tape(
    drive: &mut dyn Drive,
    marks: u32,
    check: &mut Checker,
) -> io::Result<String> {
    drive.op(TapeOp::BackspaceFiles(marks))?;
    for step in space_steps(check.expected().record_count()) {
        drive.op(TapeOp::BackspaceRecords(step))?;
    }
    let largest = check.expected().records.iter().map(|r| r.bytes).max();
    let largest = largest.unwrap_or(0).max(1) as usize;
    // Room for a protected drive to read each record's CRC into.
    let mut buf = vec![0u8; largest + CRC_BYTES];
    loop {
        let n = match drive.read_record_in(&mut buf, largest) {
            Ok(n) => n,
            Err(e) if e.raw_os_error() == Some(libc::ENOMEM) => {
                return Err(io::Error::other(format!(
                    "a record at byte {} is longer than any written ({e})",
                    check.bytes()
                )))
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if n == 0 {
            return Ok("tape, spaced back and read".into());
        }
        // After a difference the rest is still read (unchecked) up to the
        // filemark, so the tape is left where a good read-back leaves it:
        // the next backup appended there must not overwrite this one.
        check.record(&buf[..n]);
    }
}

/// Reads a file back around the page cache: a thread reads ahead into a
/// few large aligned buffers while this one checks, so the disk is kept
/// busy while the bytes are hashed.
pub fn read_back_file(path: &Path, check: &mut Checker) -> io::Result<String> {
    let (file, method) = open_uncached(path)?;
    let (free_tx, free_rx) = bounded::<Block>(READ_AHEAD + 1);
    let (full_tx, full_rx) = bounded::<io::Result<Block>>(READ_AHEAD + 1);
    for _ in 0..=READ_AHEAD {
        let _ = free_tx.send(Block::alone(FILE_READ_BYTES)?);
    }
    std::thread::scope(|scope| {
        scope.spawn(move || read_ahead(file, &free_rx, &full_tx));
        let checked = loop {
            match full_rx.recv() {
                Ok(Ok(block)) if block.is_empty() => break Ok(method),
                Ok(Ok(block)) => {
                    check.data(block.data());
                    if check.failed() {
                        break Ok(method);
                    }
                    let _ = free_tx.send(block);
                }
                Ok(Err(e)) => break Err(e),
                Err(_) => break Err(io::Error::other("the read-ahead thread ended")),
            }
        };
        // The reader ends at its next send or wait.
        drop(free_tx);
        drop(full_rx);
        checked
    })
}

/// Fills free buffers from `file` in order until its end (an empty
/// buffer), an error, or the checker stops listening.
fn read_ahead(mut file: File, free: &Receiver<Block>, full: &Sender<io::Result<Block>>) {
    while let Ok(mut block) = free.recv() {
        let read = loop {
            match file.read(block.buffer_mut()) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => break other,
            }
        };
        let end = !matches!(read, Ok(n) if n > 0);
        let sent = match read {
            Ok(n) => {
                block.set_len(n);
                full.send(Ok(block))
            }
            Err(e) => full.send(Err(e)),
        };
        if end || sent.is_err() {
            return;
        }
    }
}

/// Flushes `file` and drops its pages from the page cache, so that the
/// next read comes from the disk. False if the cache could not be dropped.
pub fn drop_cached(file: &File) -> io::Result<bool> {
    file.sync_all()?;
    // SAFETY: a plain advice call on a descriptor we own.
    let advised = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    Ok(advised == 0)
}

/// Opens `path` so that reading it reads the medium: with O_DIRECT, or
/// else after fsync and dropping its cached pages.
fn open_uncached(path: &Path) -> io::Result<(File, String)> {
    let direct = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECT)
        .open(path);
    match direct {
        Ok(file) => return Ok((file, "O_DIRECT".into())),
        Err(e) if e.raw_os_error() != Some(libc::EINVAL) => return Err(e),
        Err(_) => {}
    }
    let file = File::open(path)?;
    let method = if drop_cached(&file)? {
        "fsync + POSIX_FADV_DONTNEED (the filesystem refuses O_DIRECT)"
    } else {
        "fsync; the cache could not be dropped (the filesystem refuses O_DIRECT)"
    };
    Ok((file, method.into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// How many of `file`'s pages are in the page cache (mincore).
    fn resident_pages(file: &File, len: usize) -> usize {
        // SAFETY: a private read-only mapping of a file we hold open, only
        // asked about with mincore and unmapped before return.
        unsafe {
            let at = libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            );
            assert_ne!(at, libc::MAP_FAILED);
            let pages = len.div_ceil(4096);
            let mut vec = vec![0u8; pages];
            assert_eq!(libc::mincore(at, len, vec.as_mut_ptr()), 0);
            libc::munmap(at, len);
            vec.iter().filter(|b| **b & 1 == 1).count()
        }
    }

    #[test]
    fn a_dropped_file_is_read_from_the_disk_again() {
        // On disk (under the checkout's target directory), not tmpfs,
        // whose pages are its storage and cannot be dropped.
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let target = root.join("target");
        let dir = tempfile::tempdir_in(if target.is_dir() { &target } else { root }).unwrap();
        let path = dir.path().join("volume");
        let len = 4 << 20;
        let mut file = File::create(&path).unwrap();
        file.write_all(&vec![7u8; len]).unwrap();
        let file = File::open(&path).unwrap();
        assert!(resident_pages(&file, len) > 0, "just written, so cached");
        assert!(drop_cached(&file).unwrap());
        assert_eq!(resident_pages(&file, len), 0);
    }
}
