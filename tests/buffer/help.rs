//! The command line explains itself: `-h` is one screen of the everyday
//! options that points to `--help` and the manual, `--help` lists them all
//! and the subcommands, `tapebuf help [CMD]` answers with exit status 0,
//! each subcommand's help opens with its own purpose, and the shell
//! completions that `tapebuf completions SHELL` prints really complete in
//! bash.

use crate::common;

use common::*;

const SUBCOMMANDS: [&str; 7] = [
    "rmt",
    "report",
    "probe",
    "verify",
    "library",
    "drive",
    "completions",
];

fn stdout_of(args: &[&str]) -> String {
    let out = run(args, vec![]);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", out.stderr);
    assert!(out.stderr.is_empty(), "{args:?}: {}", out.stderr);
    String::from_utf8(out.stdout).expect("help is UTF-8")
}

/// The lines of the "Commands:" section, up to the blank line that ends it.
fn commands_section(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect()
}

#[test]
fn main_help_lists_every_subcommand_with_what_it_does() {
    for flag in ["--help", "-h"] {
        let section = commands_section(&stdout_of(&[flag]));
        for name in SUBCOMMANDS.iter().chain(&["help"]) {
            let entry = section
                .iter()
                .find(|l| l.split_whitespace().next() == Some(name))
                .unwrap_or_else(|| panic!("{flag}: no '{name}' in {section:?}"));
            assert!(entry.split_whitespace().count() > 2, "{entry}");
        }
    }
}

#[test]
fn help_alone_is_the_main_help_and_succeeds() {
    assert_eq!(stdout_of(&["help"]), stdout_of(&["--help"]));
}

#[test]
fn help_with_a_subcommand_shows_that_subcommands_help() {
    for (name, option) in [
        ("rmt", "--allow"),
        ("report", "--output"),
        ("probe", "--sizes"),
        ("verify", "--changer"),
        ("library", "--json"),
        ("drive", "--json"),
        ("completions", "<SHELL>"),
    ] {
        let via_help = stdout_of(&["help", name]);
        let direct = stdout_of(&[name, "--help"]);
        assert_eq!(
            via_help.lines().next(),
            direct.lines().next(),
            "{name}: help {name} and {name} --help open alike"
        );
        assert!(
            via_help.contains(&format!("Usage: tapebuf {name}")),
            "{via_help}"
        );
        assert!(via_help.contains(option), "{name}: {via_help}");
    }
}

#[test]
fn help_with_an_unknown_subcommand_is_a_usage_error() {
    let out = run(&["help", "nosuch"], vec![]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    assert!(out.stderr.starts_with("tapebuf: "), "{}", out.stderr);
    assert!(out.stderr.contains("'nosuch'"), "{}", out.stderr);
}

#[test]
fn a_subcommand_after_options_is_refused_not_run_as_a_buffer() {
    let out = run(&["-q", "rmt"], vec![]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(
        out.stderr
            .starts_with("tapebuf: 'rmt' must be the first word"),
        "{}",
        out.stderr
    );
}

#[test]
fn each_subcommand_help_opens_with_its_own_purpose() {
    let tagline = stdout_of(&["--help"]).lines().next().unwrap().to_owned();
    for name in SUBCOMMANDS {
        for flag in ["-h", "--help"] {
            let help = stdout_of(&[name, flag]);
            let first = help.lines().next().unwrap();
            assert_ne!(first, tagline, "{name} {flag}");
            assert!(
                first.starts_with(&format!("tapebuf {name}: ")),
                "{name} {flag}: {first}"
            );
        }
    }
}

#[test]
fn short_help_fits_a_screen_and_points_to_the_long_help_and_the_manual() {
    let short = stdout_of(&["-h"]);
    let lines = short.lines().count();
    assert!(lines <= 40, "-h is {lines} lines:\n{short}");
    assert!(short.contains("--help"), "{short}");
    assert!(short.contains("man tapebuf"), "{short}");
    for everyday in [
        "--input",
        "--output",
        "--listen",
        "--connect",
        "--memory",
        "--quiet",
    ] {
        assert!(short.contains(everyday), "-h lacks {everyday}");
    }
    for rare in ["--rmt-window", "--zero-copy", "--tapeaware", "--md5"] {
        assert!(!short.contains(rare), "-h shows {rare}");
    }
}

#[test]
fn long_help_lists_every_option_with_the_mbuffer_ones_under_their_own_heading() {
    let long = stdout_of(&["--help"]);
    assert!(long.lines().count() > 150, "{} lines", long.lines().count());
    let heading = long
        .find("mbuffer compatibility")
        .expect("an mbuffer heading in --help");
    // An option's own entry is a line that opens with "-X, --name" or
    // "--name", indented.
    let entries = |text: &str| -> Vec<String> {
        text.lines()
            .map(str::trim_start)
            .filter(|l| l.starts_with('-') && !l.starts_with("- "))
            .map(str::to_owned)
            .collect()
    };
    let (before, after) = (entries(&long[..heading]), entries(&long[heading..]));
    for option in ["--md5", "--tapeaware", "--tcptimeo", "--pid", "-Q"] {
        assert!(
            after.iter().any(|e| e.contains(option)),
            "{option} not under the heading"
        );
        assert!(
            !before.iter().any(|e| e.contains(option)),
            "{option} before the heading"
        );
    }
    for option in ["--rmt-window", "--zero-copy", "--status-interval"] {
        assert!(long.contains(option), "--help lacks {option}");
    }
}

#[test]
fn timeout_help_gives_the_remote_tape_default() {
    let help = stdout_of(&["--help"]);
    let text: String = help
        .split("--timeout <SECS>")
        .nth(1)
        .expect("--timeout in --help")
        .split("--connect-timeout <SECS>")
        .next()
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(text.contains("600 for a remote tape"), "{text}");
}

#[test]
fn completions_print_a_script_for_bash_zsh_and_fish() {
    for shell in ["bash", "zsh", "fish"] {
        let script = stdout_of(&["completions", shell]);
        assert!(script.len() > 500, "{shell}: {} bytes", script.len());
        assert!(script.contains("tapebuf"), "{shell}");
        assert!(script.contains("high-watermark"), "{shell}");
        assert!(
            script.contains("completions"),
            "{shell}: knows the subcommands"
        );
    }
}

#[test]
fn completions_for_an_unknown_shell_name_the_valid_ones() {
    let out = run(&["completions", "tcsh"], vec![]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    assert!(
        out.stderr.starts_with("tapebuf: completions: ")
            && out.stderr.contains("'tcsh'")
            && out.stderr.contains("one of bash, zsh, fish"),
        "{}",
        out.stderr
    );
}

/// What bash offers for the words `line` (the last one being completed),
/// with the script `tapebuf completions bash` prints loaded.
fn bash_completes(line: &[&str]) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("tapebuf.bash");
    std::fs::write(&script, stdout_of(&["completions", "bash"])).unwrap();
    let words = line
        .iter()
        .map(|w| format!("'{w}'"))
        .collect::<Vec<_>>()
        .join(" ");
    let program = format!(
        "source '{}' || exit 9\n\
         COMP_WORDS=({words})\n\
         COMP_CWORD={}\n\
         COMP_LINE='{}'\n\
         COMP_POINT=${{#COMP_LINE}}\n\
         _tapebuf tapebuf '{}' '{}' || exit 8\n\
         printf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
        script.display(),
        line.len() - 1,
        line.join(" "),
        line[line.len() - 1],
        line[line.len().saturating_sub(2)],
    );
    let out = crate::common::command("timeout")
        .args(["20", "bash", "--norc", "--noprofile", "-c", &program])
        .output()
        .expect("running bash");
    assert_eq!(
        out.status.code(),
        Some(0),
        "bash: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn bash_completes_a_long_option() {
    let offered = bash_completes(&["tapebuf", "--ou"]);
    assert!(offered.contains(&"--output".to_owned()), "{offered:?}");
    assert!(offered.iter().all(|w| w.starts_with("--ou")), "{offered:?}");
}

#[test]
fn bash_completes_subcommands_and_their_options() {
    let offered = bash_completes(&["tapebuf", "pro"]);
    assert_eq!(offered, vec!["probe".to_owned()]);
    let offered = bash_completes(&["tapebuf", "rmt", "--al"]);
    assert_eq!(offered, vec!["--allow".to_owned()]);
    let offered = bash_completes(&["tapebuf", "completions", "z"]);
    assert_eq!(offered, vec!["zsh".to_owned()]);
}
