//! The process groups of the commands tapebuf starts: every rmt session's
//! remote shell, and the producer of `tapebuf -- CMD` or the consumer of
//! `--to CMD`, leads its own group, and each group is remembered here from
//! its start until it is known to be empty, so that a run ending early (a
//! signal, the watchdog, a server that hangs while another thread waits on
//! it, an output that failed) can end every one of them, with whatever it
//! started.
//!
//! A group is forgotten once it has been ended, or once no process is left
//! in it; while a process is in it, its id cannot be reused by the kernel,
//! so a signal sent to it reaches only what the remote shell started.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;

/// How long a child's process group gets between SIGTERM and SIGKILL.
const END_GRACE: Duration = Duration::from_millis(300);
/// The process groups of children that may still be running.
static LIVE_GROUPS: Mutex<Vec<i32>> = Mutex::new(Vec::new());
/// Those of them that get the stop signals tapebuf gets (the producer and
/// the consumer; a remote shell is ended only after the writer's grace).
static FORWARDED: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// Ends every child still running (SIGTERM, then SIGKILL after a short
/// wait), with everything in its process group: for a run that ends by a
/// signal, the watchdog, a failed output, or while a server hangs.
pub fn end_children() {
    let groups = match LIVE_GROUPS.lock() {
        Ok(mut live) => std::mem::take(&mut *live),
        Err(_) => return,
    };
    end_groups(&groups);
}

/// SIGTERM to each group, a bounded wait for them to go, then SIGKILL to
/// what is left.
pub fn end_groups(groups: &[i32]) {
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
pub fn group_alive(g: i32) -> bool {
    killpg(Pid::from_raw(g), None).is_ok()
}

/// Sends `sig` to the process group of every child that gets the
/// signals tapebuf gets ([`forward_signals_to`]), as it came: a SIGINT or
/// SIGTERM reaches the producer as it would have in a shell pipeline.
pub fn signal_children(sig: i32) {
    let Ok(sig) = Signal::try_from(sig) else {
        return;
    };
    let groups = match FORWARDED.lock() {
        Ok(forwarded) => forwarded.clone(),
        Err(_) => return,
    };
    for g in groups {
        let _ = killpg(Pid::from_raw(g), sig);
    }
}

/// Forgets group `g`, which has been ended or is empty.
pub fn forget_group(g: i32) {
    if let Ok(mut live) = LIVE_GROUPS.lock() {
        live.retain(|&x| x != g);
    }
    if let Ok(mut forwarded) = FORWARDED.lock() {
        forwarded.retain(|&x| x != g);
    }
}

/// Remembers group `g` as one that gets the stop signals tapebuf gets.
pub fn forward_signals_to(g: i32) {
    if let Ok(mut forwarded) = FORWARDED.lock() {
        forwarded.push(g);
    }
}

/// Remembers the group of a child just started.
pub fn remember_group(g: i32) {
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
    fn ending_the_children_ends_what_they_started_too() {
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
        end_children();
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
