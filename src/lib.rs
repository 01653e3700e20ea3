//! tapebuf: a streaming buffer for backup pipes.
//!
//! A reader thread fills a ring of fixed-size blocks from the input; a
//! writer thread drains it in order to every output; watermarks decide when
//! each side waits, so that a tape drive gets long, steady bursts. This
//! crate is the whole program: `main.rs` only hands the command line to
//! [`app::main`] and ends the process as it says. ARCHITECTURE.md draws the
//! layers; each only imports from the layers below it.

pub mod app;
pub mod archive;
pub mod base;
pub mod buffer;
pub mod catalog;
pub mod cli;
pub mod config;
pub mod drive_health;
pub mod endpoint;
pub mod error;
pub mod extract;
pub mod hash;
pub mod key_command;
pub mod keys;
pub mod library;
pub mod ls;
pub mod manifest;
pub mod net;
pub mod observe;
pub mod pace;
pub mod pipeline;
pub mod probe;
pub mod report;
pub mod rmt;
pub mod rmt_server;
pub mod serve;
pub mod sink;
pub mod source;
pub mod tape;
pub mod verify;
pub mod volume;

pub use cli::Cli;
pub use config::{Config, MachineInfo};
