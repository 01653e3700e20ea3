//! A TCP relay in the test process that stands between a tapebuf sender and
//! its receiver and misbehaves on cue: it cuts both connections at a chosen
//! byte of the sender's stream, stalls there with both connections left
//! open, flips one bit of one byte, or swallows the receiver's reply.
//!
//! It takes one sender. Only once that sender is in does it connect to the
//! receiver, so a receiver that has not started listening yet is retried
//! until a deadline. Every byte it passes on is reported on a channel, so a
//! test waits for "the receiver has had N bytes" instead of sleeping. Each
//! of its threads ends within a bounded time, and all of them end when the
//! relay is dropped.

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long the relay waits for a sender, for the receiver to listen, and,
/// when stalled, for the test to let it go.
const PATIENCE: Duration = Duration::from_secs(20);
/// How long the bytes after a flipped one are held back.
const DAMAGE_PAUSE: Duration = Duration::from_millis(100);
/// How long `DelayAt` holds the stream back.
pub const DELAY: Duration = Duration::from_millis(1500);
/// The pause in the polling loops that wait for a connection.
const POLL: Duration = Duration::from_millis(10);

/// What the relay does to the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Passes every byte both ways, and every end.
    None,
    /// After this many bytes of the sender's stream, shuts both
    /// connections down.
    CutAt(u64),
    /// After this many bytes of the sender's stream, passes nothing more in
    /// either direction, but keeps both connections open.
    StallAt(u64),
    /// Flips the lowest bit of the sender's byte at this offset, and holds
    /// the bytes after it back for a moment, so that the receiver has the
    /// damaged byte before the rest of its frame.
    FlipBitAt(u64),
    /// Holds the bytes after this many back for `DELAY`, then passes
    /// everything: a slow link, not a broken one.
    DelayAt(u64),
    /// Passes the whole stream on, but none of the receiver's reply: the
    /// sender sees the connection end without it.
    CutReply,
}

impl Fault {
    /// One of each fault, at byte `at` where it takes one. A new kind
    /// fails to compile in the match below until it is listed here too.
    pub fn every(at: u64) -> Vec<Fault> {
        let all = vec![
            Fault::None,
            Fault::CutAt(at),
            Fault::StallAt(at),
            Fault::FlipBitAt(at),
            Fault::DelayAt(at),
            Fault::CutReply,
        ];
        for f in &all {
            match f {
                Fault::None
                | Fault::CutAt(_)
                | Fault::StallAt(_)
                | Fault::FlipBitAt(_)
                | Fault::DelayAt(_)
                | Fault::CutReply => {}
            }
        }
        all
    }
}

/// What the relay has done, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// The receiver has been sent this many bytes of the sender's stream.
    Forwarded(u64),
    /// Both connections were shut down after this many bytes (CutAt).
    Cut(u64),
    /// Nothing more moves after this many bytes (StallAt).
    Stalled(u64),
    /// The sender half-closed after this many bytes; the end was passed on.
    SenderDone(u64),
    /// The receiver took no more after this many bytes: it hung up or
    /// died. What it sent is passed on, then the sender is cut off.
    ReceiverGone(u64),
    /// A connection failed or a deadline passed; both were shut down.
    Broken(String),
}

/// A relay listening on a loopback port of its own.
pub struct Relay {
    addr: SocketAddr,
    events: Receiver<Event>,
    /// Dropping it ends a stall.
    release: Option<Sender<()>>,
    shared: Arc<Shared>,
    threads: Vec<JoinHandle<()>>,
}

/// What the relay's threads share with the handle.
struct Shared {
    closing: AtomicBool,
    stalled: AtomicBool,
    /// Clones of every connection, so that dropping the relay can shut
    /// them all down and so unblock any thread in a read or write.
    sockets: Mutex<Vec<TcpStream>>,
}

impl Shared {
    fn keep(&self, s: &TcpStream) {
        if let Ok(clone) = s.try_clone() {
            self.sockets.lock().unwrap().push(clone);
        }
    }

    /// Shuts every connection down and lets go of the clones, so that once
    /// the threads drop theirs the sockets close and a sender still
    /// writing is reset rather than left to fill a buffer nobody reads.
    fn close_all(&self) {
        for s in self.sockets.lock().unwrap().drain(..) {
            let _ = s.shutdown(Shutdown::Both);
        }
    }
}

impl Relay {
    /// Listens on 127.0.0.1 (any free port) and, once a sender connects,
    /// relays it to `receiver` with `fault`.
    pub fn start(receiver: SocketAddr, fault: Fault) -> Relay {
        let listener = TcpListener::bind("127.0.0.1:0").expect("binding the relay's port");
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let (events_tx, events) = mpsc::channel();
        let (release, release_rx) = mpsc::channel();
        let shared = Arc::new(Shared {
            closing: AtomicBool::new(false),
            stalled: AtomicBool::new(false),
            sockets: Mutex::new(Vec::new()),
        });
        let mut relay = Relay {
            addr,
            events,
            release: Some(release),
            shared: shared.clone(),
            threads: Vec::new(),
        };
        let up = std::thread::spawn(move || {
            let Some((sender, receiver)) = connect_both(&listener, receiver, &shared, &events_tx)
            else {
                return;
            };
            let down = {
                let (from, to) = (receiver.try_clone().unwrap(), sender.try_clone().unwrap());
                let (shared, release) = (shared.clone(), release_rx);
                std::thread::spawn(move || pass_replies(from, to, fault, &shared, &release))
            };
            let receiver_gone = pass_stream(sender, receiver, fault, &shared, &events_tx);
            let _ = down.join();
            if receiver_gone {
                shared.close_all();
            }
        });
        relay.threads.push(up);
        relay
    }

    /// Where the sender should connect.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Waits for an event that `want` accepts, skipping the others, and
    /// returns it. Panics after `limit`, or if the relay broke first.
    pub fn wait_for(&self, limit: Duration, want: impl Fn(&Event) -> bool) -> Event {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.events.recv_timeout(left) {
                Ok(e) if want(&e) => return e,
                Ok(Event::Broken(why)) => panic!("the relay broke: {why}"),
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => {
                    panic!("the relay saw nothing wanted in {limit:?}")
                }
                Err(RecvTimeoutError::Disconnected) => panic!("the relay ended first"),
            }
        }
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.shared.closing.store(true, SeqCst);
        self.release.take();
        self.shared.close_all();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// Accepts the sender, then connects to the receiver; both blocking.
fn connect_both(
    listener: &TcpListener,
    receiver: SocketAddr,
    shared: &Shared,
    events: &Sender<Event>,
) -> Option<(TcpStream, TcpStream)> {
    let deadline = Instant::now() + PATIENCE;
    let broken = |why: String| {
        let _ = events.send(Event::Broken(why));
        None
    };
    let sender = loop {
        match listener.accept() {
            Ok((s, _)) => break s,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) => return broken(format!("accepting the sender: {e}")),
        }
        if shared.closing.load(SeqCst) || Instant::now() > deadline {
            return broken("no sender connected".into());
        }
        std::thread::sleep(POLL);
    };
    sender.set_nonblocking(false).unwrap();
    shared.keep(&sender);
    let receiver = loop {
        match TcpStream::connect(receiver) {
            Ok(r) => break r,
            Err(e) if shared.closing.load(SeqCst) || Instant::now() > deadline => {
                let _ = sender.shutdown(Shutdown::Both);
                return broken(format!("connecting to the receiver at {receiver}: {e}"));
            }
            Err(_) => std::thread::sleep(POLL),
        }
    };
    shared.keep(&receiver);
    Some((sender, receiver))
}

/// Sender to receiver, with the fault applied. Returns true when the
/// receiver stopped taking bytes: the caller cuts the sender off once the
/// receiver's last words (a reply naming damage) have been passed back.
fn pass_stream(
    mut sender: TcpStream,
    mut receiver: TcpStream,
    fault: Fault,
    shared: &Shared,
    events: &Sender<Event>,
) -> bool {
    let stop_at = match fault {
        Fault::CutAt(k) | Fault::StallAt(k) => Some(k),
        _ => None,
    };
    let (mut pause_after, pause) = match fault {
        Fault::FlipBitAt(k) => (Some(k + 1), DAMAGE_PAUSE),
        Fault::DelayAt(k) => (Some(k), DELAY),
        _ => (None, Duration::ZERO),
    };
    let mut buf = vec![0u8; 64 * 1024];
    let mut passed = 0u64;
    loop {
        let room = match stop_at.or(pause_after) {
            Some(k) => buf.len().min((k - passed) as usize),
            None => buf.len(),
        };
        if room == 0 {
            if let Fault::StallAt(_) = fault {
                shared.stalled.store(true, SeqCst);
                let _ = events.send(Event::Stalled(passed));
                // The handle's drop shuts the connections down.
                return false;
            }
            shared.close_all();
            let _ = events.send(Event::Cut(passed));
            return false;
        }
        let n = match sender.read(&mut buf[..room]) {
            Ok(0) => {
                let _ = receiver.shutdown(Shutdown::Write);
                let _ = events.send(Event::SenderDone(passed));
                return false;
            }
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                shared.close_all();
                let _ = events.send(Event::Broken(format!("reading the sender: {e}")));
                return false;
            }
        };
        if let Fault::FlipBitAt(k) = fault {
            if (passed..passed + n as u64).contains(&k) {
                buf[(k - passed) as usize] ^= 1;
            }
        }
        if receiver.write_all(&buf[..n]).is_err() {
            let _ = events.send(Event::ReceiverGone(passed));
            return true;
        }
        passed += n as u64;
        let _ = events.send(Event::Forwarded(passed));
        if pause_after == Some(passed) {
            pause_after = None;
            std::thread::sleep(pause);
        }
    }
}

/// Receiver to sender. Once the stream stalls, nothing more is passed and
/// no end either: both connections stay open until the test lets go.
fn pass_replies(
    mut receiver: TcpStream,
    mut sender: TcpStream,
    fault: Fault,
    shared: &Shared,
    release: &Receiver<()>,
) {
    let mut buf = [0u8; 4096];
    let hold = || {
        if shared.stalled.load(SeqCst) {
            let _ = release.recv_timeout(PATIENCE);
        }
    };
    loop {
        match receiver.read(&mut buf) {
            Ok(0) => {
                hold();
                let _ = sender.shutdown(Shutdown::Write);
                return;
            }
            Ok(n) => {
                if fault == Fault::CutReply || shared.stalled.load(SeqCst) {
                    continue;
                }
                if sender.write_all(&buf[..n]).is_err() {
                    return;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => {
                hold();
                let _ = sender.shutdown(Shutdown::Both);
                return;
            }
        }
    }
}
