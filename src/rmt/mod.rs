//! Remote tapes over the rmt protocol: the wire format, remote names, the
//! pipelined client that `-i host:path` and `-o host:path` use, and the
//! `tapebuf rmt` server.
//!
//! The client never waits for one block's reply before sending the next:
//! a bounded window of W requests is in flight, and a separate thread reads
//! the replies, so the link's round trip is paid once per window and not
//! once per block. Every reply is matched to its block, so the bytes the
//! server committed are always known exactly.

pub mod flavor;
mod groups;
pub mod name;
pub mod remote;
pub mod server;
pub mod session;
pub mod settings;
pub mod window;
pub mod wire;

use std::ffi::OsString;
use std::path::Path;

/// The server's arguments, when this process should be the rmt server:
/// invoked as `tapebuf rmt ARGS...`, or under the name `rmt` (as
/// `/etc/rmt` or `/usr/sbin/rmt` linked to tapebuf), where every argument
/// is the server's.
pub fn server_args(args: &[OsString]) -> Option<Vec<OsString>> {
    let argv0 = args.first().map(Path::new)?;
    if argv0.file_name().is_some_and(|n| n == "rmt") {
        return Some(args[1..].to_vec());
    }
    match args.get(1) {
        Some(word) if word == "rmt" => Some(args[2..].to_vec()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    #[test]
    fn becomes_the_server_as_a_subcommand_or_under_the_name_rmt() {
        assert_eq!(
            server_args(&words(&["tapebuf", "rmt", "--allow", "/srv/*"])),
            Some(words(&["--allow", "/srv/*"]))
        );
        assert_eq!(server_args(&words(&["/etc/rmt"])), Some(vec![]));
        assert_eq!(
            server_args(&words(&["/usr/sbin/rmt", "--log", "x"])),
            Some(words(&["--log", "x"]))
        );
        assert_eq!(server_args(&words(&["tapebuf", "-o", "rmt"])), None);
        assert_eq!(server_args(&words(&["tapebuf"])), None);
    }
}
