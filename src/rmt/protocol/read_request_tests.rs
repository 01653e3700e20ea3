//! The request reader as a specification: what each well-formed request
//! reads as, what each malformed one is refused with, that arbitrary
//! bytes never panic it nor make it read without progress.

use std::io::{BufReader, Cursor};

use proptest::prelude::*;

use super::*;

fn one(bytes: &[u8]) -> Result<Request, ReadError> {
    read_request(&mut Cursor::new(bytes.to_vec()))
}

fn rejection(bytes: &[u8]) -> Rejection {
    match one(bytes) {
        Err(ReadError::Rejected(r)) => r,
        other => panic!("{:?} was not rejected: {other:?}", shown(bytes)),
    }
}

#[test]
fn reads_each_request_gnu_tar_sends() {
    assert_eq!(
        read_every(b"O/srv/a.tar\n65 O_WRONLY|O_CREAT\nW3\nabcR10240\nI6\n1\nS\nL0\n0\nC\n"),
        vec![
            Ok(Request::Open {
                path: "/srv/a.tar".into(),
                flags: "65 O_WRONLY|O_CREAT".into()
            }),
            Ok(Request::Write(3)),
            Ok(Request::Read(10240)),
            Ok(Request::Ioctl { op: 6, count: 1 }),
            Ok(Request::Status),
            Ok(Request::Seek {
                whence: 0,
                offset: 0
            }),
            Ok(Request::Close),
        ]
    );
}

#[test]
fn close_ignores_its_argument_text() {
    assert_eq!(one(b"C/dev/nst0\n").unwrap(), Request::Close);
}

#[test]
fn seek_takes_whence_first_and_a_signed_offset() {
    assert_eq!(
        one(b"L1\n-512\n").unwrap(),
        Request::Seek {
            whence: 1,
            offset: -512
        }
    );
    let r = rejection(b"L-512\n1\n");
    assert!(!r.fatal);
    assert!(r.message.contains("seek direction"), "{}", r.message);
    assert!(!rejection(b"L3\n0\n").fatal);
}

#[test]
fn a_huge_read_count_is_clamped_not_refused() {
    for huge in [&b"R99999999999\n"[..], b"R999999999999999999999999999\n"] {
        assert_eq!(one(huge).unwrap(), Request::Read(MAX_RECORD_BYTES));
    }
}

#[test]
fn a_write_count_that_cannot_be_trusted_ends_the_session() {
    for bad in [
        &b"W99999999999\n"[..],
        b"W-5\n",
        b"Wabc\n",
        b"W\n",
        b"W 5\n",
        b"W+5\n",
    ] {
        let r = rejection(bad);
        assert!(r.fatal, "{bad:?}");
        assert_eq!(r.errno, libc::EINVAL);
        assert!(
            r.message.starts_with("Invalid argument: W count"),
            "{}",
            r.message
        );
    }
    let at_limit = format!("W{MAX_RECORD_BYTES}\n");
    assert_eq!(
        one(at_limit.as_bytes()).unwrap(),
        Request::Write(MAX_RECORD_BYTES)
    );
    let over = format!("W{}\n", MAX_RECORD_BYTES + 1);
    assert!(rejection(over.as_bytes()).fatal);
}

#[test]
fn bad_arguments_of_other_requests_are_refused_in_step() {
    // What O's flags and I's operation mean is the server's to judge
    // (`rmt_server/session_tests.rs` refuses O_BOGUS and I24 in step).
    let cases: [(&[u8], &str); 6] = [
        (b"R-1\n", "R count -1 is negative"),
        (b"I-1\n1\n", "tape operation -1 is negative"),
        (b"I6\n-1\n", "tape count -1 is negative"),
        (
            b"I4294967296\n1\n",
            "tape operation 4294967296 is not supported",
        ),
        (b"I6\n9999999999\n", "tape count 9999999999 is out of range"),
        (b"O/x\n0 O_\xff\n", "the open flags are not text"),
    ];
    for (bytes, why) in cases {
        let r = rejection(bytes);
        assert!(!r.fatal, "{why}");
        assert_eq!(r.errno, libc::EINVAL);
        assert!(r.message.contains(why), "{} lacks {why}", r.message);
        // The next request is read normally: nothing was left behind.
        let mut next = bytes.to_vec();
        next.extend_from_slice(b"S\n");
        let all = read_every(&next);
        assert_eq!(all.last(), Some(&Ok(Request::Status)), "after {why}");
    }
}

#[test]
fn a_path_with_a_nul_is_refused_in_step() {
    let all = read_every(b"O/srv/a\0b\n0\nS\n");
    assert_eq!(all.len(), 2);
    assert!(all[0].as_ref().unwrap_err().contains("NUL"));
    assert_eq!(all[1], Ok(Request::Status));
}

#[test]
fn paths_need_not_be_utf8() {
    match one(b"O/srv/\xff\n0\n").unwrap() {
        Request::Open { path, .. } => assert_eq!(path.as_os_str().as_bytes(), b"/srv/\xff"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn garbage_commands_are_named_safely_and_end_the_session() {
    let r = rejection(b"X\n");
    assert_eq!(r.message, "Garbage command X");
    assert!(r.fatal);
    assert_eq!(rejection(b"\0").message, "Garbage command \\x00");
    assert_eq!(rejection(b"\n").message, "Garbage command \\x0a");
}

#[test]
fn overlong_arguments_end_the_session_without_reading_on() {
    let mut long_path = b"O/".to_vec();
    long_path.extend(std::iter::repeat_n(b'a', 100 * 1024));
    long_path.extend_from_slice(b"\n0\n");
    // A reader with a small buffer shows the limit is checked as it reads.
    let mut input = BufReader::with_capacity(512, Cursor::new(long_path));
    match read_request(&mut input) {
        Err(ReadError::Rejected(r)) => {
            assert!(r.fatal);
            assert_eq!(r.errno, libc::ENAMETOOLONG);
        }
        other => panic!("{other:?}"),
    }
    let consumed = input.get_ref().position();
    assert!(consumed <= 8192, "read {consumed} bytes of a 100 KiB path");

    let mut exact = b"O/".to_vec();
    exact.extend(std::iter::repeat_n(b'a', MAX_PATH_BYTES - 1));
    exact.extend_from_slice(b"\n0\n");
    assert!(matches!(one(&exact), Ok(Request::Open { .. })));

    let long_number = format!("R{}\n", "1".repeat(MAX_NUMBER_BYTES + 1));
    assert!(rejection(long_number.as_bytes()).fatal);
}

#[test]
fn input_ending_inside_a_request_is_truncation() {
    for cut in [&b"W5"[..], b"O/srv/a\n", b"I6\n", b"L0\n0", b"R", b"S"] {
        assert!(
            matches!(one(cut), Err(ReadError::Truncated { .. })),
            "{cut:?}"
        );
    }
    assert!(matches!(one(b""), Err(ReadError::Eof)));
}

#[test]
fn the_server_reads_what_the_client_never_sends() {
    assert_eq!(one(b"W0\n").unwrap(), Request::Write(0));
    assert_eq!(one(b"R0\n").unwrap(), Request::Read(0));
    assert_eq!(
        one(b"O\n0\n").unwrap(),
        Request::Open {
            path: "".into(),
            flags: "0".into()
        }
    );
}

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic_and_always_progress(
        bytes in prop::collection::vec(any::<u8>(), 0..2048),
        capacity in 1usize..64,
    ) {
        let mut input = BufReader::with_capacity(capacity, Cursor::new(bytes.clone()));
        let mut requests = 0;
        loop {
            let before = input.get_ref().position() as usize - input.buffer().len();
            match read_request(&mut input) {
                Ok(Request::Write(len)) => {
                    let mut skip = vec![0; len];
                    if std::io::Read::read_exact(&mut input, &mut skip).is_err() {
                        break;
                    }
                }
                Ok(_) => {}
                Err(ReadError::Rejected(r)) if !r.fatal => {}
                Err(_) => break,
            }
            let after = input.get_ref().position() as usize - input.buffer().len();
            prop_assert!(after > before, "no progress at byte {}", before);
            requests += 1;
            prop_assert!(requests <= bytes.len());
        }
    }
}
