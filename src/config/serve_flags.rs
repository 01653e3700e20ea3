//! `--senders N` and `--streams N`: one `-I` port serving many senders,
//! each stream to its own files. Every option of the buffer is judged by
//! what it would mean for one stream among many (`scope`, a table that
//! names every option clap knows; a test holds it to clap's list): most
//! apply to each stream as they would to a lone run, a few to the whole
//! service, and the rest are refused with a line that names them.

use std::path::{Path, PathBuf};

use super::ring_size::MIN_BLOCKS;
use crate::base::errors::ConfigError;
use crate::cli::Cli;
use crate::pipeline::Params;
use crate::sink::name_template::names_each_stream;
use crate::sink::spec::OutputSpec;
use crate::source::spec::InputSpec;

/// A receiver serving many senders.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServePlan {
    /// Streams at once; each gets 1/senders of the ring's blocks.
    pub senders: usize,
    /// End after this many streams; None: until a signal.
    pub streams: Option<u64>,
}

/// What an option means when one port serves many senders.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Applies to each stream as it would to a lone run.
    Each,
    /// A file per stream, named from a template (`sink::name_template`).
    Named,
    /// Applies to the service as a whole.
    Whole,
    /// Has no meaning here, for this reason.
    Refused(&'static str),
}

const NOT_A_TAPE: &str = "each served stream goes to a file of its own, not a tape";
const ONE_INPUT: &str = "the input of a service is its -I port";
const NO_REMOTE: &str = "each served stream goes to a local file, never over rmt";

/// What option `id` (clap's id) means with `--senders`; None for an
/// option this table does not know, which the tests refuse.
pub fn scope(id: &str) -> Option<Scope> {
    use Scope::*;
    Some(match id {
        "senders" | "streams" | "listen" | "log" | "quiet_log" | "pid" | "quiet"
        | "no_progress" => Whole,
        "outputs" | "manifest" | "hash_file" => Named,
        "allow" | "timeout" | "tcp_timeout" | "tcp_buffer" | "raw" | "plain" | "key" | "ca"
        | "cert" | "allow_key" | "allow_keys" | "ktls" | "hash" | "verify" | "block_size"
        | "memory" | "blocks" | "high_watermark" | "low_watermark" | "lock" | "force" | "sync"
        | "direct" | "no_direct" | "zero_copy" | "input_rate" | "output_rate" | "watchdog"
        | "verbose" | "ipv4" | "ipv6" | "resume_timeout" | "any_family" | "stop_on_error"
        | "device_block_size" | "temp_file" | "temp_file_path" | "tapeaware" => Each,
        "input" | "command" => Refused(ONE_INPUT),
        "connect" | "to" | "accept_status" => {
            Refused("each served stream goes to its own -o file (a template)")
        }
        "connect_timeout" => Refused("a service waits for senders until it ends"),
        "pin" => Refused("--pin is the sender's; a service allows senders by --allow-key"),
        "md5" => Refused(
            "mbuffer's \"MD5 hash:\" line cannot say which stream it is of; give --hash md5 \
             and a --manifest or --hash-file template",
        ),
        "catalog" => Refused("a catalog is written beside one manifest, not per stream yet"),
        "force_local" | "rsh_command" | "rmt_command" | "rmt_flavor" | "rmt_window" => {
            Refused(NO_REMOTE)
        }
        "append" => Refused("each served stream writes a new file"),
        "any_device" | "pad" | "rewind" | "eject" | "change_command" | "change_timeout"
        | "volume_size" | "volumes" | "pace" | "no_pace" | "changer" | "slots" | "barcodes"
        | "drive_elements" | "clean" | "autoloader_secs" | "no_lbp" | "encrypt_key" | "key_dir" => {
            Refused(NOT_A_TAPE)
        }
        "progress" | "size" | "status_interval" | "summary_json" | "stats" | "stats_interval" => {
            Refused(
                "it describes one stream; a service says each stream's summary on stderr and in -l",
            )
        }
        "pause" => Refused("tapebuf does not pause after each write"),
        _ => return None,
    })
}

/// The flag as the user knows it, for messages: `--id-with-dashes`.
fn flag(id: &str) -> String {
    match id {
        "outputs" => "-o/--output".into(),
        "listen" => "-I/--listen".into(),
        _ => format!("--{}", id.replace('_', "-")),
    }
}

/// The plan of a service, checked; None without `--senders`.
pub fn resolve(
    cli: &Cli,
    input: &InputSpec,
    outputs: &[OutputSpec],
) -> Result<Option<ServePlan>, ConfigError> {
    let Some(senders) = cli.serve.senders else {
        if cli.serve.streams.is_some() {
            return Err(ConfigError::new("--streams", "needs --senders"));
        }
        return Ok(None);
    };
    if !matches!(input, InputSpec::Listen(_)) {
        return Err(ConfigError::new("--senders", "only applies to -I/--listen"));
    }
    for id in &cli.given {
        match scope(id) {
            Some(Scope::Refused(why)) => {
                return Err(ConfigError::new(
                    flag(id),
                    format!("does not apply with --senders: {why}"),
                ))
            }
            None => {
                return Err(ConfigError::new(
                    flag(id),
                    "does not apply with --senders (not yet judged for a service)",
                ))
            }
            _ => {}
        }
    }
    let no_output_given = !cli.given.iter().any(|id| id == "outputs");
    if outputs.is_empty() || (no_output_given && outputs == [OutputSpec::Stdout]) {
        return Err(ConfigError::new(
            "--senders",
            "needs -o with a template naming each stream, e.g. -o '/vault/{name}-{seq}.zfs'",
        ));
    }
    for output in outputs {
        let OutputSpec::File(path) = output else {
            return Err(ConfigError::new(
                "-o/--output",
                format!(
                    "{}: with --senders, each output is a file named by a template",
                    output.display_name()
                ),
            ));
        };
        refuse_device(path)?;
        named_each_stream("-o/--output", path)?;
    }
    for (name, path) in [
        ("--manifest", &cli.manifest),
        ("--hash-file", &cli.hash_file),
    ] {
        if let Some(path) = path {
            named_each_stream(name, path)?;
        }
    }
    Ok(Some(ServePlan {
        senders: usize::from(senders),
        streams: cli.serve.streams,
    }))
}

/// Refuses a device (a tape drive, a disk) as a service's output: it is
/// not a template, and many streams cannot share it.
fn refuse_device(path: &Path) -> Result<(), ConfigError> {
    use std::os::unix::fs::FileTypeExt;
    let kind = std::fs::metadata(path).map(|m| m.file_type());
    if kind.is_ok_and(|k| k.is_char_device() || k.is_block_device()) {
        return Err(ConfigError::new(
            "-o/--output",
            format!(
                "{}: is a device; with --senders {NOT_A_TAPE}",
                path.display()
            ),
        ));
    }
    Ok(())
}

/// Refuses a template that would give every stream the same file.
fn named_each_stream(flag: &str, path: &Path) -> Result<(), ConfigError> {
    if names_each_stream(path) {
        return Ok(());
    }
    let example: PathBuf = match path.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(dir) => dir.join("{name}-{seq}.out"),
        None => PathBuf::from("{name}-{seq}.out"),
    };
    Err(ConfigError::new(
        flag,
        format!(
            "{}: with --senders this is a template, and it names no field, so every stream \
             would write the same file; use {{name}}, {{peer}}, {{seq}} or {{time}}, e.g. {}",
            path.display(),
            example.display()
        ),
    ))
}

/// The plan of a service (None without `--senders`), and the memory of
/// each stream's ring: its share of `-m`, or all of it for a lone run.
pub fn plan(
    cli: &Cli,
    input: &InputSpec,
    outputs: &[OutputSpec],
    ring: &Params,
) -> Result<(Option<ServePlan>, u64), ConfigError> {
    let serve = resolve(cli, input, outputs)?;
    let memory = match serve {
        Some(plan) => stream_memory(plan, ring)?,
        None => ring.memory_bytes(),
    };
    Ok((serve, memory))
}

/// The ring of each stream: `-m` shared out, 1/senders of its blocks
/// each, and so the bytes a sender's block may hold at most.
pub fn stream_memory(plan: ServePlan, ring: &Params) -> Result<u64, ConfigError> {
    let blocks = stream_blocks(plan, ring);
    if (blocks as u64) < MIN_BLOCKS {
        return Err(ConfigError::new(
            "-m/--memory",
            format!(
                "{} blocks of {} bytes shared by --senders {} leave each stream fewer than {MIN_BLOCKS}; \
                 give a larger -m or a smaller -s",
                ring.blocks, ring.block_bytes, plan.senders
            ),
        ));
    }
    Ok(blocks as u64 * ring.block_bytes as u64)
}

/// The blocks of each stream's ring.
pub fn stream_blocks(plan: ServePlan, ring: &Params) -> usize {
    ring.blocks / plan.senders.max(1)
}

#[cfg(test)]
#[path = "serve_flags_tests.rs"]
mod tests;
