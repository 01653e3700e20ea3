//! Requests encode as servers read them, and a value that would desync
//! the server is refused before anything is written.

use super::*;
use proptest::prelude::*;

#[test]
fn requests_encode_as_the_servers_expect() {
    let mut out = Vec::new();
    let open = Request::Open {
        path: "/dev/nst0".into(),
        flags: "1 O_WRONLY".into(),
    };
    open.encode(&mut out).unwrap();
    Request::Write(10240).encode(&mut out).unwrap();
    Request::Read(512).encode(&mut out).unwrap();
    Request::Ioctl { op: 5, count: 1 }.encode(&mut out).unwrap();
    Request::Status.encode(&mut out).unwrap();
    Request::SEEK_START.encode(&mut out).unwrap();
    Request::Close.encode(&mut out).unwrap();
    assert_eq!(
        out,
        b"O/dev/nst0\n1 O_WRONLY\nW10240\nR512\nI5\n1\nS\nL0\n0\nC\n".to_vec()
    );
}

#[test]
fn values_that_would_desync_the_server_are_refused() {
    let mut out = Vec::new();
    let bad = Request::Open {
        path: "/tmp/a\nC".into(),
        flags: "0 O_RDONLY".into(),
    };
    assert!(bad.encode(&mut out).is_err());
    assert!(Request::Write(0).encode(&mut out).is_err());
    assert!(Request::Read(MAX_RECORD_BYTES + 1)
        .encode(&mut out)
        .is_err());
    assert!(Request::Ioctl {
        op: 4,
        count: u32::MAX
    }
    .encode(&mut out)
    .is_err());
    assert_eq!(
        Request::Ioctl {
            op: u32::MAX,
            count: 1
        }
        .encode(&mut out),
        Err(RequestError::BadOp(u32::MAX))
    );
    assert_eq!(
        Request::Seek {
            whence: 3,
            offset: 0
        }
        .encode(&mut out),
        Err(RequestError::BadWhence(3))
    );
    assert!(out.is_empty(), "nothing is written for a refused request");
}

#[test]
fn a_refused_path_is_named_in_the_message() {
    let bad = Request::Open {
        path: "/tmp/a\nC".into(),
        flags: "0 O_RDONLY".into(),
    };
    assert_eq!(
        bad.encode(&mut Vec::new()).unwrap_err().to_string(),
        "the remote path \"/tmp/a\\nC\" holds a newline or a NUL byte, which the rmt protocol cannot carry"
    );
}

proptest! {
    #[test]
    fn any_request_that_encodes_is_exactly_its_lines(
        path in "[^\n\0]{1,64}",
        n in 1usize..MAX_RECORD_BYTES,
    ) {
        let mut out = Vec::new();
        Request::Open { path: path.clone().into(), flags: "0 O_RDONLY".into() }.encode(&mut out).unwrap();
        Request::Write(n).encode(&mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.split('\n').collect();
        prop_assert_eq!(lines.len(), 4);
        prop_assert_eq!(lines[0], format!("O{path}"));
        prop_assert_eq!(lines[2], format!("W{n}"));
    }
}
