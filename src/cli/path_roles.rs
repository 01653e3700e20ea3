//! What every command does with each option whose value is a path: the one
//! table the path registry's rules (`base::path_registry`) are checked
//! against. An option is path-valued when clap's value hint says so (a
//! `PathBuf` value gets `ValueHint::AnyPath`). `tests/buffer/errors/
//! alias_matrix.rs` walks every command's clap definition and fails when a
//! path-valued option has no row here, then tries every pair of them as
//! one file under every spelling; so an option added later is covered the
//! day it is added.

use crate::base::path_registry::Role;

/// What a command does with a path option's file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathRole {
    /// The command reads, writes or reports to it.
    Uses(Role),
    /// Accepted for another tool's command line and never opened
    /// (mbuffer's `-T FILE`).
    Unused,
}

/// The buffer's own command, as clap names it.
pub const BUFFER: &str = "tapebuf";

/// Every path-valued option: the command (the buffer, or a subcommand's
/// name), the option's clap id, and its role.
pub const PATH_ROLES: &[(&str, &str, PathRole)] = &[
    (BUFFER, "input", PathRole::Uses(Role::Read)),
    (BUFFER, "outputs", PathRole::Uses(Role::Write)),
    (BUFFER, "hash_file", PathRole::Uses(Role::Report)),
    (BUFFER, "manifest", PathRole::Uses(Role::Report)),
    (BUFFER, "log", PathRole::Uses(Role::Report)),
    (BUFFER, "summary_json", PathRole::Uses(Role::Report)),
    (BUFFER, "stats", PathRole::Uses(Role::Report)),
    (BUFFER, "changer", PathRole::Uses(Role::Read)),
    (BUFFER, "temp_file_path", PathRole::Unused),
    (BUFFER, "key", PathRole::Uses(Role::Read)),
    (BUFFER, "allow_keys", PathRole::Uses(Role::Read)),
    (BUFFER, "ca", PathRole::Uses(Role::Read)),
    (BUFFER, "cert", PathRole::Uses(Role::Read)),
    (BUFFER, "encrypt_key", PathRole::Uses(Role::Read)),
    (BUFFER, "key_dir", PathRole::Uses(Role::Read)),
    ("rmt", "config", PathRole::Uses(Role::Read)),
    ("rmt", "log", PathRole::Uses(Role::Report)),
    ("report", "file", PathRole::Uses(Role::Read)),
    ("report", "output", PathRole::Uses(Role::Report)),
    ("probe", "target", PathRole::Uses(Role::Write)),
    ("verify", "manifest", PathRole::Uses(Role::Read)),
    ("verify", "input", PathRole::Uses(Role::Read)),
    ("verify", "changer", PathRole::Uses(Role::Read)),
    ("verify", "encrypt_key", PathRole::Uses(Role::Read)),
    ("verify", "key_dir", PathRole::Uses(Role::Read)),
    ("extract", "manifest", PathRole::Uses(Role::Read)),
    ("extract", "input", PathRole::Uses(Role::Read)),
    ("extract", "output", PathRole::Uses(Role::Write)),
    ("extract", "changer", PathRole::Uses(Role::Read)),
    ("extract", "encrypt_key", PathRole::Uses(Role::Read)),
    ("extract", "key_dir", PathRole::Uses(Role::Read)),
    ("library", "device", PathRole::Uses(Role::Read)),
    ("drive", "device", PathRole::Uses(Role::Read)),
    ("ls", "manifest", PathRole::Uses(Role::Read)),
    ("ls", "catalog", PathRole::Uses(Role::Read)),
];

/// The role of `command`'s option `id`, if the table has one.
pub fn role_of(command: &str, id: &str) -> Option<PathRole> {
    PATH_ROLES
        .iter()
        .find(|(c, i, _)| *c == command && *i == id)
        .map(|(_, _, role)| *role)
}

/// True when clap takes `arg`'s value for a path.
pub fn is_path(arg: &clap::Arg) -> bool {
    arg.get_action().takes_values()
        && matches!(
            arg.get_value_hint(),
            clap::ValueHint::AnyPath
                | clap::ValueHint::FilePath
                | clap::ValueHint::DirPath
                | clap::ValueHint::ExecutablePath
        )
}
