use std::io;

use super::copy::copy;
use super::plan::Piece;
use super::sums::RecordSums;
use super::test_backup::TestBackup;
use super::volume_reader::{Cost, VolumeReader};
use super::walk::RecordAt;
use crate::manifest::tally::record_checksum;

/// Volumes in memory, read by record.
struct Memory<'b> {
    backup: &'b TestBackup,
    /// (volume, record) read, in order.
    reads: Vec<(u32, u64)>,
}

impl VolumeReader for Memory<'_> {
    fn read(&mut self, at: &RecordAt, buf: &mut Vec<u8>) -> Result<(), String> {
        self.reads.push((at.volume, at.record));
        let record = &self.backup.volumes[at.volume as usize - 1][at.record as usize];
        assert_eq!(record.len() as u64, at.bytes);
        buf.clear();
        buf.extend_from_slice(record);
        Ok(())
    }

    fn volume_name(&self, n: u32) -> String {
        format!("mem{n}")
    }

    fn cost(&self) -> Cost {
        Cost::default()
    }
}

/// The checksums of the backup's records, one of them wrong when asked.
struct Sums {
    sums: Vec<Vec<u32>>,
}

impl Sums {
    fn of(backup: &TestBackup) -> Sums {
        let each = |v: &Vec<Vec<u8>>| v.iter().map(|r| record_checksum(r)).collect();
        Sums {
            sums: backup.volumes.iter().map(each).collect(),
        }
    }
}

impl RecordSums for Sums {
    fn sums(&self, volume: u32, first: u64, count: u64) -> io::Result<Vec<u32>> {
        let v = &self.sums[volume as usize - 1];
        Ok(v[first as usize..(first + count) as usize].to_vec())
    }
}

#[test]
fn a_range_spanning_volumes_is_copied_whole_then_the_made_bytes() {
    let b = TestBackup::new(&[&[100, 100, 100], &[100, 100, 50], &[80]]);
    let pieces = [
        Piece::Stream { start: 10, end: 20 },
        Piece::Stream {
            start: 250,
            end: 470,
        },
        Piece::Made(vec![0; 30]),
    ];
    let mut reader = Memory {
        backup: &b,
        reads: Vec::new(),
    };
    let mut out = Vec::new();
    let copied = copy(
        pieces.iter().cloned().map(Ok),
        &b.manifest,
        &mut reader,
        &Sums::of(&b),
        &mut out,
    )
    .unwrap();
    let mut want = b.stream[10..20].to_vec();
    want.extend_from_slice(&b.stream[250..470]);
    want.extend_from_slice(&[0; 30]);
    assert_eq!(out, want);
    assert_eq!(copied.bytes, want.len() as u64);
    assert_eq!(reader.reads, vec![(1, 0), (1, 2), (2, 0), (2, 1)]);
}

// issue 45, the minor point (the extract cost line past 100%): pieces
// that share a record (members chosen apart within it) read it once.
#[test]
fn pieces_that_share_a_record_read_it_once() {
    let b = TestBackup::new(&[&[100, 100]]);
    let pieces = [
        Piece::Stream { start: 0, end: 10 },
        Piece::Stream { start: 20, end: 30 },
        Piece::Stream {
            start: 90,
            end: 120,
        },
        Piece::Stream {
            start: 150,
            end: 160,
        },
    ];
    let mut reader = Memory {
        backup: &b,
        reads: Vec::new(),
    };
    let mut out = Vec::new();
    copy(
        pieces.iter().cloned().map(Ok),
        &b.manifest,
        &mut reader,
        &Sums::of(&b),
        &mut out,
    )
    .unwrap();
    assert_eq!(out.len(), 60);
    assert_eq!(reader.reads, vec![(1, 0), (1, 1)]);
}

#[test]
fn a_range_into_the_last_short_record_and_the_next_volume_is_followed() {
    let b = TestBackup::new(&[&[100, 50], &[], &[100]]);
    let pieces = [Piece::Stream {
        start: 120,
        end: 210,
    }];
    let mut reader = Memory {
        backup: &b,
        reads: Vec::new(),
    };
    let mut out = Vec::new();
    copy(
        pieces.iter().cloned().map(Ok),
        &b.manifest,
        &mut reader,
        &Sums::of(&b),
        &mut out,
    )
    .unwrap();
    assert_eq!(out, b.stream[120..210]);
    assert_eq!(reader.reads, vec![(1, 1), (3, 0)]);
}

#[test]
fn a_damaged_record_stops_the_copy_before_its_bytes_naming_where() {
    let b = TestBackup::new(&[&[100, 100, 100], &[100, 100, 50]]);
    let mut sums = Sums::of(&b);
    sums.sums[1][1] ^= 1;
    let pieces = [
        Piece::Stream {
            start: 150,
            end: 480,
        },
        Piece::Made(vec![0; 1024]),
    ];
    let mut reader = Memory {
        backup: &b,
        reads: Vec::new(),
    };
    let mut out = Vec::new();
    let e = copy(
        pieces.iter().cloned().map(Ok),
        &b.manifest,
        &mut reader,
        &sums,
        &mut out,
    )
    .unwrap_err();
    assert!(
        e.starts_with("volume 2 (mem2), record 1 (stream byte 400): the record read back does not match its checksum"),
        "{e}"
    );
    // Nothing of the bad record, and no ending.
    assert_eq!(out, b.stream[150..400]);
}

#[test]
fn a_range_past_the_backups_end_is_an_error_not_a_short_archive() {
    let b = TestBackup::new(&[&[100, 100]]);
    let mut reader = Memory {
        backup: &b,
        reads: Vec::new(),
    };
    let mut out = Vec::new();
    let pieces = [Piece::Stream {
        start: 150,
        end: 300,
    }];
    let e = copy(
        pieces.iter().cloned().map(Ok),
        &b.manifest,
        &mut reader,
        &Sums::of(&b),
        &mut out,
    )
    .unwrap_err();
    assert!(
        e.contains("stream byte 200 is past the backup's end"),
        "{e}"
    );
    let pieces = [Piece::Stream {
        start: 200,
        end: 300,
    }];
    let e = copy(
        pieces.iter().cloned().map(Ok),
        &b.manifest,
        &mut reader,
        &Sums::of(&b),
        &mut out,
    )
    .unwrap_err();
    assert!(e.contains("stream byte 200 is past"), "{e}");
}
