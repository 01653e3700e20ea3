//! Cuts at every structural boundary of the stream: inside the header the
//! connection never was a sender; after it both sides fail, and the receiver
//! keeps only whole frames that passed their checksum.

use crate::faults::relay::{Event, Fault};
use crate::faults::rig::{
    end_at, frame_at, Input, Rig, BLOCK, END_MARKER, FRAME_HEAD, HEADER, LIMIT, TRAILER,
};
use crate::faults::{data, wire_len};

/// A cut inside the 16-byte header: the connection never was a sender, so
/// the receiver ignores it, waits on, and gives up without leaving OUT.
fn a_cut_inside_the_header_at(k: u64) {
    let data = data();
    let end = Rig::run(Fault::CutAt(k), &data, &["--connect-timeout", "3"]);
    end.sender().fails_saying(1, "receiver");
    end.no_sender_was_found();
    end.holds_the_invariants(&data);
}

#[test]
fn a_cut_after_the_first_header_byte_is_not_a_sender() {
    a_cut_inside_the_header_at(1);
}

#[test]
fn a_cut_after_the_magic_is_not_a_sender() {
    a_cut_inside_the_header_at(8);
}

#[test]
fn a_cut_one_byte_short_of_the_header_is_not_a_sender() {
    a_cut_inside_the_header_at(HEADER - 1);
}

/// A cut after the header: both sides fail. The receiver keeps a prefix it
/// counts exactly: every byte of the frames that arrived whole and passed
/// their checksum, and not one byte of a frame cut short.
fn a_cut_in_the_stream_at(k: u64) {
    let data = data();
    let end = Rig::run(Fault::CutAt(k), &data, &["--connect-timeout", "10"]);
    end.sender().fails_saying(1, "receiver");
    end.receiver
        .fails_saying(1, "without tapebuf's end-of-stream trailer");
    end.holds_the_invariants(&data);
    assert_eq!(end.held(), whole_frames_before(k, data.len() as u64));
}

/// Of a stream of `len` data bytes cut after wire byte `k`: the data bytes
/// in frames that arrived whole.
fn whole_frames_before(k: u64, len: u64) -> u64 {
    if k >= end_at(len) {
        return len;
    }
    (k.saturating_sub(HEADER) / (FRAME_HEAD + BLOCK)) * BLOCK
}

#[test]
fn a_cut_right_after_the_header_fails_both_sides() {
    a_cut_in_the_stream_at(HEADER);
}

#[test]
fn a_cut_inside_the_first_frame_head_fails_both_sides() {
    a_cut_in_the_stream_at(frame_at(0) + 5);
}

#[test]
fn a_cut_inside_a_later_frame_head_fails_both_sides() {
    a_cut_in_the_stream_at(frame_at(2) + FRAME_HEAD - 1);
}

#[test]
fn a_cut_inside_frame_data_fails_both_sides() {
    a_cut_in_the_stream_at(frame_at(1) + FRAME_HEAD + 1000);
}

#[test]
fn a_cut_between_frames_fails_both_sides() {
    a_cut_in_the_stream_at(frame_at(3));
}

#[test]
fn a_cut_before_the_end_marker_fails_both_sides() {
    a_cut_in_the_stream_at(end_at(data().len() as u64));
}

#[test]
fn a_cut_inside_the_end_marker_fails_both_sides() {
    a_cut_in_the_stream_at(end_at(data().len() as u64) + 2);
}

#[test]
fn a_cut_between_the_end_marker_and_the_trailer_fails_both_sides() {
    a_cut_in_the_stream_at(end_at(data().len() as u64) + END_MARKER);
}

#[test]
fn a_cut_inside_the_trailer_fails_both_sides() {
    a_cut_in_the_stream_at(end_at(data().len() as u64) + END_MARKER + TRAILER / 2);
}

#[test]
fn a_cut_one_byte_short_of_the_whole_stream_fails_both_sides() {
    a_cut_in_the_stream_at(wire_len(&data()) - 1);
}

#[test]
fn a_lost_reply_fails_the_sender_but_not_the_receiver_that_has_every_byte() {
    let data = data();
    let rig = Rig::receiver(&[]).sender(Fault::CutReply, Input::File(&data), &[]);
    let done = rig
        .relay()
        .wait_for(LIMIT, |e| matches!(e, Event::SenderDone(_)));
    assert_eq!(done, Event::SenderDone(wire_len(&data)));
    let end = rig.finish();
    assert_eq!(end.receiver.code(), Some(0), "{}", end.receiver.stderr);
    assert_eq!(end.out.as_deref(), Some(&data[..]));
    end.sender().fails_saying(1, "confirm");
    end.holds_the_invariants(&data);
}
