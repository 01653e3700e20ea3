//! The emulated drive's SCSI answers as a specification: the bytes a
//! health reader gets, at the offsets SPC-4 and SSC-4 give them.

use std::time::Duration;

use super::*;
use crate::tape::drive::Drive;
use crate::tape::scsi::sg_io::{Data, ScsiError};
use crate::tape::scsi::spc;

const TIMEOUT: Duration = Duration::from_secs(1);

/// The reply to `cdb` in a buffer of 4096 bytes.
fn ask(drive: &mut Emulated, cdb: &[u8]) -> Result<Vec<u8>, ScsiError> {
    let mut buf = vec![0u8; 4096];
    let got = drive.scsi_command(cdb, Data::In(&mut buf), TIMEOUT)?;
    buf.truncate(got);
    Ok(buf)
}

fn log_sense(drive: &mut Emulated, page: u8) -> Result<Vec<u8>, ScsiError> {
    ask(drive, &[0x4d, 0, 0x40 | page, 0, 0, 0, 0, 0x10, 0x00, 0])
}

fn read_attribute(drive: &mut Emulated) -> Result<Vec<u8>, ScsiError> {
    ask(
        drive,
        &[0x8c, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0],
    )
}

/// The parameters of a log page: (code, value), checking that the page's
/// length field and every parameter's length agree with the bytes.
fn parameters(page: &[u8]) -> Vec<(u16, Vec<u8>)> {
    let length = usize::from(u16::from_be_bytes([page[2], page[3]]));
    assert_eq!(page.len(), 4 + length, "page length field");
    let mut out = Vec::new();
    let mut at = 4;
    while at < page.len() {
        let code = u16::from_be_bytes([page[at], page[at + 1]]);
        let len = usize::from(page[at + 3]);
        assert!(at + 4 + len <= page.len(), "parameter {code:#06x} overruns");
        out.push((code, page[at + 4..at + 4 + len].to_vec()));
        at += 4 + len;
    }
    out
}

/// Parameter `code` as a number.
fn number(page: &[u8], code: u16) -> u64 {
    let (_, value) = parameters(page)
        .into_iter()
        .find(|(c, _)| *c == code)
        .unwrap_or_else(|| panic!("no parameter {code:#06x}"));
    value.iter().fold(0, |n, &b| n << 8 | u64::from(b))
}

/// The attributes of a READ ATTRIBUTE reply: (id, value), checking its
/// AVAILABLE DATA and every attribute's length against the bytes.
fn attributes(reply: &[u8]) -> Vec<(u16, Vec<u8>)> {
    let available = u32::from_be_bytes([reply[0], reply[1], reply[2], reply[3]]) as usize;
    assert_eq!(reply.len(), 4 + available, "available data");
    let mut out = Vec::new();
    let mut at = 4;
    while at < reply.len() {
        let id = u16::from_be_bytes([reply[at], reply[at + 1]]);
        let len = usize::from(u16::from_be_bytes([reply[at + 3], reply[at + 4]]));
        out.push((id, reply[at + 5..at + 5 + len].to_vec()));
        at += 5 + len;
    }
    out
}

fn attribute(reply: &[u8], id: u16) -> Vec<u8> {
    attributes(reply)
        .into_iter()
        .find(|(i, _)| *i == id)
        .map(|(_, v)| v)
        .unwrap_or_else(|| panic!("no attribute {id:#06x}"))
}

fn sense(e: ScsiError) -> (u8, u8, u8) {
    let s = e.sense().expect("a CHECK CONDITION");
    (s.key, s.asc, s.ascq)
}

fn drive() -> (Emulated, Shelf) {
    Emulated::new("emu", vec![Cartridge::blank(8 << 20, 1 << 20)])
}

#[test]
fn inquiry_names_the_lab_drive_and_vpd_0x80_its_serial() {
    let (mut d, shelf) = drive();
    let standard = ask(&mut d, &[0x12, 0, 0, 0, 96, 0]).unwrap();
    assert_eq!(standard.len(), 64);
    assert_eq!(usize::from(standard[4]) + 5, standard.len());
    assert_eq!(standard[0] & 0x1f, 0x01, "a tape drive");
    assert_eq!(&standard[8..16], b"IBM     ");
    assert_eq!(&standard[16..32], b"ULT3580-TD6     ");
    assert_eq!(&standard[32..36], b"2160");
    shelf.lock().unwrap().scsi.serial = "SN42".into();
    let vpd = ask(&mut d, &[0x12, 1, 0x80, 0, 255, 0]).unwrap();
    assert_eq!(&vpd[..4], &[0x01, 0x80, 0, 4]);
    assert_eq!(&vpd[4..], b"SN42");
    // The LTO-6 lists its logical block protection page too.
    let pages = ask(&mut d, &[0x12, 1, 0x00, 0, 255, 0]).unwrap();
    assert_eq!(&pages[4..], &[0x00, 0x80, 0xb5]);
    assert_eq!(standard[5] & 0x01, 0x01, "PROTECT");
    shelf.lock().unwrap().scsi.lbp_methods.clear();
    let pages = ask(&mut d, &[0x12, 1, 0x00, 0, 255, 0]).unwrap();
    assert_eq!(&pages[4..], &[0x00, 0x80]);
    let e = ask(&mut d, &[0x12, 1, 0x83, 0, 255, 0]).unwrap_err();
    assert_eq!(sense(e), (0x05, 0x24, 0x00));
}

#[test]
fn a_reply_is_cut_to_the_allocation_length() {
    let (mut d, _) = drive();
    assert_eq!(ask(&mut d, &[0x12, 0, 0, 0, 36, 0]).unwrap().len(), 36);
    let head = ask(&mut d, &[0x4d, 0, 0x43, 0, 0, 0, 0, 0, 4, 0]).unwrap();
    assert_eq!(head.len(), 4);
    assert!(u16::from_be_bytes([head[2], head[3]]) > 0, "says the whole");
}

#[test]
fn log_sense_lists_and_serves_its_pages_with_lengths_that_agree() {
    let (mut d, _) = drive();
    let supported = log_sense(&mut d, 0x00).unwrap();
    assert_eq!(supported[0], 0x00);
    let codes = &supported[4..];
    assert_eq!(usize::from(supported[3]), codes.len());
    assert_eq!(codes, &[0x00, 0x02, 0x03, 0x17, 0x1b, 0x2e, 0x32]);
    for &code in &codes[1..] {
        let page = log_sense(&mut d, code).unwrap();
        assert_eq!(page[0] & 0x3f, code);
        assert!(!parameters(&page).is_empty(), "page {code:#04x}");
    }
    let errors = log_sense(&mut d, 0x02).unwrap();
    let codes: Vec<u16> = parameters(&errors).iter().map(|p| p.0).collect();
    assert_eq!(codes, (0..=6).collect::<Vec<u16>>());
    let alerts = log_sense(&mut d, 0x2e).unwrap();
    assert_eq!(parameters(&alerts).len(), 64);
    let e = log_sense(&mut d, 0x0c).unwrap_err();
    assert_eq!(sense(e), (0x05, 0x24, 0x00));
}

#[test]
fn tape_alert_flags_clear_when_read() {
    let (mut d, shelf) = drive();
    shelf.lock().unwrap().tape_alerts.insert(20);
    // Only the header: the flags stay, as mhvtl keeps them.
    ask(&mut d, &[0x4d, 0, 0x6e, 0, 0, 0, 0, 0, 4, 0]).unwrap();
    let page = log_sense(&mut d, 0x2e).unwrap();
    assert_eq!(number(&page, 20), 1);
    assert_eq!(number(&page, 19), 0);
    assert_eq!(number(&log_sense(&mut d, 0x2e).unwrap(), 20), 0, "cleared");
    shelf.lock().unwrap().tape_alerts.insert(3);
    let alerts = d.tape_alerts().unwrap();
    assert!(alerts.contains(3) && !alerts.contains(20));
    assert!(d.tape_alerts().unwrap().is_empty());
}

#[test]
fn counters_grow_as_records_are_written_and_read() {
    let (mut d, shelf) = drive();
    {
        let mut lib = shelf.lock().unwrap();
        lib.scsi.retries_every = Some(3);
        lib.scsi.compression_percent = 200;
    }
    for _ in 0..7 {
        d.write_record(&[7; 1 << 19]).unwrap();
    }
    d.op(crate::tape::TapeOp::Rewind).unwrap();
    let mut buf = vec![0u8; 1 << 19];
    for _ in 0..2 {
        d.read_record(&mut buf).unwrap();
    }
    let written = 7 * (1u64 << 19);
    let errors = log_sense(&mut d, 0x02).unwrap();
    assert_eq!(number(&errors, 0x0005), written, "bytes processed");
    assert_eq!(number(&errors, 0x0002), 2, "a rewrite every 3 records");
    assert_eq!(number(&errors, 0x0003), 2, "corrected");
    assert_eq!(number(&log_sense(&mut d, 0x03).unwrap(), 0x0005), 1 << 20);
    let compression = log_sense(&mut d, 0x1b).unwrap();
    assert_eq!(number(&compression, 0x0001), 200, "write ratio");
    assert_eq!(number(&compression, 0x0006), 3, "MiB from the host");
    assert_eq!(number(&compression, 0x0007), 1 << 19, "and bytes");
    assert_eq!(number(&compression, 0x0008), 1, "MiB to the medium");
    let volume = log_sense(&mut d, 0x17).unwrap();
    assert_eq!(number(&volume, 0x0001), 1, "mounts");
    assert_eq!(number(&volume, 0x0002), 7, "data sets written");
    assert_eq!(number(&volume, 0x0007), 2, "data sets read");
    assert_eq!(number(&volume, 0x0010), 3, "lifetime MiB written");
    assert_eq!(number(&volume, 0x0016), 8, "native capacity, MiB");
    let mam = read_attribute(&mut d).unwrap();
    assert_eq!(attribute(&mam, 0x0220), 3u64.to_be_bytes());
    assert_eq!(attribute(&mam, 0x0221), 1u64.to_be_bytes());
    assert_eq!(attribute(&mam, 0x0001), 8u64.to_be_bytes());
}

#[test]
fn read_attribute_gives_each_cartridge_its_own_memory() {
    let (mut d, shelf) = Emulated::new(
        "emu",
        vec![Cartridge::blank(8 << 20, 0), Cartridge::blank(8 << 20, 0)],
    );
    shelf.lock().unwrap().slots[1].memory.barcode = Some("LAB001L6".into());
    let first = read_attribute(&mut d).unwrap();
    assert_eq!(&attribute(&first, 0x0401)[..7], b"EMU0000");
    assert_eq!(attribute(&first, 0x0003), 1u64.to_be_bytes(), "load count");
    assert_eq!(&attribute(&first, 0x0400), b"FUJIFILM");
    assert_eq!(attribute(&first, 0x0406).len(), 8, "YYYYMMDD");
    d.op(crate::tape::TapeOp::Unload).unwrap();
    d.reopen().unwrap();
    let second = read_attribute(&mut d).unwrap();
    assert_eq!(&attribute(&second, 0x0401)[..7], b"EMU0001");
    assert_eq!(&attribute(&second, 0x0806)[..8], b"LAB001L6");
    assert_eq!(second[4..6], [0x00, 0x00], "starts at attribute 0000h");
    assert_eq!(second[6] & 0x80, 0x80, "read only");
}

#[test]
fn a_load_counts_on_the_cartridge_and_a_serial_can_be_set() {
    let (mut d, shelf) = Emulated::new("emu", vec![Cartridge::blank(8 << 20, 0)]);
    shelf.lock().unwrap().slots[0].memory.serial = Some("SAME".into());
    d.op(crate::tape::TapeOp::Unload).unwrap();
    let cartridge = shelf.lock().unwrap().take(0).unwrap();
    let index = shelf.lock().unwrap().insert(cartridge);
    assert_eq!(index, 1);
    let mam = read_attribute(&mut d).unwrap();
    assert_eq!(&attribute(&mam, 0x0401)[..5], b"SAME ");
    assert_eq!(attribute(&mam, 0x0003), 2u64.to_be_bytes());
}

#[test]
fn without_a_cartridge_the_medium_answers_not_ready() {
    let (mut d, _) = Emulated::in_library("emu");
    assert_eq!(
        sense(read_attribute(&mut d).unwrap_err()),
        (0x02, 0x3a, 0x00)
    );
    assert_eq!(
        sense(log_sense(&mut d, 0x17).unwrap_err()),
        (0x02, 0x3a, 0x00)
    );
    let tur = d.scsi_command(&[0; 6], Data::None, TIMEOUT).unwrap_err();
    assert_eq!(sense(tur), (0x02, 0x3a, 0x00));
    assert!(log_sense(&mut d, 0x02).is_ok(), "the drive's own pages");
    assert!(ask(&mut d, &[0x12, 0, 0, 0, 96, 0]).is_ok());
}

#[test]
fn no_log_pages_refuses_every_log_sense_as_illegal() {
    let (mut d, shelf) = drive();
    let mut lib = shelf.lock().unwrap();
    lib.scsi.no_log_pages = true;
    lib.tape_alerts.insert(20);
    drop(lib);
    for page in [0x00, 0x02, 0x17, 0x2e] {
        assert_eq!(
            sense(log_sense(&mut d, page).unwrap_err()),
            (0x05, 0x24, 0x00)
        );
    }
    assert!(d.tape_alerts().unwrap().is_empty(), "none, as a real drive");
    assert!(read_attribute(&mut d).is_ok());
}

#[test]
fn refused_scsi_fails_every_command_in_the_kernel() {
    let (mut d, shelf) = drive();
    shelf.lock().unwrap().scsi.refused = true;
    let e = ask(&mut d, &[0x12, 0, 0, 0, 96, 0]).unwrap_err();
    assert!(e.is_refused_by_kernel(), "{e}");
    assert!(read_attribute(&mut d).unwrap_err().is_refused_by_kernel());
    let e = d.tape_alerts().unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::EPERM));
}

#[test]
fn an_unknown_command_is_illegal() {
    let (mut d, _) = drive();
    let e = ask(&mut d, &[0xff, 0, 0, 0, 0, 0]).unwrap_err();
    assert_eq!(sense(e), (0x05, 0x20, 0x00));
}

#[test]
fn inquiry_refuses_cmddt_and_a_page_code_without_evpd() {
    let (mut d, _) = drive();
    for cdb in [
        [0x12, 0x02, 0x00, 0, 255, 0],
        [0x12, 0x03, 0x80, 0, 255, 0],
        [0x12, 0x00, 0x80, 0, 255, 0],
    ] {
        let e = ask(&mut d, &cdb).unwrap_err();
        assert_eq!(sense(e), (0x05, 0x24, 0x00), "{cdb:02x?}");
    }
}

#[test]
fn read_attribute_serves_attribute_values_of_partition_0_from_any_held_attribute() {
    let (mut d, _) = drive();
    let mut cdb = spc::read_attribute(4096);
    cdb[8..10].copy_from_slice(&0x0401u16.to_be_bytes());
    let from_serial = ask(&mut d, &cdb).unwrap();
    assert_eq!(attributes(&from_serial)[0].0, 0x0401);
    cdb[8..10].copy_from_slice(&0x0404u16.to_be_bytes());
    assert_eq!(sense(ask(&mut d, &cdb).unwrap_err()), (0x05, 0x24, 0x00));
    let mut other_action = spc::read_attribute(4096);
    other_action[1] = 0x01;
    let mut other_partition = spc::read_attribute(4096);
    other_partition[7] = 1;
    for cdb in [other_action, other_partition] {
        assert_eq!(sense(ask(&mut d, &cdb).unwrap_err()), (0x05, 0x24, 0x00));
    }
    // Without a cartridge the medium is missing first.
    let (mut empty, _) = Emulated::in_library("emu");
    assert_eq!(
        sense(ask(&mut empty, &other_action).unwrap_err()),
        (0x02, 0x3a, 0x00)
    );
}

#[test]
fn log_sense_serves_the_same_values_whatever_the_page_control() {
    let (mut d, _) = drive();
    let cumulative = log_sense(&mut d, 0x02).unwrap();
    for control in spc::PageControl::ALL {
        let mut cdb = spc::log_sense(0x02, 4096);
        cdb[2] = control.bits() << 6 | 0x02;
        assert_eq!(ask(&mut d, &cdb).unwrap(), cumulative, "{control:?}");
    }
}

#[test]
fn an_empty_cdb_is_an_unknown_command_and_a_short_one_an_invalid_field() {
    let (mut d, shelf) = drive();
    shelf.lock().unwrap().tape_alerts.insert(20);
    assert_eq!(sense(ask(&mut d, &[]).unwrap_err()), (0x05, 0x20, 0x00));
    let (mut empty, _) = Emulated::in_library("emu");
    let built: [&[u8]; 4] = [
        &spc::test_unit_ready(),
        &spc::inquiry(96),
        &spc::log_sense(0x2e, 4096),
        &spc::read_attribute(4096),
    ];
    for cdb in built {
        for drive in [&mut d, &mut empty] {
            let short = &cdb[..cdb.len() - 1];
            let e = ask(drive, short).unwrap_err();
            assert_eq!(sense(e), (0x05, 0x24, 0x00), "{short:02x?}");
        }
    }
    let alerts = shelf.lock().unwrap().tape_alerts;
    assert!(alerts.contains(20), "a refused LOG SENSE clears nothing");
}
