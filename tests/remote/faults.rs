//! The TCP fault suite: a real sender (`-O`) and a real receiver (`-I`),
//! with a relay in the test between them that cuts, stalls or corrupts the
//! stream at a chosen byte. Each case ends one side a different way (a
//! signal, the watchdog, an input failure, a kill, a cut at each structural
//! boundary of the stream, a stall, damage, a lost reply, a connection that
//! is not a sender) and asserts both exit codes, that the receiver's
//! committed count is what its output holds, and that no side reports
//! success unless the output is byte-exact.
//!
//! This file holds the clean run and the inputs and mid-stream set-ups the
//! cases share; the cases are grouped by which side ends and how in
//! tests/faults/, beside the rig, relay and peer they drive.

use crate::common;
mod cuts;
pub mod cutter;
mod damage;
mod peer;
mod private_cuts;
mod receiver_ends;
mod relay;
mod resume_long;
mod resumes;
mod rig;
mod sender_ends;
mod strangers;

use common::pattern;
use relay::{Event, Fault};
use rig::{end_at, frame_at, Input, Rig, BLOCK, END_MARKER, LIMIT, TRAILER};
use tapebuf::net::facts::Privacy;

/// What the file-fed cases send: 32 full blocks and a short one.
pub fn data() -> Vec<u8> {
    pattern((32 * BLOCK + 1000) as usize, 15)
}

/// The whole framed stream of `data()` on the wire.
pub fn wire_len(data: &[u8]) -> u64 {
    end_at(data.len() as u64) + END_MARKER + TRAILER
}

// --- the clean run -------------------------------------------------------

#[test]
fn a_clean_run_exits_0_on_both_sides_with_a_byte_exact_copy() {
    let data = data();
    rig::over_each_privacy(|privacy| {
        Rig::run_over(privacy, Fault::None, &data, &[]).succeeds_byte_exact(&data);
    });
}

// --- shared by the cases that stop one side mid-stream -------------------

/// Blocks the pipe-fed cases could send, and blocks they feed before the
/// fault.
pub const WHOLE: u64 = 8;
pub const FED: u64 = 5;

/// Feeds the sender `FED` of `WHOLE` blocks through its pipe, held open,
/// over `privacy`, and waits until the receiver's output holds all of
/// them. Returns the rig and the whole input.
pub fn sender_mid_stream(privacy: Privacy, seed: u64, sender_extra: &[&str]) -> (Rig, Vec<u8>) {
    let rig = Rig::receiver_over(privacy, &[]).sender(Fault::None, Input::Pipe, sender_extra);
    fed_mid_stream(rig, seed)
}

/// Feeds the pipe-fed sender of `rig` `FED` of `WHOLE` blocks made from
/// `seed`, holding the pipe open, and waits until the receiver's output
/// holds them. Returns the rig and the whole input.
pub fn fed_mid_stream(rig: Rig, seed: u64) -> (Rig, Vec<u8>) {
    let whole = pattern((WHOLE * BLOCK) as usize, seed);
    rig.sender
        .as_ref()
        .unwrap()
        .feed(&whole[..(FED * BLOCK) as usize]);
    rig.wait_held(FED * BLOCK);
    (rig, whole)
}

/// The relay stalls inside the stream's early blocks (block 3 of a plain
/// stream; TLS records make it a little earlier); the sender runs with
/// `--timeout 2`.
pub fn stalled_mid_stream(privacy: Privacy, data: &[u8], receiver_extra: &[&str]) -> rig::Ending {
    let rig = Rig::receiver_over(privacy, receiver_extra).sender(
        Fault::StallAt(frame_at(3) + 100),
        Input::File(data),
        &["--timeout", "2"],
    );
    rig.relay()
        .wait_for(LIMIT, |e| matches!(e, Event::Stalled(_)));
    rig.finish()
}
