//! Keys for private streams, made by the real `tapebuf key new`, and the
//! flags that put them to use on each end of a stream.

use std::path::{Path, PathBuf};

/// A key made by `tapebuf key new`, and its fingerprint.
pub struct Key {
    pub file: PathBuf,
    pub print: String,
}

/// Makes the key `name` as `dir/NAME.key`.
pub fn new_key(dir: &Path, name: &str) -> Key {
    let file = dir.join(format!("{name}.key"));
    let out = super::tapebuf()
        .args(["key", "new", file.to_str().unwrap(), "--name", name])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = String::from_utf8(out.stdout).unwrap();
    let print = line.split_whitespace().next().unwrap().to_string();
    Key { file, print }
}

/// A receiver's key "vault" and a sender's key "db1", each allowing the
/// other.
pub struct Pair {
    pub receiver: Key,
    pub sender: Key,
}

impl Pair {
    /// Makes both keys in `dir`.
    pub fn new(dir: &Path) -> Pair {
        Pair {
            receiver: new_key(dir, "vault"),
            sender: new_key(dir, "db1"),
        }
    }

    /// The receiver's flags: its key, allowing the sender as db1.
    pub fn receiver_flags(&self) -> Vec<String> {
        let key = self.receiver.file.display().to_string();
        let allow = format!("{}=db1", self.sender.print);
        ["--key", &key, "--allow-key", &allow]
            .map(String::from)
            .to_vec()
    }

    /// The sender's flags: its key, pinning the receiver's.
    pub fn sender_flags(&self) -> Vec<String> {
        let key = self.sender.file.display().to_string();
        ["--key", &key, "--pin", &self.receiver.print]
            .map(String::from)
            .to_vec()
    }
}
