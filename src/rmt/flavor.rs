//! What differs between rmt servers and cannot be probed: the numbers of
//! the tape operations (the server's own MTIOCTOP numbering) and of the
//! open flags (BSD servers read only the number). Any probe or extension
//! request makes GNU rmt reply "Garbage command" and exit, so the flavour
//! is a setting, never detected.

/// The server's operating system family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Flavor {
    /// GNU rmt and Linux servers: WEOF 5, REW 6, OFFL 7.
    #[default]
    Gnu,
    /// BSD and Solaris servers: WEOF 0, REW 5, OFFL 6.
    Bsd,
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

    /// The flags line of an `O` request: the server's number, then the
    /// symbolic names that GNU rmt prefers when both are given.
    pub fn open_flags(self, mode: OpenMode) -> String {
        // (O_CREAT, O_EXCL, O_TRUNC, O_APPEND) in the server's numbering.
        let (creat, excl, trunc, append) = match self {
            Flavor::Gnu => (0o100, 0o200, 0o1000, 0o2000),
            Flavor::Bsd => (0x200, 0x800, 0x400, 0x8),
        };
        let (number, names) = match mode {
            OpenMode::Read => (0, "O_RDONLY"),
            OpenMode::WriteDevice => (1, "O_WRONLY"),
            OpenMode::Create => (1 | creat | excl, "O_WRONLY|O_CREAT|O_EXCL"),
            OpenMode::Truncate => (1 | creat | trunc, "O_WRONLY|O_CREAT|O_TRUNC"),
            OpenMode::Append => (1 | creat | append, "O_WRONLY|O_CREAT|O_APPEND"),
        };
        format!("{number} {names}")
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
}
