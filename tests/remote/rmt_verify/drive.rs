//! An emulated tape drive served by tapebuf's own rmt server (`serve`)
//! over TCP, reached by a remote-shell script (a bash script that joins
//! its standard input and output to a TCP connection to the test), one
//! session per volume as GNU rmt does. A knob damages one record as it is
//! read back, and every session's outcome (the server side's exit status)
//! is kept for the test to check. Shared by rmt_verify and
//! rmt_end_of_media.

#![allow(dead_code)]

use std::io::{self, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::common::{self, tapebuf};
use tapebuf::rmt_server::{serve, Log, OpenFlags, Opener, Policy, Target};
use tapebuf::tape::emulated::{Cartridge, Emulated, Shelf};
use tapebuf::tape::{Drive, TapeOp};

/// The emulated drive, shared by the sessions one after another.
pub type SharedDrive = Arc<Mutex<Emulated>>;

/// The server of a drive, and what it did.
pub struct Served {
    /// The remote shell that reaches the server.
    pub rsh: String,
    /// Each session's exit status, as `tapebuf rmt` would end with it.
    exits: Receiver<i32>,
    /// Flip a byte in the record read at this index (0 is the first) of
    /// the first session that reads, once.
    pub damage_read: Arc<Mutex<Option<usize>>>,
}

/// A drive with `n` blank cartridges of 3 MiB and 1 MiB of early warning,
/// its first cartridge loaded but the device closed, as before an open.
pub fn drive_with_blanks(n: usize) -> (SharedDrive, Shelf) {
    let slots = (0..n).map(|_| Cartridge::blank(3 << 20, 1 << 20)).collect();
    let (mut drive, shelf) = Emulated::new("/dev/nst0", slots);
    drive.close().unwrap();
    (Arc::new(Mutex::new(drive)), shelf)
}

/// Serves every session that connects, in turn, on `drive`, from now on.
pub fn start_server(dir: &Path, drive: SharedDrive) -> Served {
    let (sender, exits) = channel();
    let damage_read = Arc::new(Mutex::new(None));
    let rsh = start(dir, drive, sender, Arc::clone(&damage_read));
    Served {
        rsh,
        exits,
        damage_read,
    }
}

/// Writes `data` with tapebuf to `vault:/dev/nst0` through the remote
/// shell `rsh`, in 64 KiB blocks, with `extra` flags; returns the exit
/// status and standard error.
pub fn backup(rsh: &str, data: &[u8], extra: &[&str]) -> (i32, String) {
    let mut child = tapebuf()
        .args(["-o", "vault:/dev/nst0", "-s", "64k", "-m", "4M"])
        .args(["--rsh-command", rsh, "--rmt-command", "rmt"])
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let feeder = common::feed_stdin(&mut child, data.to_vec(), common::Feed::Fast);
    let (status, stderr) = common::finish(&mut child);
    feeder.join().unwrap();
    (status.code().unwrap(), stderr)
}

impl Served {
    /// The exit statuses of the next `n` sessions to end, waiting for
    /// each (a session ends just after the client has seen it end).
    pub fn exits(&self, n: usize) -> Vec<i32> {
        (0..n)
            .map(|_| self.exits.recv_timeout(Duration::from_secs(30)).unwrap())
            .collect()
    }

    /// True when no other session ended.
    pub fn no_more_sessions(&self) -> bool {
        self.exits.try_recv().is_err()
    }
}

struct DriveOpener {
    drive: SharedDrive,
    closed: Arc<AtomicBool>,
    damage_read: Arc<Mutex<Option<usize>>>,
}

impl Opener for DriveOpener {
    fn open(&mut self, _path: &Path, _flags: OpenFlags) -> io::Result<Box<dyn Target>> {
        self.drive.lock().unwrap().reopen()?;
        Ok(Box::new(DriveTarget {
            drive: Arc::clone(&self.drive),
            closed: Arc::clone(&self.closed),
            damage_read: Arc::clone(&self.damage_read),
            reads: 0,
        }))
    }
}

struct DriveTarget {
    drive: SharedDrive,
    closed: Arc<AtomicBool>,
    damage_read: Arc<Mutex<Option<usize>>>,
    reads: usize,
}

impl Target for DriveTarget {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.drive.lock().unwrap().write_record(data)
    }
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.drive.lock().unwrap().read_record(buf)?;
        let mut damage = self.damage_read.lock().unwrap();
        if *damage == Some(self.reads) && n > 0 {
            buf[n / 2] ^= 0x40;
            *damage = None;
        }
        self.reads += 1;
        Ok(n)
    }
    fn seek(&mut self, _whence: i32, _offset: i64) -> io::Result<u64> {
        Err(io::Error::from_raw_os_error(libc::ESPIPE))
    }
    fn ioctl(&mut self, op: i32, count: i32) -> io::Result<()> {
        let op = match op {
            1 => TapeOp::ForwardFiles(count as u32),
            2 => TapeOp::BackspaceFiles(count as u32),
            4 => TapeOp::BackspaceRecords(count as u32),
            5 => TapeOp::WriteFilemarks(count as u32),
            6 => TapeOp::Rewind,
            7 => TapeOp::Unload,
            _ => return Err(io::Error::from_raw_os_error(libc::ENOTTY)),
        };
        self.drive.lock().unwrap().op(op)
    }
    fn status(&mut self) -> io::Result<Vec<u8>> {
        Err(io::Error::from_raw_os_error(libc::ENOTTY))
    }
    fn close(self: Box<Self>) -> io::Result<()> {
        let closed = self.drive.lock().unwrap().close();
        self.closed.store(true, Ordering::SeqCst);
        closed
    }
}

/// After the reply to `C` is flushed, the connection is shut down, which
/// ends the session as GNU rmt's exit does.
struct HangUpAfterClose {
    stream: TcpStream,
    closed: Arc<AtomicBool>,
}

impl Write for HangUpAfterClose {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.stream.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.stream.flush()?;
        if self.closed.swap(false, Ordering::SeqCst) {
            let _ = self.stream.shutdown(std::net::Shutdown::Both);
        }
        Ok(())
    }
}

fn start(
    dir: &Path,
    drive: SharedDrive,
    exits: Sender<i32>,
    damage_read: Arc<Mutex<Option<usize>>>,
) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let closed = Arc::new(AtomicBool::new(false));
            let mut input = BufReader::new(stream.try_clone().unwrap());
            let mut output = HangUpAfterClose {
                stream,
                closed: Arc::clone(&closed),
            };
            let mut opener = DriveOpener {
                drive: Arc::clone(&drive),
                closed,
                damage_read: Arc::clone(&damage_read),
            };
            let outcome = serve(
                &mut input,
                &mut output,
                &Policy::allow_all(),
                &mut opener,
                &Log::none(),
            );
            let _ = exits.send(outcome.exit_code());
        }
    });
    let path = dir.join("rsh-to-test");
    std::fs::write(
        &path,
        format!("#!/bin/bash\nexec 3<>/dev/tcp/127.0.0.1/{port}\ncat <&3 &\ncat >&3\nwait\n"),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.display().to_string()
}
