use super::*;
use std::fs;
use std::io::Read;
use std::os::unix::fs::symlink;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

const BOTH: [Method; 2] = [Method::Openat2, Method::Walk];

/// root/allowed/d/f says "inside"; root/outside/f says "SECRET".
fn tree() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(dir.path()).unwrap();
    fs::create_dir_all(root.join("allowed/d")).unwrap();
    fs::create_dir(root.join("outside")).unwrap();
    fs::write(root.join("allowed/d/f"), b"inside").unwrap();
    fs::write(root.join("outside/f"), b"SECRET").unwrap();
    (dir, root)
}

fn read_all(mut file: File) -> Vec<u8> {
    let mut out = Vec::new();
    file.read_to_end(&mut out).unwrap();
    out
}

#[test]
fn opens_a_plain_path_beneath_the_root_both_ways() {
    let (_dir, root) = tree();
    for method in BOTH {
        let f = open_with(
            method,
            &root.join("allowed"),
            &root.join("allowed/d/f"),
            libc::O_RDONLY,
            0,
        );
        assert_eq!(read_all(f.unwrap()), b"inside", "{method:?}");
    }
    let f = open_beneath(Path::new("/"), &root.join("allowed/d/f"), libc::O_RDONLY, 0);
    assert_eq!(read_all(f.unwrap()), b"inside");
}

#[test]
fn creates_a_new_file_with_the_mode_given() {
    let (_dir, root) = tree();
    for (i, method) in BOTH.into_iter().enumerate() {
        let path = root.join(format!("allowed/d/new{i}"));
        let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL;
        open_with(method, &root.join("allowed"), &path, flags, 0o600).unwrap();
        let meta = fs::metadata(&path).unwrap();
        assert_eq!(
            std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o777,
            0o600
        );
    }
}

#[test]
fn a_symlinked_intermediate_directory_is_refused_with_eloop() {
    let (_dir, root) = tree();
    symlink("../outside", root.join("allowed/link")).unwrap();
    symlink(root.join("allowed/d"), root.join("allowed/inner")).unwrap();
    for method in BOTH {
        for via in ["allowed/link/f", "allowed/inner/f"] {
            let e = open_with(
                method,
                &root.join("allowed"),
                &root.join(via),
                libc::O_RDONLY,
                0,
            )
            .unwrap_err();
            assert_eq!(e.raw_os_error(), Some(libc::ELOOP), "{method:?} {via}");
        }
    }
}

#[test]
fn a_final_symlink_and_a_symlinked_root_are_refused() {
    let (_dir, root) = tree();
    symlink(root.join("outside/f"), root.join("allowed/d/last")).unwrap();
    symlink(root.join("allowed"), root.join("alias")).unwrap();
    for method in BOTH {
        let e = open_with(
            method,
            &root.join("allowed"),
            &root.join("allowed/d/last"),
            libc::O_RDONLY,
            0,
        )
        .unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ELOOP), "{method:?}");
        let e = open_with(
            method,
            &root.join("alias"),
            &root.join("alias/d/f"),
            libc::O_RDONLY,
            0,
        )
        .unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ELOOP), "{method:?}");
    }
}

#[test]
fn a_path_not_beneath_the_root_is_refused_with_exdev() {
    let (_dir, root) = tree();
    for method in BOTH {
        for path in [root.join("outside/f"), root.join("allowed/../outside/f")] {
            let e = open_with(method, &root.join("allowed"), &path, libc::O_RDONLY, 0).unwrap_err();
            assert_eq!(e.raw_os_error(), Some(libc::EXDEV), "{method:?} {path:?}");
        }
    }
}

/// Swaps root/allowed/d for a link to ../outside and back, until told to
/// stop or `rounds` swaps are done.
fn swapper(root: PathBuf, stop: Arc<AtomicBool>, rounds: usize) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let (d, real) = (root.join("allowed/d"), root.join("allowed/d.real"));
        for _ in 0..rounds {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            fs::rename(&d, &real).unwrap();
            symlink("../outside", &d).unwrap();
            fs::remove_file(&d).unwrap();
            fs::rename(&real, &d).unwrap();
        }
    })
}

#[test]
fn a_directory_swapped_for_a_link_in_a_loop_never_leads_out() {
    let (_dir, root) = tree();
    let stop = Arc::new(AtomicBool::new(false));
    let swapping = swapper(root.clone(), Arc::clone(&stop), 1_000_000);
    let (mut opened, mut refused) = (0, 0);
    for i in 0..20_000 {
        let method = BOTH[i % 2];
        match open_with(
            method,
            &root.join("allowed"),
            &root.join("allowed/d/f"),
            libc::O_RDONLY,
            0,
        ) {
            Ok(file) => {
                assert_eq!(read_all(file), b"inside", "{method:?} led out at try {i}");
                opened += 1;
            }
            Err(e) => {
                let errno = e.raw_os_error();
                assert!(
                    matches!(errno, Some(libc::ELOOP | libc::ENOENT | libc::ENOTDIR)),
                    "{e}"
                );
                refused += 1;
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    swapping.join().unwrap();
    assert_eq!(opened + refused, 20_000);
}
