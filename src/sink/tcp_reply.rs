//! What a framed stream's receiver says back to its sender, as the
//! sender reads it: the confirmation of the stream's end (`await_reply`,
//! with a resumable stream's acknowledgements before it), and the reason
//! a receiver gave before it hung up (`explain_hangup`), and its answer
//! to a resumable stream's session record (`introduce`) and its
//! acknowledgements as they come (`read_replies`).

use std::io::{self, Read, Write};

use std::time::Duration;

use crate::net::frame::{self, FramedWriter, Hello, Reply};
use crate::net::link::Link;

/// Waits for the receiver's reply after the trailer. A resumable
/// stream's acknowledgements may come first: `held` hears each.
pub fn await_reply(
    w: &mut FramedWriter<Link>,
    mut held: impl FnMut(&mut FramedWriter<Link>, u64),
) -> io::Result<()> {
    let sent = w.total();
    // A raw receiver cannot have finished a TLS handshake: no hint there.
    let hint = match w.get_ref().is_private() {
        false => format!(" {RAW_HINT}"),
        true => String::new(),
    };
    let mut reply = [0u8; frame::REPLY_LEN];
    loop {
        read_reply(w, &mut reply, sent, &hint)?;
        // Whatever the answer, it is no dropped connection: never resumed.
        let invalid = |why: String| io::Error::new(io::ErrorKind::InvalidData, why);
        match frame::parse_reply(&reply).map_err(invalid)? {
            Reply::Held(n) => held(w, n),
            Reply::Ok(n) if n == sent => return Ok(()),
            Reply::Ok(n) => {
                return Err(invalid(format!(
                    "the receiver confirmed {n} bytes, but {sent} were sent"
                )))
            }
            Reply::Bad(at) => return Err(damaged(at)),
            other => {
                return Err(invalid(format!(
                    "the receiver answered {other:?} at the end of the stream"
                )))
            }
        }
    }
}

/// Reads one reply at the end of the stream, saying what a failure means.
/// The error keeps its kind, so that a resumable stream can tell a
/// dropped connection from a refusal.
fn read_reply(
    w: &mut FramedWriter<Link>,
    reply: &mut [u8; frame::REPLY_LEN],
    sent: u64,
    hint: &str,
) -> io::Result<()> {
    match w.get_mut().read_exact(reply) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!(
                "the receiver closed the connection without confirming the end of the stream; it may not have all {sent} bytes.{hint}"
            ),
        )),
        Err(e) => Err(io::Error::new(
            e.kind(),
            format!("waiting for the receiver to confirm {sent} bytes: {e}.{hint}"),
        )),
    }
}

/// What a sender whose confirmation never came tells the user: a raw
/// receiver stores the framing as data and never replies.
pub const RAW_HINT: &str = "If the receiver is mbuffer, nc, socat or tapebuf -I --raw, it takes raw bytes and stores tapebuf's framing as data: send with --raw";

/// A receiver that finds damage replies and hangs up, so the sender's next
/// write fails. If that reply is waiting on the socket, it is the better
/// reason; otherwise the write's own error stands.
pub fn explain_hangup(w: &mut FramedWriter<Link>, err: io::Error) -> io::Error {
    let link = w.get_mut();
    if link
        .tcp()
        .set_read_timeout(Some(HANGUP_REPLY_WAIT))
        .is_err()
    {
        return err;
    }
    let mut reply = [0u8; frame::REPLY_LEN];
    loop {
        match link
            .read_exact(&mut reply)
            .map(|_| frame::parse_reply(&reply))
        {
            // Acknowledgements before it say nothing of the damage.
            Ok(Ok(Reply::Held(_))) => continue,
            Ok(Ok(Reply::Bad(at))) => {
                return io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("the receiver found the stream damaged at byte {at} and hung up"),
                )
            }
            _ => return err,
        }
    }
}

/// How long a failed sender looks for the receiver's reason.
const HANGUP_REPLY_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// Sends the session record and reads the receiver's answer within
/// `limit`; the socket waits `stall` again after.
pub fn introduce(
    link: &mut Link,
    hello: Hello,
    limit: Duration,
    stall: Option<Duration>,
) -> io::Result<Reply> {
    link.write_all(&hello.encode())?;
    link.flush()?;
    let mut reply = [0u8; frame::REPLY_LEN];
    link.read_exact_within(&mut reply, limit, stall)?;
    frame::parse_reply(&reply).map_err(io::Error::other)
}

pub fn damaged(at: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("the receiver found the stream damaged at byte {at}"),
    )
}

/// Reads the replies that arrive within `wait`: the whole ones, keeping a
/// part of one in `pending`. None when nothing came.
pub fn read_replies(
    link: &mut Link,
    pending: &mut Vec<u8>,
    wait: Duration,
) -> io::Result<Option<Vec<Reply>>> {
    let mut buf = [0u8; 4096];
    let Some(n) = link.read_ready(&mut buf, wait)? else {
        return Ok(None);
    };
    if n == 0 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the receiver closed the connection in the middle of the stream",
        ));
    }
    pending.extend_from_slice(&buf[..n]);
    let whole = pending.len() / frame::REPLY_LEN * frame::REPLY_LEN;
    let bytes: Vec<u8> = pending.drain(..whole).collect();
    bytes
        .chunks_exact(frame::REPLY_LEN)
        .map(|c| {
            let reply = c.try_into().expect("a whole reply");
            frame::parse_reply(reply).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
        })
        .collect::<io::Result<Vec<Reply>>>()
        .map(Some)
}

/// A reply that has no place in the middle of a stream: the receiver's
/// damage report, or a protocol error. Never a drop.
pub fn unexpected(reply: Reply) -> io::Error {
    match reply {
        Reply::Bad(at) => damaged(at),
        other => io::Error::new(
            io::ErrorKind::InvalidData,
            format!("the receiver answered {other:?} in the middle of the stream"),
        ),
    }
}
