//! A plan drained for the plan's tests (`Laid`): its members, its pieces
//! in order and what it says of the globs, and its pieces copied out of
//! the archive's bytes; and the globs typed as on a command line.

use crate::archive::Member;
use crate::catalog::{globs::build, Patterns};

use super::plan::{Missing, Needed, Piece, Plan, PlanError};

pub fn globs(patterns: &[&str]) -> Patterns {
    let typed: Vec<String> = patterns.iter().map(|p| p.to_string()).collect();
    build(&typed).unwrap()
}

/// A plan drained: its members and pieces, in order, and what it says.
#[derive(Debug)]
pub struct Laid {
    pub members: Vec<Member>,
    pub pieces: Vec<Piece>,
    pub unmatched: Vec<usize>,
    pub needed: Vec<Needed>,
    pub missing: Vec<Missing>,
}

impl Laid {
    pub fn bytes(&self) -> u64 {
        self.pieces.iter().map(Piece::len).sum()
    }

    pub fn stream_bytes(&self) -> u64 {
        (self.pieces.iter())
            .filter(|p| matches!(p, Piece::Stream { .. }))
            .map(Piece::len)
            .sum()
    }
}

pub fn laid(plan: Result<Plan<'_>, PlanError>) -> Laid {
    let plan = plan.unwrap();
    let members: Vec<Member> = plan.output_members().map(Result::unwrap).collect();
    assert_eq!(members.len() as u64, plan.members);
    Laid {
        pieces: plan.pieces().map(Result::unwrap).collect(),
        members,
        unmatched: plan.unmatched.clone(),
        needed: plan.needed.clone(),
        missing: plan.missing.clone(),
    }
}

/// The plan's output, copied from the archive's bytes.
pub fn assemble(archive: &[u8], plan: &Laid) -> Vec<u8> {
    let mut out = Vec::new();
    for piece in &plan.pieces {
        match piece {
            Piece::Stream { start, end } => {
                out.extend_from_slice(&archive[*start as usize..*end as usize])
            }
            Piece::Made(bytes) => out.extend_from_slice(bytes),
        }
    }
    assert_eq!(out.len() as u64, plan.bytes());
    out
}
