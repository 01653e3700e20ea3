//! Damage and stalls: a flipped bit or a damaged trailer fails both sides
//! with no byte of the bad frame kept; a delay under `--timeout` is no fault,
//! a stall past it fails both sides.

use crate::faults::relay::{self, Fault};
use crate::faults::rig::{end_at, frame_at, Input, Rig, BLOCK, END_MARKER, FRAME_HEAD};
use crate::faults::{data, stalled_mid_stream};

/// The relay hands the receiver the damaged byte before the rest of its
/// frame, so the receiver has bytes of that frame before the checksum
/// fails: none of them may reach OUT.
#[test]
fn a_flipped_data_bit_fails_both_sides_and_no_byte_of_its_frame_is_kept() {
    let data = data();
    let end = Rig::run(Fault::FlipBitAt(frame_at(1) + FRAME_HEAD + 100), &data, &[]);
    end.receiver.fails_saying(1, "fails its checksum");
    end.sender().fails_saying(1, "damaged");
    end.holds_the_invariants(&data);
    assert_eq!(
        end.held(),
        BLOCK,
        "only the frame before the damage is kept"
    );
}

#[test]
fn a_damaged_trailer_fails_both_sides() {
    let data = data();
    // The trailer's byte count, low byte.
    let at = end_at(data.len() as u64) + END_MARKER + 7;
    let end = Rig::run(Fault::FlipBitAt(at), &data, &[]);
    end.receiver.fails_saying(1, "trailer does not match");
    end.sender().fails_saying(1, "damaged");
    end.holds_the_invariants(&data);
}

#[test]
fn a_damaged_magic_is_not_a_sender() {
    let data = data();
    let end = Rig::run(Fault::FlipBitAt(3), &data, &["--connect-timeout", "3"]);
    end.sender().fails_saying(1, "receiver");
    end.no_sender_was_found();
}

#[test]
fn a_delay_shorter_than_the_timeout_is_no_fault() {
    let data = data();
    assert!(relay::DELAY < std::time::Duration::from_secs(3));
    let end = Rig::receiver(&["--timeout", "3"])
        .sender(
            Fault::DelayAt(frame_at(3) + 100),
            Input::File(&data),
            &["--timeout", "3"],
        )
        .finish();
    end.succeeds_byte_exact(&data);
}

#[test]
fn a_stall_mid_stream_fails_both_sides_after_the_timeout() {
    let data = data();
    let end = stalled_mid_stream(&data, &["--timeout", "2"]);
    end.sender().fails_saying(1, "--timeout");
    end.receiver_fails_short(&data, data.len() as u64, "--timeout");
}
