//! The listing as `tapebuf ls --json` writes it: one JSON object. The
//! field names are an API (documented in tapebuf(1), LS): snake_case,
//! every field always present, `null` where a value is unknown or does not
//! apply. Readers ignore fields they do not know; a field that changes
//! meaning or goes away bumps [`SCHEMA_VERSION`].
//!
//! The object is written a member at a time (`write.rs`), never built
//! whole, so a catalog of millions of members lists in bounded memory;
//! [`LsJson`] is the same object as one value, for readers and tests.

use serde::{Deserialize, Serialize};

use crate::archive::{Member, MemberKind, Name};
use crate::manifest::Manifest;

/// The `schema` field of the listing.
pub const SCHEMA: &str = "tapebuf-ls";
/// The version this build writes.
pub const SCHEMA_VERSION: u32 = 1;

/// The whole listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LsJson {
    pub schema: String,
    pub version: u32,
    /// The manifest as the user named it; null with `--catalog`.
    pub manifest: Option<String>,
    /// The catalog file read.
    pub catalog: String,
    /// The archive's format (`gnu`, `pax`, `ustar`, `cpio_newc`,
    /// `cpio_crc`, `cpio_odc`).
    pub format: String,
    /// The members listed, in stream order.
    pub members: Vec<MemberJson>,
    /// The globs that matched no member, as given.
    pub unmatched: Vec<String>,
}

/// One member. A name is kept as bytes (`archive::Name`); JSON strings
/// are text, so a name that is not UTF-8 is `path` in its escaped form
/// (`Name::escaped`, as the text listing shows it) and, losslessly,
/// `path_bytes`, its bytes as numbers; `path_bytes` is null for a UTF-8
/// name. Link targets likewise (`link`, `link_bytes`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemberJson {
    pub path: String,
    /// The path's bytes when they are not UTF-8, else null.
    pub path_bytes: Option<Vec<u8>>,
    pub kind: MemberKind,
    /// Bytes extracting it gives.
    pub size: u64,
    /// Modification time, seconds since the epoch.
    pub mtime: i64,
    /// A link's target (escaped when not UTF-8, as `path`).
    pub link: Option<String>,
    /// The target's bytes when they are not UTF-8, else null.
    pub link_bytes: Option<Vec<u8>>,
    /// Stream offset of its first header.
    pub header_offset: u64,
    /// Stream offset just past it, padding included.
    pub end_offset: u64,
    /// The volume (from 1) holding its first header; null without a
    /// manifest.
    pub volume: Option<u32>,
    /// That volume's barcode, when a library loaded it.
    pub barcode: Option<String>,
    /// Its first header's offset from the volume's first byte.
    pub volume_offset: Option<u64>,
    /// The record (tape) or write (file) of the volume that holds its
    /// first header, from 0.
    pub record: Option<u64>,
    /// The fingerprint ("tapebuf:…") of the key that volume's drive
    /// encrypted it with, which a restore of the member needs in
    /// `--key-dir`; null when it is not encrypted or without a manifest.
    #[serde(default)]
    pub key: Option<String>,
}

impl MemberJson {
    /// `member`, placed on its volume when there is a manifest.
    pub fn new(member: Member, manifest: Option<&Manifest>) -> MemberJson {
        let at = manifest.and_then(|m| m.locate(member.header_offset));
        let volume = at.and_then(|at| manifest?.volume(at.volume));
        let barcode = volume
            .and_then(|v| v.barcode.clone())
            .filter(|b| !b.is_empty());
        MemberJson {
            path: text(&member.path),
            path_bytes: bytes(&member.path),
            kind: member.kind,
            size: member.size,
            mtime: member.mtime,
            link: member.link.as_ref().map(text),
            link_bytes: member.link.as_ref().and_then(bytes),
            header_offset: member.header_offset,
            end_offset: member.end_offset,
            volume: at.map(|at| at.volume),
            barcode,
            volume_offset: at.map(|at| at.volume_offset),
            record: at.map(|at| at.record),
            key: volume.and_then(|v| v.key.clone()),
        }
    }
}

impl MemberJson {
    /// The member's path, byte for byte.
    pub fn name(&self) -> Name {
        exact(&self.path, &self.path_bytes)
    }

    /// Its link target, byte for byte.
    pub fn link_name(&self) -> Option<Name> {
        let link = self.link.as_ref()?;
        Some(exact(link, &self.link_bytes))
    }
}

fn exact(text: &str, bytes: &Option<Vec<u8>>) -> Name {
    match bytes {
        Some(bytes) => Name::new(bytes.as_slice()),
        None => Name::from(text),
    }
}

/// A name as a JSON string: itself, or escaped when it is not UTF-8.
fn text(name: &Name) -> String {
    match name.to_str() {
        Some(text) => text.to_owned(),
        None => name.escaped(),
    }
}

/// A name's bytes for JSON, when a string cannot hold them.
fn bytes(name: &Name) -> Option<Vec<u8>> {
    name.to_str().is_none().then(|| name.to_vec())
}
