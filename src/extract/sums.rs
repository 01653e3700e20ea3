//! The per-record checksums a record read back is held to: the low 32
//! bits of XXH3-64 of the record's bytes, as the backup committed them
//! (the catalog keeps them, volume by volume). They are asked for in
//! batches as reading goes on, never all at once.

use std::io;

/// Records asked for at once.
const BATCH_RECORDS: u64 = 4096;

/// Where the checksums of a backup's records are kept.
pub trait RecordSums {
    /// The checksums of records `first..first + count` of `volume`, or an
    /// error naming what is missing: a record is never left unchecked.
    fn sums(&self, volume: u32, first: u64, count: u64) -> io::Result<Vec<u32>>;
}

/// The checksums of one batch of records, fetched as reading reaches them.
pub struct SumCache<'a> {
    source: &'a dyn RecordSums,
    volume: u32,
    first: u64,
    sums: Vec<u32>,
}

impl<'a> SumCache<'a> {
    pub fn new(source: &'a dyn RecordSums) -> SumCache<'a> {
        SumCache {
            source,
            volume: 0,
            first: 0,
            sums: Vec::new(),
        }
    }

    /// The checksum of `record` of `volume` (which has `records`
    /// records).
    pub fn get(&mut self, volume: u32, record: u64, records: u64) -> io::Result<u32> {
        let held = self.volume == volume
            && record >= self.first
            && record - self.first < self.sums.len() as u64;
        if !held {
            let count = BATCH_RECORDS.min(records.saturating_sub(record)).max(1);
            let sums = self.source.sums(volume, record, count)?;
            if sums.len() as u64 != count {
                return Err(io::Error::other(format!(
                    "the catalog gave {} checksums for {count} records of volume {volume} from record {record}",
                    sums.len()
                )));
            }
            (self.volume, self.first, self.sums) = (volume, record, sums);
        }
        Ok(self.sums[(record - self.first) as usize])
    }
}

impl RecordSums for crate::catalog::Catalog {
    /// A catalog written by `--catalog` keeps every record's checksum; a
    /// volume or record it lacks is an error, never a record left unchecked.
    fn sums(&self, volume: u32, first: u64, count: u64) -> io::Result<Vec<u32>> {
        self.record_sums(volume, first, count)
    }
}
