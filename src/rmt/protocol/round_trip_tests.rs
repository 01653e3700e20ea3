//! The two sides agree: every request the client encodes is read by the
//! server as the same value, and every reply the server sends is read by
//! the client as the same value.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use proptest::prelude::*;

use super::*;

/// The bytes a client sends for `r`: the client's own encoding, and for
/// W its data.
fn encode(r: &Request) -> Vec<u8> {
    let mut out = Vec::new();
    r.encode(&mut out).unwrap();
    if let Request::Write(len) = r {
        out.resize(out.len() + len, 0x5a);
    }
    out
}

/// Every request the server reads from `wire`, W's data skipped; none
/// may be refused.
fn read_all(wire: Vec<u8>) -> Vec<Request> {
    let read = super::read_request::read_every(&wire);
    read.into_iter()
        .map(|r| r.unwrap_or_else(|e| panic!("{e}")))
        .collect()
}

/// Any request the client can send.
fn any_request() -> impl Strategy<Value = Request> {
    let flags = prop::sample::select(vec![
        "0 O_RDONLY",
        "1 O_WRONLY",
        "65 O_WRONLY|O_CREAT",
        "577 O_WRONLY|O_CREAT|O_TRUNC",
        "2 O_RDWR|O_APPEND",
        "193 O_WRONLY|O_CREAT|O_EXCL",
        "1537",
    ])
    .prop_map(String::from);
    let path = prop::collection::vec(
        any::<u8>().prop_filter("no NUL or newline", |b| *b != 0 && *b != b'\n'),
        1..200,
    )
    .prop_map(|bytes| PathBuf::from(OsStr::from_bytes(&bytes)));
    prop_oneof![
        (path, flags).prop_map(|(path, flags)| Request::Open { path, flags }),
        Just(Request::Close),
        (1usize..4096).prop_map(Request::Write),
        (1usize..=MAX_RECORD_BYTES).prop_map(Request::Read),
        (0..=i32::MAX as u32, 0..=i32::MAX as u32)
            .prop_map(|(op, count)| Request::Ioctl { op, count }),
        Just(Request::Status),
        (0i32..=2, any::<i64>()).prop_map(|(whence, offset)| Request::Seek { whence, offset }),
    ]
}

/// Any reply the server sends, with the shape the client expects of it.
fn any_reply() -> impl Strategy<Value = (Reply, Expect)> {
    let word = "[a-zA-Z0-9:/.,()_-]";
    let message =
        proptest::string::string_regex(&format!("{word}({word}|[ ]){{0,78}}{word}")).unwrap();
    prop_oneof![
        any::<u64>().prop_map(|n| (Reply::Number(n), Expect::Number)),
        (prop::collection::vec(any::<u8>(), 0..600), 0usize..64).prop_map(|(data, spare)| {
            let asked = data.len() + spare;
            (Reply::Bytes(data), Expect::Data(asked))
        }),
        prop::collection::vec(any::<u8>(), 0..=MAX_STATUS_BYTES)
            .prop_map(|status| (Reply::Bytes(status), Expect::Status)),
        (
            0i32..=i32::MAX,
            message,
            prop::sample::select(vec![Expect::Number, Expect::Data(512), Expect::Status])
        )
            .prop_map(|(errno, message, expect)| (Reply::Failed { errno, message }, expect)),
    ]
}

#[test]
fn the_one_seek_the_client_sends_is_read_as_a_rewind() {
    assert_eq!(
        read_all(encode(&Request::SEEK_START)),
        vec![Request::Seek {
            whence: 0,
            offset: 0
        }]
    );
}

#[test]
fn the_servers_own_messages_read_back_unchanged() {
    let end = Reply::Failed {
        errno: END_OF_MEDIUM_ERRNO,
        message: strerror(END_OF_MEDIUM_ERRNO),
    };
    let mut wire = Vec::new();
    end.send(&mut wire).unwrap();
    let read = read_reply(&mut &wire[..], Expect::Number, Vec::new()).unwrap();
    assert!(read.is_end_of_medium());
    assert_eq!(read, end);
}

proptest! {
    #[test]
    fn well_formed_requests_round_trip(requests in prop::collection::vec(any_request(), 1..20)) {
        let mut wire = Vec::new();
        for r in &requests {
            wire.extend(encode(r));
        }
        prop_assert_eq!(read_all(wire), requests);
    }

    #[test]
    fn every_reply_the_server_sends_reads_back_as_itself(
        replies in prop::collection::vec(any_reply(), 1..20),
    ) {
        let mut wire = Vec::new();
        for (reply, _) in &replies {
            reply.send(&mut wire).unwrap();
        }
        let mut input = &wire[..];
        for (reply, expect) in &replies {
            prop_assert_eq!(&read_reply(&mut input, *expect, Vec::new()).unwrap(), reply);
        }
        prop_assert!(input.is_empty());
    }
}
