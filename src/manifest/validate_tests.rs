//! A manifest read back is checked before use: each hostile field is
//! refused by name, and a large honest manifest is still read.

use super::schema::{RecordRun, SEGMENT_RECORDS};
use super::validate::MAX_FILE_BYTES;
use super::*;
use crate::hash::HashAlg;

/// A manifest of two volumes of 3000 and 1500 bytes in 1000-byte records.
fn honest() -> Manifest {
    let recording = Recording {
        alg: HashAlg::Xxh3,
        verify: false,
        quiet: true,
    };
    let ledger = Ledger::new(recording, 1000, "/dev/nst0");
    for (n, len) in [(1, 3000), (2, 1500)] {
        ledger.begin(n, "/dev/nst0");
        for r in vec![7u8; len].chunks(1000) {
            ledger.record(r);
        }
        ledger.end_volume(1);
    }
    ledger.manifest(true, None)
}

/// What parsing `m`, changed by `edit`, says.
fn refusal(edit: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut value = serde_json::to_value(honest()).unwrap();
    edit(&mut value);
    Manifest::parse(&value.to_string()).unwrap_err().to_string()
}

#[test]
fn an_honest_manifest_passes_its_own_checks() {
    let m = honest();
    assert_eq!(m.validate(), Ok(()));
    assert_eq!(
        Manifest::parse(&serde_json::to_string(&m).unwrap()).unwrap(),
        m
    );
}

#[test]
fn a_huge_fingerprint_is_refused_before_anything_is_allocated_for_it() {
    let why =
        refusal(|m| m["volumes"][0]["fingerprint"]["bytes"] = 1_000_000_000_000_000u64.into());
    assert_eq!(
        why,
        "volumes[0].fingerprint.bytes: 1000000000000000 is more than the 65536 bytes a fingerprint covers"
    );
    let why = refusal(|m| m["volumes"][1]["fingerprint"]["bytes"] = 1001.into());
    assert_eq!(
        why,
        "volumes[1].fingerprint.bytes: 1001 is more than the volume's first record (1000 bytes), which a fingerprint never goes past"
    );
}

#[test]
fn volumes_are_numbered_from_one_without_gaps_or_repeats() {
    let repeat = refusal(|m| m["volumes"][1]["number"] = 1.into());
    assert_eq!(
        repeat,
        "volumes[1].number: 1, but the volumes are numbered 1, 2, 3, ... in order, so this one is 2"
    );
    let gap = refusal(|m| m["volumes"][1]["number"] = 3.into());
    assert!(gap.starts_with("volumes[1].number: 3, but "), "{gap}");
    let none = refusal(|m| {
        m["volumes"] = serde_json::json!([]);
        m["stream"]["bytes"] = 0.into();
    });
    assert_eq!(
        none,
        "volumes: is empty; every backup tapebuf records has a volume 1"
    );
}

#[test]
fn the_volumes_must_add_up_to_the_stream() {
    let missing = refusal(|m| {
        m["volumes"].as_array_mut().unwrap().pop();
    });
    assert_eq!(
        missing,
        "stream.bytes: 4500 is not the 3000 bytes the 1 volume entries hold; a volume's entry is missing or wrong"
    );
    let one = refusal(|m| m["stream"]["bytes"] = 1.into());
    assert_eq!(
        one,
        "stream.bytes: 1 is not the 4500 bytes the 2 volume entries hold; a volume's entry is missing or wrong"
    );
    let records = refusal(|m| m["volumes"][0]["bytes"] = 2999.into());
    assert_eq!(
        records,
        "volumes[0].records: hold more than the volume's 2999 bytes"
    );
    let overflow = refusal(|m| {
        m["volumes"][0]["records"][0] = serde_json::json!({"bytes": 1000, "count": u64::MAX})
    });
    assert_eq!(
        overflow,
        "volumes[0].records: hold more than the volume's 3000 bytes"
    );
}

#[test]
fn only_known_algorithms_and_versions_are_read() {
    assert_eq!(
        refusal(|m| m["digest_algorithm"] = "bogus".into()),
        "digest_algorithm: \"bogus\" is not an algorithm this tapebuf knows (md5, sha256, blake3, xxh3)"
    );
    assert_eq!(
        refusal(|m| m["version"] = 0.into()),
        "version: 0 is not a manifest version; this tapebuf reads version 1"
    );
    assert_eq!(
        refusal(|m| m["version"] = "1".into()),
        "version: \"1\" is not a manifest version; this tapebuf reads version 1"
    );
    assert_eq!(
        refusal(|m| m["digest_algorithm"] = "sha256".into()),
        "stream.digest: \"".to_string()
            + &honest().stream.digest
            + "\" is not 64 lowercase hex digits"
    );
}

#[test]
fn numbers_and_texts_beyond_any_real_backup_are_refused() {
    assert_eq!(
        refusal(|m| m["block_bytes"] = 0.into()),
        "block_bytes: 0 is not a block size tapebuf writes (512 to 1073741824 bytes)"
    );
    assert_eq!(
        refusal(|m| m["volumes"][0]["name"] = "x".repeat(20_000).into()),
        "volumes[0].name: is 20000 bytes long; no field tapebuf writes is longer than 16384"
    );
    assert_eq!(
        refusal(|m| m["volumes"][0]["segment_records"] = 1.into()),
        "volumes[0].segment_records: 1 is not the 4096 records per segment this tapebuf writes and checks"
    );
    assert_eq!(
        refusal(|m| m["volumes"][0]["segments"] = serde_json::json!(["0123456789abcdef"])),
        "volumes[0].segments: holds 1 digests; the volume's 3 records make 0 whole segments of 4096"
    );
    assert_eq!(
        refusal(|m| m["volumes"][0]["filemarks"] = 4_000_000_000u32.into()),
        "volumes[0].filemarks: 4000000000 is more than the 2 a volume ends with"
    );
}

#[test]
fn a_file_over_the_bound_is_refused_before_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.json");
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(MAX_FILE_BYTES + 1).unwrap();
    assert_eq!(
        Manifest::load(&path).unwrap_err().to_string(),
        "is 67108865 bytes; a manifest is at most 67108864 bytes (64 MiB, see tapebuf(1), MANIFESTS)"
    );
}

/// `volumes` volumes of `segments` whole segments of 256 KiB records
/// each, as a backup would record them.
pub fn large(volumes: u32, segments: u64) -> Manifest {
    let mut m = honest();
    let template = m.volumes[0].clone();
    let records = segments * SEGMENT_RECORDS;
    let bytes = records * 256 * 1024;
    m.block_bytes = 256 * 1024;
    m.volumes = (1..=volumes)
        .map(|n| {
            let mut v = template.clone();
            v.number = n;
            v.name = format!("/dev/nst0 cartridge {n:05}");
            v.bytes = bytes;
            v.records = vec![RecordRun {
                bytes: 256 * 1024,
                count: records,
            }];
            v.fingerprint.bytes = 65536;
            v.segments = (0..segments)
                .map(|s| format!("{:016x}", s * 7919 + u64::from(n)))
                .collect();
            v
        })
        .collect();
    m.stream.bytes = bytes * u64::from(volumes);
    m
}

#[test]
fn a_large_honest_manifest_of_ten_thousand_volumes_is_read() {
    // 10,000 volumes of 100 segments each: 4.3 PB in 256 KiB records.
    let m = large(10_000, 100);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.json");
    m.save(&path).unwrap();
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(size < MAX_FILE_BYTES, "{size} bytes");
    let read = Manifest::load(&path).unwrap();
    assert_eq!(read.volumes.len(), 10_000);
    assert_eq!(read.stream.bytes, m.stream.bytes);
}
