//! The tape drive flags every command that writes or reads a local tape
//! shares: a buffer run, `tapebuf verify` and `tapebuf extract`.

/// How a local tape drive's own checks are used, as typed.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct TapeArgs {
    /// Write and read without logical block protection [default: on
    /// wherever the drive offers it, CRC32C before Reed-Solomon CRC]
    ///
    /// With it on, every block carries a CRC that the drive checks
    /// before the block goes to tape and that tapebuf checks on every
    /// read. --no-lbp also turns it off in a drive another program left
    /// it on in.
    #[arg(long = "no-lbp", hide_short_help = true)]
    pub no_lbp: bool,
}

impl TapeArgs {
    /// The protection asked for.
    pub fn lbp(&self) -> crate::tape::protection::Wanted {
        match self.no_lbp {
            true => crate::tape::protection::Wanted::Off,
            false => crate::tape::protection::Wanted::WhereOffered,
        }
    }
}
