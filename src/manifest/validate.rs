//! A manifest's own consistency and bounds, checked once after it is
//! parsed and before any of it is used: a manifest is read back years
//! later, perhaps edited or damaged, perhaps crafted, and every later
//! step (the read-ahead, the checker, the verdict) trusts what passed here.
//!
//! The invariant it keeps: every number is within what a real backup can
//! hold, so nothing sized from a manifest can exhaust memory, and the
//! parts agree with each other: volumes numbered 1..n in order, each
//! volume's records adding up to its bytes, the volumes adding up to the
//! stream, one known digest algorithm whose digests have its length. The
//! first fault found is named by its field, `volumes[0].fingerprint.bytes`.

use super::schema::{
    Fingerprint, Manifest, RecordRun, Verified, Volume, FINGERPRINT_MAX_BYTES, SEGMENT_RECORDS,
};
use crate::hash::HashAlg;

/// The largest manifest file read, checked before it is parsed. A
/// manifest grows by about 500 bytes per volume and one segment digest
/// per `SEGMENT_RECORDS` records. Measured: 10,000 volumes take 5 MB, and
/// 100 full 18 TB cartridges in 256 KiB blocks 46 MB; 64 MiB holds a
/// backup of some 2 PB at that block size. Read, it takes about three
/// times its size in memory (186 MB for a 56 MB manifest).
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;
/// The largest block or record: far above any tape drive's (LTO's is
/// 8 MiB), and an allocation a machine can make.
pub const MAX_BLOCK_BYTES: u64 = 1024 * 1024 * 1024;
/// The most bytes one volume holds: the largest file offset.
pub const MAX_VOLUME_BYTES: u64 = i64::MAX as u64;
/// The longest text field: a path (PATH_MAX is 4096 bytes) or a one-line
/// reason naming a few of them.
pub const MAX_TEXT_BYTES: usize = 16 * 1024;
/// The most filemarks after a volume's data: tapebuf writes 1 on a tape.
pub const MAX_FILEMARKS: u32 = 2;

/// The first field of a manifest that is out of bounds or contradicts
/// another: `volumes[2].number: 4; the volumes are numbered 1, 2, ...`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {why}")]
pub struct Invalid {
    pub field: String,
    pub why: String,
}

fn invalid(field: impl Into<String>, why: impl Into<String>) -> Invalid {
    Invalid {
        field: field.into(),
        why: why.into(),
    }
}

impl Manifest {
    /// Checks the manifest's bounds and consistency; the first fault.
    pub fn validate(&self) -> Result<(), Invalid> {
        let alg = HashAlg::from_name(&self.digest_algorithm).ok_or_else(|| {
            invalid(
                "digest_algorithm",
                format!(
                    "\"{}\" is not an algorithm this tapebuf knows (md5, sha256, blake3, xxh3)",
                    clip(&self.digest_algorithm)
                ),
            )
        })?;
        for (field, text) in [
            ("tapebuf_version", &self.tapebuf_version),
            ("started", &self.started),
            ("ended", &self.ended),
            ("output", &self.output),
        ] {
            text_field(field, text)?;
        }
        if let Some(why) = &self.unclean_because {
            text_field("unclean_because", why)?;
        }
        if !(512..=MAX_BLOCK_BYTES).contains(&self.block_bytes) {
            return Err(invalid(
                "block_bytes",
                format!(
                    "{} is not a block size tapebuf writes (512 to {MAX_BLOCK_BYTES} bytes)",
                    self.block_bytes
                ),
            ));
        }
        digest_field("stream.digest", &self.stream.digest, alg)?;
        if self.volumes.is_empty() {
            // A recording run begins volume 1 before its first byte.
            return Err(invalid(
                "volumes",
                "is empty; every backup tapebuf records has a volume 1",
            ));
        }
        let mut sum: u64 = 0;
        for (i, volume) in self.volumes.iter().enumerate() {
            volume.validate(i, alg)?;
            sum = sum.checked_add(volume.bytes).ok_or_else(|| {
                invalid(
                    "volumes",
                    "their bytes add up to more than a stream can hold",
                )
            })?;
        }
        if sum != self.stream.bytes {
            return Err(invalid(
                "stream.bytes",
                format!(
                    "{} is not the {sum} bytes the {} volume entries hold; a volume's entry is missing or wrong",
                    self.stream.bytes,
                    self.volumes.len()
                ),
            ));
        }
        if let [only] = self.volumes.as_slice() {
            if only.digest != self.stream.digest {
                return Err(invalid(
                    "stream.digest",
                    "differs from volumes[0].digest, and a stream of one volume is that volume",
                ));
            }
        }
        Ok(())
    }
}

impl Volume {
    /// Checks entry `i` of `volumes`, whose digests are `alg`'s.
    fn validate(&self, i: usize, alg: HashAlg) -> Result<(), Invalid> {
        let at = |field: &str| format!("volumes[{i}].{field}");
        if self.number as usize != i + 1 {
            return Err(invalid(
                at("number"),
                format!(
                    "{}, but the volumes are numbered 1, 2, 3, ... in order, so this one is {}",
                    self.number,
                    i + 1
                ),
            ));
        }
        text_field(&at("name"), &self.name)?;
        if self.bytes > MAX_VOLUME_BYTES {
            return Err(invalid(
                at("bytes"),
                format!(
                    "{} is more than a volume can hold ({MAX_VOLUME_BYTES} bytes, the largest file offset)",
                    self.bytes
                ),
            ));
        }
        let records = records_field(i, &self.records, self.bytes)?;
        if self.filemarks > MAX_FILEMARKS {
            return Err(invalid(
                at("filemarks"),
                format!(
                    "{} is more than the {MAX_FILEMARKS} a volume ends with",
                    self.filemarks
                ),
            ));
        }
        digest_field(&at("digest"), &self.digest, alg)?;
        fingerprint_field(i, &self.fingerprint, self.records.first())?;
        self.segments_field(i, records, alg)?;
        if let Some(verified) = &self.verified {
            verified_field(i, verified, self.bytes)?;
        }
        Ok(())
    }

    /// `segment_records` and `segments`: one digest per whole segment of
    /// the volume's `records`.
    fn segments_field(&self, i: usize, records: u64, alg: HashAlg) -> Result<(), Invalid> {
        if self.segment_records != SEGMENT_RECORDS {
            return Err(invalid(
                format!("volumes[{i}].segment_records"),
                format!(
                    "{} is not the {SEGMENT_RECORDS} records per segment this tapebuf writes and checks",
                    self.segment_records
                ),
            ));
        }
        let whole = records / SEGMENT_RECORDS;
        if self.segments.len() as u64 != whole {
            return Err(invalid(
                format!("volumes[{i}].segments"),
                format!(
                    "holds {} digests; the volume's {records} records make {whole} whole segments of {SEGMENT_RECORDS}",
                    self.segments.len()
                ),
            ));
        }
        for (s, digest) in self.segments.iter().enumerate() {
            digest_field(&format!("volumes[{i}].segments[{s}]"), digest, alg)?;
        }
        Ok(())
    }
}

/// `volumes[i].records`: runs of 1 byte to a block, adding up to the
/// volume's `bytes`. The number of records.
fn records_field(i: usize, runs: &[RecordRun], bytes: u64) -> Result<u64, Invalid> {
    let (mut sum, mut count) = (0u64, 0u64);
    for (r, run) in runs.iter().enumerate() {
        let field = |name: &str| format!("volumes[{i}].records[{r}].{name}");
        if !(1..=MAX_BLOCK_BYTES).contains(&run.bytes) {
            return Err(invalid(
                field("bytes"),
                format!(
                    "{} is not a record size (1 to {MAX_BLOCK_BYTES} bytes)",
                    run.bytes
                ),
            ));
        }
        if run.count == 0 {
            return Err(invalid(field("count"), "0; a run holds at least 1 record"));
        }
        let run_bytes = run.bytes.checked_mul(run.count);
        match run_bytes.and_then(|b| sum.checked_add(b)) {
            Some(s) if s <= bytes => sum = s,
            _ => {
                return Err(invalid(
                    format!("volumes[{i}].records"),
                    format!("hold more than the volume's {bytes} bytes"),
                ))
            }
        }
        count += run.count;
    }
    if sum != bytes {
        return Err(invalid(
            format!("volumes[{i}].records"),
            format!("hold {sum} bytes, not the volume's {bytes}"),
        ));
    }
    Ok(count)
}

/// `volumes[i].fingerprint`: at most 64 KiB, never past the first record.
fn fingerprint_field(i: usize, f: &Fingerprint, first: Option<&RecordRun>) -> Result<(), Invalid> {
    let field = format!("volumes[{i}].fingerprint.bytes");
    if f.bytes > FINGERPRINT_MAX_BYTES {
        return Err(invalid(
            field,
            format!(
                "{} is more than the {FINGERPRINT_MAX_BYTES} bytes a fingerprint covers",
                f.bytes
            ),
        ));
    }
    let first_bytes = first.map_or(0, |r| r.bytes);
    if f.bytes > first_bytes {
        return Err(invalid(
            field,
            format!(
                "{} is more than the volume's first record ({first_bytes} bytes), which a fingerprint never goes past",
                f.bytes
            ),
        ));
    }
    hex_field(&format!("volumes[{i}].fingerprint.xxh3"), &f.xxh3, 16)
}

/// `volumes[i].verified`: its words bounded, its first bad byte in the
/// volume.
fn verified_field(i: usize, v: &Verified, bytes: u64) -> Result<(), Invalid> {
    let field = |name: &str| format!("volumes[{i}].verified.{name}");
    text_field(&field("method"), &v.method)?;
    if let Some(problem) = &v.problem {
        text_field(&field("problem"), problem)?;
    }
    if !(v.seconds.is_finite() && v.seconds >= 0.0) {
        return Err(invalid(
            field("seconds"),
            format!("{} is not a duration", v.seconds),
        ));
    }
    match v.first_bad_byte {
        Some(at) if at > bytes => Err(invalid(
            field("first_bad_byte"),
            format!("{at} is past the volume's {bytes} bytes"),
        )),
        _ => Ok(()),
    }
}

/// A text field no longer than `MAX_TEXT_BYTES`.
fn text_field(field: &str, text: &str) -> Result<(), Invalid> {
    match text.len() > MAX_TEXT_BYTES {
        true => Err(invalid(
            field,
            format!(
                "is {} bytes long; no field tapebuf writes is longer than {MAX_TEXT_BYTES}",
                text.len()
            ),
        )),
        false => Ok(()),
    }
}

/// A digest of `alg`: its number of lowercase hex digits.
fn digest_field(field: &str, digest: &str, alg: HashAlg) -> Result<(), Invalid> {
    let digits = match alg {
        HashAlg::Md5 => 32,
        HashAlg::Sha256 | HashAlg::Blake3 => 64,
        HashAlg::Xxh3 => 16,
    };
    hex_field(field, digest, digits)
}

fn hex_field(field: &str, text: &str, digits: usize) -> Result<(), Invalid> {
    let hex = text
        .bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    match hex && text.len() == digits {
        true => Ok(()),
        false => Err(invalid(
            field,
            format!("\"{}\" is not {digits} lowercase hex digits", clip(text)),
        )),
    }
}

/// A field's value as quoted in a message: at most 64 characters of it.
fn clip(text: &str) -> String {
    match text.char_indices().nth(64) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text.to_string(),
    }
}
