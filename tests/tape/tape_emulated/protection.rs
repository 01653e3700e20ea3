//! Logical block protection through the real pipeline, volume changes and
//! restore, against the emulated drive doing it as mhvtl's LTO-7 does
//! (issue 49): every block carries its CRC32C, appended in the ring's
//! room after the block rather than copied and read back into that room
//! the same way, and a block damaged between
//! the drive and the host ends the restore at that block, naming it.

use super::common::memory::Memory;
use super::common::{pattern, sha256};
use super::{blanks, read_changing, read_through, run, write_changing, BLOCK};
use tapebuf::sink::{TapeMedium, VolumeSettings, VolumeSink};
use tapebuf::source::ReadVolumes;
use tapebuf::tape::emulated::{Cartridge, Emulated, Item, ReadFault, Shelf, TransferLimit};
use tapebuf::tape::protection::{Protected, Wanted};
use tapebuf::tape::scsi::pages::protection::Method;

fn lto7(cartridges: Vec<Cartridge>) -> (Protected, Shelf) {
    let (drive, shelf) = Emulated::new("/dev/nst0", cartridges);
    shelf.lock().unwrap().scsi.lbp_methods = Method::ALL.to_vec();
    let protected = Protected::new(Box::new(drive), Wanted::WhereOffered).unwrap();
    (protected, shelf)
}

/// The data records of every cartridge, in order, up to each one's first
/// filemark (the trailer after it is not data).
fn data_on(shelf: &Shelf) -> Vec<u8> {
    let lib = shelf.lock().unwrap();
    let mut out = Vec::new();
    for cart in &lib.slots {
        for item in &cart.items {
            match item {
                Item::Record(r) => out.extend_from_slice(r),
                Item::Filemark => break,
            }
        }
    }
    out
}

fn backup(data: &[u8], cartridges: Vec<Cartridge>) -> (String, Shelf) {
    let (drive, shelf) = lto7(cartridges);
    let summary = write_changing(Box::new(drive), data);
    assert!(summary.is_clean(), "{}", summary.line());
    (summary.line(), shelf)
}

/// Reads `cartridges` back with `faults`: the summary, what was passed
/// on, and the drive's shelf afterwards.
fn restore(
    cartridges: Vec<Cartridge>,
    faults: Vec<ReadFault>,
) -> (tapebuf::observe::summary::Summary, Vec<u8>, Shelf) {
    let (drive, shelf) = lto7(cartridges);
    shelf.lock().unwrap().read_faults = faults;
    let (summary, back) = read_changing(Box::new(drive));
    (summary, back, shelf)
}

#[test]
fn a_protected_backup_across_three_cartridges_restores_byte_exact_every_block_checked() {
    let data = pattern(2_500_000, 49);
    let (line, shelf) = backup(&data, blanks(3));
    assert!(
        line.contains(
            "-o /dev/nst0: every block checked by the drive's logical block protection (CRC32C)"
        ),
        "{line}"
    );
    let written = shelf.lock().unwrap().slots.clone();
    assert!(
        written.iter().all(|c| !c.items.is_empty()),
        "three cartridges used"
    );
    // The drive checked and stripped every CRC: the tape holds the data.
    assert_eq!(sha256(&data_on(&shelf)), sha256(&data));
    assert!(
        shelf.lock().unwrap().lbp_page.is_some_and(|p| p.is_off()),
        "left off"
    );
    let (summary, back, _) = restore(written, Vec::new());
    assert!(summary.is_clean(), "{}", summary.line());
    assert_eq!(sha256(&back), sha256(&data));
    assert!(
        summary.line().contains(
            "-i /dev/nst0: every block checked by the drive's logical block protection (CRC32C)"
        ),
        "{}",
        summary.line()
    );
}

#[test]
fn whole_blocks_reach_the_drive_straight_from_the_ring_with_their_crc() {
    let data = pattern(40 * BLOCK, 50);
    let (_, shelf) = backup(&data, vec![Cartridge::blank(1 << 24, 0)]);
    let lib = shelf.lock().unwrap();
    // 40 data records, then the trailer (copied: it has no ring block).
    let from_ring = lib.write_addresses[..40]
        .iter()
        .filter(|&&a| a % 4096 == 0)
        .count();
    assert_eq!(from_ring, 40, "records that were not copied, of 40");
}

#[test]
fn whole_blocks_are_read_from_the_drive_straight_into_the_ring_with_their_crc() {
    let data = pattern(40 * BLOCK, 51);
    let (_, shelf) = backup(&data, vec![Cartridge::blank(1 << 24, 0)]);
    let written = shelf.lock().unwrap().slots.clone();
    let (summary, back, shelf) = restore(written, Vec::new());
    assert!(summary.is_clean(), "{}", summary.line());
    assert_eq!(sha256(&back), sha256(&data));
    let lib = shelf.lock().unwrap();
    // The 40 data records, each read into a ring block with its CRC in
    // the room after it; then the filemark and the trailer.
    let into_ring = lib.read_addresses[..40]
        .iter()
        .filter(|&&a| a % 4096 == 0)
        .count();
    assert_eq!(into_ring, 40, "records that were copied, of 40");
}

#[test]
fn a_block_damaged_between_drive_and_host_ends_the_restore_there_and_names_it() {
    let data = pattern(10 * BLOCK, 51);
    let (_, shelf) = backup(&data, vec![Cartridge::blank(1 << 24, 0)]);
    let written = shelf.lock().unwrap().slots.clone();
    let fault = ReadFault::Corrupt {
        slot: 0,
        item: 3,
        byte: 777,
    };
    let (summary, back, _) = restore(written, vec![fault]);
    let e = summary.input_error.clone().expect("the restore failed");
    let at = 3 * BLOCK;
    assert!(
        e.contains(&format!("read failed at byte {at}: volume 1, block 3: ")),
        "{e}"
    );
    assert!(e.contains("CRC32C does not match"), "{e}");
    assert_eq!(
        back.len(),
        at,
        "nothing of the damaged block or after was passed on"
    );
    assert_eq!(sha256(&back), sha256(&data[..at]));
    assert!(!summary.is_clean());
}

#[test]
fn a_block_that_fits_the_controller_only_without_its_crc_is_written_and_read_without() {
    let limit = || {
        Some(TransferLimit {
            max_bytes: BLOCK,
            errno: libc::EBUSY,
            known: true,
        })
    };
    let data = pattern(8 * BLOCK, 52);
    let (drive, shelf) = lto7(vec![Cartridge::blank(1 << 24, 0)]);
    shelf.lock().unwrap().transfer_limit = limit();
    let sink = VolumeSink::new(
        Box::new(TapeMedium::new(Box::new(drive))),
        "/dev/nst0",
        VolumeSettings::default(),
    );
    let summary = run(
        Box::new(Memory(std::io::Cursor::new(data.clone()))),
        Box::new(sink),
        false,
    );
    assert!(summary.is_clean(), "{}", summary.line());
    let why = format!("no logical block protection (a {BLOCK}-byte record and its 4-byte CRC are more than the 64k the drive or its controller takes in one request; -s 60k or less keeps it)");
    assert!(summary.line().contains(&why), "{}", summary.line());
    assert!(
        summary.line().contains("-s 60k or less keeps it"),
        "{}",
        summary.line()
    );
    assert_eq!(sha256(&data_on(&shelf)), sha256(&data));
    let written = shelf.lock().unwrap().slots.clone();
    let (drive, shelf) = lto7(written);
    shelf.lock().unwrap().transfer_limit = limit();
    let (summary, back) = read_through(Box::new(drive), ReadVolumes::default());
    assert!(summary.is_clean(), "{}", summary.line());
    assert_eq!(sha256(&back), sha256(&data));
    assert!(
        summary
            .line()
            .contains("-i /dev/nst0: no logical block protection (a "),
        "{}",
        summary.line()
    );
}
