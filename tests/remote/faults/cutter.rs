//! A relay for resumed streams: it takes any number of connections in
//! turn, relays each to the receiver, and cuts the n-th one (both ways,
//! both ends closed) after its `cuts[n]`-th byte from the sender. The
//! connections after the last cut pass everything (`Then::Pass`), or are
//! accepted and never relayed (`Then::Hold`): a drop that lasts.
//!
//! Only std, so that the network benchmark can use it too (`#[path]`).
//! Every thread ends when its connections end; dropping the cutter shuts
//! them all down.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// How often the accepting thread looks whether it should end.
const POLL: Duration = Duration::from_millis(10);

/// `n` cut points from `seed` (xorshift), each `low` plus less than
/// `span` bytes.
pub fn cut_points(n: usize, seed: u64, low: u64, span: u64) -> Vec<u64> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            low + x % span
        })
        .collect()
}

/// What the cutter does with the connections after the last cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Then {
    Pass,
    Hold,
}

/// A relay that cuts connections at chosen bytes.
pub struct Cutter {
    addr: SocketAddr,
    shared: Arc<Shared>,
    accepting: Option<JoinHandle<()>>,
}

struct Shared {
    closing: AtomicBool,
    /// Connections cut so far.
    cut: AtomicUsize,
    /// Clones of the connections of each relayed pair (by its number), so
    /// that dropping the cutter can shut them down.
    sockets: Mutex<Vec<(usize, TcpStream)>>,
}

impl Shared {
    fn keep(&self, pair: usize, s: &TcpStream) {
        if let Ok(clone) = s.try_clone() {
            self.sockets.lock().unwrap().push((pair, clone));
        }
    }

    /// Lets go of a cut pair's clones: once the relaying threads drop
    /// theirs, its sockets close, and a sender still writing is reset
    /// rather than left to fill a buffer nobody reads.
    fn forget(&self, pair: usize) {
        self.sockets.lock().unwrap().retain(|(p, _)| *p != pair);
    }
}

impl Cutter {
    /// Listens on a loopback port of its own and relays to `receiver`.
    pub fn start(receiver: SocketAddr, cuts: Vec<u64>, then: Then) -> Cutter {
        let listener = TcpListener::bind("127.0.0.1:0").expect("binding the cutter's port");
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let shared = Arc::new(Shared {
            closing: AtomicBool::new(false),
            cut: AtomicUsize::new(0),
            sockets: Mutex::new(Vec::new()),
        });
        let s = shared.clone();
        let accepting =
            std::thread::spawn(move || accept_all(listener, receiver, (cuts, then), &s));
        Cutter {
            addr,
            shared,
            accepting: Some(accepting),
        }
    }

    /// Where the sender connects.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// How many connections were cut so far.
    pub fn cut(&self) -> usize {
        self.shared.cut.load(SeqCst)
    }
}

impl Drop for Cutter {
    fn drop(&mut self) {
        self.shared.closing.store(true, SeqCst);
        for (_, s) in self.shared.sockets.lock().unwrap().drain(..) {
            let _ = s.shutdown(Shutdown::Both);
        }
        if let Some(t) = self.accepting.take() {
            let _ = t.join();
        }
    }
}

fn accept_all(
    listener: TcpListener,
    receiver: SocketAddr,
    (cuts, then): (Vec<u64>, Then),
    shared: &Arc<Shared>,
) {
    let mut n = 0;
    while !shared.closing.load(SeqCst) {
        let sender = match listener.accept() {
            Ok((s, _)) => s,
            Err(_) => {
                std::thread::sleep(POLL);
                continue;
            }
        };
        sender.set_nonblocking(false).unwrap();
        if then == Then::Hold && n >= cuts.len() {
            // Accepted, never relayed: shut down with the cutter.
            shared.keep(usize::MAX, &sender);
            continue;
        }
        let Ok(to) = TcpStream::connect(receiver) else {
            let _ = sender.shutdown(Shutdown::Both);
            continue;
        };
        let pair = n;
        n += 1;
        shared.keep(pair, &sender);
        shared.keep(pair, &to);
        let limit = cuts.get(pair).copied();
        let (back_from, back_to) = (to.try_clone().unwrap(), sender.try_clone().unwrap());
        std::thread::spawn(move || pass(back_from, back_to, None));
        let s = shared.clone();
        std::thread::spawn(move || {
            if pass(sender, to, limit) {
                s.forget(pair);
                s.cut.fetch_add(1, SeqCst);
            }
        });
    }
}

/// Copies `from` to `to`; after `limit` bytes, cuts both (returns true).
/// An end is passed on as a half-close.
fn pass(mut from: TcpStream, mut to: TcpStream, limit: Option<u64>) -> bool {
    let mut buf = vec![0u8; 64 * 1024];
    let mut passed = 0u64;
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => {
                let _ = to.shutdown(Shutdown::Write);
                return false;
            }
            Ok(n) => n,
        };
        let room = limit.map_or(n as u64, |l| (l - passed).min(n as u64)) as usize;
        if to.write_all(&buf[..room]).is_err() {
            return false;
        }
        passed += room as u64;
        if limit == Some(passed) {
            let _ = from.shutdown(Shutdown::Both);
            let _ = to.shutdown(Shutdown::Both);
            return true;
        }
    }
}
