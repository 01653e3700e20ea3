//! A private stream (`--key`) cut by the relay at bytes spread over the
//! sender's whole wire: in the TLS handshake, in the receiver's acceptance
//! wait, in the header's record, among the frames, in the trailer and in
//! the close. Wherever the cut falls, each case keeps the suite's
//! invariants: the receiver's committed count is what OUT holds, OUT is a
//! prefix of what was sent, and no side exits 0 unless OUT is byte-exact;
//! short of the whole stream, both sides fail.

use crate::faults::data;
use crate::faults::relay::Fault;
use crate::faults::rig::{Ending, Input, Rig};
use crate::network::private::{new_key, Key};

struct Keys {
    _dir: tempfile::TempDir,
    receiver: Key,
    sender: Key,
}

fn keys() -> Keys {
    let dir = tempfile::tempdir().unwrap();
    Keys {
        receiver: new_key(dir.path(), "vault"),
        sender: new_key(dir.path(), "db1"),
        _dir: dir,
    }
}

/// Runs the whole private stream with the sender's wire cut after byte
/// `k`, checks the invariants, and gives the ending.
fn a_private_stream_cut_at(k: u64, keys: &Keys) -> Ending {
    let data = data();
    let allow = format!("{}=db1", keys.sender.print);
    let receiver = Rig::receiver(&[
        "--connect-timeout",
        "2",
        "--key",
        keys.receiver.file.to_str().unwrap(),
        "--allow-key",
        &allow,
    ]);
    let end = receiver
        .sender(
            Fault::CutAt(k),
            Input::File(&data),
            &[
                "--key",
                keys.sender.file.to_str().unwrap(),
                "--pin",
                &keys.receiver.print,
            ],
        )
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
    let keys = keys();
    for k in [0, 1, 5, 40, 150, 300, 450, 600] {
        a_private_stream_cut_at(k, &keys);
    }
}

#[test]
fn a_private_stream_cut_among_its_frames_fails_both_sides_with_what_arrived_counted() {
    let keys = keys();
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
        a_private_stream_cut_at(k, &keys);
    }
}

#[test]
fn a_cut_past_the_end_of_a_private_stream_cuts_nothing_and_both_succeed() {
    let keys = keys();
    let end = a_private_stream_cut_at(data().len() as u64 + 100_000, &keys);
    end.succeeds_byte_exact(&data());
}
