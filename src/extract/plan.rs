//! The plan of an extract: the pieces that, written one after the other,
//! are a valid archive of just the members the names choose. Pure: it
//! reads the catalog and nothing else, and says which byte ranges of the
//! backup's stream to copy (`Piece::Stream`) and which bytes it made
//! (`Piece::Made`), in output order.
//!
//! Members are chosen as `Catalog::matching` chooses them (tar's rules,
//! `catalog::globs`), and kept in stream order, so a tape is only ever
//! read forwards. Each member's range is copied verbatim (headers are
//! never rewritten, checksums stay valid), and ranges that touch are
//! merged into one piece. What a chosen member needs comes too, even if
//! no name chose it (`linked.rs`): a tar hard link's target, as tar finds
//! it on the disk (`./d/small` is `d/small`), and the member of a cpio
//! newc/crc hard-link group that carries the data. A hard link whose
//! target no member before it is, is said (`Plan::missing`): the run
//! then fails.
//!
//! Memory is bounded whatever the number of members chosen: the plan is
//! one pass over the catalog that counts the chosen members and keeps
//! only what hard links want; the pieces are made by a second pass
//! (`pieces.rs`) as they are copied. When no more than `KEEP_MEMBERS`
//! are chosen (one file, a small folder: the common restore), the first
//! pass keeps them and the second is not needed. What is kept is one catalog block,
//! the names' tally, and one entry per chosen hard link or cpio link
//! member whose data is elsewhere (with the members added for them).
//!
//! The end: tar gets each pax global ('g') header before the first chosen
//! member it precedes (so a later one never applies to an earlier member),
//! then two zero blocks and zeros to a multiple of 10240 bytes (tar's
//! record); cpio gets a copy of the original TRAILER!!! (or one made here
//! in the same format when the catalog kept none), then zeros to a
//! multiple of 512 (GNU cpio's block).

use std::io;

use crate::archive::Member;
use crate::catalog::{Catalog, Patterns, Tally};

use super::linked::{checked, resolve, want_of};
pub use super::linked::{Missing, Needed};
use super::pieces::Chosen;
pub(crate) use super::pieces::Tail;
pub use super::pieces::{
    OutputMembers, Piece, Pieces, CPIO_BLOCK_BYTES, TAR_END_BYTES, TAR_RECORD_BYTES,
};

/// The most chosen members the plan keeps from its first pass (about
/// 250 bytes each), so that a small choice reads the catalog once.
pub const KEEP_MEMBERS: usize = 4096;

/// What an extract writes: its members and pieces come as they are
/// copied (`members`, `pieces`).
pub struct Plan<'c> {
    catalog: &'c Catalog,
    patterns: &'c Patterns,
    tail: Tail,
    /// The members no name chose that chosen ones need, in stream order.
    added: Vec<Member>,
    /// The chosen members, when no more than `KEEP_MEMBERS`.
    kept: Option<Vec<Member>>,
    /// How many members the output holds, chosen or needed.
    pub members: u64,
    /// The names (indices in the `Patterns`) that chose no member.
    pub unmatched: Vec<usize>,
    /// The members added because a chosen one needs them, in the order
    /// they were found.
    pub needed: Vec<Needed>,
    /// The hard links in the output whose target no member before them is.
    pub missing: Vec<Missing>,
}

impl<'c> Plan<'c> {
    /// The members the output holds, in stream order.
    pub fn output_members(&self) -> OutputMembers<'_> {
        let chosen = match &self.kept {
            Some(kept) => Chosen::Kept(kept.iter()),
            None => Chosen::Catalog(self.catalog.matching(self.patterns)),
        };
        OutputMembers::new(chosen, &self.added)
    }

    /// The output, in order, made as it is asked for.
    pub fn pieces(&self) -> Pieces<'_> {
        Pieces::new(self.output_members(), &self.tail, self.catalog.format())
    }
}

/// Why there is no plan.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// No name chose any member; `unmatched` lists them all.
    #[error("no member matches")]
    NoMatch { unmatched: Vec<usize> },
    /// The catalog could not be read, or holds a member that cannot be.
    #[error(transparent)]
    Catalog(#[from] io::Error),
}

/// The plan of an archive of the members `patterns` choose from `catalog`.
pub fn plan<'c>(catalog: &'c Catalog, patterns: &'c Patterns) -> Result<Plan<'c>, PlanError> {
    plan_with(catalog, Tail::of(catalog), patterns)
}

/// `plan`, with the archive's tail given: one pass over the catalog
/// counting the chosen members and gathering what they want, then the
/// passes that find it (`linked::resolve`).
pub(crate) fn plan_with<'c>(
    catalog: &'c Catalog,
    tail: Tail,
    patterns: &'c Patterns,
) -> Result<Plan<'c>, PlanError> {
    let mut tally = Tally::new(patterns);
    let mut chosen = 0u64;
    let mut wants = Vec::new();
    let mut kept = Some(Vec::new());
    for member in catalog.matching(patterns) {
        let member = checked(member?)?;
        tally.count(member.path.as_bytes());
        chosen += 1;
        wants.extend(want_of(&member));
        match &mut kept {
            Some(k) if k.len() < KEEP_MEMBERS => k.push(member),
            _ => kept = None,
        }
    }
    let unmatched = tally.unmatched();
    if chosen == 0 {
        return Err(PlanError::NoMatch { unmatched });
    }
    let resolved = resolve(catalog, patterns, wants)?;
    Ok(Plan {
        catalog,
        patterns,
        tail,
        members: chosen + resolved.added.len() as u64,
        added: resolved.added,
        kept,
        unmatched,
        needed: resolved.needed,
        missing: resolved.missing,
    })
}
