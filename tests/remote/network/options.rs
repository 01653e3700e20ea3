//! Network options at start: bad ones are usage errors naming the flag, a
//! busy port is named, `--tcp-buffer` is applied without harm, and
//! mbuffer's `-4` and `-6` choose the address family.

use std::net::TcpListener;
use std::time::Duration;

use crate::common::{pattern, run, sha256, spawn_piped};
use crate::network::harness::*;

#[test]
fn bad_network_options_are_usage_errors_naming_the_flag() {
    let cases: [(&[&str], &str); 7] = [
        (&["-O", "fd00::7:9090", "--plain"], "tapebuf: -O/--connect: 'fd00::7:9090': put an IPv6 address in brackets, as [fd00::7]:9090"),
        (&["-I", "99999", "--plain"], "tapebuf: -I/--listen: '99999' is not a port number (1 to 65535, or 0 for any free port)"),
        (&["--allow", "10.0.0.1"], "tapebuf: --allow: only applies to -I/--listen"),
        (&["-I", "9", "--plain", "--allow", "10.0.0.0/40"], "tapebuf: --allow: '/40' is not a prefix length (0 to 32)"),
        (&["--raw"], "tapebuf: --raw: only applies to -I and -O"),
        (&["-O", "h:1", "--plain", "--timeout", "0"], "tapebuf: --timeout: must be at least 1 second"),
        (&["-O", "h:1", "--plain", "--tcp-buffer", "1k"], "tapebuf: --tcp-buffer: 1.00 KiB is outside 4 KiB to 1 GiB"),
    ];
    for (args, line) in cases {
        let r = run(args, Vec::new());
        assert_eq!(r.status.code(), Some(2), "{args:?}: {}", r.stderr);
        assert!(r.stderr.starts_with(line), "{args:?}: {}", r.stderr);
    }
}

#[test]
fn a_busy_port_is_named_at_start() {
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let r = run(&["-I", &format!("127.0.0.1:{port}"), "--plain"], Vec::new());
    assert_eq!(r.status.code(), Some(1), "{}", r.stderr);
    assert!(
        r.stderr.starts_with(&format!(
            "tapebuf: -I 127.0.0.1:{port}: cannot listen: Address already in use"
        )),
        "{}",
        r.stderr
    );
}

#[test]
fn a_listener_on_port_0_binds_a_free_port_and_says_which_even_when_quiet() {
    let mut receiver = spawn_piped(&["-I", "127.0.0.1:0", "--plain", "-q"]);
    let (reader, seen) = stderr_until(&mut receiver, "listening on");
    let port = crate::common::ports::port_said(seen.trim_end()).expect("a port");
    assert_ne!(port, 0);
    assert_eq!(
        seen,
        format!("tapebuf: -I: listening on 127.0.0.1:{port}\n")
    );
    let received = drain(&mut receiver);
    let data = pattern(MIB, 5);
    let r = run(
        &["-O", &format!("127.0.0.1:{port}"), "--plain", "-q"],
        data.clone(),
    );
    assert!(r.status.success(), "{}", r.stderr);
    assert!(exit_within(&mut receiver, Duration::from_secs(20)).success());
    assert_eq!(rest_of(reader, String::new()), "", "-q: nothing more");
    assert_eq!(received.join().unwrap(), (data.len() as u64, sha256(&data)));
}

#[test]
fn tcp_buffer_sizes_are_applied_and_the_stream_still_arrives() {
    let mut receiver = spawn_piped(&["-I", "127.0.0.1:0", "--plain", "--tcp-buffer", "128k"]);
    let port = listening_port(&mut receiver);
    let received = drain(&mut receiver);
    let data = pattern(5 * MIB, 8);
    let r = run(
        &[
            "-O",
            &format!("127.0.0.1:{port}"),
            "--plain",
            "--tcp-buffer",
            "128k",
        ],
        data.clone(),
    );
    assert!(r.status.success(), "{}", r.stderr);
    assert!(exit_within(&mut receiver, Duration::from_secs(20)).success());
    assert_eq!(received.join().unwrap(), (data.len() as u64, sha256(&data)));
}

#[test]
fn ipv6_only_finds_no_address_in_an_ipv4_literal_and_says_so() {
    // mbuffer's -6: only IPv6 for -I and -O.
    let r = run(
        &[
            "-6",
            "-O",
            "127.0.0.1:9",
            "--plain",
            "--connect-timeout",
            "1",
        ],
        pattern(10, 1),
    );
    assert_eq!(r.status.code(), Some(1), "{}", r.stderr);
    assert!(
        r.stderr
            .contains("cannot resolve 127.0.0.1: the name has no IPv6 (-6) address"),
        "{}",
        r.stderr
    );
}

#[test]
fn ipv4_only_listens_on_every_ipv4_address() {
    // mbuffer's -4, as znapzend gives it: -4 -I PORT.
    let mut receiver = spawn_piped(&["-4", "-I", "0", "--plain"]);
    let port = listening_port(&mut receiver);
    let received = drain(&mut receiver);
    let table = std::fs::read_to_string("/proc/net/tcp").unwrap();
    assert!(
        table.contains(&format!("00000000:{port:04X} 00000000:0000 0A")),
        "not listening on 0.0.0.0:{port}"
    );
    let data = pattern(MIB, 4);
    let r = run(
        &["-O", &format!("127.0.0.1:{port}"), "--plain"],
        data.clone(),
    );
    assert!(r.status.success(), "{}", r.stderr);
    assert!(exit_within(&mut receiver, Duration::from_secs(20)).success());
    assert_eq!(received.join().unwrap(), (data.len() as u64, sha256(&data)));
}
