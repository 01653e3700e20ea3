//! A key's fingerprint: `SHA256:` and the unpadded base64 of the SHA-256
//! of its public key as a SubjectPublicKeyInfo (RFC 5280, DER), the bytes
//! a TLS peer presents as a raw public key (RFC 7250). It is what a sender
//! pins and a receiver allows, so it covers exactly what is on the wire.
//! The text form is ssh's (`ssh-keygen -l`), so an operator reads one
//! kind of fingerprint everywhere.

use std::fmt;
use std::str::FromStr;

use sha2::{Digest, Sha256};

use crate::base::base64;

/// What every fingerprint's text begins with.
pub const PREFIX: &str = "SHA256:";

/// The SHA-256 of a public key's SubjectPublicKeyInfo.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fingerprint([u8; 32]);

impl Fingerprint {
    /// The fingerprint of the public key whose SubjectPublicKeyInfo is
    /// `spki`.
    pub fn of_spki(spki: &[u8]) -> Fingerprint {
        Fingerprint(Sha256::digest(spki).into())
    }

    /// The digest in unpadded base64: the text after [`PREFIX`].
    pub fn digits(&self) -> String {
        base64::encode(&self.0, false)
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{PREFIX}{}", self.digits())
    }
}

impl FromStr for Fingerprint {
    type Err = String;

    /// `SHA256:` and 43 base64 characters (a trailing `=` is allowed).
    fn from_str(text: &str) -> Result<Fingerprint, String> {
        let Some(digits) = text.strip_prefix(PREFIX) else {
            return Err(format!(
                "\"{text}\" is no key fingerprint: it must begin with {PREFIX}"
            ));
        };
        let bytes = base64::decode(digits)
            .map_err(|why| format!("\"{text}\" is no key fingerprint: {why}"))?;
        let digest: [u8; 32] = bytes.try_into().map_err(|b: Vec<u8>| {
            format!(
                "\"{text}\" is no key fingerprint: it holds {} bytes, not SHA-256's 32",
                b.len()
            )
        })?;
        Ok(Fingerprint(digest))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fingerprint_reads_back_from_its_text() {
        let print = Fingerprint::of_spki(b"any key");
        let text = print.to_string();
        assert!(
            text.starts_with("SHA256:") && text.len() == 7 + 43,
            "{text}"
        );
        assert_eq!(text.parse::<Fingerprint>().unwrap(), print);
        assert_eq!(format!("{text}=").parse::<Fingerprint>().unwrap(), print);
    }

    #[test]
    fn the_fingerprint_is_the_sha256_of_the_key_bytes() {
        // SHA-256 of the empty string, as ssh would show it.
        assert_eq!(
            Fingerprint::of_spki(b"").to_string(),
            "SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU"
        );
    }

    #[test]
    fn text_that_is_no_fingerprint_is_refused_saying_why() {
        let why = "MD5:ab".parse::<Fingerprint>().unwrap_err();
        assert!(why.contains("must begin with SHA256:"), "{why}");
        let why = "SHA256:Zm9v".parse::<Fingerprint>().unwrap_err();
        assert!(why.contains("3 bytes"), "{why}");
        let why = "SHA256:not*base64".parse::<Fingerprint>().unwrap_err();
        assert!(why.contains("not base64"), "{why}");
    }
}
