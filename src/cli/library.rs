//! The command line of `tapebuf library`, as clap parses it: the changer to
//! read and the form of the answer. The command itself lives in `library/`.

use std::path::PathBuf;

use clap::Parser;

/// tapebuf library: show what a tape library holds: each drive with its
/// cartridge, /dev/nst node and serial number, each storage and
/// import/export slot with its barcode, and the cleaning cartridges.
#[derive(Debug, Clone, Parser)]
#[command(name = "tapebuf library", version, long_about = None)]
#[command(
    after_help = "Drives are numbered from 0 and slots from 1, as mtx numbers \
them; a drive's /dev/nst node is found by its serial number, never by its \
number. Nothing is moved. Exit status: 0 the inventory was printed, 1 the \
changer could not be opened or read, 2 usage error or DEVICE is not a medium \
changer. See tapebuf(1), LIBRARY."
)]
pub struct LibraryCli {
    /// The library's medium changer: a /dev/schN node of the Linux ch
    /// driver.
    #[arg(value_name = "DEVICE")]
    pub device: PathBuf,

    /// Print the inventory as one line of JSON on standard output, with the
    /// fields tapebuf(1) documents under LIBRARY, instead of the table.
    #[arg(long = "json")]
    pub json: bool,
}
