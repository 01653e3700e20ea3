//! Drives as real systems leave them: fixed-block mode and transfer limits
//! (tapebuf issue 16, parts 1 and 3), and a write error reported one write
//! late.

use std::io::Cursor;
use std::sync::{Arc, Mutex};

use super::common::memory::{Collect, Memory};
use super::common::{pattern, sha256};
use super::{blanks, run, BLOCK};
use tapebuf::observe::summary::Summary;
use tapebuf::sink::{TapeMedium, VolumeSettings, VolumeSink};
use tapebuf::source::{ReadVolumes, TapeReader, VolumeSource};
use tapebuf::tape::emulated::{Autoloader, Cartridge, Emulated, Shelf, TransferLimit};
use tapebuf::volume::ChangePolicy;

/// Notices a tape medium would print, collected.
type Notices = Arc<Mutex<Vec<String>>>;

fn collector() -> (Notices, tapebuf::tape::drive::block_mode::Notify) {
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
    setup: impl FnOnce(&mut Autoloader),
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
    setup: impl FnOnce(&mut Autoloader),
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
    assert_eq!(
        lib.slots[0].data_record_sizes(),
        vec![BLOCK, BLOCK, BLOCK, 1000]
    );
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
            loader: None,
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
    let sizes: Vec<usize> = used.iter().flat_map(|c| c.data_record_sizes()).collect();
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
