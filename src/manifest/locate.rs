//! Where a byte of the stream lies: which volume, which record of it, and
//! how far into that record, from the volumes' byte counts and record
//! runs. A catalog names members by stream offset; a restore of one member
//! goes to the volume and record this finds, and seeks there.

use super::schema::{Manifest, Volume};

/// A stream offset, found on its volume.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    /// The volume's number (from 1).
    pub volume: u32,
    /// The offset from the volume's first byte.
    pub volume_offset: u64,
    /// The record (a tape) or write (a file) that holds the byte, from 0.
    pub record: u64,
    /// Where that record starts, from the volume's first byte.
    pub record_offset: u64,
}

impl Manifest {
    /// The stream offset of volume `n`'s first byte: the bytes of the
    /// volumes before it.
    pub fn volume_start(&self, n: u32) -> Option<u64> {
        let mut start = 0u64;
        for v in &self.volumes {
            if v.number == n {
                return Some(start);
            }
            start = start.checked_add(v.bytes)?;
        }
        None
    }

    /// Where stream byte `offset` lies; None past the last volume's end.
    /// A byte at a volume's end is the next volume's first.
    pub fn locate(&self, offset: u64) -> Option<Location> {
        let mut start = 0u64;
        for v in &self.volumes {
            let end = start.checked_add(v.bytes)?;
            if offset < end {
                let volume_offset = offset - start;
                let (record, record_offset) = record_at(v, volume_offset)?;
                return Some(Location {
                    volume: v.number,
                    volume_offset,
                    record,
                    record_offset,
                });
            }
            start = end;
        }
        None
    }
}

/// The record holding byte `offset` of volume `v`, and where it starts.
fn record_at(v: &Volume, offset: u64) -> Option<(u64, u64)> {
    let mut record = 0u64;
    let mut at = 0u64;
    for run in &v.records {
        let span = run.bytes.checked_mul(run.count)?;
        if run.bytes > 0 && offset < at + span {
            let k = (offset - at) / run.bytes;
            return Some((record + k, at + k * run.bytes));
        }
        record += run.count;
        at += span;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::schema::{Fingerprint, RecordRun, Stream};

    fn volume(number: u32, runs: &[(u64, u64)]) -> Volume {
        let records: Vec<RecordRun> = runs
            .iter()
            .map(|&(bytes, count)| RecordRun { bytes, count })
            .collect();
        Volume {
            number,
            name: format!("v{number}"),
            bytes: records.iter().map(|r| r.bytes * r.count).sum(),
            records,
            filemarks: 1,
            digest: String::new(),
            fingerprint: Fingerprint {
                bytes: 0,
                xxh3: String::new(),
            },
            segment_records: 4096,
            segments: Vec::new(),
            complete: true,
            verified: None,
            barcode: None,
            slot: None,
            health: None,
            first_block: None,
            lbp: None,
            key: None,
        }
    }

    fn manifest(volumes: Vec<Volume>) -> Manifest {
        Manifest {
            schema: String::new(),
            version: 1,
            tapebuf_version: String::new(),
            started: String::new(),
            ended: String::new(),
            clean: true,
            unclean_because: None,
            block_bytes: 1000,
            output: String::new(),
            digest_algorithm: "xxh3".into(),
            stream: Stream {
                bytes: 0,
                digest: String::new(),
            },
            volumes,
            catalog: None,
        }
    }

    #[test]
    fn an_offset_is_found_on_its_volume_record_and_place_in_the_record() {
        // Volume 1: 3 records of 1000 and a short one of 200; volume 2: 2 of 1000.
        let m = manifest(vec![
            volume(1, &[(1000, 3), (200, 1)]),
            volume(2, &[(1000, 2)]),
        ]);
        let at = |o| {
            m.locate(o)
                .map(|l| (l.volume, l.volume_offset, l.record, l.record_offset))
        };
        assert_eq!(at(0), Some((1, 0, 0, 0)));
        assert_eq!(at(2999), Some((1, 2999, 2, 2000)));
        assert_eq!(at(3000), Some((1, 3000, 3, 3000)));
        assert_eq!(at(3199), Some((1, 3199, 3, 3000)));
        assert_eq!(at(3200), Some((2, 0, 0, 0)));
        assert_eq!(at(4500), Some((2, 1300, 1, 1000)));
        assert_eq!(at(5200), None);
        assert_eq!(m.volume_start(2), Some(3200));
        assert_eq!(m.volume_start(3), None);
    }

    #[test]
    fn an_empty_volume_holds_no_byte_and_is_stepped_over() {
        let m = manifest(vec![
            volume(1, &[(1000, 1)]),
            volume(2, &[]),
            volume(3, &[(500, 2)]),
        ]);
        assert_eq!(m.locate(1000).map(|l| (l.volume, l.record)), Some((3, 0)));
    }
}
