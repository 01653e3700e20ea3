//! What the user named as the outputs, before anything is opened, and what
//! to do with an output file that already exists.

use std::path::PathBuf;

use crate::base::child::ChildSpec;
use crate::net::PeerAddr;
use crate::rmt::name::RemoteName;

/// Where bytes go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutputSpec {
    Stdout,
    File(PathBuf),
    /// `-O`: a TCP receiver.
    Connect(PeerAddr),
    /// `HOST:PATH`: a remote tape or file, over rmt.
    Remote(RemoteName),
    /// `--to CMD`: the consumer's standard input.
    Command(ChildSpec),
}

impl OutputSpec {
    /// The name used in messages and the summary.
    pub fn display_name(&self) -> String {
        match self {
            OutputSpec::Stdout => "stdout".to_string(),
            OutputSpec::File(p) => p.display().to_string(),
            OutputSpec::Connect(peer) => peer.to_string(),
            OutputSpec::Remote(name) => name.to_string(),
            OutputSpec::Command(cmd) => format!("--to {}", cmd.display),
        }
    }
}

/// What to do with an output path that already holds a regular file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExistingFile {
    Refuse,
    Truncate,
    Append,
}
