//! The one encoder of the pages the parsers read: log pages as LOG SENSE
//! returns them (SPC-4 7.3: a 4-byte header of page code, subpage 0 and
//! the length of what follows, then parameters of a 2-byte code, a control
//! byte, a length and a big-endian value), big-endian numbers and padded
//! text. The emulated drive answers with it and the parsers' tests build
//! mhvtl's replies with it, so a page is never encoded two ways. Compiled
//! only for tests and with the `test-support` feature.

/// A log page, built parameter by parameter.
pub struct LogPageBytes(Vec<u8>);

impl LogPageBytes {
    /// An empty page `code`.
    pub fn new(code: u8) -> LogPageBytes {
        LogPageBytes(vec![code, 0, 0, 0])
    }

    /// Parameter `code` holding `value`.
    pub fn bytes(mut self, code: u16, control: u8, value: &[u8]) -> LogPageBytes {
        self.0.extend_from_slice(&code.to_be_bytes());
        self.0.push(control);
        self.0.push(value.len() as u8);
        self.0.extend_from_slice(value);
        self
    }

    /// Parameter `code` holding `n` in `width` bytes, at most their
    /// largest number.
    pub fn number(self, code: u16, control: u8, n: u64, width: usize) -> LogPageBytes {
        self.bytes(code, control, &be(n, width))
    }

    /// The page, its length field set.
    pub fn done(mut self) -> Vec<u8> {
        let length = (self.0.len() - 4) as u16;
        self.0[2..4].copy_from_slice(&length.to_be_bytes());
        self.0
    }
}

/// A log page: `code` and `parameters` of (code, control byte, value).
pub fn log_page(code: u8, parameters: &[(u16, u8, Vec<u8>)]) -> Vec<u8> {
    parameters
        .iter()
        .fold(LogPageBytes::new(code), |page, (param, control, value)| {
            page.bytes(*param, *control, value)
        })
        .done()
}

/// `n` as a `width`-byte big-endian value (up to 8), at most the largest
/// number `width` bytes hold.
pub fn be(n: u64, width: usize) -> Vec<u8> {
    let max = if width >= 8 {
        u64::MAX
    } else {
        (1 << (8 * width)) - 1
    };
    n.min(max).to_be_bytes()[8 - width.min(8)..].to_vec()
}

/// `text` in `width` bytes, padded with `pad`, cut if longer.
pub fn padded(text: &str, width: usize, pad: u8) -> Vec<u8> {
    let mut bytes: Vec<u8> = text.bytes().take(width).collect();
    bytes.resize(width, pad);
    bytes
}
