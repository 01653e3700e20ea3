//! Manifests: what a backup wrote, volume by volume (`--manifest`), and
//! the checks that read it back (`--verify`, `tapebuf verify`, a restore
//! with `--manifest`). The schema is in `schema.rs`; `tally.rs` counts a
//! volume as it is written, `ledger.rs` holds a run's manifest in the
//! making, `check.rs` compares a volume read back, and `identify.rs` says
//! which volume a medium is from its first bytes.

pub mod check;
pub mod identify;
pub mod ledger;
pub mod schema;
pub mod tally;

pub use check::{Checker, Problem};
pub use identify::Identity;
pub use ledger::{Ledger, Recording};
pub use schema::{LoadError, Manifest, Verified, Volume};

#[cfg(test)]
mod tests;
