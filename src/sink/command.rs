//! The consumer as an output: `--to CMD` runs CMD with `/bin/sh -c`, its
//! standard input the stream and its standard output tapebuf's.
//!
//! `finish` closes CMD's input and waits for it: an exit status other than
//! 0 (or one `--accept-status` names), or a death by a signal, fails the
//! output, so `tapebuf -i /dev/nst0 --to 'tar xf -'` fails when tar does.
//! A stream that ends early (`finish_early`) never reaches CMD as an end
//! of input, which it could take for a whole stream: CMD's group gets
//! SIGTERM first. A CMD that exits before the stream ends fails the write
//! it broke, naming its status.

use std::io::{self, Write};
use std::process::{ChildStdin, Stdio};
use std::time::Duration;

use crossbeam_channel::Receiver;
use nix::sys::signal::Signal;

use super::{Sink, SinkTraits};
use crate::base::child::{ChildSpec, Running};

/// How long a consumer whose stream broke may take to say why (its exit
/// status), before the write error is reported without it.
const BROKEN_WAIT: Duration = Duration::from_secs(2);

/// A running consumer.
pub struct CommandSink {
    running: Running,
    stdin: Option<ChildStdin>,
    name: String,
    exit_wait: Duration,
    stop: Option<Receiver<()>>,
    taken: u64,
}

impl CommandSink {
    /// Starts the consumer `spec`; `exit_wait` bounds the wait for it to
    /// exit once its input is closed (`--timeout`, or 60 s).
    pub fn start(spec: &ChildSpec, exit_wait: Duration) -> anyhow::Result<CommandSink> {
        let mut running = spec
            .spawn("consumer", Stdio::piped(), Stdio::inherit())
            .map_err(|e| anyhow::anyhow!("--to {}: could not be started: {e}", spec.display))?;
        let stdin = running.child().stdin.take();
        Ok(CommandSink {
            running,
            stdin,
            name: format!("--to {}", spec.display),
            exit_wait,
            stop: None,
            taken: 0,
        })
    }

    /// Closes the consumer's input, waits for it, and says why it failed.
    fn judge(&mut self, limit: Duration) -> io::Result<()> {
        self.stdin = None;
        let settled = self.running.settle(limit, self.stop.as_ref(), |secs| {
            format!(
                "was still running {secs} s after its input ended (--timeout); tapebuf ended it"
            )
        });
        settled
            .map(|_| ())
            .map_err(|why| io::Error::other(self.failure_text(&why)))
    }

    /// "the consumer exited with status 2 after taking N bytes; its stderr
    /// ended: ..." (the message's prefix names the command).
    fn failure_text(&self, why: &str) -> String {
        let mut text = format!("the consumer {why} after taking {} bytes", self.taken);
        if let Some(words) = self.running.last_words() {
            text.push_str(&format!("; its stderr ended: {words}"));
        }
        text
    }
}

impl Sink for CommandSink {
    fn write_block(&mut self, data: &[u8]) -> io::Result<()> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| io::Error::other("the consumer's input is closed"))?;
        match stdin.write_all(data) {
            Ok(()) => {
                self.taken += data.len() as u64;
                Ok(())
            }
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => match self.judge(BROKEN_WAIT) {
                Err(why) => Err(why),
                Ok(()) => Err(io::Error::other(self.failure_text(
                    "exited 0 before the stream ended (it stopped reading)",
                ))),
            },
            Err(e) => Err(e),
        }
    }

    fn finish(&mut self) -> io::Result<()> {
        self.judge(self.exit_wait)
    }

    fn finish_early(&mut self) -> io::Result<()> {
        self.running.signal(Signal::SIGTERM);
        self.stdin = None;
        self.running.end();
        Ok(())
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn attach_stop(&mut self, stop: &Receiver<()>) {
        self.stop = Some(stop.clone());
    }

    fn traits(&self) -> SinkTraits {
        SinkTraits::stream(Some(format!("tapebuf writes to {} itself", self.name)))
    }
}

impl Drop for CommandSink {
    /// A consumer never outlives its sink: one not yet judged is ended.
    fn drop(&mut self) {
        if self.stdin.is_some() {
            self.stdin = None;
            self.running.end();
        }
    }
}
