//! The flags line of an `O` request: `<number>` or `<number> <SYMBOLIC>`,
//! such as `0 O_RDONLY` or `65 O_WRONLY|O_CREAT`.
//!
//! Numbers differ between systems (BSD's O_CREAT is Linux's O_TRUNC), so
//! when a symbolic part is present it alone decides, as on GNU rmt; a bare
//! number is read with this system's values. Invariant: an [`OpenFlags`]
//! holds exactly one access mode and only flags from the supported set,
//! so whatever a client sends, open(2) never sees O_DIRECTORY, O_PATH,
//! O_TMPFILE or anything else this server did not choose to pass on.

use std::fmt;

use libc::c_int;

/// Names a client may send, and what each means here. O_NOCTTY is always
/// added and O_LARGEFILE is implied on a 64-bit offset build, so both are
/// accepted and dropped.
const NAMED: &[(&str, c_int)] = &[
    ("O_RDONLY", libc::O_RDONLY),
    ("O_WRONLY", libc::O_WRONLY),
    ("O_RDWR", libc::O_RDWR),
    ("O_CREAT", libc::O_CREAT),
    ("O_EXCL", libc::O_EXCL),
    ("O_TRUNC", libc::O_TRUNC),
    ("O_APPEND", libc::O_APPEND),
    ("O_NONBLOCK", libc::O_NONBLOCK),
    ("O_SYNC", libc::O_SYNC),
    ("O_NOCTTY", 0),
    ("O_LARGEFILE", 0),
];

/// The flags passed on to open(2), besides the access mode.
const PASSED: c_int =
    libc::O_CREAT | libc::O_EXCL | libc::O_TRUNC | libc::O_APPEND | libc::O_NONBLOCK | libc::O_SYNC;

/// O_LARGEFILE as 32-bit x86 and the generic Linux ABI number it, which a
/// client may send in a bare number; it is accepted and dropped.
const NUMERIC_LARGEFILE: c_int = 0o100000;

/// Validated open flags, in this system's numbering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenFlags {
    bits: c_int,
}

impl OpenFlags {
    /// O_RDONLY.
    pub const READ: OpenFlags = OpenFlags {
        bits: libc::O_RDONLY,
    };
    /// O_WRONLY|O_CREAT|O_TRUNC, as a client writing a new archive asks.
    pub const WRITE_NEW: OpenFlags = OpenFlags {
        bits: libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC,
    };

    /// Parses an `O` request's second line.
    pub fn parse(line: &[u8]) -> Result<OpenFlags, String> {
        let text =
            std::str::from_utf8(line).map_err(|_| "the open flags are not text".to_string())?;
        let (number, symbolic) = match text.split_once(' ') {
            Some((n, s)) => (n, Some(s.trim())),
            None => (text, None),
        };
        let value = crate::rmt::protocol::number::parse_count(number.as_bytes())
            .ok()
            .and_then(|v| c_int::try_from(v).ok())
            .ok_or_else(|| {
                format!(
                    "open flags \"{}\" are not a number",
                    crate::base::escape::shown(line)
                )
            })?;
        match symbolic {
            Some(names) if !names.is_empty() => OpenFlags::from_names(names),
            _ => OpenFlags::from_number(value),
        }
    }

    /// Reads `O_WRONLY|O_CREAT`; no access mode means O_RDONLY.
    pub fn from_names(names: &str) -> Result<OpenFlags, String> {
        let mut access = None;
        let mut bits = 0;
        for name in names.split('|').map(str::trim) {
            let value = NAMED
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| *v)
                .ok_or_else(|| {
                    format!(
                        "unknown open flag \"{}\"",
                        crate::base::escape::one_line(name)
                    )
                })?;
            if matches!(name, "O_RDONLY" | "O_WRONLY" | "O_RDWR") {
                if access.is_some_and(|a| a != value) {
                    return Err(format!("conflicting access modes in \"{names}\""));
                }
                access = Some(value);
            } else {
                bits |= value;
            }
        }
        Ok(OpenFlags {
            bits: access.unwrap_or(libc::O_RDONLY) | bits,
        })
    }

    /// Reads a bare number with this system's values.
    pub fn from_number(value: c_int) -> Result<OpenFlags, String> {
        let access = value & libc::O_ACCMODE;
        if access == libc::O_ACCMODE {
            return Err(format!("open flags {value} have no valid access mode"));
        }
        let known = libc::O_ACCMODE | PASSED | libc::O_NOCTTY | NUMERIC_LARGEFILE;
        if value & !known != 0 {
            return Err(format!(
                "open flags {value} include unsupported bits {:#o}",
                value & !known
            ));
        }
        Ok(OpenFlags {
            bits: access | (value & PASSED),
        })
    }

    /// The flags for open(2), access mode included.
    pub fn bits(self) -> c_int {
        self.bits
    }

    pub fn access_mode(self) -> c_int {
        self.bits & libc::O_ACCMODE
    }

    /// True when the open may change the file: write access, creation,
    /// truncation or appending. A read-only server refuses these.
    pub fn modifies(self) -> bool {
        self.access_mode() != libc::O_RDONLY
            || self.bits & (libc::O_CREAT | libc::O_TRUNC | libc::O_APPEND) != 0
    }
}

impl fmt::Display for OpenFlags {
    /// The symbolic form, `O_WRONLY|O_CREAT`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let access = match self.access_mode() {
            libc::O_WRONLY => "O_WRONLY",
            libc::O_RDWR => "O_RDWR",
            _ => "O_RDONLY",
        };
        f.write_str(access)?;
        for (name, value) in NAMED {
            if *value != 0 && PASSED & value == *value && self.bits & value == *value {
                write!(f, "|{name}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<OpenFlags, String> {
        OpenFlags::parse(line.as_bytes())
    }

    #[test]
    fn the_symbolic_part_decides_when_present() {
        let f = parse("65 O_WRONLY|O_CREAT").unwrap();
        assert_eq!(f.bits(), libc::O_WRONLY | libc::O_CREAT);
        // BSD numbers O_CREAT|O_TRUNC differently; the names win.
        let f = parse("1537 O_WRONLY|O_CREAT|O_TRUNC").unwrap();
        assert_eq!(f, OpenFlags::WRITE_NEW);
        assert_eq!(parse("0 O_RDONLY").unwrap(), OpenFlags::READ);
        assert_eq!(
            parse("2 O_RDWR | O_LARGEFILE | O_NOCTTY").unwrap().bits(),
            libc::O_RDWR
        );
    }

    #[test]
    fn a_bare_number_uses_linux_values() {
        assert_eq!(parse("0").unwrap(), OpenFlags::READ);
        assert_eq!(parse("577").unwrap(), OpenFlags::WRITE_NEW);
        assert_eq!(parse("32769").unwrap().bits(), libc::O_WRONLY);
        assert_eq!(parse("65 ").unwrap().bits(), libc::O_WRONLY | libc::O_CREAT);
    }

    #[test]
    fn unknown_names_and_bits_are_refused() {
        assert!(parse("0 O_RDONLY|O_BOGUS").unwrap_err().contains("O_BOGUS"));
        assert!(parse("0 O_RDONLY|O_DIRECTORY").is_err());
        assert!(parse("3").is_err(), "access mode 3");
        assert!(parse(&libc::O_DIRECTORY.to_string()).is_err());
        assert!(parse("0 O_RDONLY|O_WRONLY").is_err());
        assert!(parse("0 O_RDONLY||").is_err());
        assert!(parse("").is_err());
        assert!(parse("-1").is_err());
        assert!(parse("x O_RDONLY").is_err());
        assert!(parse("99999999999").is_err());
    }

    #[test]
    fn shows_itself_symbolically() {
        assert_eq!(
            parse("65 O_WRONLY|O_CREAT").unwrap().to_string(),
            "O_WRONLY|O_CREAT"
        );
        assert_eq!(OpenFlags::READ.to_string(), "O_RDONLY");
        assert_eq!(OpenFlags::WRITE_NEW.to_string(), "O_WRONLY|O_CREAT|O_TRUNC");
    }

    #[test]
    fn knows_which_opens_modify() {
        assert!(!OpenFlags::READ.modifies());
        assert!(OpenFlags::WRITE_NEW.modifies());
        assert!(parse("0 O_RDONLY|O_TRUNC").unwrap().modifies());
    }
}
