//! The TCP fault suite: a real sender (`-O`) and a real receiver (`-I`),
//! with a relay in the test between them that cuts, stalls or corrupts the
//! stream at a chosen byte. Each case ends one side a different way (a
//! signal, the watchdog, an input failure, a kill, a cut at each structural
//! boundary of the stream, a stall, damage, a lost reply, a connection that
//! is not a sender) and asserts both exit codes, that the receiver's
//! committed count is what its output holds, and that no side reports
//! success unless the output is byte-exact.

mod common;
#[path = "faults/peer.rs"]
mod peer;
#[path = "faults/relay.rs"]
mod relay;
#[path = "faults/rig.rs"]
mod rig;

use nix::sys::signal::Signal;

use common::pattern;
use relay::{Event, Fault};
use rig::{end_at, frame_at, Input, Rig, BLOCK, END_MARKER, FRAME_HEAD, HEADER, LIMIT, TRAILER};

/// What the file-fed cases send: 32 full blocks and a short one.
fn data() -> Vec<u8> {
    pattern((32 * BLOCK + 1000) as usize, 15)
}

/// The whole framed stream of `data()` on the wire.
fn wire_len(data: &[u8]) -> u64 {
    end_at(data.len() as u64) + END_MARKER + TRAILER
}

// --- the clean run -------------------------------------------------------

#[test]
fn a_clean_run_exits_0_on_both_sides_with_a_byte_exact_copy() {
    let data = data();
    Rig::run(Fault::None, &data, &[]).succeeds_byte_exact(&data);
}

// --- the sender ends early -----------------------------------------------

/// Blocks the pipe-fed cases could send, and blocks they feed before the
/// fault.
const WHOLE: u64 = 8;
const FED: u64 = 5;

/// Feeds the sender `FED` of `WHOLE` blocks through its pipe, held open,
/// and waits until the receiver has been sent all of them. Returns the
/// rig and the whole input.
fn sender_mid_stream(seed: u64, sender_extra: &[&str]) -> (Rig, Vec<u8>) {
    let whole = pattern((WHOLE * BLOCK) as usize, seed);
    let rig = Rig::receiver(&[]).sender(Fault::None, Input::Pipe, sender_extra);
    rig.sender
        .as_ref()
        .unwrap()
        .feed(&whole[..(FED * BLOCK) as usize]);
    rig.relay().wait_forwarded(frame_at(FED), LIMIT);
    (rig, whole)
}

/// The receiver failed saying `what` and kept exactly the blocks fed.
fn keeps_what_was_fed(end: &rig::Ending, whole: &[u8], what: &str) {
    end.receiver_fails_short(whole, whole.len() as u64, what);
    assert_eq!(end.held(), FED * BLOCK);
}

/// A sender stopped by `sig` mid-stream dies by it; the receiver fails,
/// keeping exactly the blocks that were sent.
fn a_sender_stopped_by(sig: Signal) {
    let (rig, whole) = sender_mid_stream(sig as u64, &[]);
    rig.sender.as_ref().unwrap().signal(sig);
    let end = rig.finish();
    let sender = end.sender();
    assert_eq!(sender.signal(), Some(sig as i32), "{}", sender.stderr);
    keeps_what_was_fed(&end, &whole, "stopped before the end of its input");
}

#[test]
fn a_sender_stopped_by_sigint_fails_the_receiver_which_keeps_what_was_sent() {
    a_sender_stopped_by(Signal::SIGINT);
}

#[test]
fn a_sender_stopped_by_sigterm_fails_the_receiver_which_keeps_what_was_sent() {
    a_sender_stopped_by(Signal::SIGTERM);
}

#[test]
fn a_sender_stopped_by_sighup_fails_the_receiver_which_keeps_what_was_sent() {
    a_sender_stopped_by(Signal::SIGHUP);
}

#[test]
fn a_sender_stopped_by_its_watchdog_fails_the_receiver_which_keeps_what_was_sent() {
    // The pipe stays open and idle after FED blocks: only -W ends the
    // sender.
    let (rig, whole) = sender_mid_stream(3, &["-W", "1"]);
    let end = rig.finish();
    end.sender().fails_saying(1, "--watchdog");
    keeps_what_was_fed(&end, &whole, "stopped before the end of its input");
}

#[test]
fn a_sender_whose_input_fails_fails_the_receiver_although_every_byte_read_arrived() {
    // Volume 2 of the input cannot be had: the change command fails and
    // there is no terminal to ask.
    let data = data();
    let end = Rig::receiver(&[])
        .sender(
            Fault::None,
            Input::File(&data),
            &["-n", "2", "-A", "exit 3"],
        )
        .finish();
    end.sender().fails_saying(1, "--change-command");
    end.receiver
        .fails_saying(1, "stopped before the end of its input");
    end.holds_the_invariants(&data);
    assert_eq!(end.committed, Some(data.len() as u64));
}

#[test]
fn a_sender_killed_mid_stream_fails_the_receiver_which_keeps_an_exact_prefix() {
    let (rig, whole) = sender_mid_stream(4, &[]);
    rig.sender.as_ref().unwrap().signal(Signal::SIGKILL);
    let end = rig.finish();
    assert_eq!(end.sender().signal(), Some(libc::SIGKILL));
    keeps_what_was_fed(&end, &whole, "without tapebuf's end-of-stream trailer");
}

// --- the receiver ends early ---------------------------------------------

/// Stops the receiver by `sig` once `FED` blocks are through, then lets
/// the sender send the rest and end its input.
fn a_receiver_stopped_by(sig: Signal) -> (rig::Ending, Vec<u8>) {
    let (mut rig, whole) = sender_mid_stream(sig as u64 + 100, &[]);
    rig.receiver.signal(sig);
    assert_eq!(rig.receiver.exit(LIMIT).signal(), Some(sig as i32));
    let sender = rig.sending();
    sender.feed(&whole[(FED * BLOCK) as usize..]);
    sender.close_stdin();
    let end = rig.finish();
    end.sender().fails_saying(1, "receiver");
    end.holds_the_invariants(&whole);
    (end, whole)
}

#[test]
fn a_receiver_killed_mid_stream_fails_the_sender() {
    a_receiver_stopped_by(Signal::SIGKILL);
}

#[test]
fn a_receiver_stopped_by_sigterm_commits_what_it_holds_and_fails_the_sender() {
    let (end, whole) = a_receiver_stopped_by(Signal::SIGTERM);
    assert!(end.committed.is_some(), "{}", end.receiver.stderr);
    assert!(end.held() < whole.len() as u64);
}

#[test]
fn a_receiver_whose_output_fails_fails_the_sender() {
    let data = data();
    let end = Rig::receiver_to(Some("/dev/full".into()), &[])
        .sender(Fault::None, Input::File(&data), &[])
        .finish();
    end.receiver.fails_saying(1, "No space left on device");
    assert_eq!(end.committed, Some(0), "{}", end.receiver.stderr);
    end.sender().fails_saying(1, "receiver");
}

/// The relay stalls inside block 3; the sender runs with `--timeout 2`.
fn stalled_mid_stream(data: &[u8], receiver_extra: &[&str]) -> rig::Ending {
    let rig = Rig::receiver(receiver_extra).sender(
        Fault::StallAt(frame_at(3) + 100),
        Input::File(data),
        &["--timeout", "2"],
    );
    rig.relay()
        .wait_for(LIMIT, |e| matches!(e, Event::Stalled(_)));
    rig.finish()
}

#[test]
fn a_receiver_stopped_by_its_watchdog_fails_both_sides() {
    let data = data();
    let end = stalled_mid_stream(&data, &["-W", "1"]);
    end.sender().fails_saying(1, "--timeout");
    end.receiver_fails_short(&data, data.len() as u64, "--watchdog");
}

// --- cuts at every structural boundary -----------------------------------

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

// --- damage and stalls ---------------------------------------------------

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

// --- connections that are not the sender ---------------------------------

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
    let mut rig = Rig::receiver(&["--raw"]);
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
