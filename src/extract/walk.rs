//! A range of the stream as the records that hold it: each record's
//! volume, index and place in its volume, and which of its bytes belong
//! to the range. A range that runs past a volume's last record goes on
//! with the next volume's record 0 (empty volumes stepped over), so a
//! member that spans volumes is followed onto the next one.

use crate::manifest::{Manifest, Volume};

/// One record of one volume.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordAt {
    /// The volume's number, from 1.
    pub volume: u32,
    /// The record's index on its volume, from 0.
    pub record: u64,
    /// Where the record starts, from the volume's first byte.
    pub offset: u64,
    /// The record's length.
    pub bytes: u64,
    /// The stream offset of its first byte.
    pub stream_offset: u64,
}

/// A record and the part of it that is wanted, `[from, to)` within it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wanted {
    pub at: RecordAt,
    pub from: usize,
    pub to: usize,
}

/// The records holding stream bytes `[start, end)`, in order.
pub struct Walk<'m> {
    manifest: &'m Manifest,
    /// The volume in hand (its index in the manifest) and the next record.
    index: usize,
    next: Option<RecordAt>,
    start: u64,
    end: u64,
    /// The range ran past the last volume here.
    past: Option<u64>,
}

impl<'m> Walk<'m> {
    /// None when `start` is not a byte of the backup.
    pub fn new(manifest: &'m Manifest, start: u64, end: u64) -> Option<Walk<'m>> {
        let location = manifest.locate(start)?;
        let index = manifest
            .volumes
            .iter()
            .position(|v| v.number == location.volume)?;
        let volume = &manifest.volumes[index];
        let at = RecordAt {
            volume: location.volume,
            record: location.record,
            offset: location.record_offset,
            bytes: volume.record_bytes(location.record)?,
            stream_offset: start - (location.volume_offset - location.record_offset),
        };
        Some(Walk {
            manifest,
            index,
            next: Some(at),
            start,
            end,
            past: None,
        })
    }

    /// The record after `at` on the volume in hand, or the first of the
    /// next volume that has one.
    fn after(&mut self, at: &RecordAt) -> Option<RecordAt> {
        let stream_offset = at.stream_offset + at.bytes;
        let volume: &Volume = &self.manifest.volumes[self.index];
        if let Some(bytes) = volume.record_bytes(at.record + 1) {
            return Some(RecordAt {
                record: at.record + 1,
                offset: at.offset + at.bytes,
                bytes,
                stream_offset,
                ..*at
            });
        }
        loop {
            self.index += 1;
            let volume = self.manifest.volumes.get(self.index)?;
            if let Some(bytes) = volume.record_bytes(0) {
                return Some(RecordAt {
                    volume: volume.number,
                    record: 0,
                    offset: 0,
                    bytes,
                    stream_offset,
                });
            }
        }
    }
}

impl Iterator for Walk<'_> {
    /// A record, or the stream offset where the range runs past the
    /// backup's last byte (the catalog and the manifest disagree).
    type Item = Result<Wanted, u64>;

    fn next(&mut self) -> Option<Result<Wanted, u64>> {
        if let Some(past) = self.past.take() {
            return Some(Err(past));
        }
        let at = self.next.take()?;
        if at.stream_offset >= self.end {
            return None;
        }
        let record_end = at.stream_offset + at.bytes;
        let wanted = Wanted {
            at,
            from: self.start.saturating_sub(at.stream_offset) as usize,
            to: (self.end.min(record_end) - at.stream_offset) as usize,
        };
        if record_end < self.end {
            self.next = self.after(&at);
            if self.next.is_none() {
                self.past = Some(record_end);
            }
        }
        Some(Ok(wanted))
    }
}
