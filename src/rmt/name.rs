//! Remote names, `[user@]host:path`, by GNU tar's rule: a name is remote
//! when it has a colon that is not its first character and no slash comes
//! before that colon. So `./a:b`, `/mnt/a:b` and `:x` stay local, and
//! `--force-local` keeps every name local.

use std::fmt;
use std::path::Path;

/// A tape or file on another host, reached through the remote shell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteName {
    pub user: Option<String>,
    pub host: String,
    pub path: String,
}

impl RemoteName {
    /// The remote name in `name`, if it is one. Errors are for names that
    /// are remote by the rule but cannot work: an empty host, user or path.
    pub fn parse(name: &Path) -> Result<Option<RemoteName>, String> {
        let Some(text) = name.to_str() else {
            return Ok(None);
        };
        let colon = match text.find(':') {
            Some(0) | None => return Ok(None),
            Some(i) => i,
        };
        if text[..colon].contains('/') {
            return Ok(None);
        }
        let (login, path) = (&text[..colon], &text[colon + 1..]);
        let (user, host) = match login.split_once('@') {
            Some((user, host)) => (Some(user), host),
            None => (None, login),
        };
        if host.is_empty() {
            return Err(format!(
                "{text}: the remote name has no host before the ':'"
            ));
        }
        if user.is_some_and(str::is_empty) {
            return Err(format!(
                "{text}: the remote name has an empty user before the '@'"
            ));
        }
        if path.is_empty() {
            return Err(format!("{text}: the remote name has no path after the ':'"));
        }
        if path.contains(['\n', '\0']) {
            return Err(format!("{text:?}: a remote path cannot hold a newline"));
        }
        if host.starts_with('-') || user.is_some_and(|u| u.starts_with('-')) {
            return Err(format!(
                "{text}: a host or user starting with '-' would be read by the remote shell as an option"
            ));
        }
        Ok(Some(RemoteName {
            user: user.map(str::to_string),
            host: host.to_string(),
            path: path.to_string(),
        }))
    }

    /// True when the remote path names a device (`/dev/...`), which is
    /// opened as it is, never created or truncated.
    pub fn is_device(&self) -> bool {
        self.path.starts_with("/dev/")
    }
}

impl fmt::Display for RemoteName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(user) = &self.user {
            write!(f, "{user}@")?;
        }
        write!(f, "{}:{}", self.host, self.path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn remote(text: &str) -> Option<RemoteName> {
        RemoteName::parse(Path::new(text)).unwrap()
    }

    #[test]
    fn host_and_path_split_at_the_first_colon() {
        let r = remote("vault:/dev/nst0").unwrap();
        assert_eq!(
            (r.user, r.host.as_str(), r.path.as_str()),
            (None, "vault", "/dev/nst0")
        );
        let r = remote("backup@vault:/dev/nst0").unwrap();
        assert_eq!(r.user.as_deref(), Some("backup"));
        assert_eq!(r.host, "vault");
        let r = remote("vault:archive:2.tar").unwrap();
        assert_eq!(r.path, "archive:2.tar");
        assert_eq!(r.to_string(), "vault:archive:2.tar");
    }

    #[test]
    fn a_slash_before_the_colon_or_a_leading_colon_keeps_a_name_local() {
        assert_eq!(remote("/mnt/a:b"), None);
        assert_eq!(remote("./vault:/dev/nst0"), None);
        assert_eq!(remote(":x"), None);
        assert_eq!(remote("plain.tar"), None);
        assert_eq!(remote("-"), None);
    }

    #[test]
    fn names_that_cannot_work_are_errors() {
        assert!(RemoteName::parse(Path::new("vault:")).is_err());
        assert!(RemoteName::parse(Path::new("@vault:/x")).is_err());
        assert!(RemoteName::parse(Path::new("-oProxyCommand=x:/x")).is_err());
    }

    #[test]
    fn device_paths_are_recognised() {
        assert!(remote("vault:/dev/nst0").unwrap().is_device());
        assert!(!remote("vault:/srv/backup.tar").unwrap().is_device());
    }
}
