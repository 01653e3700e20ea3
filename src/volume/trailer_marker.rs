//! A file volume's trailer in the name of an empty file beside it: the
//! copy-proof twin of the `user.tapebuf.trailer` attribute.
//!
//! Plain `cp`, vfat, many NFS and SMB mounts, object storage and rsync
//! without `-X` drop extended attributes, and ramfs never keeps them; all
//! of them keep a file's name. So beside volume `home.tar.003` goes the
//! zero-byte file
//!
//! ```text
//! home.tar.003.tbt-<backup>-<volume>-<c|l|x>-<volume bytes>-<stream bytes>-<digest>-<check>
//! ```
//!
//! `backup` is the 32 hex digits of the trailer's backup id, `volume`,
//! `volume bytes` and `stream bytes` are decimal, the ending is `c`
//! (continues), `l` (last) or `x` (cut), `digest` is the 16 hex digits of
//! the stream's XXH3-64 through the volume's end, and `check` is 8 hex
//! digits, the low 32 bits of XXH3-64 over the text between `.tbt-` and
//! its own dash, so a name mangled by hand or by a filesystem reads as no
//! marker at all. Only `[a-z0-9.-]` follow the volume's own name, so
//! case-folding and 8.3-less vfat, and object stores, keep it; the part
//! after the volume's name is at most 119 bytes, and a name past
//! `NAME_MAX_BYTES` is not made (the summary says so).
//!
//! Being empty, a marker changes nothing in `cat home.tar.* | tar x`, in
//! any sort order. Writing a volume again removes its markers (exact
//! grammar, size 0 only), so a `-f` rerun leaves none of the older backup
//! beside a volume it rewrote. No lister of volumes takes a marker for a
//! volume: its name is the volume's with more after it.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use crate::volume::trailer::{is_backup_id, Ends, Trailer};

/// What follows a volume's file name in its marker's name.
pub const MARKER_TAG: &str = ".tbt-";
/// The longest file name most filesystems take (Linux's NAME_MAX).
pub const NAME_MAX_BYTES: usize = 255;

fn ends_letter(ends: Ends) -> char {
    match ends {
        Ends::Continues => 'c',
        Ends::Last => 'l',
        Ends::Cut => 'x',
    }
}

fn letter_ends(letter: &str) -> Option<Ends> {
    match letter {
        "c" => Some(Ends::Continues),
        "l" => Some(Ends::Last),
        "x" => Some(Ends::Cut),
        _ => None,
    }
}

/// The check over a marker's fields.
fn check(fields: &str) -> u32 {
    xxhash_rust::xxh3::xxh3_64(fields.as_bytes()) as u32
}

/// The part of a marker's name after the volume's own name; None for a
/// trailer without a digest (a marker is only ever made with one).
fn tail(t: &Trailer) -> Option<String> {
    let digest = t.stream_digest?;
    let fields = format!(
        "{}-{}-{}-{}-{}-{digest:016x}",
        t.backup,
        t.volume,
        ends_letter(t.ends),
        t.volume_bytes,
        t.stream_bytes
    );
    Some(format!("{MARKER_TAG}{fields}-{:08x}", check(&fields)))
}

/// The marker's file name for volume file `volume_file` (a file name, not
/// a path); None when it would be longer than `NAME_MAX_BYTES`.
pub fn marker_name(volume_file: &OsStr, t: &Trailer) -> Option<OsString> {
    let mut name = volume_file.as_bytes().to_vec();
    name.extend_from_slice(tail(t)?.as_bytes());
    (name.len() <= NAME_MAX_BYTES).then(|| OsString::from_vec(name))
}

/// The trailer a directory entry named `entry` carries for volume file
/// `volume_file`; None when `entry` is not exactly such a marker.
pub fn parse_marker(volume_file: &OsStr, entry: &OsStr) -> Option<Trailer> {
    let rest = entry.as_bytes().strip_prefix(volume_file.as_bytes())?;
    let rest = std::str::from_utf8(rest).ok()?.strip_prefix(MARKER_TAG)?;
    let (fields, sum) = rest.rsplit_once('-')?;
    if sum.len() != 8 || u32::from_str_radix(sum, 16).ok()? != check(fields) {
        return None;
    }
    let parts: Vec<&str> = fields.split('-').collect();
    let [backup, volume, ends, volume_bytes, stream_bytes, digest] = parts[..] else {
        return None;
    };
    let decimal = |s: &str| -> Option<u64> {
        let digits = !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        digits.then(|| s.parse().ok()).flatten()
    };
    let lower_hex = |s: &str| s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    if !is_backup_id(backup) || !lower_hex(backup) || digest.len() != 16 || !lower_hex(digest) {
        return None;
    }
    let trailer = Trailer {
        backup: backup.to_string(),
        volume: u32::try_from(decimal(volume)?).ok().filter(|&v| v > 0)?,
        ends: letter_ends(ends)?,
        volume_bytes: decimal(volume_bytes)?,
        stream_bytes: decimal(stream_bytes)?,
        stream_digest: Some(u64::from_str_radix(digest, 16).ok()?),
    };
    // One spelling only: what would be written again is what was read.
    (tail(&trailer)? == format!("{MARKER_TAG}{rest}")).then_some(trailer)
}

/// The directory and file name of a volume's path.
fn split(path: &Path) -> io::Result<(&Path, &OsStr)> {
    let file = path
        .file_name()
        .ok_or_else(|| io::Error::other("a volume path without a file name"))?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    Ok((dir, file))
}

/// The markers beside the volume at `path`: empty regular files (not
/// links) whose names are exactly a marker of it, with their trailers.
pub fn markers_beside(path: &Path) -> io::Result<Vec<(PathBuf, Trailer)>> {
    let (dir, file) = split(path)?;
    let mut found = Vec::new();
    // A directory that may be written but not listed shows no markers.
    let entries = match std::fs::read_dir(dir) {
        Err(e) if e.kind() == io::ErrorKind::PermissionDenied => return Ok(found),
        entries => entries?,
    };
    for entry in entries {
        let entry = entry?;
        let Some(trailer) = parse_marker(file, &entry.file_name()) else {
            continue;
        };
        let marker = dir.join(entry.file_name());
        let empty_file =
            std::fs::symlink_metadata(&marker).is_ok_and(|m| m.is_file() && m.len() == 0);
        if empty_file {
            found.push((marker, trailer));
        }
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(found)
}

/// The trailer of the volume at `path` from its marker: None when it has
/// none; Err when two markers say different things.
pub fn read_marker(path: &Path) -> io::Result<Option<Trailer>> {
    let mut markers = markers_beside(path)?.into_iter();
    let Some((first, trailer)) = markers.next() else {
        return Ok(None);
    };
    if let Some((other, _)) = markers.find(|(_, t)| *t != trailer) {
        return Err(io::Error::other(format!(
            "two trailer marker files beside it disagree ({} and {})",
            first.display(),
            other.display()
        )));
    }
    Ok(Some(trailer))
}

/// Where a file volume's trailer was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kept {
    /// Its `user.tapebuf.trailer` attribute (and its marker, if any, agrees).
    Attribute,
    /// Its marker file alone: the file kept no attribute.
    Marker,
}

/// The trailer of the file volume at `path`: its attribute, else its
/// marker file; Err when the two are there and disagree, or one cannot
/// be read; None when it has neither.
pub fn read_volume_trailer(path: &Path) -> io::Result<Option<(Trailer, Kept)>> {
    let attribute = super::trailer::read_from_file(path)?;
    let marker = read_marker(path)?;
    match (attribute, marker) {
        (Some(a), Some(m)) if a != m => Err(io::Error::other(format!(
            "its {} attribute and its trailer marker file disagree (volume {} ends {} after {} bytes, or volume {} ends {} after {} bytes): one of them belongs to another backup",
            super::trailer::XATTR_NAME, a.volume, a.ends.word(), a.volume_bytes, m.volume, m.ends.word(), m.volume_bytes
        ))),
        (Some(a), _) => Ok(Some((a, Kept::Attribute))),
        (None, Some(m)) => Ok(Some((m, Kept::Marker))),
        (None, None) => Ok(None),
    }
}

/// Removes every marker beside the volume at `path` (before the volume
/// is written again); returns how many went.
pub fn remove_markers(path: &Path) -> io::Result<usize> {
    let markers = match markers_beside(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    for (marker, _) in &markers {
        match std::fs::remove_file(marker) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(io::Error::new(
                    e.kind(),
                    format!(
                        "cannot remove the older trailer marker {}: {e}",
                        marker.display()
                    ),
                ))
            }
        }
    }
    Ok(markers.len())
}

/// Puts `trailer`'s marker beside the volume at `path`, after removing
/// any other marker of it. Ok(false) when the name would be too long for
/// the filesystem, so no marker was made.
pub fn write_marker(path: &Path, trailer: &Trailer) -> io::Result<bool> {
    let (dir, file) = split(path)?;
    let Some(name) = marker_name(file, trailer) else {
        return Ok(false);
    };
    remove_markers(path)?;
    let marker = dir.join(name);
    create_empty(&marker).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!("cannot make the trailer marker {}: {e}", marker.display()),
        )
    })?;
    Ok(true)
}

/// Creates the empty file `path`: never over an existing file, never
/// through a planted symbolic link (`base::create`).
fn create_empty(path: &Path) -> io::Result<File> {
    crate::base::create::create_new(path, crate::base::create::RECORD_MODE)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(ends: Ends) -> Trailer {
        Trailer {
            backup: "0123456789abcdef0123456789abcdef".into(),
            volume: 3,
            ends,
            volume_bytes: 1_048_576,
            stream_bytes: 3_145_728,
            stream_digest: Some(0xfedc_ba98_7654_3210),
        }
    }

    #[test]
    fn a_marker_name_reads_back_as_its_trailer_for_every_ending() {
        for ends in Ends::ALL {
            let t = sample(ends);
            let name = marker_name(OsStr::new("home.tar.003"), &t).unwrap();
            let text = name.to_str().unwrap();
            assert!(text.starts_with("home.tar.003.tbt-0123"), "{text}");
            let tail = &text["home.tar.003".len()..];
            assert!(
                tail.bytes()
                    .all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'.' | b'-')),
                "{text}"
            );
            assert_eq!(parse_marker(OsStr::new("home.tar.003"), &name), Some(t));
        }
    }

    #[test]
    fn a_marker_of_another_volume_or_a_mangled_name_is_no_marker() {
        let name = marker_name(OsStr::new("v.003"), &sample(Ends::Last)).unwrap();
        assert_eq!(parse_marker(OsStr::new("v.00"), &name), None);
        assert_eq!(parse_marker(OsStr::new("v.0030"), &name), None);
        let text = name.to_str().unwrap();
        for (i, _) in text.char_indices().skip("v.003.tbt-".len()) {
            let mut bytes = text.as_bytes().to_vec();
            bytes[i] = if bytes[i] == b'1' { b'2' } else { b'1' };
            let changed = OsString::from_vec(bytes);
            assert_eq!(
                parse_marker(OsStr::new("v.003"), &changed),
                None,
                "{changed:?}"
            );
        }
        assert_eq!(
            parse_marker(OsStr::new("v.003"), &OsString::from(text.to_uppercase())),
            None
        );
    }

    #[test]
    fn a_name_too_long_for_the_filesystem_gets_no_marker() {
        let long = "x".repeat(NAME_MAX_BYTES - 60);
        assert_eq!(marker_name(OsStr::new(&long), &sample(Ends::Last)), None);
        let old = Trailer {
            stream_digest: None,
            ..sample(Ends::Last)
        };
        assert_eq!(marker_name(OsStr::new("v.001"), &old), None);
    }

    #[test]
    fn writing_a_marker_replaces_older_ones_and_leaves_other_files() {
        let dir = tempfile::tempdir().unwrap();
        let volume = dir.path().join("v.001");
        std::fs::write(&volume, b"data").unwrap();
        let stranger = dir.path().join("v.001.tbt-notes");
        std::fs::write(&stranger, b"").unwrap();
        assert!(write_marker(&volume, &sample(Ends::Continues)).unwrap());
        assert!(write_marker(&volume, &sample(Ends::Last)).unwrap());
        let markers = markers_beside(&volume).unwrap();
        assert_eq!(markers.len(), 1);
        assert_eq!(markers[0].1, sample(Ends::Last));
        assert_eq!(read_marker(&volume).unwrap(), Some(sample(Ends::Last)));
        assert!(
            stranger.exists(),
            "a name outside the grammar is left alone"
        );
        assert_eq!(std::fs::read(&volume).unwrap(), b"data");
    }

    #[test]
    fn a_marker_file_that_is_not_empty_is_neither_read_nor_removed() {
        let dir = tempfile::tempdir().unwrap();
        let volume = dir.path().join("v.001");
        let name = marker_name(OsStr::new("v.001"), &sample(Ends::Last)).unwrap();
        let full = dir.path().join(name);
        std::fs::write(&full, b"not empty").unwrap();
        assert_eq!(read_marker(&volume).unwrap(), None);
        assert_eq!(remove_markers(&volume).unwrap(), 0);
        assert!(full.exists());
    }

    #[test]
    fn two_markers_that_disagree_are_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let volume = dir.path().join("v.001");
        for ends in [Ends::Continues, Ends::Last] {
            let name = marker_name(OsStr::new("v.001"), &sample(ends)).unwrap();
            std::fs::write(dir.path().join(name), b"").unwrap();
        }
        let e = read_marker(&volume).unwrap_err().to_string();
        assert!(e.contains("disagree"), "{e}");
    }

    #[test]
    fn a_volume_trailer_is_its_attribute_else_its_marker_and_the_two_must_agree() {
        // issue 45 finding 4: attribute, marker, both (agreeing or not), none
        let dir = tempfile::tempdir().unwrap();
        let volume = dir.path().join("v.001");
        let file = create_empty(&volume).unwrap();
        assert_eq!(read_volume_trailer(&volume).unwrap(), None);
        write_marker(&volume, &sample(Ends::Last)).unwrap();
        assert_eq!(
            read_volume_trailer(&volume).unwrap(),
            Some((sample(Ends::Last), Kept::Marker))
        );
        use std::os::fd::AsFd;
        let kept =
            crate::volume::trailer::attach_to_file(file.as_fd(), &sample(Ends::Last)).unwrap();
        if !kept {
            return; // a filesystem without user attributes: nothing more to see
        }
        assert_eq!(
            read_volume_trailer(&volume).unwrap(),
            Some((sample(Ends::Last), Kept::Attribute))
        );
        crate::volume::trailer::attach_to_file(file.as_fd(), &sample(Ends::Cut)).unwrap();
        let e = read_volume_trailer(&volume).unwrap_err().to_string();
        assert!(
            e.contains("attribute and its trailer marker file disagree"),
            "{e}"
        );
        remove_markers(&volume).unwrap();
        assert_eq!(
            read_volume_trailer(&volume).unwrap(),
            Some((sample(Ends::Cut), Kept::Attribute))
        );
    }
}
