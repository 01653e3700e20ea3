//! Volume names: an output or input name with a printf-style `%d` (or
//! `%03d`, `%2d`) numbers its volumes, starting at 1, so
//! `big.tar.%03d` gives `big.tar.001`, `big.tar.002`, ... In a numbered
//! name `%%` is a literal percent sign. Any other `%` is taken literally,
//! and a name without a number is used exactly as typed, so ordinary names
//! with a percent sign keep working. A name may hold at most one number.

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use crate::volume::medium::MediumKind;

/// A name that may number its volumes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VolumeNames {
    original: PathBuf,
    /// The text before the number, with `%%` already turned into `%`.
    prefix: Vec<u8>,
    /// The text after it.
    suffix: Vec<u8>,
    /// `None` when the name has no number: every volume has the same name.
    number: Option<Width>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Width {
    digits: usize,
    zero_pad: bool,
}

impl VolumeNames {
    /// Parses `path`. Fails, naming the reason, if it holds two numbers.
    pub fn parse(path: &Path) -> Result<VolumeNames, String> {
        let bytes = path.as_os_str().as_bytes();
        let (mut prefix, mut suffix) = (Vec::new(), Vec::new());
        let mut number = None;
        let mut i = 0;
        while i < bytes.len() {
            let out = if number.is_some() {
                &mut suffix
            } else {
                &mut prefix
            };
            if bytes[i] != b'%' {
                out.push(bytes[i]);
                i += 1;
                continue;
            }
            if bytes.get(i + 1) == Some(&b'%') {
                out.push(b'%');
                i += 2;
                continue;
            }
            match spec_at(&bytes[i + 1..]) {
                Some((width, len)) => {
                    if number.is_some() {
                        return Err(
                            "holds two volume numbers (%d); a name may hold one".to_string()
                        );
                    }
                    number = Some(width);
                    i += 1 + len;
                }
                None => {
                    out.push(b'%');
                    i += 1;
                }
            }
        }
        Ok(VolumeNames {
            original: path.to_path_buf(),
            prefix,
            suffix,
            number,
        })
    }

    /// True when the name numbers its volumes.
    pub fn is_numbered(&self) -> bool {
        self.number.is_some()
    }

    /// Files under this name as a medium: numbered ones follow one
    /// another; one name that is not numbered is on a swapped medium.
    pub fn kind(&self) -> MediumKind {
        MediumKind::Files {
            numbered: self.is_numbered(),
        }
    }

    /// The name of volume `n`, as messages give it.
    pub fn volume_name(&self, n: u32) -> String {
        self.volume(n).display().to_string()
    }

    /// The number of the volume named `path`, spelled as this name spells
    /// its volumes (`v.02` for `v.%02d`); `None` for any other name.
    pub fn number_of(&self, path: &Path) -> Option<u32> {
        self.number?;
        let bytes = path.as_os_str().as_bytes();
        let middle = bytes
            .strip_prefix(self.prefix.as_slice())?
            .strip_suffix(self.suffix.as_slice())?;
        let digits = std::str::from_utf8(middle).ok()?.trim_start();
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let n: u32 = digits.parse().ok()?;
        (n >= 1 && self.volume(n) == path).then_some(n)
    }

    /// The volumes of a numbered name that are there now, in order of
    /// number, whatever the gaps between them (found by listing the
    /// directory of volume 1, links included).
    pub fn existing(&self) -> Vec<(u32, PathBuf)> {
        let first = self.volume(1);
        let dir = match first.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut found: Vec<(u32, PathBuf)> = entries
            .flatten()
            .map(|e| first.with_file_name(e.file_name()))
            .filter_map(|p| self.number_of(&p).map(|n| (n, p)))
            .collect();
        found.sort();
        found
    }

    /// The name of volume `n` (1-based).
    pub fn volume(&self, n: u32) -> PathBuf {
        let Some(w) = self.number else {
            return self.original.clone();
        };
        let mut out = self.prefix.clone();
        {
            let digits = if w.zero_pad {
                format!("{n:0width$}", width = w.digits)
            } else {
                format!("{n:width$}", width = w.digits)
            };
            out.extend_from_slice(digits.as_bytes());
            out.extend_from_slice(&self.suffix);
        }
        PathBuf::from(OsString::from_vec(out))
    }
}

/// The no-rewind node to use instead of `path`, when `path` names a
/// rewinding tape node by Linux's conventions: `st0`, `st0l`, `st0m` or
/// `st0a` (the no-rewind ones are `nst0`, ...), and a `/dev/tape/by-id/`
/// or `by-path/` link without the `-nst` suffix. None for anything else,
/// the no-rewind nodes included.
pub fn no_rewind_name(path: &Path) -> Option<PathBuf> {
    no_rewind_st(path).or_else(|| no_rewind_link(path))
}

/// `st0` -> `nst0`, `st1l` -> `nst1l`.
fn no_rewind_st(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?.to_str()?;
    let rest = name.strip_prefix("st")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let mode = &rest[digits..];
    if digits > 0 && matches!(mode, "" | "l" | "m" | "a") {
        return Some(path.with_file_name(format!("n{name}")));
    }
    None
}

/// The persistent names udev makes: `/dev/tape/by-id/X` rewinds,
/// `/dev/tape/by-id/X-nst` does not.
fn no_rewind_link(path: &Path) -> Option<PathBuf> {
    let dir = path.parent()?.to_str()?;
    let name = path.file_name()?.to_str()?;
    let persistent = dir.ends_with("/tape/by-id") || dir.ends_with("/tape/by-path");
    if !persistent || name.ends_with("-nst") {
        return None;
    }
    Some(path.with_file_name(format!("{name}-nst")))
}

/// Parses `[0][width]d` after a `%`; returns the width and the length used.
fn spec_at(rest: &[u8]) -> Option<(Width, usize)> {
    let zero_pad = rest.first() == Some(&b'0');
    let digits_end = rest.iter().position(|b| !b.is_ascii_digit())?;
    if rest[digits_end] != b'd' {
        return None;
    }
    let digits = std::str::from_utf8(&rest[..digits_end])
        .ok()
        .and_then(|s| {
            if s.is_empty() {
                Some(0)
            } else {
                s.parse().ok()
            }
        })?;
    if digits > 20 {
        return None;
    }
    Some((Width { digits, zero_pad }, digits_end + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(s: &str) -> VolumeNames {
        VolumeNames::parse(Path::new(s)).unwrap()
    }

    #[test]
    fn numbers_volumes_from_one_with_the_given_width() {
        let n = names("/mnt/usb/big.tar.%03d");
        assert!(n.is_numbered());
        assert_eq!(n.volume(1), Path::new("/mnt/usb/big.tar.001"));
        assert_eq!(n.volume(12), Path::new("/mnt/usb/big.tar.012"));
        assert_eq!(names("v%d.img").volume(7), Path::new("v7.img"));
        assert_eq!(names("v%2d").volume(7), Path::new("v 7"));
    }

    #[test]
    fn names_without_a_number_stay_as_they_are() {
        for s in ["/dev/nst0", "50%off", "a%%b", "x%s", "%"] {
            let n = names(s);
            assert!(!n.is_numbered(), "{s}");
        }
        assert_eq!(names("50%off").volume(3), Path::new("50%off"));
        assert_eq!(names("a%%b").volume(3), Path::new("a%%b"));
        assert_eq!(names("a%%b.%d").volume(3), Path::new("a%b.3"));
    }

    #[test]
    fn rewinding_nodes_are_told_from_no_rewind_ones() {
        let n = |s: &str| no_rewind_name(Path::new(s));
        assert_eq!(n("/dev/st0"), Some(PathBuf::from("/dev/nst0")));
        assert_eq!(n("/dev/st12l"), Some(PathBuf::from("/dev/nst12l")));
        assert_eq!(n("st0a"), Some(PathBuf::from("nst0a")));
        assert_eq!(
            n("/dev/tape/by-id/scsi-HP_Ultrium_6"),
            Some(PathBuf::from("/dev/tape/by-id/scsi-HP_Ultrium_6-nst"))
        );
        for s in [
            "/dev/nst0",
            "/dev/nst0l",
            "/dev/tape/by-id/scsi-HP_Ultrium_6-nst",
            "/dev/st",
            "/dev/st0x",
            "/dev/sg3",
            "/srv/st0.tar",
        ] {
            assert_eq!(n(s), None, "{s}");
        }
    }

    #[test]
    fn a_volume_name_gives_back_its_number_and_other_names_none() {
        let n = names("/mnt/v.%02d.tar");
        assert_eq!(n.number_of(Path::new("/mnt/v.02.tar")), Some(2));
        assert_eq!(n.number_of(Path::new("/mnt/v.123.tar")), Some(123));
        for other in [
            "/mnt/v.2.tar",
            "/mnt/v.00.tar",
            "/mnt/v.xx.tar",
            "/mnt/v..tar",
            "v.02.tar",
        ] {
            assert_eq!(n.number_of(Path::new(other)), None, "{other}");
        }
        assert_eq!(names("plain").number_of(Path::new("plain")), None);
    }

    #[test]
    fn listing_volumes_never_takes_a_trailer_marker_for_a_volume() {
        // issue 45 finding 4: markers sit beside the volumes they describe
        let trailer = crate::volume::Trailer {
            backup: "0123456789abcdef0123456789abcdef".into(),
            volume: 1,
            ends: crate::volume::Ends::Continues,
            volume_bytes: 10,
            stream_bytes: 10,
            stream_digest: Some(7),
        };
        for pattern in ["v.%03d", "v%d", "%02d.tar", "a.%d.b", "x%3d"] {
            let dir = tempfile::tempdir().unwrap();
            let n = names(dir.path().join(pattern).to_str().unwrap());
            for v in 1..=2 {
                let path = n.volume(v);
                std::fs::write(&path, b"0123456789").unwrap();
                assert!(crate::volume::trailer_marker::write_marker(&path, &trailer).unwrap());
            }
            let found: Vec<u32> = n.existing().into_iter().map(|(v, _)| v).collect();
            assert_eq!(found, vec![1, 2], "{pattern}");
            assert_eq!(
                std::fs::read_dir(dir.path()).unwrap().count(),
                4,
                "{pattern}"
            );
        }
    }

    #[test]
    fn two_numbers_are_refused() {
        assert!(VolumeNames::parse(Path::new("a%d.%d")).is_err());
    }
}
