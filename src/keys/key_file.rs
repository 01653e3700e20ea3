//! A tapebuf key pair and its file. The key is Ed25519 (RFC 8032), made
//! with the system's random source; the file holds its PKCS#8 form (RFC
//! 5958) as PEM labelled `PRIVATE KEY`, which openssl reads too. The public
//! key, as a SubjectPublicKeyInfo, is what a TLS peer is shown, and its
//! SHA-256 is the key's [`Fingerprint`].
//!
//! A key file is made only where no file is (never over another key, nor
//! through a planted link: `base::create`), with mode 0600 from its
//! creation, and synced before its fingerprint is shown; a write that
//! fails removes the half-written file.
//! It is read only if it belongs to this user (or root) and no one else
//! may read or write it, as ssh insists for its own keys: a private key
//! others can read is no proof of who holds it.

use std::io::{self, Read, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use ring::rand::SystemRandom;
use ring::signature::{Ed25519KeyPair, KeyPair as _};

use crate::base::create::create_new;
use crate::base::path_registry::open_regular;
use crate::keys::fingerprint::Fingerprint;
use crate::keys::pem;

/// The label of a key file's PEM block.
pub const PEM_LABEL: &str = "PRIVATE KEY";

/// The DER of an Ed25519 SubjectPublicKeyInfo before its 32 key bytes:
/// SEQUENCE { SEQUENCE { OID 1.3.101.112 }, BIT STRING (0 unused bits) }.
const ED25519_SPKI_PREFIX: [u8; 12] = [
    0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00,
];

/// An Ed25519 private key in PKCS#8 v1 (RFC 8410) before its 32-byte
/// seed: SEQUENCE { INTEGER 0, SEQUENCE { OID 1.3.101.112 }, OCTET STRING
/// { OCTET STRING } }. ring makes v2, which adds the public key after the
/// seed and which OpenSSL 3.0 does not read; the file holds v1.
const ED25519_PKCS8_V1_PREFIX: [u8; 16] = [
    0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
];

/// ring's PKCS#8 v2 of an Ed25519 key, up to the seed: as v1 but version 1
/// and 0x51 bytes long (the public key follows the seed, tagged [1]).
const ED25519_PKCS8_V2_PREFIX: [u8; 16] = [
    0x30, 0x51, 0x02, 0x01, 0x01, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
];

/// The largest key file read; an Ed25519 key's is under 200 bytes.
const MAX_FILE_BYTES: u64 = 64 * 1024;

/// Why a key could not be made, written or read.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error("{}: exists; a key is never written over another file (remove it, or give another name)", path.display())]
    Exists { path: PathBuf },
    #[error("{}: {what}: {source}", path.display())]
    Io {
        path: PathBuf,
        what: &'static str,
        source: io::Error,
    },
    #[error("{}: mode {mode:04o} lets others {}; run chmod 600 {}", path.display(), if mode & 0o044 != 0 { "read it" } else { "change it" }, path.display())]
    Unprotected { path: PathBuf, mode: u32 },
    #[error("{}: belongs to uid {owner}, not to this user (uid {user}) or root", path.display())]
    Foreign {
        path: PathBuf,
        owner: u32,
        user: u32,
    },
    #[error("{}: not a tapebuf key: {why}", path.display())]
    Malformed { path: PathBuf, why: String },
    #[error("the system's random source failed; no key was made")]
    Random,
}

impl KeyError {
    /// True when the file given is at fault (it exists, is open to
    /// others, or holds no key), rather than the system.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            KeyError::Exists { .. }
                | KeyError::Unprotected { .. }
                | KeyError::Foreign { .. }
                | KeyError::Malformed { .. }
        )
    }
}

/// An Ed25519 key pair, with the PKCS#8 bytes it was made from (v1 for a
/// key tapebuf made; v2 is read too).
pub struct KeyPair {
    pkcs8: Vec<u8>,
    pair: Ed25519KeyPair,
}

impl std::fmt::Debug for KeyPair {
    /// Shows the fingerprint only: a private key is never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "KeyPair({})", self.fingerprint())
    }
}

impl KeyPair {
    /// A new key pair from the system's random source.
    pub fn generate() -> Result<KeyPair, KeyError> {
        let document =
            Ed25519KeyPair::generate_pkcs8(&SystemRandom::new()).map_err(|_| KeyError::Random)?;
        let v2 = document.as_ref();
        let seed = v2
            .strip_prefix(&ED25519_PKCS8_V2_PREFIX[..])
            .and_then(|rest| rest.get(..32))
            .ok_or(KeyError::Random)?;
        let mut v1 = ED25519_PKCS8_V1_PREFIX.to_vec();
        v1.extend_from_slice(seed);
        KeyPair::from_pkcs8(&v1).map_err(|_| KeyError::Random)
    }

    /// The key pair in PKCS#8 bytes `der`.
    pub fn from_pkcs8(der: &[u8]) -> Result<KeyPair, String> {
        let pair = Ed25519KeyPair::from_pkcs8_maybe_unchecked(der)
            .map_err(|e| format!("no Ed25519 private key in PKCS#8 form ({e})"))?;
        Ok(KeyPair {
            pkcs8: der.to_vec(),
            pair,
        })
    }

    /// The public key as a SubjectPublicKeyInfo, DER.
    pub fn spki(&self) -> Vec<u8> {
        let mut spki = ED25519_SPKI_PREFIX.to_vec();
        spki.extend_from_slice(self.pair.public_key().as_ref());
        spki
    }

    pub fn fingerprint(&self) -> Fingerprint {
        Fingerprint::of_spki(&self.spki())
    }

    /// The private key, PKCS#8 DER, for the TLS layer.
    pub fn pkcs8(&self) -> &[u8] {
        &self.pkcs8
    }

    /// Writes the key to `path`, which must not exist, with mode 0600, and
    /// syncs it.
    pub fn write_new(&self, path: &Path) -> Result<(), KeyError> {
        write_private(path, pem::encode(PEM_LABEL, &self.pkcs8).as_bytes())
    }

    /// Reads the key in `path`, refusing a file others may read or change.
    pub fn load(path: &Path) -> Result<KeyPair, KeyError> {
        let text = read_private(path, MAX_FILE_BYTES)?;
        let malformed = |why: String| KeyError::Malformed {
            path: path.to_path_buf(),
            why,
        };
        let der = pem::decode(
            PEM_LABEL,
            &String::from_utf8(text).map_err(|_| malformed("it is not text".into()))?,
        )
        .map_err(malformed)?;
        KeyPair::from_pkcs8(&der).map_err(malformed)
    }
}

/// Writes `bytes` to `path`, which must not exist, as a file of mode 0600
/// from its creation, and syncs it; a write that fails removes the
/// half-written file. Every secret tapebuf makes is written through this.
pub fn write_private(path: &Path, bytes: &[u8]) -> Result<(), KeyError> {
    let io = |what| {
        move |source| KeyError::Io {
            path: path.to_path_buf(),
            what,
            source,
        }
    };
    let mut file = create_new(path, 0o600).map_err(|e| match e.kind() {
        io::ErrorKind::AlreadyExists => KeyError::Exists {
            path: path.to_path_buf(),
        },
        _ => io("cannot create it")(e),
    })?;
    let written = file
        .write_all(bytes)
        .map_err(io("cannot write it"))
        .and_then(|()| file.sync_all().map_err(io("cannot sync it")));
    if written.is_err() {
        // Half a key is no key: the name is left free for another try.
        let _ = std::fs::remove_file(path);
    }
    written
}

/// The bytes of the private file `path`, at most `max`: refused unless it
/// is a regular file that belongs to this user (or root) and that no one
/// else may read or write. Every secret tapebuf reads (a network key
/// pair, a tape key) is read through this.
pub fn read_private(path: &Path, max: u64) -> Result<Vec<u8>, KeyError> {
    let io = |what| {
        move |source| KeyError::Io {
            path: path.to_path_buf(),
            what,
            source,
        }
    };
    // Never a FIFO or a device: reading one could wait for ever.
    let file = open_regular(path).map_err(|e| match e.kind() {
        io::ErrorKind::InvalidInput => KeyError::Malformed {
            path: path.to_path_buf(),
            why: e.to_string(),
        },
        _ => io("cannot open it")(e),
    })?;
    let meta = file.metadata().map_err(io("cannot stat it"))?;
    let user = nix::unistd::geteuid().as_raw();
    if meta.uid() != user && meta.uid() != 0 {
        return Err(KeyError::Foreign {
            path: path.to_path_buf(),
            owner: meta.uid(),
            user,
        });
    }
    let mode = meta.mode() & 0o7777;
    if mode & 0o077 != 0 {
        return Err(KeyError::Unprotected {
            path: path.to_path_buf(),
            mode,
        });
    }
    let mut bytes = Vec::new();
    file.take(max)
        .read_to_end(&mut bytes)
        .map_err(io("cannot read it"))?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_key_is_pkcs8_v1_and_reads_back_as_the_same_key() {
        let pair = KeyPair::generate().unwrap();
        assert_eq!(pair.pkcs8().len(), 48);
        assert!(pair.pkcs8().starts_with(&ED25519_PKCS8_V1_PREFIX));
        let again = KeyPair::from_pkcs8(pair.pkcs8()).unwrap();
        assert_eq!(again.fingerprint(), pair.fingerprint());
        assert_eq!(pair.spki().len(), 44);
    }

    #[test]
    fn a_key_never_shows_its_private_half_when_printed() {
        let pair = KeyPair::generate().unwrap();
        let shown = format!("{pair:?}");
        assert_eq!(shown, format!("KeyPair({})", pair.fingerprint()));
    }
}
