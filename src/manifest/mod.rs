//! Manifests: what a backup wrote, volume by volume (`--manifest`), and
//! the checks that read it back (`--verify`, `tapebuf verify`, a restore
//! with `--manifest`). The schema is in `schema.rs`; `tally.rs` counts a
//! volume as it is written, `ledger.rs` holds a run's manifest in the
//! making (and `catalog_tap.rs` its catalog, with `--catalog`), `load.rs` reads one back and `validate.rs` checks its bounds
//! and self-consistency before any of it is used, `check.rs` compares a
//! volume read back, and `identify.rs` says which volume a medium is from
//! its first bytes.

pub mod catalog_tap;
pub mod check;
pub mod identify;
pub mod ledger;
pub mod load;
pub mod locate;
pub mod schema;
pub mod tally;
pub mod validate;

pub use check::{Checker, Problem};
pub use identify::Identity;
pub use ledger::{Ledger, Recording};
pub use load::LoadError;
pub use locate::Location;
pub use schema::{CatalogRef, Manifest, Verified, Volume};
pub use validate::Invalid;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod validate_tests;
