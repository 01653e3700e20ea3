//! The one registry of every path a run touches, for every command: the
//! buffer, `verify`, `extract`, `ls`, `report`, `probe`, `drive`,
//! `library` and `rmt` each register what they read and write (inputs,
//! outputs, every volume, the manifest, the catalog, each report file,
//! recordings, and the process's own standard input and output when they
//! carry data) before any byte moves. Files are keyed by identity (device
//! and inode, through links, `/proc/self/fd/N` and `/dev/stdout`) for every
//! kind of file, pipes, FIFOs, sockets and devices included; a file still
//! to be made by its directory's identity and its name.
//!
//! The rules, the same for every command:
//! - two paths that are one file clash unless both are read, or the file
//!   keeps nothing and mixes nothing (`/dev/null`, `/dev/zero`, a
//!   terminal: [`Identity::shareable`]);
//! - a socket carries each direction apart, so reading it and writing it
//!   do not clash (`socat ... EXEC:tapebuf`), but two writers do;
//! - where a regular file is needed (a volume read by seeking, a catalog,
//!   a manifest, a recording) anything else is refused by `stat`, never by
//!   opening it, so a FIFO with no writer cannot hang the run;
//!   [`open_regular`] opens such a file without waiting and checks again.
//!
//! A refusal is a [`ConfigError`], one line naming both paths, and every
//! caller ends with the usage exit status before any byte.

use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::os::fd::AsFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use super::errors::ConfigError;
use super::file_id::{Identity, Kind};

/// What a run does with a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Data or a file the run reads.
    Read,
    /// The data the run writes: the backup, an archive, a probe's target.
    Write,
    /// A file written beside the data: a log, stats, a summary, a
    /// manifest, a catalog, a hash file, a picture.
    Report,
}

/// What the file must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// Any kind of file (a tape drive, a pipe, a device).
    Any,
    /// A regular file: a numbered volume, a catalog, a manifest, a
    /// recording; a FIFO there would hang the run or lose the file.
    Regular,
}

/// Where a file is, or would be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Spot {
    Existing(Identity),
    /// Not there yet: its directory (if that is there) and its name.
    New(Option<Identity>, OsString),
}

impl Spot {
    /// Looks `path` up, following links.
    pub fn of(path: &Path) -> Spot {
        match Identity::of_path(path).ok().flatten() {
            Some(id) => Spot::Existing(id),
            None => Spot::New(
                Identity::of_path(parent(path)).ok().flatten(),
                path.file_name().unwrap_or_default().to_os_string(),
            ),
        }
    }

    /// True when the two are one file that writing one would harm.
    pub fn same_as(&self, other: &Spot) -> bool {
        match (self, other) {
            (Spot::Existing(a), Spot::Existing(b)) => a == b && a.holds_data(),
            (Spot::New(Some(d), a), Spot::New(Some(e), b)) => d == e && a == b,
            _ => false,
        }
    }

    fn kind(&self) -> Option<Kind> {
        match self {
            Spot::Existing(id) => Some(id.kind),
            Spot::New(..) => None,
        }
    }
}

/// One path of the run: how to name it, what the run does with it, and
/// where it is.
#[derive(Debug, Clone)]
pub struct Use {
    pub what: String,
    pub role: Role,
    pub spot: Spot,
}

/// Why `later` may not be the same file as `earlier`, or None when it may.
pub fn clash(later: &Use, earlier: &Use) -> Option<String> {
    if !later.spot.same_as(&earlier.spot) {
        return None;
    }
    let roles = (later.role, earlier.role);
    if roles == (Role::Read, Role::Read) {
        return None;
    }
    let socket = later.spot.kind() == Some(Kind::Socket);
    if socket && (later.role == Role::Read || earlier.role == Role::Read) {
        return None;
    }
    let stream = matches!(
        later.spot.kind(),
        Some(Kind::Fifo | Kind::Socket | Kind::CharDevice)
    );
    let why = match (stream, roles) {
        (false, (_, Role::Read) | (Role::Read, _)) => {
            "writing it there would destroy what the run reads"
        }
        (false, (_, Role::Write) | (Role::Write, _)) => "writing it there would destroy the backup",
        (false, _) => "one would overwrite the other",
        (true, (_, Role::Read) | (Role::Read, _)) => {
            "the run would read what it writes there, and never end"
        }
        (true, (_, Role::Write) | (Role::Write, _)) => {
            "what is written there would be mixed into the data"
        }
        (true, _) => "the two would be mixed in one stream",
    };
    Some(format!("is the same file as {}; {why}", earlier.what))
}

/// Refuses `path` where a regular file is needed, by `stat` alone (no
/// open, which waits for a FIFO's writer); a path with nothing there is
/// left to the open. `/dev/null` may be read (it is empty, at once: an
/// empty configuration), never written in a regular file's place.
pub fn need_regular(what: &str, path: &Path, role: Role) -> Result<(), ConfigError> {
    match Identity::of_path(path) {
        Ok(Some(id)) if role == Role::Read && id.is_null() => Ok(()),
        Ok(Some(id)) if id.kind != Kind::Regular => Err(ConfigError::new(
            what,
            format!("is {}; it must be a regular file", id.kind.words()),
        )),
        _ => Ok(()),
    }
}

/// The text of the small regular file at `path`, at most `max` bytes of
/// it (a list of keys, a certificate): opened as `open_regular` opens, so
/// a FIFO or a device never holds the read up.
pub fn read_small_text(path: &Path, max: u64) -> io::Result<String> {
    use std::io::Read;
    let mut text = String::new();
    open_regular(path)?.take(max).read_to_string(&mut text)?;
    Ok(text)
}

/// Opens `path` for reading without waiting (`O_NONBLOCK`, so a FIFO with
/// no writer cannot hang the open) and refuses anything but a regular
/// file. On a regular file `O_NONBLOCK` changes nothing.
pub fn open_regular(path: &Path) -> io::Result<File> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let kind = Identity::of_fd(&file).map(|id| id.kind);
    match kind {
        Some(Kind::Regular) => Ok(file),
        Some(kind) => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("is {}; it must be a regular file", kind.words()),
        )),
        None => Err(io::Error::other("cannot tell what it is")),
    }
}

/// Every path a run touches, registered before any byte moves.
#[derive(Debug, Default)]
pub struct Registry {
    uses: Vec<Use>,
}

impl Registry {
    pub fn new() -> Registry {
        Registry::default()
    }

    /// Registers `path`, named `what` ("-l x.log"), refusing it when it
    /// clashes with a path registered before, or is not what `need` asks.
    pub fn path(
        &mut self,
        what: impl Into<String>,
        path: &Path,
        role: Role,
        need: Need,
    ) -> Result<(), ConfigError> {
        let what = what.into();
        if need == Need::Regular {
            need_regular(&what, path, role)?;
        }
        self.add(Use {
            what,
            role,
            spot: Spot::of(path),
        })
    }

    /// Registers an inherited descriptor (standard input or output) that
    /// carries the run's data.
    pub fn fd(
        &mut self,
        what: impl Into<String>,
        fd: impl AsFd,
        role: Role,
    ) -> Result<(), ConfigError> {
        match Identity::of_fd(fd) {
            Some(id) => self.add(Use {
                what: what.into(),
                role,
                spot: Spot::Existing(id),
            }),
            None => Ok(()),
        }
    }

    /// Registers `u`, refusing it when it clashes with an earlier path.
    pub fn add(&mut self, u: Use) -> Result<(), ConfigError> {
        if let Some(why) = self.uses.iter().find_map(|e| clash(&u, e)) {
            return Err(ConfigError::new(u.what, why));
        }
        self.uses.push(u);
        Ok(())
    }

    /// A command with one path and its answer on standard output
    /// (`drive` and `library` read `path`, `probe` writes it): `path`
    /// must not be that output's pipe or file.
    pub fn one_path_and_stdout(what: &str, path: &Path, role: Role) -> Result<(), ConfigError> {
        let mut registry = Registry::new();
        registry.fd("standard output", std::io::stdout(), Role::Report)?;
        registry.path(what, path, role, Need::Any)
    }

    /// The first registered path that is the file at `spot`.
    pub fn find(&self, spot: &Spot) -> Option<&Use> {
        self.uses.iter().find(|u| u.spot.same_as(spot))
    }
}

/// The directory a path is in; `.` for a bare name.
pub fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn regular() -> Spot {
        Spot::Existing(Identity {
            dev: 1,
            ino: 2,
            kind: Kind::Regular,
            rdev: 0,
        })
    }

    fn used(role: Role, spot: Spot) -> Use {
        Use {
            what: format!("{role:?}"),
            role,
            spot,
        }
    }

    #[test]
    fn two_reads_of_one_file_never_clash_and_a_write_always_does() {
        let r = used(Role::Read, regular());
        assert_eq!(clash(&used(Role::Read, regular()), &r), None);
        for role in [Role::Write, Role::Report] {
            assert!(clash(&used(role, regular()), &r).is_some(), "{role:?}");
            assert!(clash(&r, &used(role, regular())).is_some(), "{role:?}");
        }
    }

    #[test]
    fn a_null_device_takes_any_number_of_writers() {
        let null = Identity::of_path(Path::new("/dev/null")).unwrap().unwrap();
        assert!(null.shareable());
        let a = used(Role::Report, Spot::Existing(null));
        assert_eq!(clash(&used(Role::Write, Spot::Existing(null)), &a), None);
    }

    #[test]
    fn a_pipe_read_and_written_clashes_and_a_socket_only_when_written_twice() {
        let (r, _w) = std::io::pipe().unwrap();
        let pipe = Spot::Existing(Identity::of_fd(&r).unwrap());
        let why = clash(&used(Role::Report, pipe.clone()), &used(Role::Read, pipe)).unwrap();
        assert!(why.ends_with("never end"), "{why}");
        let (s, _t) = std::os::unix::net::UnixStream::pair().unwrap();
        let socket = Spot::Existing(Identity::of_fd(&s).unwrap());
        let read = used(Role::Read, socket.clone());
        assert_eq!(clash(&used(Role::Write, socket.clone()), &read), None);
        let write = used(Role::Write, socket.clone());
        assert!(clash(&used(Role::Report, socket), &write).is_some());
    }

    #[test]
    fn a_fifo_is_refused_where_a_regular_file_is_needed_without_waiting() {
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("fifo");
        let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
        // SAFETY: a valid C string and a mode.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = need_regular("--catalog fifo", &path, Role::Read).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--catalog fifo: is a FIFO or pipe; it must be a regular file"
        );
        let e = open_regular(&path).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
    }
}
