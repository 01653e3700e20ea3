//! `tapebuf rmt`'s policy, configuration and log end to end: which paths a
//! client may open, what a refusal tells it (nothing beyond the path it
//! sent), what the log records, and the errors that stop the server
//! before a session starts (one line, exit 2).

use crate::common;
use crate::rmt_server::support;

use std::io::Write;
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};

use common::BIN;
use support::{serve, serve_command, Scratch, E9, RSH};

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
    let mut command = crate::common::command(BIN);
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
    let out = crate::common::command(&rmt)
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
    let mut command = crate::common::command(RSH);
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
    let mut command = crate::common::command(BIN);
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
    let detail = |probe: &str| refusal_detail(&text, probe);
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

/// What the log `text` says after "refused: " for the O_RDONLY open of
/// `probe`; fails the test if the log has no such refusal.
fn refusal_detail(text: &str, probe: &str) -> String {
    text.lines()
        .find(|l| l.contains(&format!(": open {probe} O_RDONLY: refused: ")))
        .unwrap_or_else(|| panic!("no refusal of {probe} in {text}"))
        .split_once(": refused: ")
        .unwrap()
        .1
        .to_string()
}

// ---- symbolic links on the way ------------------------------------------

#[test]
fn a_symlinked_intermediate_directory_leading_out_is_refused() {
    let s = Scratch::new();
    std::fs::create_dir(s.path("outside")).unwrap();
    std::fs::write(s.path("outside/secret"), b"SECRET").unwrap();
    std::os::unix::fs::symlink("../outside", s.path("allowed/d")).unwrap();
    let asked = s.s("allowed/d/secret");
    let served = s.serve(&[], format!("O{asked}\n0 O_RDONLY\nR64\n"));
    served.exited(0);
    assert_eq!(
        served.text(),
        format!("E13\nPermission denied: {asked} is outside the allowed paths\n{E9}")
    );
}

/// Swaps `allowed/d` (a real directory) for a link to `../outside` and
/// back, until `stop` is set or `rounds` swaps are done.
fn swap_in_a_loop(s: &Scratch, stop: &AtomicBool, rounds: usize) {
    let (d, real) = (s.path("allowed/d"), s.path("allowed/d.real"));
    for _ in 0..rounds {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        std::fs::rename(&d, &real).unwrap();
        std::os::unix::fs::symlink("../outside", &d).unwrap();
        std::fs::remove_file(&d).unwrap();
        std::fs::rename(&real, &d).unwrap();
    }
}

#[test]
fn a_directory_swapped_for_a_link_during_many_opens_never_leads_out() {
    const OPENS: usize = 20_000;
    let s = Scratch::new();
    std::fs::create_dir(s.path("outside")).unwrap();
    std::fs::create_dir(s.path("allowed/d")).unwrap();
    std::fs::write(s.path("outside/f"), b"SECRET").unwrap();
    std::fs::write(s.path("allowed/d/f"), b"inside").unwrap();
    let one = format!("O{}\n0 O_RDONLY\nR64\nC\n", s.s("allowed/d/f"));
    let input = one.repeat(OPENS);
    let stop = AtomicBool::new(false);
    let served = std::thread::scope(|scope| {
        let swapper = scope.spawn(|| swap_in_a_loop(&s, &stop, 10_000_000));
        let served = s.serve(&[], input);
        stop.store(true, Ordering::Relaxed);
        swapper.join().unwrap();
        served
    });
    served.exited(0);
    let text = served.text();
    assert!(!text.contains("SECRET"), "the secret outside was returned");
    // An open that succeeded reads "inside"; one that was refused leaves
    // R and C with no device (E9 each).
    let inside = text.matches("A6\ninside").count();
    let refused = text.matches(E9).count();
    assert_eq!(refused % 2, 0, "{text}");
    assert_eq!(inside + refused / 2, OPENS, "{text}");
}
