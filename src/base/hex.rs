//! Lowercase hexadecimal, for the digests tapebuf prints (`hash.rs`) and
//! the tape key files (`keys::tape_key`): bytes to digits, and digits back
//! into a buffer of the right length. Writing into the caller's buffer
//! lets a key's digits be zeroed once they are written out.

const DIGITS: &[u8; 16] = b"0123456789abcdef";

/// `bytes` as lowercase hex digits, appended to `out`.
pub fn encode_into(bytes: &[u8], out: &mut Vec<u8>) {
    for b in bytes {
        out.push(DIGITS[usize::from(b >> 4)]);
        out.push(DIGITS[usize::from(b & 0x0f)]);
    }
}

/// `bytes` as lowercase hex digits.
pub fn encode(bytes: &[u8]) -> String {
    let mut out = Vec::with_capacity(bytes.len() * 2);
    encode_into(bytes, &mut out);
    String::from_utf8(out).expect("hex digits are ASCII")
}

/// Fills `out` from `digits`, two digits a byte, either case; false (and
/// `out` left as it may be) unless `digits` is exactly twice `out` long
/// and all hex digits.
pub fn decode_into(digits: &[u8], out: &mut [u8]) -> bool {
    if digits.len() != out.len() * 2 {
        return false;
    }
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    for (o, pair) in out.iter_mut().zip(digits.chunks(2)) {
        match (digit(pair[0]), digit(pair[1])) {
            (Some(hi), Some(lo)) => *o = hi << 4 | lo,
            _ => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_read_back_from_their_digits_in_either_case() {
        let bytes = [0x00, 0x9f, 0xa0, 0xff];
        assert_eq!(encode(&bytes), "009fa0ff");
        let mut back = [0u8; 4];
        assert!(decode_into(b"009FA0ff", &mut back));
        assert_eq!(back, bytes);
        assert!(!decode_into(b"009fa0f", &mut back), "odd length");
        assert!(!decode_into(b"009fa0fg", &mut back), "not a digit");
    }
}
