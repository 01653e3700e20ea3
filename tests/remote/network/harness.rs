//! The network suite's helpers: a feeder and a drainer that
//! hash what passes, stderr readers, a bounded wait for exit, and a whole
//! transfer from one tapebuf to another checked byte for byte.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStderr};
use std::thread::JoinHandle;

use crate::common::{pattern, spawn_piped};
use sha2::{Digest, Sha256};

pub const MIB: usize = 1 << 20;

pub use crate::common::ports::{listening_port, refusing_port};
pub use crate::common::wait::exit_within;

/// Feeds `mib` MiB of a fixed pattern (for ever if None) and returns the
/// sha256 and byte count of what the child took.
pub fn feed(child: &mut Child, mib: Option<usize>) -> JoinHandle<(u64, String)> {
    let mut stdin = child.stdin.take().expect("piped stdin");
    std::thread::spawn(move || {
        let chunk = pattern(MIB, 7);
        let mut hash = Sha256::new();
        let mut sent = 0u64;
        let mut n = 0;
        while mib.is_none_or(|m| n < m) {
            if stdin.write_all(&chunk).is_err() {
                break;
            }
            hash.update(&chunk);
            sent += chunk.len() as u64;
            n += 1;
        }
        (sent, format!("{:x}", hash.finalize()))
    })
}

/// Drains standard output, hashing it; returns the byte count and sha256.
pub fn drain(child: &mut Child) -> JoinHandle<(u64, String)> {
    let mut stdout = child.stdout.take().expect("piped stdout");
    std::thread::spawn(move || {
        let mut hash = Sha256::new();
        let mut got = 0u64;
        let mut buf = vec![0u8; MIB];
        loop {
            match stdout.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    hash.update(&buf[..n]);
                    got += n as u64;
                }
            }
        }
        (got, format!("{:x}", hash.finalize()))
    })
}

/// Reads stderr line by line until a line contains `needle`; returns the
/// reader and the lines so far. Panics if stderr ends first.
pub fn stderr_until(child: &mut Child, needle: &str) -> (BufReader<ChildStderr>, String) {
    let mut reader = BufReader::new(child.stderr.take().expect("piped stderr"));
    let mut seen = String::new();
    loop {
        let mut line = String::new();
        let n = reader.read_line(&mut line).unwrap();
        assert!(n > 0, "stderr ended before {needle:?}: {seen:?}");
        seen += &line;
        if line.contains(needle) {
            return (reader, seen);
        }
    }
}

pub fn rest_of(mut reader: BufReader<ChildStderr>, mut seen: String) -> String {
    reader.read_to_string(&mut seen).unwrap();
    seen
}

pub fn stderr_of(child: &mut Child) -> String {
    let mut s = String::new();
    child.stderr.take().unwrap().read_to_string(&mut s).unwrap();
    s
}

pub fn kill(child: &Child, sig: &str) {
    let ok = crate::common::command("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill {sig} failed");
}

/// Sends `mib` MiB from one tapebuf to another and checks every byte: the
/// receiver listens on `listen` (port 0: any free port, which it says),
/// the sender connects to that port on `host`.
pub fn transfer(listen: &str, host: &str, mib: usize) {
    let mut receiver = spawn_piped(&["-I", listen, "--plain", "-s", "1M", "-m", "32M"]);
    let port = listening_port(&mut receiver);
    let received = drain(&mut receiver);
    let connect = format!("{host}:{port}");
    let mut sender = spawn_piped(&["-O", &connect, "--plain", "-s", "1M", "-m", "32M", "-q"]);
    let sent = feed(&mut sender, Some(mib));
    let sender_err = stderr_of(&mut sender);
    assert!(sender.wait().unwrap().success(), "sender: {sender_err}");
    let receiver_err = stderr_of(&mut receiver);
    assert!(
        receiver.wait().unwrap().success(),
        "receiver: {receiver_err}"
    );
    let (sent, received) = (sent.join().unwrap(), received.join().unwrap());
    assert_eq!(sent.0, (mib * MIB) as u64);
    assert_eq!(received, sent, "receiver: {receiver_err}");
    assert!(
        receiver_err.contains(&format!("out {} bytes", mib * MIB)),
        "{receiver_err}"
    );
    assert!(!receiver_err.contains("raw stream"), "{receiver_err}");
}

/// Sends 16 MiB from `sender` to a waiting `receiver`: both must exit 0,
/// every byte across, and both summaries say "out 16777216 bytes".
/// Returns the receiver's and the sender's stderr.
pub fn transfer_16_mib(mut receiver: Child, mut sender: Child) -> (String, String) {
    let received = drain(&mut receiver);
    let sent = feed(&mut sender, Some(16));
    let sender_err = stderr_of(&mut sender);
    let code = sender.wait().unwrap().code();
    assert_eq!(code, Some(0), "sender: {sender_err}");
    let receiver_err = stderr_of(&mut receiver);
    let code = receiver.wait().unwrap().code();
    assert_eq!(code, Some(0), "receiver: {receiver_err}");
    let (sent, received) = (sent.join().unwrap(), received.join().unwrap());
    assert_eq!(sent.0, (16 * MIB) as u64);
    assert_eq!(received, sent, "receiver: {receiver_err}");
    let out = format!("out {} bytes", 16 * MIB);
    assert!(receiver_err.contains(&out), "{receiver_err}");
    if !sender_err.is_empty() {
        // A quiet sender (-q) says nothing; one that speaks counts too.
        assert!(sender_err.contains(&out), "{sender_err}");
    }
    (receiver_err, sender_err)
}
