//! The rig of the many-senders tests (`senders.rs`): a vault (the
//! receiver's key, the senders' keys it allows, a folder for the
//! streams), the service and its senders as real processes, the service's
//! stderr line by line as it comes, and what each stream's summary says.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin};
use std::sync::mpsc::{channel, Receiver};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::common::keys::{new_key, Key};
use crate::common::{pattern, sha256_file, spawn_piped};
use crate::network::harness::*;
use sha2::{Digest, Sha256};

/// How long any one step of a case may take.
pub const LIMIT: Duration = Duration::from_secs(60);

/// A receiver's key, the senders' keys (named db1, db2, ...) it allows
/// by a file of `fingerprint name` lines, and a folder for the streams.
pub struct Vault {
    pub dir: tempfile::TempDir,
    pub key: Key,
    pub senders: Vec<Key>,
}

impl Vault {
    pub fn new(senders: usize) -> Vault {
        let dir = tempfile::tempdir().unwrap();
        let key = new_key(dir.path(), "vault");
        let senders: Vec<Key> = (1..=senders)
            .map(|i| new_key(dir.path(), &format!("db{i}")))
            .collect();
        let lines: String = (senders.iter().enumerate())
            .map(|(i, k)| format!("{} db{}\n", k.print, i + 1))
            .collect();
        std::fs::write(dir.path().join("allowed"), lines).unwrap();
        std::fs::create_dir(dir.path().join("out")).unwrap();
        Vault { dir, key, senders }
    }

    pub fn out(&self) -> PathBuf {
        self.dir.path().join("out")
    }

    /// The service, with `extra` flags; its port and its stderr's lines.
    pub fn serve(&self, extra: &[&str]) -> (Child, u16, Lines) {
        let template = self.out().join("{name}-{seq}.dat");
        let allowed = self.dir.path().join("allowed");
        let mut args = vec!["-I", "127.0.0.1:0", "-s", "256k", "-o"];
        args.push(template.to_str().unwrap());
        args.extend(["--key", self.key.file.to_str().unwrap()]);
        args.extend(["--allow-keys", allowed.to_str().unwrap()]);
        args.extend(extra);
        let mut child = spawn_piped(&args);
        let port = listening_port(&mut child);
        let lines = Lines::of(&mut child);
        (child, port, lines)
    }

    /// Sender `i` (0-based, key db{i+1}) to `port`, with `extra` flags.
    pub fn sender(&self, i: usize, port: u16, extra: &[&str]) -> Child {
        let to = format!("127.0.0.1:{port}");
        let mut args = vec!["-O", &to, "-s", "256k", "-m", "4M", "-q"];
        args.extend(["--key", self.senders[i].file.to_str().unwrap()]);
        args.extend(["--pin", &self.key.print]);
        args.extend(extra);
        spawn_piped(&args)
    }

    /// The stream files the service wrote: name and sha256.
    pub fn streams(&self) -> Vec<(String, String)> {
        let mut found: Vec<(String, String)> = (std::fs::read_dir(self.out()).unwrap())
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "dat"))
            .map(|p| (name_of(&p), sha256_file(&p)))
            .collect();
        found.sort();
        found
    }
}

fn name_of(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

/// The lines of a child's stderr as they come, kept for the end.
pub struct Lines {
    rx: Receiver<String>,
    seen: String,
}

impl Lines {
    pub fn of(child: &mut Child) -> Lines {
        let stderr = child.stderr.take().expect("piped stderr");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Lines {
            rx,
            seen: String::new(),
        }
    }

    /// Waits for a line holding every one of `needles`; returns it.
    #[track_caller]
    pub fn until(&mut self, needles: &[&str]) -> String {
        loop {
            match self.rx.recv_timeout(LIMIT) {
                Ok(line) => {
                    self.seen += &line;
                    self.seen.push('\n');
                    if needles.iter().all(|n| line.contains(n)) {
                        return line;
                    }
                }
                Err(e) => panic!("no line with {needles:?} ({e}); so far:\n{}", self.seen),
            }
        }
    }

    /// Everything the child said, once it has exited.
    pub fn all(mut self) -> String {
        while let Ok(line) = self.rx.recv_timeout(LIMIT) {
            self.seen += &line;
            self.seen.push('\n');
        }
        self.seen
    }
}

/// Writes `mib` MiB of the pattern `seed` to the sender and closes its
/// input; the sha256 of what was written.
pub fn send(child: &mut Child, mib: usize, seed: u64) -> JoinHandle<String> {
    let stdin = child.stdin.take().expect("piped stdin");
    std::thread::spawn(move || write_pattern(stdin, mib, seed))
}

/// Writes `mib` MiB of the pattern `seed` and keeps the input open
/// (returned), so that the sender goes on waiting for more.
pub fn send_and_hold(child: &mut Child, mib: usize, seed: u64) -> ChildStdin {
    let mut stdin = child.stdin.take().expect("piped stdin");
    let chunk = pattern(MIB, seed);
    for _ in 0..mib {
        stdin.write_all(&chunk).unwrap();
    }
    stdin
}

fn write_pattern(mut stdin: ChildStdin, mib: usize, seed: u64) -> String {
    // Hashed as it goes: 16 senders' streams held whole would swell this
    // test process, and every child forked from it starts with its size.
    let chunk = pattern(MIB, seed);
    let mut hash = Sha256::new();
    for _ in 0..mib {
        stdin.write_all(&chunk).unwrap();
        hash.update(&chunk);
    }
    format!("{:x}", hash.finalize())
}

/// Sender `i` sends `mib` MiB of the pattern `seed` whole: it exits 0.
/// The sha256 of what it sent.
#[track_caller]
pub fn send_whole(vault: &Vault, i: usize, port: u16, mib: usize, seed: u64) -> String {
    let mut s = vault.sender(i, port, &[]);
    let digest = send(&mut s, mib, seed).join().unwrap();
    assert_eq!(exit_within(&mut s, LIMIT).code(), Some(0), "sender {i}");
    digest
}

/// Waits until `file` holds `bytes`: a stream's data reached its output.
#[track_caller]
pub fn wait_for_len(file: &Path, bytes: usize) {
    crate::common::wait::until(LIMIT, &format!("{} bytes in {file:?}", bytes), || {
        let len = std::fs::metadata(file).ok()?.len();
        (len == bytes as u64).then_some(())
    });
}

/// The service's exit status once it ends, and all it said.
pub fn service_end(service: &mut Child, lines: Lines) -> (std::process::ExitStatus, String) {
    let status = exit_within(service, LIMIT);
    (status, lines.all())
}

/// The number in "out N bytes" of stream `seq`'s summary line.
pub fn stream_out_bytes(said: &str, seq: u64) -> u64 {
    let prefix = format!("tapebuf: stream {seq}: summary:");
    let line = (said.lines())
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("no summary of stream {seq}: {said}"));
    let after = line.split(", out ").nth(1).expect("an out count");
    after.split(' ').next().unwrap().parse().unwrap()
}

/// The stream number a "stream N: sender dbK ... to FILE" line gives.
pub fn seq_of(line: &str) -> u64 {
    let rest = line
        .strip_prefix("tapebuf: stream ")
        .expect("a stream's line");
    rest.split(':').next().unwrap().parse().unwrap()
}
