//! tapebuf: a streaming buffer for backup pipes.
//!
//! A reader thread fills a ring of fixed-size blocks from the input; a
//! writer thread drains it in order to every output; watermarks decide when
//! each side waits, so that a tape drive gets long, steady bursts. This
//! crate is the whole program: `main.rs` only parses the command line, calls
//! [`run::run`], and turns the result into an exit status.

pub mod blocking;
pub mod cli;
pub mod completions;
pub mod config;
pub mod events;
pub mod exit;
pub mod file_id;
pub mod hash;
pub mod net;
pub mod observe;
pub mod pace;
pub mod pipe_size;
pub mod pipeline;
pub mod probe;
pub mod rate;
pub mod reader;
pub mod report;
pub mod ring;
pub mod rmt;
pub mod run;
pub mod sink;
pub mod size;
pub mod source;
pub mod stats;
pub mod summary;
pub mod tape;
pub mod watchdog;
pub mod watermark;
pub mod writer;

pub use cli::Cli;
pub use config::{Config, MachineInfo};
