//! Command lines: what the user typed, as clap reads it, and the one shape
//! every command's entry has (`command.rs`). Nothing here is validated
//! beyond its type; `config/` checks flags against each other.

pub mod args;
pub mod command;
pub mod completions;
pub mod mbuffer;
pub mod rmt;
pub mod usage;

pub use args::{Cli, RemoteArgs};
