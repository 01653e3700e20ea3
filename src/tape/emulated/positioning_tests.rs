//! Block addresses, MTFSR and MTSEEK on the emulated drive, as a program
//! sees them through st (`positioning.rs`).

use super::*;
use crate::tape::drive::{Drive, TapeOp};

fn errno(r: std::io::Result<impl std::fmt::Debug>) -> Option<i32> {
    r.unwrap_err().raw_os_error()
}

/// A drive whose tape holds: record 10, record 11, filemark, record 12,
/// filemark (block addresses 0 to 4), positioned at the beginning.
fn two_files() -> (Emulated, Shelf) {
    let (mut d, shelf) = Emulated::new("emu", vec![Cartridge::blank(1 << 20, 0)]);
    d.write_record(&[10; 8]).unwrap();
    d.write_record(&[11; 8]).unwrap();
    d.op(TapeOp::WriteFilemarks(1)).unwrap();
    d.write_record(&[12; 8]).unwrap();
    d.op(TapeOp::WriteFilemarks(1)).unwrap();
    d.op(TapeOp::Rewind).unwrap();
    (d, shelf)
}

#[test]
fn the_block_address_counts_records_and_filemarks_from_the_beginning() {
    let (mut d, _) = Emulated::new("emu", vec![Cartridge::blank(1 << 20, 0)]);
    assert_eq!(d.position().unwrap(), 0);
    for _ in 0..3 {
        d.write_record(&[1; 100]).unwrap();
    }
    assert_eq!(d.position().unwrap(), 3);
    d.op(TapeOp::WriteFilemarks(1)).unwrap();
    assert_eq!(d.position().unwrap(), 4);
    d.op(TapeOp::Rewind).unwrap();
    assert_eq!(d.position().unwrap(), 0, "right after a rewind");
    let mut buf = [0u8; 100];
    d.read_record(&mut buf).unwrap();
    assert_eq!(d.position().unwrap(), 1);
}

#[test]
fn in_fixed_block_mode_each_block_is_one_address() {
    let (mut d, shelf) = Emulated::new("emu", vec![Cartridge::blank(1 << 20, 0)]);
    shelf.lock().unwrap().block_bytes = 512;
    d.write_record(&[1; 1536]).unwrap();
    assert_eq!(d.position().unwrap(), 3);
    d.op(TapeOp::SeekBlock(4)).unwrap();
    assert_eq!(
        d.position().unwrap(),
        4,
        "after the filemark the seek wrote"
    );
    d.op(TapeOp::SeekBlock(2)).unwrap();
    let mut buf = [0u8; 512];
    assert_eq!(d.read_record(&mut buf).unwrap(), 512);
    assert_eq!(d.read_record(&mut buf).unwrap(), 0, "the filemark at 3");
    assert_eq!(shelf.lock().unwrap().slots[0].record_sizes(), vec![512; 3]);
}

#[test]
fn a_seek_puts_the_tape_before_the_item_at_that_address() {
    let (mut d, _) = two_files();
    let mut buf = [0u8; 8];
    d.op(TapeOp::SeekBlock(3)).unwrap();
    assert_eq!(d.position().unwrap(), 3);
    assert_eq!(d.read_record(&mut buf).unwrap(), 8);
    assert_eq!(buf[0], 12);
    // Backwards, and onto a filemark, which reads as 0 bytes.
    d.op(TapeOp::SeekBlock(2)).unwrap();
    assert_eq!(d.read_record(&mut buf).unwrap(), 0);
    assert_eq!(d.position().unwrap(), 3);
    d.op(TapeOp::SeekBlock(1)).unwrap();
    assert_eq!(d.read_record(&mut buf).unwrap(), 8);
    assert_eq!(buf[0], 11);
}

#[test]
fn a_seek_past_the_end_of_data_fails_with_eio_and_leaves_the_tape_there() {
    let (mut d, shelf) = two_files();
    // The end of data itself, where the next write would go, is reached.
    d.op(TapeOp::SeekBlock(5)).unwrap();
    assert_eq!(d.position().unwrap(), 5);
    d.op(TapeOp::SeekBlock(1)).unwrap();
    assert_eq!(errno(d.op(TapeOp::SeekBlock(6))), Some(libc::EIO));
    assert_eq!(d.position().unwrap(), 5, "at the end of data, as mhvtl");
    let mut buf = [0u8; 8];
    assert_eq!(d.read_record(&mut buf).unwrap(), 0);
    assert!(d.status().unwrap().at_eod);
    let log = shelf.lock().unwrap().log.clone();
    assert!(log.contains(&"seek 6: end of data".to_string()), "{log:?}");
}

#[test]
fn forward_records_over_a_filemark_stops_after_it_with_eio() {
    let (mut d, _) = two_files();
    d.op(TapeOp::ForwardRecords(1)).unwrap();
    assert_eq!(d.position().unwrap(), 1);
    assert_eq!(errno(d.op(TapeOp::ForwardRecords(3))), Some(libc::EIO));
    assert_eq!(d.position().unwrap(), 3, "after the filemark");
    let mut buf = [0u8; 8];
    assert_eq!(d.read_record(&mut buf).unwrap(), 8);
    assert_eq!(buf[0], 12, "the first record of the next file");
}

#[test]
fn forward_records_at_the_end_of_data_fails_with_eio_there() {
    let (mut d, _) = two_files();
    d.op(TapeOp::SeekBlock(5)).unwrap();
    assert_eq!(errno(d.op(TapeOp::ForwardRecords(1))), Some(libc::EIO));
    assert_eq!(d.position().unwrap(), 5);
    d.op(TapeOp::ForwardRecords(0)).unwrap();
}

#[test]
fn forward_records_beyond_what_space6_counts_fails_with_einval() {
    let (mut d, _) = two_files();
    let too_many = crate::tape::drive::limits::MAX_SPACE_RECORDS + 1;
    assert_eq!(
        errno(d.op(TapeOp::ForwardRecords(too_many))),
        Some(libc::EINVAL)
    );
    assert_eq!(d.position().unwrap(), 0);
}

#[test]
fn a_seek_after_a_write_writes_the_filemark_first() {
    let (mut d, shelf) = Emulated::new("emu", vec![Cartridge::blank(1 << 20, 0)]);
    d.write_record(&[1; 8]).unwrap();
    d.write_record(&[2; 8]).unwrap();
    d.op(TapeOp::SeekBlock(1)).unwrap();
    assert_eq!(shelf.lock().unwrap().slots[0].filemarks(), 1);
    let mut buf = [0u8; 8];
    assert_eq!(d.read_record(&mut buf).unwrap(), 8);
    assert_eq!(buf[0], 2);
    d.close().unwrap();
    assert_eq!(
        shelf.lock().unwrap().slots[0].filemarks(),
        1,
        "a read since: no second filemark at close"
    );
}

#[test]
fn closing_and_opening_again_keep_the_block_address() {
    let (mut d, _) = Emulated::new("emu", vec![Cartridge::blank(1 << 20, 0)]);
    d.write_record(&[1; 8]).unwrap();
    d.write_record(&[2; 8]).unwrap();
    d.close().unwrap();
    d.reopen().unwrap();
    assert_eq!(d.position().unwrap(), 3, "after the filemark close wrote");
    d.op(TapeOp::SeekBlock(1)).unwrap();
    d.close().unwrap();
    d.reopen().unwrap();
    assert_eq!(d.position().unwrap(), 1);
    let mut buf = [0u8; 8];
    d.read_record(&mut buf).unwrap();
    assert_eq!(buf[0], 2);
}

#[test]
fn after_a_seek_only_block_zero_reports_the_beginning() {
    let (mut d, _) = two_files();
    assert!(d.status().unwrap().at_bot);
    d.op(TapeOp::SeekBlock(3)).unwrap();
    d.op(TapeOp::BackspaceFiles(1)).unwrap();
    d.op(TapeOp::BackspaceRecords(2)).unwrap();
    assert_eq!(d.position().unwrap(), 0);
    assert!(
        !d.status().unwrap().at_bot,
        "st lost its file and block numbers in the seek"
    );
    d.op(TapeOp::SeekBlock(0)).unwrap();
    assert!(d.status().unwrap().at_bot);
}

#[test]
fn without_a_cartridge_positioning_fails_as_st_does() {
    let (mut d, _) = two_files();
    d.op(TapeOp::Unload).unwrap();
    assert_eq!(errno(d.position()), Some(libc::EIO));
    assert_eq!(errno(d.op(TapeOp::SeekBlock(1))), Some(libc::EIO));
    assert_eq!(
        errno(d.op(TapeOp::ForwardRecords(1))),
        Some(libc::ENOMEDIUM)
    );
    d.close().unwrap();
    assert_eq!(errno(d.position()), Some(libc::EBADF), "closed");
}

#[test]
fn a_drive_that_cannot_seek_is_reached_by_rewind_and_forward_records() {
    let (mut d, shelf) = two_files();
    d.op(TapeOp::ForwardRecords(1)).unwrap();
    shelf.lock().unwrap().refuse_seek = Some(libc::ENOTTY);
    assert_eq!(errno(d.op(TapeOp::SeekBlock(3))), Some(libc::ENOTTY));
    assert_eq!(d.position().unwrap(), 1, "a refused seek does not move");
    // The fallback: back to the file's start, then over its records.
    d.op(TapeOp::Rewind).unwrap();
    d.op(TapeOp::ForwardFiles(1)).unwrap();
    d.op(TapeOp::ForwardRecords(0)).unwrap();
    let mut buf = [0u8; 8];
    d.read_record(&mut buf).unwrap();
    assert_eq!(buf[0], 12);
    shelf.lock().unwrap().refuse_position = Some(libc::EIO);
    assert_eq!(errno(d.position()), Some(libc::EIO));
    let log = shelf.lock().unwrap().log.clone();
    assert!(log.contains(&"seek 3 refused".to_string()), "{log:?}");
}
