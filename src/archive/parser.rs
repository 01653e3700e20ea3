//! The streaming parser: bytes in, in order and split anywhere, members
//! out as their ends pass. It detects the format from the first bytes,
//! then walks the stream in steps (`step.rs`): count the data, gather the
//! next header, let the format's handler (`tar_stream.rs`, `cpio.rs`) say
//! what comes next. Only header bytes are ever held (at most a pax header
//! or a long name, `MAX_HEADER_BYTES`); anything not understood turns the
//! parser off for good with one reason naming the byte offset, and it
//! never panics.

use super::cpio::{self, CpioStream, CpioWant};
use super::member::{Format, Member};
use super::step::Plan;
use super::tar::BLOCK;
use super::tar_stream::{TarStream, TarWant};

/// A buffer that grew past this (for a large pax header) is given back
/// once read.
const KEEP_CAPACITY: usize = 64 << 10;

enum Want {
    Detect,
    Tar(TarWant),
    Cpio(CpioWant),
}

enum Stream {
    Unknown,
    Tar(TarStream),
    Cpio(CpioStream),
}

/// Follows one tar or cpio stream. See the module's header. Its choices
/// where the formats leave room:
/// - a v7 tar header (no magic, a valid checksum) is followed as ustar
///   (without a prefix; a regular file whose name ends in '/' is a
///   directory, as old tars wrote them);
/// - a lone zero block followed by a header turns it off (GNU tar ends
///   there too, with a warning), but the stream may end after one;
/// - after tar's two zero blocks or cpio's trailer nothing is read, zero
///   or not: `end()` says where the archive ended;
/// - the first two bytes of old binary cpio (either byte order), 'M'
///   (GNU multi-volume) and 'N' (old GNU long names) turn it off;
/// - a tar hard link skips data only when the archive is pax and says it
///   has some (a pax `size`, or a non-zero size field);
/// - cpio magic must stay the same from member to member, and crc's data
///   sums are not checked (data is counted, never read).
pub struct Parser {
    /// Stream offset of the next byte fed.
    offset: u64,
    skip: u64,
    need: usize,
    buf: Vec<u8>,
    want: Option<Want>,
    stream: Stream,
    in_flight: Option<Member>,
    done: Vec<Member>,
    end: Option<u64>,
    off: Option<String>,
    /// Bytes fed so far: the stream offset of the next byte fed, also
    /// after the end (where `offset` stops following).
    fed: u64,
}

impl Default for Parser {
    fn default() -> Parser {
        Parser::new()
    }
}

impl Parser {
    pub fn new() -> Parser {
        Parser {
            offset: 0,
            skip: 0,
            need: 6,
            buf: Vec::new(),
            want: Some(Want::Detect),
            stream: Stream::Unknown,
            in_flight: None,
            done: Vec::new(),
            end: None,
            off: None,
            fed: 0,
        }
    }

    /// The next bytes of the stream, in order, any length; a header may
    /// straddle calls. Does nothing once the parser is off; once the
    /// archive has ended, only checks that its padding is all zeros.
    pub fn feed(&mut self, bytes: &[u8]) {
        let start = self.fed;
        self.fed += bytes.len() as u64;
        self.follow(bytes);
        if let (None, Some(end)) = (&self.off, self.end) {
            self.only_zeros_after(end, start, bytes);
        }
    }

    /// After the archive's end only its padding may follow, all zeros: a
    /// second archive appended (`tar cf - a; tar cf - b`) would be missing
    /// from a catalog of the first, so anything else turns the parser off.
    fn only_zeros_after(&mut self, end: u64, start: u64, bytes: &[u8]) {
        let from = end.saturating_sub(start).min(bytes.len() as u64) as usize;
        if let Some(i) = bytes[from..].iter().position(|&b| b != 0) {
            self.off = Some(format!(
                "byte {}: data after the archive's end at byte {end} (a second archive appended?)",
                start + (from + i) as u64
            ));
        }
    }

    fn follow(&mut self, mut bytes: &[u8]) {
        while self.following() {
            if self.skip > 0 {
                let n = self.skip.min(bytes.len() as u64);
                if n == 0 {
                    break;
                }
                self.skip -= n;
                self.offset += n;
                bytes = &bytes[n as usize..];
                self.complete();
            } else if self.buf.len() < self.need {
                let n = (self.need - self.buf.len()).min(bytes.len());
                if n == 0 {
                    break;
                }
                self.buf.extend_from_slice(&bytes[..n]);
                self.offset += n as u64;
                bytes = &bytes[n..];
            } else {
                self.step();
            }
        }
    }

    /// Members completed since the last call (their end_offset reached),
    /// in stream order.
    pub fn take_members(&mut self) -> Vec<Member> {
        std::mem::take(&mut self.done)
    }

    /// The format, once the first header is read. A ustar stream becomes
    /// `Pax` at its first extended header.
    pub fn format(&self) -> Option<Format> {
        match &self.stream {
            Stream::Unknown => None,
            Stream::Tar(tar) => tar.format,
            Stream::Cpio(cpio) => Some(cpio.format),
        }
    }

    /// Why the parser stopped following the stream, naming the byte
    /// offset; None while it follows. Once off it stays off.
    pub fn off(&self) -> Option<&str> {
        self.off.as_deref()
    }

    /// Tar's pax global ('g') headers, in order, each as its `[start,
    /// end)` stream range (its header block, its records and their
    /// padding). They belong to no member, but apply to every member after
    /// them: an archive of a subset copies each one before the first
    /// member it precedes. One range per 'g' header (each at least 512
    /// bytes of stream), the one list that grows with the archive besides
    /// members.
    pub fn globals(&self) -> &[(u64, u64)] {
        match &self.stream {
            Stream::Tar(tar) => &tar.globals,
            _ => &[],
        }
    }

    /// Where the archive ended: after tar's second zero block, or after
    /// cpio's trailer (padding included). What follows is not parsed.
    pub fn end(&self) -> Option<u64> {
        self.end
    }

    /// cpio's TRAILER!!! member, `[start, end)`, once read: an archive of a
    /// subset ends with a copy of it.
    pub fn trailer(&self) -> Option<(u64, u64)> {
        match &self.stream {
            Stream::Cpio(cpio) => cpio.trailer,
            _ => None,
        }
    }

    /// Header bytes held right now (the memory bound's witness).
    pub fn buffered(&self) -> usize {
        self.buf.capacity()
    }

    /// The stream ended: Ok when it ended cleanly (tar: after the end
    /// blocks or at a member boundary; cpio: after TRAILER!!!), else why
    /// not. An Err also turns the parser off.
    pub fn finish(&mut self) -> Result<(), String> {
        if let Some(off) = &self.off {
            return Err(off.clone());
        }
        if self.end.is_some() {
            return Ok(());
        }
        let clean = match &self.stream {
            Stream::Unknown => false,
            Stream::Tar(tar) => {
                matches!(self.want, Some(Want::Tar(TarWant::Header)))
                    && tar.at_boundary()
                    && self.in_flight.is_none()
                    && self.buf.is_empty()
                    && self.skip == 0
            }
            Stream::Cpio(_) => false,
        };
        if clean {
            return Ok(());
        }
        let reason = self.unclean_end();
        self.off = Some(reason.clone());
        Err(reason)
    }

    fn unclean_end(&self) -> String {
        let at = self.offset;
        match (&self.stream, &self.in_flight) {
            (Stream::Unknown, _) if at == 0 => "the stream is empty".to_string(),
            (Stream::Unknown, _) => format!("byte {at}: the stream ended before its first header"),
            (_, Some(member)) => format!(
                "byte {at}: the stream ended inside member {} (it ends at byte {})",
                member.path, member.end_offset
            ),
            (Stream::Cpio(_), _) if self.buf.is_empty() => {
                format!("byte {at}: the stream ended without cpio's TRAILER!!!")
            }
            _ => format!("byte {at}: the stream ended inside a header"),
        }
    }

    fn following(&self) -> bool {
        self.off.is_none() && self.end.is_none()
    }

    /// Hands a whole piece to its handler and applies the plan.
    fn step(&mut self) {
        let bytes = std::mem::take(&mut self.buf);
        let at = self.offset - bytes.len() as u64;
        let want = self.want.take().unwrap_or(Want::Detect);
        let result = match (want, &mut self.stream) {
            (Want::Detect, _) => self.detect(&bytes),
            (Want::Tar(want), Stream::Tar(tar)) => {
                tar.step(want, &bytes, at).map(|p| wrap(p, Want::Tar))
            }
            (Want::Cpio(want), Stream::Cpio(cpio)) => {
                cpio.step(want, &bytes, at).map(|p| wrap(p, Want::Cpio))
            }
            _ => Err("the parser lost its place".to_string()),
        };
        match result {
            Ok(plan) => self.apply(plan, bytes),
            Err(reason) => self.off = Some(format!("byte {at}: {reason}")),
        }
    }

    fn apply(&mut self, plan: Plan<Want>, mut bytes: Vec<u8>) {
        if !plan.keep {
            bytes.clear();
            if bytes.capacity() > KEEP_CAPACITY {
                bytes = Vec::new();
            }
        }
        self.buf = bytes;
        self.skip = plan.skip;
        self.need = plan.need;
        self.want = Some(plan.want);
        if let Some(member) = plan.member {
            self.in_flight = Some(member);
        }
        if plan.ended {
            self.end = Some(self.offset + plan.skip);
            self.offset += plan.skip;
            self.skip = 0;
        }
        self.complete();
    }

    /// Hands out the member in flight once the stream reached its end.
    fn complete(&mut self) {
        if self
            .in_flight
            .as_ref()
            .is_some_and(|m| self.offset >= m.end_offset)
        {
            self.done.extend(self.in_flight.take());
        }
    }

    /// The first bytes say which format follows: cpio by its magic (six
    /// bytes), old binary cpio is refused, anything else must be a tar
    /// header (checked by the tar handler on the whole first block).
    fn detect(&mut self, first: &[u8]) -> Result<Plan<Want>, String> {
        if let Some(format) = cpio::magic(&first[..first.len().min(6)]) {
            let cpio = CpioStream {
                format,
                trailer: None,
            };
            let mut plan = wrap(cpio.next_header(), Want::Cpio);
            plan.keep = true;
            self.stream = Stream::Cpio(cpio);
            return Ok(plan);
        }
        if matches!(first, [0xc7, 0x71, ..] | [0x71, 0xc7, ..]) {
            return Err("old binary cpio, not followed".to_string());
        }
        self.stream = Stream::Tar(TarStream::default());
        let mut plan = Plan::read(BLOCK, Want::Tar(TarWant::Header));
        plan.keep = true;
        Ok(plan)
    }
}

fn wrap<W>(plan: Plan<W>, into: fn(W) -> Want) -> Plan<Want> {
    Plan {
        skip: plan.skip,
        need: plan.need,
        keep: plan.keep,
        want: into(plan.want),
        member: plan.member,
        ended: plan.ended,
    }
}
