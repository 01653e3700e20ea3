//! The command line of `tapebuf key`, as clap parses it: make a key pair,
//! or show the fingerprint of one. The command itself is `key_command.rs`.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

/// tapebuf key: make the key pair a tapebuf peer proves itself with on the
/// network, or show a key's fingerprint, the line a receiver allows and a
/// sender pins.
#[derive(Debug, Clone, Parser)]
#[command(name = "tapebuf key", version, long_about = None)]
#[command(
    after_help = "A key is Ed25519, in a PEM file of mode 0600 that openssl \
reads too. Its line on standard output is the fingerprint, SHA256: and the \
base64 of the SHA-256 of its public key, then its name. Exit status: 0 the \
line was printed, 1 the file could not be written or read, 2 usage error, a \
FILE that exists (new) or that others may read or that holds no key (show). \
With --tape, the key is a 256-bit AES key for a tape drive's encryption \
(--encrypt-key), one line of 64 hex digits, and its line is its \
fingerprint, tapebuf: and 24 base64 digits, then FILE. \
See tapebuf(1), KEYS and ENCRYPTION."
)]
pub struct KeyCli {
    #[command(subcommand)]
    pub action: KeyAction,
}

#[derive(Debug, Clone, Subcommand)]
pub enum KeyAction {
    /// Make a new key pair in FILE, which must not exist, and print its
    /// fingerprint and name; with --tape, a tape drive's encryption key.
    New {
        /// Make a 256-bit key a tape drive encrypts with (--encrypt-key),
        /// not a key pair; FILE is then required.
        #[arg(long = "tape", requires = "file")]
        tape: bool,
        /// Where the private key goes (created with mode 0600) [default:
        /// the key -I and -O use without --key, ~/.config/tapebuf/key,
        /// its directory made with mode 0700].
        #[arg(value_name = "FILE")]
        file: Option<PathBuf>,
        /// The name printed after the fingerprint, which a receiver's list
        /// of allowed keys names the sender by (letters, digits, '.', '_'
        /// and '-', at most 64); the host's name by default.
        #[arg(long = "name", value_name = "NAME")]
        name: Option<String>,
    },
    /// Print the fingerprint and name of the key pair in FILE; with
    /// --tape, the fingerprint of the tape key in FILE.
    Show {
        /// FILE holds a tape drive's encryption key; FILE is then
        /// required.
        #[arg(long = "tape", requires = "file")]
        tape: bool,
        /// A key file made by 'tapebuf key new' [default:
        /// ~/.config/tapebuf/key].
        #[arg(value_name = "FILE")]
        file: Option<PathBuf>,
        /// The name printed after the fingerprint; the host's name by
        /// default.
        #[arg(long = "name", value_name = "NAME")]
        name: Option<String>,
    },
}
