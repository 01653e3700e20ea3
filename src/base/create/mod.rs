//! The one way tapebuf creates, truncates, replaces or appends to a file.
//! Every such open in `src/` goes through here, and `tests/layers/creation.rs`
//! fails the build's tests if one does not.
//!
//! - A new file is made with `O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC` and an
//!   explicit mode (`new`): nothing already at the name, a planted symlink
//!   included, is ever opened by a create.
//! - A file tapebuf rewrites whole (manifest, catalog, history, digests,
//!   summaries) is replaced (`replace`): written to a temporary nobody can
//!   name in advance (`O_TMPFILE`, else `O_EXCL|O_NOFOLLOW` under a random
//!   name in the target's own directory), synced, renamed over the target
//!   inside that directory, and the directory synced. A temporary is gone
//!   on every error path.
//! - A file the user names (`-o`, `-l`, `report -o`, ...) is opened by
//!   `output`: an existing file only as the user's policy allows, and a
//!   symbolic link in the last component followed only when the caller or
//!   root owns it, so that a link another user planted is never followed.
//!
//! Modes: backups and extracted archives are created 0666, the records
//! tapebuf writes about them (manifest, catalog, reports, logs) 0644, a
//! private history 0600; the umask applies to each, as to any shell
//! redirection.

pub mod new;
pub mod output;
pub mod replace;
mod sys;

pub use new::{create_new, scratch, DATA_MODE, RECORD_MODE};
pub use output::{append, foreign_link, open_existing, open_output, Existing};
pub use replace::{replace_with, write_record, Replacement};

#[cfg(test)]
mod tests;
