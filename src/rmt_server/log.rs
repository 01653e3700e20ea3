//! The server's audit log: one line per event (session start and end,
//! each open with its verdict, each close with its byte counts, each error
//! returned, each protocol violation), never one per record. Lines go to
//! a file (`--log FILE`), to syslog (`--syslog`, ident `tapebuf-rmt`,
//! facility LOG_DAEMON), to both or nowhere.
//!
//! Invariant: logging never fails the session and never writes to stderr,
//! which under a remote shell is the client's terminal. Each line is
//! written with one append, so lines from concurrent sessions sharing a
//! file do not interleave.

use std::ffi::CString;
use std::io::{self, Write};
use std::path::Path;
use std::sync::Mutex;
use std::time::SystemTime;

use crate::base::utc::utc_timestamp;

use crate::base::escape::one_line;
use crate::base::sync::lock;

/// How much an event matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Normal events: session start and end, opens, closes.
    Info,
    /// Refusals, errors returned to the client, protocol violations.
    Warning,
}

/// Where events go.
pub struct Log {
    sink: Option<Mutex<Box<dyn Write + Send>>>,
    syslog: bool,
    /// " from HOST port PORT" when SSH_CLIENT says, else empty.
    client: String,
    pid: u32,
}

impl Log {
    /// Logs nothing.
    pub fn none() -> Log {
        Log {
            sink: None,
            syslog: false,
            client: client_from_env(),
            pid: std::process::id(),
        }
    }

    /// Appends to `path` (created with mode 0640) and, with `syslog`,
    /// also sends to syslog. Fails only if the file cannot be opened.
    pub fn open(path: Option<&Path>, syslog: bool) -> io::Result<Log> {
        let mut log = Log::none();
        if let Some(path) = path {
            let file = crate::base::create::append(path, 0o640)?;
            log.sink = Some(Mutex::new(Box::new(file)));
        }
        if syslog {
            // SAFETY: the ident is a 'static C string, as openlog requires
            // (it keeps the pointer); the other arguments are plain flags.
            unsafe { libc::openlog(c"tapebuf-rmt".as_ptr(), libc::LOG_PID, libc::LOG_DAEMON) };
            log.syslog = true;
        }
        Ok(log)
    }

    /// Logs to `sink`: for tests, or to capture a session's log in memory.
    pub fn to_writer(sink: Box<dyn Write + Send>) -> Log {
        Log {
            sink: Some(Mutex::new(sink)),
            ..Log::none()
        }
    }

    /// True when events go anywhere.
    pub fn is_active(&self) -> bool {
        self.sink.is_some() || self.syslog
    }

    pub fn info(&self, message: &str) {
        self.event(Level::Info, message);
    }

    pub fn warn(&self, message: &str) {
        self.event(Level::Warning, message);
    }

    /// Records one event; errors writing it are ignored.
    pub fn event(&self, level: Level, message: &str) {
        if !self.is_active() {
            return;
        }
        let message = one_line(message);
        if let Some(sink) = &self.sink {
            let line = format!(
                "{} tapebuf-rmt[{}]{}: {message}\n",
                utc_timestamp(SystemTime::now()),
                self.pid,
                self.client
            );
            let mut sink = lock(sink);
            let _ = sink.write_all(line.as_bytes()).and_then(|()| sink.flush());
        }
        if self.syslog {
            let priority = match level {
                Level::Info => libc::LOG_INFO,
                Level::Warning => libc::LOG_WARNING,
            };
            let text = format!("{}{message}", self.client.trim_start());
            if let Ok(text) = CString::new(text) {
                // SAFETY: both pointers are NUL-terminated strings that
                // live through the call; the message is passed as an
                // argument to a constant "%s" format, never as the format.
                unsafe { libc::syslog(priority, c"%s".as_ptr(), text.as_ptr()) };
            }
        }
    }
}

/// " from 10.0.0.5 port 50122" from `SSH_CLIENT` ("IP PORT LOCALPORT").
fn client_from_env() -> String {
    let Some(value) = std::env::var_os("SSH_CLIENT") else {
        return String::new();
    };
    let value = value.to_string_lossy();
    let mut words = value.split_whitespace();
    match (words.next(), words.next()) {
        (Some(ip), Some(port)) => one_line(&format!(" from {ip} port {port}")),
        (Some(ip), None) => one_line(&format!(" from {ip}")),
        _ => String::new(),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::sync::Arc;

    /// A writer whose bytes the test can read afterwards.
    #[derive(Clone, Default)]
    pub struct Captured(pub Arc<Mutex<Vec<u8>>>);

    impl Write for Captured {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn each_event_is_one_line_with_time_and_pid() {
        let captured = Captured::default();
        let log = Log::to_writer(Box::new(captured.clone()));
        log.info("open /srv/a\nb: allowed");
        let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        assert_eq!(text.lines().count(), 1, "{text:?}");
        assert!(text.contains(&format!("tapebuf-rmt[{}]", std::process::id())));
        assert!(text.ends_with(": open /srv/a\\nb: allowed\n"), "{text:?}");
    }

    #[test]
    fn a_failing_log_is_ignored() {
        struct Broken;
        impl Write for Broken {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::Error::from_raw_os_error(libc::ENOSPC))
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        Log::to_writer(Box::new(Broken)).warn("still serving");
        Log::none().warn("nowhere");
    }
}
