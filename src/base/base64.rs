//! Base64 with the standard alphabet (RFC 4648, section 4), for the two
//! places tapebuf shows binary as text: PEM key files, padded, and key
//! fingerprints, unpadded as ssh shows them. Decoding accepts both forms
//! and nothing else: a character outside the alphabet, or padding where
//! none can be, is an error naming its offset.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// `bytes` in base64, with `=` padding when `padded`.
pub fn encode(bytes: &[u8], padded: bool) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let word = chunk
            .iter()
            .enumerate()
            .fold(0u32, |w, (i, &b)| w | u32::from(b) << (16 - 8 * i));
        let digits = chunk.len() + 1;
        for i in 0..4 {
            if i < digits {
                out.push(ALPHABET[(word >> (18 - 6 * i) & 0x3f) as usize] as char);
            } else if padded {
                out.push('=');
            }
        }
    }
    out
}

/// The bytes of base64 `text`, padded or not.
pub fn decode(text: &str) -> Result<Vec<u8>, String> {
    let digits = text.trim_end_matches('=');
    let padding = text.len() - digits.len();
    if padding > 2 || (padding > 0 && !text.len().is_multiple_of(4)) || digits.len() % 4 == 1 {
        return Err(format!("{} characters is no base64 length", text.len()));
    }
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    let (mut word, mut bits) = (0u32, 0);
    for (at, c) in digits.bytes().enumerate() {
        let Some(value) = ALPHABET.iter().position(|&a| a == c) else {
            return Err(format!("{:?} at offset {at} is not base64", c as char));
        };
        word = word << 6 | value as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((word >> bits) as u8);
            word &= (1 << bits) - 1;
        }
    }
    if word != 0 {
        return Err("the last character has bits set that no byte holds".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rfc_4648_test_vectors_encode_and_decode() {
        let vectors = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (plain, coded) in vectors {
            assert_eq!(encode(plain.as_bytes(), true), coded);
            assert_eq!(encode(plain.as_bytes(), false), coded.trim_end_matches('='));
            assert_eq!(decode(coded).unwrap(), plain.as_bytes(), "{coded}");
            assert_eq!(
                decode(coded.trim_end_matches('=')).unwrap(),
                plain.as_bytes()
            );
        }
    }

    #[test]
    fn every_byte_value_and_length_round_trips() {
        let bytes: Vec<u8> = (0..=255).collect();
        for len in 0..bytes.len() {
            for padded in [true, false] {
                assert_eq!(
                    decode(&encode(&bytes[..len], padded)).unwrap(),
                    &bytes[..len]
                );
            }
        }
    }

    #[test]
    fn text_that_is_not_base64_is_refused_naming_where() {
        assert!(decode("Zm9v!A==").unwrap_err().contains("offset 4"));
        assert!(decode("Z").is_err());
        assert!(decode("Zg=").is_err());
        assert!(decode("Zm8===").is_err());
        // "Zh" carries bits beyond its one byte.
        assert!(decode("Zh").is_err());
    }
}
