//! The request parser as a specification: what each well-formed request
//! reads as, what each malformed one is refused with, and that arbitrary
//! bytes never panic it nor make it read without progress.

use std::io::{BufRead, BufReader, Cursor};

use proptest::prelude::*;

use super::*;

fn parse_all(bytes: &[u8]) -> Vec<Result<Request, String>> {
    let mut input = Cursor::new(bytes.to_vec());
    let mut out = Vec::new();
    loop {
        match read_request(&mut input) {
            Ok(r) => {
                if let Request::Write { len } = r {
                    input.consume(len);
                }
                out.push(Ok(r));
            }
            Err(RequestError::Eof) => return out,
            Err(e) => out.push(Err(e.to_string())),
        }
    }
}

fn one(bytes: &[u8]) -> Result<Request, RequestError> {
    read_request(&mut Cursor::new(bytes.to_vec()))
}

fn rejection(bytes: &[u8]) -> Rejection {
    match one(bytes) {
        Err(RequestError::Rejected(r)) => r,
        other => panic!("{:?} was not rejected: {other:?}", shown(bytes)),
    }
}

#[test]
fn reads_each_request_gnu_tar_sends() {
    assert_eq!(
        parse_all(b"O/srv/a.tar\n65 O_WRONLY|O_CREAT\nW3\nabcR10240\nI6\n1\nS\nL0\n0\nC\n"),
        vec![
            Ok(Request::Open {
                path: "/srv/a.tar".into(),
                flags: OpenFlags::parse(b"65 O_WRONLY|O_CREAT").unwrap()
            }),
            Ok(Request::Write { len: 3 }),
            Ok(Request::Read { len: 10240 }),
            Ok(Request::Ioctl {
                op: mtops::lookup(6).unwrap(),
                count: 1
            }),
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
        assert_eq!(
            one(huge).unwrap(),
            Request::Read {
                len: MAX_RECORD_BYTES
            }
        );
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
        Request::Write {
            len: MAX_RECORD_BYTES
        }
    );
    let over = format!("W{}\n", MAX_RECORD_BYTES + 1);
    assert!(rejection(over.as_bytes()).fatal);
}

#[test]
fn bad_arguments_of_other_requests_are_refused_in_step() {
    let cases: [(&[u8], &str); 6] = [
        (b"R-1\n", "R count -1 is negative"),
        (b"I-1\n1\n", "tape operation -1 is negative"),
        (b"I6\n-1\n", "tape count -1 is negative"),
        (b"I24\n1\n", "tape operation 24 is not supported"),
        (b"I6\n9999999999\n", "tape count 9999999999 is out of range"),
        (
            b"O/x\n0 O_RDONLY|O_BOGUS\n",
            "unknown open flag \"O_BOGUS\"",
        ),
    ];
    for (bytes, why) in cases {
        let r = rejection(bytes);
        assert!(!r.fatal, "{why}");
        assert_eq!(r.errno, libc::EINVAL);
        assert!(r.message.contains(why), "{} lacks {why}", r.message);
        // The next request is read normally: nothing was left behind.
        let mut next = bytes.to_vec();
        next.extend_from_slice(b"S\n");
        let all = parse_all(&next);
        assert_eq!(all.last(), Some(&Ok(Request::Status)), "after {why}");
    }
}

#[test]
fn a_path_with_a_nul_is_refused_in_step() {
    let all = parse_all(b"O/srv/a\0b\n0\nS\n");
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
        Err(RequestError::Rejected(r)) => {
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
            matches!(one(cut), Err(RequestError::Truncated { .. })),
            "{cut:?}"
        );
    }
    assert!(matches!(one(b""), Err(RequestError::Eof)));
}

/// The bytes a client sends for `r` (with `len` bytes of data for W).
fn encode(r: &Request) -> Vec<u8> {
    match r {
        Request::Open { path, flags } => {
            let mut out = b"O".to_vec();
            out.extend_from_slice(path.as_os_str().as_bytes());
            out.extend_from_slice(format!("\n{} {flags}\n", flags.bits()).as_bytes());
            out
        }
        Request::Close => b"C\n".to_vec(),
        Request::Write { len } => {
            let mut out = format!("W{len}\n").into_bytes();
            out.resize(out.len() + len, 0x5a);
            out
        }
        Request::Read { len } => format!("R{len}\n").into_bytes(),
        Request::Ioctl { op, count } => format!("I{}\n{count}\n", op.code).into_bytes(),
        Request::Status => b"S\n".to_vec(),
        Request::Seek { whence, offset } => format!("L{whence}\n{offset}\n").into_bytes(),
    }
}

fn any_request() -> impl Strategy<Value = Request> {
    let flags = prop::sample::select(vec![
        "0 O_RDONLY",
        "1 O_WRONLY",
        "65 O_WRONLY|O_CREAT",
        "577 O_WRONLY|O_CREAT|O_TRUNC",
        "2 O_RDWR|O_APPEND",
        "193 O_WRONLY|O_CREAT|O_EXCL",
    ])
    .prop_map(|f| OpenFlags::parse(f.as_bytes()).unwrap());
    let path = prop::collection::vec(
        any::<u8>().prop_filter("no NUL or newline", |b| *b != 0 && *b != b'\n'),
        0..200,
    )
    .prop_map(|bytes| PathBuf::from(OsStr::from_bytes(&bytes)));
    prop_oneof![
        (path, flags).prop_map(|(path, flags)| Request::Open { path, flags }),
        Just(Request::Close),
        (0usize..4096).prop_map(|len| Request::Write { len }),
        (0usize..=MAX_RECORD_BYTES).prop_map(|len| Request::Read { len }),
        (prop::sample::select(mtops::OPS.to_vec()), 0..=i32::MAX)
            .prop_map(|(op, count)| Request::Ioctl { op, count }),
        Just(Request::Status),
        (0i32..=2, any::<i64>()).prop_map(|(whence, offset)| Request::Seek { whence, offset }),
    ]
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
                Ok(Request::Write { len }) => {
                    let mut skip = vec![0; len];
                    if std::io::Read::read_exact(&mut input, &mut skip).is_err() {
                        break;
                    }
                }
                Ok(_) => {}
                Err(RequestError::Rejected(r)) if !r.fatal => {}
                Err(_) => break,
            }
            let after = input.get_ref().position() as usize - input.buffer().len();
            prop_assert!(after > before, "no progress at byte {}", before);
            requests += 1;
            prop_assert!(requests <= bytes.len());
        }
    }

    #[test]
    fn well_formed_requests_round_trip(requests in prop::collection::vec(any_request(), 1..20)) {
        let mut wire = Vec::new();
        for r in &requests {
            wire.extend(encode(r));
        }
        let parsed: Vec<Request> = parse_all(&wire).into_iter().map(|r| r.unwrap()).collect();
        prop_assert_eq!(parsed, requests);
    }
}
