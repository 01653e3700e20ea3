//! A private stream (`--key`) cut by the relay at bytes spread over the
//! sender's whole wire: in the TLS handshake, in the receiver's acceptance
//! wait, in the header's record, among the frames, in the trailer and in
//! the close. Wherever the cut falls, each case keeps the suite's
//! invariants: the receiver's committed count is what OUT holds, OUT is a
//! prefix of what was sent, and no side exits 0 unless OUT is byte-exact;
//! short of the whole stream, both sides fail.

use tapebuf::net::facts::Privacy;

use crate::faults::data;
use crate::faults::relay::Fault;
use crate::faults::rig::{Ending, Input, Rig};
/// Runs the whole private stream with the sender's wire cut after byte
/// `k`, checks the invariants, and gives the ending.
fn a_private_stream_cut_at(k: u64) -> Ending {
    let data = data();
    let end = Rig::receiver_over(Privacy::Tls, &["--connect-timeout", "2"])
        .sender(Fault::CutAt(k), Input::File(&data), &[])
        .finish();
    end.holds_the_invariants(&data);
    let exact = end.out.as_deref() == Some(&data[..]);
    if !exact {
        assert_ne!(
            end.receiver.code(),
            Some(0),
            "cut at {k}: {}",
            end.receiver.stderr
        );
        assert_ne!(end.sender().code(), Some(0), "cut at {k}");
    }
    end
}

#[test]
fn a_private_stream_cut_in_its_handshake_fails_both_sides() {
    for k in [0, 1, 5, 40, 150, 300, 450, 600] {
        a_private_stream_cut_at(k);
    }
}

#[test]
fn a_private_stream_cut_among_its_frames_fails_both_sides_with_what_arrived_counted() {
    let len = data().len() as u64;
    // TLS adds some 3 KB to this stream: len + 600 still cuts it short.
    for k in [
        900,
        5_000,
        70_000,
        len / 2,
        len - 1_000,
        len,
        len + 300,
        len + 600,
    ] {
        a_private_stream_cut_at(k);
    }
}

#[test]
fn a_cut_past_the_end_of_a_private_stream_cuts_nothing_and_both_succeed() {
    let end = a_private_stream_cut_at(data().len() as u64 + 100_000);
    end.succeeds_byte_exact(&data());
}
