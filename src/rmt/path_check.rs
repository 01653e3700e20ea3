//! Whether the server reads a long path whole, asked before the path is
//! sent.
//!
//! BSD rmt servers, and Linux dump's `rmt-dump` (which Debian makes
//! `/usr/sbin/rmt` whenever the `dump` package is installed), read at most
//! 62 bytes of an argument. A longer path is cut there: the server opens
//! the wrong file, and runs the path's tail as further requests. GNU rmt
//! and star read long paths whole. No request tells the servers apart
//! safely (an unknown one makes GNU rmt exit), so a path longer than 62
//! bytes is first tried in a throwaway session of its own, with a path that
//! answers differently on the two kinds:
//!
//! - the probe path is slashes followed by a name that does not exist, at
//!   least as long as the real path, and with at least 63 slashes;
//! - a server that reads it whole fails to open it (ENOENT, or its policy
//!   refuses it): any `E` reply;
//! - a server that cuts it opens only the slashes, which is `/`, read-only
//!   (the cut-off name is read as the flags line, and it is not a number),
//!   and answers `A0`.
//!
//! Nothing is written, and the probe session is ended at once. A probe that
//! cannot tell (the remote shell fails, the server says something else)
//! lets the real open go ahead, which then fails or succeeds on its own.
//! Only a path longer than 62 bytes, with `--rmt-flavor gnu`, pays for the
//! extra session; `--rmt-flavor bsd` refuses such a path outright.

use super::flavor::{Flavor, BSD_MAX_ARGUMENT_BYTES};
use super::name::RemoteName;
use super::protocol::{Reply, Request};
use super::session::{RmtError, RmtSettings, Session};

/// The name after the probe path's slashes.
const PROBE_NAME: &str = "tapebuf-rmt-path-probe.missing";

/// Refuses `name` when its server would cut its path. Cheap for short
/// paths: no session is started.
pub fn check_server_reads_path(name: &RemoteName, settings: &RmtSettings) -> Result<(), RmtError> {
    let len = name.path.len();
    if settings.flavor != Flavor::Gnu || len <= BSD_MAX_ARGUMENT_BYTES {
        return Ok(());
    }
    match probe(name, settings, len) {
        Some(ServerReads::Cut) => Err(RmtError::PathCut {
            host: name.host.clone(),
            len,
            limit: BSD_MAX_ARGUMENT_BYTES,
        }),
        Some(ServerReads::Whole) | None => Ok(()),
    }
}

/// What the probe learnt about the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ServerReads {
    Whole,
    Cut,
}

/// Runs the probe session; None when it could not tell.
fn probe(name: &RemoteName, settings: &RmtSettings, len: usize) -> Option<ServerReads> {
    let mut session = Session::start(name, settings).ok()?;
    let open = Request::Open {
        path: probe_path(len).into(),
        flags: "0".to_string(),
    };
    let answer = session.send(&open, &[]).and_then(|()| session.wait_reply());
    // Dropping the session ends the server: whatever it made of the rest
    // of the line, it never gets another request.
    drop(session);
    match answer {
        Ok(Reply::Number(_)) => Some(ServerReads::Cut),
        Ok(Reply::Failed { .. }) => Some(ServerReads::Whole),
        _ => None,
    }
}

/// Slashes, then a name that does not exist: `len` bytes or more, with the
/// name starting past any cut at [`BSD_MAX_ARGUMENT_BYTES`].
fn probe_path(len: usize) -> String {
    let slashes = (BSD_MAX_ARGUMENT_BYTES + 1).max(len.saturating_sub(PROBE_NAME.len()));
    format!("{}{PROBE_NAME}", "/".repeat(slashes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probe_path_is_at_least_as_long_as_the_real_one_and_cut_only_in_slashes() {
        for len in [63, 64, 90, 200, 4000] {
            let path = probe_path(len);
            assert!(path.len() >= len, "{len}");
            let slashes = path.len() - PROBE_NAME.len();
            assert!(slashes > BSD_MAX_ARGUMENT_BYTES, "{len}");
            assert!(path[..slashes].bytes().all(|b| b == b'/'));
            assert!(path.ends_with(PROBE_NAME));
        }
    }
}
