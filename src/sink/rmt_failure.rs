//! What a failed rmt output says about the data: the exact bytes the
//! server acknowledged, and what became of the blocks sent but not
//! acknowledged when the output failed, so that a message never reports
//! merely sent blocks as written. After a refusal the server still
//! executes the blocks sent behind the refused one; their replies are
//! taken here (within one timeout in all) and the bytes that landed
//! beyond the committed prefix are named, because the medium then has a
//! gap with stray data after it.

use std::collections::VecDeque;
use std::io;
use std::time::{Duration, Instant};

use super::write_error::VolumeChangeFailed;
use crate::rmt::protocol::Reply;
use crate::rmt::session::{RmtError, Session};

/// After a refusal: takes the replies to the blocks still `in_flight`,
/// within `timeout` in all, and says how many bytes landed beyond the
/// committed prefix. The blocks after one whose reply did not come stay
/// in flight.
pub(super) fn landed_beyond<T>(
    in_flight: &mut VecDeque<T>,
    session: &mut Session,
    timeout: Duration,
) -> String {
    let sent = in_flight.len();
    let deadline = Instant::now() + timeout;
    let (mut landed_blocks, mut landed_bytes, mut answered) = (0u64, 0u64, 0usize);
    while in_flight.pop_front().is_some() {
        let left = deadline.saturating_duration_since(Instant::now());
        match session.wait_reply_within(left) {
            Ok(Reply::Number(n)) if n > 0 => {
                landed_blocks += 1;
                landed_bytes += n;
            }
            Ok(_) => {}
            Err(_) => break,
        }
        answered += 1;
    }
    let unknown = sent - answered;
    let mut note = match landed_bytes {
        0 => format!("none of the {} already sent after it landed", blocks(sent)),
        _ => format!(
            "{landed_blocks} of the {} already sent after it landed anyway \
             ({landed_bytes} bytes beyond the committed prefix): the medium has a gap, \
             then stray data after the committed prefix",
            blocks(sent)
        ),
    };
    if unknown > 0 {
        note += &format!("; whether the last {unknown} of them landed is unknown (no reply)");
    }
    note
}

/// Why the output failed, with the exact number of bytes `committed`:
/// `e` is the failure, `in_flight` the blocks sent and not acknowledged,
/// `beyond` what `landed_beyond` found after a refusal.
pub(super) fn failure_why(
    e: &io::Error,
    committed: u64,
    in_flight: usize,
    beyond: Option<String>,
) -> String {
    let change = e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<VolumeChangeFailed>());
    let stopped = e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<RmtError>())
        .is_some_and(|inner| matches!(inner, RmtError::Stopped));
    let closing = e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<RmtError>())
        .is_some_and(|inner| matches!(inner, RmtError::Close(_)));
    let mut why = match change {
        Some(change) => change.to_string(),
        None if stopped && in_flight == 0 => format!(
            "stopped before the server acknowledged the close (the end of the data, or its \
             filemark, may not be on the medium); {committed} bytes committed"
        ),
        None if stopped => format!(
            "stopped with {} sent but not acknowledged by the server (they may or may \
             not be on the medium); {committed} bytes committed",
            blocks(in_flight)
        ),
        None if closing => format!(
            "{e}; the data may not be on the medium; {committed} bytes were acknowledged before the close"
        ),
        None => format!("{e}; {committed} bytes committed"),
    };
    match beyond {
        Some(beyond) => why = format!("{why}; {beyond}"),
        None if !stopped && in_flight > 0 => {
            why = format!(
                "{why}; {} already sent got no reply that could be trusted \
                 (they may or may not be on the medium)",
                blocks(in_flight)
            )
        }
        None => {}
    }
    why
}

/// "1 block", "3 blocks".
fn blocks(n: usize) -> String {
    match n {
        1 => "1 block".into(),
        n => format!("{n} blocks"),
    }
}
