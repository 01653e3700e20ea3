//! The emulated drive as a specification: what each st behaviour it
//! models looks like from a program's side.

use super::*;
use crate::tape::drive::{Drive, TapeOp};

#[test]
fn writes_past_early_warning_alternate_with_enospc() {
    let (mut d, shelf) = Emulated::new("emu", vec![Cartridge::blank(100, 30)]);
    assert_eq!(d.write_record(&[1; 40]).unwrap(), 40);
    // Crosses the warning point at 70: still written.
    assert_eq!(d.write_record(&[2; 40]).unwrap(), 40);
    let e = d.write_record(&[3; 10]).unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::ENOSPC));
    assert_eq!(d.write_record(&[3; 10]).unwrap(), 10);
    assert_eq!(
        d.write_record(&[4; 10]).unwrap_err().raw_os_error(),
        Some(libc::ENOSPC)
    );
    // The physical end refuses whatever the alternation says.
    d.write_record(&[4; 10]).unwrap();
    assert!(d.write_record(&[5; 10]).is_err());
    assert!(d.write_record(&[5; 10]).is_err());
    d.close().unwrap();
    let lib = shelf.lock().unwrap();
    assert_eq!(lib.slots[0].record_sizes(), vec![40, 40, 10, 10]);
    assert_eq!(lib.slots[0].filemarks(), 1);
}

#[test]
fn reading_stops_at_filemarks_and_refuses_small_buffers() {
    let cart = Cartridge::with_records(vec![vec![7; 100], vec![8; 50]]);
    let (mut d, _) = Emulated::new("emu", vec![cart]);
    let mut buf = [0u8; 60];
    assert_eq!(
        d.read_record(&mut buf).unwrap_err().raw_os_error(),
        Some(libc::ENOMEM)
    );
    d.op(TapeOp::BackspaceRecords(1)).unwrap();
    let mut big = [0u8; 200];
    assert_eq!(d.read_record(&mut big).unwrap(), 100);
    assert_eq!(d.read_record(&mut buf).unwrap(), 50);
    assert_eq!(d.read_record(&mut buf).unwrap(), 0);
    assert!(
        !d.status().unwrap().at_eod,
        "a filemark is not the end of data"
    );
    // Blank tape after the last filemark: st reads 0 once, with GMT_EOD,
    // then fails (seen in the tape lab).
    assert_eq!(d.read_record(&mut buf).unwrap(), 0);
    assert!(d.status().unwrap().at_eod);
    assert_eq!(
        d.read_record(&mut buf).unwrap_err().raw_os_error(),
        Some(libc::EIO)
    );
}

#[test]
fn unload_then_open_loads_the_next_cartridge() {
    let (mut d, shelf) = Emulated::new(
        "emu",
        vec![Cartridge::blank(100, 0), Cartridge::blank(100, 0)],
    );
    d.write_record(b"one").unwrap();
    d.op(TapeOp::Unload).unwrap();
    d.reopen().unwrap();
    d.write_record(b"two").unwrap();
    d.close().unwrap();
    let lib = shelf.lock().unwrap();
    assert_eq!(lib.slots[0].first_file(), b"one");
    assert_eq!(lib.slots[1].first_file(), b"two");
    assert_eq!(
        lib.slots[0].filemarks(),
        1,
        "unload after a write adds a filemark"
    );
    drop(lib);
    assert!(d.reopen().is_ok(), "the second cartridge is still loaded");
}

#[test]
fn fixed_block_mode_cuts_writes_into_blocks_and_refuses_the_rest() {
    let (mut d, shelf) = Emulated::new("emu", vec![Cartridge::blank(1 << 20, 0)]);
    shelf.lock().unwrap().block_bytes = 512;
    assert_eq!(d.status().unwrap().fixed_block_bytes, 512);
    assert_eq!(d.write_record(&[1; 1024]).unwrap(), 1024);
    let e = d.write_record(&[2; 700]).unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::EINVAL));
    d.op(TapeOp::SetBlockBytes(0)).unwrap();
    d.write_record(&[3; 700]).unwrap();
    d.op(TapeOp::Rewind).unwrap();
    assert_eq!(
        shelf.lock().unwrap().slots[0].record_sizes(),
        vec![512, 512, 700]
    );
    d.op(TapeOp::SetBlockBytes(512)).unwrap();
    let mut buf = [0u8; 2048];
    assert_eq!(
        d.read_record(&mut buf).unwrap(),
        1024,
        "two blocks, then a record of 700"
    );
    assert_eq!(
        d.read_record(&mut buf).unwrap_err().raw_os_error(),
        Some(libc::EIO)
    );
}

#[test]
fn a_new_cartridge_loads_in_the_default_block_size() {
    let (mut d, shelf) = Emulated::new(
        "emu",
        vec![Cartridge::blank(100, 0), Cartridge::blank(100, 0)],
    );
    shelf.lock().unwrap().default_block_bytes = 1024;
    d.op(TapeOp::Unload).unwrap();
    d.reopen().unwrap();
    assert_eq!(d.status().unwrap().fixed_block_bytes, 1024);
}

#[test]
fn transfers_over_the_limit_fail_whatever_the_record_size() {
    let cart = Cartridge::with_records(vec![vec![7; 100]]);
    let (mut d, shelf) = Emulated::new("emu", vec![cart]);
    shelf.lock().unwrap().transfer_limit = Some(TransferLimit {
        max_bytes: 4096,
        errno: libc::EBUSY,
        known: false,
    });
    let mut big = vec![0u8; 8192];
    assert_eq!(
        d.read_record(&mut big).unwrap_err().raw_os_error(),
        Some(libc::EBUSY)
    );
    assert_eq!(d.read_record(&mut big[..4096]).unwrap(), 100);
    assert_eq!(
        d.write_record(&big).unwrap_err().raw_os_error(),
        Some(libc::EBUSY)
    );
    assert!(d.transfer_limits().facts.is_empty());
}

#[test]
fn a_write_protected_cartridge_fails_an_open_for_writing_with_erofs() {
    let protected = Cartridge {
        write_protected: true,
        ..Cartridge::blank(100, 0)
    };
    let (mut d, _) = Emulated::new("emu", vec![Cartridge::blank(100, 0), protected]);
    d.for_writing();
    d.op(TapeOp::Unload).unwrap();
    d.close().unwrap();
    assert!(d.status_unopened().unwrap().write_protected);
    let e = d.reopen().unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::EROFS));
}

#[test]
fn spacing_back_over_files_and_more_records_than_space6_counts() {
    let cart = Cartridge::with_records(vec![vec![1; 10], vec![2; 10]]);
    let (mut d, _) = Emulated::new("emu", vec![cart]);
    let mut buf = [0u8; 10];
    while d.read_record(&mut buf).unwrap() > 0 {}
    // Back over the filemark: on its side nearer the beginning.
    d.op(TapeOp::BackspaceFiles(1)).unwrap();
    d.op(TapeOp::BackspaceRecords(2)).unwrap();
    assert_eq!(d.read_record(&mut buf).unwrap(), 10);
    assert_eq!(buf[0], 1);
    // SCSI SPACE(6) counts in 24 bits, signed: st cannot send more.
    assert_eq!(
        d.op(TapeOp::BackspaceRecords(0x80_0000))
            .unwrap_err()
            .raw_os_error(),
        Some(libc::EINVAL)
    );
    // No filemark before: MTBSF stops at the beginning with EIO.
    assert_eq!(
        d.op(TapeOp::BackspaceFiles(1)).unwrap_err().raw_os_error(),
        Some(libc::EIO)
    );
}

#[test]
fn a_cartridge_the_changer_loads_reports_no_bot_until_rewound() {
    let (mut d, _) = Emulated::new(
        "/dev/nst0",
        vec![Cartridge::blank(100, 0), Cartridge::blank(100, 0)],
    );
    assert!(d.status().unwrap().at_bot, "the first cartridge, as set up");
    d.op(TapeOp::Unload).unwrap();
    d.close().unwrap();
    assert!(!d.status_unopened().unwrap().at_bot);
    d.reopen().unwrap();
    assert!(!d.status().unwrap().at_bot, "st has not seen where it is");
    d.op(TapeOp::Rewind).unwrap();
    assert!(d.status().unwrap().at_bot);
}
