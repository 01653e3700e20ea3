//! A tape key: the 256-bit AES key an LTO drive encrypts with
//! (`tape::encryption`), its file, and the fingerprint it is known by.
//!
//! The file (`tapebuf key new --tape FILE`) is one line of 64 hex digits,
//! the layout stenc reads, made only where no file is, mode 0600 from its
//! creation, and synced. A key file made elsewhere may instead hold the
//! 32 raw bytes. Either is read only through `keys::key_file::read_private`:
//! a regular file of this user or root that no one else may read or
//! change. A line after the key (stenc's key description) is ignored.
//!
//! The fingerprint is `tapebuf:` and the unpadded base64 of the first 18
//! bytes of SHA-256("tapebuf tape key\0" || key): 32 characters, the most
//! an LTO drive keeps as the unauthenticated key-associated data (U-KAD)
//! of every block, so a cartridge says which key it needs. It tells
//! nothing of the key (the key is 256 random bits; the hash is one-way
//! and kept apart from any other use of SHA-256 by its prefix).
//!
//! The key's bytes are zeroed when it is dropped, and never printed.

use std::fmt;
use std::path::Path;

use ring::rand::{SecureRandom, SystemRandom};
use sha2::{Digest, Sha256};

use crate::base::{base64, hex};
use crate::keys::key_file::{read_private, write_private, KeyError};

/// The bytes of an AES-256 key.
pub const KEY_BYTES: usize = 32;
/// The bytes of a fingerprint's text: the most U-KAD an LTO drive keeps.
pub const PRINT_TEXT_BYTES: usize = 32;

/// What every tape key's fingerprint begins with.
pub const PREFIX: &str = "tapebuf:";
/// The digest bytes a fingerprint shows.
const PRINT_BYTES: usize = 18;
/// The largest key file read.
const MAX_FILE_BYTES: u64 = 4096;

/// A tape key's fingerprint.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyPrint([u8; PRINT_BYTES]);

impl KeyPrint {
    /// The fingerprint a drive returned as a block's U-KAD, if it is one
    /// of tapebuf's.
    pub fn from_ukad(ukad: &[u8]) -> Option<KeyPrint> {
        let text = std::str::from_utf8(ukad).ok()?;
        text.trim_end_matches('\0').parse().ok()
    }

    /// The U-KAD written with every block: the text itself.
    pub fn ukad(&self) -> Vec<u8> {
        self.to_string().into_bytes()
    }
}

impl fmt::Display for KeyPrint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{PREFIX}{}", base64::encode(&self.0, false))
    }
}

impl fmt::Debug for KeyPrint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::str::FromStr for KeyPrint {
    type Err = String;

    fn from_str(text: &str) -> Result<KeyPrint, String> {
        let digits = text.strip_prefix(PREFIX).ok_or_else(|| {
            format!("\"{text}\" is no tape key fingerprint: it must begin with {PREFIX}")
        })?;
        let bytes = base64::decode(digits)
            .map_err(|why| format!("\"{text}\" is no tape key fingerprint: {why}"))?;
        let digest = bytes.try_into().map_err(|_| {
            format!("\"{text}\" is no tape key fingerprint: it must hold {PRINT_BYTES} bytes")
        })?;
        Ok(KeyPrint(digest))
    }
}

/// A 256-bit tape key.
pub struct TapeKey {
    bytes: [u8; KEY_BYTES],
    print: KeyPrint,
}

impl fmt::Debug for TapeKey {
    /// The fingerprint only: a key is never printed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TapeKey({})", self.print)
    }
}

impl Drop for TapeKey {
    fn drop(&mut self) {
        for b in self.bytes.iter_mut() {
            // SAFETY: `b` is a valid, aligned, exclusive reference; the
            // volatile write keeps the compiler from dropping the store.
            unsafe { std::ptr::write_volatile(b, 0) };
        }
    }
}

impl TapeKey {
    pub fn from_bytes(bytes: [u8; KEY_BYTES]) -> TapeKey {
        let mut hash = Sha256::new();
        hash.update(b"tapebuf tape key\0");
        hash.update(bytes);
        let digest = hash.finalize();
        let mut print = [0u8; PRINT_BYTES];
        print.copy_from_slice(&digest[..PRINT_BYTES]);
        TapeKey {
            bytes,
            print: KeyPrint(print),
        }
    }

    /// A new key from the system's random source.
    pub fn generate() -> Result<TapeKey, KeyError> {
        let mut bytes = [0u8; KEY_BYTES];
        SystemRandom::new()
            .fill(&mut bytes)
            .map_err(|_| KeyError::Random)?;
        Ok(TapeKey::from_bytes(bytes))
    }

    pub fn print(&self) -> KeyPrint {
        self.print
    }

    /// The key itself, for the drive's set page only.
    pub fn bytes(&self) -> &[u8; KEY_BYTES] {
        &self.bytes
    }

    /// Reads the key in `path`, refusing a file others may read or change.
    pub fn load(path: &Path) -> Result<TapeKey, KeyError> {
        let mut raw = read_private(path, MAX_FILE_BYTES)?;
        let key = parse(&raw);
        raw.iter_mut().for_each(|b| *b = 0);
        key.map(TapeKey::from_bytes)
            .map_err(|why| KeyError::Malformed {
                path: path.to_path_buf(),
                why: why.into(),
            })
    }

    /// Writes the key to `path`, which must not exist, with mode 0600, and
    /// syncs it; a write that fails removes the half-written file.
    pub fn write_new(&self, path: &Path) -> Result<(), KeyError> {
        let mut line = Vec::with_capacity(2 * KEY_BYTES + 1);
        hex::encode_into(&self.bytes, &mut line);
        line.push(b'\n');
        let written = write_private(path, &line);
        line.iter_mut().for_each(|b| *b = 0);
        written
    }
}

/// The key in a file's bytes: a first line of 64 hex digits, or exactly
/// 32 bytes that are not such a line.
fn parse(raw: &[u8]) -> Result<[u8; KEY_BYTES], &'static str> {
    let line = raw.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = line.trim_ascii();
    let mut key = [0u8; KEY_BYTES];
    if hex::decode_into(line, &mut key) {
        return Ok(key);
    }
    key.fill(0);
    match <[u8; KEY_BYTES]>::try_from(raw) {
        Ok(key) => Ok(key),
        Err(_) => Err("it holds neither a line of 64 hex digits (a 256-bit key, as tapebuf key new --tape and stenc write it) nor 32 raw bytes"),
    }
}

const _: () = assert!(PREFIX.len() + PRINT_BYTES / 3 * 4 == PRINT_TEXT_BYTES);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fingerprint_fills_a_drives_ukad_exactly_and_reads_back_from_it() {
        let key = TapeKey::from_bytes([7; 32]);
        let ukad = key.print().ukad();
        assert_eq!(ukad.len(), PRINT_TEXT_BYTES);
        assert_eq!(KeyPrint::from_ukad(&ukad), Some(key.print()));
        assert_eq!(KeyPrint::from_ukad(b"stenc's own description"), None);
        assert_ne!(TapeKey::from_bytes([8; 32]).print(), key.print());
    }

    #[test]
    fn a_key_file_is_hex_as_stenc_writes_it_or_32_raw_bytes() {
        let hex = "00112233445566778899aabbccddeeff00112233445566778899AABBCCDDEEFF\nmy key\n";
        let key = parse(hex.as_bytes()).unwrap();
        assert_eq!(key[..4], [0x00, 0x11, 0x22, 0x33]);
        assert_eq!(key[31], 0xff);
        assert_eq!(parse(&[0xfe; 32]).unwrap(), [0xfe; 32]);
        assert!(parse(b"0011").is_err());
        assert!(parse(&[1; 33]).is_err());
    }

    #[test]
    fn a_key_never_shows_its_bytes_when_printed() {
        let key = TapeKey::from_bytes([0xab; 32]);
        let shown = format!("{key:?}");
        assert_eq!(shown, format!("TapeKey({})", key.print()));
    }
}
