//! The restore's decisions after each volume (`sequence.rs`), over every
//! ending, with and without a trailer, with the digest agreeing or not.

use super::sequence::{Found, Next, Read, Sequence};
use crate::volume::{Ends, Trailer};

const ID: &str = "0123456789abcdef0123456789abcdef";
const OTHER: &str = "fedcba9876543210fedcba9876543210";

/// The digest of a stream of `volumes` volumes of 100 bytes each, as
/// both the writer and a faithful reader compute it.
fn digest(volumes: u32) -> u64 {
    xxhash_rust::xxh3::xxh3_64(&vec![7u8; 100 * volumes as usize])
}

/// Volume `volume` of 100 bytes, after volumes of 100 bytes each.
fn trailer(volume: u32, ends: Ends) -> Trailer {
    Trailer {
        backup: ID.into(),
        volume,
        ends,
        volume_bytes: 100,
        stream_bytes: 100 * u64::from(volume),
        stream_digest: Some(digest(volume)),
    }
}

/// What a faithful read of volume `volume` gives.
fn read(volume: u32) -> Read {
    Read {
        volume_bytes: 100,
        digest: digest(volume),
    }
}

fn fails(next: Next, words: &str) {
    match next {
        Next::Fail(why) => assert!(why.contains(words), "{why}"),
        other => panic!("{other:?}, not a failure saying {words:?}"),
    }
}

/// Reads volumes 1..last, each saying it continues; then `last`.
fn continued_to(s: &mut Sequence, last: u32) {
    for v in 1..last {
        let t = trailer(v, Ends::Continues);
        assert_eq!(s.after(v, Found::Trailer(&t), read(v), false), Next::Volume);
    }
}

#[test]
fn every_ending_decides_as_its_word_on_every_volume_when_the_digest_agrees() {
    for ends in Ends::ALL {
        for last in 1..=3 {
            let mut s = Sequence::new(None);
            continued_to(&mut s, last);
            let t = trailer(last, ends);
            let next = s.after(last, Found::Trailer(&t), read(last), false);
            match ends {
                Ends::Continues => assert_eq!(next, Next::Volume),
                Ends::Last => {
                    assert_eq!(next, Next::End);
                    assert_eq!(s.bounded(), Ok(()));
                    assert_eq!(s.note(last), None);
                }
                Ends::Cut => fails(next, "cut short"),
            }
        }
    }
}

#[test]
fn a_digest_that_disagrees_fails_whatever_the_trailer_says() {
    // issue 45 finding 4: a volume replaced by another backup's
    for ends in Ends::ALL {
        for last in 1..=3 {
            let mut s = Sequence::new(None);
            continued_to(&mut s, last);
            let t = trailer(last, ends);
            let changed = Read {
                digest: digest(last) ^ 1,
                ..read(last)
            };
            fails(
                s.after(last, Found::Trailer(&t), changed, false),
                "is not the stream its trailer vouches for",
            );
        }
    }
}

#[test]
fn a_volume_without_a_trailer_after_one_that_continues_fails_whatever_follows() {
    // issue 45 finding 4: vol.003 lost its trailer (and vol.004 is missing)
    for next_exists in [false, true] {
        for count in [None, Some(4)] {
            let mut s = Sequence::new(count);
            continued_to(&mut s, 3);
            fails(
                s.after(3, Found::Nothing, read(3), next_exists),
                "volume 3 has no trailer, but volume 2's says the backup continues onto it",
            );
        }
    }
}

#[test]
fn a_volume_without_a_trailer_before_the_first_is_vouched_for_only_by_a_digest() {
    let t2 = trailer(2, Ends::Last);
    let mut s = Sequence::new(None);
    assert_eq!(s.after(1, Found::Nothing, read(1), true), Next::Volume);
    assert_eq!(s.after(2, Found::Trailer(&t2), read(2), false), Next::End);
    assert!(s
        .note(2)
        .unwrap()
        .contains("volume 1 had no trailer; the stream digest of a later trailer vouches"));
    assert_eq!(s.bounded(), Ok(()));

    // issue 45 finding 4: vol.001 replaced by another backup's volume
    let mut s = Sequence::new(None);
    let other = Read {
        digest: digest(2) ^ 1,
        ..read(2)
    };
    assert_eq!(s.after(1, Found::Nothing, read(1), true), Next::Volume);
    fails(
        s.after(2, Found::Trailer(&t2), other, false),
        "volume 1, which has no trailer,",
    );

    let old = Trailer {
        stream_digest: None,
        ..t2
    };
    let mut s = Sequence::new(None);
    assert_eq!(s.after(1, Found::Nothing, read(1), true), Next::Volume);
    fails(
        s.after(2, Found::Trailer(&old), read(2), false),
        "nothing proves it is this backup's",
    );
}

#[test]
fn trailers_from_before_the_digest_still_carry_a_restore_and_say_so() {
    let mut s = Sequence::new(None);
    for (v, ends) in [(1, Ends::Continues), (2, Ends::Last)] {
        let t = Trailer {
            stream_digest: None,
            ..trailer(v, ends)
        };
        let any = Read {
            digest: 42,
            ..read(v)
        };
        s.after(v, Found::Trailer(&t), any, false);
    }
    assert_eq!(s.bounded(), Ok(()));
    assert!(s
        .note(2)
        .unwrap()
        .contains("volume 1,2's trailer is an older tapebuf's"));
}

#[test]
fn a_manifest_that_says_the_backup_was_not_clean_fails_at_the_end() {
    // issue 45 finding 3: a copy without attributes, restored with --manifest
    for found in [Some(Ends::Last), None] {
        let mut s = Sequence::new(Some(1)).with_manifest(Some("stopped by SIGINT".into()));
        let t = trailer(1, Ends::Last);
        let found = match found {
            Some(_) => Found::Trailer(&t),
            None => Found::Nothing,
        };
        fails(s.after(1, found, read(1), false), "the manifest says the backup was not clean (stopped by SIGINT): the stream read ends at byte 100");
    }
    let mut s = Sequence::new(Some(2)).with_manifest(Some("cut".into()));
    assert_eq!(s.after(1, Found::Nothing, read(1), false), Next::Volume);
}

#[test]
fn n_smaller_than_the_backup_fails_rather_than_end_short() {
    let mut s = Sequence::new(Some(1));
    let t = trailer(1, Ends::Continues);
    fails(
        s.after(1, Found::Trailer(&t), read(1), false),
        "-n/--volumes 1 stops here",
    );
}

#[test]
fn n_larger_than_the_backup_ends_at_its_last_volume_and_says_so() {
    let mut s = Sequence::new(Some(3));
    let t = trailer(1, Ends::Last);
    assert_eq!(s.after(1, Found::Trailer(&t), read(1), false), Next::End);
    assert!(s.note(1).unwrap().contains("asked for more than there are"));
}

#[test]
fn a_volume_of_another_backup_or_out_of_order_fails() {
    let mut s = Sequence::new(None);
    continued_to(&mut s, 2);
    let stranger = Trailer {
        backup: OTHER.into(),
        ..trailer(2, Ends::Last)
    };
    fails(
        s.after(2, Found::Trailer(&stranger), read(2), false),
        "another backup",
    );
    let mut s = Sequence::new(None);
    continued_to(&mut s, 2);
    let t3 = trailer(3, Ends::Last);
    fails(
        s.after(2, Found::Trailer(&t3), read(2), false),
        "out of order",
    );
}

#[test]
fn a_volume_that_read_other_than_its_bytes_fails() {
    let mut s = Sequence::new(None);
    let t = trailer(1, Ends::Continues);
    let short = Read {
        volume_bytes: 99,
        ..read(1)
    };
    fails(
        s.after(1, Found::Trailer(&t), short, false),
        "holds 100 bytes",
    );
}

#[test]
fn a_gap_between_volumes_fails() {
    let mut s = Sequence::new(None);
    continued_to(&mut s, 2);
    let after_a_gap = Trailer {
        stream_bytes: 300,
        ..trailer(2, Ends::Last)
    };
    fails(
        s.after(2, Found::Trailer(&after_a_gap), read(2), false),
        "the volumes read end at byte 200",
    );
}

#[test]
fn a_volume_left_unread_does_not_upset_the_count_of_the_next() {
    let mut s = Sequence::new(Some(3));
    continued_to(&mut s, 2);
    let part = Read {
        volume_bytes: 10,
        digest: 0,
    };
    assert_eq!(s.after(2, Found::Unread, part, false), Next::Volume);
    let t3 = trailer(3, Ends::Last);
    assert_eq!(s.after(3, Found::Trailer(&t3), read(3), false), Next::End);
}

#[test]
fn without_any_trailer_n_and_numbered_files_decide_and_nothing_is_bounded() {
    let mut s = Sequence::new(Some(2));
    assert_eq!(s.after(1, Found::Nothing, read(1), false), Next::Volume);
    assert_eq!(s.after(2, Found::Nothing, read(2), false), Next::End);
    assert!(s
        .bounded()
        .unwrap_err()
        .contains("-n/--volumes 2 was taken on trust"));
    let mut s = Sequence::new(None);
    assert_eq!(s.after(1, Found::Nothing, read(1), true), Next::Volume);
    assert_eq!(s.after(2, Found::Nothing, read(2), false), Next::End);
    assert!(s.note(2).unwrap().contains(
        "the 2 volumes had no tapebuf trailer, so nothing said whether the backup goes on"
    ));
    assert!(s.bounded().is_err());
}
