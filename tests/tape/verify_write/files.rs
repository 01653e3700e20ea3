//! `--verify` and `--manifest` with file outputs, through the binary: a
//! clean run, numbered volumes, and a run stopped half-way, whose manifest
//! holds exactly what was committed and says the run was not clean.

use std::io::Write;
use std::path::Path;
use std::process::Stdio;

use tapebuf::manifest::Manifest;

use super::common::{pattern, tapebuf};
use super::xxh3_hex;

/// The digest `xxhsum -H3` gives a file: what a user checks a volume with.
fn xxhsum(path: &Path) -> String {
    let tool = super::common::needs::tool("xxhsum", "xxhash");
    let out = crate::common::command(tool)
        .arg("-H3")
        .arg(path)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    text.trim_end().rsplit(" = ").next().unwrap().to_string()
}

fn load(path: &Path) -> Manifest {
    Manifest::load(path).unwrap()
}

#[test]
fn a_verified_file_backup_writes_a_manifest_that_matches_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let data = pattern(5_000_000, 21);
    let input = dir.path().join("in");
    std::fs::write(&input, &data).unwrap();
    let pattern_name = dir.path().join("v.%02d");
    let manifest = dir.path().join("m.json");
    let out = tapebuf()
        .args(["-s", "64k", "--volume-size", "2M", "--verify", "--manifest"])
        .arg(&manifest)
        .arg("-i")
        .arg(&input)
        .arg("-o")
        .arg(&pattern_name)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let m = load(&manifest);
    assert!(m.clean);
    assert_eq!(m.digest_algorithm, "xxh3");
    assert_eq!(m.block_bytes, 65536);
    assert_eq!(m.stream.bytes, 5_000_000);
    assert_eq!(m.stream.digest, xxh3_hex(&data));
    assert_eq!(m.volumes.len(), 3);
    let mut at = 0;
    for v in &m.volumes {
        let bytes = std::fs::read(dir.path().join(format!("v.{:02}", v.number))).unwrap();
        assert_eq!(v.bytes, bytes.len() as u64);
        assert_eq!(v.digest, xxh3_hex(&bytes));
        assert_eq!(&data[at..at + bytes.len()], &bytes[..]);
        at += bytes.len();
        assert_eq!(v.filemarks, 0);
        assert!(v.complete);
        let found = v.verified.as_ref().unwrap();
        assert!(found.ok, "{found:?}");
        assert!(
            found.method == "O_DIRECT" || found.method.starts_with("fsync + POSIX_FADV_DONTNEED"),
            "{}",
            found.method
        );
        assert!(
            stderr.contains(&format!(
                "tapebuf: volume {} ({}): verified in ",
                v.number, v.name
            )),
            "{stderr}"
        );
        assert_eq!(xxhsum(Path::new(&v.name)), v.digest);
    }
    assert!(
        stderr.contains("tapebuf: verify: 3 volumes of "),
        "{stderr}"
    );
    assert!(stderr.contains(": all match; read back "), "{stderr}");
}

#[test]
fn the_manifest_digest_follows_the_first_hash() {
    let dir = tempfile::tempdir().unwrap();
    let data = pattern(300_000, 22);
    let manifest = dir.path().join("m.json");
    let output = dir.path().join("out");
    let out = tapebuf()
        .args(["--hash", "sha256", "--hash", "md5", "--manifest"])
        .arg(&manifest)
        .arg("-o")
        .arg(&output)
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            child.stdin.take().unwrap().write_all(&data)?;
            child.wait_with_output()
        })
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let m = load(&manifest);
    assert_eq!(m.digest_algorithm, "sha256");
    assert_eq!(m.stream.digest, super::common::sha256(&data));
    assert_eq!(m.volumes[0].digest, m.stream.digest);
    assert!(m.volumes[0].verified.is_none());
}

#[test]
fn a_stopped_run_writes_a_manifest_of_what_was_committed_marked_unclean() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("m.json");
    let output = dir.path().join("out");
    let mut child = tapebuf()
        .args(["-s", "64k", "--manifest"])
        .arg(&manifest)
        .arg("-o")
        .arg(&output)
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let data = pattern(1 << 20, 23);
    stdin.write_all(&data).unwrap();
    // The input stays open: tapebuf has written the whole MiB and waits
    // for more when the file reaches 1 MiB.
    while std::fs::metadata(&output).map(|m| m.len()).unwrap_or(0) < 1 << 20 {
        std::thread::yield_now();
    }
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).unwrap();
    let out = child.wait_with_output().unwrap();
    drop(stdin);
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(out.status.signal(), Some(libc::SIGTERM));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("written, marked unclean: it holds the 1048576 bytes committed"),
        "{stderr}"
    );
    let m = load(&manifest);
    assert!(!m.clean);
    assert_eq!(m.unclean_because.as_deref(), Some("interrupted by SIGTERM"));
    assert_eq!(m.stream.bytes, 1 << 20);
    assert_eq!(m.stream.digest, xxh3_hex(&data));
    assert_eq!(std::fs::metadata(&output).unwrap().len(), 1 << 20);
}

/// Runs tapebuf with `args` and no input; its exit code and stderr.
fn refused(args: &[&str]) -> (Option<i32>, String) {
    let out = tapebuf().args(args).stdin(Stdio::null()).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn outputs_that_cannot_be_recorded_are_refused_before_any_byte_moves() {
    let usage = |line: &str| (Some(2), format!("tapebuf: {line}\n"));
    assert_eq!(
        refused(&["--verify", "-o", "-"]),
        usage("--verify: reads the output back, and standard output cannot be read back; name the output with -o")
    );
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("m.json");
    let m = manifest.to_str().unwrap();
    assert_eq!(
        refused(&["--manifest", m, "-O", "127.0.0.1:9", "--plain"]),
        usage("--manifest: -O 127.0.0.1:9: a TCP receiver's volumes cannot be recorded or read back from here; record them where they are written")
    );
    assert_eq!(
        refused(&["--manifest", m, "-o", "/dev/null"]),
        usage("--manifest: -o /dev/null: is not a tape, a regular file or an rmt target, so its volumes cannot be recorded")
    );
    assert!(!manifest.exists());
}
