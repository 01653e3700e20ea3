//! What the user named as the input, before anything is opened: standard
//! input, a path, a TCP port to listen on, or a remote name.

use std::path::PathBuf;

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
}
