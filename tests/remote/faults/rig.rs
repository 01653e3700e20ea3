//! A fault case end to end: a receiver (`-I`) writing OUT, a sender (`-O`)
//! reading a file or the test's pipe, and the relay between them. `finish`
//! waits for both (each within a limit) and returns an `Ending`, whose
//! `holds_the_invariants` checks what every case must keep: the receiver's
//! committed count is what OUT holds, OUT is the start of what was sent,
//! and no side exits 0 unless OUT is byte-exact.
//!
//! A rig runs over one of tapebuf's framed privacies (`framed_privacies`):
//! over TLS it makes a key pair and gives each side its flags, in clear
//! text it gives each side `--plain`, so that the cases that end a stream
//! run over every one of them alike.
//!
//! The wire offsets follow `net::frame`: a 16-byte header, then per block a
//! 12-byte frame head and the block, then a 4-byte end marker and a 24-byte
//! trailer. Every frame but the last is one full block of `BLOCK` bytes.

use std::io::Write;
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::time::Duration;

use tapebuf::net::facts::Privacy;

use crate::common::keys::Pair;
use crate::common::wait::until;
use crate::common::{ports, summary_number};
use crate::faults::cutter::{Cutter, Then};
use crate::faults::peer::{Peer, Side};
use crate::faults::relay::{Fault, Relay};

/// The block size both sides use (`-s 64k`).
pub const BLOCK: u64 = 64 * 1024;
pub const HEADER: u64 = 16;
pub const FRAME_HEAD: u64 = 12;
pub const END_MARKER: u64 = 4;
pub const TRAILER: u64 = 24;
/// The most any process of a case may take to end.
pub const LIMIT: Duration = Duration::from_secs(20);

/// Where the frame of block `i` starts on the wire.
pub fn frame_at(i: u64) -> u64 {
    HEADER + i * (FRAME_HEAD + BLOCK)
}

/// Where the end marker of a stream of `data_len` bytes starts.
pub fn end_at(data_len: u64) -> u64 {
    let (full, rest) = (data_len / BLOCK, data_len % BLOCK);
    frame_at(full) + if rest > 0 { FRAME_HEAD + rest } else { 0 }
}

/// Every way a framed stream crosses the network, from tapebuf's own
/// list: the cases that end a stream run over each.
pub fn framed_privacies() -> Vec<Privacy> {
    let framed = |p: &Privacy| match p {
        Privacy::Plain | Privacy::Tls => true,
        // No frames, so no end to check: its cases are in network/raw.rs.
        Privacy::Raw => false,
    };
    Privacy::ALL.into_iter().filter(framed).collect()
}

/// Runs `case` over every framed privacy, saying which one failed.
pub fn over_each_privacy(case: impl Fn(Privacy)) {
    for privacy in framed_privacies() {
        eprintln!("--- over {privacy:?}");
        case(privacy);
    }
}

/// Where the sender's bytes come from.
pub enum Input<'a> {
    /// `-i FILE` holding these bytes.
    File(&'a [u8]),
    /// Its standard input, which the test feeds and holds open.
    Pipe,
}

/// How a case ended.
#[derive(Debug)]
pub struct Ending {
    pub sender: Option<Side>,
    pub receiver: Side,
    /// OUT's bytes; None when OUT does not exist or is not a regular file.
    pub out: Option<Vec<u8>>,
    /// The receiver's summary "out N bytes"; None without a summary.
    pub committed: Option<u64>,
}

impl Ending {
    pub fn sender(&self) -> &Side {
        self.sender.as_ref().expect("the case had a sender")
    }

    /// Bytes OUT holds (0 when it does not exist).
    pub fn held(&self) -> u64 {
        self.out.as_ref().map_or(0, |o| o.len() as u64)
    }

    /// What every case must keep, whatever its fault.
    pub fn holds_the_invariants(&self, sent: &[u8]) {
        self.counts_what_it_holds();
        self.keeps_only_what_was_sent(sent);
        self.succeeds_only_when_exact(sent);
    }

    /// The receiver's committed count is what OUT holds.
    pub fn counts_what_it_holds(&self) {
        if let Some(committed) = self.committed {
            assert_eq!(
                committed,
                self.held(),
                "committed vs held\n{}",
                self.context()
            );
        }
    }

    /// OUT is the start of what was sent: no damaged or foreign byte.
    pub fn keeps_only_what_was_sent(&self, sent: &[u8]) {
        let out = self.out.as_deref().unwrap_or_default();
        assert!(
            out.len() <= sent.len() && out == &sent[..out.len()],
            "OUT ({} bytes) is not the start of what was sent\n{}",
            out.len(),
            self.context()
        );
    }

    /// No side exits 0 unless OUT is byte-exact.
    pub fn succeeds_only_when_exact(&self, sent: &[u8]) {
        let success = self.receiver.status.success()
            || self.sender.as_ref().is_some_and(|s| s.status.success());
        if success {
            assert!(
                self.out.as_deref() == Some(sent),
                "a side exited 0 with {} of {} bytes in OUT\n{}",
                self.held(),
                sent.len(),
                self.context()
            );
        }
    }

    /// Both sides' stderr, for a failed assertion.
    fn context(&self) -> String {
        format!(
            "receiver: {}\nsender: {}",
            self.receiver.stderr,
            self.sender.as_ref().map_or("", |s| &s.stderr)
        )
    }

    /// The receiver exited 0 with a byte-exact OUT, and so did the sender
    /// if there was one.
    pub fn succeeds_byte_exact(&self, sent: &[u8]) {
        assert_eq!(self.receiver.code(), Some(0), "{}", self.context());
        if let Some(sender) = &self.sender {
            assert_eq!(sender.code(), Some(0), "{}", self.context());
        }
        assert!(
            self.out.as_deref() == Some(sent),
            "OUT differs\n{}",
            self.context()
        );
        self.holds_the_invariants(sent);
    }

    /// The receiver never took a sender: it gave up waiting, having
    /// ignored a connection, and left no OUT behind.
    pub fn no_sender_was_found(&self) {
        self.receiver.fails_saying(1, "no sender connected in time");
        self.receiver.says("ignored a connection");
        assert_eq!(self.out, None, "an output without a sender was left behind");
    }

    /// The receiver failed (exit 1) saying `what`, short of `total` bytes,
    /// with the invariants kept.
    pub fn receiver_fails_short(&self, sent: &[u8], total: u64, what: &str) {
        self.receiver.fails_saying(1, what);
        self.holds_the_invariants(sent);
        assert!(self.committed.is_some(), "{}", self.receiver.stderr);
        assert!(self.held() < total, "OUT holds {} of {total}", self.held());
    }
}

/// A receiver, and perhaps a relay and a sender in front of it. The fields
/// drop in order: processes first, the directory last.
pub struct Rig {
    pub sender: Option<Peer>,
    pub relay: Option<Relay>,
    /// The relay of a resumed stream, which takes every connection.
    pub cutter: Option<Cutter>,
    pub receiver: Peer,
    out: PathBuf,
    port: u16,
    /// How the stream crosses the network; the sender gets its flags too.
    privacy: Privacy,
    /// The key pair of a private stream; None for a plain one.
    keys: Option<Pair>,
    dir: tempfile::TempDir,
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| a.to_string()).collect()
}

/// The flag either side of a stream of `privacy` takes besides its keys:
/// `--plain` for tapebuf's framed clear-text stream, `--raw` for a raw one.
fn privacy_flags(privacy: Privacy) -> Vec<String> {
    match privacy {
        Privacy::Plain => strings(&["--plain"]),
        Privacy::Raw => strings(&["--raw"]),
        Privacy::Tls => Vec::new(),
    }
}

impl Rig {
    /// Starts a plain receiver writing OUT, with `extra` flags.
    pub fn receiver(extra: &[&str]) -> Rig {
        Rig::receiver_to(Privacy::Plain, None, extra)
    }

    /// Starts a receiver over `privacy` writing OUT, with `extra` flags.
    pub fn receiver_over(privacy: Privacy, extra: &[&str]) -> Rig {
        Rig::receiver_to(privacy, None, extra)
    }

    /// Starts a receiver over `privacy` writing `out` (a file in the
    /// case's directory if None), with `extra` flags.
    pub fn receiver_to(privacy: Privacy, out: Option<PathBuf>, extra: &[&str]) -> Rig {
        let dir = tempfile::tempdir().unwrap();
        let out = out.unwrap_or_else(|| dir.path().join("out"));
        let mut args = strings(&["-s", "64k", "-m", "1M", "-I", "127.0.0.1:0"]);
        args.push("-o".into());
        args.push(out.display().to_string());
        args.extend(strings(extra));
        let keys = match privacy {
            Privacy::Tls => Some(Pair::new(dir.path())),
            Privacy::Plain | Privacy::Raw => None,
        };
        args.extend(keys.iter().flat_map(Pair::receiver_flags));
        args.extend(privacy_flags(privacy));
        let mut receiver = Peer::spawn(&args, false);
        let said = receiver.wait_line("tapebuf: -I: listening on ", LIMIT);
        let port = ports::port_said(&said).expect("the port the receiver bound");
        Rig {
            receiver,
            dir,
            out,
            port,
            privacy,
            keys,
            relay: None,
            cutter: None,
            sender: None,
        }
    }

    /// Where the receiver listens.
    pub fn receiver_addr(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.port))
    }

    /// Starts the relay with `fault` and a sender behind it, with `extra`
    /// flags.
    pub fn sender(mut self, fault: Fault, input: Input, extra: &[&str]) -> Rig {
        let relay = Relay::start(self.receiver_addr(), fault);
        let to = relay.addr();
        self.relay = Some(relay);
        self.sender_to(to, input, extra)
    }

    /// Starts a cutter that cuts the n-th connection after `cuts[n]`
    /// bytes from the sender, and `then` passes or holds the rest, and a
    /// sender behind it, with `extra` flags.
    pub fn sender_cut(mut self, cuts: (Vec<u64>, Then), input: Input, extra: &[&str]) -> Rig {
        let cutter = Cutter::start(self.receiver_addr(), cuts.0, cuts.1);
        let to = cutter.addr();
        self.cutter = Some(cutter);
        self.sender_to(to, input, extra)
    }

    /// A sender to `to`, with `extra` flags.
    fn sender_to(mut self, to: SocketAddr, input: Input, extra: &[&str]) -> Rig {
        let mut args = strings(&["-s", "64k", "-m", "1M", "-O"]);
        args.push(to.to_string());
        let piped = match input {
            Input::File(data) => {
                let path = self.dir.path().join("input");
                std::fs::write(&path, data).unwrap();
                args.push("-i".into());
                args.push(path.display().to_string());
                false
            }
            Input::Pipe => true,
        };
        args.extend(strings(extra));
        args.extend(self.keys.iter().flat_map(Pair::sender_flags));
        args.extend(privacy_flags(self.privacy));
        self.sender = Some(Peer::spawn(&args, piped));
        self
    }

    /// Waits until OUT holds `bytes`: the receiver has them all, whatever
    /// the wire carried them in.
    pub fn wait_held(&self, bytes: u64) {
        until(LIMIT, &format!("OUT holding {bytes} bytes"), || {
            let len = std::fs::metadata(&self.out).map_or(0, |m| m.len());
            (len >= bytes).then_some(())
        });
    }

    pub fn relay(&self) -> &Relay {
        self.relay.as_ref().expect("the case has a relay")
    }

    pub fn sending(&mut self) -> &mut Peer {
        self.sender.as_mut().expect("the case has a sender")
    }

    /// Connects straight to the receiver (which listens: it said so),
    /// sends `bytes` and closes.
    pub fn poke(&self, bytes: &[u8]) {
        let mut conn =
            TcpStream::connect(self.receiver_addr()).expect("connecting to the receiver");
        conn.write_all(bytes).expect("writing to the receiver");
    }

    /// Waits for both sides and collects the outcome.
    pub fn finish(mut self) -> Ending {
        let sender = self.sender.as_mut().map(|s| s.exit(LIMIT));
        let receiver = self.receiver.exit(LIMIT);
        let committed = receiver
            .stderr
            .contains("tapebuf: summary: ")
            .then(|| summary_number(&receiver.stderr, "out "));
        // Only a regular file is read back: /dev/full reads as endless zeros.
        let is_file = std::fs::metadata(&self.out).is_ok_and(|m| m.is_file());
        let end = Ending {
            out: is_file.then(|| std::fs::read(&self.out).unwrap()),
            sender,
            receiver,
            committed,
        };
        // Shown with a failure (or --nocapture): the outcome at a glance.
        eprintln!(
            "case {}: sender {}, receiver {}, committed {:?}, held {}",
            std::thread::current().name().unwrap_or("?"),
            end.sender
                .as_ref()
                .map_or("none".into(), |s| s.status.to_string()),
            end.receiver.status,
            end.committed,
            end.held()
        );
        end
    }

    /// Runs a whole plain case: a receiver with `receiver_extra`, a sender
    /// of `data` from a file through a relay with `fault`.
    pub fn run(fault: Fault, data: &[u8], receiver_extra: &[&str]) -> Ending {
        Rig::run_over(Privacy::Plain, fault, data, receiver_extra)
    }

    /// The same over `privacy`.
    pub fn run_over(
        privacy: Privacy,
        fault: Fault,
        data: &[u8],
        receiver_extra: &[&str],
    ) -> Ending {
        Rig::receiver_over(privacy, receiver_extra)
            .sender(fault, Input::File(data), &[])
            .finish()
    }
}
