//! The catalog's tail and record checksums: they read back as written,
//! every cut of a file holding them is refused, and hostile counts and
//! lengths are refused with the offset named, without allocating them.

use std::io;
use std::path::Path;

use crate::archive::Format;

use super::layout::{Footer, FOOTER_BYTES};
use super::round_trip_tests::walk;
use super::{Catalog, CatalogExtras, CatalogWriter};

fn extras() -> CatalogExtras {
    CatalogExtras {
        globals: vec![(0, 1024), (5120, 6144)],
        trailer: Some((9000, 9124)),
        end: Some(10240),
        volumes: vec![(1, 5), (2, 0), (3, 2)],
        keys: vec![(1, "tapebuf:AAAA".into()), (3, "tapebuf:BBBB".into())],
    }
}

/// The sums of `extras`: record r of volume v is `v * 1000 + r`.
fn sums(extras: &CatalogExtras) -> Vec<u8> {
    let mut out = Vec::new();
    for (v, records) in &extras.volumes {
        for r in 0..*records {
            out.extend_from_slice(&(v * 1000 + r as u32).to_le_bytes());
        }
    }
    out
}

fn write_with(path: &Path, extras: &CatalogExtras) -> Vec<u8> {
    let mut w = CatalogWriter::create(path, Format::Pax).unwrap();
    for m in walk(300) {
        w.add(&m).unwrap();
    }
    let bytes = sums(extras);
    let summary = w.finish_with(extras, &mut bytes.as_slice()).unwrap();
    let file = std::fs::read(path).unwrap();
    assert_eq!(summary.bytes, file.len() as u64);
    file
}

#[test]
fn globals_trailer_end_and_record_sums_read_back_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.catalog");
    write_with(&path, &extras());
    let catalog = Catalog::open(&path).unwrap();
    assert_eq!(catalog.globals(), &[(0, 1024), (5120, 6144)]);
    assert_eq!(catalog.trailer(), Some((9000, 9124)));
    assert_eq!(catalog.end(), Some(10240));
    assert_eq!(catalog.volumes_with_sums(), vec![(1, 5), (2, 0), (3, 2)]);
    assert_eq!(catalog.record_sums(1, 1, 3).unwrap(), [1001, 1002, 1003]);
    assert_eq!(catalog.record_sums(3, 0, 2).unwrap(), [3000, 3001]);
    assert_eq!(catalog.record_sums(2, 0, 0).unwrap(), Vec::<u32>::new());
    assert_eq!(catalog.members().count(), 300);
    let keys = [
        (1, "tapebuf:AAAA".to_string()),
        (3, "tapebuf:BBBB".to_string()),
    ];
    assert_eq!(catalog.volume_keys(), keys);
}

#[test]
fn a_catalog_with_keys_is_version_3_and_one_without_stays_version_2() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.catalog");
    let with = write_with(&path, &extras());
    assert_eq!(u16::from_le_bytes([with[16], with[17]]), 3);
    let plain = CatalogExtras {
        keys: Vec::new(),
        ..extras()
    };
    let without = write_with(&path, &plain);
    assert_eq!(u16::from_le_bytes([without[16], without[17]]), 2);
    assert!(Catalog::open(&path).unwrap().volume_keys().is_empty());
}

#[test]
fn record_sums_out_of_range_or_of_a_volume_without_them_say_which() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.catalog");
    write_with(&path, &extras());
    let catalog = Catalog::open(&path).unwrap();
    let err = catalog.record_sums(4, 0, 1).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::NotFound);
    assert!(
        err.to_string().contains("no record checksums for volume 4"),
        "{err}"
    );
    let err = catalog.record_sums(1, 4, 2).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
    assert!(
        err.to_string()
            .contains("records 4..6 of volume 1, which has 5"),
        "{err}"
    );
    let err = catalog.record_sums(1, u64::MAX, 2).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
}

#[test]
fn a_catalog_without_extras_has_none() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.catalog");
    write_with(&path, &CatalogExtras::default());
    let catalog = Catalog::open(&path).unwrap();
    assert!(catalog.globals().is_empty());
    assert_eq!((catalog.trailer(), catalog.end()), (None, None));
    assert!(catalog.volumes_with_sums().is_empty());
}

#[test]
fn sums_shorter_than_the_volume_table_are_refused_and_leave_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.catalog");
    let w = CatalogWriter::create(&path, Format::Pax).unwrap();
    let short = [0u8; 12];
    let err = w.finish_with(&extras(), &mut short.as_slice()).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "{err}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn every_truncation_of_a_catalog_with_extras_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = write_with(&dir.path().join("good.catalog"), &extras());
    let path = dir.path().join("cut.catalog");
    for len in (0..bytes.len())
        .step_by(7)
        .chain(bytes.len() - 100..bytes.len())
    {
        std::fs::write(&path, &bytes[..len]).unwrap();
        let err = Catalog::open(&path).err().expect("cut");
        assert_eq!(err.kind(), io::ErrorKind::InvalidData, "{len}: {err}");
    }
}

/// The file with its tail replaced by `tail` (footer fixed to match).
fn with_tail(bytes: &[u8], tail: &[u8]) -> Vec<u8> {
    let at = bytes.len() - FOOTER_BYTES as usize;
    let footer = Footer::decode(&bytes[at..]).unwrap();
    let start = (footer.index_offset + footer.index_bytes) as usize;
    let mut out = bytes[..start].to_vec();
    out.extend_from_slice(tail);
    let fixed = Footer {
        tail_bytes: tail.len() as u64,
        tail_checksum: xxhash_rust::xxh3::xxh3_64(tail),
        ..footer
    };
    out.extend_from_slice(&fixed.encode());
    out
}

#[test]
fn a_tail_claiming_huge_counts_or_disorder_is_refused_naming_its_offset() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = write_with(&dir.path().join("good.catalog"), &extras());
    let good_tail = extras().encode();
    let mut huge_globals = good_tail.clone();
    huge_globals[..4].copy_from_slice(&u32::MAX.to_le_bytes());
    let disordered = CatalogExtras {
        globals: vec![(5120, 6144), (0, 1024)],
        ..extras()
    };
    let backwards_volumes = CatalogExtras {
        volumes: vec![(3, 2), (2, 0), (1, 5)],
        ..extras()
    };
    let more_records = CatalogExtras {
        volumes: vec![(1, 5), (2, 0), (3, u64::MAX / 2)],
        ..extras()
    };
    let mut flag = good_tail.clone();
    flag[4 + 32] = 7;
    let mut extra_byte = good_tail.clone();
    extra_byte.push(0);
    let hostile = [
        huge_globals,
        disordered.encode(),
        backwards_volumes.encode(),
        more_records.encode(),
        flag,
        extra_byte,
        good_tail[..good_tail.len() - 1].to_vec(),
    ];
    let path = dir.path().join("hostile.catalog");
    for (i, tail) in hostile.iter().enumerate() {
        std::fs::write(&path, with_tail(&bytes, tail)).unwrap();
        let err = Catalog::open(&path).err().expect("refused");
        assert_eq!(err.kind(), io::ErrorKind::InvalidData, "{i}: {err}");
        assert!(err.to_string().contains("tail at byte "), "{i}: {err}");
    }
    std::fs::write(&path, with_tail(&bytes, &good_tail)).unwrap();
    Catalog::open(&path).expect("the good tail, put back, reads");
}

#[test]
fn a_footer_whose_sums_do_not_fit_the_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = write_with(&dir.path().join("good.catalog"), &extras());
    let at = bytes.len() - FOOTER_BYTES as usize;
    let footer = Footer::decode(&bytes[at..]).unwrap();
    let claims = [
        Footer {
            sums_bytes: u64::MAX,
            ..footer
        },
        Footer {
            sums_offset: footer.sums_offset + 4,
            ..footer
        },
        Footer {
            sums_bytes: footer.sums_bytes - 1,
            sums_offset: footer.sums_offset + 1,
            ..footer
        },
        Footer {
            tail_bytes: u64::MAX,
            ..footer
        },
    ];
    let path = dir.path().join("hostile.catalog");
    for claim in claims {
        bytes[at..].copy_from_slice(&claim.encode());
        std::fs::write(&path, &bytes).unwrap();
        let err = Catalog::open(&path).err().expect("refused");
        assert_eq!(err.kind(), io::ErrorKind::InvalidData, "{err}");
    }
}
