//! Streams that leave the process by a socket or a remote shell: TCP
//! between tapebuf processes and mbuffer, faults injected in transit, and
//! rmt as client and as server.
//!
//! One test binary, one module per area of the former suites, so that
//! the helpers in `tests/common` are built and linked once.

#[path = "../common/mod.rs"]
mod common;

mod faults;
mod keys;
mod mbuffer_command_lines;
mod network;
mod rmt_client;
mod rmt_client_remote_shell;
mod rmt_end_of_media;
mod rmt_faults;
mod rmt_names;
mod rmt_server;
mod rmt_server_policy;
mod rmt_server_requests;
mod rmt_server_signals;
mod rmt_verify;
