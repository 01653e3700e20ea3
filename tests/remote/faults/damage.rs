//! Damage and stalls: a flipped bit or a damaged trailer fails both sides
//! with no byte of the bad frame kept (under TLS, of the bad record); a
//! delay under `--timeout` is no fault, a stall past it fails both sides,
//! over every framed privacy.

use crate::faults::relay::{self, Fault};
use tapebuf::net::facts::Privacy;

use crate::faults::rig::{
    end_at, frame_at, over_each_privacy, Input, Rig, BLOCK, END_MARKER, FRAME_HEAD,
};
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

/// Under TLS the record's tag fails before its frame's checksum could:
/// the receiver passes on nothing of the damaged record.
#[test]
fn a_flipped_bit_in_a_private_stream_fails_both_sides_and_keeps_only_whole_frames_before_it() {
    let data = data();
    let at = frame_at(4) + FRAME_HEAD + 100;
    let end = Rig::run_over(Privacy::Tls, Fault::FlipBitAt(at), &data, &[]);
    end.receiver
        .fails_saying(1, "a TLS record failed its authentication tag");
    end.sender().fails_saying(1, "receiver");
    end.holds_the_invariants(&data);
    assert_eq!(end.held() % BLOCK, 0, "only whole frames are kept");
    assert!(end.held() <= 4 * BLOCK, "nothing past the damage is kept");
}

#[test]
fn a_delay_shorter_than_the_timeout_is_no_fault() {
    let data = data();
    assert!(relay::DELAY < std::time::Duration::from_secs(3));
    over_each_privacy(|privacy| {
        let end = Rig::receiver_over(privacy, &["--timeout", "3"])
            .sender(
                Fault::DelayAt(frame_at(3) + 100),
                Input::File(&data),
                &["--timeout", "3"],
            )
            .finish();
        end.succeeds_byte_exact(&data);
    });
}

#[test]
fn a_stall_mid_stream_fails_both_sides_after_the_timeout() {
    let data = data();
    over_each_privacy(|privacy| {
        let end = stalled_mid_stream(privacy, &data, &["--timeout", "2"]);
        end.sender().fails_saying(1, "--timeout");
        end.receiver_fails_short(&data, data.len() as u64, "--timeout");
    });
}
