//! The catalog's numbers: LEB128 varints (seven bits a byte, low bits
//! first, the top bit set on every byte but the last), zigzag for signed
//! values, and a bounded cursor that reads them from a block without ever
//! reading past its end: a short or malformed field is an error naming
//! what was being read, never a panic.

/// Appends `value` as a LEB128 varint (1 to 10 bytes).
pub(crate) fn put(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Maps a signed value to an unsigned one that small magnitudes keep
/// small: 0, -1, 1, -2, ... become 0, 1, 2, 3, ...
pub(crate) fn zigzag(value: i64) -> u64 {
    ((value << 1) ^ (value >> 63)) as u64
}

pub(crate) fn unzigzag(value: u64) -> i64 {
    (value >> 1) as i64 ^ -((value & 1) as i64)
}

/// Reads fields from a byte slice, front to back.
pub(crate) struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Cursor<'a> {
        Cursor { bytes, at: 0 }
    }

    /// How many bytes are left.
    pub(crate) fn remaining(&self) -> usize {
        self.bytes.len() - self.at
    }

    /// Where the cursor is, from the slice's start.
    pub(crate) fn position(&self) -> usize {
        self.at
    }

    pub(crate) fn byte(&mut self, what: &str) -> Result<u8, String> {
        let b = *self
            .bytes
            .get(self.at)
            .ok_or_else(|| format!("{what} cut short"))?;
        self.at += 1;
        Ok(b)
    }

    /// The next `n` bytes.
    pub(crate) fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], String> {
        if n > self.remaining() {
            return Err(format!(
                "{what} of {n} bytes runs past the end ({} left)",
                self.remaining()
            ));
        }
        let slice = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(slice)
    }

    pub(crate) fn u32_le(&mut self, what: &str) -> Result<u32, String> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes(b.try_into().expect("4 bytes")))
    }

    pub(crate) fn u64_le(&mut self, what: &str) -> Result<u64, String> {
        let b = self.take(8, what)?;
        Ok(u64::from_le_bytes(b.try_into().expect("8 bytes")))
    }

    /// A LEB128 varint of at most 10 bytes whose value fits in 64 bits.
    pub(crate) fn varint(&mut self, what: &str) -> Result<u64, String> {
        let mut value = 0u64;
        for i in 0..10 {
            let b = self.byte(what)?;
            if i == 9 && b > 1 {
                return Err(format!("{what} overflows 64 bits"));
            }
            value |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(format!("{what} overflows 64 bits"))
    }

    /// A varint that must be at most `max` (a length about to be used).
    pub(crate) fn length(&mut self, max: usize, what: &str) -> Result<usize, String> {
        let n = self.varint(what)?;
        if n > max as u64 {
            return Err(format!("{what} {n} is over the limit of {max}"));
        }
        Ok(n as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_width_of_varint_and_zigzag_reads_back_as_written() {
        let values = [0, 1, 127, 128, 300, u32::MAX as u64, 1 << 63, u64::MAX];
        for v in values {
            let mut out = Vec::new();
            put(&mut out, v);
            assert_eq!(Cursor::new(&out).varint("v"), Ok(v));
        }
        for v in [0, -1, 1, i64::MIN, i64::MAX, -1_000_000] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
        assert_eq!(zigzag(-1), 1);
    }

    #[test]
    fn an_overlong_or_cut_varint_is_an_error() {
        let eleven = [0xffu8; 11];
        assert!(Cursor::new(&eleven).varint("v").is_err());
        let mut top = vec![0xffu8; 9];
        top.push(0x02);
        assert!(Cursor::new(&top).varint("v").is_err());
        assert!(Cursor::new(&[0x80]).varint("v").is_err());
    }
}
