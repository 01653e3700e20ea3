//! `tapebuf extract`: an archive of just the members a glob chooses,
//! read from a past backup's volumes with the catalog's help instead of
//! reading the whole backup. `plan.rs` says which byte ranges of the
//! stream (and which bytes made here) that archive is, as a pure function
//! of the catalog, with `linked.rs` for what a chosen member needs; the
//! command that reads them lives here too.

mod linked;
pub mod plan;

#[cfg(test)]
mod plan_tests;
