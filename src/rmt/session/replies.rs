//! The reply thread of an rmt session: it reads the server's standard
//! output, one reply per request in order, and learns each reply's shape
//! (`R` and `S` replies carry bytes) from a queue that the session fills
//! before it sends each request, so it never has to guess.
//!
//! Because every expectation is queued before its request is sent, bytes
//! that are already there when none is queued answer nothing: the next
//! reply taken is then an `Unsolicited` error, a desync. Once the session
//! closes the queue (after `C`), the thread reads the server's output to
//! its end and reports what came after the last reply, which must be
//! nothing.

use std::io::{self, BufReader, Read};
use std::process::ChildStdout;

use crossbeam_channel::{bounded, unbounded, Receiver, Sender};

use crate::rmt::protocol::{printable, read_reply, Expect, Reply, ReplyError};

/// The reply reader's buffer: one read takes many small replies at once.
const REPLY_BUFFER_BYTES: usize = 1 << 20;

/// The session's ends of the reply thread's channels.
pub(super) struct Replies {
    /// What each request sent awaits, in order; dropped once requests end.
    pub expects: Sender<Expect>,
    pub replies: Receiver<Result<Reply, ReplyError>>,
    /// Buffers given back for the data of later replies.
    pub spare: Sender<Vec<u8>>,
    /// What the server sent after the last reply, once requests have ended.
    pub trailing: Receiver<Trailing>,
}

impl Replies {
    /// Starts the thread reading replies from `stdout`.
    pub(super) fn start(stdout: ChildStdout) -> Replies {
        let (expect_tx, expect_rx) = unbounded::<Expect>();
        let (reply_tx, reply_rx) = unbounded();
        let (spare_tx, spare_rx) = unbounded::<Vec<u8>>();
        let (trailing_tx, trailing_rx) = bounded::<Trailing>(1);
        crate::base::thread::spawn("rmt-replies", move || {
            let mut input = BufReader::with_capacity(REPLY_BUFFER_BYTES, stdout);
            let mut unsolicited: Option<String> = None;
            while let Ok(expect) = expect_rx.recv() {
                let reply = match unsolicited.take() {
                    Some(start) => Err(ReplyError::Unsolicited(start)),
                    None => {
                        let buf = spare_rx.try_recv().unwrap_or_default();
                        read_reply(&mut input, expect, buf)
                    }
                };
                let failed = reply.is_err();
                if reply_tx.send(reply).is_err() || failed {
                    return;
                }
                // Every request's expectation is queued before the
                // request is sent, so bytes already here when none is
                // queued answer nothing. (The buffer is looked at
                // first: a reply that is here was asked for earlier.)
                if !input.buffer().is_empty() && expect_rx.is_empty() {
                    unsolicited = Some(printable(first_line(input.buffer())));
                }
            }
            // The session is finishing: the server's output must end.
            let _ = trailing_tx.send(Trailing::read(&mut input));
        })
        .expect("spawning the rmt reply thread");
        Replies {
            expects: expect_tx,
            replies: reply_rx,
            spare: spare_tx,
            trailing: trailing_rx,
        }
    }
}

/// What the server sent after its last reply: nothing, from a server in
/// step with its client.
pub(super) struct Trailing {
    pub bytes: u64,
    /// The start of it, printable.
    pub start: String,
}

impl Trailing {
    /// Reads to the end of the server's output.
    fn read(input: &mut impl Read) -> Trailing {
        let mut first = Vec::new();
        let mut bytes = 0u64;
        let mut buf = [0u8; 4096];
        loop {
            match input.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    if first.len() < 80 {
                        let room = 80 - first.len();
                        first.extend_from_slice(&buf[..n.min(room)]);
                    }
                    bytes += n as u64;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        Trailing {
            bytes,
            start: printable(first_line(&first)),
        }
    }
}

/// The bytes up to the first newline (at most 80).
fn first_line(bytes: &[u8]) -> &[u8] {
    let end = bytes
        .iter()
        .position(|&b| b == b'\n')
        .unwrap_or(bytes.len());
    &bytes[..end.min(80)]
}
