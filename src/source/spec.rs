//! What the user named as the input, before anything is opened: standard
//! input, a path, a TCP port to listen on, a remote name, or a command
//! to run.

use std::path::PathBuf;

use crate::base::child::ChildSpec;
use crate::net::ListenAddr;
use crate::rmt::name::RemoteName;

/// Where bytes come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputSpec {
    Stdin,
    File(PathBuf),
    /// `-I`: one TCP sender.
    Listen(ListenAddr),
    /// `HOST:PATH`: a remote tape or file, over rmt.
    Remote(RemoteName),
    /// `-- CMD [ARGS...]`: the producer's standard output.
    Command(ChildSpec),
}
