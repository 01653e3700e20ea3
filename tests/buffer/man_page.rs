//! The hand-written manual page cannot drift from the command line: every
//! long option clap knows must appear in it, and it keeps its key sections.

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
    // The buffer's own options, and every subcommand's (rmt, report,
    // probe, completions, help), as `tapebuf help CMD` shows them.
    for mut cmd in std::iter::once(Cli::command()).chain(subcommands) {
        cmd.build();
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
