//! Tests of the kernel pipe buffers, against real pipes.

use std::io::{Read, Write};
use std::os::fd::AsFd;

use super::*;

fn pipe_pair(flags: OFlag) -> (File, File) {
    let (r, w) = nix::unistd::pipe2(flags | OFlag::O_CLOEXEC).unwrap();
    (File::from(r), File::from(w))
}

#[test]
fn only_power_of_two_page_sizes_make_an_exact_pipe() {
    assert_eq!(pipe_bytes_for(4096), Some(4096));
    assert_eq!(pipe_bytes_for(1 << 20), Some(1 << 20));
    assert_eq!(pipe_bytes_for(256 << 10), Some(256 << 10));
    assert_eq!(pipe_bytes_for(512), None);
    assert_eq!(pipe_bytes_for(96 << 10), None);
    assert_eq!(pipe_bytes_for(100_000), None);
}

#[test]
fn a_block_moves_from_one_pipe_through_the_buffer_to_another_unchanged() {
    let block = KernelPipe::new(64 << 10).unwrap();
    assert_eq!(block.bytes(), 64 << 10);
    let (in_r, mut in_w) = pipe_pair(OFlag::empty());
    let data: Vec<u8> = (0..40_000u32).map(|i| (i * 7 % 251) as u8).collect();
    in_w.write_all(&data).unwrap();
    drop(in_w);
    let arrived = AtomicU64::new(0);
    match fill_pipe(&block, in_r.as_fd(), 64 << 10, &arrived) {
        PipeFill::Ended(n) => assert_eq!(n, data.len()),
        other => panic!("expected the end of input, got {other:?}"),
    }
    assert_eq!(arrived.load(Relaxed), data.len() as u64);
    assert_eq!(block.held().unwrap(), data.len());
    let (mut out_r, out_w) = pipe_pair(OFlag::empty());
    fcntl(&out_w, FcntlArg::F_SETPIPE_SZ(64 << 10)).unwrap();
    drain_pipe(&block, out_w.as_fd(), data.len()).unwrap();
    drop(out_w);
    let mut got = Vec::new();
    out_r.read_to_end(&mut got).unwrap();
    assert_eq!(got, data);
    assert_eq!(block.held().unwrap(), 0);
}

#[test]
fn a_fill_of_small_pieces_stops_when_the_slots_are_taken_instead_of_waiting() {
    // A packet-mode pipe keeps every write a piece of its own.
    let (in_r, mut in_w) = pipe_pair(OFlag::O_DIRECT);
    for _ in 0..10 {
        in_w.write_all(&[5u8; 100]).unwrap();
    }
    let block = KernelPipe::new(4 * 4096).unwrap();
    let arrived = AtomicU64::new(0);
    match fill_pipe(&block, in_r.as_fd(), 4 * 4096, &arrived) {
        PipeFill::Full(n) => assert_eq!(n, 400, "four slots, one piece each"),
        other => panic!("expected a full pipe, got {other:?}"),
    }
    assert_eq!(block.held().unwrap(), 400);
}

#[test]
fn tee_duplicates_a_block_without_consuming_it_and_empty_discards_it() {
    let block = KernelPipe::new(16 << 10).unwrap();
    let copy = KernelPipe::new(16 << 10).unwrap();
    let (in_r, mut in_w) = pipe_pair(OFlag::empty());
    in_w.write_all(b"twelve bytes").unwrap();
    drop(in_w);
    let arrived = AtomicU64::new(0);
    fill_pipe(&block, in_r.as_fd(), 16 << 10, &arrived);
    block.tee_into(&copy, 12).unwrap();
    assert_eq!(block.held().unwrap(), 12);
    assert_eq!(copy.held().unwrap(), 12);
    block.empty().unwrap();
    assert_eq!(block.held().unwrap(), 0);
    let (mut out_r, out_w) = pipe_pair(OFlag::empty());
    drain_pipe(&copy, out_w.as_fd(), 12).unwrap();
    drop(out_w);
    let mut got = Vec::new();
    out_r.read_to_end(&mut got).unwrap();
    assert_eq!(got, b"twelve bytes");
}

#[test]
fn a_drain_to_a_pipe_nobody_reads_fails_with_the_bytes_that_went_out() {
    let _ignore = unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
    let block = KernelPipe::new(16 << 10).unwrap();
    let (in_r, mut in_w) = pipe_pair(OFlag::empty());
    in_w.write_all(&[1u8; 5000]).unwrap();
    drop(in_w);
    fill_pipe(&block, in_r.as_fd(), 16 << 10, &AtomicU64::new(0));
    let (out_r, out_w) = pipe_pair(OFlag::empty());
    drop(out_r);
    let (done, e) = drain_pipe(&block, out_w.as_fd(), 5000).unwrap_err();
    assert_eq!(done, 0);
    assert_eq!(e.raw_os_error(), Some(libc::EPIPE));
}

#[test]
fn pipes_sockets_and_plain_files_may_splice_but_devices_and_appends_may_not() {
    let (r, w) = pipe_pair(OFlag::empty());
    assert_eq!(splice_refusal(r.as_fd()), None);
    assert_eq!(splice_refusal(w.as_fd()), None);
    let null = File::open("/dev/null").unwrap();
    assert_eq!(
        splice_refusal(null.as_fd()),
        Some("is not a pipe, a socket or a regular file")
    );
    let dir = std::env::temp_dir().join(format!("tapebuf-kp-{}", std::process::id()));
    std::fs::write(&dir, b"").unwrap();
    let plain = File::create(&dir).unwrap();
    assert_eq!(splice_refusal(plain.as_fd()), None);
    let appending = std::fs::OpenOptions::new().append(true).open(&dir).unwrap();
    assert!(splice_refusal(appending.as_fd())
        .unwrap()
        .contains("appending"));
    let _ = std::fs::remove_file(&dir);
    let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    assert_eq!(splice_refusal(a.as_fd()), None);
    let dgram = std::os::unix::net::UnixDatagram::unbound().unwrap();
    assert!(splice_refusal(dgram.as_fd()).is_some());
}
