//! The sender ends early: stopped by a signal or its watchdog, its input
//! failing, or killed. The receiver fails and keeps exactly what was sent.
//! Each case runs over every framed privacy (`rig::over_each_privacy`).

use nix::sys::signal::Signal;
use tapebuf::net::facts::Privacy;

use crate::faults::relay::Fault;
use crate::faults::rig::{self, over_each_privacy, Input, Rig, BLOCK};
use crate::faults::{data, sender_mid_stream, FED};

/// The receiver failed saying `what` and kept exactly the blocks fed.
fn keeps_what_was_fed(end: &rig::Ending, whole: &[u8], what: &str) {
    end.receiver_fails_short(whole, whole.len() as u64, what);
    assert_eq!(end.held(), FED * BLOCK);
}

/// A sender stopped by `sig` mid-stream dies by it; the receiver fails,
/// keeping exactly the blocks that were sent.
fn a_sender_stopped_by(privacy: Privacy, sig: Signal) {
    let (rig, whole) = sender_mid_stream(privacy, sig as u64, &[]);
    rig.sender.as_ref().unwrap().signal(sig);
    let end = rig.finish();
    let sender = end.sender();
    assert_eq!(sender.signal(), Some(sig as i32), "{}", sender.stderr);
    keeps_what_was_fed(&end, &whole, "stopped before the end of its input");
}

#[test]
fn a_sender_stopped_by_sigint_fails_the_receiver_which_keeps_what_was_sent() {
    over_each_privacy(|p| a_sender_stopped_by(p, Signal::SIGINT));
}

#[test]
fn a_sender_stopped_by_sigterm_fails_the_receiver_which_keeps_what_was_sent() {
    over_each_privacy(|p| a_sender_stopped_by(p, Signal::SIGTERM));
}

#[test]
fn a_sender_stopped_by_sighup_fails_the_receiver_which_keeps_what_was_sent() {
    over_each_privacy(|p| a_sender_stopped_by(p, Signal::SIGHUP));
}

#[test]
fn a_sender_stopped_by_its_watchdog_fails_the_receiver_which_keeps_what_was_sent() {
    // The pipe stays open and idle after FED blocks: only -W ends the
    // sender.
    over_each_privacy(|privacy| {
        let (rig, whole) = sender_mid_stream(privacy, 3, &["-W", "1"]);
        let end = rig.finish();
        end.sender().fails_saying(1, "--watchdog");
        keeps_what_was_fed(&end, &whole, "stopped before the end of its input");
    });
}

#[test]
fn a_sender_whose_input_fails_fails_the_receiver_although_every_byte_read_arrived() {
    // Volume 2 of the input cannot be had: the change command fails and
    // there is no terminal to ask.
    let data = data();
    over_each_privacy(|privacy| {
        let end = Rig::receiver_over(privacy, &[])
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
    });
}

#[test]
fn a_sender_killed_mid_stream_fails_the_receiver_which_keeps_an_exact_prefix() {
    over_each_privacy(|privacy| {
        let (rig, whole) = sender_mid_stream(privacy, 4, &[]);
        rig.sender.as_ref().unwrap().signal(Signal::SIGKILL);
        let end = rig.finish();
        assert_eq!(end.sender().signal(), Some(libc::SIGKILL));
        keeps_what_was_fed(&end, &whole, "without tapebuf's end-of-stream trailer");
    });
}
