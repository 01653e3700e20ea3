//! `tapebuf rmt` end to end: GNU tar as a real client through the rsh
//! stand-in, and hostile or malformed requests sent straight to the
//! binary's standard input. Every test asserts exact replies, bytes or
//! checksums and a clean exit status (0 or 1, never a signal or a panic).

mod common;

use std::io::{Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};

use common::{pattern, sha256, sha256_file, BIN};

const RSH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/rsh");

/// What the server replied and how it ended.
struct Served {
    status: ExitStatus,
    replies: Vec<u8>,
    stderr: String,
}

impl Served {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.replies).into_owned()
    }

    /// Asserts a clean exit with `code`: no signal, no panic.
    fn exited(&self, code: i32) -> &Served {
        assert_eq!(self.status.signal(), None, "killed by a signal");
        assert_eq!(
            self.status.code(),
            Some(code),
            "replies {:?}, stderr {:?}",
            self.text(),
            self.stderr
        );
        self
    }
}

/// Runs `tapebuf rmt ARGS` with `input` on stdin (fed from a thread).
fn serve(args: &[&str], input: impl Into<Vec<u8>>) -> Served {
    let mut all = vec!["rmt"];
    all.extend_from_slice(args);
    let out = common::run(&all, input.into());
    Served {
        status: out.status,
        replies: out.stdout,
        stderr: out.stderr,
    }
}

/// Runs the server as `command` starts it, with `input` on stdin.
fn serve_command(mut command: Command, input: impl Into<Vec<u8>>) -> Served {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let feeder = common::feed_stdin(&mut child, input.into(), common::Feed::Fast);
    let drainer = common::drain_stdout(&mut child, common::Drain::Fast);
    let (status, stderr) = common::finish(&mut child);
    feeder.join().unwrap();
    Served {
        status,
        replies: drainer.join().unwrap(),
        stderr,
    }
}

/// A scratch directory, canonical, with an `allowed` directory inside.
struct Scratch {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Scratch {
    fn new() -> Scratch {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir(root.join("allowed")).unwrap();
        Scratch { _dir: dir, root }
    }

    fn path(&self, rest: &str) -> PathBuf {
        self.root.join(rest)
    }

    fn s(&self, rest: &str) -> String {
        self.path(rest).display().to_string()
    }

    /// `--allow ROOT/allowed/**`, with no system configuration file.
    fn allow_args(&self) -> Vec<String> {
        vec![
            "--config".into(),
            "/dev/null".into(),
            "--allow".into(),
            format!("{}/allowed/**", self.root.display()),
        ]
    }

    fn serve(&self, extra: &[&str], input: impl Into<Vec<u8>>) -> Served {
        let owned = self.allow_args();
        let mut args: Vec<&str> = owned.iter().map(String::as_str).collect();
        args.extend_from_slice(extra);
        serve(&args, input)
    }
}

const E9: &str = "E9\nBad file descriptor: no device is open\n";

// ---- GNU tar as the client ----------------------------------------------

const TAR_OPTIONS: &[&str] = &[
    "--format=gnu",
    "--sort=name",
    "--mtime=@1000000000",
    "--owner=0",
    "--group=0",
    "--numeric-owner",
];

fn source_tree(root: &Path) -> Vec<(&'static str, Vec<u8>)> {
    let files = vec![
        ("big.bin", pattern(3 * 1024 * 1024 + 1234, 7)),
        ("empty", Vec::new()),
        ("notes.txt", b"rmt test\n".to_vec()),
        ("sub/deeper/small.bin", pattern(10_000, 8)),
    ];
    for (name, data) in &files {
        let path = root.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, data).unwrap();
    }
    files
}

/// `tar ARGS` with the rsh stand-in and `tapebuf rmt SERVER_ARGS` as
/// the remote command (the pattern quoted, as a remote shell needs).
fn remote_tar(args: &[&str], server_args: &str) -> std::process::Output {
    common::needs::tool("tar", "tar");
    Command::new("tar")
        .args(args)
        .arg(format!("--rsh-command={RSH}"))
        .arg(format!(
            "--rmt-command={BIN} rmt --config /dev/null {server_args}"
        ))
        .output()
        .expect("running tar")
}

#[test]
fn gnu_tar_archives_and_extracts_through_the_server_byte_exact() {
    let s = Scratch::new();
    let src = s.path("src");
    let files = source_tree(&src);
    let archive = s.path("allowed/backup.tar");
    let allow = format!("--allow '{}/**'", s.s("allowed"));
    let remote = format!("localhost:{}", archive.display());

    let mut create = vec!["cf", remote.as_str()];
    create.extend_from_slice(TAR_OPTIONS);
    let src_s = src.display().to_string();
    create.extend_from_slice(&["-C", &src_s, "."]);
    let out = remote_tar(&create, &allow);
    assert!(
        out.status.success(),
        "tar cf: {}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The same archive as tar makes locally.
    let local = s.path("local.tar");
    let local_s = local.display().to_string();
    let mut local_args = vec!["cf", local_s.as_str()];
    local_args.extend_from_slice(TAR_OPTIONS);
    local_args.extend_from_slice(&["-C", &src_s, "."]);
    assert!(Command::new("tar")
        .args(&local_args)
        .status()
        .unwrap()
        .success());
    assert_eq!(sha256_file(&archive), sha256_file(&local));

    let listed = remote_tar(&["tf", &remote], &allow);
    assert!(listed.status.success());
    let names = String::from_utf8(listed.stdout).unwrap();
    for (name, _) in &files {
        assert!(
            names.lines().any(|l| l == format!("./{name}")),
            "{name} in {names}"
        );
    }

    let dest = s.path("dest");
    std::fs::create_dir(&dest).unwrap();
    let dest_s = dest.display().to_string();
    let out = remote_tar(&["xf", &remote, "-C", &dest_s], &allow);
    assert!(
        out.status.success(),
        "tar xf: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (name, data) in &files {
        assert_eq!(sha256_file(&dest.join(name)), sha256(data), "{name}");
    }
}

#[test]
fn gnu_tar_is_refused_outside_the_allowed_paths() {
    let s = Scratch::new();
    std::fs::write(s.path("file"), b"x").unwrap();
    let outside = s.path("elsewhere.tar");
    let remote = format!("localhost:{}", outside.display());
    let allow = format!("--allow '{}/**'", s.s("allowed"));
    let out = remote_tar(&["cf", &remote, "-C", &s.s(""), "file"], &allow);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("Cannot open: Permission denied"),
        "{stderr}"
    );
    assert!(!outside.exists());
}

// ---- the session --------------------------------------------------------

#[test]
fn writes_then_reads_back_and_keeps_serving_after_close() {
    let s = Scratch::new();
    let f = s.s("allowed/a.tar");
    let input = format!(
        "O{f}\n577 O_WRONLY|O_CREAT|O_TRUNC\nW6\nabcdefC\nO{f}\n0 O_RDONLY\nR4\nR4\nR4\nL0\n0\nR2\nC\n"
    );
    let served = s.serve(&[], input);
    served.exited(0);
    assert_eq!(
        served.text(),
        "A0\nA6\nA0\nA0\nA4\nabcdA2\nefA0\nA0\nA2\nabA0\n"
    );
    assert_eq!(served.stderr, "", "stderr stays clean");
}

#[test]
fn large_pipelined_writes_arrive_intact() {
    let s = Scratch::new();
    let f = s.s("allowed/big.tar");
    let data = pattern(32 << 20, 3);
    let mut input = format!("O{f}\n65 O_WRONLY|O_CREAT\n").into_bytes();
    let mut expected = b"A0\n".to_vec();
    for record in data.chunks(256 * 1024) {
        input.extend_from_slice(format!("W{}\n", record.len()).as_bytes());
        input.extend_from_slice(record);
        expected.extend_from_slice(format!("A{}\n", record.len()).as_bytes());
    }
    input.extend_from_slice(b"C\n");
    expected.extend_from_slice(b"A0\n");
    let served = s.serve(&[], input);
    served.exited(0);
    assert_eq!(served.text(), String::from_utf8(expected).unwrap());
    assert_eq!(sha256_file(Path::new(&f)), sha256(&data));
}

#[test]
fn write_before_open_is_refused_and_the_stream_stays_in_step() {
    let s = Scratch::new();
    let f = s.s("allowed/a.tar");
    // The data of the first W looks like requests; it must not be read as such.
    let input = format!("W10\nX\nW1\nI6\n1\nO{f}\n65 O_WRONLY|O_CREAT\nW2\nokC\n");
    let served = s.serve(&[], input);
    served.exited(0);
    assert_eq!(served.text(), format!("{E9}A0\nA2\nA0\n"));
    assert_eq!(std::fs::read(&f).unwrap(), b"ok");
}

// ---- malformed and hostile requests -------------------------------------

#[test]
fn a_huge_write_count_is_refused_and_ends_the_session() {
    let served = serve(&["--config", "/dev/null"], "W99999999999\nS\n");
    served.exited(1);
    assert_eq!(
        served.text(),
        "E22\nInvalid argument: W count 99999999999 is above the maximum record size \
         of 67108864 bytes\n"
    );
}

#[test]
fn negative_counts_are_refused() {
    let served = serve(&["--config", "/dev/null"], "W-1\n");
    served.exited(1);
    assert_eq!(
        served.text(),
        "E22\nInvalid argument: W count -1 is negative\n"
    );

    // R and I keep the session: their arguments were consumed whole.
    let served = serve(&["--config", "/dev/null"], "R-1\nI-1\n1\nI6\n-1\nS\n");
    served.exited(0);
    assert_eq!(
        served.text(),
        format!(
            "E22\nInvalid argument: R count -1 is negative\n\
             E22\nInvalid argument: tape operation -1 is negative\n\
             E22\nInvalid argument: tape count -1 is negative\n{E9}"
        )
    );
}

#[test]
fn a_huge_read_count_is_clamped() {
    let s = Scratch::new();
    let f = s.path("allowed/empty");
    std::fs::write(&f, b"").unwrap();
    let g = s.path("allowed/small");
    std::fs::write(&g, b"0123456789").unwrap();
    let input = format!(
        "O{}\n0\nR99999999999\nO{}\n0\nR99999999999\n",
        f.display(),
        g.display()
    );
    let served = s.serve(&[], input);
    served.exited(0);
    assert_eq!(served.text(), "A0\nA0\nA0\nA10\n0123456789");
}

#[test]
fn an_overlong_path_is_refused_without_reading_on() {
    let mut input = b"O/".to_vec();
    input.extend(std::iter::repeat_n(b'a', 100 * 1024));
    input.extend_from_slice(b"\n0\n");
    let served = serve(&["--config", "/dev/null"], input);
    served.exited(1);
    assert_eq!(
        served.text(),
        "E36\nFile name too long: an argument of the O request is longer than 4096 bytes\n"
    );

    // A path line that never ends: the server must still stop.
    let mut child = common::spawn_piped(&["rmt", "--config", "/dev/null"]);
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        let chunk = vec![b'a'; 64 * 1024];
        let _ = stdin.write_all(b"O/");
        let mut sent = 0usize;
        while stdin.write_all(&chunk).is_ok() {
            sent += chunk.len();
            assert!(sent < 1 << 30, "the server read a gigabyte of path");
        }
    });
    let mut replies = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut replies)
        .unwrap();
    let (status, _) = common::finish(&mut child);
    feeder.join().unwrap();
    assert_eq!(status.code(), Some(1));
    assert!(replies.starts_with("E36\n"), "{replies:?}");
}

#[test]
fn paths_outside_the_allowed_directory_are_refused() {
    let s = Scratch::new();
    std::fs::write(s.path("secret"), b"x").unwrap();
    std::os::unix::fs::symlink(s.path("secret"), s.path("allowed/link")).unwrap();
    let input = format!(
        "O/etc/passwd\n0 O_RDONLY\nO{a}/../secret\n0 O_RDONLY\nO{a}/link\n0 O_RDONLY\nR10\n",
        a = s.s("allowed")
    );
    let served = s.serve(&[], input);
    served.exited(0);
    assert_eq!(
        served.text(),
        format!(
            "E13\nPermission denied: /etc/passwd is outside the allowed paths\n\
             E13\nPermission denied: {a}/../secret is outside the allowed paths\n\
             E13\nPermission denied: {a}/link is outside the allowed paths\n{E9}",
            a = s.s("allowed")
        )
    );
}

#[test]
fn garbage_commands_are_refused_and_end_the_session() {
    let served = serve(&["--config", "/dev/null"], "X\nS\n");
    served.exited(1);
    assert_eq!(served.text(), "E22\nGarbage command X\n");
    let served = serve(&["--config", "/dev/null"], b"\xff\n".to_vec());
    served.exited(1);
    assert_eq!(served.text(), "E22\nGarbage command \\xff\n");
}

#[test]
fn tape_requests_on_a_regular_file_fail_as_ioctls_do() {
    let s = Scratch::new();
    let f = s.s("allowed/a.tar");
    let input = format!("O{f}\n65 O_WRONLY|O_CREAT\nI6\n1\nS\nI99\n1\n");
    let served = s.serve(&[], input);
    served.exited(0);
    assert_eq!(
        served.text(),
        "A0\nE25\nInappropriate ioctl for device\nE25\nInappropriate ioctl for device\n\
         E22\nInvalid argument: tape operation 99 is not supported by this server\n"
    );
}

#[test]
fn seek_takes_gnu_order_and_refuses_a_bad_whence() {
    let s = Scratch::new();
    let f = s.s("allowed/a.tar");
    let input = format!("O{f}\n66 O_RDWR|O_CREAT\nW10\n0123456789L2\n-3\nR10\nL7\n0\nL1\n0\n");
    let served = s.serve(&[], input);
    served.exited(0);
    assert_eq!(
        served.text(),
        "A0\nA10\nA7\nA3\n789E22\nInvalid argument: seek direction \"7\" out of range \
         (GNU order: L<whence>\\n<offset>\\n)\nA10\n"
    );
}

#[test]
fn unknown_open_flags_are_refused() {
    let s = Scratch::new();
    let input = format!("O{}\n0 O_RDONLY|O_BOGUS\nS\n", s.s("allowed/a.tar"));
    let served = s.serve(&[], input);
    served.exited(0);
    assert_eq!(
        served.text(),
        format!("E22\nInvalid argument: unknown open flag \"O_BOGUS\"\n{E9}")
    );
}

#[test]
fn a_request_cut_off_by_the_end_of_input_ends_the_session_quietly() {
    for cut in ["O/dev/nst0\n", "W10\nabc", "I6\n", "L0\n"] {
        let served = serve(&["--config", "/dev/null"], cut);
        served.exited(1);
        assert_eq!(served.text(), "", "{cut:?}");
        assert_eq!(served.stderr, "");
    }
    serve(&["--config", "/dev/null"], "").exited(0);
}

/// A small deterministic generator, so that a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> usize {
        (self.next() % n) as usize
    }
}

#[test]
fn random_garbage_never_crashes_the_server() {
    let s = Scratch::new();
    let open = format!("O{}\n66 O_RDWR|O_CREAT\n", s.s("allowed/fuzz"));
    let pieces: [&[u8]; 12] = [
        open.as_bytes(),
        b"W3\nabc",
        b"W5\n",
        b"R5\n",
        b"R99999999999\n",
        b"I6\n1\n",
        b"I-3\n",
        b"S\n",
        b"L0\n0\n",
        b"L1\n-99\n",
        b"C\n",
        b"\n",
    ];
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for case in 0..120 {
        let mut input = Vec::new();
        for _ in 0..rng.below(12) {
            if rng.below(3) == 0 {
                input.extend(pattern(rng.below(64), rng.next()));
            } else {
                input.extend_from_slice(pieces[rng.below(pieces.len() as u64)]);
            }
        }
        let served = s.serve(&[], input.clone());
        assert_eq!(served.status.signal(), None, "case {case}: {input:?}");
        assert!(
            matches!(served.status.code(), Some(0 | 1)),
            "case {case}: {:?} for {input:?}",
            served.status
        );
        assert_eq!(served.stderr, "", "case {case}");
    }
}

// ---- policy, configuration and log --------------------------------------

#[test]
fn the_default_policy_refuses_plain_files_and_a_config_file_can_allow_them() {
    let s = Scratch::new();
    let f = s.s("allowed/a.tar");
    let input = format!("O{f}\n65 O_WRONLY|O_CREAT\nC\n");
    let served = serve(&["--config", "/dev/null"], input.clone());
    served.exited(0);
    assert_eq!(
        served.text(),
        format!("E13\nPermission denied: {f} is outside the allowed paths\n{E9}")
    );

    let conf = s.path("rmt.conf");
    std::fs::write(&conf, format!("# test\nallow {}/**\n", s.s("allowed"))).unwrap();
    let served = serve(&["--config", conf.to_str().unwrap()], input);
    served.exited(0);
    assert_eq!(served.text(), "A0\nA0\n");
    assert!(Path::new(&f).exists());
}

#[test]
fn configuration_and_command_line_errors_are_one_line_and_exit_2() {
    let s = Scratch::new();
    let conf = s.path("rmt.conf");
    std::fs::write(&conf, "allow /srv/**\npermit /etc/**\n").unwrap();
    let conf_s = conf.display().to_string();
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec!["--config", &conf_s],
            format!(
                "tapebuf rmt: {conf_s}:2: unknown directive 'permit' (expected 'allow \
                 PATTERN' or 'read-only')\n"
            ),
        ),
        (
            vec!["--config", "/nonexistent/rmt.conf"],
            "tapebuf rmt: /nonexistent/rmt.conf: No such file or directory\n".into(),
        ),
        (
            vec!["--config", "/dev/null", "--allow", "srv/*"],
            "tapebuf rmt: --allow srv/*: a pattern must be an absolute path\n".into(),
        ),
        (
            vec!["--bogus"],
            "tapebuf rmt: command line: unexpected argument '--bogus' found (see \
             'tapebuf rmt --help')\n"
                .into(),
        ),
    ];
    for (args, message) in cases {
        let served = serve(&args, "S\n");
        served.exited(2);
        assert_eq!(served.stderr, message);
        assert_eq!(served.text(), "", "no session starts");
    }
}

#[test]
fn read_only_refuses_opens_for_writing() {
    let s = Scratch::new();
    let f = s.s("allowed/a.tar");
    std::fs::write(&f, b"data").unwrap();
    let input = format!("O{f}\n1 O_WRONLY\nO{f}\n0 O_RDONLY\nR10\n");
    let served = s.serve(&["--read-only"], input);
    served.exited(0);
    assert_eq!(
        served.text(),
        format!(
            "E13\nPermission denied: {f}: this server is read-only and refuses O_WRONLY\n\
             A0\nA4\ndata"
        )
    );
}

#[test]
fn the_log_records_opens_refusals_and_closes_with_byte_counts() {
    let s = Scratch::new();
    let f = s.s("allowed/a.tar");
    let log = s.path("rmt.log");
    let input = format!("O/etc/shadow\n0 O_RDONLY\nO{f}\n65 O_WRONLY|O_CREAT\nW5\nhelloC\n");
    let mut args = vec!["rmt".to_string()];
    args.extend(s.allow_args());
    args.extend(["--log".into(), log.display().to_string()]);
    let mut command = Command::new(BIN);
    command.args(&args).env("SSH_CLIENT", "192.0.2.7 50122 22");
    serve_command(command, input).exited(0);

    let text = std::fs::read_to_string(&log).unwrap();
    let events: Vec<&str> = text
        .lines()
        .map(|l| {
            assert!(l.contains(" tapebuf-rmt["), "{l}");
            l.split_once(" from 192.0.2.7 port 50122: ")
                .unwrap_or_else(|| panic!("no client in {l}"))
                .1
        })
        .collect();
    assert_eq!(
        events,
        vec![
            format!("session start; policy: allow {}/**", s.s("allowed")),
            "open /etc/shadow O_RDONLY: refused: /etc/shadow is outside the allowed paths"
                .to_string(),
            format!("open {f} O_WRONLY|O_CREAT: allowed"),
            format!("close {f}: 5 bytes written, 0 bytes read"),
            "session end: end of input; 5 bytes written, 0 bytes read".to_string(),
        ]
    );
}

#[test]
fn answers_when_invoked_under_the_name_rmt() {
    let dir = tempfile::tempdir().unwrap();
    let rmt = dir.path().join("rmt");
    std::os::unix::fs::symlink(BIN, &rmt).unwrap();
    let out = Command::new(&rmt)
        .args(["--config", "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            child.stdin.take().unwrap().write_all(b"S\n")?;
            child.wait_with_output()
        })
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), E9);
}

#[test]
fn syslog_logging_never_disturbs_the_session() {
    // Whether or not a syslog daemon listens, the client sees only replies.
    let served = serve(
        &["--config", "/dev/null", "--syslog"],
        "O/etc/passwd\n0 O_RDONLY\nS\n",
    );
    served.exited(0);
    assert_eq!(
        served.text(),
        format!("E13\nPermission denied: /etc/passwd is outside the allowed paths\n{E9}")
    );
    assert_eq!(served.stderr, "");
}

#[test]
fn an_allowed_path_still_needs_the_users_own_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let s = Scratch::new();
    for dir in [s.path(""), s.path("allowed")] {
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let target = s.s("allowed/new.tar");
    // Through the rsh stand-in, as user nobody, who cannot write there.
    let mut command = Command::new(RSH);
    command
        .args(["localhost", BIN, "rmt", "--config", "/dev/null", "--allow"])
        .arg(format!("'{}/**'", s.s("allowed")))
        .env("TAPEBUF_TEST_RSH_USER", "65534");
    let served = serve_command(command, format!("O{target}\n65 O_WRONLY|O_CREAT\nS\n"));
    served.exited(0);
    assert_eq!(
        served.text(),
        format!("E13\nPermission denied: {target}\n{E9}")
    );
    assert!(!Path::new(&target).exists());
}

#[test]
fn refusals_reveal_nothing_beyond_the_path_sent_and_the_log_has_the_detail() {
    // The probes of issue 15, against the default policy (tape devices
    // only), from a known working directory.
    let s = Scratch::new();
    let log = s.path("rmt.log");
    let probes = [
        "/etc/./alternatives/awk",
        "/proc/self/./cwd",
        "/etc/./zzz",
        "/nonexist/./zzz",
        "/etc/passwd/./zzz",
        "/dev/./null",
    ];
    let input: String = probes
        .iter()
        .map(|p| format!("O{p}\n0 O_RDONLY\n"))
        .collect();
    let mut command = Command::new(BIN);
    command
        .args(["rmt", "--config", "/dev/null", "--log"])
        .arg(&log)
        .current_dir(s.path("allowed"));
    let served = serve_command(command, input);
    served.exited(0);
    assert_eq!(served.stderr, "");
    let replies = served.text();

    let lines: Vec<&str> = replies.lines().collect();
    assert_eq!(lines.len(), 2 * probes.len(), "{replies:?}");
    for (probe, reply) in probes.iter().zip(lines.chunks(2)) {
        assert_eq!(
            [reply[0].to_string(), reply[1].replace(probe, "PATH")],
            [
                "E13".to_string(),
                "Permission denied: PATH is outside the allowed paths".to_string()
            ],
            "{probe}"
        );
    }
    assert!(!replies.contains(&s.s("allowed")), "{replies}");
    assert!(!replies.contains("mawk") && !replies.contains("resolves"));

    let text = std::fs::read_to_string(&log).unwrap();
    let detail = |probe: &str| {
        text.lines()
            .find(|l| l.contains(&format!(": open {probe} O_RDONLY: refused: ")))
            .unwrap_or_else(|| panic!("no refusal of {probe} in {text}"))
            .split_once(": refused: ")
            .unwrap()
            .1
            .to_string()
    };
    assert_eq!(
        detail("/proc/self/./cwd"),
        format!(
            "/proc/self/./cwd resolves to {}, which is outside the allowed paths",
            s.s("allowed")
        )
    );
    assert_eq!(
        detail("/nonexist/./zzz"),
        "/nonexist/./zzz cannot be resolved (No such file or directory) and is outside the \
         allowed paths"
    );
    assert_eq!(
        detail("/etc/./zzz"),
        "/etc/./zzz resolves to /etc/zzz, which is outside the allowed paths"
    );
    assert_eq!(
        detail("/etc/passwd/./zzz"),
        "/etc/passwd/./zzz cannot be resolved (Not a directory) and is outside the allowed paths"
    );
    if let Ok(real) = std::fs::canonicalize("/etc/alternatives/awk") {
        assert_eq!(
            detail("/etc/./alternatives/awk"),
            format!(
                "/etc/./alternatives/awk resolves to {}, which is outside the allowed paths",
                real.display()
            )
        );
    }
}

// ---- signals --------------------------------------------------------------

/// A server logging to `rmt.log`, mid-session: `allowed/a.tar` is open
/// for writing and holds the first record, "abcdef".
fn session_with_a_record_written() -> (
    Scratch,
    PathBuf,
    std::process::Child,
    std::process::ChildStdin,
    std::process::ChildStdout,
) {
    let s = Scratch::new();
    let f = s.s("allowed/a.tar");
    let log = s.path("rmt.log");
    let mut args = s.allow_args();
    args.extend(["--log".into(), log.display().to_string()]);
    let mut child = common::tapebuf()
        .arg("rmt")
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    write!(stdin, "O{f}\n577 O_WRONLY|O_CREAT|O_TRUNC\nW6\nabcdef").unwrap();
    stdin.flush().unwrap();
    let mut replies = [0u8; 6];
    stdout.read_exact(&mut replies).unwrap();
    assert_eq!(&replies, b"A0\nA6\n");
    (s, log, child, stdin, stdout)
}

#[test]
fn a_session_survives_sigusr1_logs_it_and_completes() {
    use nix::sys::signal::{kill, Signal};
    use nix::unistd::Pid;
    let (s, log, mut child, mut stdin, mut stdout) = session_with_a_record_written();
    common::wait_until_caught(child.id(), Signal::SIGUSR1);
    kill(Pid::from_raw(child.id() as i32), Signal::SIGUSR1).unwrap();
    // The signal was answered once the log says so.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !std::fs::read_to_string(&log).unwrap().contains("SIGUSR1") {
        assert!(std::time::Instant::now() < deadline, "SIGUSR1 never logged");
        std::thread::yield_now();
    }
    write!(stdin, "W3\nghiC\n").unwrap();
    drop(stdin);
    let mut rest = Vec::new();
    stdout.read_to_end(&mut rest).unwrap();
    let (status, stderr) = common::finish(&mut child);
    assert_eq!(
        status.signal(),
        None,
        "killed by a signal; stderr {stderr:?}"
    );
    assert_eq!(status.code(), Some(0), "stderr {stderr:?}");
    assert_eq!(rest, b"A3\nA0\n");
    assert_eq!(stderr, "", "stderr stays clean");
    assert_eq!(
        std::fs::read(s.path("allowed/a.tar")).unwrap(),
        b"abcdefghi"
    );
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("SIGUSR1: no status line"), "{text}");
    assert!(text.contains("end of input"), "{text}");
}

#[test]
fn sigterm_ends_a_session_logged_and_by_the_signal() {
    use nix::sys::signal::{kill, Signal};
    use nix::unistd::Pid;
    let (s, log, mut child, stdin, _stdout) = session_with_a_record_written();
    common::wait_until_caught(child.id(), Signal::SIGTERM);
    kill(Pid::from_raw(child.id() as i32), Signal::SIGTERM).unwrap();
    let (status, stderr) = common::finish(&mut child);
    drop(stdin);
    assert_eq!(status.signal(), Some(libc::SIGTERM), "stderr {stderr:?}");
    assert_eq!(stderr, "", "stderr stays clean");
    assert_eq!(std::fs::read(s.path("allowed/a.tar")).unwrap(), b"abcdef");
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("session ended by SIGTERM"), "{text}");
}
