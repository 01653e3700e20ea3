//! `tapebuf rmt` against malformed and hostile requests sent straight to
//! the binary's standard input: each is refused with an exact reply, the
//! stream stays in step or the session ends, and the exit status is 0 or
//! 1, never a signal or a panic.

use crate::common;
use crate::rmt_server::support;

use std::io::{Read, Write};
use std::os::unix::process::ExitStatusExt;

use common::pattern;
use support::{serve, Scratch, E9};

// ---- malformed and hostile requests -------------------------------------

#[test]
fn a_huge_write_count_is_refused_and_ends_the_session() {
    let served = serve(&["--config", "/dev/null"], "W99999999999\nS\n");
    served.exited(1);
    assert_eq!(
        served.text(),
        "E22\nInvalid argument: W count 99999999999 is above the maximum record size \
         of 67108864 bytes\n"
    );
}

#[test]
fn negative_counts_are_refused() {
    let served = serve(&["--config", "/dev/null"], "W-1\n");
    served.exited(1);
    assert_eq!(
        served.text(),
        "E22\nInvalid argument: W count -1 is negative\n"
    );

    // R and I keep the session: their arguments were consumed whole.
    let served = serve(&["--config", "/dev/null"], "R-1\nI-1\n1\nI6\n-1\nS\n");
    served.exited(0);
    assert_eq!(
        served.text(),
        format!(
            "E22\nInvalid argument: R count -1 is negative\n\
             E22\nInvalid argument: tape operation -1 is negative\n\
             E22\nInvalid argument: tape count -1 is negative\n{E9}"
        )
    );
}

#[test]
fn a_huge_read_count_is_clamped() {
    let s = Scratch::new();
    let f = s.path("allowed/empty");
    std::fs::write(&f, b"").unwrap();
    let g = s.path("allowed/small");
    std::fs::write(&g, b"0123456789").unwrap();
    let input = format!(
        "O{}\n0\nR99999999999\nO{}\n0\nR99999999999\n",
        f.display(),
        g.display()
    );
    let served = s.serve(&[], input);
    served.exited(0);
    assert_eq!(served.text(), "A0\nA0\nA0\nA10\n0123456789");
}

#[test]
fn an_overlong_path_is_refused_without_reading_on() {
    let mut input = b"O/".to_vec();
    input.extend(std::iter::repeat_n(b'a', 100 * 1024));
    input.extend_from_slice(b"\n0\n");
    let served = serve(&["--config", "/dev/null"], input);
    served.exited(1);
    assert_eq!(
        served.text(),
        "E36\nFile name too long: an argument of the O request is longer than 4096 bytes\n"
    );

    // A path line that never ends: the server must still stop.
    let mut child = common::spawn_piped(&["rmt", "--config", "/dev/null"]);
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        let chunk = vec![b'a'; 64 * 1024];
        let _ = stdin.write_all(b"O/");
        let mut sent = 0usize;
        while stdin.write_all(&chunk).is_ok() {
            sent += chunk.len();
            assert!(sent < 1 << 30, "the server read a gigabyte of path");
        }
    });
    let mut replies = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut replies)
        .unwrap();
    let (status, _) = common::finish(&mut child);
    feeder.join().unwrap();
    assert_eq!(status.code(), Some(1));
    assert!(replies.starts_with("E36\n"), "{replies:?}");
}

#[test]
fn paths_outside_the_allowed_directory_are_refused() {
    let s = Scratch::new();
    std::fs::write(s.path("secret"), b"x").unwrap();
    std::os::unix::fs::symlink(s.path("secret"), s.path("allowed/link")).unwrap();
    let input = format!(
        "O/etc/passwd\n0 O_RDONLY\nO{a}/../secret\n0 O_RDONLY\nO{a}/link\n0 O_RDONLY\nR10\n",
        a = s.s("allowed")
    );
    let served = s.serve(&[], input);
    served.exited(0);
    assert_eq!(
        served.text(),
        format!(
            "E13\nPermission denied: /etc/passwd is outside the allowed paths\n\
             E13\nPermission denied: {a}/../secret is outside the allowed paths\n\
             E13\nPermission denied: {a}/link is outside the allowed paths\n{E9}",
            a = s.s("allowed")
        )
    );
}

#[test]
fn garbage_commands_are_refused_and_end_the_session() {
    let served = serve(&["--config", "/dev/null"], "X\nS\n");
    served.exited(1);
    assert_eq!(served.text(), "E22\nGarbage command X\n");
    let served = serve(&["--config", "/dev/null"], b"\xff\n".to_vec());
    served.exited(1);
    assert_eq!(served.text(), "E22\nGarbage command \\xff\n");
}

#[test]
fn tape_requests_on_a_regular_file_fail_as_ioctls_do() {
    let s = Scratch::new();
    let f = s.s("allowed/a.tar");
    let input = format!("O{f}\n65 O_WRONLY|O_CREAT\nI6\n1\nS\nI99\n1\n");
    let served = s.serve(&[], input);
    served.exited(0);
    assert_eq!(
        served.text(),
        "A0\nE25\nInappropriate ioctl for device\nE25\nInappropriate ioctl for device\n\
         E22\nInvalid argument: tape operation 99 is not supported by this server\n"
    );
}

#[test]
fn seek_takes_gnu_order_and_refuses_a_bad_whence() {
    let s = Scratch::new();
    let f = s.s("allowed/a.tar");
    let input = format!("O{f}\n66 O_RDWR|O_CREAT\nW10\n0123456789L2\n-3\nR10\nL7\n0\nL1\n0\n");
    let served = s.serve(&[], input);
    served.exited(0);
    assert_eq!(
        served.text(),
        "A0\nA10\nA7\nA3\n789E22\nInvalid argument: seek direction \"7\" out of range \
         (GNU order: L<whence>\\n<offset>\\n)\nA10\n"
    );
}

#[test]
fn unknown_open_flags_are_refused() {
    let s = Scratch::new();
    let input = format!("O{}\n0 O_RDONLY|O_BOGUS\nS\n", s.s("allowed/a.tar"));
    let served = s.serve(&[], input);
    served.exited(0);
    assert_eq!(
        served.text(),
        format!("E22\nInvalid argument: unknown open flag \"O_BOGUS\"\n{E9}")
    );
}

#[test]
fn a_request_cut_off_by_the_end_of_input_ends_the_session_quietly() {
    for cut in ["O/dev/nst0\n", "W10\nabc", "I6\n", "L0\n"] {
        let served = serve(&["--config", "/dev/null"], cut);
        served.exited(1);
        assert_eq!(served.text(), "", "{cut:?}");
        assert_eq!(served.stderr, "");
    }
    serve(&["--config", "/dev/null"], "").exited(0);
}

/// A small deterministic generator, so that a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> usize {
        (self.next() % n) as usize
    }
}

#[test]
fn random_garbage_never_crashes_the_server() {
    let s = Scratch::new();
    let open = format!("O{}\n66 O_RDWR|O_CREAT\n", s.s("allowed/fuzz"));
    let pieces: [&[u8]; 12] = [
        open.as_bytes(),
        b"W3\nabc",
        b"W5\n",
        b"R5\n",
        b"R99999999999\n",
        b"I6\n1\n",
        b"I-3\n",
        b"S\n",
        b"L0\n0\n",
        b"L1\n-99\n",
        b"C\n",
        b"\n",
    ];
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for case in 0..120 {
        let mut input = Vec::new();
        for _ in 0..rng.below(12) {
            if rng.below(3) == 0 {
                input.extend(pattern(rng.below(64), rng.next()));
            } else {
                input.extend_from_slice(pieces[rng.below(pieces.len() as u64)]);
            }
        }
        let served = s.serve(&[], input.clone());
        assert_eq!(served.status.signal(), None, "case {case}: {input:?}");
        assert!(
            matches!(served.status.code(), Some(0 | 1)),
            "case {case}: {:?} for {input:?}",
            served.status
        );
        assert_eq!(served.stderr, "", "case {case}");
    }
}
