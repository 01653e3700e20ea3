//! A LOG SENSE reply as parameters (SPC-4 7.3): a 4-byte header (page
//! code, subpage, length) and parameters of a 2-byte code, a control
//! byte, a length and a value. Parsing never reads past the bytes given
//! or the page's own length, and keeps at most a bounded number of
//! parameters.

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

impl LogPage {
    /// The page in `reply`, if it is page `code`. (Contract stub: the
    /// parser is written in its own change.)
    pub fn parse(reply: &[u8], code: u8) -> Option<LogPage> {
        let _ = (reply, code);
        None
    }

    /// Parameter `code`'s value as an unsigned big-endian number (up to 8
    /// bytes), if the page has it.
    pub fn number(&self, code: u16) -> Option<u64> {
        let _ = code;
        None
    }
}
