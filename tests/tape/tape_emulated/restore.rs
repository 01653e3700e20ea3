//! Reading tapes back: every cartridge in order, whatever record size the
//! tape was written with, and only up to the first filemark.

use super::common::{pattern, sha256};
use super::{blanks, command_logging_to, read_from_tape, write_to_tape};
use tapebuf::sink::VolumeSettings;
use tapebuf::source::ReadVolumes;
use tapebuf::tape::emulated::Cartridge;
use tapebuf::tape::AtEnd;
use tapebuf::volume::ChangePolicy;

#[test]
fn multi_volume_restore_reads_every_cartridge_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("changes");
    let data = pattern(2_500_000, 6);
    let settings = VolumeSettings {
        policy: ChangePolicy {
            command: Some("true".into()),
            timeout: None,
            loader: None,
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
