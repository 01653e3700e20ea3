//! Reading a volume back and comparing it with what was written: record
//! by record when the per-record checksums of this run are at hand
//! (`--verify`), else segment by segment from the manifest (`tapebuf
//! verify`, a restore with `--manifest`), and always the volume's
//! fingerprint, its size, its record sizes on a tape, and its digest.
//!
//! The first difference is kept and named by its byte offset in the
//! volume; the caller may stop reading once `failed` says so.

use xxhash_rust::xxh3::Xxh3;

use super::schema::Volume;
use super::tally::{Checksums, Fingerprinting, Segments};
use crate::hash::{HashAlg, Hasher};

/// The first way a volume read back differs from what was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// Its first bytes are not this volume's.
    NotThisVolume,
    /// The record at this byte offset differs (its checksum).
    BadRecord { record: u64, at: u64 },
    /// A difference somewhere in these bytes (a segment's digest, or the
    /// volume's digest after the last whole segment).
    BadSegment { from: u64, to: u64 },
    /// A tape record of the wrong size.
    RecordSize {
        record: u64,
        at: u64,
        got: u64,
        expected: u64,
    },
    /// The volume ends early.
    Short { got: u64, expected: u64 },
    /// The volume holds more than was written.
    Long { expected: u64 },
}

impl Problem {
    /// The byte offset in the volume where it first differs, if known.
    pub fn first_bad_byte(&self) -> Option<u64> {
        match self {
            Problem::NotThisVolume => Some(0),
            Problem::BadRecord { at, .. } | Problem::RecordSize { at, .. } => Some(*at),
            Problem::BadSegment { from, .. } => Some(*from),
            Problem::Short { got, .. } => Some(*got),
            Problem::Long { expected } => Some(*expected),
        }
    }

    /// What a person reads: "record 12 at byte 786432 differs".
    pub fn describe(&self) -> String {
        match self {
            Problem::NotThisVolume => "its first bytes are not this volume's".into(),
            Problem::BadRecord { record, at } => {
                format!("differs in record {record}, which starts at byte {at} of the volume")
            }
            Problem::BadSegment { from, to } => {
                format!("differs between bytes {from} and {to} of the volume")
            }
            Problem::RecordSize {
                record,
                at,
                got,
                expected,
            } => {
                format!("record {record} at byte {at} is {got} bytes long; {expected} were written")
            }
            Problem::Short { got, expected } => {
                format!("ends after {got} bytes; {expected} were written")
            }
            Problem::Long { expected } => {
                format!("holds more than the {expected} bytes written")
            }
        }
    }
}

/// A volume under comparison.
pub struct Checker {
    expected: Volume,
    checksums: Option<Checksums>,
    /// The bytes seen.
    offset: u64,
    /// The expected record the next byte belongs to, and how much of it
    /// was seen.
    record: u64,
    in_record: u64,
    /// The record's own checksum under way, when there are checksums.
    record_hasher: Option<Xxh3>,
    segments: Segments,
    digest: Hasher,
    fingerprint: Fingerprinting,
    problem: Option<Problem>,
}

impl Checker {
    /// Compares against `expected`, digested with `alg`; `checksums` are
    /// the per-record checksums of the run that wrote it, if at hand.
    pub fn new(expected: Volume, alg: HashAlg, checksums: Option<Checksums>) -> Checker {
        let fingerprint = Fingerprinting::new(Some(expected.fingerprint.bytes));
        let record_hasher = checksums.as_ref().map(|_| Xxh3::new());
        Checker {
            expected,
            checksums,
            offset: 0,
            record: 0,
            in_record: 0,
            record_hasher,
            segments: Segments::default(),
            digest: Hasher::new(alg),
            fingerprint,
            problem: None,
        }
    }

    pub fn expected(&self) -> &Volume {
        &self.expected
    }

    /// True once a difference was found: reading on changes nothing.
    pub fn failed(&self) -> bool {
        self.problem.is_some()
    }

    /// The bytes compared so far.
    pub fn bytes(&self) -> u64 {
        self.offset
    }

    fn fail(&mut self, problem: Problem) {
        if self.problem.is_none() {
            self.problem = Some(problem);
        }
    }

    /// One tape record, which must have its written size.
    pub fn record(&mut self, data: &[u8]) {
        if self.failed() {
            return;
        }
        match self.expected.record_bytes(self.record) {
            None => self.fail(Problem::Long {
                expected: self.expected.bytes,
            }),
            Some(size) if size != data.len() as u64 => self.fail(Problem::RecordSize {
                record: self.record,
                at: self.offset,
                got: data.len() as u64,
                expected: size,
            }),
            Some(_) => self.data(data),
        }
    }

    /// The volume's next bytes, in any pieces (a file).
    pub fn data(&mut self, mut data: &[u8]) {
        while !data.is_empty() && !self.failed() {
            let Some(size) = self.expected.record_bytes(self.record) else {
                self.fail(Problem::Long {
                    expected: self.expected.bytes,
                });
                return;
            };
            let take = (size - self.in_record).min(data.len() as u64) as usize;
            let (piece, rest) = data.split_at(take);
            if let Some(hasher) = self.record_hasher.as_mut() {
                hasher.update(piece);
            }
            self.digest.update(piece);
            // With per-record checksums a bad first record is named as
            // such; without them the fingerprint says whose volume it is.
            if self.checksums.is_none() && !self.fingerprint.is_done() {
                self.fingerprint.add(piece);
                if self.fingerprint.is_done()
                    && self.fingerprint.finish() != self.expected.fingerprint
                {
                    self.fail(Problem::NotThisVolume);
                }
            }
            self.in_record += take as u64;
            self.offset += take as u64;
            data = rest;
            if self.in_record == size {
                self.end_record(size);
            }
        }
    }

    fn end_record(&mut self, size: u64) {
        if let Some(hasher) = self.record_hasher.as_mut() {
            let sum = hasher.digest();
            *hasher = Xxh3::new();
            let expected = self
                .checksums
                .as_ref()
                .and_then(|c| c.get(self.record as usize));
            if expected.is_some_and(|e| *e != sum as u32) {
                let at = self.offset - size;
                self.fail(Problem::BadRecord {
                    record: self.record,
                    at,
                });
            }
        }
        if self.segments.add(&self.digest) {
            self.check_segment(self.segments.done.len() - 1);
        }
        self.record += 1;
        self.in_record = 0;
    }

    /// Segment `index` just closed: compare it.
    fn check_segment(&mut self, index: usize) {
        let got = &self.segments.done[index];
        if self.expected.segments.get(index) != Some(got) {
            let from = self.segment_start(index);
            let to = self.offset;
            self.fail(Problem::BadSegment { from, to });
        }
    }

    /// The byte offset where segment `index` begins.
    fn segment_start(&self, index: usize) -> u64 {
        self.record_offset(index as u64 * self.expected.segment_records)
    }

    /// The byte offset of record `index`.
    fn record_offset(&self, mut index: u64) -> u64 {
        let mut at = 0;
        for run in &self.expected.records {
            let n = index.min(run.count);
            at += n * run.bytes;
            index -= n;
        }
        at
    }

    /// The end of the volume (a filemark, or the end of the file): the
    /// first difference, if there is one.
    pub fn finish(mut self) -> Option<Problem> {
        if let Some(p) = self.problem.take() {
            return Some(p);
        }
        if self.offset < self.expected.bytes {
            return Some(Problem::Short {
                got: self.offset,
                expected: self.expected.bytes,
            });
        }
        // The digest covers the stretch after the last whole segment.
        let from = self.segment_start(self.segments.done.len());
        let to = self.offset;
        (self.digest.finish() != self.expected.digest).then_some(Problem::BadSegment { from, to })
    }
}
