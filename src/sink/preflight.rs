//! Checks every output before any is opened, so that a refused command line
//! leaves nothing behind: an existing regular file without -f/--append, a
//! directory, an output that is the input under another name, an output
//! named twice, and a character device that is neither a tape drive nor
//! harmless (`tape::char_devices`; `--any-device` lets it through). The
//! volumes of a numbered name are checked in order, so a refusal names the
//! first one in the way. The checks change nothing on disk; the plan they
//! return says how each output is to be opened.

use std::path::{Path, PathBuf};

use super::settings::OutputSettings;
use super::spec::{ExistingFile, OutputSpec};
use super::OpenError;
use crate::base::child::ChildSpec;
use crate::base::console::message;
use crate::base::create;
use crate::base::errors::ConfigError;
use crate::base::file_id::{Identity, Kind};
use crate::net::PeerAddr;
use crate::rmt::name::RemoteName;
use crate::tape::drive::char_devices::{self, CharDevice, Direction, Verdict};
use crate::tape::AtEnd;
use crate::volume::names::no_rewind_name;
use crate::volume::{trailer_marker, VolumeNames};

/// How one output is to be opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    Stdout,
    /// Nothing is there: create it, exclusively.
    Create(PathBuf),
    /// A regular file the user allowed us to truncate.
    Truncate(PathBuf),
    /// A regular file the user asked to extend.
    Append(PathBuf),
    /// A device, FIFO or socket: open it as it is.
    AsIs(PathBuf),
    /// A TCP receiver (`-O`).
    Connect(PeerAddr),
    /// A remote tape or file, over rmt.
    Remote(RemoteName),
    /// A consumer command (`--to`).
    Command(ChildSpec),
}

/// Checks all outputs against each other and against the input.
pub fn check(
    outputs: &[OutputSpec],
    config: &OutputSettings,
    input: Option<Identity>,
) -> Result<Vec<Plan>, OpenError> {
    let mut seen: Vec<(Identity, String)> = Vec::new();
    // Files still to be created, by directory and name: `-o a -o ./a`.
    let mut new_files: NewFiles = Vec::new();
    let mut plans = Vec::with_capacity(outputs.len());
    for spec in outputs {
        let name = spec.display_name();
        let (plan, identity) = match spec {
            OutputSpec::Stdout => {
                char_devices::check_fd(
                    std::io::stdout(),
                    Direction::Output,
                    config.endpoint.any_device,
                )
                .map_err(OpenError::Refused)?;
                (Plan::Stdout, Identity::of_fd(std::io::stdout()))
            }
            OutputSpec::Connect(peer) => (Plan::Connect(peer.clone()), None),
            OutputSpec::Command(cmd) => (Plan::Command(cmd.clone()), None),
            OutputSpec::Remote(remote) => {
                let twice = plans
                    .iter()
                    .any(|p| matches!(p, Plan::Remote(r) if r == remote));
                if twice {
                    return Err(OpenError::Conflict(format!(
                        "{remote} is named twice; every output would get the data twice"
                    )));
                }
                (Plan::Remote(remote.clone()), None)
            }
            OutputSpec::File(pattern) => plan_file(pattern, &name, config, &mut new_files)?,
        };
        if let Some(id) = identity {
            // A socket carries each way apart (`socat ... EXEC:tapebuf`).
            if input == Some(id) && id.holds_data() && id.kind != Kind::Socket {
                return Err(OpenError::Conflict(format!(
                    "{name} is the input; writing it while reading it would destroy it"
                )));
            }
            if let Some((_, first)) = seen.iter().find(|(other, _)| *other == id) {
                return Err(OpenError::Conflict(format!(
                    "{name} is the same file as {first}; every output would get the data twice"
                )));
            }
            seen.push((id, name));
        }
        plans.push(plan);
    }
    Ok(plans)
}

/// Files still to be created, by directory and name (`-o a -o ./a`), with
/// the name the first was given as.
type NewFiles = Vec<(Option<Identity>, std::ffi::OsString, String)>;

/// The plan for a file output (volume 1 of a numbered one), and what is
/// there now.
fn plan_file(
    pattern: &Path,
    name: &str,
    config: &OutputSettings,
    new_files: &mut NewFiles,
) -> Result<(Plan, Option<Identity>), OpenError> {
    let names =
        VolumeNames::parse(pattern).map_err(|why| OpenError::Conflict(format!("{name}: {why}")))?;
    let first = if names.is_numbered() {
        names.volume(1)
    } else {
        pattern.to_path_buf()
    };
    let path = &first;
    refuse_links(path, name)?;
    let identity = Identity::of_path(path).map_err(|e| {
        OpenError::Io(anyhow::Error::new(e).context(format!("-o {name}: cannot inspect")))
    })?;
    let plan = match identity.map(|i| i.kind) {
        None if under_dev(path) => return Err(no_device(name)),
        None => {
            let dir = match path.parent() {
                Some(d) if !d.as_os_str().is_empty() => d,
                _ => std::path::Path::new("."),
            };
            let key = (
                Identity::of_path(dir).ok().flatten(),
                path.file_name().unwrap_or_default().to_os_string(),
            );
            if let Some((_, _, first)) = new_files
                .iter()
                .find(|(d, f, _)| (d, f) == (&key.0, &key.1))
            {
                return Err(OpenError::Conflict(format!(
                    "{name} is the same file as {first}; every output would get the data twice"
                )));
            }
            new_files.push((key.0, key.1, name.to_string()));
            Plan::Create(path.clone())
        }
        Some(Kind::Regular) => plan_path(path, config.existing)?,
        Some(_) if path.is_dir() => {
            return Err(OpenError::Refused(ConfigError::new(
                format!("-o {name}"),
                "is a directory; name a file in it",
            )))
        }
        Some(_) => {
            char_devices::check_path(path, Direction::Output, config.endpoint.any_device)
                .map_err(OpenError::Refused)?;
            Plan::AsIs(path.clone())
        }
    };
    // After volume 1, so that a refusal names the first volume
    // that is in the way (a rerun finds them all).
    check_later_volumes(&names, config.existing, config.endpoint.any_device)?;
    if config.existing == ExistingFile::Append {
        refuse_append_onto_backup(&names, name, config.volume_size)?;
    }
    Ok((plan, identity))
}

/// How to open one path that may already exist, under the user's policy
/// for existing files. Used for every later volume too.
pub fn plan_path(path: &Path, existing: ExistingFile) -> Result<Plan, OpenError> {
    let name = path.display().to_string();
    refuse_links(path, &name)?;
    let identity = Identity::of_path(path).map_err(|e| {
        OpenError::Io(anyhow::Error::new(e).context(format!("-o {name}: cannot inspect")))
    })?;
    Ok(match identity.map(|i| i.kind) {
        None if under_dev(path) => return Err(no_device(&name)),
        None => Plan::Create(path.to_path_buf()),
        Some(Kind::Regular) => match existing {
            ExistingFile::Refuse => return Err(OpenError::Exists(name)),
            ExistingFile::Truncate => Plan::Truncate(path.to_path_buf()),
            ExistingFile::Append => Plan::Append(path.to_path_buf()),
        },
        Some(_) => Plan::AsIs(path.to_path_buf()),
    })
}

/// Refuses a symlink at `path` that `base::create` would not follow (one
/// another user owns, which could have been planted) and a symlink to
/// nothing, which tapebuf never creates a file through.
fn refuse_links(path: &Path, name: &str) -> Result<(), OpenError> {
    let refuse = |why: String| OpenError::Refused(ConfigError::new(format!("-o {name}"), why));
    if let Some(why) = create::foreign_link(path) {
        return Err(refuse(why));
    }
    let dangling = path
        .symlink_metadata()
        .is_ok_and(|m| m.file_type().is_symlink())
        && std::fs::metadata(path).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound);
    if dangling {
        return Err(refuse(
            "is a symbolic link to nothing; tapebuf creates no file through a link".into(),
        ));
    }
    Ok(())
}

/// True when `path` would be made in `/dev`, which holds devices and
/// lives in memory: a missing tape drive is not a file to create there.
/// `/dev/shm` is the one place there meant for files.
fn under_dev(path: &Path) -> bool {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::canonicalize(dir).is_ok_and(|d| d.starts_with("/dev") && !d.starts_with("/dev/shm"))
}

/// The refusal of a device that is not there (`-o /dev/nst0` on a machine
/// without a drive).
fn no_device(name: &str) -> OpenError {
    OpenError::Refused(ConfigError::new(
        format!("-o {name}"),
        "no such device; tapebuf writes only to a device that is there \
         (is the drive attached and its driver loaded?)",
    ))
}

/// With a numbered name, the files of later volumes are checked now, so
/// that a refusal comes before the backup starts and not hours into it:
/// existing files without -f/--append, and devices that are neither tapes
/// nor harmless (`-o /dev/sg%d`).
fn check_later_volumes(
    names: &VolumeNames,
    existing: ExistingFile,
    any_device: bool,
) -> Result<(), OpenError> {
    if !names.is_numbered() {
        return Ok(());
    }
    for n in 2..=MAX_CHECKED_VOLUMES {
        let path = names.volume(n);
        if Identity::of_path(&path).ok().flatten().is_none() {
            break;
        }
        char_devices::check_path(&path, Direction::Output, any_device)
            .map_err(OpenError::Refused)?;
        refuse_links(&path, &path.display().to_string())?;
        if existing == ExistingFile::Refuse {
            plan_path(&path, existing)?;
        }
    }
    Ok(())
}

/// `--append` onto files that hold another tapebuf backup's volumes is
/// refused before any byte: appending would grow a volume past what its
/// trailer says and replace that trailer, so that backup would no longer
/// restore. So is appending to a volume 1 that is not empty under `-D`,
/// which would grow it past the volume size.
fn refuse_append_onto_backup(
    names: &VolumeNames,
    name: &str,
    volume_size: Option<u64>,
) -> Result<(), OpenError> {
    let refuse = |why: String| OpenError::Refused(ConfigError::new(format!("-o {name}"), why));
    for n in 1..=MAX_CHECKED_VOLUMES {
        let path = names.volume(n);
        if !path.is_file() {
            break;
        }
        match trailer_marker::read_volume_trailer(&path) {
            Ok(None) => {}
            Ok(Some((t, _))) => {
                return Err(refuse(format!(
                    "--append: {} is volume {} of another tapebuf backup (its trailer says it ends {} after {} bytes); appending would grow it and replace that trailer, and that backup would no longer restore; write to a new name",
                    path.display(),
                    t.volume,
                    t.ends.word(),
                    t.volume_bytes
                )))
            }
            Err(e) => {
                return Err(refuse(format!(
                    "--append: {} carries a tapebuf trailer that cannot be read ({e}); it is taken as another backup's volume and not appended to",
                    path.display()
                )))
            }
        }
        if !names.is_numbered() {
            break;
        }
    }
    let held = std::fs::metadata(names.volume(1)).map_or(0, |m| m.len());
    match volume_size {
        Some(size) if held > 0 => Err(refuse(format!(
            "--append: volume 1 ({}) already holds {held} bytes, and -D/--volume-size {size} counts the bytes of a volume from its start; appending would grow it past the volume size",
            names.volume_name(1)
        ))),
        _ => Ok(()),
    }
}

/// How far ahead existing volume files are looked for.
const MAX_CHECKED_VOLUMES: u32 = 10_000;

/// The warnings for outputs that are rewinding tape nodes (`/dev/st0`
/// rather than `/dev/nst0`), when the run means to leave the tape where
/// it ends (no --rewind or --eject), so that the next run appends: the
/// drive rewinds at close all the same, and the next write to the tape
/// overwrites this one. A local device is judged by st's minor number,
/// a remote one by its name. One line each; printed even with -q, since
/// it protects data, and silenced by saying --rewind.
pub fn rewinding_warnings(outputs: &[OutputSpec], at_end: AtEnd) -> Vec<String> {
    if at_end != AtEnd::Stay {
        return Vec::new();
    }
    let mut lines = Vec::new();
    for spec in outputs {
        let instead = match spec {
            OutputSpec::File(path) => match CharDevice::at_path(path) {
                Some(d) if d.verdict() == (Verdict::Tape { rewinding: true }) => Some(
                    no_rewind_name(path)
                        .map(|p| p.display().to_string())
                        .unwrap_or_else(|| format!("(minor {})", d.minor | 0x80)),
                ),
                _ => None,
            },
            OutputSpec::Remote(remote) if remote.is_device() => {
                no_rewind_name(Path::new(&remote.path)).map(|p| {
                    let mut other = remote.clone();
                    other.path = p.display().to_string();
                    other.to_string()
                })
            }
            _ => None,
        };
        if let Some(instead) = instead {
            lines.push(message!(
                "-o {}: warning: a rewinding tape node; the drive rewinds when \
                 tapebuf closes it, so the next write to this tape overwrites this backup; \
                 use the no-rewind node {instead} to append, or --rewind if the rewind is meant",
                spec.display_name()
            ));
        }
    }
    lines
}
