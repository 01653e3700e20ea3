//! Getting the next volume in: run the user's change command
//! (`-A/--change-command`), or ask the operator on the controlling
//! terminal, or, when there is neither (a cron job), refuse at once with a
//! clear error. Nothing here waits for ever: the command runs under a time
//! limit and is killed with its whole process group when it overruns or
//! the run is stopped; the prompt ends on `q`, on a stop, or at the limit.
//!
//! The command gets the volume number and device in its environment (and,
//! when asked again for a volume, why the last cartridge was refused), no
//! standard input (it must never eat the backup stream), and our stderr as
//! its stdout (it must never write into the backup stream either).
//!
//! With a library's changer (`--changer`), the policy carries a
//! [`Loader`] instead, and every volume change goes through it
//! (`changer/loader.rs`): no command, no prompt.

use std::io::{self, BufRead, Write};
use std::os::fd::AsFd;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, Stdio};
use std::time::Duration;

use crossbeam_channel::{after, bounded, never, select, Receiver};

use crate::base::console::message;
use crate::tape::drive::Access;
use crate::tape::loader::{Loader, Wanting};

/// The default limit for a change command: an autoloader takes minutes.
pub const DEFAULT_COMMAND_TIMEOUT: Duration = Duration::from_secs(3600);

/// How volumes are changed.
#[derive(Debug, Clone, Default)]
pub struct ChangePolicy {
    /// Run through `sh -c`.
    pub command: Option<String>,
    /// The limit for the command (`DEFAULT_COMMAND_TIMEOUT` if `None`) and
    /// for the prompt (none if `None`: a person is the way out).
    pub timeout: Option<Duration>,
    /// The changer's loader: when set, it changes the volumes.
    pub loader: Option<Loader>,
}

/// One volume change.
#[derive(Debug, Clone)]
pub struct ChangeRequest<'a> {
    pub access: Access,
    /// The device or file the next volume is read from or written to.
    pub device: &'a str,
    /// The number of the volume wanted next (the first volume is 1).
    pub next_volume: u32,
    /// Bytes on the volume just finished.
    pub finished_bytes: u64,
    /// Why the cartridge loaded last time was refused, when this asks again.
    pub refused: Option<&'a str>,
}

impl<'a> ChangeRequest<'a> {
    /// The request as a changer's loader takes it.
    pub fn wanting(&self) -> Wanting<'a> {
        Wanting {
            access: self.access,
            volume: self.next_volume,
            refused: self.refused,
        }
    }
}

impl ChangePolicy {
    /// Gets volume `req.next_volume` in, or says why it could not.
    pub fn change(&self, req: &ChangeRequest<'_>, stop: &Receiver<()>) -> Result<(), String> {
        if let Some(loader) = &self.loader {
            let want = req.wanting();
            return loader
                .change(&want, None, stop, &|_| {})
                .map_err(|e| e.to_string());
        }
        match &self.command {
            Some(cmd) => self.run_command(cmd, req, stop),
            None => self.prompt(req, stop),
        }
    }

    fn run_command(
        &self,
        cmd: &str,
        req: &ChangeRequest<'_>,
        stop: &Receiver<()>,
    ) -> Result<(), String> {
        let stdout = io::stderr()
            .as_fd()
            .try_clone_to_owned()
            .map(Stdio::from)
            .unwrap_or_else(|_| Stdio::null());
        let mut child = Command::new("/bin/sh")
            .arg("-c")
            .arg(cmd)
            .env("TAPEBUF_VOLUME", req.next_volume.to_string())
            .env("TAPEBUF_DEVICE", req.device)
            .env(
                "TAPEBUF_MODE",
                match req.access {
                    Access::Read => "read",
                    Access::Write => "write",
                },
            )
            .env("TAPEBUF_VOLUME_BYTES", req.finished_bytes.to_string())
            .env("TAPEBUF_REFUSED", req.refused.unwrap_or(""))
            .stdin(Stdio::null())
            .stdout(stdout)
            .process_group(0)
            .spawn()
            .map_err(|e| format!("-A/--change-command: cannot run '{cmd}': {e}"))?;
        let pid = child.id() as i32;
        let (done_tx, done_rx) = bounded(1);
        crate::base::thread::spawn("change-command", move || {
            let _ = done_tx.send(child.wait());
        })
        .map_err(|e| format!("-A/--change-command: cannot wait for '{cmd}': {e}"))?;
        let limit = self.timeout.unwrap_or(DEFAULT_COMMAND_TIMEOUT);
        let kill_group = || {
            // SAFETY: plain kill(2) on the process group the child leads.
            unsafe { libc::kill(-pid, libc::SIGKILL) };
        };
        let status = select! {
            recv(done_rx) -> r => r.map_err(|_| "the wait thread vanished".to_string())?,
            recv(stop) -> _ => {
                kill_group();
                return Err(format!(
                    "-A/--change-command: stopped while '{cmd}' was loading volume {}",
                    req.next_volume
                ));
            },
            recv(after(limit)) -> _ => {
                kill_group();
                return Err(format!(
                    "-A/--change-command: '{cmd}' was still running after {} s and was killed (--change-timeout)",
                    limit.as_secs()
                ));
            },
        };
        let status =
            status.map_err(|e| format!("-A/--change-command: waiting for '{cmd}': {e}"))?;
        if status.success() {
            return Ok(());
        }
        let how = match (status.code(), status.signal()) {
            (Some(code), _) => format!("exited with status {code}"),
            (None, Some(sig)) => format!("was killed by signal {sig}"),
            _ => "failed".to_string(),
        };
        Err(format!(
            "-A/--change-command: '{cmd}' {how} when asked for volume {} of {}",
            req.next_volume, req.device
        ))
    }

    /// Asks on the controlling terminal, if there is one.
    fn prompt(&self, req: &ChangeRequest<'_>, stop: &Receiver<()>) -> Result<(), String> {
        let Ok(mut tty) = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")
        else {
            return Err(format!(
                "volume {} of {} is needed, but there is no -A/--change-command and no terminal to ask",
                req.next_volume, req.device
            ));
        };
        let verb = match req.access {
            Access::Read => "read",
            Access::Write => "write",
        };
        let question = message!(
            "load volume {} to {verb} on {} and press Enter (q to stop): ",
            req.next_volume,
            req.device
        );
        write!(tty, "{question}")
            .and_then(|_| tty.flush())
            .map_err(|e| format!("/dev/tty: cannot ask for volume {}: {e}", req.next_volume))?;
        let (line_tx, line_rx) = bounded(1);
        crate::base::thread::spawn("change-prompt", move || {
            let mut line = String::new();
            let r = io::BufReader::new(tty).read_line(&mut line).map(|_| line);
            let _ = line_tx.send(r);
        })
        .map_err(|e| format!("/dev/tty: cannot ask: {e}"))?;
        let limit = match self.timeout {
            Some(d) => after(d),
            None => never(),
        };
        select! {
            recv(line_rx) -> r => match r {
                Ok(Ok(line)) if line.trim().eq_ignore_ascii_case("q") => Err(format!(
                    "the operator declined to load volume {} of {}",
                    req.next_volume, req.device
                )),
                Ok(Ok(line)) if line.is_empty() => Err(format!(
                    "/dev/tty: end of input while asking for volume {}",
                    req.next_volume
                )),
                Ok(Ok(_)) => Ok(()),
                Ok(Err(e)) => Err(format!("/dev/tty: {e}")),
                Err(_) => Err("/dev/tty: the prompt thread vanished".to_string()),
            },
            recv(stop) -> _ => Err(format!(
                "stopped while waiting for volume {} of {}",
                req.next_volume, req.device
            )),
            recv(limit) -> _ => Err(format!(
                "nobody loaded volume {} of {} within --change-timeout",
                req.next_volume, req.device
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request() -> ChangeRequest<'static> {
        ChangeRequest {
            access: Access::Write,
            device: "/dev/nst0",
            next_volume: 2,
            finished_bytes: 4096,
            refused: None,
        }
    }

    #[test]
    fn command_sees_volume_device_and_mode_in_its_environment() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("env");
        let policy = ChangePolicy {
            command: Some(format!(
                "echo \"$TAPEBUF_VOLUME $TAPEBUF_DEVICE $TAPEBUF_MODE $TAPEBUF_VOLUME_BYTES\" > {}",
                out.display()
            )),
            timeout: None,
            loader: None,
        };
        policy.change(&request(), &never()).unwrap();
        let seen = std::fs::read_to_string(out).unwrap();
        assert_eq!(seen.trim(), "2 /dev/nst0 write 4096");
    }

    #[test]
    fn failing_command_is_an_error_naming_its_status() {
        let policy = ChangePolicy {
            command: Some("exit 3".into()),
            timeout: None,
            loader: None,
        };
        let e = policy.change(&request(), &never()).unwrap_err();
        assert!(e.contains("'exit 3' exited with status 3"), "{e}");
        assert!(e.contains("volume 2 of /dev/nst0"), "{e}");
    }

    #[test]
    fn command_over_its_time_limit_is_killed() {
        let policy = ChangePolicy {
            command: Some("sleep 30".into()),
            timeout: Some(Duration::from_millis(200)),
            loader: None,
        };
        let started = std::time::Instant::now();
        let e = policy.change(&request(), &never()).unwrap_err();
        assert!(e.contains("still running after"), "{e}");
        assert!(started.elapsed() < Duration::from_secs(10));
    }
}
