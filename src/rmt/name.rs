//! Remote names, `[user@]host:path`, by GNU tar's rule: a name is remote
//! when it has a colon that is not its first character and no slash comes
//! before that colon. So `./a:b`, `/mnt/a:b` and `:x` stay local, and
//! `--force-local` keeps every name local.
//!
//! The rule is applied to the name's bytes, so whether a name is remote
//! never depends on its encoding. A remote name must then be UTF-8 (the
//! host goes to the remote shell and the path into a text request): one
//! that is not is an error naming it with the bad bytes escaped, never a
//! local file by accident.

use std::fmt;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use crate::base::escape::shown;

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
        let bytes = name.as_os_str().as_bytes();
        let colon = match bytes.iter().position(|&b| b == b':') {
            Some(0) | None => return Ok(None),
            Some(i) => i,
        };
        if bytes[..colon].contains(&b'/') {
            return Ok(None);
        }
        let Ok(text) = std::str::from_utf8(bytes) else {
            let shown = shown(bytes);
            return Err(format!(
                "{shown}: a remote name (HOST:PATH) must be valid UTF-8; for a local file, \
                 write ./{shown} or give --force-local"
            ));
        };
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
    fn a_remote_name_that_is_not_utf8_is_an_error_never_a_local_file() {
        use std::ffi::OsStr;
        let bad = |bytes: &[u8]| RemoteName::parse(Path::new(OsStr::from_bytes(bytes)));
        assert_eq!(
            bad(b"vault:backup\xff.tar").unwrap_err(),
            "vault:backup\\xff.tar: a remote name (HOST:PATH) must be valid UTF-8; for a \
             local file, write ./vault:backup\\xff.tar or give --force-local"
        );
        assert!(
            bad(b"va\xe9ult:/dev/nst0").is_err(),
            "a bad byte in the host"
        );
        assert!(bad(b"\x1b]0;x\x07:a\xff")
            .unwrap_err()
            .starts_with("\\u{1b}]0;x\\u{7}:a\\xff: "));
        // Local by the rule, whatever the bytes.
        assert_eq!(bad(b"./vault:backup\xff.tar"), Ok(None));
        assert_eq!(bad(b"/mnt/a\xff:b"), Ok(None));
        assert_eq!(bad(b"backup\xff.tar"), Ok(None));
        assert_eq!(bad(b":\xff"), Ok(None));
    }

    #[test]
    fn device_paths_are_recognised() {
        assert!(remote("vault:/dev/nst0").unwrap().is_device());
        assert!(!remote("vault:/srv/backup.tar").unwrap().is_device());
    }
}
