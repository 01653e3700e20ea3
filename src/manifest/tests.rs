//! The manifest's own rules: its file round-trips and refuses what it
//! cannot read; the checker names the first difference, by record with
//! checksums and by segment or digest without; identity by fingerprint.

use super::schema::SEGMENT_RECORDS;
use super::*;
use crate::hash::HashAlg;

const RECORD: usize = 1000;

fn data(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31) ^ seed)
        .collect()
}

/// A ledger that wrote `volumes`, each cut into records of RECORD bytes.
fn written(volumes: &[&[u8]], verify: bool) -> (Manifest, Vec<Option<Vec<u32>>>) {
    let recording = Recording {
        alg: HashAlg::Xxh3,
        verify,
        quiet: true,
    };
    let ledger = Ledger::new(recording, RECORD, "/dev/nst0");
    let mut sums = Vec::new();
    for (i, v) in volumes.iter().enumerate() {
        ledger.begin(i as u32 + 1, "/dev/nst0");
        for r in v.chunks(RECORD) {
            ledger.record(r);
        }
        sums.push(ledger.end_volume(1).unwrap().1);
    }
    (ledger.manifest(true, None), sums)
}

fn check_records(volume: &Volume, sums: Option<Vec<u32>>, read: &[u8]) -> Option<Problem> {
    let mut check = Checker::new(volume.clone(), HashAlg::Xxh3, sums);
    for r in read.chunks(RECORD) {
        check.record(r);
    }
    check.finish()
}

#[test]
fn a_manifest_survives_its_file_and_the_stream_digest_spans_volumes() {
    let (a, b) = (data(5500, 1), data(3000, 2));
    let (m, _) = written(&[&a, &b], false);
    let whole: Vec<u8> = [a.clone(), b].concat();
    assert_eq!(m.stream.bytes, 8500);
    assert_eq!(
        m.stream.digest,
        format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&whole))
    );
    assert_eq!(
        m.volumes[0].records,
        vec![
            schema::RecordRun {
                bytes: 1000,
                count: 5
            },
            schema::RecordRun {
                bytes: 500,
                count: 1
            },
        ]
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.json");
    m.save(&path).unwrap();
    assert_eq!(Manifest::load(&path).unwrap(), m);
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "no temporary left"
    );
}

#[test]
fn a_newer_or_foreign_file_is_refused_by_name() {
    let (m, _) = written(&[&data(10, 0)], false);
    let mut value = serde_json::to_value(&m).unwrap();
    value["version"] = 2.into();
    let newer = Manifest::parse(&value.to_string()).unwrap_err();
    assert_eq!(
        newer.to_string(),
        "is manifest version 2; this tapebuf reads up to version 1"
    );
    let stats = Manifest::parse(r#"{"schema": "tapebuf-stats"}"#).unwrap_err();
    assert_eq!(
        stats.to_string(),
        "is a \"tapebuf-stats\" file, not a tapebuf manifest"
    );
    assert!(Manifest::parse("not json")
        .unwrap_err()
        .to_string()
        .starts_with("is not a tapebuf manifest: "));
}

#[test]
fn with_checksums_the_first_bad_record_is_named() {
    let a = data(10_500, 3);
    let (m, sums) = written(&[&a], true);
    let mut bad = a.clone();
    bad[7001] ^= 1;
    bad[9000] ^= 1;
    let found = check_records(&m.volumes[0], sums[0].clone(), &bad);
    assert_eq!(
        found,
        Some(Problem::BadRecord {
            record: 7,
            at: 7000
        })
    );
    assert_eq!(check_records(&m.volumes[0], sums[0].clone(), &a), None);
}

#[test]
fn without_checksums_a_difference_is_placed_in_its_segment_or_by_the_digest() {
    let len = RECORD * (SEGMENT_RECORDS as usize + 10);
    let a = data(len, 4);
    let (m, _) = written(&[&a], false);
    let v = &m.volumes[0];
    let mut in_first = a.clone();
    in_first[RECORD * 5] ^= 1;
    let end = RECORD as u64 * SEGMENT_RECORDS;
    assert_eq!(
        check_records(v, None, &in_first),
        Some(Problem::BadSegment { from: 0, to: end })
    );
    let mut in_last = a.clone();
    in_last[len - 1] ^= 1;
    assert_eq!(
        check_records(v, None, &in_last),
        Some(Problem::BadSegment {
            from: end,
            to: len as u64
        })
    );
}

#[test]
fn short_long_and_resized_volumes_are_told_apart() {
    let a = data(4500, 5);
    let (m, sums) = written(&[&a], true);
    let v = &m.volumes[0];
    assert_eq!(
        check_records(v, sums[0].clone(), &a[..3000]),
        Some(Problem::Short {
            got: 3000,
            expected: 4500
        })
    );
    let mut check = Checker::new(v.clone(), HashAlg::Xxh3, sums[0].clone());
    for r in a.chunks(RECORD) {
        check.record(r);
    }
    check.record(&data(1000, 6));
    assert_eq!(check.finish(), Some(Problem::Long { expected: 4500 }));
    let mut check = Checker::new(v.clone(), HashAlg::Xxh3, None);
    check.record(&a[..1000]);
    check.record(&a[1000..3000]);
    assert_eq!(
        check.finish(),
        Some(Problem::RecordSize {
            record: 1,
            at: 1000,
            got: 2000,
            expected: 1000
        })
    );
    // A file is read in any pieces: only the bytes count.
    let mut check = Checker::new(v.clone(), HashAlg::Xxh3, sums[0].clone());
    for piece in a.chunks(777) {
        check.data(piece);
    }
    assert_eq!(check.finish(), None);
}

#[test]
fn the_first_bytes_say_which_volume_a_medium_is() {
    let (a, b) = (data(3000, 7), data(3000, 8));
    let (m, _) = written(&[&a, &b], false);
    assert_eq!(m.volumes[0].fingerprint.bytes, RECORD as u64);
    assert_eq!(m.identify(&b[..RECORD], 1), Identity::Volume(2));
    assert_eq!(m.identify(&a, 1), Identity::Volume(1));
    assert_eq!(m.identify(&data(2000, 9), 1), Identity::Stranger);
    assert_eq!(m.identify(&a[..10], 1), Identity::Unknown);
    assert_eq!(
        m.wrong_volume_line(&Identity::Volume(2), 1, "cartridge"),
        "this is volume 2 of the backup, volume 1 was expected"
    );
    assert_eq!(
        m.wrong_volume_line(&Identity::Stranger, 1, "cartridge"),
        "this cartridge is not part of this backup"
    );
    // Without checksums, a medium whose first bytes are another's is
    // named so at once.
    let mut check = Checker::new(m.volumes[0].clone(), HashAlg::Xxh3, None);
    check.record(&b[..RECORD]);
    assert!(check.failed());
    assert_eq!(check.finish(), Some(Problem::NotThisVolume));
}
