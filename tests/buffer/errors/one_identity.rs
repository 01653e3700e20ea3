//! One identity for every path a run touches, pipes included: a report
//! file that is the pipe the data goes through or comes from, the catalog
//! named again as a report file, and a report's picture over the
//! recording it reads, are each refused before any byte with status 2 and
//! one line naming both, and nothing is changed or left waiting.

use std::io::Write;
use std::process::{Child, Stdio};
use std::time::Duration;

use crate::common::*;
use crate::errors::run_in;

/// Waits (with a deadline, so a run that never ends fails the test) for
/// `child`; its status code and standard error.
fn ended(mut child: Child) -> (Option<i32>, String, Vec<u8>) {
    let status = wait::exited_within(&mut child, Duration::from_secs(30))
        .expect("the run did not end: it waits on its own pipe");
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    let mut stdout = Vec::new();
    if let Some(mut out) = child.stdout.take() {
        std::io::Read::read_to_end(&mut out, &mut stdout).unwrap();
    }
    (status.code(), stderr, stdout)
}

// issue 45 finding 1: --stats or -l naming the stdout pipe that carries
// the data would splice JSON or the summary into the backup.
#[test]
fn a_report_file_that_is_the_stdout_pipe_carrying_the_data_is_refused() {
    for flag in ["--stats", "-l", "--summary-json"] {
        let mut child = tapebuf()
            .args(["-q", flag, "/dev/stdout"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The input stays open: a run that went on would wait for more.
        let mut input = child.stdin.take().unwrap();
        let _ = input.write_all(&pattern(100_000, 40));
        let (code, stderr, stdout) = ended(child);
        drop(input);
        assert_eq!(code, Some(2), "{flag}: {stderr}");
        assert_eq!(
            stderr.trim_end(),
            format!(
                "tapebuf: {flag} /dev/stdout: is the same file as standard output; \
                 what is written there would be mixed into the data"
            )
        );
        assert!(stdout.is_empty(), "{flag}: data was written");
    }
}

// issue 45 finding 1: --stats, -l or -o naming the stdin pipe that
// carries the input fed tapebuf its own output, and never ended.
#[test]
fn a_report_file_or_output_that_is_the_stdin_pipe_is_refused_without_waiting() {
    for flag in ["--stats", "-l", "-o"] {
        let child = tapebuf()
            .args(["-q", flag, "/dev/stdin"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut child = child;
        let input = child.stdin.take().unwrap();
        let (code, stderr, _) = ended(child);
        drop(input);
        assert_eq!(code, Some(2), "{flag}: {stderr}");
        assert_eq!(
            stderr.trim_end(),
            format!(
                "tapebuf: {flag} /dev/stdin: is the same file as standard input; \
                 the run would read what it writes there, and never end"
            )
        );
    }
}

// issue 45 finding 6: --catalog's file named again by -l, --stats,
// --summary-json or --hash-file destroyed one or the other.
#[test]
fn a_report_file_that_is_the_catalog_is_refused_before_any_byte() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("src.bin"), pattern(200_000, 41)).unwrap();
    let earlier = pattern(5000, 42);
    for (flags, there) in [
        (&["-l"][..], false),
        (&["--stats"], true),
        (&["--summary-json"], false),
    ]
    .into_iter()
    .chain([(&["--hash", "xxh3", "--hash-file"][..], true)])
    {
        let catalog = dir.path().join("home.catalog");
        let _ = std::fs::remove_file(&catalog);
        if there {
            std::fs::write(&catalog, &earlier).unwrap();
        }
        let mut args = vec![
            "-q",
            "-i",
            "src.bin",
            "-o",
            "out.bin",
            "--manifest",
            "home.json",
        ];
        args.extend(["--catalog"]);
        args.extend(flags);
        args.push("./home.catalog");
        let (code, stderr) = run_in(dir.path(), &args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        let flag = flags.last().unwrap();
        assert_eq!(
            stderr.trim_end(),
            format!(
                "tapebuf: {flag} ./home.catalog: is the same file as --catalog home.catalog; \
                 one would overwrite the other"
            )
        );
        assert!(!dir.path().join("out.bin").exists(), "{args:?}");
        assert!(!dir.path().join("home.json").exists(), "{args:?}");
        match there {
            true => assert_eq!(std::fs::read(&catalog).unwrap(), earlier),
            false => assert!(!catalog.exists(), "{args:?}"),
        }
    }
}

// issue 45 finding 11 (the identity part): report's picture written over
// the recording it reads.
#[test]
fn report_refuses_a_picture_over_the_recording_it_reads() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("src.bin"), pattern(200_000, 43)).unwrap();
    let (code, stderr) = run_in(
        d,
        &["-q", "-i", "src.bin", "-o", "out.bin", "--stats", "st.json"],
    );
    assert_eq!(code, Some(0), "{stderr}");
    std::os::unix::fs::symlink("st.json", d.join("link.json")).unwrap();
    let before = sha256_file(&d.join("st.json"));
    for out in ["st.json", "./st.json", "link.json"] {
        let (code, stderr) = run_in(d, &["report", "st.json", "-o", out]);
        assert_eq!(code, Some(2), "{out}: {stderr}");
        assert_eq!(
            stderr.trim_end(),
            format!(
                "tapebuf: report: -o {out}: is the same file as st.json, the recording read; \
                 writing it there would destroy what the run reads"
            )
        );
        assert_eq!(sha256_file(&d.join("st.json")), before, "{out}");
    }
}

// issue 45 finding 1, for the commands whose standard output carries
// their answer: the one path they take must not be that pipe.
#[test]
fn a_commands_path_that_is_its_own_stdout_pipe_is_refused() {
    let cases: [&[&str]; 5] = [
        &["probe", "/dev/stdout", "-f"],
        &["drive", "/dev/stdout"],
        &["library", "/dev/stdout"],
        &["report", "/dev/stdout"],
        &["ls", "--catalog", "/dev/stdout"],
    ];
    for args in cases {
        let child = tapebuf()
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (code, stderr, stdout) = ended(child);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{args:?}: {stderr}");
        assert!(
            lines[0].contains("/dev/stdout: is the same file as standard output; ")
                || (lines[0].contains("/dev/stdout")
                    && lines[0].ends_with(": is a FIFO or pipe; it must be a regular file")),
            "{args:?}: {stderr}"
        );
        assert!(stdout.is_empty(), "{args:?}");
    }
}
