//! The plan's output made as it is copied: the members the names choose
//! (a second pass over the catalog, `Catalog::matching`) merged in
//! stream order with the few members added for them (`Plan::added`),
//! turned into pieces: touching ranges merged, tar's global headers put
//! before the first member they precede, then the archive's end (see
//! `plan.rs`). Memory is one catalog block and one pending range,
//! whatever the number of members. The pieces' vocabulary (a stream
//! range or made bytes, tar's and cpio's ends) lives here too.

use std::collections::VecDeque;
use std::io;
use std::iter::Peekable;
use std::slice;

use crate::archive::{cpio_trailer, is_cpio, Format, Member};
use crate::catalog::{Catalog, Matching};

use super::linked::checked;

/// Tar's end: two zero blocks.
pub const TAR_END_BYTES: u64 = 1024;
/// Tar's default record (blocking factor 20): the output's length is a
/// multiple of it.
pub const TAR_RECORD_BYTES: u64 = 10240;
/// GNU cpio's default block: the output's length is a multiple of it.
pub const CPIO_BLOCK_BYTES: u64 = 512;

/// One piece of the output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// The backup's stream bytes `[start, end)`, copied as they are.
    Stream { start: u64, end: u64 },
    /// Bytes made here: the end of a tar archive, or a cpio trailer.
    Made(Vec<u8>),
}

impl Piece {
    /// Its length in bytes.
    pub fn len(&self) -> u64 {
        match self {
            Piece::Stream { start, end } => end.saturating_sub(*start),
            Piece::Made(bytes) => bytes.len() as u64,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What the catalog keeps of the archive besides its members.
#[derive(Debug, Clone, Default)]
pub(crate) struct Tail {
    /// Tar's pax global headers, `[start, end)`, in stream order.
    pub globals: Vec<(u64, u64)>,
    /// cpio's TRAILER!!! member, `[start, end)`.
    pub trailer: Option<(u64, u64)>,
}

impl Tail {
    pub(super) fn of(catalog: &Catalog) -> Tail {
        Tail {
            globals: catalog.globals().to_vec(),
            trailer: catalog.trailer(),
        }
    }
}

/// Where the chosen members come from: the catalog, read again, or the
/// few the plan kept from its first pass.
pub(super) enum Chosen<'p> {
    Catalog(Matching<'p>),
    Kept(slice::Iter<'p, Member>),
}

impl Iterator for Chosen<'_> {
    type Item = io::Result<Member>;

    fn next(&mut self) -> Option<io::Result<Member>> {
        match self {
            Chosen::Catalog(matching) => matching.next().map(|m| m.and_then(checked)),
            Chosen::Kept(kept) => kept.next().cloned().map(Ok),
        }
    }
}

/// The members the output holds, in stream order.
pub struct OutputMembers<'p> {
    chosen: Chosen<'p>,
    /// The next chosen member, read ahead.
    next_chosen: Option<Member>,
    added: Peekable<slice::Iter<'p, Member>>,
    chosen_done: bool,
}

impl<'p> OutputMembers<'p> {
    /// The `chosen` members and the `added` ones (in stream order).
    pub(super) fn new(chosen: Chosen<'p>, added: &'p [Member]) -> OutputMembers<'p> {
        OutputMembers {
            chosen,
            next_chosen: None,
            added: added.iter().peekable(),
            chosen_done: false,
        }
    }
}

impl Iterator for OutputMembers<'_> {
    type Item = io::Result<Member>;

    fn next(&mut self) -> Option<io::Result<Member>> {
        if self.next_chosen.is_none() && !self.chosen_done {
            match self.chosen.next() {
                Some(Ok(m)) => self.next_chosen = Some(m),
                Some(Err(e)) => return Some(Err(e)),
                None => self.chosen_done = true,
            }
        }
        let added_first = match (&self.next_chosen, self.added.peek()) {
            (Some(c), Some(a)) => a.header_offset < c.header_offset,
            (None, Some(_)) => true,
            _ => false,
        };
        if added_first {
            return self.added.next().cloned().map(Ok);
        }
        self.next_chosen.take().map(Ok)
    }
}

/// The output's pieces, in order.
pub struct Pieces<'p> {
    members: OutputMembers<'p>,
    tail: &'p Tail,
    format: Format,
    /// The next tar global header to place.
    global: usize,
    /// The range being grown, not yet handed out.
    pending: Option<(u64, u64)>,
    /// Pieces ready to hand out.
    ready: VecDeque<Piece>,
    /// The bytes of the pieces handed out or ready.
    total: u64,
    ended: bool,
}

impl<'p> Pieces<'p> {
    pub(super) fn new(members: OutputMembers<'p>, tail: &'p Tail, format: Format) -> Pieces<'p> {
        Pieces {
            members,
            tail,
            format,
            global: 0,
            pending: None,
            ready: VecDeque::new(),
            total: 0,
            ended: false,
        }
    }

    /// Adds `[start, end)`, merged with the pending range when they touch.
    fn add(&mut self, start: u64, end: u64) {
        match &mut self.pending {
            Some((_, last)) if *last == start => *last = end,
            _ => {
                self.flush();
                self.pending = Some((start, end));
            }
        }
    }

    fn flush(&mut self) {
        if let Some((start, end)) = self.pending.take() {
            self.ready_piece(Piece::Stream { start, end });
        }
    }

    fn ready_piece(&mut self, piece: Piece) {
        self.total += piece.len();
        self.ready.push_back(piece);
    }

    /// A member: tar's global headers before it first, then its range.
    fn member(&mut self, m: &Member) {
        let globals = &self.tail.globals;
        if !is_cpio(self.format) {
            while let Some(&(start, end)) = globals.get(self.global) {
                if start >= m.header_offset {
                    break;
                }
                self.add(start, end);
                self.global += 1;
            }
        }
        self.add(m.header_offset, m.end_offset);
    }

    /// The archive's end: tar's two zero blocks and zeros to a whole
    /// record, or cpio's trailer and zeros to a whole block.
    fn end(&mut self) {
        let format = self.format;
        if is_cpio(format) {
            match self.tail.trailer {
                Some((start, end)) => self.add(start, end),
                None => {
                    self.flush();
                    self.ready_piece(Piece::Made(cpio_trailer(format)));
                }
            }
            self.flush();
            let pad = self.total.next_multiple_of(CPIO_BLOCK_BYTES) - self.total;
            if pad > 0 {
                self.ready_piece(Piece::Made(vec![0; pad as usize]));
            }
        } else {
            self.flush();
            let length = self.total + TAR_END_BYTES;
            let padded = length.next_multiple_of(TAR_RECORD_BYTES);
            let zeros = TAR_END_BYTES + padded - length;
            self.ready_piece(Piece::Made(vec![0; zeros as usize]));
        }
    }
}

impl Iterator for Pieces<'_> {
    type Item = io::Result<Piece>;

    fn next(&mut self) -> Option<io::Result<Piece>> {
        loop {
            if let Some(piece) = self.ready.pop_front() {
                return Some(Ok(piece));
            }
            if self.ended {
                return None;
            }
            match self.members.next() {
                Some(Ok(m)) => self.member(&m),
                Some(Err(e)) => {
                    self.ended = true;
                    return Some(Err(e));
                }
                None => {
                    self.end();
                    self.ended = true;
                }
            }
        }
    }
}
