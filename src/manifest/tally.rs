//! Counting one volume as it is written: its records, its digest, its
//! fingerprint and segment digests, and (for `--verify`) a 4-byte
//! checksum per record, so that a read-back names the first bad record.
//!
//! Every record is hashed once into the volume's digest, right after the
//! write that committed it, while its bytes are still in the CPU's cache;
//! with `--verify` it is hashed once more, alone, for its checksum. The
//! segment digests are snapshots of the running digest, which cost no
//! pass of their own.

use xxhash_rust::xxh3::{xxh3_64, Xxh3};

use super::schema::{Fingerprint, RecordRun, Volume, FINGERPRINT_MAX_BYTES, SEGMENT_RECORDS};
use crate::hash::{HashAlg, Hasher};
use crate::keys::tape_key::KeyPrint;
use crate::tape::drive::Protection;
use crate::tape::scsi::pages::protection::Method;

/// The per-record checksums `--verify` compares against: the low 32 bits
/// of each record's XXH3-64, in order.
pub type Checksums = Vec<u32>;

/// A record's checksum, as `--verify` and the catalog keep it and as a
/// record read back is held to: the low 32 bits of its XXH3-64.
pub fn record_checksum(record: &[u8]) -> u32 {
    xxh3_64(record) as u32
}

/// Segment digests: the volume's running digest, taken after every
/// `SEGMENT_RECORDS` records, so that a later check can say in which
/// stretch a volume first differs without a second pass over the bytes.
#[derive(Clone, Default)]
pub struct Segments {
    records: u64,
    pub done: Vec<String>,
}

impl Segments {
    /// One more record ended; `digest` is the running digest after it.
    /// True when a segment closed.
    pub fn add(&mut self, digest: &Hasher) -> bool {
        self.records += 1;
        if self.records.is_multiple_of(SEGMENT_RECORDS) {
            self.done.push(digest.clone().finish());
            return true;
        }
        false
    }
}

/// A fingerprint under way: XXH3-64 of a volume's first bytes.
#[derive(Clone)]
pub struct Fingerprinting {
    hasher: Xxh3,
    want: Option<u64>,
    got: u64,
}

impl Fingerprinting {
    /// A fingerprint of the first `want` bytes, or, with None, of the
    /// first record's first bytes (at most 64 KiB).
    pub fn new(want: Option<u64>) -> Fingerprinting {
        Fingerprinting {
            hasher: Xxh3::new(),
            want,
            got: 0,
        }
    }

    /// Takes the next bytes. The first call bounds a fingerprint of
    /// unknown length: it begins the volume's first record.
    pub fn add(&mut self, data: &[u8]) {
        let want = *self
            .want
            .get_or_insert_with(|| FINGERPRINT_MAX_BYTES.min(data.len() as u64));
        let take = want.saturating_sub(self.got).min(data.len() as u64) as usize;
        self.hasher.update(&data[..take]);
        self.got += take as u64;
    }

    /// True once every byte it covers was seen.
    pub fn is_done(&self) -> bool {
        self.want.is_some_and(|w| self.got >= w)
    }

    pub fn finish(&self) -> Fingerprint {
        Fingerprint {
            bytes: self.got,
            xxh3: format!("{:016x}", self.hasher.digest()),
        }
    }
}

/// Adds one record of `bytes` to run-length `runs`.
pub fn add_run(runs: &mut Vec<RecordRun>, bytes: u64) {
    match runs.last_mut() {
        Some(run) if run.bytes == bytes => run.count += 1,
        _ => runs.push(RecordRun { bytes, count: 1 }),
    }
}

/// One volume being written.
pub struct Tally {
    number: u32,
    name: String,
    bytes: u64,
    runs: Vec<RecordRun>,
    digest: Hasher,
    fingerprint: Fingerprinting,
    segments: Segments,
    checksums: Option<Checksums>,
    /// The drive's block address of the first record, when it said.
    first_block: Option<u64>,
    /// The logical block protection the drive wrote it with.
    lbp: Option<Method>,
    /// The fingerprint of the key the drive encrypted it with.
    key: Option<KeyPrint>,
}

impl Tally {
    /// Volume `number` on `name`; `keep_checksums` for `--verify`.
    pub fn new(number: u32, name: &str, alg: HashAlg, keep_checksums: bool) -> Tally {
        Tally {
            number,
            name: name.to_string(),
            bytes: 0,
            runs: Vec::new(),
            digest: Hasher::new(alg),
            fingerprint: Fingerprinting::new(None),
            segments: Segments::default(),
            checksums: keep_checksums.then(Vec::new),
            first_block: None,
            lbp: None,
            key: None,
        }
    }

    /// The drive's block address of the volume's first record, and the
    /// logical block protection and key it is written with.
    pub fn set_tape_start(&mut self, block: Option<u64>, guarded: Option<&Protection>) {
        self.first_block = block;
        self.lbp = guarded.and_then(|p| p.method);
        self.key = guarded.and_then(|p| p.key);
    }

    /// One record (a tape) or write (a file), as committed, with its
    /// checksum when the caller has it already.
    pub fn record(&mut self, data: &[u8], checksum: Option<u32>) {
        if data.is_empty() {
            return;
        }
        if let Some(sums) = self.checksums.as_mut() {
            sums.push(checksum.unwrap_or_else(|| record_checksum(data)));
        }
        if !self.fingerprint.is_done() {
            self.fingerprint.add(data);
        }
        self.digest.update(data);
        self.segments.add(&self.digest);
        self.bytes += data.len() as u64;
        add_run(&mut self.runs, data.len() as u64);
    }

    /// The running digest, for a stream digest that spans volumes.
    pub fn digest_state(&self) -> &Hasher {
        &self.digest
    }

    pub fn number(&self) -> u32 {
        self.number
    }

    /// The volume's facts as of now, for the manifest of a run that ends
    /// while it is being written.
    pub fn snapshot(&self, filemarks: u32, complete: bool) -> Volume {
        Volume {
            number: self.number,
            name: self.name.clone(),
            bytes: self.bytes,
            records: self.runs.clone(),
            filemarks,
            digest: self.digest.clone().finish(),
            fingerprint: self.fingerprint.finish(),
            segment_records: SEGMENT_RECORDS,
            segments: self.segments.done.clone(),
            complete,
            verified: None,
            barcode: None,
            slot: None,
            health: None,
            first_block: self.first_block,
            lbp: self.lbp.map(|m| m.name().to_string()),
            key: self.key.map(|k| k.to_string()),
        }
    }

    /// The finished volume's facts, and its per-record checksums when
    /// they were kept.
    pub fn finish(mut self, filemarks: u32) -> (Volume, Option<Checksums>) {
        let checksums = self.checksums.take();
        (self.snapshot(filemarks, true), checksums)
    }
}
