//! Where a private stream's files are when no flag names them: this
//! user's tapebuf directory, `$XDG_CONFIG_HOME/tapebuf` or
//! `~/.config/tapebuf`, as ssh keeps `~/.ssh`. It holds `key` (this end's
//! key pair, `tapebuf key new` with no FILE), `allowed_keys` (the senders
//! a receiver allows, as `--allow-keys` reads them) and `receivers` (the
//! receivers a sender pins, `HOST:PORT FINGERPRINT` lines).
//!
//! The invariant: the directory is found from the environment alone, the
//! same way every time, and a missing one is said by its path, never
//! created behind the user's back (only `tapebuf key new` makes it, with
//! mode 0700).

use std::path::{Path, PathBuf};

/// This user's tapebuf directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyHome {
    dir: PathBuf,
}

impl KeyHome {
    /// The directory from the environment: an absolute `XDG_CONFIG_HOME`,
    /// else `HOME`'s `.config`.
    pub fn locate() -> Result<KeyHome, String> {
        let var = |name| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        KeyHome::from_vars(var("XDG_CONFIG_HOME"), var("HOME"))
    }

    /// The directory from these values of `XDG_CONFIG_HOME` and `HOME`.
    pub fn from_vars(xdg: Option<PathBuf>, home: Option<PathBuf>) -> Result<KeyHome, String> {
        let base = match (xdg.filter(|p| p.is_absolute()), home) {
            (Some(xdg), _) => xdg,
            (None, Some(home)) if home.is_absolute() => home.join(".config"),
            _ => {
                return Err(
                    "neither XDG_CONFIG_HOME nor HOME is an absolute path, so there is no \
                     tapebuf directory for the default key files"
                        .to_string(),
                )
            }
        };
        Ok(KeyHome {
            dir: base.join("tapebuf"),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// This end's key pair.
    pub fn key(&self) -> PathBuf {
        self.dir.join("key")
    }

    /// The senders a receiver allows.
    pub fn allowed_keys(&self) -> PathBuf {
        self.dir.join("allowed_keys")
    }

    /// The receivers a sender pins.
    pub fn receivers(&self) -> PathBuf {
        self.dir.join("receivers")
    }

    /// Makes the directory (mode 0700) if it is missing, for a new key.
    pub fn make_dir(&self) -> std::io::Result<()> {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&self.dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_absolute_xdg_config_home_wins_over_home() {
        let home = KeyHome::from_vars(Some("/x/cfg".into()), Some("/home/u".into())).unwrap();
        assert_eq!(home.key(), PathBuf::from("/x/cfg/tapebuf/key"));
    }

    #[test]
    fn without_xdg_config_home_the_directory_is_under_home_dot_config() {
        let home = KeyHome::from_vars(Some("relative".into()), Some("/root".into())).unwrap();
        assert_eq!(
            home.allowed_keys(),
            PathBuf::from("/root/.config/tapebuf/allowed_keys")
        );
        assert_eq!(
            home.receivers(),
            PathBuf::from("/root/.config/tapebuf/receivers")
        );
    }

    #[test]
    fn no_absolute_home_is_an_error_naming_both_variables() {
        let e = KeyHome::from_vars(None, Some("rel".into())).unwrap_err();
        assert!(e.contains("XDG_CONFIG_HOME") && e.contains("HOME"), "{e}");
        assert!(KeyHome::from_vars(None, None).is_err());
    }
}
