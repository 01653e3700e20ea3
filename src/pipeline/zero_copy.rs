//! Which ring a run gets: the zero-copy ring of kernel pipes, where the
//! endpoints allow it, or the copying ring of mapped memory.
//!
//! The zero-copy ring keeps each block in a pipe of its own, filled by
//! splice(2) from the input and drained by splice(2) to the output (tee(2)
//! first, for each of several outputs), so no byte crosses user space. It
//! is chosen only when nothing must see the bytes: the input and every
//! output splice (`Source::splice_refusal`, `SinkTraits::splice_refusal`), no
//! `--hash` tap reads them, and no `--pad` writes zeros. Then the kernel
//! must grant the pipes:
//! - a block must be a power of two pages, since the kernel rounds a
//!   pipe's size up to one, and `-m` must bound the pipes' memory;
//! - a pipe larger than `fs.pipe-max-size` (1 MiB by default) needs
//!   CAP_SYS_RESOURCE;
//! - an ordinary user's pipes together may hold `fs.pipe-user-pages-soft`
//!   pages (64 MiB by default), root's are not limited;
//! - every pipe takes two descriptors: the soft `ulimit -n` is raised to
//!   the hard one when the ring needs it.
//!
//! With `--zero-copy=auto`, anything refused falls back to the copying ring
//! and the summary says why; with `--zero-copy=on` it ends the run. Every
//! reason is a clause in plain words that names the endpoint or the flag
//! ("--manifest hashes every byte"), so that it reads after "because".

use std::io;

use crate::base::block::Tap;
use crate::base::kernel_pipe::{
    pipe_bytes_for, pipe_max_bytes, user_pipe_soft_limit_bytes, KernelPipe,
};
use crate::base::size::Bytes;
use crate::sink::Sink;
use crate::source::Source;

/// The user's choice (`--zero-copy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ZeroCopy {
    /// The zero-copy ring where the endpoints allow it, else the copying one.
    #[default]
    Auto,
    /// The zero-copy ring, or no run.
    On,
    /// Always the copying ring.
    Off,
}

/// Which ring ran and why, for the summary and `--stats`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RingPath {
    pub zero_copy: bool,
    /// Why the copying ring ran, a clause that reads after "because";
    /// empty for the zero-copy ring.
    pub why: String,
    /// The ring's pipes and the fan-out's, in bytes (kernel memory).
    pub pipe_bytes: u64,
    pub pipes: usize,
}

impl RingPath {
    fn copying(why: impl Into<String>) -> RingPath {
        RingPath {
            why: why.into(),
            ..RingPath::default()
        }
    }

    /// A few words for the summary.
    pub fn describe(&self, peak_held_bytes: u64) -> String {
        match self.zero_copy {
            true => format!(
                "zero-copy ring: {} pipes, {} of kernel pipe memory, peak {} held",
                self.pipes,
                Bytes(self.pipe_bytes),
                Bytes(peak_held_bytes.min(self.pipe_bytes))
            ),
            false => format!("copying ring, because {}", self.why),
        }
    }
}

/// What the engine gets: the pipes for the ring's blocks and the fan-out's,
/// or the copying ring and why.
pub enum Chosen {
    Pipes {
        ring: Vec<KernelPipe>,
        fanout: Vec<KernelPipe>,
        path: RingPath,
    },
    Copying(RingPath),
}

/// Why the endpoints cannot use the zero-copy ring, if they cannot: the
/// first reason, as a clause naming the flag or the endpoint.
pub fn endpoints_refusal(
    source: &dyn Source,
    sinks: &[Box<dyn Sink>],
    taps: &[Box<dyn Tap>],
    pad: bool,
) -> Option<String> {
    if !taps.is_empty() {
        return Some("--hash reads every byte".into());
    }
    if pad {
        return Some("--pad writes zeros after the last byte".into());
    }
    source
        .splice_refusal()
        .or_else(|| sinks.iter().find_map(|s| s.traits().splice_refusal))
}

/// Chooses the ring for `blocks` blocks of `block_bytes`, given why the
/// endpoints refuse it (if they do). Err only when `On` was asked for.
pub fn choose(
    wanted: ZeroCopy,
    refusal: Option<String>,
    blocks: usize,
    block_bytes: usize,
    outputs: usize,
) -> Result<Chosen, String> {
    let refused = match (wanted, refusal) {
        (ZeroCopy::Off, _) => Some("--zero-copy=off asks for it".to_string()),
        (_, Some(why)) => Some(why),
        _ => None,
    };
    let made = match refused {
        Some(why) => Err(why),
        None => make_pipes(blocks, block_bytes, outputs),
    };
    match (made, wanted) {
        (Ok(chosen), _) => Ok(chosen),
        (Err(why), ZeroCopy::On) => Err(why),
        (Err(why), _) => Ok(Chosen::Copying(RingPath::copying(why))),
    }
}

/// Makes a pipe for every block, and one per output when there are
/// several (tee needs an empty pipe of its own to copy into).
fn make_pipes(blocks: usize, block_bytes: usize, outputs: usize) -> Result<Chosen, String> {
    let Some(pipe_bytes) = pipe_bytes_for(block_bytes) else {
        return Err(format!(
            "a block of {block_bytes} bytes (-s) is not a power of two pages (such as 256k or 1M), the only sizes the kernel makes pipes in"
        ));
    };
    let fanout_pipes = if outputs > 1 { outputs } else { 0 };
    let count = blocks + fanout_pipes;
    let total = count as u64 * pipe_bytes as u64;
    make_room_for_descriptors(2 * count)?;
    let mut pipes = Vec::with_capacity(count);
    for _ in 0..count {
        match KernelPipe::new(pipe_bytes) {
            Ok(p) => pipes.push(p),
            Err(e) => return Err(why_no_pipe(&e, pipe_bytes, total)),
        }
    }
    let fanout = pipes.split_off(blocks);
    Ok(Chosen::Pipes {
        ring: pipes,
        fanout,
        path: RingPath {
            zero_copy: true,
            why: String::new(),
            pipe_bytes: total,
            pipes: count,
        },
    })
}

/// The user's words for the kernel refusing a pipe.
fn why_no_pipe(e: &io::Error, pipe_bytes: usize, total: u64) -> String {
    let max = pipe_max_bytes();
    match e.raw_os_error() {
        Some(libc::EPERM) if max.is_some_and(|m| pipe_bytes > m) => format!(
            "a block of {pipe_bytes} bytes (-s) is larger than fs.pipe-max-size ({} bytes), which only a process with CAP_SYS_RESOURCE may exceed",
            max.unwrap_or(0)
        ),
        Some(libc::EPERM) => format!(
            "the ring (-m) needs {} of pipes, more than this user may hold in pipes (fs.pipe-user-pages-soft, {}, counts all of the user's pipes); use a smaller -m, or run as root",
            Bytes(total),
            user_pipe_soft_limit_bytes().map_or("unset".to_string(), |b| Bytes(b).to_string())
        ),
        Some(libc::EMFILE) | Some(libc::ENFILE) => format!("no file descriptors were left for the ring's pipes ({e})"),
        _ => format!("the kernel would not make the ring's pipes ({e})"),
    }
}

/// Raises the soft limit on open descriptors to the hard one if `more`
/// new descriptors would not fit under it.
fn make_room_for_descriptors(more: usize) -> Result<(), String> {
    use nix::sys::resource::{getrlimit, setrlimit, Resource};
    let open = std::fs::read_dir("/proc/self/fd").map_or(64, |d| d.count()) as u64;
    let needed = open + more as u64 + 16;
    let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE).map_err(|e| e.to_string())?;
    if needed <= soft {
        return Ok(());
    }
    if needed > hard {
        return Err(format!(
            "the ring's pipes need {needed} file descriptors and 'ulimit -Hn' allows {hard}; use a smaller -m or a larger -s"
        ));
    }
    setrlimit(Resource::RLIMIT_NOFILE, hard, hard).map_err(|e| {
        format!("'ulimit -n' could not be raised to {hard} for the ring's pipes ({e})")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_always_gives_the_copying_ring_and_says_so() {
        let Ok(Chosen::Copying(path)) = choose(ZeroCopy::Off, None, 4, 1 << 16, 1) else {
            panic!("expected the copying ring");
        };
        assert!(!path.zero_copy);
        assert_eq!(path.why, "--zero-copy=off asks for it");
        assert_eq!(
            path.describe(0),
            "copying ring, because --zero-copy=off asks for it"
        );
    }

    #[test]
    fn auto_falls_back_with_the_endpoints_reason_and_on_refuses_with_it() {
        let why = Some("--hash reads every byte".to_string());
        let Ok(Chosen::Copying(path)) = choose(ZeroCopy::Auto, why.clone(), 4, 1 << 16, 1) else {
            panic!("expected the copying ring");
        };
        assert_eq!(path.why, "--hash reads every byte");
        assert_eq!(
            choose(ZeroCopy::On, why, 4, 1 << 16, 1).err().unwrap(),
            "--hash reads every byte"
        );
    }

    #[test]
    fn a_block_that_is_not_a_power_of_two_pages_keeps_the_copying_ring() {
        let Ok(Chosen::Copying(path)) = choose(ZeroCopy::Auto, None, 4, 96 << 10, 1) else {
            panic!("expected the copying ring");
        };
        assert!(path.why.contains("power of two pages"), "{}", path.why);
    }

    #[test]
    fn the_pipes_are_one_per_block_and_one_per_output_of_several() {
        let Ok(Chosen::Pipes { ring, fanout, path }) = choose(ZeroCopy::On, None, 5, 1 << 16, 3)
        else {
            panic!("expected the zero-copy ring");
        };
        assert_eq!((ring.len(), fanout.len()), (5, 3));
        assert_eq!(path.pipes, 8);
        assert_eq!(path.pipe_bytes, 8 << 16);
        assert!(ring.iter().all(|p| p.bytes() == 1 << 16));
        let Ok(Chosen::Pipes { fanout, .. }) = choose(ZeroCopy::On, None, 2, 1 << 16, 1) else {
            panic!("expected the zero-copy ring");
        };
        assert!(fanout.is_empty(), "one output splices the block itself");
    }
}
