//! Descriptors inherited in unusual states still give a byte-exact backup:
//! a stdin or stdout left non-blocking by the parent, on both rings.

use crate::common;

use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::process::Stdio;
use std::time::Duration;

use common::*;
use nix::fcntl::{fcntl, FcntlArg, OFlag};

fn set_nonblocking(fd: &OwnedFd) {
    let flags = OFlag::from_bits_truncate(fcntl(fd, FcntlArg::F_GETFL).unwrap());
    fcntl(fd, FcntlArg::F_SETFL(flags | OFlag::O_NONBLOCK)).unwrap();
}

#[test]
fn non_blocking_stdin_and_stdout_are_waited_on_not_failed_on_both_rings() {
    for ring in RINGS {
        let (stdin_read, stdin_write) = nix::unistd::pipe2(OFlag::O_CLOEXEC).unwrap();
        let (stdout_read, stdout_write) = nix::unistd::pipe2(OFlag::O_CLOEXEC).unwrap();
        set_nonblocking(&stdin_read);
        set_nonblocking(&stdout_write);
        let mut child = tapebuf()
            .args(on_ring(ring, &["-s", "16k", "-b", "4"]))
            .stdin(Stdio::from(stdin_read))
            .stdout(Stdio::from(stdout_write))
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let input = pattern(1 << 20, 12);
        let sent = input.clone();
        // A producer with pauses makes tapebuf's reads find the pipe empty, and
        // a consumer with pauses makes its writes find the pipe full.
        let feeder = std::thread::spawn(move || {
            let mut w = std::fs::File::from(stdin_write);
            for piece in sent.chunks(50_000) {
                w.write_all(piece).unwrap();
                std::thread::sleep(Duration::from_millis(2));
            }
        });
        let drainer = std::thread::spawn(move || {
            let mut r = std::fs::File::from(stdout_read);
            let mut out = Vec::new();
            let mut buf = vec![0; 100_000];
            loop {
                let n = r.read(&mut buf).unwrap();
                if n == 0 {
                    break;
                }
                out.extend_from_slice(&buf[..n]);
                std::thread::sleep(Duration::from_millis(1));
            }
            out
        });
        let (status, stderr) = finish(&mut child);
        feeder.join().unwrap();
        let out = drainer.join().unwrap();
        assert_eq!(status.code(), Some(0), "{stderr}");
        assert_eq!(sha256(&out), sha256(&input));
    }
}
