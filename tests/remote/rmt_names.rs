//! Remote names as the real binary reads them, before any session: a name
//! that is remote by the HOST:PATH rule but not UTF-8 is a usage error and
//! never a local file, `--force-local` and `./NAME` keep such names local,
//! and with `--rmt-flavor bsd` a path the server would read cut in two is
//! refused before the remote shell starts. GNU rmt reads any length; Linux
//! dump's rmt-dump, a second real server (and Debian's /usr/sbin/rmt once
//! dump is installed), cuts like BSD, and with the default `gnu` flavour a
//! path it would cut is found out and refused before it is sent.

use crate::common;

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Stdio;

use common::{pattern, sha256, sha256_file, BIN};

const GNU_RMT: &str = "/usr/sbin/rmt-tar";
const BAD_NAME: &[u8] = b"vault:backup\xff.tar";

struct Ran {
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
}

/// Runs tapebuf in `dir` with `args`, feeding `input` from a thread.
fn run_in(dir: &Path, args: &[&OsStr], input: &[u8]) -> Ran {
    let mut child = crate::common::command(BIN)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let feeder = common::feed_stdin(&mut child, input.to_vec(), common::Feed::Fast);
    let drainer = common::drain_stdout(&mut child, common::Drain::Fast);
    let (status, stderr) = common::finish(&mut child);
    feeder.join().unwrap();
    Ran {
        code: status.code(),
        stdout: drainer.join().unwrap(),
        stderr,
    }
}

fn os(text: &str) -> &OsStr {
    OsStr::new(text)
}

/// A remote shell that only leaves a mark that it was started, then fails.
fn marking_rsh(dir: &Path) -> (String, std::path::PathBuf) {
    let mark = dir.join("rsh-started");
    let path = dir.join("rsh");
    std::fs::write(
        &path,
        format!("#!/bin/sh\n: > '{}'\nexit 1\n", mark.display()),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    (path.display().to_string(), mark)
}

fn entries(dir: &Path) -> Vec<OsString> {
    let mut names: Vec<OsString> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    names
}

/// The one line a non-UTF-8 remote name gets, for `flag`.
fn not_utf8_refusal(flag: &str) -> String {
    format!(
        "tapebuf: {flag}: vault:backup\\xff.tar: a remote name (HOST:PATH) must be valid \
         UTF-8; for a local file, write ./vault:backup\\xff.tar or give --force-local\n"
    )
}

#[test]
fn a_remote_name_that_is_not_utf8_is_refused_and_never_written_locally() {
    let tools = tempfile::tempdir().unwrap();
    let (rsh, mark) = marking_rsh(tools.path());
    let work = tempfile::tempdir().unwrap();
    let bad = OsStr::from_bytes(BAD_NAME);
    let ran = run_in(
        work.path(),
        &[os("-o"), bad, os("--rsh-command"), os(&rsh)],
        b"data that must not land in ./vault:backup?.tar",
    );
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert_eq!(ran.stderr, not_utf8_refusal("-o/--output"));
    assert_eq!(
        entries(work.path()),
        Vec::<OsString>::new(),
        "nothing is created"
    );
    assert!(!mark.exists(), "no remote shell is started");

    // As an input, a local file of that name is not read in its place.
    std::fs::write(work.path().join(bad), b"local bytes").unwrap();
    let ran = run_in(
        work.path(),
        &[
            os("-i"),
            bad,
            os("-o"),
            os("out"),
            os("--rsh-command"),
            os(&rsh),
        ],
        b"",
    );
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert_eq!(ran.stderr, not_utf8_refusal("-i/--input"));
    assert!(ran.stdout.is_empty());
    assert!(!work.path().join("out").exists());
    assert!(!mark.exists());
}

#[test]
fn force_local_and_a_dot_slash_keep_such_a_name_local() {
    let work = tempfile::tempdir().unwrap();
    let data = pattern(100_000, 13);
    let bad = OsStr::from_bytes(BAD_NAME);
    let ran = run_in(work.path(), &[os("--force-local"), os("-o"), bad], &data);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert_eq!(sha256_file(&work.path().join(bad)), sha256(&data));

    let dotted = OsString::from_vec([b"./".as_slice(), BAD_NAME, b".2"].concat());
    let ran = run_in(work.path(), &[os("-o"), &dotted], &data);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert_eq!(sha256_file(&work.path().join(&dotted)), sha256(&data));

    let ran = run_in(work.path(), &[os("--force-local"), os("-i"), bad], b"");
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert_eq!(sha256(&ran.stdout), sha256(&data));
}

/// `vault:` and a path of exactly `len` bytes.
fn remote_of_path_len(dir: &Path, len: usize) -> (String, String) {
    let prefix = format!("{}/", dir.display());
    assert!(len > prefix.len() + 2);
    let path = format!("{prefix}{}I6", "x".repeat(len - prefix.len() - 2));
    assert_eq!(path.len(), len);
    (format!("vault:{path}"), path)
}

#[test]
fn bsd_flavor_refuses_a_path_the_server_would_cut_before_starting_the_remote_shell() {
    let tools = tempfile::tempdir().unwrap();
    let (rsh, mark) = marking_rsh(tools.path());
    let work = tempfile::tempdir().unwrap();
    let (name, _) = remote_of_path_len(Path::new("/srv/backup"), 128);
    let common = [os("--rmt-flavor"), os("bsd"), os("--rsh-command"), os(&rsh)];
    for (flag, shown) in [("-o", "-o/--output"), ("-i", "-i/--input")] {
        let mut args = vec![os(flag), os(&name)];
        args.extend_from_slice(&common);
        let ran = run_in(work.path(), &args, b"abc");
        assert_eq!(ran.code, Some(2), "{}", ran.stderr);
        assert_eq!(
            ran.stderr,
            format!(
                "tapebuf: {shown}: {name}: the remote path is 128 bytes, but a BSD rmt server \
                 (--rmt-flavor bsd) reads at most 62 bytes per argument (63 with its newline) \
                 and would run the rest as another request\n"
            )
        );
        assert!(!mark.exists(), "{flag}: the remote shell must not start");
    }
    assert_eq!(entries(work.path()), Vec::<OsString>::new());

    // 62 bytes fit: the configuration is accepted and the shell starts.
    let (name, _) = remote_of_path_len(Path::new("/srv/backup"), 62);
    let mut args = vec![os("-o"), os(&name)];
    args.extend_from_slice(&common);
    let ran = run_in(work.path(), &args, b"abc");
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    assert!(mark.exists(), "a 62-byte path reaches the remote shell");
}

/// Writes `data` through the test remote shell to `server`, at a path of
/// `len` bytes under `root`; returns the run, the remote name and the path.
fn write_remote(root: &Path, len: usize, server: &str, data: &[u8]) -> (Ran, String, String) {
    let rsh = format!("{}/tests/fixtures/rsh", env!("CARGO_MANIFEST_DIR"));
    let (name, path) = remote_of_path_len(root, len);
    let args = [
        os("-o"),
        os(&name),
        os("--rsh-command"),
        os(&rsh),
        os("--rmt-command"),
        os(server),
    ];
    (run_in(root, &args, data), name, path)
}

#[test]
fn gnu_flavor_takes_a_path_longer_than_bsd_could() {
    common::needs::tool(GNU_RMT, "tar");
    let work = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(work.path()).unwrap();
    let data = pattern(300_000, 17);
    let (ran, _, path) = write_remote(&root, 200, GNU_RMT, &data);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert_eq!(sha256_file(Path::new(&path)), sha256(&data));
}

/// Linux dump's rmt server, which Debian makes `/usr/sbin/rmt` whenever the
/// `dump` package is installed: it reads at most 62 bytes of a path.
const DUMP_RMT: &str = "/usr/sbin/rmt-dump";

#[test]
fn a_path_the_dump_server_would_cut_is_refused_before_it_is_sent() {
    common::needs::tool(DUMP_RMT, "dump");
    let work = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(work.path()).unwrap();
    let (ran, name, path) = write_remote(&root, 63, DUMP_RMT, &pattern(300_000, 18));
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    assert_eq!(
        ran.stderr,
        format!(
            "tapebuf: -o {name}: cannot open it over rmt: the rmt server on {host} reads at \
             most 62 bytes of a path (a BSD rmt, or Linux dump's rmt-dump), and this path is \
             63 bytes: it would open the wrong file and run the rest as requests; give a path \
             of at most 62 bytes (a symlink on {host}), or a server that reads whole lines with \
             --rmt-command (GNU rmt is /usr/sbin/rmt-tar on Debian)\n",
            host = name.split(':').next().unwrap(),
        )
    );
    assert!(!Path::new(&path).exists());
    // Nothing at the cut-off path either: the probe opened "/" read-only.
    let cut = &path[..62];
    assert!(!Path::new(cut).exists(), "{cut} was created");
}

#[test]
fn the_dump_server_takes_a_62_byte_path_and_gnu_rmt_a_long_one() {
    common::needs::tool(DUMP_RMT, "dump");
    common::needs::tool(GNU_RMT, "tar");
    let work = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(work.path()).unwrap();
    for (len, server) in [(62, DUMP_RMT), (63, GNU_RMT), (250, GNU_RMT)] {
        let data = pattern(200_000, len as u64);
        let (ran, _, path) = write_remote(&root, len, server, &data);
        assert_eq!(ran.code, Some(0), "{len} bytes to {server}: {}", ran.stderr);
        assert_eq!(sha256_file(Path::new(&path)), sha256(&data), "{len} bytes");
        std::fs::remove_file(&path).unwrap();
    }
}
