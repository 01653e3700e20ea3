//! The scripted rmt server of the fault suite: a TCP listener in the test
//! process, reached through a bash remote shell that joins its standard
//! input and output to the connection. The shell's own process ends up as
//! the `cat` that copies the connection to its standard output, so the
//! server ending its output (a shutdown) is the remote shell's exit, as
//! when a real server dies. Each session answers as its
//! `Fault` says, and `Seen` keeps what it really accepted.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crossbeam_channel::{unbounded, Receiver, Sender};

/// How the fake server misbehaves. Writes and reads are counted from 0.
#[derive(Clone, Debug)]
pub enum Fault {
    /// A well-behaved server.
    None,
    /// Acks this many writes, then drops the connection on the next.
    DieAtWrite(usize),
    /// Answers this write with a line that is no reply, and hangs up.
    GarbageAtWrite(usize),
    /// Answers write `at` twice, and `C` with `close`.
    TwiceAtWrite { at: usize, close: &'static str },
    /// Sends an extra `A0` right after the open's reply.
    ExtraAfterOpen,
    /// Acks this many writes, then reads on and answers nothing.
    StallAfterWrites(usize),
    /// Answers `C` with this text.
    Close(&'static str),
    /// Refuses this write with `E<errno>`, after taking `then` more writes
    /// (which land), answered after it. With `sticky`, every later write
    /// is refused too, as on a full disk.
    FailWrite {
        at: usize,
        errno: i32,
        message: &'static str,
        then: usize,
        sticky: bool,
    },
    /// Acks this write with one byte more than it held.
    AckTooMuch(usize),
    /// Answers this read with more bytes than asked.
    ReadMore(usize),
    /// Answers this read with half what it could, then goes on.
    ReadShort(usize),
    /// Sends an extra reply of `len` junk bytes after this read's.
    ReadExtra { at: usize, len: usize },
    /// Drops the connection at this read.
    DieAtRead(usize),
}

/// What the fake server saw and kept.
#[derive(Default)]
pub struct Seen {
    /// The bytes of every write it took, in order: the medium.
    pub accepted: Vec<u8>,
    /// The request letters, in order.
    pub requests: String,
}

pub struct Fake {
    pub seen: Arc<Mutex<Seen>>,
    /// Each write request as it arrives (its index).
    pub writes: Receiver<usize>,
    pub rsh: String,
    /// Where the remote shell writes its pid.
    pub pid_file: PathBuf,
}

/// Starts a fake server that answers every session with `fault`, reads
/// serving `file`.
pub fn fake(dir: &Path, fault: Fault, file: Vec<u8>) -> Fake {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(Mutex::new(Seen::default()));
    let (tx, rx) = unbounded();
    let shared = Arc::clone(&seen);
    let file = Arc::new(file);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let (fault, seen, tx, file) = (
                fault.clone(),
                Arc::clone(&shared),
                tx.clone(),
                Arc::clone(&file),
            );
            std::thread::spawn(move || serve(stream, &fault, &seen, &tx, &file));
        }
    });
    let pid_file = dir.join("rsh.pid");
    let path = dir.join("rsh-to-fake");
    std::fs::write(
        &path,
        format!(
            "#!/bin/bash\necho $$ > {}\nexec 3<>/dev/tcp/127.0.0.1/{port}\ncat <&0 >&3 &\nexec cat <&3\n",
            pid_file.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    Fake {
        seen,
        writes: rx,
        rsh: path.display().to_string(),
        pid_file,
    }
}

fn line(input: &mut impl BufRead) -> Option<String> {
    let mut l = String::new();
    match input.read_line(&mut l) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(l.trim_end_matches('\n').to_string()),
    }
}

/// Ends the server's output as its death would, and swallows the rest of
/// the requests, so that the connection closes without a reset (which
/// would throw away replies already sent).
fn die(out: &TcpStream, input: &mut impl Read) {
    let _ = out.shutdown(std::net::Shutdown::Write);
    let _ = std::io::copy(input, &mut std::io::sink());
}

/// What one request makes the session do next.
enum Step {
    /// Send this reply and read on.
    Reply(Vec<u8>),
    /// Read on and answer nothing (yet).
    Quiet,
    /// End the session.
    End,
}

/// One session's state: its connection and what it has answered so far.
struct Session<'a> {
    input: BufReader<TcpStream>,
    out: TcpStream,
    fault: &'a Fault,
    seen: &'a Mutex<Seen>,
    tx: &'a Sender<usize>,
    file: &'a [u8],
    writes: usize,
    reads: usize,
    read_at: usize,
    /// Replies held back behind a refusal that waits for more writes.
    held: Vec<String>,
    refusing: bool,
}

/// One session of the fake server.
fn serve(stream: TcpStream, fault: &Fault, seen: &Mutex<Seen>, tx: &Sender<usize>, file: &[u8]) {
    let mut s = Session {
        input: BufReader::new(stream.try_clone().unwrap()),
        out: stream,
        fault,
        seen,
        tx,
        file,
        writes: 0,
        reads: 0,
        read_at: 0,
        held: Vec::new(),
        refusing: false,
    };
    while let Some(request) = line(&mut s.input) {
        let (letter, arg) = request.split_at(1);
        seen.lock().unwrap().requests.push_str(letter);
        let step = match letter {
            "O" => {
                line(&mut s.input);
                Step::Reply(match fault {
                    Fault::ExtraAfterOpen => b"A0\nA0\n".to_vec(),
                    _ => b"A0\n".to_vec(),
                })
            }
            "I" => {
                line(&mut s.input);
                Step::Reply(b"A0\n".to_vec())
            }
            "C" => {
                let text = match fault {
                    Fault::Close(text) | Fault::TwiceAtWrite { close: text, .. } => text,
                    _ => "A0\n",
                };
                let _ = s.out.write_all(text.as_bytes());
                Step::End
            }
            "W" => s.write(arg),
            "R" => s.read(arg),
            _ => Step::End,
        };
        match step {
            Step::Reply(reply) => {
                if s.out.write_all(&reply).is_err() {
                    return;
                }
            }
            Step::Quiet => continue,
            Step::End => return,
        }
    }
}

impl Session<'_> {
    /// A write request of `arg` bytes: takes the data, then answers as the
    /// fault says.
    fn write(&mut self, arg: &str) -> Step {
        let n: usize = arg.parse().unwrap();
        let mut data = vec![0; n];
        if self.input.read_exact(&mut data).is_err() {
            return Step::End;
        }
        let k = self.writes;
        self.writes += 1;
        let _ = self.tx.send(k);
        let seen = self.seen;
        let accept = |data: &[u8]| seen.lock().unwrap().accepted.extend_from_slice(data);
        match *self.fault {
            Fault::DieAtWrite(at) if k == at => self.die(),
            Fault::GarbageAtWrite(at) if k == at => {
                let _ = self
                    .out
                    .write_all(b"Permission denied, please try again.\n");
                self.die()
            }
            Fault::StallAfterWrites(m) if k >= m => Step::Quiet,
            Fault::TwiceAtWrite { at, .. } if k == at => {
                accept(&data);
                Step::Reply(format!("A{n}\nA{n}\n").into_bytes())
            }
            Fault::AckTooMuch(at) if k == at => {
                accept(&data);
                Step::Reply(format!("A{}\n", n + 1).into_bytes())
            }
            Fault::FailWrite {
                at,
                errno,
                message,
                then,
                sticky,
            } if k == at || (sticky && k > at) => {
                self.refusing = then > 0;
                self.held.push(format!("E{errno}\n{message}\n"));
                if self.refusing {
                    return Step::Quiet;
                }
                Step::Reply(self.held.drain(..).collect::<String>().into_bytes())
            }
            Fault::FailWrite { at, then, .. } if self.refusing => {
                accept(&data);
                self.held.push(format!("A{n}\n"));
                if k < at + then {
                    return Step::Quiet;
                }
                self.refusing = false;
                Step::Reply(self.held.drain(..).collect::<String>().into_bytes())
            }
            _ => {
                accept(&data);
                Step::Reply(format!("A{n}\n").into_bytes())
            }
        }
    }

    /// A read request of up to `arg` bytes: the next bytes of the file,
    /// or what the fault says instead.
    fn read(&mut self, arg: &str) -> Step {
        let n: usize = arg.parse().unwrap();
        let k = self.reads;
        self.reads += 1;
        let end = (self.read_at + n).min(self.file.len());
        let mut chunk = self.file[self.read_at..end].to_vec();
        let mut extra = Vec::new();
        match *self.fault {
            Fault::DieAtRead(at) if k == at => return self.die(),
            Fault::ReadMore(at) if k == at => chunk.resize(n + 10, b'#'),
            Fault::ReadShort(at) if k == at => chunk.truncate(chunk.len() / 2),
            Fault::ReadExtra { at, len } if k == at => {
                extra = format!("A{len}\n").into_bytes();
                extra.resize(extra.len() + len, b'#');
            }
            _ => {}
        }
        self.read_at += chunk.len().min(end - self.read_at);
        let mut reply = format!("A{}\n", chunk.len()).into_bytes();
        reply.extend_from_slice(&chunk);
        reply.extend_from_slice(&extra);
        Step::Reply(reply)
    }

    /// Dies as `die` does; the session ends.
    fn die(&mut self) -> Step {
        die(&self.out, &mut self.input);
        Step::End
    }
}
