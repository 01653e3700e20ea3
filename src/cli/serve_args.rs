//! The options of a receiver that serves many senders on one port: how
//! many streams at once, and after how many it ends.

/// `--senders` and `--streams`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ServeArgs {
    /// With -I: take up to N senders at once, each stream to its own
    /// output, named by the -o template ({name}, {peer}, {seq}, {time});
    /// -m is shared out, each stream getting -m/N.
    #[arg(long = "senders", value_name = "N", hide_short_help = true,
          value_parser = clap::value_parser!(u16).range(1..=256))]
    pub senders: Option<u16>,

    /// With --senders: end after N streams have ended [default: serve
    /// until a signal].
    #[arg(long = "streams", value_name = "N", hide_short_help = true,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub streams: Option<u64>,
}
