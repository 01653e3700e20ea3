//! The real end-of-media, volume-change and restore code, driven against
//! the emulated drive (records, filemarks, a capacity and an early-warning
//! zone) through a real pipeline. Every byte is checked: the volumes,
//! concatenated, must be the input, no record may be written twice, and
//! every record but the last must be exactly one block.

mod common;

use std::io::Cursor;
use std::sync::{Arc, Mutex};

use common::memory::{Collect, Memory};
use common::{pattern, sha256};
use tapebuf::observe::summary::Summary;
use tapebuf::pipeline::{Params, Running};
use tapebuf::sink::{Sink, TapeMedium, VolumeSettings, VolumeSink};
use tapebuf::source::{ReadVolumes, Source, TapeReader, VolumeSource};
use tapebuf::tape::emulated::{Cartridge, Emulated, Shelf};
use tapebuf::tape::{AtEnd, ChangePolicy};

const BLOCK: usize = 64 * 1024;

fn params(pad: bool) -> Params {
    common::memory::params(BLOCK, pad)
}

fn run(source: Box<dyn Source>, sink: Box<dyn Sink>, pad: bool) -> Summary {
    let running = Running::start(source, vec![sink], params(pad)).unwrap();
    let stats = Arc::clone(running.stats());
    assert!(running.wait(None));
    Summary::collect(&stats, None, None)
}

/// Writes `data` to an emulated drive holding `cartridges`.
fn write_to_tape(
    data: &[u8],
    cartridges: Vec<Cartridge>,
    settings: VolumeSettings,
) -> (Summary, Shelf) {
    let (drive, shelf) = Emulated::new("/dev/nst0", cartridges);
    let sink = VolumeSink::new(
        Box::new(TapeMedium::new(Box::new(drive))),
        "/dev/nst0",
        settings,
    );
    let summary = run(
        Box::new(Memory(Cursor::new(data.to_vec()))),
        Box::new(sink),
        false,
    );
    (summary, shelf)
}

/// Reads `cartridges` back through the tape source.
fn read_from_tape(cartridges: Vec<Cartridge>, volumes: ReadVolumes) -> (Summary, Vec<u8>, Shelf) {
    let (drive, shelf) = Emulated::new("/dev/nst0", cartridges);
    let source = VolumeSource::new(
        Box::new(TapeReader::new(Box::new(drive))),
        "/dev/nst0",
        volumes,
    );
    let out = Arc::new(Mutex::new(Vec::new()));
    let summary = run(Box::new(source), Box::new(Collect(Arc::clone(&out))), false);
    let data = out.lock().unwrap().clone();
    (summary, data, shelf)
}

fn blanks(n: usize) -> Vec<Cartridge> {
    // 1 MiB cartridges whose last 200 KiB are the early-warning zone.
    (0..n)
        .map(|_| Cartridge::blank(1 << 20, 200 << 10))
        .collect()
}

fn command_logging_to(log: &std::path::Path) -> ChangePolicy {
    ChangePolicy {
        command: Some(format!(
            "echo \"$TAPEBUF_VOLUME $TAPEBUF_DEVICE $TAPEBUF_MODE $TAPEBUF_VOLUME_BYTES\" >> {}",
            log.display()
        )),
        timeout: None,
    }
}

#[test]
fn end_of_media_changes_cartridges_and_loses_or_repeats_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("changes");
    let data = pattern(2_500_000, 1);
    let settings = VolumeSettings {
        policy: command_logging_to(&log),
        ..VolumeSettings::default()
    };
    let (summary, shelf) = write_to_tape(&data, blanks(4), settings);
    assert!(summary.is_clean(), "{}", summary.line());
    let lib = shelf.lock().unwrap();
    let used: Vec<&Cartridge> = lib.slots.iter().filter(|c| !c.items.is_empty()).collect();
    assert_eq!(used.len(), 3, "2.5 MB needs three 1 MiB cartridges");
    let joined: Vec<u8> = used.iter().flat_map(|c| c.first_file()).collect();
    assert_eq!(
        sha256(&joined),
        sha256(&data),
        "the volumes concatenate to the input"
    );
    for (i, c) in used.iter().enumerate() {
        assert_eq!(c.filemarks(), 1, "cartridge {i} ends with one filemark");
        let sizes = c.record_sizes();
        let last = i == used.len() - 1;
        let whole = if last {
            &sizes[..sizes.len() - 1]
        } else {
            &sizes[..]
        };
        assert!(
            whole.iter().all(|&s| s == BLOCK),
            "cartridge {i}: {sizes:?}"
        );
    }
    // Each full cartridge took records into its early-warning zone.
    let full_bytes = used[0].first_file().len() as u64;
    assert!(full_bytes > (1 << 20) - (200 << 10), "{full_bytes}");
    // The drive was ejected before each change, and the command saw
    // the next volume's number and the device.
    let unloads = lib.log.iter().filter(|l| *l == "unload").count();
    assert_eq!(unloads, 2, "{:?}", lib.log);
    let changes = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        changes,
        format!(
            "2 /dev/nst0 write {full_bytes}\n3 /dev/nst0 write {}\n",
            used[1].first_file().len()
        )
    );
    // The summary lists every volume's bytes.
    let line = summary.line();
    assert!(
        line.contains(&format!("-o /dev/nst0 volumes: #1 {full_bytes} bytes, #2 ")),
        "{line}"
    );
}

#[test]
fn failed_change_command_stops_with_what_is_safe_on_earlier_volumes() {
    let data = pattern(2_000_000, 2);
    let settings = VolumeSettings {
        policy: ChangePolicy {
            command: Some("echo no more tapes >&2; exit 3".into()),
            timeout: None,
        },
        ..VolumeSettings::default()
    };
    let (summary, shelf) = write_to_tape(&data, blanks(2), settings);
    assert!(!summary.is_clean());
    let lib = shelf.lock().unwrap();
    let on_tape = lib.slots[0].first_file();
    assert_eq!(
        on_tape[..],
        data[..on_tape.len()],
        "volume 1 holds the start of the input"
    );
    assert_eq!(
        lib.slots[0].filemarks(),
        1,
        "volume 1 was closed with its filemark"
    );
    assert!(
        lib.slots[1].items.is_empty(),
        "no second cartridge was touched"
    );
    let failure = &summary.failed_outputs[0];
    assert!(failure.contains("exited with status 3"), "{failure}");
    assert!(
        failure.contains(&format!("{} bytes are safe on volume 1", on_tape.len())),
        "{failure}"
    );
    assert!(
        summary.line().contains("bytes read but not committed"),
        "{}",
        summary.line()
    );
}

#[test]
fn volume_size_on_a_tape_ends_volumes_at_whole_records() {
    let data = pattern(1_000_000, 3);
    let settings = VolumeSettings {
        policy: ChangePolicy {
            command: Some("true".into()),
            timeout: None,
        },
        volume_size: Some(300 << 10),
        at_end: AtEnd::Stay,
    };
    let (summary, shelf) = write_to_tape(&data, blanks(5), settings);
    assert!(summary.is_clean(), "{}", summary.line());
    let lib = shelf.lock().unwrap();
    let joined: Vec<u8> = lib.slots.iter().flat_map(|c| c.first_file()).collect();
    assert_eq!(sha256(&joined), sha256(&data));
    // 300 KiB holds four 64 KiB records; a fifth would not fit whole.
    assert_eq!(lib.slots[0].record_sizes(), vec![BLOCK; 4]);
}

#[test]
fn eject_at_the_end_unloads_after_the_filemark() {
    let data = pattern(100_000, 4);
    let settings = VolumeSettings {
        at_end: AtEnd::Eject,
        ..VolumeSettings::default()
    };
    let (summary, shelf) = write_to_tape(&data, blanks(1), settings);
    assert!(summary.is_clean(), "{}", summary.line());
    let lib = shelf.lock().unwrap();
    let tail: Vec<&str> = lib.log.iter().rev().take(3).map(|s| s.as_str()).collect();
    assert_eq!(tail, vec!["close", "unload", "filemark"]);
    assert_eq!(lib.loaded, None);
    assert_eq!(lib.slots[0].record_sizes(), vec![BLOCK, 100_000 - BLOCK]);
}

#[test]
fn pad_fills_the_final_record_to_a_whole_block_of_zeros() {
    let data = pattern(100_000, 5);
    let (drive, shelf) = Emulated::new("/dev/nst0", blanks(1));
    let sink = VolumeSink::new(
        Box::new(TapeMedium::new(Box::new(drive))),
        "/dev/nst0",
        VolumeSettings::default(),
    );
    let summary = run(
        Box::new(Memory(Cursor::new(data.clone()))),
        Box::new(sink),
        true,
    );
    assert!(summary.is_clean(), "{}", summary.line());
    let lib = shelf.lock().unwrap();
    assert_eq!(lib.slots[0].record_sizes(), vec![BLOCK, BLOCK]);
    let on_tape = lib.slots[0].first_file();
    assert_eq!(on_tape[..data.len()], data[..]);
    assert!(on_tape[data.len()..].iter().all(|&b| b == 0));
    assert!(summary.line().contains(&format!(
        "padded with {} zero bytes",
        2 * BLOCK - data.len()
    )));
}

#[test]
fn multi_volume_restore_reads_every_cartridge_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("changes");
    let data = pattern(2_500_000, 6);
    let settings = VolumeSettings {
        policy: ChangePolicy {
            command: Some("true".into()),
            timeout: None,
        },
        ..VolumeSettings::default()
    };
    let (_, shelf) = write_to_tape(&data, blanks(3), settings);
    let written = shelf.lock().unwrap().slots.clone();
    let volumes = ReadVolumes {
        policy: command_logging_to(&log),
        count: Some(3),
        numbered: false,
        at_end: AtEnd::Rewind,
    };
    let (summary, back, shelf) = read_from_tape(written, volumes);
    assert!(summary.is_clean(), "{}", summary.line());
    assert_eq!(sha256(&back), sha256(&data));
    let changes = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = changes.lines().collect();
    assert_eq!(lines.len(), 2, "{changes}");
    assert!(lines[0].starts_with("2 /dev/nst0 read "), "{changes}");
    let lib = shelf.lock().unwrap();
    assert_eq!(lib.log.last().map(String::as_str), Some("close"));
    assert!(lib.log.iter().rev().nth(1).is_some_and(|l| l == "rewind"));
}

#[test]
fn restore_finds_the_record_size_on_the_tape() {
    // tar's classic 10 KiB records, and a short last record, read with
    // 64 KiB blocks: records are packed whole into blocks.
    let data = pattern(10240 * 50 + 3000, 7);
    let records: Vec<Vec<u8>> = data.chunks(10240).map(|c| c.to_vec()).collect();
    let (summary, back, _) = read_from_tape(
        vec![Cartridge::with_records(records)],
        ReadVolumes::default(),
    );
    assert!(summary.is_clean(), "{}", summary.line());
    assert_eq!(sha256(&back), sha256(&data));
    assert!(
        summary
            .line()
            .contains("tape records of 3000 to 10240 bytes"),
        "{}",
        summary.line()
    );
}

#[test]
fn records_that_grow_are_read_whole_into_the_next_block() {
    let sizes = [1000usize, 20000, 50000, 65536, 300, 40000, 65536, 7];
    let data = pattern(sizes.iter().sum(), 8);
    let mut records = Vec::new();
    let mut at = 0;
    for s in sizes {
        records.push(data[at..at + s].to_vec());
        at += s;
    }
    let (summary, back, _) = read_from_tape(
        vec![Cartridge::with_records(records)],
        ReadVolumes::default(),
    );
    assert!(summary.is_clean(), "{}", summary.line());
    assert_eq!(sha256(&back), sha256(&data));
}

#[test]
fn record_larger_than_the_block_names_the_size_to_use() {
    let records = vec![pattern(1 << 20, 9), pattern(1 << 20, 10)];
    let (summary, back, _) = read_from_tape(
        vec![Cartridge::with_records(records)],
        ReadVolumes::default(),
    );
    assert!(!summary.is_clean());
    assert!(back.is_empty());
    let e = summary.input_error.unwrap();
    assert!(
        e.contains("a tape record of 1048576 bytes is larger than the 65536-byte block; run again with -s 1M"),
        "{e}"
    );
    assert!(e.starts_with("/dev/nst0: read failed at byte 0"), "{e}");
}

#[test]
fn a_filemark_ends_the_input() {
    let mut cart = Cartridge::with_records(vec![pattern(5000, 11)]);
    // A second file after the first filemark is not read.
    cart.items
        .push(tapebuf::tape::emulated::Item::Record(pattern(5000, 12)));
    let (summary, back, _) = read_from_tape(vec![cart], ReadVolumes::default());
    assert!(summary.is_clean(), "{}", summary.line());
    assert_eq!(back, pattern(5000, 11));
}

// Drives as real systems leave them: fixed-block mode and transfer limits
// (tapebuf issue 16, parts 1 and 3).

use tapebuf::tape::emulated::{Library, TransferLimit};

/// Notices a tape medium would print, collected.
type Notices = Arc<Mutex<Vec<String>>>;

fn collector() -> (Notices, tapebuf::tape::block_mode::Notify) {
    let seen: Notices = Arc::default();
    let sink = Arc::clone(&seen);
    (
        seen,
        Box::new(move |line: &str| sink.lock().unwrap().push(line.to_string())),
    )
}

/// Writes `data` through a drive that `setup` puts in some state first.
fn write_to_drive(
    data: &[u8],
    cartridges: Vec<Cartridge>,
    settings: VolumeSettings,
    setup: impl FnOnce(&mut Library),
) -> (Summary, Shelf, Vec<String>) {
    let (drive, shelf) = Emulated::new("/dev/nst0", cartridges);
    setup(&mut shelf.lock().unwrap());
    let (seen, notify) = collector();
    let medium = TapeMedium::new(Box::new(drive)).with_notify(notify);
    let sink = VolumeSink::new(Box::new(medium), "/dev/nst0", settings);
    let summary = run(
        Box::new(Memory(Cursor::new(data.to_vec()))),
        Box::new(sink),
        false,
    );
    let seen = seen.lock().unwrap().clone();
    (summary, shelf, seen)
}

/// Reads `cartridges` through a drive that `setup` puts in some state.
fn read_from_drive(
    cartridges: Vec<Cartridge>,
    setup: impl FnOnce(&mut Library),
) -> (Summary, Vec<u8>, Vec<String>) {
    let (drive, shelf) = Emulated::new("/dev/nst0", cartridges);
    setup(&mut shelf.lock().unwrap());
    let (seen, notify) = collector();
    let reader = TapeReader::new(Box::new(drive)).with_notify(notify);
    let source = VolumeSource::new(Box::new(reader), "/dev/nst0", ReadVolumes::default());
    let out = Arc::new(Mutex::new(Vec::new()));
    let summary = run(Box::new(source), Box::new(Collect(Arc::clone(&out))), false);
    let data = out.lock().unwrap().clone();
    let seen = seen.lock().unwrap().clone();
    (summary, data, seen)
}

fn limit(max_bytes: usize, errno: i32, known: bool) -> Option<TransferLimit> {
    Some(TransferLimit {
        max_bytes,
        errno,
        known,
    })
}

#[test]
fn backup_to_a_drive_left_in_fixed_block_mode_switches_it_and_writes_one_record_per_block() {
    // Three whole blocks and a final 1000 bytes, which is no multiple of 512.
    let data = pattern(3 * BLOCK + 1000, 20);
    let (summary, shelf, seen) =
        write_to_drive(&data, blanks(1), VolumeSettings::default(), |lib| {
            lib.block_bytes = 512;
        });
    assert!(summary.is_clean(), "{}", summary.line());
    let lib = shelf.lock().unwrap();
    assert_eq!(lib.slots[0].record_sizes(), vec![BLOCK, BLOCK, BLOCK, 1000]);
    assert_eq!(sha256(&lib.slots[0].first_file()), sha256(&data));
    assert_eq!(lib.log[1], "setblk 0", "{:?}", lib.log);
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert!(
        seen[0].starts_with("tapebuf: /dev/nst0: the drive was in fixed-block mode (512-byte blocks); switched it to variable-block mode"),
        "{seen:?}"
    );
}

#[test]
fn every_new_volume_that_loads_in_fixed_block_mode_is_switched_too() {
    let data = pattern(2_500_000, 21);
    let settings = VolumeSettings {
        policy: ChangePolicy {
            command: Some("true".into()),
            timeout: None,
        },
        ..VolumeSettings::default()
    };
    // st's defblksize: each cartridge loads in 512-byte mode; the first is
    // already in variable mode.
    let (summary, shelf, seen) = write_to_drive(&data, blanks(4), settings, |lib| {
        lib.default_block_bytes = 512;
    });
    assert!(summary.is_clean(), "{}", summary.line());
    let lib = shelf.lock().unwrap();
    let used: Vec<&Cartridge> = lib.slots.iter().filter(|c| !c.items.is_empty()).collect();
    assert_eq!(used.len(), 3);
    let joined: Vec<u8> = used.iter().flat_map(|c| c.first_file()).collect();
    assert_eq!(sha256(&joined), sha256(&data));
    let sizes: Vec<usize> = used.iter().flat_map(|c| c.record_sizes()).collect();
    assert!(
        sizes[..sizes.len() - 1].iter().all(|&s| s == BLOCK),
        "{sizes:?}"
    );
    assert_eq!(*sizes.last().unwrap(), data.len() % BLOCK);
    assert_eq!(
        seen.len(),
        2,
        "volumes 2 and 3 came in fixed mode: {seen:?}"
    );
    let switches = lib.log.iter().filter(|l| *l == "setblk 0").count();
    assert_eq!(switches, 2, "{:?}", lib.log);
}

#[test]
fn a_drive_that_stays_in_fixed_block_mode_is_refused_before_any_write_with_the_fix() {
    let data = pattern(BLOCK + 1000, 22);
    let (summary, shelf, _) = write_to_drive(&data, blanks(1), VolumeSettings::default(), |lib| {
        lib.block_bytes = 512;
        lib.refuse_setblk = true;
    });
    assert!(!summary.is_clean());
    let failure = &summary.failed_outputs[0];
    assert!(
        failure.contains("fixed-block mode (512-byte blocks)"),
        "{failure}"
    );
    assert!(
        failure.contains("run 'mt -f /dev/nst0 setblk 0'"),
        "{failure}"
    );
    assert!(shelf.lock().unwrap().slots[0].record_sizes().is_empty());
}

#[test]
fn restore_from_a_drive_left_in_fixed_block_mode_switches_it_and_reads_whole_records() {
    let data = pattern(5 * BLOCK + 3000, 23);
    let records: Vec<Vec<u8>> = data.chunks(BLOCK).map(|c| c.to_vec()).collect();
    let (summary, back, seen) = read_from_drive(vec![Cartridge::with_records(records)], |lib| {
        lib.block_bytes = 512;
    });
    assert!(summary.is_clean(), "{}", summary.line());
    assert_eq!(sha256(&back), sha256(&data));
    assert!(
        summary
            .line()
            .contains(&format!("tape records of 3000 to {BLOCK} bytes")),
        "{}",
        summary.line()
    );
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert!(
        seen[0].contains("fixed-block mode (512-byte blocks)"),
        "{seen:?}"
    );
}

#[test]
fn a_first_write_over_the_transfer_limit_names_the_cause_and_the_size_to_try() {
    let data = pattern(3 * BLOCK, 24);
    // EBUSY, the host adapter's limit, known from sysfs.
    let (summary, _, _) = write_to_drive(&data, blanks(1), VolumeSettings::default(), |lib| {
        lib.transfer_limit = limit(40 << 10, libc::EBUSY, true);
    });
    let failure = &summary.failed_outputs[0];
    assert!(
        failure.contains("write failed at byte 0: the drive or its controller refused a 64k record (Device or resource busy)"),
        "{failure}"
    );
    assert!(
        failure.contains("the emulated controller moves at most 40960 bytes"),
        "{failure}"
    );
    assert!(failure.ends_with("run again with -s 32k"), "{failure}");
    // EINVAL, READ BLOCK LIMITS, with nothing known: half the size.
    let (summary, _, _) = write_to_drive(&data, blanks(1), VolumeSettings::default(), |lib| {
        lib.transfer_limit = limit(40 << 10, libc::EINVAL, false);
    });
    let failure = &summary.failed_outputs[0];
    assert!(
        failure.contains("refused a 64k record (Invalid argument)"),
        "{failure}"
    );
    assert!(
        failure.contains("no transfer limit could be read from sysfs; run again with -s 32k"),
        "{failure}"
    );
}

#[test]
fn restore_with_a_block_over_the_transfer_limit_reads_small_records_with_less() {
    let data = pattern(10240 * 40 + 500, 25);
    let records: Vec<Vec<u8>> = data.chunks(10240).map(|c| c.to_vec()).collect();
    let (summary, back, seen) = read_from_drive(vec![Cartridge::with_records(records)], |lib| {
        lib.transfer_limit = limit(20 << 10, libc::EBUSY, false);
    });
    assert!(summary.is_clean(), "{}", summary.line());
    assert_eq!(sha256(&back), sha256(&data));
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert!(
        seen[0].contains("refused a read of 64k (Device or resource busy); reading at most 16k per read from now on"),
        "{seen:?}"
    );
}

#[test]
fn restore_of_records_larger_than_the_transfer_limit_says_the_controller_cannot_read_them() {
    let data = pattern(48 << 10, 26);
    let (summary, back, _) = read_from_drive(vec![Cartridge::with_records(vec![data])], |lib| {
        lib.transfer_limit = limit(40 << 10, libc::EBUSY, true);
    });
    assert!(!summary.is_clean());
    assert!(back.is_empty());
    let e = summary.input_error.unwrap();
    assert!(
        e.contains("a tape record is larger than 32k, the largest read the drive or its controller accepted (the emulated controller moves at most 40960 bytes)"),
        "{e}"
    );
}

#[test]
fn a_write_error_reported_one_write_late_says_the_record_before_may_be_lost() {
    let data = pattern(6 * BLOCK, 27);
    // The third write (index 2) fails behind: the fourth returns EIO.
    let (summary, shelf, _) = write_to_drive(&data, blanks(1), VolumeSettings::default(), |lib| {
        lib.fail_behind_write = Some(2);
    });
    assert!(!summary.is_clean());
    let failure = &summary.failed_outputs[0];
    assert!(
        failure.contains(&format!("write failed at byte {}", 3 * BLOCK)),
        "{failure}"
    );
    assert!(
        failure.contains("st may report a failed write one write late, so the record before this one may not be on tape either"),
        "{failure}"
    );
    let lib = shelf.lock().unwrap();
    assert_eq!(lib.slots[0].record_sizes(), vec![BLOCK, BLOCK]);
    assert_eq!(lib.slots[0].first_file(), data[..2 * BLOCK]);
}
