//! The receiver ends early: killed, stopped by SIGTERM, its output failing,
//! or stopped by its watchdog. The sender fails; a receiver that commits says
//! what it holds. Each case runs over every framed privacy
//! (`rig::over_each_privacy`).

use nix::sys::signal::Signal;
use tapebuf::net::facts::Privacy;

use crate::faults::relay::Fault;
use crate::faults::rig::{self, over_each_privacy, Input, Rig, BLOCK, LIMIT};
use crate::faults::{data, sender_mid_stream, stalled_mid_stream, FED};

/// Stops the receiver by `sig` once `FED` blocks are through, then lets
/// the sender send the rest and end its input.
fn a_receiver_stopped_by(privacy: Privacy, sig: Signal) -> (rig::Ending, Vec<u8>) {
    let (mut rig, whole) = sender_mid_stream(privacy, sig as u64 + 100, &[]);
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
    over_each_privacy(|p| {
        a_receiver_stopped_by(p, Signal::SIGKILL);
    });
}

#[test]
fn a_receiver_stopped_by_sigterm_commits_what_it_holds_and_fails_the_sender() {
    over_each_privacy(|p| {
        let (end, whole) = a_receiver_stopped_by(p, Signal::SIGTERM);
        assert!(end.committed.is_some(), "{}", end.receiver.stderr);
        assert!(end.held() < whole.len() as u64);
    });
}

#[test]
fn a_receiver_whose_output_fails_fails_the_sender() {
    let data = data();
    over_each_privacy(|privacy| {
        let end = Rig::receiver_to(privacy, Some("/dev/full".into()), &[])
            .sender(Fault::None, Input::File(&data), &[])
            .finish();
        end.receiver.fails_saying(1, "No space left on device");
        assert_eq!(end.committed, Some(0), "{}", end.receiver.stderr);
        end.sender().fails_saying(1, "receiver");
    });
}

#[test]
fn a_receiver_stopped_by_its_watchdog_fails_both_sides() {
    let data = data();
    over_each_privacy(|privacy| {
        let end = stalled_mid_stream(privacy, &data, &["-W", "1"]);
        end.sender().fails_saying(1, "--timeout");
        end.receiver_fails_short(&data, data.len() as u64, "--watchdog");
    });
}
