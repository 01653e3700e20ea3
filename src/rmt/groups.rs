//! The process groups of the remote shells: every rmt session's remote
//! shell leads its own group, and each group is remembered here from its
//! start until it is known to be empty, so that a run ending early (a
//! signal, the watchdog, a server that hangs while another thread waits on
//! it) can end every one of them, with whatever the shell started.
//!
//! A group is forgotten once it has been ended, or once no process is left
//! in it; while a process is in it, its id cannot be reused by the kernel,
//! so a signal sent to it reaches only what the remote shell started.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;

/// How long a remote shell's process group gets between SIGTERM and
/// SIGKILL.
const END_GRACE: Duration = Duration::from_millis(300);
/// The process groups of remote shells that may still be running.
static LIVE_GROUPS: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// Ends every remote shell still running (SIGTERM, then SIGKILL after a
/// short wait), with everything in its process group: for a run that ends
/// by a signal, the watchdog, or while a server hangs.
pub fn end_remote_shells() {
    let groups = match LIVE_GROUPS.lock() {
        Ok(mut live) => std::mem::take(&mut *live),
        Err(_) => return,
    };
    end_groups(&groups);
}

/// SIGTERM to each group, a bounded wait for them to go, then SIGKILL to
/// what is left.
pub(super) fn end_groups(groups: &[i32]) {
    for &g in groups {
        let _ = killpg(Pid::from_raw(g), Signal::SIGTERM);
    }
    let deadline = Instant::now() + END_GRACE;
    while groups.iter().any(|&g| group_alive(g)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    for &g in groups.iter().filter(|&&g| group_alive(g)) {
        let _ = killpg(Pid::from_raw(g), Signal::SIGKILL);
    }
}

/// True while any process is left in group `g`.
pub(super) fn group_alive(g: i32) -> bool {
    killpg(Pid::from_raw(g), None).is_ok()
}

/// Forgets group `g`, which has been ended or is empty.
pub(super) fn forget_group(g: i32) {
    if let Ok(mut live) = LIVE_GROUPS.lock() {
        live.retain(|&x| x != g);
    }
}

/// Remembers the group of a remote shell just started.
pub(super) fn remember_group(g: i32) {
    if let Ok(mut live) = LIVE_GROUPS.lock() {
        live.push(g);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader};
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};

    /// True while `pid` runs (a zombie nobody reaps does not run).
    fn running(pid: u32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
            let state = s.rsplit_once(')').map(|(_, rest)| rest.trim_start());
            !state.unwrap_or("").starts_with('Z')
        })
    }

    #[test]
    fn ending_the_remote_shells_ends_what_they_started_too() {
        // A shell that starts a child and waits, and ignores SIGTERM, as
        // a hung one might: the group still ends, by SIGKILL.
        let mut shell = Command::new("sh")
            .args(["-c", "trap '' TERM; sleep 60 & echo $!; wait"])
            .stdout(Stdio::piped())
            .process_group(0)
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(shell.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let child: u32 = line.trim().parse().unwrap();
        remember_group(shell.id() as i32);
        let started = Instant::now();
        end_remote_shells();
        assert!(started.elapsed() < END_GRACE + Duration::from_secs(1));
        assert!(!shell.wait().unwrap().success());
        let deadline = Instant::now() + Duration::from_secs(5);
        while running(child) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(
            !running(child),
            "the shell's child outlived the group's end"
        );
        assert!(!LIVE_GROUPS.lock().unwrap().contains(&(shell.id() as i32)));
    }
}
