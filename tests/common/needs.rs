//! What a test needs from the machine: an outside tool, or root. A test
//! that lacks one fails at its first line with one message that names the
//! Debian package to install (or says to run as root). It never panics
//! deep in a helper, and it never skips silently. `.ci/run` installs
//! every package named here.

use std::path::{Path, PathBuf};

/// Where `name` is: on `PATH`, or at `name` itself when it is a path.
/// Fails the test, naming `package`, when it is missing.
#[track_caller]
pub fn tool(name: &str, package: &str) -> PathBuf {
    // A match, not a closure, so the panic names the test's line.
    match find(name) {
        Some(path) => path,
        None => panic!(
            "this test needs `{name}`, which is not installed: \
             apt-get install {package} (.ci/run installs every tool the tests use)"
        ),
    }
}

/// Fails the test unless it runs as root; `why` says what root is for.
#[track_caller]
pub fn root(why: &str) {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        panic!(
            "this test needs root ({why}): run `sudo .ci/run`, \
             or the tests as root in a throwaway container"
        );
    }
}

fn find(name: &str) -> Option<PathBuf> {
    if name.contains('/') {
        return is_executable(Path::new(name)).then(|| PathBuf::from(name));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}
