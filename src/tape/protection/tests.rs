//! The protected drive against the emulated one, which does logical
//! block protection as mhvtl's drives do in the tape lab: what goes on
//! tape, what a read passes on, and the state the drive is left in.

use std::time::Duration;

use super::*;
use crate::tape::drive::Drive;
use crate::tape::emulated::{Cartridge, Emulated, Item, ReadFault, Shelf};
use crate::tape::scsi::pages::protection::Method;
use crate::tape::scsi::sg_io::Data;
use crate::tape::scsi::spc;
use crate::tape::TapeOp;

/// An emulated drive offering `methods`, one blank cartridge loaded.
fn drive(methods: &[Method]) -> (Emulated, Shelf) {
    let (d, shelf) = Emulated::new("/dev/nst0", vec![Cartridge::blank(1 << 24, 0)]);
    shelf.lock().unwrap().scsi.lbp_methods = methods.to_vec();
    (d, shelf)
}

fn block(seed: u32, len: usize) -> Vec<u8> {
    (0..len as u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) ^ seed) as u8)
        .collect()
}

/// The records on the loaded cartridge, as the drive stored them.
fn on_tape(shelf: &Shelf) -> Vec<Vec<u8>> {
    let lib = shelf.lock().unwrap();
    lib.slots[0]
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Record(r) => Some(r.clone()),
            Item::Filemark => None,
        })
        .collect()
}

fn page_in_force(shelf: &Shelf) -> Option<Method> {
    shelf.lock().unwrap().lbp_page.and_then(|p| p.in_force())
}

#[test]
fn the_best_method_a_drive_offers_is_used_and_every_record_round_trips() {
    for (offered, used) in [
        (vec![Method::ReedSolomon], Method::ReedSolomon),
        (Method::ALL.to_vec(), Method::Crc32c),
    ] {
        let (d, shelf) = drive(&offered);
        let mut p = Protected::new(Box::new(d), Wanted::WhereOffered).unwrap();
        assert_eq!(p.protection().method, Some(used));
        assert_eq!(page_in_force(&shelf), Some(used));
        let blocks: Vec<Vec<u8>> = (0..5).map(|i| block(i, 1000 + i as usize)).collect();
        for b in &blocks {
            assert_eq!(p.write_record(b).unwrap(), b.len());
        }
        // The drive checked and stripped every CRC: the tape holds the data.
        assert_eq!(on_tape(&shelf), blocks);
        p.op(TapeOp::Rewind).unwrap();
        let mut buf = vec![0u8; 1004];
        for b in &blocks {
            let n = p.read_record(&mut buf).unwrap();
            assert_eq!(&buf[..n], &b[..], "{used:?}");
        }
    }
}

#[test]
fn a_record_as_large_as_the_read_buffer_still_reads_with_its_crc() {
    let (d, _shelf) = drive(&Method::ALL);
    let mut p = Protected::new(Box::new(d), Wanted::WhereOffered).unwrap();
    let b = block(7, 4096);
    p.write_record(&b).unwrap();
    p.op(TapeOp::Rewind).unwrap();
    let mut buf = vec![0u8; 4096];
    assert_eq!(p.read_record(&mut buf).unwrap(), 4096);
    assert_eq!(buf, b);
    // One byte more than the buffer is a record too large, as without.
    p.write_record(&block(8, 4097)).unwrap();
    p.op(TapeOp::Rewind).unwrap();
    p.op(TapeOp::ForwardRecords(1)).unwrap();
    let e = p.read_record(&mut buf).unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::ENOMEM));
}

#[test]
fn a_block_damaged_between_drive_and_host_passes_on_nothing_and_says_why() {
    for method in Method::ALL {
        let (d, shelf) = drive(&[method]);
        let mut p = Protected::new(Box::new(d), Wanted::WhereOffered).unwrap();
        for i in 0..3 {
            p.write_record(&block(i, 2000)).unwrap();
        }
        shelf.lock().unwrap().read_faults.push(ReadFault::Corrupt {
            slot: 0,
            item: 1,
            byte: 1234,
        });
        p.op(TapeOp::Rewind).unwrap();
        let mut buf = vec![0xeeu8; 4096];
        p.read_record(&mut buf).unwrap();
        buf.fill(0xee);
        let e = p.read_record(&mut buf).unwrap_err();
        let failed = block_check(&e).expect("a failed block check");
        assert_eq!(failed.method, method);
        assert_eq!(failed.bytes, 2000);
        assert_ne!(failed.stored, failed.computed);
        assert!(
            buf.iter().all(|&b| b == 0xee),
            "bytes of the bad block were passed on"
        );
        assert!(e.to_string().contains(method.name()), "{e}");
        // The tape is past it: the next block reads.
        assert_eq!(p.read_record(&mut buf).unwrap(), 2000);
    }
}

#[test]
fn the_ring_s_room_after_a_block_takes_its_crc_without_a_copy() {
    let (d, shelf) = drive(&[Method::Crc32c]);
    let mut p = Protected::new(Box::new(d), Wanted::WhereOffered).unwrap();
    let data = block(3, 512);
    let mut room = data.clone();
    room.resize(512 + 64, 0);
    assert_eq!(p.write_record_in(&mut room, 512).unwrap(), 512);
    assert_eq!(&room[512..516], &crc::crc(Method::Crc32c, &data));
    // Without room it is copied, and the same goes on tape.
    let mut tight = data.clone();
    assert_eq!(p.write_record_in(&mut tight, 512).unwrap(), 512);
    assert_eq!(on_tape(&shelf), vec![data.clone(), data]);
}

#[test]
fn closing_turns_the_protection_off_and_reopening_turns_it_on_again() {
    let (d, shelf) = drive(&Method::ALL);
    let mut p = Protected::new(Box::new(d), Wanted::WhereOffered).unwrap();
    p.write_record(&block(1, 100)).unwrap();
    p.close().unwrap();
    let page = shelf.lock().unwrap().lbp_page.unwrap();
    assert!(page.is_off(), "{page:?}");
    // The summary still says what the volume was written with.
    assert_eq!(p.protection().method, Some(Method::Crc32c));
    p.reopen().unwrap();
    assert_eq!(page_in_force(&shelf), Some(Method::Crc32c));
    drop(p);
    assert!(
        shelf.lock().unwrap().lbp_page.unwrap().is_off(),
        "dropped without a close"
    );
}

#[test]
fn no_lbp_turns_off_a_drive_another_program_left_checking() {
    let (d, shelf) = drive(&Method::ALL);
    drop(Protected::new(
        Box::new(Emulated::attach("/dev/nst0", shelf.clone())),
        Wanted::WhereOffered,
    ));
    let mut left_on = Emulated::attach("/dev/nst0", shelf.clone());
    left_on.reopen().unwrap();
    setup::set(&mut left_on, Some(Method::Crc32c)).unwrap();
    let mut p = Protected::new(Box::new(d), Wanted::Off).unwrap();
    assert!(shelf.lock().unwrap().lbp_page.unwrap().is_off());
    assert_eq!(p.protection().why_none.as_deref(), Some("--no-lbp"));
    let b = block(9, 300);
    p.write_record(&b).unwrap();
    assert_eq!(on_tape(&shelf), vec![b]);
}

#[test]
fn a_drive_without_protection_or_without_scsi_is_written_plainly_and_says_why() {
    let (d, shelf) = drive(&[]);
    let mut p = Protected::new(Box::new(d), Wanted::WhereOffered).unwrap();
    let why = p.protection().why_none.unwrap();
    assert_eq!(why, "the drive does not offer it");
    p.write_record(&block(1, 64)).unwrap();
    assert_eq!(on_tape(&shelf), vec![block(1, 64)]);

    let (d, shelf) = drive(&Method::ALL);
    shelf.lock().unwrap().scsi.refused = true;
    let p = Protected::new(Box::new(d), Wanted::WhereOffered).unwrap();
    let why = p.protection().why_none.unwrap();
    assert!(why.contains("SCSI commands did not reach it"), "{why}");
}

#[test]
fn the_emulated_drive_refuses_a_wrong_crc_as_mhvtl_does_and_keeps_the_block() {
    let (mut d, shelf) = drive(&[Method::Crc32c]);
    setup::set(&mut d, Some(Method::Crc32c)).unwrap();
    let mut record = block(2, 100);
    record.extend([0, 0, 0, 0]);
    let e = d.write_record(&record).unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::EIO));
    assert_eq!(on_tape(&shelf), vec![block(2, 100)]);
}

#[test]
fn the_emulated_drive_takes_the_page_only_in_mhvtl_s_form() {
    let (mut d, shelf) = drive(&[Method::Crc32c]);
    let page = setup::current(&mut d).unwrap().unwrap();
    let mut list = page.with(Some(Method::Crc32c)).select_list();
    list[8] |= 0x40;
    let cdb = spc::mode_select(list.len() as u16);
    let e = d
        .scsi_command(&cdb, Data::Out(&list), Duration::from_secs(1))
        .unwrap_err();
    assert!(e.is_illegal_request(), "{e}");
    assert_eq!(page_in_force(&shelf), None);
}

#[test]
fn a_record_is_read_with_its_crc_into_the_room_after_the_caller_s_bytes() {
    let (d, _shelf) = drive(&[Method::Crc32c]);
    let mut p = Protected::new(Box::new(d), Wanted::WhereOffered).unwrap();
    let data = block(4, 512);
    p.write_record(&data).unwrap();
    p.write_record(&data).unwrap();
    p.op(TapeOp::Rewind).unwrap();
    let mut room = vec![0u8; 512 + 64];
    assert_eq!(p.read_record_in(&mut room, 512).unwrap(), 512);
    assert_eq!(&room[..512], &data[..]);
    // The CRC was read where it lies, after the data: nothing was copied.
    assert_eq!(&room[512..516], &crc::crc(Method::Crc32c, &data));
    // Without room the record goes through the wrapper's own buffer.
    let mut tight = vec![0u8; 512];
    assert_eq!(p.read_record_in(&mut tight, 512).unwrap(), 512);
    assert_eq!(tight, data);
}

#[test]
fn a_bad_block_read_into_room_is_refused_as_through_the_wrapper_s_buffer() {
    let (d, shelf) = drive(&[Method::Crc32c]);
    let mut p = Protected::new(Box::new(d), Wanted::WhereOffered).unwrap();
    p.write_record(&block(5, 2000)).unwrap();
    shelf.lock().unwrap().read_faults.push(ReadFault::Corrupt {
        slot: 0,
        item: 0,
        byte: 100,
    });
    p.op(TapeOp::Rewind).unwrap();
    let mut room = vec![0u8; 4096 + 64];
    let e = p.read_record_in(&mut room, 4096).unwrap_err();
    let failed = block_check(&e).expect("a failed block check");
    assert_eq!(failed.bytes, 2000);
}
