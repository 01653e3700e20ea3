//! How tapebuf creates files (`base::create`), against another user who
//! can write to the backup's directory: symlinks planted at the names of
//! temporaries, old and new, and at the outputs, pointing at a root-only
//! file, must never steer a write there; an existing output is never
//! overwritten without -f. Run as root (links are planted by chown to
//! another uid), with the real binary.

mod outputs;
mod temporaries;

use std::os::unix::fs::{lchown, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The uid that plants links: `nobody`, anyone but the caller and root.
pub const OTHER_UID: u32 = 65534;

/// A root-only file (mode 0600) that no run may touch: where it is, and
/// what it holds.
pub struct Secret {
    pub path: PathBuf,
    bytes: Vec<u8>,
}

impl Secret {
    pub fn new(dir: &Path) -> Secret {
        let path = dir.join("secret");
        let bytes = b"root only: not for any backup to overwrite\n".to_vec();
        std::fs::write(&path, &bytes).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        Secret { path, bytes }
    }

    /// Its bytes, mode and owner are as made.
    pub fn assert_untouched(&self) {
        let meta = std::fs::symlink_metadata(&self.path).unwrap();
        assert!(
            meta.is_file(),
            "{} is no longer a file",
            self.path.display()
        );
        assert_eq!(
            meta.mode() & 0o7777,
            0o600,
            "mode of {}",
            self.path.display()
        );
        assert_eq!(meta.uid(), 0);
        assert_eq!(
            std::fs::read(&self.path).unwrap(),
            self.bytes,
            "the secret changed"
        );
    }
}

/// A symlink at `link` to `target`, owned by `OTHER_UID`, as another
/// user who can write to the directory would plant it.
pub fn plant(link: &Path, target: &Path) {
    std::os::unix::fs::symlink(target, link).unwrap();
    lchown(link, Some(OTHER_UID), Some(OTHER_UID)).unwrap();
}

/// A directory writable by its group (mode 2775), as backup directories
/// shared by an operators' group are.
pub fn group_writable(parent: &Path, name: &str) -> PathBuf {
    let dir = parent.join(name);
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o2775)).unwrap();
    dir
}

/// A small tar archive of two files at `path` (made by GNU tar), so that
/// `--catalog` has members to write.
pub fn tar_input(dir: &Path) -> PathBuf {
    crate::common::needs::tool("tar", "tar");
    let tree = dir.join("tree");
    std::fs::create_dir(&tree).unwrap();
    std::fs::write(tree.join("a"), vec![b'a'; 3000]).unwrap();
    std::fs::write(tree.join("b"), b"bee\n").unwrap();
    let path = dir.join("input.tar");
    let status = crate::common::command("tar")
        .arg("cf")
        .arg(&path)
        .arg("-C")
        .arg(&tree)
        .args(["a", "b"])
        .status()
        .unwrap();
    assert!(status.success());
    path
}
