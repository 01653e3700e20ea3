//! How a HOST:PATH name is reached: the remote shell, the rmt server and
//! its numbering, or that every name is local. Flattened into the
//! buffer's `Cli`, `tapebuf probe` and `tapebuf verify` alike.

/// How a HOST:PATH name is reached, for `tapebuf` and `tapebuf probe` alike.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct RemoteArgs {
    /// Take every name as local, even one with a colon (HOST:PATH is
    /// otherwise a remote tape or file, reached over rmt).
    #[arg(long = "force-local", hide_short_help = true)]
    pub force_local: bool,

    /// The remote shell for HOST:PATH, with its arguments [env: RSH;
    /// default: ssh -T -e none -o BatchMode=yes, which never prompts].
    #[arg(long = "rsh-command", value_name = "CMD", hide_short_help = true)]
    pub rsh_command: Option<String>,

    /// The rmt server to run on the remote host [env: RMT; default:
    /// /etc/rmt].
    #[arg(long = "rmt-command", value_name = "CMD", hide_short_help = true)]
    pub rmt_command: Option<String>,

    /// The remote server's tape operation numbering: gnu (Linux) or bsd
    /// [default: gnu].
    #[arg(
        long = "rmt-flavor",
        value_name = "FLAVOR",
        value_enum,
        hide_short_help = true
    )]
    pub rmt_flavor: Option<crate::rmt::flavor::Flavor>,
}
