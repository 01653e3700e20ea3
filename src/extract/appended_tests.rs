//! A backup appended after others on the same cartridge (written on the
//! no-rewind node after `mt eod`): its volume starts at a block after
//! their tape files. It is reached by seeking to its first block; without
//! one it starts where the tape is, as a restore reads it; and a drive
//! that refuses the seek stops the run with one line, never spacing over
//! records into another backup's filemark, and never taking the failure
//! for a wrong cartridge.

use super::tape_tests::changed_by_nobody;
use super::tape_volumes::TapeVolumes;
use super::test_backup::TestBackup;
use super::volume_reader::VolumeReader;
use super::walk::RecordAt;
use crate::tape::emulated::{Cartridge, Emulated, Item};
use crate::tape::{Drive, TapeOp};
use crate::volume::ChangePolicy;

/// An earlier backup of 5 records and its trailer, each a tape file, then
/// `b`'s one volume: its first record is block 8.
fn appended(b: &TestBackup) -> Vec<Cartridge> {
    let mut items: Vec<Item> = (0..5).map(|_| Item::Record(vec![9; 100])).collect();
    items.extend([Item::Filemark, Item::Record(vec![7; 512]), Item::Filemark]);
    items.extend(b.volumes[0].iter().cloned().map(Item::Record));
    items.push(Item::Filemark);
    vec![Cartridge {
        items,
        ..Cartridge::blank(1 << 20, 0)
    }]
}

fn at(record: u64) -> RecordAt {
    RecordAt {
        volume: 1,
        record,
        offset: record * 100,
        bytes: 100,
        stream_offset: record * 100,
    }
}

fn read(tape: &mut TapeVolumes<'_>, b: &TestBackup, record: u64) -> Result<(), String> {
    let mut buf = Vec::new();
    tape.read(&at(record), &mut buf)?;
    assert_eq!(buf, b.volumes[0][record as usize]);
    Ok(())
}

#[test]
fn an_appended_backup_is_reached_by_seeking_to_its_first_block() {
    let mut b = TestBackup::new(&[&[100; 20]]);
    b.manifest.volumes[0].first_block = Some(8);
    let (drive, shelf) = Emulated::new("/dev/nst0", appended(&b));
    let mut tape = changed_by_nobody(drive, &b);
    read(&mut tape, &b, 15).unwrap();
    read(&mut tape, &b, 3).unwrap();
    let log = shelf.lock().unwrap().log.join(" | ");
    assert!(log.contains("seek 8 | seek 23 | seek 11"), "{log}");
}

#[test]
fn without_its_first_block_an_appended_backup_starts_where_the_tape_was_put() {
    let b = TestBackup::new(&[&[100; 20]]);
    let (mut drive, shelf) = Emulated::new("/dev/nst0", appended(&b));
    // The user puts the tape at the backup, as for a restore.
    drive.op(TapeOp::ForwardFiles(2)).unwrap();
    let mut tape = changed_by_nobody(drive, &b);
    read(&mut tape, &b, 15).unwrap();
    read(&mut tape, &b, 3).unwrap();
    let log = shelf.lock().unwrap().log.join(" | ");
    assert!(!log.contains("rewind"), "{log}");
}

#[test]
fn a_drive_refusing_to_seek_to_an_appended_backup_stops_the_run_without_asking_for_another() {
    let mut b = TestBackup::new(&[&[100; 20]]);
    b.manifest.volumes[0].first_block = Some(8);
    let (drive, shelf) = Emulated::new("/dev/nst0", appended(&b));
    shelf.lock().unwrap().refuse_seek = Some(libc::EINVAL);
    let policy = ChangePolicy {
        command: Some("true".into()),
        ..ChangePolicy::default()
    };
    let mut tape = TapeVolumes::new(Box::new(drive), true, policy, &b.manifest, true);
    let e = read(&mut tape, &b, 15).unwrap_err();
    assert!(
        e.starts_with("cannot reach record 0 of volume 1: the drive refused to seek (MTSEEK: "),
        "{e}"
    );
    assert!(
        e.ends_with("and the volume starts at block 8, after other tape files"),
        "{e}"
    );
    let log = shelf.lock().unwrap().log.join(" | ");
    assert!(
        !log.contains("unload") && !log.contains("forward records"),
        "{log}"
    );
}
