//! A damaged or hostile catalog is refused with a reason: never a panic,
//! never an allocation the file's size does not justify.

use std::path::Path;

use crate::archive::Format;

use super::layout::{Footer, FOOTER_BYTES};
use super::round_trip_tests::{walk, write};
use super::Catalog;

/// Opens and lists `path`: Ok with the members, or the first error.
fn list(path: &Path) -> std::io::Result<Vec<crate::archive::Member>> {
    Catalog::open(path)?.members().collect()
}

fn small_catalog(dir: &Path) -> (Vec<u8>, Vec<crate::archive::Member>) {
    let path = dir.join("good.catalog");
    let members = walk(300); // two blocks
    write(&path, Format::Ustar, &members);
    (std::fs::read(&path).unwrap(), members)
}

#[test]
fn every_truncation_of_a_catalog_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let (bytes, _) = small_catalog(dir.path());
    let path = dir.path().join("cut.catalog");
    for len in 0..bytes.len() {
        std::fs::write(&path, &bytes[..len]).unwrap();
        let err = list(&path).expect_err(&format!("cut to {len} bytes"));
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidData, "{len}: {err}");
    }
}

#[test]
fn a_flipped_byte_anywhere_is_an_error_or_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (bytes, members) = small_catalog(dir.path());
    let path = dir.path().join("flipped.catalog");
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut errors = 0;
    for i in 0..bytes.len() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let mut damaged = bytes.clone();
        damaged[i] ^= 1 << (state % 8);
        std::fs::write(&path, &damaged).unwrap();
        match list(&path) {
            Ok(read) => assert_eq!(read, members, "flip at byte {i} went unseen"),
            Err(e) => {
                assert_eq!(e.kind(), std::io::ErrorKind::InvalidData, "{i}: {e}");
                errors += 1;
            }
        }
    }
    // Only the header's informational block target goes unchecked.
    assert!(errors >= bytes.len() - 4, "{errors} of {}", bytes.len());
}

#[test]
fn a_damaged_block_is_named_with_its_offset_after_the_members_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let (mut bytes, members) = small_catalog(dir.path());
    let index_offset = u64::from_le_bytes(
        bytes[bytes.len() - FOOTER_BYTES as usize..][..8]
            .try_into()
            .unwrap(),
    ) as usize;
    let second = u64::from_le_bytes(
        bytes[index_offset + 24 + members[0].path.len()..][..8]
            .try_into()
            .unwrap(),
    );
    bytes[second as usize + 20] ^= 0xff;
    let path = dir.path().join("damaged.catalog");
    std::fs::write(&path, &bytes).unwrap();
    let catalog = Catalog::open(&path).unwrap();
    let results: Vec<_> = catalog.members().collect();
    assert_eq!(
        results.len(),
        257,
        "256 members, then one error, then nothing"
    );
    let err = results[256].as_ref().unwrap_err().to_string();
    assert!(
        err.contains(&format!("block 1 at byte {second}: checksum")),
        "{err}"
    );
}

#[test]
fn a_file_claiming_huge_counts_is_refused_without_allocating_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.catalog");
    let (bytes, _) = small_catalog(dir.path());
    let tail = bytes.len() - FOOTER_BYTES as usize;
    let footer = Footer::decode(&bytes[tail..]).unwrap();
    let claims = [
        Footer {
            blocks: u64::MAX,
            ..footer
        },
        Footer {
            members: u64::MAX,
            ..footer
        },
        Footer {
            index_bytes: u64::MAX - 10,
            ..footer
        },
        Footer {
            index_offset: u64::MAX,
            ..footer
        },
    ];
    for claim in claims {
        let mut hostile = bytes.clone();
        hostile[tail..].copy_from_slice(&claim.encode());
        hostile[24..32].copy_from_slice(&claim.members.to_le_bytes());
        std::fs::write(&path, &hostile).unwrap();
        let err = Catalog::open(&path).err().expect("refused");
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidData, "{err}");
    }
}

#[test]
fn a_block_claiming_more_members_than_its_bytes_hold_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.catalog");
    let (mut bytes, _) = small_catalog(dir.path());
    let tail = bytes.len() - FOOTER_BYTES as usize;
    let footer = Footer::decode(&bytes[tail..]).unwrap();
    let first = footer.index_offset as usize;
    // The first block's count in the index, with a matching checksum.
    bytes[first + 16..first + 20].copy_from_slice(&60_000u32.to_le_bytes());
    let index = &bytes[first..first + footer.index_bytes as usize];
    let fixed = Footer {
        index_checksum: xxhash_rust::xxh3::xxh3_64(index),
        members: footer.members - 256 + 60_000,
        ..footer
    };
    bytes[tail..].copy_from_slice(&fixed.encode());
    bytes[24..32].copy_from_slice(&fixed.members.to_le_bytes());
    std::fs::write(&path, &bytes).unwrap();
    let err = Catalog::open(&path).err().expect("refused").to_string();
    assert!(err.contains("block 0 at byte 32"), "{err}");
}

#[test]
fn a_file_that_is_not_a_catalog_or_is_too_new_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.catalog");
    std::fs::write(&path, vec![b'x'; 200]).unwrap();
    let err = Catalog::open(&path).err().unwrap().to_string();
    assert!(err.contains("not a tapebuf catalog"), "{err}");
    let (mut bytes, _) = small_catalog(dir.path());
    bytes[16] = 4;
    std::fs::write(&path, &bytes).unwrap();
    let err = Catalog::open(&path).err().unwrap().to_string();
    assert!(
        err.contains("catalog version 4, this tapebuf reads versions 1 to 3"),
        "{err}"
    );
}
