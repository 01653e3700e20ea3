//! The tape drive flags every command that writes or reads a local tape
//! shares: a buffer run, `tapebuf verify` and `tapebuf extract`. Each is
//! read once into the drive's `Safeguards`; a key file that is unsafe or
//! holds no key fails here, before anything is opened.

use std::path::PathBuf;
use std::sync::Arc;

use crate::base::errors::ConfigError;
use crate::keys::tape_key::TapeKey;
use crate::tape::encryption::Keying;
use crate::tape::protection::Wanted;
use crate::volume::Safeguards;

/// How a local tape drive's own checks and encryption are used, as typed.
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

    /// Have the tape drive encrypt every block (AES-256-GCM, LTO-4 and
    /// later) with the 256-bit key in FILE
    ///
    /// FILE is made by tapebuf key new --tape FILE, or holds a key as
    /// stenc reads it (64 hex digits) or as 32 raw bytes; it must be
    /// this user's, mode 0600. The key's fingerprint goes with every
    /// block and into the manifest; the key is cleared from the drive
    /// when tapebuf ends, however it ends. Reading, the key is used for
    /// the cartridges it fits.
    #[arg(long = "encrypt-key", value_name = "FILE", hide_short_help = true)]
    pub encrypt_key: Option<PathBuf>,

    /// Read encrypted cartridges with the keys in DIR, each found by the
    /// fingerprint the cartridge names (any file names; each mode 0600)
    #[arg(long = "key-dir", value_name = "DIR", hide_short_help = true)]
    pub key_dir: Option<PathBuf>,
}

impl TapeArgs {
    /// The protection asked for.
    pub fn lbp(&self) -> Wanted {
        match self.no_lbp {
            true => Wanted::Off,
            false => Wanted::WhereOffered,
        }
    }

    /// The key files the run reads, as the path checks take them: never
    /// to be written over by an output or a report.
    pub fn key_files(&self) -> Vec<(&'static str, PathBuf)> {
        (self.encrypt_key.clone())
            .map(|k| ("--encrypt-key", k))
            .into_iter()
            .collect()
    }

    /// The drive's safeguards, with `--encrypt-key`'s key read and
    /// `--key-dir` found to be a directory.
    pub fn guards(&self) -> Result<Safeguards, ConfigError> {
        let key = match &self.encrypt_key {
            Some(file) => {
                Some(Arc::new(TapeKey::load(file).map_err(|e| {
                    ConfigError::new("--encrypt-key", e.to_string())
                })?))
            }
            None => None,
        };
        if let Some(dir) = &self.key_dir {
            if !dir.is_dir() {
                return Err(ConfigError::new(
                    "--key-dir",
                    format!("{}: not a directory", dir.display()),
                ));
            }
        }
        Ok(Safeguards {
            lbp: self.lbp(),
            keys: Keying {
                key,
                key_file: self.encrypt_key.clone(),
                dir: self.key_dir.clone(),
            },
        })
    }
}
