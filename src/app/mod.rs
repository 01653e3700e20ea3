//! The top of the program: which command a command line asks for, and
//! running it through the one entry shape (`cli::command`). `main.rs` only
//! calls [`main`] and ends the process as it says.
//!
//! The subcommands are the one table in `subcommands.rs`, which the
//! dispatch here and the `--help` tree (`tree.rs`) both read. They are
//! recognised only as the first word; under the name `rmt` (as `/etc/rmt`
//! linked to tapebuf) every argument is the rmt server's.

pub mod buffer;
pub mod completions;
pub mod subcommands;
pub mod tree;

use std::ffi::OsString;
use std::path::Path;

use crate::base::exit::Exit;
use crate::cli::command;
use crate::rmt_server::RmtServer;
use buffer::Buffer;
pub use subcommands::whole_tree as command;

/// Runs the command `args` (the whole command line) names.
pub fn main(args: Vec<OsString>) -> Exit {
    crate::base::heap::keep_freed_heap();
    if let Some(words) = server_args(&args) {
        return command::main::<RmtServer>(words);
    }
    if let Some((sub, words)) = subcommands::named_in(&args) {
        return (sub.main)(words);
    }
    command::main::<Buffer>(args)
}

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
