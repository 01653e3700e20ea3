//! The command line of `tapebuf ls`, as clap parses it: where the catalog
//! is (a backup's manifest, or the catalog file itself), the globs, and
//! the form of the answer. The command itself lives in `ls/`.

use std::path::PathBuf;

use clap::{ArgGroup, Parser};

/// tapebuf ls: list the members of a backup made with --catalog: each
/// one's kind, size, modification time, volume, barcode and path.
#[derive(Debug, Clone, Parser)]
#[command(name = "tapebuf ls", version, long_about = None)]
#[command(group(ArgGroup::new("source").required(true).args(["manifest", "catalog"])))]
#[command(
    after_help = "A name chooses the member it names, and everything under it, as \
tar xf chooses members; a name with *, ? or [ also chooses what it matches as \
tar --wildcards would (* also matches /; braces are not special). Nothing is read from the tapes. Exit status: 0 every glob matched, 1 a glob matched \
no member (the others are still listed) or the catalog is damaged part of the way \
through, 2 usage error (an empty name), an unreadable manifest, or no catalog. See tapebuf(1), LS."
)]
pub struct LsCli {
    /// The manifest of a backup made with --catalog: its catalog is the
    /// file it names, beside it; volumes and barcodes come from it.
    #[arg(long = "manifest", value_name = "FILE")]
    pub manifest: Option<PathBuf>,

    /// A catalog file, read alone (no volumes or barcodes).
    #[arg(long = "catalog", value_name = "FILE")]
    pub catalog: Option<PathBuf>,

    /// Print the listing as one JSON object on standard output, with the
    /// fields tapebuf(1) documents under LS, instead of the text.
    #[arg(long = "json")]
    pub json: bool,

    /// Names or tar wildcard patterns of the members to list [default:
    /// every member].
    #[arg(value_name = "GLOB")]
    pub globs: Vec<String>,
}
