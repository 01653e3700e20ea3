//! The tape reader against the emulated drive. Records near the tape are
//! read through, one behind it is reached by rewinding; a far record is
//! reached by MTSEEK to the volume's first block plus the record, or by
//! MTFSR where the drive refuses the seek or the manifest has no first
//! block.

use std::time::Duration;

use super::tape_volumes::TapeVolumes;
use super::test_backup::TestBackup;
use super::volume_reader::VolumeReader;
use super::walk::RecordAt;
use crate::tape::emulated::{Cartridge, Emulated, Item};
use crate::volume::ChangePolicy;

/// Cartridges holding the backup's volumes, each ending with a filemark.
fn cartridges(b: &TestBackup) -> Vec<Cartridge> {
    let each = |records: &Vec<Vec<u8>>| {
        let mut items: Vec<Item> = records.iter().cloned().map(Item::Record).collect();
        items.push(Item::Filemark);
        Cartridge {
            items,
            ..Cartridge::blank(1 << 20, 0)
        }
    };
    b.volumes.iter().map(each).collect()
}

/// The reader of `b` on `drive`, the cartridge in it, no change policy.
pub(super) fn changed_by_nobody<'a>(drive: Emulated, b: &'a TestBackup) -> TapeVolumes<'a> {
    TapeVolumes::new(
        Box::new(drive),
        true,
        ChangePolicy::default(),
        &b.manifest,
        true,
    )
}

fn at(b: &TestBackup, volume: u32, record: u64) -> RecordAt {
    let v = b.manifest.volume(volume).unwrap();
    let offset = (0..record).map(|r| v.record_bytes(r).unwrap()).sum();
    let start = b.manifest.volume_start(volume).unwrap();
    RecordAt {
        volume,
        record,
        offset,
        bytes: v.record_bytes(record).unwrap(),
        stream_offset: start + offset,
    }
}

fn read(tape: &mut TapeVolumes<'_>, b: &TestBackup, volume: u32, record: u64) -> Vec<u8> {
    let mut buf = Vec::new();
    tape.read(&at(b, volume, record), &mut buf).unwrap();
    assert_eq!(buf, b.volumes[volume as usize - 1][record as usize]);
    buf
}

#[test]
fn records_near_the_tape_are_read_through_and_one_behind_it_spaced_back_to() {
    let b = TestBackup::new(&[&[100; 8]]);
    let (drive, shelf) = Emulated::new("/dev/nst0", cartridges(&b));
    let mut tape = changed_by_nobody(drive, &b);
    read(&mut tape, &b, 1, 1);
    read(&mut tape, &b, 1, 4);
    let cost = tape.cost();
    // The volume starts where the tape is: records 0 to 4, read through.
    assert_eq!((cost.volumes, cost.seeks, cost.bytes), (1, 0, 500));
    read(&mut tape, &b, 1, 4);
    read(&mut tape, &b, 1, 0);
    let cost = tape.cost();
    assert_eq!((cost.seeks, cost.bytes), (1, 600));
    let log = shelf.lock().unwrap().log.join(" | ");
    assert!(log.ends_with("backspace 5"), "{log}");
    assert!(!log.contains("rewind"), "{log}");
}

#[test]
fn a_cartridge_of_another_backup_is_named_and_not_read_further() {
    let b = TestBackup::new(&[&[100; 4]]);
    let other = TestBackup::new(&[&[90; 4]]);
    let (drive, _shelf) = Emulated::new("/dev/nst0", cartridges(&other));
    let mut tape = changed_by_nobody(drive, &b);
    if std::fs::File::open("/dev/tty").is_ok() {
        return; // It would ask on the terminal.
    }
    let mut buf = Vec::new();
    let e = tape.read(&at(&b, 1, 2), &mut buf).unwrap_err();
    assert!(
        e.starts_with(
            "volume 1 is needed in /dev/nst0: its first record: the record read is 90 bytes"
        ),
        "{e}"
    );
}

#[test]
fn the_next_volume_is_asked_for_with_the_change_command() {
    let b = TestBackup::new(&[&[100; 3], &[100; 3]]);
    let (drive, shelf) = Emulated::new("/dev/nst0", cartridges(&b));
    let policy = ChangePolicy {
        command: Some("true".into()),
        timeout: Some(Duration::from_secs(10)),
        loader: None,
    };
    let mut tape = TapeVolumes::new(Box::new(drive), true, policy, &b.manifest, true);
    read(&mut tape, &b, 1, 2);
    read(&mut tape, &b, 2, 1);
    assert_eq!(tape.cost().volumes, 2);
    assert_eq!(shelf.lock().unwrap().loaded, Some(1));
}

#[test]
fn a_far_record_is_seeked_to_or_spaced_to() {
    let b = TestBackup::new(&[&[100; 40]]);
    let (drive, _shelf) = Emulated::new("/dev/nst0", cartridges(&b));
    let mut tape = changed_by_nobody(drive, &b);
    read(&mut tape, &b, 1, 30);
    read(&mut tape, &b, 1, 10);
    read(&mut tape, &b, 1, 39);
    let cost = tape.cost();
    // From record 1: 29 on, 21 back, 28 on.
    assert_eq!((cost.seeks, cost.bytes), (3, 400));

    let mut b = b;
    b.manifest.volumes[0].first_block = Some(0);
    let (drive, _shelf) = Emulated::new("/dev/nst0", cartridges(&b));
    let mut tape = changed_by_nobody(drive, &b);
    read(&mut tape, &b, 1, 30);
    read(&mut tape, &b, 1, 10);
    assert_eq!(tape.cost().seeks, 3);
    let seeks: Vec<String> = (_shelf.lock().unwrap().log.iter())
        .filter(|l| l.starts_with("seek"))
        .cloned()
        .collect();
    // The first block, to recognise the cartridge by its first record.
    assert_eq!(seeks, ["seek 0", "seek 30", "seek 10"]);

    // A drive that refuses MTSEEK is spaced forward instead, and the
    // records read are the same.
    let (drive, shelf) = Emulated::new("/dev/nst0", cartridges(&b));
    shelf.lock().unwrap().refuse_seek = Some(libc::EINVAL);
    let mut tape = changed_by_nobody(drive, &b);
    read(&mut tape, &b, 1, 30);
    read(&mut tape, &b, 1, 39);
    let log = shelf.lock().unwrap().log.join(" | ");
    assert!(log.contains("seek 0 refused"), "{log}");
    // After the first record (read to recognise the cartridge), record 30
    // is 29 on, then 39 is 8 on from 31: spaced from where the tape is.
    assert!(
        log.ends_with("rewind | forward records 29 | forward records 8"),
        "{log}"
    );
}

#[test]
fn an_empty_drive_with_nobody_to_ask_fails_at_once_naming_volume_and_barcode() {
    let mut b = TestBackup::new(&[&[100; 2], &[100; 2]]);
    b.manifest.volumes[1].barcode = Some("E01002L6".into());
    // An autoloader with one cartridge, unloaded: nothing left to load.
    let mut only_first = cartridges(&b);
    only_first.truncate(1);
    let (mut drive, _shelf) = Emulated::new("/dev/nst0", only_first);
    use crate::tape::{Drive, TapeOp};
    drive.op(TapeOp::Unload).unwrap();
    drive.close().unwrap();
    if std::fs::File::open("/dev/tty").is_ok() {
        return; // It would ask on the terminal.
    }
    let mut tape = TapeVolumes::new(
        Box::new(drive),
        false,
        ChangePolicy::default(),
        &b.manifest,
        true,
    );
    let started = std::time::Instant::now();
    let e = tape.read(&at(&b, 2, 1), &mut Vec::new()).unwrap_err();
    assert_eq!(
        e,
        "volume 2 (barcode E01002L6) is needed in /dev/nst0: there is no cartridge in it, and there is no -A/--change-command and no terminal to ask for it"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn a_member_spanning_two_cartridges_is_followed_onto_the_second() {
    use super::copy::copy;
    use super::plan::Piece;
    use super::sums::RecordSums;
    use crate::manifest::tally::record_checksum;

    struct Sums(Vec<Vec<u32>>);
    impl RecordSums for Sums {
        fn sums(&self, v: u32, first: u64, count: u64) -> std::io::Result<Vec<u32>> {
            let sums = &self.0[v as usize - 1][first as usize..(first + count) as usize];
            Ok(sums.to_vec())
        }
    }
    let b = TestBackup::new(&[&[100; 3], &[100; 3]]);
    let sums = Sums(
        (b.volumes.iter())
            .map(|v| v.iter().map(|r| record_checksum(r)).collect())
            .collect(),
    );
    let (drive, shelf) = Emulated::new("/dev/nst0", cartridges(&b));
    let policy = ChangePolicy {
        command: Some("true".into()),
        timeout: Some(Duration::from_secs(10)),
        loader: None,
    };
    let mut tape = TapeVolumes::new(Box::new(drive), true, policy, &b.manifest, true);
    let pieces = [Piece::Stream {
        start: 250,
        end: 420,
    }];
    let mut out = Vec::new();
    copy(
        pieces.iter().cloned().map(Ok),
        &b.manifest,
        &mut tape,
        &sums,
        &mut out,
    )
    .unwrap();
    assert_eq!(out, b.stream[250..420]);
    let rewinds = shelf
        .lock()
        .unwrap()
        .log
        .iter()
        .filter(|l| *l == "rewind")
        .count();
    assert_eq!(rewinds, 0, "each volume is read from where it starts");
    let cost = tape.cost();
    // Volume 1 read to its record 2 (read through), volume 2 to its record 1.
    assert_eq!((cost.volumes, cost.bytes), (2, 500));
}
