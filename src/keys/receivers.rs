//! The receivers a sender pins by default: lines of `HOST:PORT
//! FINGERPRINT` in the tapebuf directory's `receivers` file, with `#`
//! comments and blank lines, the way ssh's `known_hosts` pins hosts. A
//! `-O HOST:PORT` without `--pin` takes the fingerprint of the line whose
//! first word is that `HOST:PORT` as typed (`[::1]:9090` for IPv6).
//!
//! The invariant: a file that cannot be read whole is refused whole,
//! naming the file and line, and one `HOST:PORT` with two fingerprints is
//! such a break: a sender never guesses which key its receiver should have.

use std::path::Path;

use crate::keys::fingerprint::Fingerprint;

/// The largest file read.
const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// Pinned receivers, each `HOST:PORT` with its key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Receivers {
    entries: Vec<(String, Fingerprint)>,
}

impl Receivers {
    /// The pins in `text`, read from `source` (a path, for messages).
    pub fn parse(text: &str, source: &str) -> Result<Receivers, String> {
        let mut entries: Vec<(String, Fingerprint)> = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let at = format!("{source}, line {}", n + 1);
            let words: Vec<&str> = line.split_whitespace().collect();
            let [peer, print] = words[..] else {
                return Err(format!("{at}: \"{line}\" is not HOST:PORT FINGERPRINT"));
            };
            let print: Fingerprint = print.parse().map_err(|why| format!("{at}: {why}"))?;
            match entries.iter().find(|(p, _)| p == peer) {
                Some((_, known)) if *known != print => {
                    return Err(format!(
                        "{at}: {peer} is pinned already to {known}, now to {print}"
                    ))
                }
                Some(_) => {}
                None => entries.push((peer.to_string(), print)),
            }
        }
        Ok(Receivers { entries })
    }

    /// The pins in the file at `path`.
    pub fn read(path: &Path) -> Result<Receivers, String> {
        let shown = path.display().to_string();
        let text = crate::base::path_registry::read_small_text(path, MAX_FILE_BYTES)
            .map_err(|e| format!("{shown}: cannot read the pinned receivers: {e}"))?;
        Receivers::parse(&text, &shown)
    }

    /// The key pinned for `peer` (`HOST:PORT` as typed).
    pub fn pin_of(&self, peer: &str) -> Option<Fingerprint> {
        self.entries
            .iter()
            .find(|(p, _)| p == peer)
            .map(|(_, print)| *print)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "SHA256:YW7ENw3OA009+EmJxYHnm+WzMc0T1jtx1W9nb/PEyeE";
    const B: &str = "SHA256:k3QzNw3OA009+EmJxYHnm+WzMc0T1jtx1W9nb/PEyeE";

    #[test]
    fn a_receiver_is_pinned_by_host_and_port_as_typed() {
        let text = format!("# the vault\n\nvault:9090 {A}\n[::1]:9090 {B}\n");
        let pins = Receivers::parse(&text, "receivers").unwrap();
        assert_eq!(pins.pin_of("vault:9090"), Some(A.parse().unwrap()));
        assert_eq!(pins.pin_of("[::1]:9090"), Some(B.parse().unwrap()));
        assert_eq!(pins.pin_of("vault:9091"), None);
        assert_eq!(pins.pin_of("vault"), None);
    }

    #[test]
    fn a_broken_line_refuses_the_whole_file_naming_its_line() {
        for (text, says) in [
            (format!("vault:9090 {A}\nvault:9091\n"), "line 2"),
            (format!("vault:9090 {A} extra\n"), "line 1"),
            ("vault:9090 SHA256:nope\n".to_string(), "line 1"),
            (
                format!("vault:9090 {A}\nvault:9090 {B}\n"),
                "pinned already",
            ),
        ] {
            let e = Receivers::parse(&text, "receivers").unwrap_err();
            assert!(e.starts_with("receivers, line") && e.contains(says), "{e}");
        }
    }

    #[test]
    fn the_same_pin_twice_is_no_break() {
        let text = format!("vault:9090 {A}\nvault:9090 {A}\n");
        assert!(Receivers::parse(&text, "r").is_ok());
    }
}
