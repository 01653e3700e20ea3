//! The hand-written manual page cannot drift from the command line: every
//! long option clap knows must appear in it, its EXIT STATUS (and the
//! README's table) lists exactly the statuses `base::exit` defines, and it
//! keeps its key sections.

use crate::common;

use clap::CommandFactory;
use tapebuf::Cli;

fn page() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/man/tapebuf.1"))
        .expect("man/tapebuf.1 exists")
}

#[test]
fn every_long_option_appears_in_the_man_page() {
    let page = page();
    let mut missing = Vec::new();
    let mut tree = tapebuf::app::command();
    tree.build();
    let subcommands: Vec<_> = tree.get_subcommands().cloned().collect();
    assert!(subcommands.len() >= 4, "rmt, report, probe, completions");
    // The buffer's own options, and every subcommand's at any depth (rmt,
    // report, probe, key new, key show, ...), as `tapebuf help CMD` shows
    // them.
    let mut commands: Vec<clap::Command> =
        std::iter::once(Cli::command()).chain(subcommands).collect();
    while let Some(mut cmd) = commands.pop() {
        cmd.build();
        commands.extend(cmd.get_subcommands().cloned());
        for arg in cmd.get_arguments() {
            if let Some(long) = arg.get_long() {
                let roff = format!("\\-\\-{}", long.replace('-', "\\-"));
                if !page.contains(&roff) {
                    missing.push(format!("{}: {long}", cmd.get_name()));
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "options missing from man/tapebuf.1: {missing:?}"
    );
}

#[test]
fn man_page_has_exit_status_examples_and_watermarks() {
    let page = page();
    for section in [
        ".SH EXIT STATUS",
        ".SH EXAMPLES",
        ".SH WATERMARKS",
        ".SH SIGNALS",
        ".SH REMOTE TAPES",
        ".SH RMT SERVER",
        ".SH WATCHING A RUN",
        ".SH STATS FILE",
        ".SH REPORT",
        ".SH PROBE",
        ".SH LIBRARY",
        ".SH DRIVE",
        ".SH KEYS",
        ".SH TAPE LIBRARIES",
    ] {
        assert!(page.contains(section), "missing {section}");
    }
    for example in ["tar cf", "dump 0f", "cpio", "cron"] {
        assert!(page.contains(example), "no example with {example}");
    }
}

#[test]
fn man_page_renders_without_warnings() {
    common::needs::tool("man", "man-db");
    let out = crate::common::command("man")
        .args(["--warnings", "-l", "-E", "UTF-8", "-P", "cat"])
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/man/tapebuf.1"))
        .env("MANWIDTH", "80")
        .output()
        .expect("man(1) is installed (.ci/run installs man-db)");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.trim().is_empty(), "man warnings: {stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("high-watermark"));
}

/// The statuses that tag the entries of the page's EXIT STATUS section
/// (the line after each `.TP`, such as `.BR 129 ", " 130 ", " 143`).
fn exit_status_tags(page: &str) -> Vec<i32> {
    let section = page
        .split("\n.SH EXIT STATUS\n")
        .nth(1)
        .expect("an EXIT STATUS section")
        .split("\n.SH ")
        .next()
        .unwrap();
    let lines: Vec<&str> = section.lines().collect();
    lines
        .windows(2)
        .filter(|pair| pair[0] == ".TP")
        .flat_map(|pair| {
            pair[1]
                .split(|c: char| !c.is_ascii_digit())
                .filter_map(|n| n.parse::<i32>().ok())
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn exit_status_section_lists_exactly_the_statuses_the_program_defines() {
    let mut tags = exit_status_tags(&page());
    tags.sort_unstable();
    let mut defined = tapebuf::base::exit::every_status();
    defined.sort_unstable();
    assert_eq!(tags, defined);
}

#[test]
fn readme_exit_status_table_lists_exactly_the_statuses_the_program_defines() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md exists");
    let table = readme
        .split("\n### Exit status\n")
        .nth(1)
        .expect("an Exit status section in the README")
        .split("\n#")
        .next()
        .unwrap();
    // The first cell of each row: "| 0 |" or "| 129, 130, 143 |".
    let mut listed: Vec<i32> = table
        .lines()
        .filter_map(|row| row.strip_prefix("| ")?.split(" |").next())
        .flat_map(|cell| {
            cell.split(", ")
                .filter_map(|n| n.parse::<i32>().ok())
                .collect::<Vec<_>>()
        })
        .collect();
    listed.sort_unstable();
    let mut defined = tapebuf::base::exit::every_status();
    defined.sort_unstable();
    assert_eq!(listed, defined);
}
