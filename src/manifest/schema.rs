//! The manifest file: what one backup wrote, volume by volume, as JSON
//! with a schema name and a version, so that a manifest can be read
//! years later and a newer one is refused rather than misread (`load.rs`
//! reads it back, `validate.rs` checks it).
//!
//! Version 1 (documented in the man page, section MANIFEST):
//! - the run: `tapebuf_version`, `started`, `ended` (UTC, ISO 8601),
//!   `clean` (false for a run that failed or was stopped, with
//!   `unclean_because`), `block_bytes`, `output`, `digest_algorithm`;
//! - `stream`: the bytes committed and their digest;
//! - `volumes`: per volume its `number`, `name` (device or file), `bytes`,
//!   `records` as runs of equal sizes, `filemarks`, `digest`, a
//!   `fingerprint` (XXH3-64 of its first bytes, at most 64 KiB and never
//!   past the first record), `segments` (the volume's running digest after
//!   every `segment_records` records, to say where a later check first
//!   differs), `complete`, `verified` when `--verify` read it back, and
//!   `barcode` and `slot` when a tape library loaded the cartridge.
//!   Both are optional: a manifest without them reads as before.
//! - `catalog` (with `--catalog`): the catalog file of the archive's
//!   members, or why there is none; each tape volume's `first_block`, the
//!   drive's block address of its first record, lets a restore seek.

use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::tape::health::VolumeHealth;

/// The `schema` field of every manifest.
pub const SCHEMA: &str = "tapebuf-manifest";
/// The version this tapebuf writes and the newest it reads.
pub const VERSION: u32 = 1;
/// The most bytes a fingerprint covers.
pub const FINGERPRINT_MAX_BYTES: u64 = 64 * 1024;
/// Records per segment digest.
pub const SEGMENT_RECORDS: u64 = 4096;

/// One backup, as written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub schema: String,
    pub version: u32,
    pub tapebuf_version: String,
    pub started: String,
    pub ended: String,
    /// True only when every byte read was committed and nothing failed.
    pub clean: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unclean_because: Option<String>,
    pub block_bytes: u64,
    /// The output as given to `-o`.
    pub output: String,
    /// The algorithm of every `digest` here: `--hash`'s first, else xxh3.
    pub digest_algorithm: String,
    pub stream: Stream,
    pub volumes: Vec<Volume>,
    /// `--catalog`: where the archive's members were catalogued, or why
    /// they were not. Optional: a manifest without it reads as before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub catalog: Option<CatalogRef>,
}

/// The catalog a backup with `--catalog` wrote (`catalog::Catalog`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CatalogRef {
    /// The catalog file, as a name in the manifest's own directory.
    pub file: String,
    /// The archive format followed (`archive::Format`, snake case), once
    /// the first header was read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// Members catalogued.
    pub members: u64,
    /// Why the stream was not followed to its end (the parser's reason,
    /// naming the byte offset): then no catalog file was written, and
    /// `file` names the one that would have been. None when whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub off: Option<String>,
    /// A copy of the catalog was written to the tape as its own tape file
    /// after the last volume's trailer.
    #[serde(default)]
    pub on_tape: bool,
}

/// The whole stream as committed to the output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stream {
    pub bytes: u64,
    pub digest: String,
}

/// One volume: a cartridge or a file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Volume {
    pub number: u32,
    pub name: String,
    pub bytes: u64,
    /// The records (a tape) or writes (a file), as runs of one size.
    pub records: Vec<RecordRun>,
    /// Filemarks after the data: 1 on a tape, 0 on a file.
    pub filemarks: u32,
    pub digest: String,
    pub fingerprint: Fingerprint,
    pub segment_records: u64,
    pub segments: Vec<String>,
    /// False for the volume a failed or stopped run was writing.
    pub complete: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verified: Option<Verified>,
    /// The cartridge's barcode, when a tape library loaded it
    /// (`--changer`); restores and verify find the cartridge by it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub barcode: Option<String>,
    /// The library slot (from 1, as mtx numbers them) the cartridge was
    /// loaded from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slot: Option<usize>,
    /// What the drive and the cartridge said while the volume was
    /// written, on a local tape drive that answers SCSI: the cartridge's
    /// memory (serial number, barcode, manufacturer, load count, lifetime
    /// bytes), the TapeAlert flags raised, corrected errors and retries,
    /// and compression. Restores check the serial number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub health: Option<VolumeHealth>,
    /// On a local tape drive that reports its position (MTIOCPOS): the
    /// logical block address of the volume's first record. A seek to
    /// record `r` of the volume goes to `first_block + r`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_block: Option<u64>,
    /// On a local tape drive with logical block protection: its method
    /// ("CRC32C" or "RS-CRC"); every record of the volume carried that
    /// CRC, checked by the drive when written. A restore on a drive
    /// without it checks the volume's digests instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lbp: Option<String>,
    /// On a local tape drive that encrypted it (`--encrypt-key`): the
    /// fingerprint of the key ("tapebuf:…"), never the key. A restore
    /// finds the key in `--key-dir` by it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

/// `count` records of `bytes` each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordRun {
    pub bytes: u64,
    pub count: u64,
}

/// XXH3-64 of a volume's first `bytes` bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fingerprint {
    pub bytes: u64,
    pub xxh3: String,
}

/// What `--verify` found reading the volume back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verified {
    pub ok: bool,
    /// How it was read: "tape, spaced back and read", "O_DIRECT", "fsync + POSIX_FADV_DONTNEED ...", "rmt, ...".
    pub method: String,
    pub seconds: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_bad_byte: Option<u64>,
}

impl CatalogRef {
    /// The catalog file beside the manifest read from `manifest_path`;
    /// refused when `file` is anything but a plain file name (a manifest
    /// from elsewhere must not send a reader to another directory).
    pub fn path_beside(&self, manifest_path: &Path) -> Result<std::path::PathBuf, String> {
        let mut parts = Path::new(&self.file).components();
        if !matches!(
            (parts.next(), parts.next()),
            (Some(std::path::Component::Normal(_)), None)
        ) {
            return Err(format!(
                "its catalog {:?} is not a file name in the manifest's directory",
                self.file
            ));
        }
        let dir = manifest_path.parent().unwrap_or(Path::new(""));
        Ok(dir.join(&self.file))
    }
}

impl Volume {
    /// The number of records.
    pub fn record_count(&self) -> u64 {
        self.records.iter().map(|r| r.count).sum()
    }

    /// The size of record `index`, if the volume has that many.
    pub fn record_bytes(&self, mut index: u64) -> Option<u64> {
        for run in &self.records {
            if index < run.count {
                return Some(run.bytes);
            }
            index -= run.count;
        }
        None
    }
}

impl Manifest {
    /// Writes the manifest to `path` atomically (`base::create::replace`):
    /// a temporary nobody can name in advance, fsync, rename over `path`
    /// inside its directory, fsync of the directory. A reader sees the old
    /// file or the new one, never half of one.
    pub fn save(&self, path: &Path) -> io::Result<()> {
        let text = serde_json::to_string_pretty(self).map_err(io::Error::other)? + "\n";
        crate::base::create::replace_with(path, text.as_bytes(), crate::base::create::RECORD_MODE)
    }

    /// The volume numbered `n`.
    pub fn volume(&self, n: u32) -> Option<&Volume> {
        self.volumes.iter().find(|v| v.number == n)
    }
}
