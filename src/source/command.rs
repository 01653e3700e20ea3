//! The producer as the input: `tapebuf [OPTIONS] -- CMD [ARGS...]` runs
//! CMD with its standard output as the stream and its standard input
//! `/dev/null`.
//!
//! The end of CMD's output is the end of the input only when CMD then
//! exits 0 (or with a status `--accept-status` names). Any other status,
//! or death by a signal, is an input failure like a read error: the
//! trailer says `cut`, the manifest says not clean, a TCP receiver is told
//! the sender stopped early, and the run exits 1, naming the command, its
//! status and its last words on standard error. A CMD that closes its
//! output but keeps running is waited for at most `--timeout` seconds (60
//! without it), then ended, and that too is a failure.
//!
//! CMD is started by the reader thread at its first fill, once every
//! output is open: an output refused at the start never leaves a
//! producer half done.

use std::io;
use std::process::Stdio;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use crossbeam_channel::Receiver;

use super::{End, FdSource, Filled, Source};
pub use crate::base::child::EXIT_WAIT;
use crate::base::child::{ChildSpec, Running};
use crate::base::kernel_pipe::KernelPipe;

/// The producer, before and while it runs.
pub struct CommandSource {
    spec: ChildSpec,
    name: String,
    block_bytes: usize,
    exit_wait: Duration,
    stop: Option<Receiver<()>>,
    child: Option<(Running, FdSource)>,
    /// Bytes of its output read so far.
    read: u64,
    /// What the summary says of a producer that ended well: an accepted
    /// status, or the lines it wrote on stderr.
    note: Option<String>,
}

impl CommandSource {
    /// The producer `spec`, to be started at the first fill.
    /// `exit_wait`: `--timeout`, or [`EXIT_WAIT`].
    pub fn new(spec: ChildSpec, block_bytes: usize, exit_wait: Duration) -> CommandSource {
        CommandSource {
            name: format!("-- {}", spec.display),
            spec,
            block_bytes,
            exit_wait,
            stop: None,
            child: None,
            read: 0,
            note: None,
        }
    }

    /// The running producer and its output, started on first use.
    fn started(&mut self) -> io::Result<&mut FdSource> {
        if self.child.is_none() {
            let mut running = self
                .spec
                .spawn("producer", Stdio::null(), Stdio::piped())
                .map_err(|e| io::Error::new(e.kind(), format!("could not be started: {e}")))?;
            let out = running.child().stdout.take().expect("stdout was piped");
            let file = std::fs::File::from(std::os::fd::OwnedFd::from(out));
            crate::base::pipe_size::grow_to(&file, self.block_bytes);
            let source = FdSource::from_file(file, &self.name);
            self.child = Some((running, source));
        }
        Ok(&mut self.child.as_mut().expect("started just now").1)
    }

    /// A fill through `read`, with the producer started first and its
    /// exit status judged at the end of its output.
    fn judged(&mut self, read: impl FnOnce(&mut FdSource) -> Filled) -> Filled {
        let mut filled = match self.started() {
            Ok(source) => read(source),
            Err(e) => Filled {
                bytes: 0,
                end: End::Failed(e),
            },
        };
        self.read += filled.bytes as u64;
        if let End::Eof = filled.end {
            if let Err(why) = self.exit_status() {
                filled.end = End::Failed(io::Error::other(why));
            }
        }
        filled
    }

    /// After the producer's output ended: Ok when it exited well, else
    /// why not (it is ended if still running).
    fn exit_status(&mut self) -> Result<(), String> {
        let (running, _) = self
            .child
            .as_mut()
            .expect("a producer that ended was started");
        let failure = match running.settle(self.exit_wait, self.stop.as_ref(), |secs| {
            format!(
                "closed its output but was still running {secs} s later (--timeout); tapebuf ended it"
            )
        }) {
            Ok(code) => {
                self.note = success_note(running, code);
                return Ok(());
            }
            Err(why) => why,
        };
        let failure = format!("{failure} after {} bytes", self.read);
        Err(match running.last_words() {
            Some(words) => format!("{failure}; its stderr ended: {words}"),
            None => failure,
        })
    }
}

/// What the summary says of a producer that succeeded: the status
/// accepted, and the lines it wrote on stderr (which went to `-l` only).
fn success_note(running: &Running, code: i32) -> Option<String> {
    let lines = running.stderr_lines();
    let mut parts = Vec::new();
    if code != 0 {
        parts.push(format!("exited {code}, accepted by --accept-status"));
    }
    if lines > 0 {
        parts.push(format!(
            "{lines} line{} on stderr, in the -l file if one was given",
            if lines == 1 { "" } else { "s" }
        ));
    }
    (!parts.is_empty()).then(|| format!("producer {}", parts.join(", ")))
}

impl Source for CommandSource {
    fn fill(&mut self, buf: &mut [u8], arrived: &AtomicU64) -> Filled {
        self.judged(|source| source.fill(buf, arrived))
    }

    fn fill_pipe(&mut self, pipe: &KernelPipe, want: usize, arrived: &AtomicU64) -> Filled {
        self.judged(|source| source.fill_pipe(pipe, want, arrived))
    }

    /// A pipe: the zero-copy ring may splice from it.
    fn splice_refusal(&self) -> Option<String> {
        None
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn attach_stop(&mut self, stop: &Receiver<()>) {
        self.stop = Some(stop.clone());
    }

    fn note(&self) -> Option<String> {
        self.note.clone()
    }

    /// "the producer `tar cf - /etc` exited with status 2 after 10240
    /// bytes; its stderr ended: ..." (the bytes are its own, which are the
    /// stream's).
    fn failure_line(&self, _at: u64, e: &io::Error) -> String {
        format!("the producer `{}` {e}", self.spec.display)
    }
}
