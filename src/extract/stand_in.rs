//! Stand-ins, so that `extract` compiles and is tested before the parts it
//! is built on land; the lead swaps each for the real one at merge.
//!
//! - `plan`, `Plan`, `Piece`, `PlanError`: stand-in until the ls + plan
//!   helper lands (`src/extract/plan.rs`): each chosen member's range,
//!   adjacent ranges merged, then tar's two zero blocks and padding to
//!   10240 (no pax globals, hard-link targets or cpio trailer here).
//! - `impl RecordSums for Catalog`: stand-in until the catalog-write
//!   helper lands (`Catalog::record_sums`); it keeps no checksums.

use std::io;

use globset::GlobSet;

use super::sums::RecordSums;
use crate::archive::{Format, Member};
use crate::catalog::Catalog;

// stand-in until the ls + plan helper lands (src/extract/plan.rs)
/// What to write: the members chosen and the pieces of the output.
pub struct Plan {
    pub members: Vec<Member>,
    pub pieces: Vec<Piece>,
}

// stand-in until the ls + plan helper lands (src/extract/plan.rs)
/// One piece of the output, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Stream bytes `[start, end)`, read from the volumes.
    Stream { start: u64, end: u64 },
    /// Bytes made here (end blocks, padding).
    Made(Vec<u8>),
}

// stand-in until the ls + plan helper lands (src/extract/plan.rs)
/// Why there is nothing to extract.
#[derive(Debug)]
pub enum PlanError {
    NothingMatches,
    Catalog(io::Error),
}

impl std::fmt::Display for PlanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlanError::NothingMatches => write!(f, "no member matches"),
            PlanError::Catalog(e) => write!(f, "{e}"),
        }
    }
}

// stand-in until the ls + plan helper lands (src/extract/plan.rs)
/// The chosen members' ranges, merged where adjacent, and an ending.
pub fn plan(catalog: &Catalog, globs: &GlobSet) -> Result<Plan, PlanError> {
    let mut members = Vec::new();
    let mut pieces: Vec<Piece> = Vec::new();
    let mut out = 0u64;
    for member in catalog.matching(globs) {
        let member = member.map_err(PlanError::Catalog)?;
        out += member.end_offset - member.header_offset;
        match pieces.last_mut() {
            Some(Piece::Stream { end, .. }) if *end == member.header_offset => {
                *end = member.end_offset
            }
            _ => pieces.push(Piece::Stream {
                start: member.header_offset,
                end: member.end_offset,
            }),
        }
        members.push(member);
    }
    if members.is_empty() {
        return Err(PlanError::NothingMatches);
    }
    if !matches!(
        catalog.format(),
        Format::CpioOdc | Format::CpioNewc | Format::CpioCrc
    ) {
        let ending = 1024 + (10240 - (out + 1024) % 10240) % 10240;
        pieces.push(Piece::Made(vec![0; ending as usize]));
    }
    Ok(Plan { members, pieces })
}

// stand-in until the catalog-write helper lands: the real body is
// `self.record_sums(volume, first, count).map(Some)`.
impl RecordSums for Catalog {
    fn sums(&self, _volume: u32, _first: u64, _count: u64) -> io::Result<Option<Vec<u32>>> {
        Ok(None)
    }
}
