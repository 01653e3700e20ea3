//! The plan of an extract: the pieces that, written one after the other,
//! are a valid archive of just the members the globs choose. Pure: it
//! reads the catalog and nothing else, and says which byte ranges of the
//! backup's stream to copy (`Piece::Stream`) and which bytes it made
//! (`Piece::Made`), in output order.
//!
//! Members are chosen as `Catalog::matching` chooses them (tar's rules:
//! a glob on a directory chooses what is under it), and kept in stream
//! order, so a tape is only ever read forwards. Each member's range is
//! copied verbatim (headers are never rewritten, checksums stay valid),
//! and ranges that touch are merged into one piece. What a chosen member
//! needs comes too, even if no glob chose it:
//! - tar: a hard link's target (the last member before the link with the
//!   link's name, which carries the data; `tar xf` cannot make the link
//!   without it), followed through links to links at most
//!   `linked::MAX_LINK_ROUNDS` deep;
//! - cpio newc and crc: the member of a hard-link group that carries the
//!   data (the first later member with the same device and inode and a
//!   size; without it `cpio -i` silently makes an empty file).
//!
//! The end: tar gets each pax global ('g') header before the first chosen
//! member it precedes (so a later one never applies to an earlier member),
//! then two zero blocks and zeros to a multiple of 10240 bytes (tar's
//! record); cpio gets a copy of the original TRAILER!!! (or one made here
//! in the same format when the catalog kept none), then zeros to a
//! multiple of 512 (GNU cpio's block).

use std::io;

use globset::GlobSet;

use crate::archive::{Format, Member};
use crate::catalog::{Catalog, GlobTally};

pub use super::linked::Needed;
use super::linked::{add_needed, checked};

/// Tar's end: two zero blocks.
const TAR_END_BYTES: u64 = 1024;
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

/// What an extract writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Every member the output holds, chosen or needed, in stream order.
    pub members: Vec<Member>,
    /// The output, in order.
    pub pieces: Vec<Piece>,
    /// The globs (indices in the `GlobSet`) that chose no member.
    pub unmatched: Vec<usize>,
    /// The members added because a chosen one needs them, in the order
    /// they were found.
    pub needed: Vec<Needed>,
}

impl Plan {
    /// The bytes the output is.
    pub fn bytes(&self) -> u64 {
        self.pieces.iter().map(Piece::len).sum()
    }

    /// The bytes of it read from the backup's stream.
    pub fn stream_bytes(&self) -> u64 {
        self.pieces
            .iter()
            .filter(|p| matches!(p, Piece::Stream { .. }))
            .map(Piece::len)
            .sum()
    }
}

/// Why there is no plan.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// No glob chose any member; `unmatched` lists them all.
    #[error("no member matches")]
    NoMatch { unmatched: Vec<usize> },
    /// The catalog could not be read, or holds a member that cannot be.
    #[error(transparent)]
    Catalog(#[from] io::Error),
}

/// The plan of an archive of the members `globs` choose from `catalog`.
pub fn plan(catalog: &Catalog, globs: &GlobSet) -> Result<Plan, PlanError> {
    plan_with(catalog, &Tail::of(catalog), globs)
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
    fn of(catalog: &Catalog) -> Tail {
        Tail {
            globals: catalog.globals().to_vec(),
            trailer: catalog.trailer(),
        }
    }
}

/// `plan`, with the archive's tail given.
pub(crate) fn plan_with(
    catalog: &Catalog,
    tail: &Tail,
    globs: &GlobSet,
) -> Result<Plan, PlanError> {
    let mut tally = GlobTally::new(globs);
    let mut members = Vec::new();
    for member in catalog.matching(globs) {
        let member = checked(member?)?;
        tally.count(&member.path.lossy());
        members.push(member);
    }
    let unmatched = tally.unmatched();
    if members.is_empty() {
        return Err(PlanError::NoMatch { unmatched });
    }
    let needed = add_needed(catalog, &mut members)?;
    members.sort_by_key(|m| m.header_offset);
    let format = catalog.format();
    let pieces = if is_cpio(format) {
        cpio_pieces(&members, tail.trailer, format)
    } else {
        tar_pieces(&members, &tail.globals)
    };
    Ok(Plan {
        members,
        pieces,
        unmatched,
        needed,
    })
}

fn is_cpio(format: Format) -> bool {
    matches!(format, Format::CpioNewc | Format::CpioCrc | Format::CpioOdc)
}

/// Appends `[start, end)`, merged into the last piece when they touch.
fn push_stream(pieces: &mut Vec<Piece>, start: u64, end: u64) {
    if let Some(Piece::Stream { end: last, .. }) = pieces.last_mut() {
        if *last == start {
            *last = end;
            return;
        }
    }
    pieces.push(Piece::Stream { start, end });
}

fn total(pieces: &[Piece]) -> u64 {
    pieces.iter().map(Piece::len).sum()
}

/// Tar: global headers before the first member they precede, the
/// members, two zero blocks, zeros to a whole record.
fn tar_pieces(members: &[Member], globals: &[(u64, u64)]) -> Vec<Piece> {
    let mut pieces = Vec::new();
    let mut globals = globals.iter().peekable();
    for m in members {
        while let Some(&&(start, end)) = globals.peek() {
            if start >= m.header_offset {
                break;
            }
            push_stream(&mut pieces, start, end);
            globals.next();
        }
        push_stream(&mut pieces, m.header_offset, m.end_offset);
    }
    let length = total(&pieces) + TAR_END_BYTES;
    let padded = length.div_ceil(TAR_RECORD_BYTES) * TAR_RECORD_BYTES;
    pieces.push(Piece::Made(vec![
        0;
        (TAR_END_BYTES + padded - length) as usize
    ]));
    pieces
}

/// cpio: the members, the trailer, zeros to a whole block.
fn cpio_pieces(members: &[Member], trailer: Option<(u64, u64)>, format: Format) -> Vec<Piece> {
    let mut pieces = Vec::new();
    for m in members {
        push_stream(&mut pieces, m.header_offset, m.end_offset);
    }
    match trailer {
        Some((start, end)) => push_stream(&mut pieces, start, end),
        None => pieces.push(Piece::Made(made_trailer(format))),
    }
    let length = total(&pieces);
    let pad = length.div_ceil(CPIO_BLOCK_BYTES) * CPIO_BLOCK_BYTES - length;
    if pad > 0 {
        pieces.push(Piece::Made(vec![0; pad as usize]));
    }
    pieces
}

/// A TRAILER!!! member in `format`, as GNU cpio writes it: every field
/// zero but a link count of 1 and the name's size.
pub fn made_trailer(format: Format) -> Vec<u8> {
    const NAME: &[u8] = b"TRAILER!!!\0";
    let mut bytes = match format {
        Format::CpioOdc => format!("070707{:0>30}000001{:0>6}{:0>11}000013{:0>11}", 0, 0, 0, 0),
        _ => {
            let magic = if format == Format::CpioCrc {
                "070702"
            } else {
                "070701"
            };
            let fields = [0u32, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, NAME.len() as u32, 0];
            let hex: String = fields.iter().map(|f| format!("{f:08X}")).collect();
            format!("{magic}{hex}")
        }
    }
    .into_bytes();
    bytes.extend_from_slice(NAME);
    if format != Format::CpioOdc {
        bytes.resize(bytes.len().next_multiple_of(4), 0);
    }
    bytes
}
