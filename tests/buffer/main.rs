//! The buffer on this machine: local pipes, files and volumes, signals,
//! the observers (stats, report, summary, progress), pacing, every error
//! and its exit status, the help and the man page.
//!
//! One test binary, one module per area of the former suites, so that
//! the helpers in `tests/common` are built and linked once.

#[path = "../common/mod.rs"]
mod common;

mod archive;
mod catalog_write;
mod commands;
mod completions;
mod created_files;
mod errors;
mod extract;
mod hash;
mod help;
mod inherited_fds;
mod man_page;
mod observers;
mod output_safety;
mod pace_cli;
mod pacing;
mod pacing_held_out;
mod report_pace;
mod ring_property;
mod ring_property_pipes;
mod roundtrip;
mod select_tar;
mod signals;
mod volume_prompt;
mod volumes;
mod watermark;
mod zero_copy;
