//! Replies as the client reads them: parsed strictly, bounded, and made
//! printable.

use super::*;
use proptest::prelude::*;

fn reply(bytes: &[u8], expect: Expect) -> Result<Reply, ReplyError> {
    read_reply(&mut &bytes[..], expect, Vec::new())
}

#[test]
fn replies_parse_with_their_data() {
    assert_eq!(reply(b"A10240\n", Expect::Number), Ok(Reply::Number(10240)));
    assert_eq!(
        reply(b"A3\nabcA0\n", Expect::Data(512)),
        Ok(Reply::Bytes(b"abc".to_vec()))
    );
    assert_eq!(
        reply(b"E28\nNo space left on device\n", Expect::Number),
        Ok(Reply::Failed {
            errno: 28,
            message: "No space left on device".into()
        })
    );
    assert!(reply(b"E28\nNo space\n", Expect::Number)
        .unwrap()
        .is_end_of_medium());
    assert_eq!(
        reply(b"F5\nI/O error\n", Expect::Data(8)),
        Ok(Reply::Failed {
            errno: 5,
            message: "I/O error".into()
        })
    );
}

#[test]
fn server_text_is_printed_with_its_control_bytes_escaped() {
    assert_eq!(printable(b"I/O error"), "I/O error");
    assert_eq!(
        printable(b"\x1b]0;pwned\x07\x1b[2J\x7f\xff\\"),
        "\\x1b]0;pwned\\x07\\x1b[2J\\x7f\\xff\\\\"
    );
    assert_eq!(printable("\u{9b}31m é".as_bytes()), "\\u{9b}31m é");
    assert_eq!(
        reply(b"E5\n\x1b[2Jgone\n", Expect::Number),
        Ok(Reply::Failed {
            errno: 5,
            message: "\\x1b[2Jgone".into()
        })
    );
    assert_eq!(
        reply(b"\x1b]0;t\x07\n", Expect::Number),
        Err(ReplyError::Garbage("\\x1b]0;t\\x07".into()))
    );
}

#[test]
fn a_login_banner_is_an_error_that_quotes_it() {
    assert_eq!(
        reply(b"Welcome to vault!\nA0\n", Expect::Number),
        Err(ReplyError::Garbage("Welcome to vault!".into()))
    );
}

#[test]
fn a_reply_larger_than_the_request_is_refused_before_reading_it() {
    assert_eq!(
        reply(b"A999999999999\n", Expect::Data(512)),
        Err(ReplyError::TooMuch {
            got: 999_999_999_999,
            asked: 512
        })
    );
}

#[test]
fn cut_replies_and_closed_pipes_are_told_apart() {
    assert_eq!(reply(b"", Expect::Number), Err(ReplyError::Closed));
    assert_eq!(reply(b"A1", Expect::Number), Err(ReplyError::Truncated));
    assert_eq!(
        reply(b"A5\nab", Expect::Data(9)),
        Err(ReplyError::Truncated)
    );
    assert_eq!(reply(b"E5\n", Expect::Number), Err(ReplyError::Truncated));
    assert!(matches!(
        reply(b"A-1\n", Expect::Number),
        Err(ReplyError::Garbage(_))
    ));
    assert!(matches!(
        reply(b"A12\r\n", Expect::Number),
        Err(ReplyError::Garbage(_))
    ));
}

#[test]
fn an_endless_line_is_cut_off() {
    let long = vec![b'A'; MAX_LINE_BYTES * 4];
    assert_eq!(
        reply(&long, Expect::Number),
        Err(ReplyError::LineTooLong {
            what: "a reply line",
            bytes: MAX_LINE_BYTES + 1
        })
    );
}

#[test]
fn a_huge_error_message_is_a_protocol_error_read_no_further() {
    let mut huge = b"E5\n".to_vec();
    huge.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES * 64));
    let mut input = io::BufReader::with_capacity(1 << 20, &huge[..]);
    let e = read_reply(&mut input, Expect::Number, Vec::new()).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "the server sent an error message longer than {MAX_LINE_BYTES} bytes (no end of line in its first {} bytes), longer than any rmt reply",
            MAX_LINE_BYTES + 1
        )
    );
    // It stopped reading: the rest is still in the reader.
    assert_eq!(input.buffer().len(), huge.len() - 3 - MAX_LINE_BYTES - 1);
}

#[test]
fn a_line_of_exactly_the_limit_is_still_read() {
    let mut line = b"E5\n".to_vec();
    line.extend(std::iter::repeat_n(b'y', MAX_LINE_BYTES - 1));
    line.push(b'\n');
    assert!(matches!(
        reply(&line, Expect::Number),
        Ok(Reply::Failed { errno: 5, .. })
    ));
}

proptest! {
    #[test]
    fn any_bytes_give_a_reply_or_an_error_and_never_panic(
        bytes in proptest::collection::vec(any::<u8>(), 0..600),
        asked in 0usize..1024,
    ) {
        let _ = reply(&bytes, Expect::Data(asked));
        let _ = reply(&bytes, Expect::Number);
        let _ = reply(&bytes, Expect::Status);
    }

    #[test]
    fn well_formed_replies_round_trip(
        n in any::<u32>(),
        data in proptest::collection::vec(any::<u8>(), 0..300),
        errno in 0i32..200,
        message in "[ -~]{0,80}",
    ) {
        prop_assert_eq!(
            reply(format!("A{n}\n").as_bytes(), Expect::Number),
            Ok(Reply::Number(n as u64))
        );
        let mut wire = format!("A{}\n", data.len()).into_bytes();
        wire.extend_from_slice(&data);
        prop_assert_eq!(reply(&wire, Expect::Data(300)), Ok(Reply::Bytes(data)));
        let failed = reply(format!("E{errno}\n{message}\n").as_bytes(), Expect::Number);
        prop_assert_eq!(failed, Ok(Reply::Failed { errno, message: printable(message.trim().as_bytes()) }));
    }
}
