//! A backup made in memory for the unit tests: the stream, its volumes
//! as records, and the manifest that describes them.

use crate::manifest::schema::{Fingerprint, RecordRun, Stream};
use crate::manifest::{Manifest, Volume};

/// The stream and its volumes' records.
pub struct TestBackup {
    pub stream: Vec<u8>,
    pub volumes: Vec<Vec<Vec<u8>>>,
    pub manifest: Manifest,
}

/// Deterministic bytes.
pub fn bytes(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

impl TestBackup {
    /// Volumes of records of the lengths given, filled from one stream.
    pub fn new(layout: &[&[usize]]) -> TestBackup {
        let total: usize = layout.iter().flat_map(|v| v.iter()).sum();
        let stream = bytes(total, 7);
        let mut at = 0;
        let mut volumes = Vec::new();
        let mut described = Vec::new();
        for (i, records) in layout.iter().enumerate() {
            let mut recs = Vec::new();
            for &len in records.iter() {
                recs.push(stream[at..at + len].to_vec());
                at += len;
            }
            described.push(volume(i as u32 + 1, &recs));
            volumes.push(recs);
        }
        let manifest = Manifest {
            schema: String::new(),
            version: 1,
            tapebuf_version: String::new(),
            started: String::new(),
            ended: String::new(),
            clean: true,
            unclean_because: None,
            block_bytes: 100,
            output: String::new(),
            digest_algorithm: "xxh3".into(),
            stream: Stream {
                bytes: total as u64,
                digest: String::new(),
            },
            volumes: described,
            catalog: None,
        };
        TestBackup {
            stream,
            volumes,
            manifest,
        }
    }
}

/// A volume of `records`, its fingerprint its first record.
fn volume(number: u32, records: &[Vec<u8>]) -> Volume {
    let runs = records
        .iter()
        .map(|r| RecordRun {
            bytes: r.len() as u64,
            count: 1,
        })
        .collect();
    let first = records.first().cloned().unwrap_or_default();
    Volume {
        number,
        name: format!("v{number}"),
        bytes: records.iter().map(|r| r.len() as u64).sum(),
        records: runs,
        filemarks: 1,
        digest: String::new(),
        fingerprint: Fingerprint {
            bytes: first.len() as u64,
            xxh3: format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&first)),
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
