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

/// One session of the fake server.
fn serve(stream: TcpStream, fault: &Fault, seen: &Mutex<Seen>, tx: &Sender<usize>, file: &[u8]) {
    let mut input = BufReader::new(stream.try_clone().unwrap());
    let mut out = stream;
    let (mut writes, mut reads, mut read_at) = (0usize, 0usize, 0usize);
    // Replies held back behind a refusal that waits for more writes.
    let mut held: Vec<String> = Vec::new();
    let mut refusing = false;
    while let Some(request) = line(&mut input) {
        let (letter, arg) = request.split_at(1);
        seen.lock().unwrap().requests.push_str(letter);
        let reply: Vec<u8> = match letter {
            "O" => {
                line(&mut input);
                match fault {
                    Fault::ExtraAfterOpen => b"A0\nA0\n".to_vec(),
                    _ => b"A0\n".to_vec(),
                }
            }
            "I" => {
                line(&mut input);
                b"A0\n".to_vec()
            }
            "C" => {
                let text = match fault {
                    Fault::Close(text) | Fault::TwiceAtWrite { close: text, .. } => text,
                    _ => "A0\n",
                };
                let _ = out.write_all(text.as_bytes());
                return;
            }
            "W" => {
                let n: usize = arg.parse().unwrap();
                let mut data = vec![0; n];
                if input.read_exact(&mut data).is_err() {
                    return;
                }
                let k = writes;
                writes += 1;
                let _ = tx.send(k);
                let accept = |data: &[u8]| seen.lock().unwrap().accepted.extend_from_slice(data);
                match *fault {
                    Fault::DieAtWrite(at) if k == at => return die(&out, &mut input),
                    Fault::GarbageAtWrite(at) if k == at => {
                        let _ = out.write_all(b"Permission denied, please try again.\n");
                        return die(&out, &mut input);
                    }
                    Fault::StallAfterWrites(m) if k >= m => continue,
                    Fault::TwiceAtWrite { at, .. } if k == at => {
                        accept(&data);
                        format!("A{n}\nA{n}\n").into_bytes()
                    }
                    Fault::AckTooMuch(at) if k == at => {
                        accept(&data);
                        format!("A{}\n", n + 1).into_bytes()
                    }
                    Fault::FailWrite {
                        at,
                        errno,
                        message,
                        then,
                        sticky,
                    } if k == at || (sticky && k > at) => {
                        refusing = then > 0;
                        held.push(format!("E{errno}\n{message}\n"));
                        if refusing {
                            continue;
                        }
                        held.drain(..).collect::<String>().into_bytes()
                    }
                    Fault::FailWrite { at, then, .. } if refusing => {
                        accept(&data);
                        held.push(format!("A{n}\n"));
                        if k < at + then {
                            continue;
                        }
                        refusing = false;
                        held.drain(..).collect::<String>().into_bytes()
                    }
                    _ => {
                        accept(&data);
                        format!("A{n}\n").into_bytes()
                    }
                }
            }
            "R" => {
                let n: usize = arg.parse().unwrap();
                let k = reads;
                reads += 1;
                let end = (read_at + n).min(file.len());
                let mut chunk = file[read_at..end].to_vec();
                let mut extra = Vec::new();
                match *fault {
                    Fault::DieAtRead(at) if k == at => return die(&out, &mut input),
                    Fault::ReadMore(at) if k == at => chunk.resize(n + 10, b'#'),
                    Fault::ReadShort(at) if k == at => chunk.truncate(chunk.len() / 2),
                    Fault::ReadExtra { at, len } if k == at => {
                        extra = format!("A{len}\n").into_bytes();
                        extra.resize(extra.len() + len, b'#');
                    }
                    _ => {}
                }
                read_at += chunk.len().min(end - read_at);
                let mut reply = format!("A{}\n", chunk.len()).into_bytes();
                reply.extend_from_slice(&chunk);
                reply.extend_from_slice(&extra);
                reply
            }
            _ => return,
        };
        if out.write_all(&reply).is_err() {
            return;
        }
    }
}
