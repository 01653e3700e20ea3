//! One step of the parser's walk: what a format's handler decided after
//! reading a piece of the stream. The parser first counts `skip` bytes
//! (data, never copied), then gathers `need` bytes of header and hands
//! them to the handler named by `want`. A handler sees only whole pieces,
//! so where the stream was split between feeds never matters.

use super::member::Member;

/// The most header bytes gathered at once: a pax header's records or a
/// GNU long name. A larger one turns the parser off.
pub const MAX_HEADER_BYTES: u64 = 1 << 20;

pub(super) struct Plan<W> {
    /// Bytes to count, unread, before the next piece.
    pub skip: u64,
    /// Bytes of the next piece.
    pub need: usize,
    /// Keep the bytes just handled as the start of the next piece (format
    /// detection reads a header's first bytes twice).
    pub keep: bool,
    pub want: W,
    /// A member whose header is read; it is handed out once the stream
    /// reaches its `end_offset`.
    pub member: Option<Member>,
    /// The archive ended here (tar's end blocks, cpio's trailer).
    pub ended: bool,
}

impl<W> Plan<W> {
    /// Read the next `need` bytes as `want`.
    pub fn read(need: usize, want: W) -> Plan<W> {
        Plan {
            skip: 0,
            need,
            keep: false,
            want,
            member: None,
            ended: false,
        }
    }

    /// First count `skip` bytes.
    pub fn after(mut self, skip: u64) -> Plan<W> {
        self.skip = skip;
        self
    }

    pub fn with_member(mut self, member: Member) -> Plan<W> {
        self.member = Some(member);
        self
    }

    pub fn end(want: W) -> Plan<W> {
        let mut plan = Plan::read(0, want);
        plan.ended = true;
        plan
    }
}
