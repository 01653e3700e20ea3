//! The plan's output made as it is copied: the members the names choose
//! (a second pass over the catalog, `Catalog::matching`) merged in
//! stream order with the few members added for them (`Plan::added`),
//! turned into pieces: touching ranges merged, tar's global headers put
//! before the first member they precede, then the archive's end (see
//! `plan.rs`). Memory is one catalog block and one pending range,
//! whatever the number of members.

use std::collections::VecDeque;
use std::io;
use std::iter::Peekable;
use std::slice;

use crate::archive::Member;
use crate::catalog::Matching;

use super::linked::checked;
use super::plan::{
    is_cpio, made_trailer, Piece, Plan, CPIO_BLOCK_BYTES, TAR_END_BYTES, TAR_RECORD_BYTES,
};

/// The members the output holds, in stream order.
pub struct OutputMembers<'p> {
    chosen: Matching<'p>,
    /// The next chosen member, read ahead.
    next_chosen: Option<Member>,
    added: Peekable<slice::Iter<'p, Member>>,
    chosen_done: bool,
}

impl<'p> OutputMembers<'p> {
    pub(super) fn new(plan: &'p Plan<'_>) -> OutputMembers<'p> {
        OutputMembers {
            chosen: plan.catalog.matching(plan.patterns),
            next_chosen: None,
            added: plan.added.iter().peekable(),
            chosen_done: false,
        }
    }
}

impl Iterator for OutputMembers<'_> {
    type Item = io::Result<Member>;

    fn next(&mut self) -> Option<io::Result<Member>> {
        if self.next_chosen.is_none() && !self.chosen_done {
            match self.chosen.next().map(|m| m.and_then(checked)) {
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
    plan: &'p Plan<'p>,
    members: OutputMembers<'p>,
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
    pub(super) fn new(plan: &'p Plan<'p>) -> Pieces<'p> {
        Pieces {
            plan,
            members: plan.output_members(),
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
        let globals = &self.plan.tail.globals;
        if !is_cpio(self.plan.format()) {
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
        let format = self.plan.format();
        if is_cpio(format) {
            match self.plan.tail.trailer {
                Some((start, end)) => self.add(start, end),
                None => {
                    self.flush();
                    self.ready_piece(Piece::Made(made_trailer(format)));
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
