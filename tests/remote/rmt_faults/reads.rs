//! Read faults: a server that answers a read with more or less than
//! asked, with an extra reply, or dies mid-read. Only bytes the client
//! asked for and got whole reach the output, and the summary counts them.

use std::process::ExitStatus;

use crate::common::{pattern, summary_number};
use crate::rmt_faults::fake::{fake, Fault};
use crate::rmt_faults::{restore, BLOCK};

/// The checks every read fault shares: the summary's count is what the
/// output holds, the output is a prefix of the file, and exit 0 comes
/// only with the whole file.
fn assert_read_outcome(status: ExitStatus, stderr: &str, out: &[u8], file: &[u8], code: i32) {
    assert_eq!(status.code(), Some(code), "{stderr}");
    assert_eq!(summary_number(stderr, "out "), out.len() as u64, "{stderr}");
    assert!(
        file.starts_with(out),
        "the output holds bytes the file does not: {stderr}"
    );
    eprintln!(
        "outcome: exit {:?}, committed {}, output holds {} of {}: {}",
        status.code(),
        summary_number(stderr, "out "),
        out.len(),
        file.len(),
        stderr.lines().next().unwrap_or("")
    );
    if status.success() {
        assert!(out == file, "{stderr}");
    }
}

fn read_case(fault: Fault, code: i32, expected: &str) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let file = pattern((1 << 20) + 1000, 14);
    let fake = fake(dir.path(), fault, file.clone());
    let (status, stderr, out) = restore(&fake, "vault:/srv/b.tar");
    assert_read_outcome(status, &stderr, &out, &file, code);
    assert!(stderr.contains(expected), "{stderr}");
    out
}

#[test]
fn a_well_behaved_server_reads_back_exactly() {
    let out = read_case(Fault::None, 0, "summary");
    assert_eq!(out.len(), (1 << 20) + 1000);
}

#[test]
fn a_read_answered_with_more_than_asked_is_refused() {
    read_case(
        Fault::ReadMore(3),
        1,
        "protocol error: the server sent 65546 bytes for a read of at most 65536",
    );
}

#[test]
fn a_short_read_in_the_middle_of_a_file_never_reaches_the_output() {
    read_case(
        Fault::ReadShort(3),
        1,
        "desync: a read of 65536 bytes at byte 196608 got 32768",
    );
}

#[test]
fn an_extra_read_reply_never_reaches_the_output() {
    read_case(
        Fault::ReadExtra { at: 3, len: 100 },
        1,
        "desync: a read of 65536 bytes at byte 262144 got 100",
    );
}

#[test]
fn an_extra_full_size_read_reply_fails_the_run_at_the_close() {
    // Junk the size of a block can't be told from data until the end; the
    // run must not succeed.
    let dir = tempfile::tempdir().unwrap();
    let file = pattern((1 << 20) + 1000, 15);
    let fake = fake(
        dir.path(),
        Fault::ReadExtra { at: 3, len: BLOCK },
        file.clone(),
    );
    let (status, stderr, out) = restore(&fake, "vault:/srv/b.tar");
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert_eq!(
        summary_number(&stderr, "out "),
        out.len() as u64,
        "{stderr}"
    );
    assert!(stderr.contains("desync"), "{stderr}");
}

#[test]
fn a_server_that_dies_mid_read_fails_with_what_came() {
    read_case(Fault::DieAtRead(4), 1, "the server closed the connection");
}
