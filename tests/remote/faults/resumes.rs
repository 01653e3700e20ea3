//! Resumed streams (`--resume-timeout` on both ends): a connection cut
//! many times still ends byte-exact with both sides exiting 0, and every
//! way a resumable stream can still fail fails both sides as documented:
//! a sender killed, a receiver killed, a drop longer than the window, a
//! stranger's session, a receiver that takes no resumable streams, and a
//! sender that no longer keeps the bytes the receiver needs. Each case
//! checks both exit codes and the receiver's committed count against
//! OUT, over every framed privacy where the case is not about one.

use std::io::{Read, Write};
use std::net::TcpStream;

use nix::sys::signal::Signal;
use tapebuf::net::facts::Privacy;
use tapebuf::net::frame;

use crate::common::pattern;
use crate::faults::cutter::{cut_points, Then};
use crate::faults::relay::Fault;
use crate::faults::rig::{end_at, over_each_privacy, Input, Rig, BLOCK, END_MARKER};
use crate::faults::{data, fed_mid_stream, FED, WHOLE};

const WINDOW: &[&str] = &["--resume-timeout", "3"];

#[test]
fn a_stream_cut_twenty_times_is_resumed_byte_exact_and_both_sides_count_the_resumes() {
    let data = pattern(12 << 20, 48);
    over_each_privacy(|privacy| {
        let seed = 0x7e57_0048 + privacy as u64;
        eprintln!("cut points from seed {seed:#x}");
        let dir = tempfile::tempdir().unwrap();
        let json = dir.path().join("summary.json");
        let json_flag = ["--summary-json", json.to_str().unwrap()];
        let mut rig = Rig::receiver_over(privacy, &[WINDOW, &json_flag].concat()).sender_cut(
            (cut_points(20, seed, 96 * 1024, 400 * 1024), Then::Pass),
            Input::File(&data),
            WINDOW,
        );
        let cutter = rig.cutter.take().unwrap();
        let end = rig.finish();
        assert_eq!(cutter.cut(), 20, "every cut point was reached");
        end.succeeds_byte_exact(&data);
        end.sender()
            .says("resumed 20 times after dropped connections");
        end.receiver
            .says("resumed 20 times after dropped connections");
        let summary: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        let stream = &summary["network"][0];
        assert_eq!(stream["resumable"], true, "{summary}");
        assert_eq!(stream["resumes"], 20, "{summary}");
    });
}

/// A resumable stream over `privacy` whose sender was fed `FED` of
/// `WHOLE` blocks through its pipe, held open, and whose receiver holds
/// them all. Returns the rig and the whole input.
fn resumable_mid_stream(privacy: Privacy, seed: u64) -> (Rig, Vec<u8>) {
    resumable_mid_stream_with(privacy, seed, WINDOW)
}

/// The same with `flags` on both ends.
fn resumable_mid_stream_with(privacy: Privacy, seed: u64, flags: &[&str]) -> (Rig, Vec<u8>) {
    let rig =
        Rig::receiver_over(privacy, flags).sender_cut((vec![], Then::Pass), Input::Pipe, flags);
    fed_mid_stream(rig, seed)
}

/// A resumable sender stopped by a signal or its watchdog ends its
/// stream with the abort marker, which the receiver never takes for a
/// drop: it fails at once, not after its window (600 s here, longer than
/// the case may take), keeping exactly what was sent.
#[test]
fn a_resumable_sender_stopped_on_purpose_fails_the_receiver_at_once() {
    let long = ["--resume-timeout", "600"];
    over_each_privacy(|privacy| {
        for sig in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP] {
            let (rig, whole) = resumable_mid_stream_with(privacy, sig as u64, &long);
            rig.sender.as_ref().unwrap().signal(sig);
            let end = rig.finish();
            assert_eq!(end.sender().signal(), Some(sig as i32), "{sig:?}");
            let total = whole.len() as u64;
            end.receiver_fails_short(&whole, total, "stopped before the end of its input");
            assert_eq!(end.held(), FED * BLOCK);
        }
        // Only the sender watches: its pipe stays open and idle.
        let watched = [&long[..], &["-W", "1"]].concat();
        let rig = Rig::receiver_over(privacy, &long).sender_cut(
            (vec![], Then::Pass),
            Input::Pipe,
            &watched,
        );
        let (rig, whole) = fed_mid_stream(rig, 3);
        let end = rig.finish();
        end.sender().fails_saying(1, "--watchdog");
        let total = whole.len() as u64;
        end.receiver_fails_short(&whole, total, "stopped before the end of its input");
    });
}

#[test]
fn a_sender_killed_in_a_resumable_stream_fails_the_receiver_once_its_window_closes() {
    over_each_privacy(|privacy| {
        let (rig, whole) = resumable_mid_stream(privacy, 49);
        rig.sender.as_ref().unwrap().signal(Signal::SIGKILL);
        let end = rig.finish();
        assert_eq!(end.sender().signal(), Some(Signal::SIGKILL as i32));
        end.receiver_fails_short(
            &whole,
            whole.len() as u64,
            "did not resume within --resume-timeout",
        );
        assert_eq!(end.held(), FED * BLOCK);
    });
}

/// A sender that stands still past the receiver's `--timeout` (stopped
/// with SIGSTOP) is given up by the receiver, which waits for it; once it
/// goes on, it finds its connection gone, connects again and resumes, and
/// the stream ends whole with both sides exiting 0.
#[test]
fn a_sender_stalled_past_the_receivers_timeout_resumes_and_the_stream_ends_whole() {
    let flags = ["--resume-timeout", "20", "--timeout", "2"];
    over_each_privacy(|privacy| {
        let (mut rig, whole) = resumable_mid_stream_with(privacy, 55, &flags);
        rig.sending().signal(Signal::SIGSTOP);
        rig.receiver
            .wait_line("the connection dropped at byte", crate::faults::rig::LIMIT);
        let sender = rig.sending();
        sender.signal(Signal::SIGCONT);
        sender.feed(&whole[(FED * BLOCK) as usize..]);
        sender.close_stdin();
        let end = rig.finish();
        end.succeeds_byte_exact(&whole);
        end.sender().says("resumed once after a dropped connection");
        end.receiver.says("resumed once after a dropped connection");
    });
}

#[test]
fn a_receiver_killed_or_stopped_in_a_resumable_stream_fails_the_sender_once_its_window_closes() {
    over_each_privacy(|privacy| {
        for sig in [Signal::SIGKILL, Signal::SIGINT, Signal::SIGTERM] {
            let (mut rig, whole) = resumable_mid_stream(privacy, 50);
            rig.receiver.signal(sig);
            // The rest goes to the sender only once the receiver is gone:
            // fed sooner, a stream could end whole before the signal is
            // heard.
            rig.receiver.wait_gone(crate::faults::rig::LIMIT);
            let sender = rig.sending();
            sender.feed(&whole[(FED * BLOCK) as usize..]);
            sender.close_stdin();
            let end = rig.finish();
            assert_eq!(end.receiver.signal(), Some(sig as i32), "{sig:?}");
            end.sender()
                .fails_saying(1, "could not be resumed within --resume-timeout");
            end.holds_the_invariants(&whole);
        }
    });
}

#[test]
fn a_drop_longer_than_the_resume_timeout_fails_both_sides_with_an_exact_prefix() {
    let data = pattern(4 << 20, 51);
    over_each_privacy(|privacy| {
        let end = Rig::receiver_over(privacy, WINDOW)
            .sender_cut((vec![300_000], Then::Hold), Input::File(&data), WINDOW)
            .finish();
        end.sender()
            .fails_saying(1, "could not be resumed within --resume-timeout (3 s)");
        end.receiver_fails_short(
            &data,
            data.len() as u64,
            "did not resume within --resume-timeout (3 s)",
        );
    });
}

#[test]
fn a_resumable_sender_is_refused_before_any_byte_by_a_receiver_without_a_window() {
    let data = pattern(1 << 20, 52);
    over_each_privacy(|privacy| {
        let end = Rig::receiver_over(privacy, &["--connect-timeout", "3"])
            .sender_cut((vec![], Then::Pass), Input::File(&data), WINDOW)
            .finish();
        end.sender()
            .fails_saying(1, "start it with --resume-timeout too");
        end.no_sender_was_found();
    });
}

/// Every fault the relay makes, over every framed privacy, with both ends
/// resumable: nothing hangs, no side exits 0 unless OUT is byte-exact,
/// the receiver's committed count is what OUT holds, and a stream that
/// is only slowed (or not touched) arrives whole. The relay takes one
/// connection, so a resume after a cut or a stall finds nobody and fails.
#[test]
fn every_relay_fault_on_a_resumable_stream_ends_within_its_limits_and_never_claims_a_short_stream()
{
    let data = data();
    let flags = ["--resume-timeout", "2", "--timeout", "2"];
    over_each_privacy(|privacy| {
        for fault in Fault::every(end_at(data.len() as u64) / 2) {
            eprintln!("--- {fault:?}");
            let end = Rig::receiver_over(privacy, &flags)
                .sender(fault, Input::File(&data), &flags)
                .finish();
            end.holds_the_invariants(&data);
            if matches!(fault, Fault::None | Fault::DelayAt(_)) {
                end.succeeds_byte_exact(&data);
            }
        }
    });
}

#[test]
fn a_damaged_end_of_a_resumable_stream_fails_both_sides_at_once_without_resuming() {
    // The trailer's byte count, low byte; the session record comes after
    // the header. The window is longer than the case may take.
    let data = data();
    let at = end_at(data.len() as u64) + frame::SESSION_LEN as u64 + END_MARKER + 7;
    let long = ["--resume-timeout", "600"];
    let end = Rig::receiver(&long)
        .sender(Fault::FlipBitAt(at), Input::File(&data), &long)
        .finish();
    end.receiver.fails_saying(1, "trailer does not match");
    end.sender().fails_saying(1, "damaged");
    end.holds_the_invariants(&data);
}

/// A plain sender by hand at `addr`: the header of a resumable stream of
/// 64 KiB blocks and a session record; `sent` hears when both are sent.
/// Returns the connection and the receiver's answer.
fn open_by_hand(
    addr: std::net::SocketAddr,
    id: [u8; 16],
    from: u64,
    sent: Option<std::sync::mpsc::Sender<()>>,
) -> (TcpStream, frame::Reply) {
    let mut conn = TcpStream::connect(addr).unwrap();
    conn.write_all(&frame::header_with(BLOCK as u32, frame::RESUMABLE))
        .unwrap();
    let mut record = id.to_vec();
    record.extend_from_slice(&from.to_be_bytes());
    conn.write_all(&record).unwrap();
    if let Some(sent) = sent {
        sent.send(()).unwrap();
    }
    let reply = read_reply(&mut conn);
    (conn, reply)
}

fn read_reply(conn: &mut TcpStream) -> frame::Reply {
    let mut reply = [0u8; frame::REPLY_LEN];
    conn.read_exact(&mut reply).unwrap();
    frame::parse_reply(&reply).unwrap()
}

#[test]
fn a_connection_with_a_strangers_session_is_refused_and_the_sender_then_resumes() {
    let whole = pattern((WHOLE * BLOCK) as usize, 53);
    // The sender's first connection is cut inside block FED + 1, which the
    // test feeds only once the stranger is waiting in the listener's queue.
    let cut = (FED * BLOCK) + BLOCK / 2;
    let mut rig = Rig::receiver(WINDOW).sender_cut((vec![cut], Then::Pass), Input::Pipe, WINDOW);
    rig.sending().feed(&whole[..(FED * BLOCK) as usize]);
    rig.wait_held(FED * BLOCK);
    // The stranger waits in the listener's queue before the cut, so the
    // receiver looks at it first once the connection drops.
    let addr = rig.receiver_addr();
    let (queued, in_queue) = std::sync::mpsc::channel();
    let asking = std::thread::spawn(move || open_by_hand(addr, [7; 16], 0, Some(queued)).1);
    in_queue.recv().unwrap();
    let sender = rig.sending();
    sender.feed(&whole[(FED * BLOCK) as usize..]);
    sender.close_stdin();
    let stranger = asking.join().unwrap();
    assert_eq!(
        stranger,
        frame::Reply::Refused(frame::Refused::UnknownSession)
    );
    let end = rig.finish();
    end.receiver.says("not the stream being resumed");
    end.succeeds_byte_exact(&whole);
    end.sender().says("resumed once after a dropped connection");
}

#[test]
fn a_sender_that_no_longer_keeps_the_bytes_needed_fails_the_receiver_naming_them() {
    let rig = Rig::receiver(WINDOW);
    let id = [9; 16];
    let (mut conn, reply) = open_by_hand(rig.receiver_addr(), id, 0, None);
    assert_eq!(reply, frame::Reply::GoOn(0));
    let block = pattern(BLOCK as usize, 54);
    let mut head = (BLOCK as u32).to_be_bytes().to_vec();
    head.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(&block).to_be_bytes());
    conn.write_all(&head).unwrap();
    conn.write_all(&block).unwrap();
    assert_eq!(read_reply(&mut conn), frame::Reply::Held(BLOCK));
    drop(conn);
    let (_conn, reply) = open_by_hand(rig.receiver_addr(), id, 1 << 20, None);
    assert_eq!(reply, frame::Reply::GoOn(BLOCK));
    let end = rig.finish();
    end.receiver
        .fails_saying(1, &format!("bytes {BLOCK} to {} are lost", 1 << 20));
    assert_eq!(end.out.as_deref(), Some(&block[..]));
    end.counts_what_it_holds();
}
