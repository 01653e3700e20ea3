//! Bad input and failures: each gives one clear `tapebuf: ...` line, the
//! documented exit status, and never loses data silently.

mod common;

use std::io::Read;
use std::process::Stdio;

use common::*;

fn error_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| !l.starts_with("tapebuf: summary: "))
        .collect()
}

#[test]
fn unknown_option_is_a_usage_error_with_one_line() {
    let out = run(&["--frobnicate"], vec![]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(out.stderr.lines().count(), 1, "{:?}", out.stderr);
    assert!(out.stderr.starts_with("tapebuf: "), "{}", out.stderr);
    assert!(out.stderr.contains("--frobnicate"), "{}", out.stderr);
}

#[test]
fn a_missing_argument_is_named_in_the_one_line() {
    let out = run(&["report"], vec![]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        out.stderr.trim_end(),
        "tapebuf: report: the following required arguments were not provided: <FILE> \
         (see 'tapebuf report --help')"
    );
}

#[test]
fn a_misspelt_option_keeps_the_suggestion() {
    let out = run(&["--ouptut", "x"], vec![]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert_eq!(
        out.stderr.trim_end(),
        "tapebuf: unexpected argument '--ouptut' found; a similar argument exists: \
         '--output' (see 'tapebuf --help')"
    );
}

#[test]
fn a_negative_watermark_names_the_flag() {
    let out = run(&["-P", "-5"], vec![]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        out.stderr.trim_end(),
        "tapebuf: -P/--high-watermark: '-5' is not a percentage from 0 to 100"
    );
}

#[test]
fn a_negative_number_of_seconds_names_the_flag() {
    let out = run(&["--timeout", "-1"], vec![]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    assert!(
        out.stderr
            .starts_with("tapebuf: invalid value '-1' for '--timeout <SECS>'"),
        "{}",
        out.stderr
    );
}

#[test]
fn block_size_larger_than_memory_names_both_flags() {
    let out = run(&["-s", "4M", "-m", "1M"], vec![]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        out.stderr.trim_end(),
        "tapebuf: -s/--block-size: the block size 4.00 MiB is larger than -m/--memory 1.00 MiB"
    );
}

#[test]
fn high_watermark_over_100_is_refused() {
    let out = run(&["-P", "120"], vec![]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        out.stderr.trim_end(),
        "tapebuf: -P/--high-watermark: '120' is not a percentage from 0 to 100"
    );
}

#[test]
fn bad_size_names_the_flag() {
    let out = run(&["-m", "lots"], vec![]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        out.stderr
            .starts_with("tapebuf: -m/--memory: 'lots' is not a size"),
        "{}",
        out.stderr
    );
}

#[test]
fn missing_input_file_is_an_io_error_naming_the_path() {
    let out = run(&["-i", "/nonexistent/home.tar"], vec![]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        out.stderr.trim_end(),
        "tapebuf: -i /nonexistent/home.tar: cannot open: No such file or directory (os error 2)"
    );
}

#[test]
fn existing_output_file_is_refused_without_force_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.tar");
    std::fs::write(&path, b"yesterday's backup").unwrap();
    let out = run(&["-o", path.to_str().unwrap()], pattern(1000, 1));
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        out.stderr.trim_end(),
        format!(
            "tapebuf: -o/--output: {}: already exists; use -f/--force to overwrite it or --append to add to it",
            path.display()
        )
    );
    assert_eq!(std::fs::read(&path).unwrap(), b"yesterday's backup");
}

#[test]
fn harmless_devices_are_accepted_as_outputs() {
    // Other character devices are refused: see tests/devices.rs.
    let out = run(&["-o", "/dev/null", "-o", "/dev/zero"], pattern(100_000, 1));
    assert!(out.status.success(), "{}", out.stderr);
}

#[test]
fn output_to_dev_full_fails_with_the_byte_offset() {
    let out = run(&["-s", "64k", "-o", "/dev/full"], pattern(1 << 20, 1));
    assert_eq!(out.status.code(), Some(1), "{}", out.stderr);
    let errors = error_lines(&out.stderr);
    assert_eq!(
        errors,
        vec!["tapebuf: /dev/full: write failed at byte 0: No space left on device (os error 28)"]
    );
    let line = summary_line(&out.stderr);
    assert!(line.contains("FAILED /dev/full"), "{line}");
    assert!(line.contains("bytes read but not committed"), "{line}");
}

#[test]
fn one_failed_output_does_not_stop_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good");
    let input = pattern(2 << 20, 4);
    let out = run(
        &[
            "-s",
            "64k",
            "-b",
            "4",
            "-o",
            "/dev/full",
            "-o",
            good.to_str().unwrap(),
        ],
        input.clone(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", out.stderr);
    assert_eq!(sha256_file(&good), sha256(&input));
    let line = summary_line(&out.stderr);
    assert!(
        line.contains("FAILED /dev/full: write failed at byte 0"),
        "{line}"
    );
    assert_eq!(summary_number(&out.stderr, "out "), input.len() as u64);
}

#[test]
fn stdout_closed_early_is_an_error_not_a_success() {
    let mut child = spawn_piped(&["-s", "4k", "-b", "4"]);
    let feeder = feed_stdin(&mut child, pattern(8 << 20, 3), Feed::Fast);
    let mut stdout = child.stdout.take().unwrap();
    let mut first = vec![0u8; 8192];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout); // like `head -c 8192` exiting
    let (status, stderr) = finish(&mut child);
    feeder.join().unwrap();
    assert_eq!(status.code(), Some(1), "{stderr}");
    let errors = error_lines(&stderr);
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(
        errors[0].starts_with("tapebuf: stdout: output closed after ")
            && errors[0].ends_with(" bytes"),
        "{stderr}"
    );
    assert!(
        summary_line(&stderr).contains("bytes read but not committed"),
        "{stderr}"
    );
}

#[test]
fn memory_that_cannot_be_had_is_reported_at_start() {
    // Limit the address space so the ring cannot be mapped.
    let out = std::process::Command::new("sh")
        .args([
            "-c",
            &format!("ulimit -v 300000; exec {BIN} -m 1G -s 1M </dev/null"),
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.starts_with("tapebuf: -m/--memory: cannot allocate 1024 blocks of 1048576 bytes"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn quiet_still_reports_failures() {
    let out = run(&["-q", "-o", "/dev/full"], pattern(1000, 1));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        out.stderr
            .contains("tapebuf: /dev/full: write failed at byte 0"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("tapebuf: summary: "), "{}", out.stderr);
}

#[test]
fn input_read_error_names_the_input_and_offset() {
    // Reading a process's memory at address 0 fails with EIO.
    let out = run(&["-i", "/proc/self/mem"], vec![]);
    assert_eq!(out.status.code(), Some(1), "{}", out.stderr);
    assert_eq!(
        error_lines(&out.stderr),
        vec!["tapebuf: /proc/self/mem: read failed at byte 0: Input/output error (os error 5)"]
    );
    assert!(
        summary_line(&out.stderr).ends_with("; INPUT FAILED"),
        "{}",
        out.stderr
    );
}

#[test]
fn help_and_version_succeed_on_stdout() {
    let out = run(&["--help"], vec![]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("--high-watermark"));
    assert_eq!(out.stderr, "");
    let out = run(&["--version"], vec![]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "tapebuf 0.1.0");
}

#[test]
fn broken_stderr_does_not_abort_the_backup() {
    // stderr is a pipe whose reader is already gone: the summary cannot be
    // printed, but the data must still go through, with success.
    let (read_end, write_end) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).unwrap();
    drop(read_end);
    let input = pattern(300_000, 8);
    let mut child = tapebuf()
        .args(["-s", "4k"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(write_end))
        .spawn()
        .unwrap();
    let feeder = feed_stdin(&mut child, input.clone(), Feed::Fast);
    let drainer = drain_stdout(&mut child, Drain::Fast);
    let status = child.wait().unwrap();
    feeder.join().unwrap();
    assert_eq!(sha256(&drainer.join().unwrap()), sha256(&input));
    assert_eq!(status.code(), Some(0), "{status:?}");
}

#[test]
fn lock_failure_names_the_lock_flag() {
    needs::root("setpriv drops to nobody, whom prlimit denies locked memory");
    needs::tool("prlimit", "util-linux");
    needs::tool("setpriv", "util-linux");
    // Root may always lock memory, so run as nobody with no lock allowance.
    let out = std::process::Command::new("prlimit")
        .args(["--memlock=0:0", "setpriv", "--reuid=65534", "--regid=65534"])
        .args([
            "--clear-groups",
            "--inh-caps=-all",
            BIN,
            "-L",
            "-s",
            "64k",
            "-b",
            "4",
        ])
        .stdin(Stdio::null())
        .output()
        .expect("prlimit and setpriv from util-linux");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(
        stderr.trim_end(),
        "tapebuf: -L/--lock: cannot lock 262144 bytes in memory: Operation not permitted (os error 1) \
         (raise 'ulimit -l', or run with CAP_IPC_LOCK)"
    );
}

/// Runs tapebuf in a private mount namespace whose `disk` is a 5 MiB
/// tmpfs, writing `input` to `disk/NAME` with 3000-byte blocks, so the
/// disk fills in the middle of a block. Returns the status, stderr, and
/// the bytes that reached the disk, file by file (copied off it before
/// the namespace goes).
#[track_caller]
fn fill_a_small_disk(input: &[u8], name: &str) -> (std::process::ExitStatus, String, Vec<Vec<u8>>) {
    needs::root("unshare --mount and mount a small tmpfs");
    needs::tool("unshare", "util-linux");
    let dir = tempfile::tempdir().unwrap();
    let input_path = dir.path().join("in");
    std::fs::write(&input_path, input).unwrap();
    let (mnt, keep) = (dir.path().join("disk"), dir.path().join("kept"));
    std::fs::create_dir(&mnt).unwrap();
    std::fs::create_dir(&keep).unwrap();
    let script = format!(
        "mount -t tmpfs -o size=5m none {mnt} && {bin} -s 3000 -i {input} -o '{mnt}/{name}'; s=$?; cp {mnt}/* {keep}/; exit $s",
        mnt = mnt.display(),
        keep = keep.display(),
        bin = BIN,
        input = input_path.display(),
    );
    let out = std::process::Command::new("unshare")
        .args(["--mount", "sh", "-c", &script])
        .stdin(Stdio::null())
        .output()
        .expect("unshare(1) from util-linux; needs root");
    let mut names: Vec<_> = std::fs::read_dir(&keep)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    let files = names.iter().map(|p| std::fs::read(p).unwrap()).collect();
    (
        out.status,
        String::from_utf8_lossy(&out.stderr).into_owned(),
        files,
    )
}

/// The "out N bytes" count of the summary line.
fn out_count(stderr: &str) -> u64 {
    stderr
        .lines()
        .find_map(|l| l.strip_prefix("tapebuf: summary: "))
        .and_then(|l| l.split("out ").nth(1))
        .and_then(|l| l.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no summary in {stderr}"))
}

#[test]
fn a_disk_that_fills_mid_block_counts_exactly_the_bytes_it_holds() {
    let data = pattern(6 << 20, 31);
    let (status, stderr, files) = fill_a_small_disk(&data, "backup");
    assert_eq!(status.code(), Some(1), "{stderr}");
    let held = &files[0];
    assert_eq!(held[..], data[..held.len()]);
    assert_ne!(held.len() % 3000, 0, "the disk filled mid-block");
    assert_eq!(out_count(&stderr), held.len() as u64, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "write failed at byte {}: No space left",
            held.len()
        )),
        "{stderr}"
    );
    assert!(stderr.contains("bytes read but not committed"), "{stderr}");
}

#[test]
fn numbered_volumes_on_a_full_disk_agree_with_the_summary_total() {
    let data = pattern(6 << 20, 32);
    let (status, stderr, files) = fill_a_small_disk(&data, "w.%02d");
    assert_eq!(status.code(), Some(1), "{stderr}");
    let held: Vec<u8> = files.concat();
    assert_eq!(held[..], data[..held.len()]);
    assert_eq!(out_count(&stderr), held.len() as u64, "{stderr}");
    let line = stderr
        .lines()
        .find(|l| l.starts_with("tapebuf: summary: "))
        .unwrap();
    assert!(
        line.contains(&format!("volumes: #1 {} bytes", files[0].len())),
        "{line}"
    );
}

#[test]
fn a_file_that_shrinks_while_it_is_read_fails_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("growing.log");
    std::fs::write(&path, pattern(1 << 20, 33)).unwrap();
    // A FIFO output that nobody reads yet holds tapebuf after its first
    // blocks; the file is cut short meanwhile.
    let fifo = dir.path().join("out");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    let mut child = tapebuf()
        .args(["-s", "4k", "-m", "16k", "-i"])
        .arg(&path)
        .arg("-o")
        .arg(&fifo)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut reader = std::fs::File::open(&fifo).unwrap();
    let mut first = vec![0u8; 4096];
    reader.read_exact(&mut first).unwrap();
    // The ring (16 KiB), the blocks in hand and the FIFO's buffer (64 KiB)
    // hold well under 200 KiB, so the reader has not got that far.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(200 * 1024)
        .unwrap();
    let mut rest = Vec::new();
    reader.read_to_end(&mut rest).unwrap();
    let (status, stderr) = finish(&mut child);
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert_eq!(first.len() + rest.len(), 200 * 1024);
    assert!(
        stderr.contains("the file shrank while it was read: it had 1048576 bytes to read when the run started, and ended after 204800"),
        "{stderr}"
    );
    assert!(stderr.contains("INPUT FAILED"), "{stderr}");
}
