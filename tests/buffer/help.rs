//! The command line explains itself: `-h` gives the subcommands and the
//! everyday options, a line or two each, and points to `--help` and the
//! manual; `--help` lists them all, the subcommands, and every exit status
//! `base::exit` defines; every subcommand's help, asked for by any
//! spelling, answers with exit status 0 and opens with its own purpose,
//! and names only exit statuses the program defines. The subcommands and
//! the exit statuses are read from the program's own definitions, so one
//! added later is covered. The completions are in `completions.rs`.

use crate::common;

use common::*;

/// Every subcommand's name, from the program's own command tree, clap's
/// `help` included.
fn every_subcommand() -> Vec<String> {
    let mut tree = tapebuf::app::command();
    tree.build();
    let names: Vec<String> = tree
        .get_subcommands()
        .map(|c| c.get_name().to_owned())
        .collect();
    assert!(
        names.len() > 5 && names.iter().any(|n| n == "help"),
        "{names:?}"
    );
    names
}

/// The subcommands that are commands of their own (all but `help`).
fn own_subcommands() -> Vec<String> {
    let mut names = every_subcommand();
    names.retain(|n| n != "help");
    names
}

fn stdout_of(args: &[&str]) -> String {
    stdout_at(args, None)
}

/// What `args` print on stdout, with exit status 0 and nothing on stderr;
/// with `COLUMNS` set when `columns` is given.
fn stdout_at(args: &[&str], columns: Option<u16>) -> String {
    let mut cmd = command(BIN);
    cmd.args(args);
    if let Some(columns) = columns {
        cmd.env("COLUMNS", columns.to_string());
    }
    let out = cmd.output().expect("running tapebuf");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
    assert!(stderr.is_empty(), "{args:?}: {stderr}");
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
        for name in &every_subcommand() {
            let entry = section
                .iter()
                .find(|l| l.split_whitespace().next() == Some(name.as_str()))
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
    for name in own_subcommands() {
        for flag in ["-h", "--help"] {
            let help = stdout_of(&[&name, flag]);
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
fn every_way_of_asking_a_subcommand_for_help_succeeds_with_its_help() {
    for name in every_subcommand() {
        let usage = format!("Usage: tapebuf {name}");
        let mut spellings = vec![
            vec!["help", &name],
            vec!["help", &name, "--help"],
            vec!["help", &name, "-h"],
            vec!["help", "-h", &name],
        ];
        if name != "help" {
            spellings.push(vec![&name, "--help"]);
            spellings.push(vec![&name, "-h"]);
        }
        let opening = stdout_of(&spellings[0]).lines().next().map(str::to_owned);
        for args in spellings {
            let help = stdout_of(&args);
            assert!(help.contains(&usage), "{args:?}: {help}");
            assert_eq!(help.lines().next().map(str::to_owned), opening, "{args:?}");
        }
    }
}

#[test]
fn help_asked_for_help_shows_the_help_subcommands_help() {
    for flag in ["--help", "-h"] {
        let help = stdout_of(&["help", flag]);
        assert!(help.contains("Usage: tapebuf help [COMMAND]"), "{help}");
        assert_eq!(help, stdout_of(&["help", "help"]));
    }
}

#[test]
fn short_help_is_a_line_or_two_per_entry_and_points_to_the_long_help_and_the_manual() {
    // What the README and the manual say -h is, on an 80-column terminal.
    let short = stdout_at(&["-h"], Some(80));
    let long = stdout_at(&["--help"], Some(80));
    assert!(short.lines().all(|l| l.chars().count() <= 80), "{short}");
    // "About 60 lines at 80 columns": more than a 24-line screen, and
    // under a third of --help.
    let lines = short.lines().count();
    assert!((50..=70).contains(&lines), "-h is {lines} lines:\n{short}");
    assert!(
        lines * 3 < long.lines().count(),
        "-h {lines}, --help {}",
        long.lines().count()
    );
    // An entry is a line that names a command or an option (indented by
    // two), with the lines indented further below it.
    let mut entries: Vec<(String, usize)> = Vec::new();
    for line in short.lines().skip_while(|l| *l != "Commands:") {
        let indent = line.len() - line.trim_start().len();
        match indent {
            0 => {}
            1..=6 => entries.push((line.trim().to_owned(), 1)),
            _ => entries.last_mut().expect("an entry above").1 += 1,
        }
    }
    assert!(entries.len() > 20, "{entries:?}");
    for (entry, lines) in &entries {
        assert!(*lines <= 2, "{entry}: {lines} lines");
    }
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
fn long_help_ends_with_every_exit_status_the_program_defines() {
    // Wide enough that the sentence is one line.
    let long = stdout_at(&["--help"], Some(1000));
    let last = long.lines().last().unwrap_or_default();
    let listed = last
        .split_once("Exit status: ")
        .unwrap_or_else(|| panic!("the last line gives no exit status: {last}"))
        .1;
    // Each status is the number that opens an item of the list.
    let numbers: Vec<i32> = listed
        .split(", ")
        .filter_map(|item| item.split_whitespace().next()?.parse().ok())
        .collect();
    assert_eq!(numbers, tapebuf::base::exit::every_status(), "{last}");
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
fn every_subcommands_help_names_only_exit_statuses_the_program_defines() {
    let defined = tapebuf::base::exit::every_status();
    for name in own_subcommands() {
        let help = stdout_at(&[&name, "--help"], Some(1000));
        let listed = help
            .split_once("Exit status: ")
            .unwrap_or_else(|| panic!("{name} --help gives no exit status"))
            .1;
        let listed = listed.lines().next().unwrap_or_default();
        // Each status is the number that opens an item of the list.
        let numbers: Vec<i32> = listed
            .split([',', ';'])
            .filter_map(|item| item.split_whitespace().next()?.parse().ok())
            .collect();
        assert!(
            numbers.starts_with(&[0, 1]) || numbers.starts_with(&[0, 2]),
            "{name}: {listed}"
        );
        for n in numbers {
            assert!(
                defined.contains(&n),
                "{name} --help names status {n}: {listed}"
            );
        }
    }
}
