//! `--hash ALG`: digests of the stream, computed off the data path.
//!
//! Each algorithm is a tap: the writer lends it every block, in order, as it
//! lends blocks to the outputs, and it hashes in its own thread (see
//! `sink::fanout`). A block returns to the ring only once every output and
//! every tap is done with it, so a slow hash can slow the run but never
//! miss bytes. The digest covers exactly the bytes given to the outputs,
//! including `--pad`'s zeros.

use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

use md5::Digest as _;

use crate::base::block::Tap;
use crate::base::sync::lock;

/// A digest algorithm `--hash` offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum HashAlg {
    /// MD5, as mbuffer's --md5 gives; for comparison only, not security.
    Md5,
    Sha256,
    Blake3,
    /// XXH3-64, very fast, not cryptographic.
    Xxh3,
}

impl HashAlg {
    /// The name printed before the digest: `sha256: <hex>`.
    pub fn name(self) -> &'static str {
        match self {
            HashAlg::Md5 => "md5",
            HashAlg::Sha256 => "sha256",
            HashAlg::Blake3 => "blake3",
            HashAlg::Xxh3 => "xxh3",
        }
    }

    /// The algorithm `name` names, as a manifest spells it.
    pub fn from_name(name: &str) -> Option<HashAlg> {
        [
            HashAlg::Md5,
            HashAlg::Sha256,
            HashAlg::Blake3,
            HashAlg::Xxh3,
        ]
        .into_iter()
        .find(|alg| alg.name() == name)
    }

    /// The tag of the BSD-style line (`SHA256 (name) = <hex>`).
    fn tag(self) -> &'static str {
        match self {
            HashAlg::Md5 => "MD5",
            HashAlg::Sha256 => "SHA256",
            HashAlg::Blake3 => "BLAKE3",
            HashAlg::Xxh3 => "XXH3",
        }
    }
}

#[derive(Clone)]
enum State {
    Md5(md5::Md5),
    Sha256(sha2::Sha256),
    Blake3(Box<blake3::Hasher>),
    Xxh3(Box<xxhash_rust::xxh3::Xxh3>),
}

/// One running digest of any `--hash` algorithm: what a tap and the
/// manifest's volume digests both compute.
#[derive(Clone)]
pub struct Hasher(State);

impl Hasher {
    pub fn new(alg: HashAlg) -> Hasher {
        Hasher(match alg {
            HashAlg::Md5 => State::Md5(md5::Md5::new()),
            HashAlg::Sha256 => State::Sha256(sha2::Sha256::new()),
            HashAlg::Blake3 => State::Blake3(Box::default()),
            HashAlg::Xxh3 => State::Xxh3(Box::default()),
        })
    }

    pub fn update(&mut self, data: &[u8]) {
        match &mut self.0 {
            State::Md5(h) => h.update(data),
            State::Sha256(h) => h.update(data),
            State::Blake3(h) => {
                h.update(data);
            }
            State::Xxh3(h) => h.update(data),
        }
    }

    /// The digest in lower-case hex, as `sha256sum` or `xxhsum -H3` print it.
    pub fn finish(self) -> String {
        match self.0 {
            State::Md5(h) => hex(&h.finalize()),
            State::Sha256(h) => hex(&h.finalize()),
            State::Blake3(h) => h.finalize().to_hex().to_string(),
            State::Xxh3(h) => format!("{:016x}", h.digest()),
        }
    }
}

/// A finished digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Digest {
    pub alg: HashAlg,
    pub hex: String,
    /// The bytes it covers.
    pub bytes: u64,
}

type Slot = Arc<Mutex<Option<Digest>>>;

/// One algorithm hashing the stream.
pub struct HashTap {
    alg: HashAlg,
    state: Option<Hasher>,
    bytes: u64,
    result: Slot,
}

impl Tap for HashTap {
    fn update(&mut self, data: &[u8]) {
        self.bytes += data.len() as u64;
        if let Some(h) = self.state.as_mut() {
            h.update(data);
        }
    }

    fn finish(&mut self) {
        let Some(state) = self.state.take() else {
            return;
        };
        *lock(&self.result) = Some(Digest {
            alg: self.alg,
            hex: state.finish(),
            bytes: self.bytes,
        });
    }
}

use crate::base::hex::encode as hex;

/// Where the taps leave their digests, read once the run is over.
#[derive(Debug, Clone, Default)]
pub struct Digests(Vec<(HashAlg, Slot)>);

/// A tap for each algorithm, and the handle to read their digests.
pub fn taps(algs: &[HashAlg]) -> (Vec<Box<dyn Tap>>, Digests) {
    let mut taps: Vec<Box<dyn Tap>> = Vec::new();
    let mut slots = Vec::new();
    for &alg in algs {
        let slot: Slot = Arc::default();
        taps.push(Box::new(HashTap {
            alg,
            state: Some(Hasher::new(alg)),
            bytes: 0,
            result: Arc::clone(&slot),
        }));
        slots.push((alg, slot));
    }
    (taps, Digests(slots))
}

impl Digests {
    /// The finished digests, in `--hash` order; None for one that never
    /// finished (the run was stopped).
    pub fn results(&self) -> Vec<(HashAlg, Option<Digest>)> {
        self.0
            .iter()
            .map(|(alg, slot)| (*alg, lock(slot).clone()))
            .collect()
    }

    /// The stderr lines: `sha256: <hex>`. A digest of a run that failed
    /// says which bytes it covers, since they are not a whole stream.
    pub fn lines(&self, whole: bool) -> Vec<String> {
        self.results()
            .into_iter()
            .map(|(alg, d)| match d {
                Some(d) if whole => format!("{}: {}", alg.name(), d.hex),
                Some(d) => format!(
                    "{}: {} (of the first {} bytes only; the run failed)",
                    alg.name(),
                    d.hex,
                    d.bytes
                ),
                None => format!("{}: not computed; the run was stopped", alg.name()),
            })
            .collect()
    }

    /// The `--hash-file` text for a stream called `name`: `sha256sum`'s
    /// format for one algorithm, BSD tagged lines (`cksum -c` reads them)
    /// for several. None if a digest is missing.
    pub fn file_text(&self, name: &str) -> Option<String> {
        let results = self.results();
        let tagged = results.len() > 1;
        let mut text = String::new();
        for (alg, d) in results {
            let d = d?;
            if tagged {
                let _ = writeln!(text, "{} ({name}) = {}", alg.tag(), d.hex);
            } else {
                let _ = writeln!(text, "{}  {name}", d.hex);
            }
        }
        Some(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest_all(algs: &[HashAlg], chunks: &[&[u8]]) -> Digests {
        let (mut taps, digests) = taps(algs);
        for t in taps.iter_mut() {
            for c in chunks {
                t.update(c);
            }
            t.finish();
        }
        digests
    }

    #[test]
    fn known_answers_for_abc_split_across_blocks() {
        let all = [
            HashAlg::Md5,
            HashAlg::Sha256,
            HashAlg::Blake3,
            HashAlg::Xxh3,
        ];
        let d = digest_all(&all, &[b"a", b"bc"]);
        let lines = d.lines(true);
        assert_eq!(lines[0], "md5: 900150983cd24fb0d6963f7d28e17f72");
        assert_eq!(
            lines[1],
            "sha256: ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            lines[2],
            "blake3: 6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85"
        );
        assert_eq!(
            lines[3],
            format!("xxh3: {:016x}", xxhash_rust::xxh3::xxh3_64(b"abc"))
        );
    }

    #[test]
    fn one_algorithm_writes_sha256sum_format_several_write_tagged_lines() {
        let one = digest_all(&[HashAlg::Sha256], &[b"abc"]);
        assert_eq!(
            one.file_text("out.img").unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  out.img\n"
        );
        let two = digest_all(&[HashAlg::Md5, HashAlg::Sha256], &[b"abc"]);
        let text = two.file_text("-").unwrap();
        assert!(text.starts_with("MD5 (-) = 900150983cd24fb0d6963f7d28e17f72\nSHA256 (-) = "));
    }

    #[test]
    fn a_failed_run_says_the_digest_covers_only_part() {
        let d = digest_all(&[HashAlg::Md5], &[b"abc"]);
        assert!(d.lines(false)[0].ends_with("(of the first 3 bytes only; the run failed)"));
        let (_taps, unfinished) = taps(&[HashAlg::Sha256]);
        assert_eq!(
            unfinished.lines(true)[0],
            "sha256: not computed; the run was stopped"
        );
        assert!(unfinished.file_text("-").is_none());
    }
}
