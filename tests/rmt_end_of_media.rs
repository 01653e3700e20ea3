//! End of media and read-ahead over rmt, against the emulated tape drive.
//!
//! The real binary is the client. Its remote shell is a bash script that
//! joins its standard input and output to a TCP connection to this test,
//! where tapebuf's own rmt server (`serve`) runs each session on an
//! emulated drive with Linux st's end-of-medium rules: past the early
//! warning, writes alternately fail with ENOSPC and succeed. With many
//! writes in flight, some land after the first refusal; the client must
//! take them back, change the volume and resend, so that the cartridges,
//! read in order, hold the stream exactly, in whole records.

mod common;

use std::io::{self, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use common::{pattern, summary_number, tapebuf};
use tapebuf::rmt::server::{serve, Log, OpenFlags, Opener, Policy, Target};
use tapebuf::tape::emulated::{Cartridge, Emulated, Item, Shelf};
use tapebuf::tape::{Drive, TapeOp};

/// The emulated drive, shared by the sessions one after another.
type SharedDrive = Arc<Mutex<Emulated>>;

struct DriveOpener {
    drive: SharedDrive,
    closed: Arc<AtomicBool>,
}

impl Opener for DriveOpener {
    fn open(&mut self, _path: &Path, _flags: OpenFlags) -> io::Result<Box<dyn Target>> {
        self.drive.lock().unwrap().reopen()?;
        Ok(Box::new(DriveTarget {
            drive: Arc::clone(&self.drive),
            closed: Arc::clone(&self.closed),
        }))
    }
}

struct DriveTarget {
    drive: SharedDrive,
    closed: Arc<AtomicBool>,
}

impl Target for DriveTarget {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.drive.lock().unwrap().write_record(data)
    }
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.drive.lock().unwrap().read_record(buf)
    }
    fn seek(&mut self, _whence: i32, _offset: i64) -> io::Result<u64> {
        Err(io::Error::from_raw_os_error(libc::ESPIPE))
    }
    fn ioctl(&mut self, op: i32, count: i32) -> io::Result<()> {
        let op = match op {
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

/// The server's output: after the reply to `C` is flushed, the connection
/// is shut down, which ends the session as GNU rmt's exit does.
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

/// Serves every session that connects, in turn, on `drive`. Returns the
/// remote shell script that reaches it.
fn start_server(dir: &Path, drive: SharedDrive) -> String {
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
            };
            let _ = serve(
                &mut input,
                &mut output,
                &Policy::allow_all(),
                &mut opener,
                &Log::none(),
            );
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

/// A drive with `n` blank cartridges of 3 MiB and 1 MiB of early warning,
/// its first cartridge loaded but the device closed, as before an open.
fn drive_with_blanks(n: usize) -> (SharedDrive, Shelf) {
    let slots = (0..n).map(|_| Cartridge::blank(3 << 20, 1 << 20)).collect();
    let (mut drive, shelf) = Emulated::new("/dev/nst0", slots);
    drive.close().unwrap();
    (Arc::new(Mutex::new(drive)), shelf)
}

fn backup(rsh: &str, data: &[u8], extra: &[&str]) -> (i32, String) {
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

#[test]
fn records_landing_after_the_end_of_media_are_taken_back_and_resent() {
    let dir = tempfile::tempdir().unwrap();
    let (drive, shelf) = drive_with_blanks(4);
    let rsh = start_server(dir.path(), drive);
    let data = pattern(7 << 20, 11);
    let (code, stderr) = backup(&rsh, &data, &["--rmt-window", "8", "-A", "true"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        summary_number(&stderr, "out "),
        data.len() as u64,
        "{stderr}"
    );

    let lib = shelf.lock().unwrap();
    let mut joined = Vec::new();
    let mut used = 0;
    for cart in lib.slots.iter().filter(|c| !c.items.is_empty()) {
        used += 1;
        assert!(
            cart.record_sizes().iter().all(|&s| s == 64 << 10),
            "every record whole: {:?}",
            cart.record_sizes()
        );
        assert!(matches!(cart.items.last(), Some(Item::Filemark)));
        joined.extend_from_slice(&cart.first_file());
    }
    assert!(used >= 3, "7 MiB takes three 3 MiB cartridges, got {used}");
    assert!(joined == data, "the cartridges in order are the stream");
    let backspaced = lib
        .log
        .iter()
        .filter(|l| l.starts_with("backspace"))
        .count();
    assert!(
        backspaced >= 1,
        "some writes landed after the first refusal and were taken back: {:?}",
        lib.log
    );
}

#[test]
fn lock_step_writes_need_no_take_back() {
    let dir = tempfile::tempdir().unwrap();
    let (drive, shelf) = drive_with_blanks(3);
    let rsh = start_server(dir.path(), drive);
    let data = pattern(4 << 20, 12);
    let (code, stderr) = backup(&rsh, &data, &["--rmt-window", "1", "-A", "true"]);
    assert_eq!(code, 0, "{stderr}");
    let lib = shelf.lock().unwrap();
    let joined: Vec<u8> = lib.slots.iter().flat_map(|c| c.first_file()).collect();
    assert!(joined == data);
    assert!(!lib.log.iter().any(|l| l.starts_with("backspace")));
}

#[test]
fn a_declined_volume_change_says_what_is_safe() {
    let dir = tempfile::tempdir().unwrap();
    let (drive, shelf) = drive_with_blanks(2);
    let rsh = start_server(dir.path(), drive);
    let data = pattern(5 << 20, 13);
    let (code, stderr) = backup(&rsh, &data, &["-A", "exit 3"]);
    assert_eq!(code, 1, "{stderr}");
    let on_first = shelf.lock().unwrap().slots[0].first_file();
    assert!(on_first.len() >= 2 << 20);
    assert!(data.starts_with(&on_first));
    assert!(
        stderr.contains(&format!("end of volume 1 after {} bytes", on_first.len())),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("{} bytes are safe on volume 1", on_first.len())),
        "{stderr}"
    );
    assert_eq!(
        summary_number(&stderr, "out "),
        on_first.len() as u64,
        "{stderr}"
    );
}

#[test]
fn reading_ahead_leaves_a_no_rewind_tape_just_after_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let first: Vec<Vec<u8>> = (0..5).map(|i| pattern(64 << 10, 20 + i)).collect();
    let second: Vec<Vec<u8>> = (0..30).map(|i| pattern(64 << 10, 40 + i)).collect();
    let mut cart = Cartridge::blank(64 << 20, 0);
    for r in &first {
        cart.items.push(Item::Record(r.clone()));
    }
    cart.items.push(Item::Filemark);
    for r in &second {
        cart.items.push(Item::Record(r.clone()));
    }
    cart.items.push(Item::Filemark);
    let (mut drive, shelf) = Emulated::new("/dev/nst0", vec![cart]);
    drive.close().unwrap();
    let drive = Arc::new(Mutex::new(drive));
    let rsh = start_server(dir.path(), Arc::clone(&drive));

    let read = |expected: &[Vec<u8>]| {
        let out = tapebuf()
            .args(["-i", "vault:/dev/nst0", "-s", "64k", "--rmt-window", "16"])
            .args(["--rsh-command", &rsh, "--rmt-command", "rmt"])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        assert!(out.stdout == expected.concat(), "{stderr}");
    };
    // The emulated drive opens where the last session left it, as a
    // no-rewind device does: the second run must read the second file.
    read(&first);
    read(&second);
    assert!(shelf
        .lock()
        .unwrap()
        .log
        .iter()
        .any(|l| l.starts_with("backspace")));
}
