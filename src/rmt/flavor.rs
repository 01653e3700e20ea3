//! What differs between rmt servers: the numbers of the tape operations
//! (the server's own MTIOCTOP numbering) and of the open flags (BSD servers
//! read only the number). Any probe or extension request makes GNU rmt
//! reply "Garbage command" and exit, so the flavour is a setting, never
//! detected.
//!
//! It also says how long an argument may be. BSD servers, and Linux dump's
//! `rmt-dump`, read each argument byte by byte into a 64-byte buffer, so at
//! most 62 bytes before its newline; a longer one is cut there and its tail
//! (and every line after it) is read as the next request: a long path
//! ending in `I6` rewinds or unloads the tape. GNU rmt reads whole lines of
//! any length; an overlong path then fails in open(2) with ENAMETOOLONG, a
//! plain error reply. [`Flavor::check_name`] refuses, before any session
//! starts, a name whose arguments a `bsd` server would cut. With `gnu`, a
//! path longer than 62 bytes is tried first in a throwaway session
//! (`path_check.rs`), because Debian's `/usr/sbin/rmt` is rmt-dump whenever
//! the `dump` package is installed.

use super::name::RemoteName;

/// The longest argument, newline not counted, that a BSD rmt server reads
/// as one (its buffer holds 64 bytes: 62, the newline and a NUL).
pub const BSD_MAX_ARGUMENT_BYTES: usize = 62;

/// The server's operating system family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Flavor {
    /// GNU rmt and Linux servers: WEOF 5, REW 6, OFFL 7.
    #[default]
    Gnu,
    /// BSD and Solaris servers: WEOF 0, REW 5, OFFL 6.
    Bsd,
}

/// An argument the server would cut in two.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the {what} is {len} bytes, but a BSD rmt server (--rmt-flavor bsd) reads at most \
     {limit} bytes per argument ({} with its newline) and would run the rest as another \
     request",
    limit + 1
)]
pub struct ArgumentTooLong {
    pub what: &'static str,
    pub len: usize,
    pub limit: usize,
}

/// The tape operations the client sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RemoteOp {
    WriteFilemarks,
    Rewind,
    Unload,
    BackspaceRecords,
    BackspaceFiles,
    ForwardFiles,
}

/// How a file is opened on the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenMode {
    Read,
    /// A device: open it as it is.
    WriteDevice,
    /// A new file; an existing one is refused (EEXIST).
    Create,
    /// Create or truncate (`-f`).
    Truncate,
    /// Create or append (`--append`).
    Append,
}

const ALL_OPEN_MODES: [OpenMode; 5] = [
    OpenMode::Read,
    OpenMode::WriteDevice,
    OpenMode::Create,
    OpenMode::Truncate,
    OpenMode::Append,
];

impl Flavor {
    /// The op number the server passes to MTIOCTOP.
    pub fn op(self, op: RemoteOp) -> u8 {
        use RemoteOp::*;
        match (self, op) {
            (_, ForwardFiles) => 1,
            (_, BackspaceFiles) => 2,
            (_, BackspaceRecords) => 4,
            (Flavor::Gnu, WriteFilemarks) => 5,
            (Flavor::Gnu, Rewind) => 6,
            (Flavor::Gnu, Unload) => 7,
            (Flavor::Bsd, WriteFilemarks) => 0,
            (Flavor::Bsd, Rewind) => 5,
            (Flavor::Bsd, Unload) => 6,
        }
    }

    /// The longest argument the server reads whole, newline not counted;
    /// `None` when any length is read.
    pub fn max_argument_bytes(self) -> Option<usize> {
        match self {
            Flavor::Gnu => None,
            Flavor::Bsd => Some(BSD_MAX_ARGUMENT_BYTES),
        }
    }

    /// Checks that every argument a session on `path` can send fits the
    /// server: the path, each open flags line and the widest count (a u64
    /// in decimal; W, R and I counts, L offsets, are all narrower).
    pub fn check_arguments(self, path: &str) -> Result<(), ArgumentTooLong> {
        let Some(limit) = self.max_argument_bytes() else {
            return Ok(());
        };
        let flags = ALL_OPEN_MODES.map(|mode| ("open flags line", self.open_flags(mode)));
        let read_write =
            ALL_OPEN_MODES.map(|mode| ("open flags line", self.open_flags_read_write(mode)));
        let widest_count = ("largest count", u64::MAX.to_string());
        let arguments = [("remote path", path.to_string()), widest_count]
            .into_iter()
            .chain(flags)
            .chain(read_write);
        for (what, text) in arguments {
            if text.len() > limit {
                return Err(ArgumentTooLong {
                    what,
                    len: text.len(),
                    limit,
                });
            }
        }
        Ok(())
    }

    /// [`Flavor::check_arguments`] for a remote name, as a usage error's
    /// text naming it.
    pub fn check_name(self, name: &RemoteName) -> Result<(), String> {
        self.check_arguments(&name.path)
            .map_err(|e| format!("{name}: {e}"))
    }

    /// The flags line of an `O` request: the server's number, then the
    /// symbolic names that GNU rmt prefers when both are given.
    pub fn open_flags(self, mode: OpenMode) -> String {
        self.flags_line(mode, false)
    }

    /// [`Flavor::open_flags`] with the file also open for reading
    /// (`O_RDWR`), for `--verify` to read back what was written: the same
    /// create, truncate, exclusive and append semantics. Reading stays
    /// `O_RDONLY`.
    pub fn open_flags_read_write(self, mode: OpenMode) -> String {
        self.flags_line(mode, true)
    }

    fn flags_line(self, mode: OpenMode, read_too: bool) -> String {
        // (O_CREAT, O_EXCL, O_TRUNC, O_APPEND) in the server's numbering.
        let (creat, excl, trunc, append) = match self {
            Flavor::Gnu => (0o100, 0o200, 0o1000, 0o2000),
            Flavor::Bsd => (0x200, 0x800, 0x400, 0x8),
        };
        let (number, names) = match mode {
            OpenMode::Read => return "0 O_RDONLY".to_string(),
            OpenMode::WriteDevice => (0, ""),
            OpenMode::Create => (creat | excl, "|O_CREAT|O_EXCL"),
            OpenMode::Truncate => (creat | trunc, "|O_CREAT|O_TRUNC"),
            OpenMode::Append => (creat | append, "|O_CREAT|O_APPEND"),
        };
        // O_WRONLY and O_RDWR are 1 and 2 on every server.
        let (access, access_name) = match read_too {
            false => (1, "O_WRONLY"),
            true => (2, "O_RDWR"),
        };
        format!("{} {access_name}{names}", access | number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn op_numbers_follow_the_servers_os() {
        assert_eq!(Flavor::Gnu.op(RemoteOp::WriteFilemarks), 5);
        assert_eq!(Flavor::Gnu.op(RemoteOp::Rewind), 6);
        assert_eq!(Flavor::Gnu.op(RemoteOp::Unload), 7);
        assert_eq!(Flavor::Bsd.op(RemoteOp::WriteFilemarks), 0);
        assert_eq!(Flavor::Bsd.op(RemoteOp::Rewind), 5);
        assert_eq!(Flavor::Bsd.op(RemoteOp::Unload), 6);
        assert_eq!(Flavor::Bsd.op(RemoteOp::BackspaceRecords), 4);
    }

    #[test]
    fn bsd_refuses_a_path_the_server_would_cut_and_gnu_takes_any_length() {
        let fits = "/".to_string() + &"a".repeat(BSD_MAX_ARGUMENT_BYTES - 1);
        assert_eq!(Flavor::Bsd.check_arguments(&fits), Ok(()));
        let cut = fits.clone() + "b";
        assert_eq!(
            Flavor::Bsd.check_arguments(&cut),
            Err(ArgumentTooLong {
                what: "remote path",
                len: 63,
                limit: 62
            })
        );
        let long = "/".to_string() + &"a".repeat(4000);
        assert_eq!(Flavor::Gnu.check_arguments(&long), Ok(()));
        assert_eq!(Flavor::Gnu.max_argument_bytes(), None);
    }

    #[test]
    fn the_refusal_names_the_name_the_length_and_the_limit() {
        let name = RemoteName {
            user: None,
            host: "vault".into(),
            path: format!("/srv/{}I6", "x".repeat(121)),
        };
        assert_eq!(
            Flavor::Bsd.check_name(&name).unwrap_err(),
            format!(
                "{name}: the remote path is 128 bytes, but a BSD rmt server (--rmt-flavor bsd) \
                 reads at most 62 bytes per argument (63 with its newline) and would run the \
                 rest as another request"
            )
        );
    }

    #[test]
    fn every_other_argument_fits_a_bsd_server() {
        for flavor in [Flavor::Gnu, Flavor::Bsd] {
            for mode in ALL_OPEN_MODES {
                assert!(flavor.open_flags(mode).len() <= BSD_MAX_ARGUMENT_BYTES);
            }
        }
        assert!(u64::MAX.to_string().len() <= BSD_MAX_ARGUMENT_BYTES);
        assert_eq!(Flavor::Bsd.check_arguments("/dev/nsa0"), Ok(()));
    }

    #[test]
    fn open_flags_carry_the_number_and_the_names() {
        assert_eq!(Flavor::Gnu.open_flags(OpenMode::Read), "0 O_RDONLY");
        assert_eq!(
            Flavor::Gnu.open_flags(OpenMode::Truncate),
            format!(
                "{} O_WRONLY|O_CREAT|O_TRUNC",
                1 | libc::O_CREAT | libc::O_TRUNC
            )
        );
        assert_eq!(
            Flavor::Gnu.open_flags(OpenMode::Create),
            format!(
                "{} O_WRONLY|O_CREAT|O_EXCL",
                1 | libc::O_CREAT | libc::O_EXCL
            )
        );
        assert_eq!(
            Flavor::Bsd.open_flags(OpenMode::Append),
            "521 O_WRONLY|O_CREAT|O_APPEND"
        );
    }

    #[test]
    fn read_back_opens_read_write_with_the_same_create_semantics() {
        assert_eq!(
            Flavor::Gnu.open_flags_read_write(OpenMode::Create),
            format!(
                "{} O_RDWR|O_CREAT|O_EXCL",
                libc::O_RDWR | libc::O_CREAT | libc::O_EXCL
            )
        );
        assert_eq!(
            Flavor::Gnu.open_flags_read_write(OpenMode::Truncate),
            format!(
                "{} O_RDWR|O_CREAT|O_TRUNC",
                libc::O_RDWR | libc::O_CREAT | libc::O_TRUNC
            )
        );
        assert_eq!(
            Flavor::Gnu.open_flags_read_write(OpenMode::WriteDevice),
            "2 O_RDWR"
        );
        assert_eq!(
            Flavor::Bsd.open_flags_read_write(OpenMode::Truncate),
            "1538 O_RDWR|O_CREAT|O_TRUNC"
        );
        assert_eq!(
            Flavor::Gnu.open_flags_read_write(OpenMode::Read),
            "0 O_RDONLY"
        );
    }
}
