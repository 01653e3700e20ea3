//! Write faults: a server that dies, replies garbage, replies twice or to
//! nothing, fails a close, refuses writes as a full disk does, or acks
//! more than a block; and a remote shell that cannot start. Each ends in
//! an error with the committed count a prefix of what the server holds.

use std::process::Stdio;

use crate::common::tapebuf;
use crate::rmt_faults::fake::Fault;
use crate::rmt_faults::{write_case, BLOCK, MIB};

#[test]
fn a_well_behaved_server_gets_the_stream_exactly() {
    let w = write_case(Fault::None, "vault:/srv/b.tar", 2 * MIB, &[], 0);
    assert_eq!(w.committed, w.data.len() as u64);
}

#[test]
fn a_server_that_dies_mid_write_leaves_exactly_its_acknowledged_prefix() {
    let w = write_case(Fault::DieAtWrite(5), "vault:/dev/nst0", 2 * MIB, &[], 1);
    assert_eq!(w.committed, 5 * BLOCK as u64, "{}", w.stderr);
    assert_eq!(w.fake.seen.lock().unwrap().accepted.len(), 5 * BLOCK);
}

#[test]
fn a_garbage_reply_is_an_error_that_quotes_it() {
    let w = write_case(Fault::GarbageAtWrite(3), "vault:/dev/nst0", MIB, &[], 1);
    assert_eq!(w.committed, 3 * BLOCK as u64, "{}", w.stderr);
    assert!(
        w.stderr
            .contains("\"Permission denied, please try again.\", which is not an rmt reply"),
        "{}",
        w.stderr
    );
}

#[test]
fn a_write_answered_twice_is_a_desync_whether_the_close_fails_or_not() {
    // The case is the E5: the extra A was taken as C's reply, and
    // the E5 that C really got was never read. The extra reply is seen as
    // soon as it arrives when no request awaits one, else at the close.
    for close in ["E5\nI/O error\n", "A0\n"] {
        for window in ["1", "8"] {
            let fault = Fault::TwiceAtWrite { at: 2, close };
            let extra = ["--rmt-window", window];
            let w = write_case(fault, "vault:/srv/b.tar", MIB, &extra, 1);
            assert!(w.committed >= 3 * BLOCK as u64, "{}", w.stderr);
            assert!(
                w.stderr
                    .contains("desync: C was answered \"A65536\", not A0")
                    || w.stderr.contains(
                        "desync: the server sent \"A65536\" when no request awaited a reply"
                    ),
                "{}",
                w.stderr
            );
        }
    }
}

#[test]
fn a_reply_to_a_request_never_sent_is_a_desync() {
    let w = write_case(Fault::ExtraAfterOpen, "vault:/srv/b.tar", MIB, &[], 1);
    assert_eq!(w.committed, 0, "{}", w.stderr);
    // The extra A0 is seen as unsolicited, or (if it came late) as a
    // write of none of a block's bytes.
    assert!(
        w.stderr
            .contains("desync: the server sent \"A0\" when no request awaited a reply")
            || w.stderr.contains("wrote only 0 of a 65536-byte block"),
        "{}",
        w.stderr
    );
}

#[test]
fn a_failed_close_says_the_data_may_not_be_on_the_medium() {
    let fault = Fault::Close("E5\nInput/output error\n");
    let w = write_case(fault, "vault:/dev/nst0", MIB, &[], 1);
    assert_eq!(w.committed, MIB as u64, "{}", w.stderr);
    assert!(
        w.stderr.contains(&format!(
            "closing failed: the server replied \"Input/output error\" (E5); the data may not be on the medium; {MIB} bytes were acknowledged before the close"
        )),
        "{}",
        w.stderr
    );
}

/// A server that refuses write `at` with `errno`, after taking `then`
/// more writes; with `sticky`, it refuses every later write too.
fn refusal(at: usize, errno: i32, message: &'static str, then: usize, sticky: bool) -> Fault {
    Fault::FailWrite {
        at,
        errno,
        message,
        then,
        sticky,
    }
}

#[test]
fn a_full_remote_disk_is_a_write_failure_and_no_volume_change() {
    let fault = refusal(4, 28, "No space left on device", 0, true);
    let w = write_case(fault, "vault:/srv/b.tar", MIB, &[], 1);
    assert_eq!(w.committed, 4 * BLOCK as u64, "{}", w.stderr);
    assert!(
        w.stderr.contains(&format!(
            "the remote disk is full: the server replied \"No space left on device\" (E28) at byte {}",
            4 * BLOCK
        )),
        "{}",
        w.stderr
    );
    let seen = w.fake.seen.lock().unwrap();
    assert!(
        !seen.requests.contains('I'),
        "no tape operation on a file: {}",
        seen.requests
    );
    assert_eq!(
        seen.requests.matches('O').count(),
        1,
        "no second volume: {}",
        seen.requests
    );
}

#[test]
fn blocks_landing_after_a_refusal_are_counted_and_named_as_stray() {
    let fault = refusal(2, 5, "Input/output error", 4, false);
    let w = write_case(fault, "vault:/dev/nst0", 2 * MIB, &["--rmt-window", "8"], 1);
    assert_eq!(w.committed, 2 * BLOCK as u64, "{}", w.stderr);
    // The four held behind the refusal, and any sent before the client
    // read it.
    let stray = w.fake.seen.lock().unwrap().accepted.len() - 2 * BLOCK;
    assert!(stray >= 4 * BLOCK);
    assert!(
        w.stderr.contains(&format!(
            "({stray} bytes beyond the committed prefix): the medium has a gap, then stray data after the committed prefix"
        )),
        "{}",
        w.stderr
    );
}

#[test]
fn an_acknowledgement_larger_than_the_block_is_not_committed() {
    let extra = ["--rmt-window", "1"];
    let w = write_case(Fault::AckTooMuch(1), "vault:/dev/nst0", MIB, &extra, 1);
    assert_eq!(w.committed, BLOCK as u64, "{}", w.stderr);
    assert!(
        w.stderr.contains(
            "acknowledged 65537 bytes of a 65536-byte block at byte 65536, more than was sent"
        ),
        "{}",
        w.stderr
    );
}

#[test]
fn server_text_reaches_the_terminal_with_its_escapes_made_harmless() {
    let fault = refusal(0, 5, "\x1b]0;owned\x07\x1b[2Jgone", 0, false);
    let w = write_case(fault, "vault:/dev/nst0", MIB, &[], 1);
    assert!(
        !w.stderr.contains('\x1b') && !w.stderr.contains('\x07'),
        "{:?}",
        w.stderr
    );
    assert!(
        w.stderr.contains("\\x1b]0;owned\\x07\\x1b[2Jgone"),
        "{}",
        w.stderr
    );
}

#[test]
fn a_remote_shell_that_cannot_start_is_one_error_line() {
    let out = tapebuf()
        .args([
            "-o",
            "vault:/srv/b.tar",
            "--rsh-command",
            "/nonexistent/ssh",
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert_eq!(
        stderr.matches("No such file or directory").count(),
        1,
        "{stderr}"
    );
    assert!(
        stderr.contains("cannot start the remote shell '/nonexistent/ssh'"),
        "{stderr}"
    );
}
