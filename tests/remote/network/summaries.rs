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
        Privacy::Plain => (Vec::new(), Vec::new()),
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

#[test]
fn every_kind_of_stream_says_what_it_was_in_both_summaries() {
    for privacy in Privacy::ALL {
        let (rx, tx, port) = both_summaries(privacy);
        let name = serde_json::to_value(privacy).unwrap();
        let records = match privacy {
            Privacy::Tls => serde_json::json!("user space"),
            Privacy::Plain | Privacy::Raw => serde_json::Value::Null,
        };
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
            assert_eq!(link["records"], records, "{privacy:?} {end}: {link}");
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
