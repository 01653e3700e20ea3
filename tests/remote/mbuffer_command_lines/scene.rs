//! Where an mbuffer command line runs: a directory for its tape and log
//! files, two ports, and the stages of a pipeline or the two ends of a
//! network transfer, each started from the line's own words (and, for
//! the ends of a framed transfer, `--plain`). A receiver's `$PORT` is 0:
//! it binds any free port and says which, and the sender's `$PORT` is
//! then that port. Every wait on a child has a time limit.

use std::cell::Cell;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, ExitStatus, Stdio};
use std::time::Duration;

use md5::Digest as _;

use crate::common::{self, pattern, BIN};
use crate::mbuffer_command_lines::harness::{drain, exit_within, feed, kill, listening_port, MIB};

/// The stream every case moves: the harness's pattern, this many MiB.
pub const DATA_MIB: usize = 4;
/// The longest any process of a case may take.
const LIMIT: Duration = Duration::from_secs(60);

/// The bytes `harness::feed` sends for `DATA_MIB`.
pub fn data() -> Vec<u8> {
    pattern(MIB, 7).repeat(DATA_MIB)
}

/// Byte count and sha256, as `harness::drain` gives them.
pub fn digest(data: &[u8]) -> (u64, String) {
    (data.len() as u64, common::sha256(data))
}

pub fn md5_hex(data: &[u8]) -> String {
    format!("{:x}", md5::Md5::digest(data))
}

/// What `awk '/MD5 hash/ {print $3}'` prints for `text`: the third word
/// of the first line that holds "MD5 hash".
pub fn mbuffer_md5_line(text: &str) -> Option<String> {
    text.lines()
        .find(|l| l.contains("MD5 hash"))
        .and_then(|l| l.split_whitespace().nth(2))
        .map(str::to_owned)
}

/// What one process of a case left: its line, status and stderr.
pub struct Ended {
    pub line: String,
    pub status: ExitStatus,
    pub stderr: String,
}

/// A pipeline's processes, first to last, and what came out of the last.
pub struct Ran {
    pub ended: Vec<Ended>,
    stdout: (u64, String),
}

impl Ran {
    pub fn all_succeed(&self) {
        for e in &self.ended {
            assert!(
                e.status.success(),
                "{}: {:?}: {}",
                e.line,
                e.status,
                e.stderr
            );
        }
    }

    pub fn stdout_digest(&self) -> (u64, String) {
        self.stdout.clone()
    }
}

pub struct Scene {
    dir: tempfile::TempDir,
    /// The ports the receivers said they bound; 0 until then.
    ports: Cell<[u16; 2]>,
}

impl Scene {
    pub fn new() -> Scene {
        Scene {
            dir: tempfile::tempdir().unwrap(),
            ports: Cell::new([0, 0]),
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The words of `line`, after its first (`mbuffer`), with the
    /// placeholders filled in.
    pub fn args(&self, line: &str) -> Vec<String> {
        let mut words = line.split_whitespace();
        assert_eq!(words.next(), Some("mbuffer"), "{line}");
        let ports = self.ports.get();
        let fill = |w: &str| {
            w.replace("$HOST", "127.0.0.1")
                .replace("$PORT2", &ports[1].to_string())
                .replace("$PORT", &ports[0].to_string())
                .replace("$VOLUMES", self.path("tape.%d").to_str().unwrap())
                .replace("$TAPE", self.path("tape").to_str().unwrap())
                .replace("$LOG2", self.path("log2").to_str().unwrap())
                .replace("$LOG", self.path("log").to_str().unwrap())
        };
        words.map(fill).collect()
    }

    fn spawn(&self, line: &str, stdin: Stdio) -> Child {
        self.spawn_with(line, &[], stdin)
    }

    /// `line` as one end of tapebuf's framed stream in clear text: its
    /// words and `--plain`, which `-I` and `-O` without a key need.
    fn spawn_plain(&self, line: &str, stdin: Stdio) -> Child {
        self.spawn_with(line, &["--plain"], stdin)
    }

    fn spawn_with(&self, line: &str, extra: &[&str], stdin: Stdio) -> Child {
        crate::common::command(BIN)
            .args(self.args(line))
            .args(extra)
            .stdin(stdin)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// Reads the port the receiver `line` (started with its `$PORT` or
    /// `$PORT2` as 0) bound, and fills that placeholder with it from now on.
    fn bound(&self, line: &str, receiver: &mut Child) -> u16 {
        let port = listening_port(receiver);
        let mut ports = self.ports.get();
        ports[usize::from(line.contains("$PORT2"))] = port;
        self.ports.set(ports);
        port
    }

    /// A tape that holds an older backup, which `-f` must replace.
    pub fn old_tape(&self) {
        std::fs::write(self.path("tape"), pattern(3 * MIB + 5, 99)).unwrap();
    }

    /// `data` cut into `n` numbered volumes, tape.1 to tape.N.
    pub fn volumes(&self, data: &[u8], n: usize) {
        for (i, part) in data.chunks(data.len().div_ceil(n)).enumerate() {
            std::fs::write(self.path(&format!("tape.{}", i + 1)), part).unwrap();
        }
    }

    pub fn read_log(&self, name: &str) -> String {
        let file = self.args(&format!("mbuffer {name}")).remove(0);
        std::fs::read_to_string(file).unwrap()
    }

    /// Runs `stages` piped one into the next, the first fed the case's
    /// bytes when `fed`.
    pub fn pipeline(&self, stages: &[&str], fed: Vec<u8>) -> Ran {
        let mut children: Vec<Child> = Vec::new();
        for (i, line) in stages.iter().enumerate() {
            let stdin = match children.last_mut() {
                Some(before) => Stdio::from(before.stdout.take().unwrap()),
                None if i == 0 && !fed.is_empty() => Stdio::piped(),
                None => Stdio::null(),
            };
            children.push(self.spawn(line, stdin));
        }
        if let Some(first) = children.first_mut().filter(|_| !fed.is_empty()) {
            let mut stdin = first.stdin.take().unwrap();
            std::thread::spawn(move || stdin.write_all(&fed));
        }
        let stdout = drain(children.last_mut().unwrap());
        let ended = children
            .into_iter()
            .zip(stages)
            .map(|(child, line)| finish(child, line))
            .collect();
        Ran {
            ended,
            stdout: stdout.join().unwrap(),
        }
    }

    /// Runs `stages` on the case's bytes: every stage succeeds and the
    /// bytes arrive exactly, on stdout or in $TAPE.
    pub fn expect_through(&self, stages: &[&str]) {
        let ran = self.pipeline(stages, data());
        ran.all_succeed();
        let last = stages.last().unwrap();
        let got = if last.contains("-o $TAPE") {
            digest(&std::fs::read(self.path("tape")).unwrap())
        } else {
            ran.stdout_digest()
        };
        assert_eq!(got, digest(&data()), "{stages:?}");
    }

    /// Starts `receivers`, then `sender` with the case's bytes, each with
    /// `--plain`: all succeed and every receiver has the bytes, on stdout
    /// or in $TAPE. Returns the receivers' stderr and the sender's.
    pub fn expect_sent(&self, receivers: &[&str], sender: &str) -> (Vec<String>, String) {
        let mut started = Vec::new();
        for line in receivers {
            let mut child = self.spawn_plain(line, Stdio::null());
            self.bound(line, &mut child);
            let out = drain(&mut child);
            started.push((child, out, *line));
        }
        let mut sending = self.spawn_plain(sender, Stdio::piped());
        let sent = feed(&mut sending, Some(DATA_MIB));
        let _ = drain(&mut sending);
        let send = finish(sending, sender);
        assert!(send.status.success(), "{sender}: {}", send.stderr);
        assert_eq!(sent.join().unwrap(), digest(&data()));
        let mut stderrs = Vec::new();
        for (child, out, line) in started {
            let got = out.join();
            let end = finish(child, line);
            assert!(end.status.success(), "{line}: {}", end.stderr);
            let got = match line.contains("-o $TAPE") {
                true => digest(&std::fs::read(self.path("tape")).unwrap()),
                false => got.unwrap(),
            };
            assert_eq!(got, digest(&data()), "{line}");
            stderrs.push(end.stderr);
        }
        (stderrs, send.stderr)
    }

    /// Starts the receiver `line` (with `--plain`), connects to it as socat
    /// or nc would and sends bytes without tapebuf's framing; returns the
    /// line the receiver says about that sender, then stops it.
    pub fn raw_sender_refused(&self, line: &str) -> String {
        let mut receiver = self.spawn_plain(line, Stdio::null());
        let port = self.bound(line, &mut receiver);
        let _out = drain(&mut receiver);
        let mut raw = TcpStream::connect(("127.0.0.1", port)).unwrap();
        raw.write_all(&pattern(64 * 1024, 3)).unwrap();
        drop(raw);
        let mut stderr = BufReader::new(receiver.stderr.take().unwrap());
        let mut said = String::new();
        while !said.contains("ignored a connection") {
            said.clear();
            assert!(stderr.read_line(&mut said).unwrap() > 0, "stderr ended");
        }
        kill(&receiver, "-TERM");
        exit_within(&mut receiver, LIMIT);
        said.trim_end().to_owned()
    }

    /// Starts the receiver `line` and sends the case's bytes to it without
    /// framing, as socat or nc would: it takes them all and succeeds.
    pub fn expect_raw_received(&self, line: &str) {
        let mut receiver = self.spawn(line, Stdio::null());
        let port = self.bound(line, &mut receiver);
        let out = drain(&mut receiver);
        let mut raw = TcpStream::connect(("127.0.0.1", port)).unwrap();
        raw.write_all(&data()).unwrap();
        drop(raw);
        let end = finish(receiver, line);
        assert!(end.status.success(), "{line}: {}", end.stderr);
        assert_eq!(out.join().unwrap(), digest(&data()));
    }

    /// Runs `line` with nothing to read: it exits 2 and says `message`,
    /// one line, and nothing else.
    pub fn expect_refused(&self, line: &str, message: &str) {
        let child = self.spawn(line, Stdio::null());
        let end = finish(child, line);
        assert_eq!(end.status.code(), Some(2), "{line}: {}", end.stderr);
        assert_eq!(end.stderr, format!("{message}\n"), "{line}");
    }
}

/// Reads the child's stderr to its end and reaps it, within `LIMIT`.
fn finish(mut child: Child, line: &str) -> Ended {
    let mut err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = err.read_to_string(&mut text);
        text
    });
    let status = exit_within(&mut child, LIMIT);
    Ended {
        line: line.to_owned(),
        status,
        stderr: reader.join().unwrap(),
    }
}
