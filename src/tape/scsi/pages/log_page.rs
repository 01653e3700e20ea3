//! A LOG SENSE reply as parameters (SPC-4 7.3): a 4-byte header (page
//! code, subpage, length) and parameters of a 2-byte code, a control
//! byte, a length and a value. Parsing never reads past the bytes given
//! or the page's own length, keeps at most [`MAX_PARAMETERS`] parameters,
//! and drops a parameter whose value is cut short. The supported pages
//! page (0x00) is a list of page codes instead, read by [`supported`].

/// The most parameters kept from one page (a real page has tens).
pub const MAX_PARAMETERS: usize = 1024;

/// The supported log pages page.
pub const SUPPORTED_PAGES: u8 = 0x00;

/// One log parameter: its code and its value's bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogParameter {
    pub code: u16,
    pub value: Vec<u8>,
}

/// A parsed log page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogPage {
    pub code: u8,
    pub parameters: Vec<LogParameter>,
}

/// The bytes of a page's body: after the header, within both `reply`
/// and the page length the header gives; None for a reply shorter than
/// the header or of another page code.
fn body(reply: &[u8], code: u8) -> Option<&[u8]> {
    let header = reply.get(..4)?;
    if header[0] & 0x3f != code {
        return None;
    }
    let length = usize::from(u16::from_be_bytes([header[2], header[3]]));
    let end = reply.len().min(4 + length);
    Some(&reply[4..end])
}

impl LogPage {
    /// The page in `reply`, if it is page `code`.
    pub fn parse(reply: &[u8], code: u8) -> Option<LogPage> {
        let body = body(reply, code)?;
        let mut parameters = Vec::new();
        let mut at = 0;
        while at + 4 <= body.len() && parameters.len() < MAX_PARAMETERS {
            let code = u16::from_be_bytes([body[at], body[at + 1]]);
            let length = usize::from(body[at + 3]);
            let Some(value) = body.get(at + 4..at + 4 + length) else {
                break;
            };
            parameters.push(LogParameter {
                code,
                value: value.to_vec(),
            });
            at += 4 + length;
        }
        Some(LogPage { code, parameters })
    }

    /// Parameter `code`'s value bytes: the first parameter of that code
    /// (a page padded with zeros repeats an empty parameter 0000h).
    pub fn value(&self, code: u16) -> Option<&[u8]> {
        self.parameters
            .iter()
            .find(|p| p.code == code)
            .map(|p| p.value.as_slice())
    }

    /// Parameter `code`'s value as an unsigned big-endian number (1 to 8
    /// bytes), if the page has it.
    pub fn number(&self, code: u16) -> Option<u64> {
        let value = self.value(code)?;
        if value.is_empty() || value.len() > 8 {
            return None;
        }
        Some(value.iter().fold(0u64, |n, &b| n << 8 | u64::from(b)))
    }

    /// Parameter `code`'s value as a signed big-endian number (1 to 8
    /// bytes, two's complement), if the page has it.
    pub fn signed(&self, code: u16) -> Option<i64> {
        let value = self.value(code)?;
        let unsigned = self.number(code)?;
        let unused = 64 - 8 * value.len() as u32;
        Some(((unsigned << unused) as i64) >> unused)
    }
}

/// The page codes listed in a reply for the supported pages page (0x00),
/// each once, in the order given; None when `reply` is not that page.
pub fn supported(reply: &[u8]) -> Option<Vec<u8>> {
    let body = body(reply, SUPPORTED_PAGES)?;
    let mut pages = Vec::new();
    for &page in body.iter().take(MAX_PARAMETERS) {
        let page = page & 0x3f;
        if !pages.contains(&page) {
            pages.push(page);
        }
    }
    Some(pages)
}
