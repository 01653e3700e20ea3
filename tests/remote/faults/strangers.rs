//! Connections that are not the sender: an empty one or one without a
//! tapebuf header is ignored and the real sender gets through, and a receiver
//! that no sender reaches fails and leaves no output.

use tapebuf::net::facts::Privacy;

use crate::faults::data;
use crate::faults::relay::Fault;
use crate::faults::rig::{Input, Rig, LIMIT};

/// A connection that sends `opening` and closes is ignored; the real
/// sender after it gets through.
fn ignored_then_a_real_sender(opening: &[u8]) {
    let data = data();
    let mut rig = Rig::receiver(&[]);
    rig.poke(opening);
    rig.receiver.wait_line("ignored a connection", LIMIT);
    let end = rig.sender(Fault::None, Input::File(&data), &[]).finish();
    end.succeeds_byte_exact(&data);
}

#[test]
fn an_empty_connection_is_ignored_and_the_real_sender_gets_through() {
    ignored_then_a_real_sender(b"");
}

#[test]
fn a_connection_without_a_tapebuf_header_is_ignored_and_the_real_sender_gets_through() {
    ignored_then_a_real_sender(b"GET / HTTP/1.0\r\n\r\n");
}

#[test]
fn a_raw_receiver_ignores_an_empty_connection_and_takes_a_raw_stream_byte_exact() {
    let data = data();
    let mut rig = Rig::receiver_over(Privacy::Raw, &[]);
    rig.poke(b"");
    rig.receiver.wait_line("ignored a connection", LIMIT);
    rig.poke(&data);
    rig.finish().succeeds_byte_exact(&data);
}

#[test]
fn a_receiver_that_no_sender_reaches_fails_and_leaves_no_output() {
    let end = Rig::receiver(&["--connect-timeout", "1"]).finish();
    end.receiver.fails_saying(1, "no sender connected in time");
    assert_eq!(end.out, None, "an empty output was left behind");
    assert_eq!(end.committed, Some(0));
}
