//! Where a requested path really leads: the canonical path the policy
//! judges and the opener opens.
//!
//! A relative path is taken from the server's working directory (a remote
//! shell starts in the user's home, as with GNU rmt). Symbolic links are
//! followed and `.` and `..` removed. A path that does not exist yet (an
//! archive about to be created) resolves to its canonical parent directory
//! plus its final name; a dangling symbolic link resolves to where it
//! points, so creating through it cannot escape.
//!
//! Invariant: the result is absolute, contains no `.`, `..` or symbolic
//! link that existed at resolution time, and its final component is either
//! an existing non-link or a name that did not exist.

use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

/// Links followed before giving up, as Linux's MAXSYMLINKS.
const MAX_LINKS: usize = 40;

/// Resolves `requested` as described in the module documentation.
pub fn resolve(requested: &Path) -> io::Result<PathBuf> {
    if requested.as_os_str().is_empty() {
        return Err(io::Error::from_raw_os_error(libc::ENOENT));
    }
    let absolute = if requested.is_absolute() {
        requested.to_path_buf()
    } else {
        std::env::current_dir()?.join(requested)
    };
    resolve_absolute(&absolute, 0)
}

fn resolve_absolute(path: &Path, links: usize) -> io::Result<PathBuf> {
    match fs::canonicalize(path) {
        Ok(real) => return Ok(real),
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        Err(_) => {}
    }
    // Something is missing: only the final component may be.
    let name = match path.components().next_back() {
        Some(Component::Normal(name)) => name,
        _ => return Err(io::Error::from_raw_os_error(libc::ENOENT)),
    };
    let parent = path
        .parent()
        .ok_or_else(|| io::Error::from_raw_os_error(libc::ENOENT))?;
    let real_parent = fs::canonicalize(parent)?;
    if !real_parent.is_dir() {
        return Err(io::Error::from_raw_os_error(libc::ENOTDIR));
    }
    let candidate = real_parent.join(name);
    match fs::symlink_metadata(&candidate) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(candidate),
        Err(e) => Err(e),
        Ok(meta) if meta.file_type().is_symlink() => {
            // A dangling link: where it points decides.
            if links >= MAX_LINKS {
                return Err(io::Error::from_raw_os_error(libc::ELOOP));
            }
            let target = fs::read_link(&candidate)?;
            resolve_absolute(&real_parent.join(target), links + 1)
        }
        // It appeared since canonicalize looked; judge it as it is now.
        Ok(_) => fs::canonicalize(&candidate),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn tree() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        fs::create_dir(root.join("allowed")).unwrap();
        fs::create_dir(root.join("outside")).unwrap();
        fs::write(root.join("outside/secret"), b"x").unwrap();
        (dir, root)
    }

    #[test]
    fn removes_dot_dot_and_follows_links() {
        let (_dir, root) = tree();
        let sneaky = root.join("allowed/../outside/secret");
        assert_eq!(resolve(&sneaky).unwrap(), root.join("outside/secret"));
        symlink(root.join("outside/secret"), root.join("allowed/link")).unwrap();
        assert_eq!(
            resolve(&root.join("allowed/link")).unwrap(),
            root.join("outside/secret")
        );
    }

    #[test]
    fn a_new_file_resolves_through_its_parent() {
        let (_dir, root) = tree();
        symlink(root.join("allowed"), root.join("alias")).unwrap();
        assert_eq!(
            resolve(&root.join("alias/new.tar")).unwrap(),
            root.join("allowed/new.tar")
        );
        assert!(resolve(&root.join("missing/new.tar")).is_err());
        assert!(resolve(&root.join("allowed/missing/..")).is_err());
    }

    #[test]
    fn a_dangling_link_resolves_to_where_it_points() {
        let (_dir, root) = tree();
        symlink(root.join("outside/new"), root.join("allowed/dangling")).unwrap();
        assert_eq!(
            resolve(&root.join("allowed/dangling")).unwrap(),
            root.join("outside/new")
        );
        symlink("loop", root.join("allowed/loop")).unwrap();
        assert!(resolve(&root.join("allowed/loop")).is_err());
    }

    #[test]
    fn relative_paths_start_at_the_working_directory() {
        let here = std::env::current_dir().unwrap();
        assert_eq!(
            resolve(Path::new("no-such-file.tar")).unwrap(),
            fs::canonicalize(&here).unwrap().join("no-such-file.tar")
        );
        assert!(resolve(Path::new("")).is_err());
    }
}
