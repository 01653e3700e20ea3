//! What the rmt client suites share: tapebuf run with the rsh stand-in
//! and the GNU rmt server, scripted remote shells, and files to send.

#![allow(dead_code)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::common::{self, tapebuf};

pub const GNU_RMT: &str = "/usr/sbin/rmt-tar";

pub fn rsh() -> String {
    format!("{}/tests/fixtures/rsh", env!("CARGO_MANIFEST_DIR"))
}

/// tapebuf with the stand-in remote shell and the GNU server.
pub fn client(args: &[&str]) -> Command {
    common::needs::tool(GNU_RMT, "tar");
    let mut c = tapebuf();
    c.args(["--rsh-command", &rsh(), "--rmt-command", GNU_RMT])
        .args(args)
        .stdin(Stdio::null());
    c
}

pub fn run(mut command: Command) -> (i32, String, Vec<u8>) {
    let Output {
        status,
        stdout,
        stderr,
    } = command.output().expect("running tapebuf");
    let code = status.code().expect("tapebuf ended by a signal");
    (code, String::from_utf8_lossy(&stderr).into_owned(), stdout)
}

pub fn write_file(dir: &Path, name: &str, data: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, data).unwrap();
    path
}

/// A script standing in for the remote shell.
pub fn script(dir: &Path, name: &str, body: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.display().to_string()
}

/// Writes `source` to `target` through the remote shell `rsh`, as a user
/// would; returns the exit status and standard error.
pub fn send_via(rsh: &str, source: &Path, target: &str, extra: &[&str]) -> (i32, String) {
    let mut command = tapebuf();
    command
        .args(["-i", source.to_str().unwrap(), "-o", target])
        .args(["--rsh-command", rsh])
        .args(extra)
        .stdin(Stdio::null());
    let (code, stderr, _) = run(command);
    (code, stderr)
}
