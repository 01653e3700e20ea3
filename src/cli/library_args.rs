//! The tape library flags a buffer run and `tapebuf verify` share: the
//! changer, the pools of cartridges, the drive elements, and cleaning.

use std::path::PathBuf;

/// How a tape library's robot is used, as typed.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct LibraryArgs {
    /// The tape library's medium changer (/dev/schN): tapebuf loads and
    /// unloads the cartridges itself, without a change command
    #[arg(long = "changer", value_name = "DEV", hide_short_help = true)]
    pub changer: Option<PathBuf>,

    /// The storage slots a tape endpoint may load, mtx's numbers from 1:
    /// "1-4,7". Once per tape endpoint, in the order of the -o outputs.
    #[arg(long = "slots", value_name = "LIST", hide_short_help = true)]
    pub slots: Vec<String>,

    /// The cartridges a tape endpoint may load, by barcode globs ("E010*"),
    /// comma separated; instead of --slots, once per tape endpoint.
    #[arg(long = "barcodes", value_name = "PATTERNS", hide_short_help = true)]
    pub barcodes: Vec<String>,

    /// The changer's drive element (from 0, as mtx shows it) of each tape
    /// endpoint, in order, when serial numbers cannot tell it
    #[arg(long = "drive-element", value_name = "N", hide_short_help = true)]
    pub drive_elements: Vec<usize>,

    /// Clean a drive that asks for it with the library's cleaning
    /// cartridge, between volumes [default: only warn]
    #[arg(long = "clean", hide_short_help = true)]
    pub clean: bool,
}
