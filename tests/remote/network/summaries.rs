//! What both ends' `--summary-json` say of a network stream, for every
//! kind of stream tapebuf has (`net::facts::Privacy::ALL`): the end, the
//! peer, and how private the stream was. A kind added later is run here
//! the day it is added, and must say what it is.

use tapebuf::net::facts::Privacy;

use crate::common::keys::Pair;
use crate::common::spawn_piped;
use crate::network::harness::*;

/// The receiver's and the sender's flags for a stream of `privacy`.
fn flags(privacy: Privacy, keys: &Pair) -> (Vec<String>, Vec<String>) {
    match privacy {
        Privacy::Tls => (keys.receiver_flags(), keys.sender_flags()),
        Privacy::Plain => (vec!["--plain".into()], vec!["--plain".into()]),
        Privacy::Raw => (vec!["--raw".into()], vec!["--raw".into()]),
    }
}

/// The `network` list of a summary file.
fn network(file: &std::path::Path) -> serde_json::Value {
    let text = std::fs::read_to_string(file).unwrap();
    let summary: serde_json::Value = serde_json::from_str(&text).unwrap();
    summary["network"].clone()
}

/// Sends 4 MiB over `privacy` and gives both ends' `network` lists.
fn both_summaries(privacy: Privacy) -> (serde_json::Value, serde_json::Value, u16) {
    let dir = tempfile::tempdir().unwrap();
    let keys = Pair::new(dir.path());
    let (rx_flags, tx_flags) = flags(privacy, &keys);
    let (rx_json, tx_json) = (dir.path().join("rx.json"), dir.path().join("tx.json"));
    let mut args = vec![
        "-I",
        "127.0.0.1:0",
        "-s",
        "1M",
        "-m",
        "32M",
        "--summary-json",
    ];
    args.push(rx_json.to_str().unwrap());
    args.extend(rx_flags.iter().map(String::as_str));
    let mut receiver = spawn_piped(&args);
    let port = crate::common::ports::listening_port(&mut receiver);
    let received = drain(&mut receiver);
    let to = format!("127.0.0.1:{port}");
    let mut args = vec!["-O", &to, "-s", "1M", "-m", "32M", "-q", "--summary-json"];
    args.push(tx_json.to_str().unwrap());
    args.extend(tx_flags.iter().map(String::as_str));
    let mut sender = spawn_piped(&args);
    let sent = feed(&mut sender, Some(4));
    let sender_err = stderr_of(&mut sender);
    assert!(
        sender.wait().unwrap().success(),
        "{privacy:?}: {sender_err}"
    );
    let receiver_err = stderr_of(&mut receiver);
    assert!(
        receiver.wait().unwrap().success(),
        "{privacy:?}: {receiver_err}"
    );
    assert_eq!(
        received.join().unwrap(),
        sent.join().unwrap(),
        "{privacy:?}"
    );
    (network(&rx_json), network(&tx_json), port)
}

/// Under TLS, the kernel or user space made the records, and user space
/// says why not the kernel; no other stream has records.
fn says_who_made_the_records(privacy: Privacy, link: &serde_json::Value) {
    let because = &link["user_space_because"];
    match (privacy, link["records"].as_str()) {
        (Privacy::Tls, Some("kernel")) => assert!(because.is_null(), "{link}"),
        (Privacy::Tls, Some("user space")) => {
            let why = because.as_str().unwrap_or_default();
            assert!(!why.is_empty(), "{link}");
        }
        (Privacy::Plain | Privacy::Raw, None) => assert!(because.is_null(), "{link}"),
        _ => panic!("{privacy:?}: {link}"),
    }
}

#[test]
fn every_kind_of_stream_says_what_it_was_in_both_summaries() {
    for privacy in Privacy::ALL {
        let (rx, tx, port) = both_summaries(privacy);
        let name = serde_json::to_value(privacy).unwrap();
        for (end, list, endpoint) in [
            ("receiver", &rx, "-I 127.0.0.1:0".to_string()),
            ("sender", &tx, format!("-O 127.0.0.1:{port}")),
        ] {
            let link = &list[0];
            assert_eq!(
                list.as_array().map(Vec::len),
                Some(1),
                "{privacy:?} {end}: {list}"
            );
            assert_eq!(link["privacy"], name, "{privacy:?} {end}: {link}");
            says_who_made_the_records(privacy, link);
            assert_eq!(
                link["endpoint"],
                endpoint.as_str(),
                "{privacy:?} {end}: {link}"
            );
            let peer = link["peer"].as_str().unwrap_or_default();
            assert!(peer.starts_with("127.0.0.1:"), "{privacy:?} {end}: {link}");
        }
    }
}

/// `--ktls on` on both ends either runs on the kernel's TLS, byte-exact
/// and said so in both summaries, or, where this kernel cannot (no `tls`
/// module, as on this project's test machine), fails the sender at once
/// with one line naming why, nothing output. The tape lab runs the first
/// branch on a kernel that has the module.
#[test]
fn ktls_on_runs_in_the_kernel_or_fails_saying_why() {
    let dir = tempfile::tempdir().unwrap();
    let keys = Pair::new(dir.path());
    let mut receiver_args = vec!["-I", "127.0.0.1:0", "-s", "1M", "-m", "32M"];
    let rx_flags = keys.receiver_flags();
    receiver_args.extend(rx_flags.iter().map(String::as_str));
    receiver_args.extend(["--ktls", "on", "--connect-timeout", "5"]);
    let mut receiver = spawn_piped(&receiver_args);
    let port = crate::common::ports::listening_port(&mut receiver);
    let received = drain(&mut receiver);
    let to = format!("127.0.0.1:{port}");
    let tx_flags = keys.sender_flags();
    let mut sender_args = vec!["-O", &to, "-s", "1M", "-m", "32M", "-q", "--ktls", "on"];
    sender_args.extend(tx_flags.iter().map(String::as_str));
    let mut sender = spawn_piped(&sender_args);
    let sent = feed(&mut sender, Some(2));
    let sender_err = stderr_of(&mut sender);
    let sender_code = sender.wait().unwrap().code();
    let receiver_err = stderr_of(&mut receiver);
    let receiver_code = receiver.wait().unwrap().code();
    let (sent, received) = (sent.join().unwrap(), received.join().unwrap());
    if sender_code == Some(0) {
        assert_eq!(receiver_code, Some(0), "{receiver_err}");
        assert_eq!(received, sent);
        assert!(
            receiver_err.contains("over TLS 1.3 in the kernel (kTLS)"),
            "{receiver_err}"
        );
    } else {
        assert_eq!(sender_code, Some(1), "{sender_err}");
        assert!(
            sender_err.contains("--ktls on: the kernel does not make TLS records here: "),
            "{sender_err}"
        );
        assert_eq!(sender_err.lines().count(), 1, "{sender_err}");
        assert_eq!(received.0, 0, "nothing was output");
        assert_ne!(receiver_code, Some(0), "{receiver_err}");
    }
}
