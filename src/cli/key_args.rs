//! The options of a private stream as typed: this end's key, the
//! receiver's fingerprint that a sender pins, the senders a receiver
//! allows, a site CA's certificates in their place (`--ca`, `--cert`),
//! and who makes the TLS records (`--ktls`).

use std::path::PathBuf;

/// `--key`, `--pin`, `--allow-key(s)`, `--ca`, `--cert` and `--ktls`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct KeyArgs {
    /// Make -I and -O private and authenticated with this end's key FILE
    /// (from tapebuf key new): TLS 1.3, each end checking the other's key.
    /// The sender also needs --pin, the receiver --allow-key or
    /// --allow-keys.
    #[arg(long = "key", value_name = "FILE", hide_short_help = true)]
    pub key: Option<PathBuf>,

    /// With -O and --key: the receiver's key, by the fingerprint that
    /// tapebuf key show prints on the receiver.
    #[arg(long = "pin", value_name = "FINGERPRINT", hide_short_help = true)]
    pub pin: Option<String>,

    /// With -I and --key: allow the sender whose key has this fingerprint,
    /// going by NAME; repeat for more.
    #[arg(
        long = "allow-key",
        value_name = "FINGERPRINT[=NAME]",
        hide_short_help = true
    )]
    pub allow_key: Vec<String>,

    /// With -I and --key: allow the senders listed in FILE, one
    /// "FINGERPRINT NAME" per line, read again for every connection.
    #[arg(long = "allow-keys", value_name = "FILE", hide_short_help = true)]
    pub allow_keys: Option<PathBuf>,

    /// For a site with its own certificate authority: check the peer's
    /// certificate against the CA certificates in FILE (PEM) instead of
    /// pins and allowed keys. Needs --cert.
    #[arg(long = "ca", value_name = "FILE", hide_short_help = true)]
    pub ca: Option<PathBuf>,

    /// With --ca: this end's certificate FILE (PEM, then any
    /// intermediates), issued by the CA for this end's key (--key).
    #[arg(long = "cert", value_name = "FILE", hide_short_help = true)]
    pub cert: Option<PathBuf>,

    /// With --key: who makes the TLS records once the handshake is over.
    /// auto: the kernel (kTLS) where it offers it with an accelerated
    /// AES-GCM, else tapebuf; on: the kernel or the run fails; off: tapebuf.
    #[arg(
        long = "ktls",
        value_name = "WHEN",
        value_enum,
        default_value = "auto",
        hide_short_help = true
    )]
    pub ktls: KtlsArg,
}

/// `--ktls` as typed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum KtlsArg {
    #[default]
    Auto,
    On,
    Off,
}
