//! Every file of the backup counts for extract, verify and ls, not only
//! what the plan reads: `-o` over one of the backup's own volumes is
//! refused even when `-i` names a copy; and a FIFO in place of a volume
//! or of the catalog is refused by `stat`, with status 2, instead of
//! waiting for ever for a writer that never comes.

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use super::backup::Backup;
use crate::common;

/// Replaces `path` with a FIFO that nobody writes.
fn fifo_at(path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    fs::remove_file(path).unwrap();
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid C string and a mode.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// Runs `cmd` to its end within a deadline (a run that waits on the FIFO
/// fails the test): its status code and its one line of standard error.
fn refusal(mut cmd: Command) -> (Option<i32>, String) {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status = common::wait::exited_within(&mut child, Duration::from_secs(30))
        .unwrap_or_else(|| panic!("{cmd:?} waited on the FIFO"));
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    (status.code(), stderr.trim_end().to_string())
}

fn tapebuf_in(b: &Backup, args: &[&str]) -> Command {
    let mut cmd = common::tapebuf();
    cmd.current_dir(b.dir.path()).args(args);
    cmd
}

// issue 45 finding 10: `extract -i COPY -o vol.002 -f` overwrote one of
// the backup's own volumes, which the plan did not read.
#[test]
fn an_output_over_a_volume_of_the_backup_is_refused_though_a_copy_is_read() {
    let b = Backup::new();
    for n in 1..=3 {
        fs::copy(
            b.path(&format!("vol.00{n}")),
            b.path(&format!("copy.00{n}")),
        )
        .unwrap();
    }
    let before = common::sha256_file(&b.path("vol.002"));
    let args = [
        "extract",
        "--manifest",
        "home.json",
        "-i",
        "copy.%03d",
        "-f",
    ];
    // The manifest names the volumes as the backup wrote them.
    let vol2 = b.path("vol.002");
    for out in ["vol.002", "./vol.002"] {
        let (code, line) = refusal(tapebuf_in(&b, &[&args[..], &["-o", out, "d/a"]].concat()));
        assert_eq!(code, Some(2), "{line}");
        assert_eq!(
            line,
            format!(
                "tapebuf: extract: -o {out}: is the same file as volume 2 of the backup \
                 being read ({}); writing it there would destroy what the run reads",
                vol2.display()
            )
        );
        assert_eq!(common::sha256_file(&b.path("vol.002")), before);
    }
}

// issue 45 finding 13: a FIFO in place of a volume hung extract and
// verify for ever.
#[test]
fn a_fifo_in_place_of_a_volume_is_refused_by_extract_and_verify_without_waiting() {
    let b = Backup::new();
    fifo_at(&b.path("vol.002"));
    let (code, line) = refusal(tapebuf_in(
        &b,
        &[
            "extract",
            "--manifest",
            "home.json",
            "-o",
            "out.tar",
            "d/mid",
        ],
    ));
    assert_eq!(code, Some(2), "{line}");
    assert_eq!(
        line,
        format!(
            "tapebuf: extract: volume 2 of the backup being read ({}): is a FIFO or pipe; \
             it must be a regular file",
            b.path("vol.002").display()
        )
    );
    assert!(!b.path("out.tar").exists());
    let (code, line) = refusal(tapebuf_in(&b, &["verify", "--manifest", "home.json", "-q"]));
    assert_eq!(code, Some(2), "{line}");
    let names = b.path("vol.%03d");
    assert_eq!(
        line,
        format!(
            "tapebuf: verify: volume 2 of -i {} ({}): is a FIFO or pipe; \
             it must be a regular file",
            names.display(),
            b.path("vol.002").display()
        )
    );
}

// issue 45 finding 13: a FIFO in place of the catalog (or the manifest)
// hung ls and extract for ever.
#[test]
fn a_fifo_in_place_of_the_catalog_or_manifest_is_refused_without_waiting() {
    let b = Backup::new();
    fs::copy(b.path("home.json"), b.path("kept.json")).unwrap();
    fifo_at(&b.path("home.catalog"));
    let cases: [(&[&str], &str); 3] = [
        (
            &["ls", "--manifest", "home.json"],
            "tapebuf: ls: catalog home.catalog: is a FIFO or pipe; it must be a regular file",
        ),
        (
            &["ls", "--catalog", "home.catalog"],
            "tapebuf: ls: --catalog home.catalog: is a FIFO or pipe; it must be a regular file",
        ),
        (
            &["extract", "--manifest", "home.json", "-o", "out.tar", "d/a"],
            "tapebuf: extract: --manifest home.json: its catalog home.catalog: \
             is a FIFO or pipe; it must be a regular file",
        ),
    ];
    for (args, want) in cases {
        let (code, line) = refusal(tapebuf_in(&b, args));
        assert_eq!(code, Some(2), "{args:?}: {line}");
        assert_eq!(line, want, "{args:?}");
    }
    fifo_at(&b.path("home.json"));
    for args in [
        &["ls", "--manifest", "home.json"][..],
        &["verify", "--manifest", "home.json"],
        &["extract", "--manifest", "home.json", "-o", "out.tar", "d/a"],
    ] {
        let (code, line) = refusal(tapebuf_in(&b, args));
        assert_eq!(code, Some(2), "{args:?}: {line}");
        assert!(
            line.contains("--manifest home.json: ")
                && line.ends_with("is a FIFO or pipe; it must be a regular file"),
            "{args:?}: {line}"
        );
    }
    assert!(!b.path("out.tar").exists());
}

// issue 45 finding 13, the one-file case: `verify -i FIFO` with no program
// writing to the FIFO waited in open(2) for ever. A FIFO stays a valid
// input (process substitution), so the wait is bounded by --timeout.
#[test]
fn verify_gives_up_on_a_fifo_input_that_no_program_writes_to() {
    let b = Backup::new();
    let fifo = b.path("in.fifo");
    fs::write(&fifo, b"").unwrap();
    fifo_at(&fifo);
    let (code, line) = refusal(tapebuf_in(
        &b,
        &[
            "verify",
            "--manifest",
            "home.json",
            "-i",
            "in.fifo",
            "--timeout",
            "1",
            "-q",
        ],
    ));
    assert_eq!(code, Some(1), "{line}");
    assert_eq!(
        line,
        "tapebuf: verify: -i in.fifo: a FIFO that no program opened for writing in 1 s; \
         nothing was read (--timeout sets the wait)"
    );
}
