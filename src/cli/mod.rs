//! Command lines: what the user typed, as clap reads it, for the buffer
//! (`args.rs`, with its groups of flags in `remote_args.rs`,
//! `rate_args.rs`, `observe_args.rs` and `library_args.rs`, and mbuffer's
//! spellings in `mbuffer.rs`) and for every
//! subcommand (`probe.rs`, `verify.rs`, `report.rs`, `library.rs`,
//! `drive.rs`, `completions.rs`), and the one shape every command's entry has
//! (`command.rs`). Nothing here is validated beyond its type; `config/`
//! checks the buffer's and verify's flags against each other, and each
//! command its own.

pub mod args;
pub mod command;
pub mod completions;
pub mod drive;
pub mod extract;
pub mod key;
pub mod key_args;
pub mod library;
pub mod library_args;
pub mod ls;
pub mod mbuffer;
pub mod observe_args;
pub mod path_roles;
pub mod probe;
pub mod rate_args;
pub mod remote_args;
pub mod report;
pub mod rmt;
pub mod serve_args;
pub mod tape_args;
pub mod usage;
pub mod verify;

pub use args::Cli;
pub use library_args::LibraryArgs;
pub use remote_args::RemoteArgs;
pub use tape_args::TapeArgs;
