//! The trailer's text: written and read back, damaged, from older and
//! later versions.

use crate::volume::trailer::*;

fn sample(ends: Ends) -> Trailer {
    Trailer {
        backup: "0123456789abcdef0123456789abcdef".into(),
        volume: 2,
        ends,
        volume_bytes: 102_760_448,
        stream_bytes: 205_520_896,
        stream_digest: Some(0x0123_4567_89ab_cdef),
    }
}

#[test]
fn a_trailer_reads_back_as_written_and_is_one_small_record() {
    for ends in Ends::ALL {
        let record = sample(ends).encode();
        assert_eq!(record.len(), TRAILER_BYTES);
        assert_eq!(Trailer::parse(&record), Ok(Some(sample(ends))));
    }
}

#[test]
fn a_trailer_is_readable_text() {
    let record = sample(Ends::Continues).encode();
    let text = String::from_utf8_lossy(&record);
    assert!(text.starts_with("tapebuf volume trailer 1\nbackup 0123"));
    assert!(text.contains("\nends continues\n"));
}

#[test]
fn data_is_not_a_trailer() {
    assert_eq!(Trailer::parse(b""), Ok(None));
    assert_eq!(Trailer::parse(&[0u8; 512]), Ok(None));
    assert_eq!(Trailer::parse(b"tapebuf volume trailer 12\n"), Ok(None));
    assert_eq!(
        Trailer::parse(b"ustar  tapebuf volume trailer 1\n"),
        Ok(None)
    );
}

#[test]
fn a_damaged_trailer_says_what_is_wrong() {
    let mut record = sample(Ends::Last).encode();
    let at = record.windows(4).position(|w| w == b"last").unwrap();
    record[at..at + 4].copy_from_slice(b"lost");
    let e = Trailer::parse(&record).unwrap_err();
    assert!(e.contains("bad ends line"), "{e}");
    let e = Trailer::parse(b"tapebuf volume trailer 1\nvolume 1\n").unwrap_err();
    assert!(e.contains("without its backup line"), "{e}");
}

#[test]
fn later_versions_may_add_lines() {
    let mut record = sample(Ends::Last).encode();
    let end = record.iter().position(|&b| b == 0).unwrap();
    record.splice(end..end + 12, b"label SRV01\n".iter().copied());
    assert_eq!(Trailer::parse(&record), Ok(Some(sample(Ends::Last))));
}

#[test]
fn a_trailer_from_before_the_digest_still_reads_without_one() {
    let old = Trailer {
        stream_digest: None,
        ..sample(Ends::Continues)
    };
    let record = old.encode();
    assert!(!String::from_utf8_lossy(&record).contains("stream-xxh3"));
    assert_eq!(Trailer::parse(&record), Ok(Some(old)));
    let text = String::from_utf8_lossy(&sample(Ends::Last).encode()).into_owned();
    assert!(text.contains("\nstream-xxh3 0123456789abcdef\n"), "{text}");
}

#[test]
fn backup_ids_are_hex_and_differ() {
    let a = new_backup_id();
    let b = new_backup_id();
    assert!(is_backup_id(&a) && is_backup_id(&b));
    assert_ne!(a, b);
}
